//! The input files of a run as `run.json` records them: every file a stage option
//! names ([`crate::StageConfig::reads`]), with its size, modification time and, for
//! files under 100 MB, its SHA-256, so a dataset can be traced to the data it was
//! built from and the files compared with published checksums. A directory stands
//! for the files directly in it (e.g. a folder of site profiles).

use std::io::Read as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;
use sha2::{Digest as _, Sha256};

use crate::plan::Plan;

/// Files this size and larger are not hashed (reading a 130 GB dump twice would
/// double a run's time); their size and modification time identify them.
pub const HASH_LIMIT_BYTES: u64 = 100_000_000;

/// One input file in `run.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputFile {
    /// The stage whose option names it.
    pub stage: String,
    /// The option.
    pub option: String,
    /// Its path (a directory's files as the directory joined with their names).
    pub path: String,
    /// Size in bytes.
    pub bytes: Option<u64>,
    /// Last modification time (UTC).
    pub modified: Option<DateTime<Utc>>,
    /// SHA-256 of its contents, lowercase hex; `null` for files of 100 MB and more.
    pub sha256: Option<String>,
    /// Why it could not be described (missing, unreadable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A file a stage reads: (stage, option, path).
pub type NamedInput = (String, String, PathBuf);

/// Every file the stages of `plan` read, in pipeline order (before they are built).
/// `-` (standard input) is not a file and is left out.
pub fn named_by(plan: &Plan) -> Vec<NamedInput> {
    plan.stages
        .iter()
        .map(|s| (s, &s.config))
        .flat_map(|(s, config)| {
            config
                .reads()
                .into_iter()
                .filter(|(_, path)| path.as_os_str() != "-")
                .map(|(option, path)| (s.name.clone(), option, path))
        })
        .collect()
}

/// Describes each file (reads every file under the hash limit: call it off the
/// async threads).
pub fn describe(inputs: &[NamedInput]) -> Vec<InputFile> {
    let mut described = Vec::new();
    for (stage, option, path) in inputs {
        let entry = |path: &Path| describe_file(stage, option, path);
        match directory_files(path) {
            Some(Ok(files)) => described.extend(files.iter().map(|f| entry(f))),
            Some(Err(e)) => described.push(InputFile {
                error: Some(format!("cannot list the directory: {e}")),
                ..entry(path)
            }),
            None => described.push(entry(path)),
        }
    }
    described
}

/// The regular files directly in `path`, sorted, when it is a directory.
fn directory_files(path: &Path) -> Option<std::io::Result<Vec<PathBuf>>> {
    if !path.is_dir() {
        return None;
    }
    let list = || -> std::io::Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                files.push(entry.path());
            }
        }
        files.sort();
        Ok(files)
    };
    Some(list())
}

pub(crate) fn describe_file(stage: &str, option: &str, path: &Path) -> InputFile {
    let mut file = InputFile {
        stage: stage.to_string(),
        option: option.to_string(),
        path: path.display().to_string(),
        bytes: None,
        modified: None,
        sha256: None,
        error: None,
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) => {
            file.error = Some(e.to_string());
            return file;
        }
    };
    file.bytes = Some(meta.len());
    file.modified = meta.modified().ok().map(DateTime::<Utc>::from);
    if meta.len() < HASH_LIMIT_BYTES {
        match sha256_of(path) {
            Ok(hash) => file.sha256 = Some(hash),
            Err(e) => file.error = Some(format!("cannot read it: {e}")),
        }
    }
    file
}

/// SHA-256 of a file's contents, read in blocks.
fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut reader = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut block = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&block[..n]);
    }
    Ok(lower_hex(&hasher.finalize()))
}

/// `bytes` (a digest) as lowercase hex.
pub fn lower_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(path: &Path) -> Vec<NamedInput> {
        vec![("src".into(), "paths".into(), path.to_path_buf())]
    }

    #[test]
    fn a_file_is_described_by_size_time_and_the_sha256_of_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc.txt");
        std::fs::write(&path, "abc").unwrap();
        let described = describe(&named(&path));
        assert_eq!(described.len(), 1);
        let file = &described[0];
        assert_eq!(file.bytes, Some(3));
        assert_eq!(file.error, None);
        // The FIPS 180-2 test vector for "abc".
        assert_eq!(
            file.sha256.as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert_eq!(file.modified, Some(DateTime::<Utc>::from(modified)));
    }

    #[test]
    fn a_directory_stands_for_its_files_and_a_missing_file_says_why() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.toml"), "b").unwrap();
        std::fs::write(dir.path().join("a.toml"), "a").unwrap();
        std::fs::create_dir(dir.path().join("nested")).unwrap();
        let described = describe(&named(dir.path()));
        let names: Vec<&str> = described
            .iter()
            .map(|f| Path::new(&f.path).file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(names, ["a.toml", "b.toml"]);

        let missing = describe(&named(&dir.path().join("gone.json")));
        assert_eq!(missing[0].bytes, None);
        assert!(missing[0].error.is_some());
    }
}
