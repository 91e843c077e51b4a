//! Output files written under a temporary name in their directory and renamed into
//! place when complete, so an interrupted run never leaves a file that looks
//! complete (a dropped, uncommitted file deletes itself).
//!
//! Every output of Tempora that goes through a temporary file is created here. The
//! files get the mode of any newly created file, `0666` less the umask, and not the
//! `0600` of a private temporary file: a shared dataset directory stays readable by
//! whoever the umask lets read it.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// How the name of every temporary file starts; a run removes those a killed run
/// left (see [`crate::out_dir`]).
pub const TEMP_PREFIX: &str = ".tmp-";

/// A file being written under a temporary name beside `path`; [`AtomicFile::commit`]
/// renames it into place, dropping it deletes it.
#[derive(Debug)]
pub struct AtomicFile {
    tmp: NamedTempFile,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts writing `path`: creates a temporary file in its directory (which must
    /// exist; a bare file name's directory is the working directory).
    ///
    /// # Errors
    /// When the temporary file cannot be created.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let mut builder = tempfile::Builder::new();
        builder.prefix(TEMP_PREFIX);
        // The mode goes to open(2), which takes the umask off it, as for any new file.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder.tempfile_in(directory_of(path))?;
        Ok(Self {
            tmp,
            path: path.to_path_buf(),
        })
    }

    /// Starts writing `path` with all of `contents`, made durable under the
    /// temporary name (to be committed or published later).
    ///
    /// # Errors
    /// When the temporary file cannot be created, written or synced.
    pub fn with_contents(path: &Path, contents: &[u8]) -> std::io::Result<Self> {
        use std::io::Write as _;
        let file = Self::create(path)?;
        file.as_file().write_all(contents)?;
        file.sync()?;
        Ok(file)
    }

    /// The open temporary file.
    pub fn as_file(&self) -> &File {
        self.tmp.as_file()
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file's path.
    pub fn temporary_path(&self) -> &Path {
        self.tmp.path()
    }

    /// Makes the contents durable, under the temporary name.
    ///
    /// # Errors
    /// When `fsync` fails.
    pub fn sync(&self) -> std::io::Result<()> {
        self.tmp.as_file().sync_all()
    }

    /// Keeps the temporary file when this is dropped (a journal names it, see
    /// [`crate::publish`]).
    pub(crate) fn keep(self) -> std::io::Result<()> {
        self.tmp
            .into_temp_path()
            .keep()
            .map(drop)
            .map_err(|e| e.error)
    }

    /// Makes the contents durable and renames the file to its final path, replacing
    /// what was there.
    ///
    /// # Errors
    /// When `fsync` or the rename fails; the temporary file is removed then.
    pub fn commit(self) -> std::io::Result<()> {
        self.tmp.as_file().sync_all()?;
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Writes a file under a temporary name in its directory and renames it into place.
///
/// # Errors
/// I/O errors; the temporary file is removed.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let file = AtomicFile::create(path)?;
    {
        let mut w = BufWriter::new(file.as_file());
        write(&mut w)?;
        w.flush()?;
    }
    file.commit()
}

/// A bare file name has the empty path as its parent: the working directory.
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn files_get_the_mode_of_a_plainly_created_file() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        // File::create asks for 0666 and the umask of this process takes its part.
        let plain = dir.path().join("plain");
        File::create(&plain).unwrap();
        let expected = plain.metadata().unwrap().permissions().mode() & 0o777;
        let path = dir.path().join("out.jsonl");
        write_atomically(&path, |w| w.write_all(b"{}\n")).unwrap();
        let mode = path.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(format!("{mode:o}"), format!("{expected:o}"));
        assert_eq!(std::fs::read(&path).unwrap(), b"{}\n");
    }

    #[test]
    fn an_uncommitted_file_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        let file = AtomicFile::create(&path).unwrap();
        (&mut file.as_file()).write_all(b"half").unwrap();
        drop(file);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let failed = write_atomically(&path, |_| Err(std::io::Error::other("broken")));
        assert!(failed.is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_bare_file_name_is_in_the_working_directory() {
        assert_eq!(directory_of(Path::new("run.json")), Path::new("."));
        assert_eq!(directory_of(Path::new("out/run.json")), Path::new("out"));
    }
}
