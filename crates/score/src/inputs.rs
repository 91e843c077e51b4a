//! The files a scoring job reads, as lines and by digest: a set's article files,
//! the facts and the predictions are JSON lines or Parquet, read here as lines;
//! `summary.json` records the SHA-256 of the set files and of the facts, so that a
//! reader of the scores can tell whether the folder still holds what was scored.

use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::ScoreError;

/// The lines of a JSONL file, or of a Parquet file (by its extension, any case)
/// as JSON lines, one per row.
///
/// # Errors
/// The file cannot be read, or is no Parquet file this can read.
pub(crate) fn read_lines(path: &Path) -> Result<Vec<String>, ScoreError> {
    let read_error = |source| ScoreError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        let bytes = tempora_sink::parquet::read_json_lines(file).map_err(|e| ScoreError::File {
            path: path.to_path_buf(),
            message: format!("not a Parquet file this can read: {e}"),
        })?;
        return Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect());
    }
    std::io::BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(read_error)
}

/// SHA-256 of a file, hex, or the error naming it.
pub(crate) fn sha256(path: &Path) -> Result<String, ScoreError> {
    tempora_sink::release::sha256_file(path).map_err(|source| ScoreError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// `path` as `summary.json` names it: relative to the set folder when in it,
/// else absolute (so that a reader elsewhere finds the same file).
fn name_of(path: &Path, set: Option<&Path>) -> String {
    if let Some(inside) = set.and_then(|dir| path.strip_prefix(dir).ok()) {
        return inside.display().to_string();
    }
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The facts file a job read, as `summary.json` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactsFile {
    /// Its path: relative to the set folder when in it, else absolute.
    pub name: String,
    /// SHA-256 of its bytes, hex.
    pub sha256: String,
    /// Facts read from it.
    pub read: u64,
}

impl FactsFile {
    /// Names `path` (relative to `set` when in it) and hashes it.
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn of(path: &Path, set: Option<&Path>, read: u64) -> Result<Self, ScoreError> {
        Ok(Self {
            name: name_of(path, set),
            sha256: sha256(path)?,
            read,
        })
    }
}

/// A set file a job read, by digest (in `summary.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetFile {
    /// The set (`future`).
    pub set: String,
    /// The file, relative to the set folder.
    pub file: String,
    /// SHA-256 of its bytes when scored, hex.
    pub sha256: String,
}

impl SetFile {
    /// Names `path` (relative to the set folder `dir`) and hashes it.
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn of(set: &str, path: &Path, dir: &Path) -> Result<Self, ScoreError> {
        Ok(Self {
            set: set.to_string(),
            file: name_of(path, Some(dir)),
            sha256: sha256(path)?,
        })
    }
}

/// The first of `files` (name relative to `dir`, or absolute; SHA-256 when read)
/// that `dir` no longer holds as it was: why, in words (`future.jsonl changed since`),
/// or `None` when every file is as it was.
pub fn first_change<'a>(
    dir: &Path,
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Option<String> {
    files.into_iter().find_map(|(name, digest)| {
        let path: PathBuf = dir.join(name);
        match tempora_sink::release::sha256_file(&path) {
            Ok(now) if now == digest => None,
            Ok(_) => Some(format!("`{name}` changed since they were scored")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Some(format!("`{name}` is gone since they were scored"))
            }
            Err(e) => Some(format!("`{name}` cannot be read: {e}")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_changed_or_went_is_named_and_one_as_it_was_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let future = dir.path().join("future.jsonl");
        std::fs::write(&future, "{\"id\": \"1\"}\n").unwrap();
        let facts = dir.path().join("facts.jsonl");
        std::fs::write(&facts, "").unwrap();
        let set = SetFile::of("future", &future, dir.path()).unwrap();
        assert_eq!(set.file, "future.jsonl");
        let read = FactsFile::of(&facts, Some(dir.path()), 0).unwrap();
        let files = |set: &SetFile, read: &FactsFile| {
            [
                (set.file.clone(), set.sha256.clone()),
                (read.name.clone(), read.sha256.clone()),
            ]
        };
        let check = |files: &[(String, String); 2]| {
            first_change(
                dir.path(),
                files.iter().map(|(n, d)| (n.as_str(), d.as_str())),
            )
        };
        assert_eq!(check(&files(&set, &read)), None);
        std::fs::write(&future, "{\"id\": \"2\"}\n").unwrap();
        assert_eq!(
            check(&files(&set, &read)).as_deref(),
            Some("`future.jsonl` changed since they were scored")
        );
        let set = SetFile::of("future", &future, dir.path()).unwrap();
        std::fs::remove_file(&facts).unwrap();
        assert_eq!(
            check(&files(&set, &read)).as_deref(),
            Some("`facts.jsonl` is gone since they were scored")
        );
        // A facts file outside the folder is named by its absolute path.
        let elsewhere = tempfile::tempdir().unwrap();
        let outside = elsewhere.path().join("facts.jsonl");
        std::fs::write(&outside, "").unwrap();
        let read = FactsFile::of(&outside, Some(dir.path()), 0).unwrap();
        assert!(Path::new(&read.name).is_absolute(), "{}", read.name);
        assert_eq!(check(&files(&set, &read)), None);
    }
}
