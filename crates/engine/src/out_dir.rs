//! The output directory of a run: claimed by one run at a time, and cleared of
//! what a killed run left in it.
//!
//! A run holds an OS lock on `<out>/.tempora.lock` from its start to its end (a
//! killed run never leaves it held), so two runs never write one folder. Having
//! it, the run finishes a publication a killed run began ([`crate::publish`]),
//! then removes the temporary files and folders (`.tmp-*`, see
//! [`crate::atomic_file`]) that a killed run left beside its outputs, and the
//! folders of killed runs under `runs/` (those without a `run.json`) once they
//! hold nothing else.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::atomic_file::TEMP_PREFIX;
use crate::runs::RUNS_DIR;

/// The lock file's name in the output directory.
pub const LOCK_FILE: &str = ".tempora.lock";

/// How deep below the output directory temporary files are looked for (sink paths
/// like `runs/{run}/x.jsonl` are two deep).
const MAX_DEPTH: usize = 4;

/// Creates `out` and checks that a file can be made in it.
///
/// # Errors
/// Why not.
pub fn check_writable(out: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    tempfile::Builder::new()
        .prefix(".tempora-probe")
        .tempfile_in(out)
        .map(drop)
}

/// An output directory claimed by this run, until dropped.
#[derive(Debug)]
pub struct OutDir {
    _lock: File,
}

/// Why the output directory could not be claimed.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// Another run holds the lock.
    #[error(
        "another run is writing to {} (it holds {}); wait for it to end, or give this run \
         another `pipeline.out`",
        out.display(),
        lock.display()
    )]
    Busy {
        /// The output directory.
        out: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// The lock file or a left-over file could not be handled.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl OutDir {
    /// Claims `out` (which must exist) for this run and clears what killed runs left.
    ///
    /// # Errors
    /// When another run holds it, or a file cannot be locked or removed.
    pub fn claim(out: &Path) -> Result<Self, ClaimError> {
        let lock_path = out.join(LOCK_FILE);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ClaimError::Io { path, source }
        };
        let lock = File::create(&lock_path).map_err(io(&lock_path))?;
        if lock.try_lock().is_err() {
            return Err(ClaimError::Busy {
                out: out.to_path_buf(),
                lock: lock_path,
            });
        }
        // A publication a killed run began is finished first: its journal names
        // temporary files that are outputs now.
        crate::publish::recover(out).map_err(io(&out.join(crate::publish::JOURNAL)))?;
        let removed = remove_temporaries(out, MAX_DEPTH)?;
        let folders = remove_killed_run_folders(&out.join(RUNS_DIR))?;
        if removed + folders > 0 {
            tracing::info!(
                files = removed,
                folders,
                out = %out.display(),
                "removed what killed runs left in the output directory"
            );
        }
        Ok(Self { _lock: lock })
    }
}

/// Removes every `.tmp-*` file in `dir` and its folders down to `depth`; the count.
fn remove_temporaries(dir: &Path, depth: usize) -> Result<usize, ClaimError> {
    let io = |source| ClaimError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut removed = 0;
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        let kind = entry.file_type().map_err(io)?;
        let temporary = entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX);
        if kind.is_dir() && temporary {
            std::fs::remove_dir_all(&path).map_err(|source| ClaimError::Io { path, source })?;
            removed += 1;
        } else if kind.is_dir() && depth > 0 {
            removed += remove_temporaries(&path, depth - 1)?;
        } else if kind.is_file() && temporary {
            std::fs::remove_file(&path).map_err(|source| ClaimError::Io { path, source })?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Removes the empty folders of runs that never wrote their `run.json`; the count.
fn remove_killed_run_folders(runs: &Path) -> Result<usize, ClaimError> {
    let Ok(entries) = std::fs::read_dir(runs) else {
        return Ok(0);
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let empty = std::fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none());
        if empty && !path.join("run.json").exists() {
            std::fs::remove_dir(&path).map_err(|source| ClaimError::Io { path, source })?;
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_is_refused_and_killed_runs_leftovers_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        std::fs::create_dir_all(out.join("runs/2026-01-01T000000Z")).unwrap();
        std::fs::create_dir_all(out.join("runs/2026-01-02T000000Z")).unwrap();
        std::fs::write(out.join("runs/2026-01-01T000000Z/run.json"), "{}").unwrap();
        std::fs::write(out.join("runs/2026-01-02T000000Z/.tmp-abc"), "half").unwrap();
        std::fs::write(out.join(".tmp-xyz"), "half").unwrap();
        std::fs::create_dir_all(out.join(".tmp-sort/")).unwrap();
        std::fs::write(out.join(".tmp-sort/0"), "segment").unwrap();
        std::fs::write(out.join("articles.jsonl"), "{}\n").unwrap();

        let claimed = OutDir::claim(out).unwrap();
        assert!(!out.join(".tmp-xyz").exists());
        assert!(!out.join(".tmp-sort").exists());
        assert!(!out.join("runs/2026-01-02T000000Z").exists());
        assert!(out.join("runs/2026-01-01T000000Z/run.json").exists());
        assert!(out.join("articles.jsonl").exists());

        let err = OutDir::claim(out).unwrap_err().to_string();
        assert!(err.contains("another run is writing to"), "{err}");
        drop(claimed);
        OutDir::claim(out).unwrap();
    }
}
