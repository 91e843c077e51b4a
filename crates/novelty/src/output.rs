//! Files written whole (the records of `tempora novelty`, the subsets of
//! `tempora diversify`): through the engine's atomic write, so an interrupted run
//! leaves no file that looks complete.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use tempora_engine::atomic_file::AtomicFile;

use crate::error::NoveltyError;

/// Creates `path` (and its folder) under a temporary name and renames it into
/// place once `write` is done.
///
/// # Errors
/// A folder or file that cannot be created or written, or `write`'s own error;
/// each names the file.
pub fn write_atomically<E: std::fmt::Display>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&File>) -> Result<(), E>,
) -> Result<(), NoveltyError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| NoveltyError::file(dir, e.to_string()))?;
    }
    tempora_engine::runtime::write_atomically(path, |out| {
        write(out).map_err(|e| std::io::Error::other(e.to_string()))
    })
    .map_err(|e| NoveltyError::file(path, e.to_string()))
}

/// Creates every file of `paths` (and their folders) under temporary names and
/// renames them into place once `write`, given a writer for each in order, is done:
/// for files written in one pass over their input. None is renamed when `write`
/// fails.
///
/// # Errors
/// As [`write_atomically`]; `write`'s own error as it is.
pub fn write_all_atomically(
    paths: &[PathBuf],
    write: impl FnOnce(&mut [BufWriter<&File>]) -> Result<(), NoveltyError>,
) -> Result<(), NoveltyError> {
    let failed = |path: &Path, e: &dyn std::fmt::Display| NoveltyError::file(path, e.to_string());
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| failed(dir, &e))?;
        }
        files.push(AtomicFile::create(path).map_err(|e| failed(path, &e))?);
    }
    {
        let mut outs: Vec<BufWriter<&File>> =
            files.iter().map(|f| BufWriter::new(f.as_file())).collect();
        write(&mut outs)?;
        for (out, path) in outs.iter_mut().zip(paths) {
            out.flush().map_err(|e| failed(path, &e))?;
        }
    }
    for (file, path) in files.into_iter().zip(paths) {
        file.commit().map_err(|e| failed(path, &e))?;
    }
    Ok(())
}

/// Writes `records` to `path` as JSON lines, atomically (see [`write_atomically`]).
///
/// # Errors
/// See [`write_atomically`].
pub fn write_jsonl<T: Serialize>(
    path: &Path,
    records: impl IntoIterator<Item = T>,
) -> Result<(), NoveltyError> {
    write_atomically(path, |out| {
        for record in records {
            serde_json::to_writer(&mut *out, &record)?;
            out.write_all(b"\n")?;
        }
        Ok::<_, std::io::Error>(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_file_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let paths = [dir.path().join("a/one.txt"), dir.path().join("a/two.txt")];
        write_all_atomically(&paths, |outs| {
            let io = |e| NoveltyError::Usage(format!("{e}"));
            outs[0].write_all(b"1\n").map_err(io)?;
            outs[1].write_all(b"2\n").map_err(io)
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&paths[0]).unwrap(), "1\n");
        assert_eq!(std::fs::read_to_string(&paths[1]).unwrap(), "2\n");

        let others = [dir.path().join("b/one.txt"), dir.path().join("b/two.txt")];
        let err = write_all_atomically(&others, |outs| {
            outs[0]
                .write_all(b"half")
                .map_err(|e| NoveltyError::Usage(e.to_string()))?;
            Err(NoveltyError::Usage("the input broke".into()))
        })
        .unwrap_err();
        assert!(err.to_string().contains("the input broke"), "{err}");
        assert_eq!(std::fs::read_dir(dir.path().join("b")).unwrap().count(), 0);
    }
}
