//! Runs of a pipeline: the [`RunId`] that names one run (the `{run}` and `{date}`
//! placeholders of sink paths), and the `runs/<run>/` folder in which an incremental
//! pipeline keeps every run's `run.json` and `rejected.jsonl`.
//!
//! A run id is the run's start in UTC, `2026-11-23T023015Z`: date, `T`, hours,
//! minutes and seconds without separators, `Z`. It sorts as the runs happened and
//! is a valid file name everywhere (no `:`). A second run of the same pipeline
//! started within the same second gets `-2` (then `-3`, ...) appended when it
//! claims its folder, so two runs never share one.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

/// The folder under `pipeline.out` that holds one folder per run of an incremental pipeline.
pub const RUNS_DIR: &str = "runs";

/// How many runs may start within one second before claiming a folder gives up.
const MAX_SAME_SECOND: u32 = 100;

/// One run of a pipeline: when it started, and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunId {
    started_at: DateTime<Utc>,
    label: String,
}

impl RunId {
    /// The run that starts at `started_at`.
    pub fn new(started_at: DateTime<Utc>) -> Self {
        Self {
            started_at,
            label: started_at.format("%Y-%m-%dT%H%M%SZ").to_string(),
        }
    }

    /// Its name, e.g. `2026-11-23T023015Z` (what `{run}` becomes).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The day it started (UTC), e.g. `2026-11-23` (what `{date}` becomes).
    pub fn date(&self) -> String {
        self.started_at.format("%Y-%m-%d").to_string()
    }

    /// When it started.
    pub fn started_at(&self) -> DateTime<Utc> {
        self.started_at
    }

    /// Creates this run's folder `out/runs/<run>`; when a run that started in the same
    /// second has it already, the label takes the next free suffix (`-2`, `-3`, ...).
    /// Returns the folder.
    ///
    /// # Errors
    /// When the folder cannot be created.
    pub fn claim_folder(&mut self, out: &Path) -> std::io::Result<PathBuf> {
        let runs = out.join(RUNS_DIR);
        std::fs::create_dir_all(&runs)?;
        let base = self.label.clone();
        for n in 1..=MAX_SAME_SECOND {
            let label = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let dir = runs.join(&label);
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    self.label = label;
                    return Ok(dir);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "{}: {MAX_SAME_SECOND} runs started in this second already",
                runs.join(&base).display()
            ),
        ))
    }
}

impl Default for RunId {
    /// A run starting now.
    fn default() -> Self {
        Self::new(Utc::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32, m: u32, s: u32) -> RunId {
        RunId::new(Utc.with_ymd_and_hms(2026, 11, 23, h, m, s).unwrap())
    }

    #[test]
    fn labels_sort_as_the_runs_started_and_name_their_day() {
        let early = at(2, 30, 15);
        assert_eq!(early.label(), "2026-11-23T023015Z");
        assert_eq!(early.date(), "2026-11-23");
        let later = at(14, 5, 0);
        assert!(early.label() < later.label());
        assert!(!early.label().contains(':'));
    }

    #[test]
    fn runs_of_the_same_second_get_folders_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = at(2, 30, 15);
        let mut second = at(2, 30, 15);
        let a = first.claim_folder(dir.path()).unwrap();
        let b = second.claim_folder(dir.path()).unwrap();
        assert_eq!(a, dir.path().join("runs/2026-11-23T023015Z"));
        assert_eq!(b, dir.path().join("runs/2026-11-23T023015Z-2"));
        assert_eq!(second.label(), "2026-11-23T023015Z-2");
        assert!(a.is_dir() && b.is_dir());
        // Still after the first and before the next second.
        assert!(first.label() < second.label());
        assert!(second.label() < at(2, 30, 16).label());
    }
}
