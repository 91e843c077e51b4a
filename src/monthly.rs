//! A monthly release (`[pipeline.release] month`): where it is written, what
//! keeps it unchanged, and what its making does to the releases before it.
//!
//! The pipeline's output folder is then a collection of releases: each
//! release is a complete output folder of its own, `OUT/2026-11/` (a
//! correction: `OUT/2026-11.v2/`), with `release.json` naming it. Once a
//! release's folder holds `release.json` no run writes in it again: a run of
//! the same release is refused before anything runs, naming it. A run whose
//! earlier attempt did not publish resolves its relative dates on the day that
//! attempt did (its `run.json`), so the release is the same whatever day it
//! is finished on. After a release is published, the withheld parts of the
//! releases before it are revealed (`reveal = "next_release"`), each in
//! `OUT/reveals/<release>.json`, and the collection's card is written.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use tempora_engine::PipelineFile;
use tempora_sink::release::hex;

use crate::release::{Monthly, Reveal};

use tempora_report::card::releases::release_folders;
pub use tempora_report::card::releases::{
    RevealRecord, RELEASE_FILE, REVEALS_DIR as REVEALS, REVEAL_SCHEMA,
};
/// The schema of [`RELEASE_FILE`].
pub const RELEASE_SCHEMA: &str = "tempora-release/1";
/// `release.json`: what the release is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReleaseRecord {
    /// [`RELEASE_SCHEMA`].
    pub schema: String,
    /// Its name, its folder's: `2026-11`, `2026-11.v2`.
    pub release: String,
    /// The month of its articles, `YYYY-MM`.
    pub month: String,
    /// 1, or the correction's number.
    pub version: u32,
    /// The release a correction corrects (the one before it).
    pub corrects: Option<String>,
    /// The run that made it.
    pub run: String,
    /// The day its relative dates were resolved on.
    pub run_day: NaiveDate,
    /// The share held back, when one is.
    pub withhold: Option<f64>,
    /// When the withheld part is revealed.
    pub reveal: String,
}

/// The release a run makes, and where.
#[derive(Debug, Clone)]
pub struct ReleaseFolder {
    /// The collection: the pipeline's output folder.
    pub collection: PathBuf,
    /// The release.
    pub monthly: Monthly,
    /// The share held back, when one is.
    pub withhold: Option<f64>,
    /// The day the run resolved its dates on.
    pub run_day: NaiveDate,
}

impl ReleaseFolder {
    /// The release's own folder.
    pub fn path(&self) -> PathBuf {
        self.collection.join(self.monthly.name())
    }

    /// `release.json` of the run named `run`.
    pub fn record(&self, run: &str) -> ReleaseRecord {
        let m = &self.monthly;
        ReleaseRecord {
            schema: RELEASE_SCHEMA.into(),
            release: m.name(),
            month: m.month.clone(),
            version: m.version,
            corrects: (m.version > 1).then(|| {
                Monthly {
                    version: m.version - 1,
                    ..m.clone()
                }
                .name()
            }),
            run: run.to_string(),
            run_day: self.run_day,
            withhold: self.withhold,
            reveal: m.reveal.as_str().into(),
        }
    }
}

/// Places the run's output in the release's folder of the collection the file
/// names (`pipeline.out`), rewriting `pipeline.out` in the file's table; its
/// dates were resolved on `run_day`.
pub fn place(
    file: &mut PipelineFile,
    monthly: &Monthly,
    withhold: Option<f64>,
    run_day: NaiveDate,
) -> ReleaseFolder {
    let folder = ReleaseFolder {
        collection: file.output_dir(),
        monthly: monthly.clone(),
        withhold,
        run_day,
    };
    if let Some(toml::Value::Table(pipeline)) = file.table.get_mut("pipeline") {
        pipeline.insert(
            "out".into(),
            toml::Value::String(folder.path().display().to_string()),
        );
    }
    folder
}

/// Why a release cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseRefused {
    /// It is out: its files never change.
    #[error(
        "release {release} is out ({path}, made by run {run}): a release never changes; \
         to correct it, make version {next} (`--set pipeline.release.version={next}`), \
         which is published beside it as {next_name}"
    )]
    Out {
        /// Its name.
        release: String,
        /// Its `release.json`.
        path: String,
        /// The run that made it.
        run: String,
        /// The next version.
        next: u32,
        /// That version's name.
        next_name: String,
    },
    /// A correction of a release that is not out.
    #[error("release {release} corrects {corrects}, which is not out ({path} has no release.json): make {corrects} first")]
    CorrectsNothing {
        /// The correction.
        release: String,
        /// What it would correct.
        corrects: String,
        /// That release's folder.
        path: String,
    },
    /// A record cannot be read.
    #[error("{path}: {why}")]
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        why: String,
    },
}

/// Checks that the release can be made, and returns the day an earlier attempt
/// of it resolved its dates on (its `run.json`'s `dates.run_day`), if one left
/// a record without publishing.
///
/// # Errors
/// The release is out, corrects a release that is not, or a record of it
/// cannot be read.
pub fn check(folder: &ReleaseFolder) -> Result<Option<NaiveDate>, ReleaseRefused> {
    let path = folder.path();
    if let Some(out) = read_record(&path)? {
        let mut next = folder.monthly.clone();
        next.version = out.version.max(next.version).saturating_add(1);
        return Err(ReleaseRefused::Out {
            release: out.release,
            path: path.join(RELEASE_FILE).display().to_string(),
            run: out.run,
            next: next.version,
            next_name: next.name(),
        });
    }
    if folder.monthly.version > 1 {
        let before = ReleaseFolder {
            monthly: Monthly {
                version: folder.monthly.version - 1,
                ..folder.monthly.clone()
            },
            ..folder.clone()
        };
        if read_record(&before.path())?.is_none() {
            return Err(ReleaseRefused::CorrectsNothing {
                release: folder.monthly.name(),
                corrects: before.monthly.name(),
                path: before.path().display().to_string(),
            });
        }
    }
    Ok(attempt_day(&path))
}

/// The release's record in `folder`, when it is out.
fn read_record(folder: &Path) -> Result<Option<ReleaseRecord>, ReleaseRefused> {
    let path = folder.join(RELEASE_FILE);
    let unreadable = |why: String| ReleaseRefused::Unreadable {
        path: path.display().to_string(),
        why,
    };
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| unreadable(format!("not a release's record: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(unreadable(e.to_string())),
    }
}

/// The run day an attempt that did not publish recorded in `folder/run.json`.
fn attempt_day(folder: &Path) -> Option<NaiveDate> {
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("run.json")).ok()?).ok()?;
    run.pointer("/dates/run_day")?.as_str()?.parse().ok()
}

/// Whether `dir` is a release of a collection (it holds `release.json`).
pub fn is_release(dir: &Path) -> bool {
    dir.join(RELEASE_FILE).is_file()
}

/// The releases of `collection` with their records, by name.
fn releases(collection: &Path) -> anyhow::Result<Vec<(PathBuf, ReleaseRecord)>> {
    let folders = match release_folders(collection) {
        Ok(folders) => folders,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", collection.display())),
    };
    let mut found = Vec::new();
    for (_, path) in folders.published {
        if let Some(record) = read_record(&path).map_err(anyhow::Error::new)? {
            found.push((path, record));
        }
    }
    Ok(found)
}

/// The releases of the collection other than `folder`'s that an attempt
/// left unpublished, each with the command that makes it: a retry after the
/// month turned makes the next month's release, not these.
pub fn unpublished(folder: &ReleaseFolder) -> Vec<String> {
    let Ok(folders) = release_folders(&folder.collection) else {
        return Vec::new();
    };
    folders
        .attempts
        .iter()
        .filter(|(_, path)| *path != folder.path())
        .map(|(name, path)| {
            let version = match name.version {
                1 => String::new(),
                v => format!(" --set pipeline.release.version={v}"),
            };
            format!(
                "release {name} was attempted and never published ({}): make it with \
                 `--set pipeline.release.month={}{version}` (its dates are resolved on the \
                 day of its attempt)",
                path.join("run.json").display(),
                name.month
            )
        })
        .collect()
}

/// After a release is published: reveals the withheld part of every release
/// of an earlier month that waits for the next release, with the key file
/// `key` (the pipeline's), then writes the collection's card. Returns what it
/// did, a line each.
///
/// # Errors
/// A release cannot be read, a reveal's checks fail, a file cannot be written.
pub fn after_release(folder: &ReleaseFolder, key: Option<&Path>) -> anyhow::Result<Vec<String>> {
    let mut done = Vec::new();
    let mut failed = Vec::new();
    for (path, record) in releases(&folder.collection)? {
        let waits = record.reveal == Reveal::NextRelease.as_str()
            && record.withhold.is_some()
            && record.month < folder.monthly.month;
        let record_path = reveal_path(&folder.collection, &record.release);
        if !waits || record_path.exists() {
            continue;
        }
        let Some(key) = key else {
            done.push(format!(
                "release {} waits to be revealed, but the pipeline names no key",
                record.release
            ));
            continue;
        };
        // One release that cannot be revealed keeps neither the others nor
        // the card from being done.
        match write_reveal(&path, &record.release, key, &record_path) {
            Ok(files) => done.push(format!(
                "revealed release {} ({files} withheld file{}): {}",
                record.release,
                if files == 1 { "" } else { "s" },
                record_path.display()
            )),
            Err(e) => failed.push(format!("{e:#}")),
        }
    }
    let card = write_card(&folder.collection)?;
    done.push(format!(
        "index card: {} ({} release{} to load)",
        folder.collection.join("README.md").display(),
        card.configs.len(),
        if card.configs.len() == 1 { "" } else { "s" }
    ));
    if !failed.is_empty() {
        for line in &done {
            println!("{line}");
        }
        anyhow::bail!("{}", failed.join("; "));
    }
    Ok(done)
}

/// Writes the card of `collection`.
///
/// # Errors
/// See [`tempora_report::card::releases::write_collection_card`], naming the
/// folder and how to write the card again.
fn write_card(collection: &Path) -> anyhow::Result<tempora_report::card::releases::CollectionCard> {
    tempora_report::card::releases::write_collection_card(collection).with_context(|| {
        format!(
            "the index card of {} (`tempora card {}` writes it again)",
            collection.display(),
            collection.display()
        )
    })
}

/// Where the reveal of `release` is recorded.
fn reveal_path(collection: &Path, release: &str) -> PathBuf {
    collection.join(REVEALS).join(format!("{release}.json"))
}

/// Checks the release at `path` against its commitment and `key`, and writes
/// its reveal to `to`. Returns the number of files revealed.
fn write_reveal(path: &Path, release: &str, key: &Path, to: &Path) -> anyhow::Result<usize> {
    let commitment = crate::commands::reveal::committed(path)?;
    let key = crate::commands::reveal::verify(path, &commitment, key)
        .with_context(|| format!("cannot reveal release {release}"))?;
    let record = RevealRecord {
        schema: REVEAL_SCHEMA.into(),
        release: release.to_string(),
        at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        key: hex(&key),
        files: commitment.files.clone(),
    };
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    tempora_engine::atomic_file::write_atomically(to, |w| {
        serde_json::to_writer_pretty(&mut *w, &record)?;
        std::io::Write::write_all(w, b"\n")
    })
    .with_context(|| format!("cannot write {}", to.display()))?;
    Ok(record.files.len())
}

/// `tempora reveal` on a release of a collection: its withheld part revealed
/// in the collection's record (the release's own files never change), and the
/// collection's card written again.
///
/// # Errors
/// As [`after_release`]'s reveal.
pub fn reveal_release(release: &Path, key: Option<&Path>) -> anyhow::Result<()> {
    let record =
        read_record(release)?.with_context(|| format!("{} is no release", release.display()))?;
    // `.` or a bare name: the collection is the folder above the release's own.
    let release = std::fs::canonicalize(release)
        .with_context(|| format!("cannot read {}", release.display()))?;
    let release = release.as_path();
    let collection = release
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    let to = reveal_path(&collection, &record.release);
    if to.exists() {
        println!(
            "release {} is already revealed: {}",
            record.release,
            to.display()
        );
        return Ok(());
    }
    let key = match key {
        Some(key) => key.to_path_buf(),
        None => crate::commands::reveal::run_key(release)?,
    };
    let files = write_reveal(release, &record.release, &key, &to)?;
    println!(
        "revealed release {} ({files} withheld files): {}",
        record.release,
        to.display()
    );
    write_card(&collection)?;
    println!("wrote {}", collection.join("README.md").display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(collection: &Path, version: u32) -> ReleaseFolder {
        ReleaseFolder {
            collection: collection.to_path_buf(),
            monthly: Monthly {
                month: "2026-11".into(),
                version,
                reveal: Reveal::NextRelease,
            },
            withhold: Some(1.0),
            run_day: NaiveDate::from_ymd_opt(2026, 12, 3).unwrap(),
        }
    }

    fn publish(folder: &ReleaseFolder) {
        std::fs::create_dir_all(folder.path()).unwrap();
        let record = folder.record("2026-12-03T040000Z");
        std::fs::write(
            folder.path().join(RELEASE_FILE),
            serde_json::to_vec(&record).unwrap(),
        )
        .unwrap();
    }

    #[test]
    fn a_release_that_is_out_is_refused_naming_it_and_the_version_that_would_correct_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = folder(dir.path(), 1);
        assert!(check(&first).unwrap().is_none(), "nothing there yet");
        publish(&first);
        let refused = check(&first).unwrap_err().to_string();
        for needle in [
            "release 2026-11 is out",
            "release.json, made by run 2026-12-03T040000Z",
            "`--set pipeline.release.version=2`",
            "2026-11.v2",
        ] {
            assert!(refused.contains(needle), "{needle}: {refused}");
        }
        let second = folder(dir.path(), 2);
        assert!(check(&second).unwrap().is_none());
        publish(&second);
        let refused = check(&second).unwrap_err().to_string();
        assert!(refused.contains("release 2026-11.v2 is out"), "{refused}");
        assert!(refused.contains("make version 3"), "{refused}");
    }

    #[test]
    fn a_correction_needs_the_release_it_corrects() {
        let dir = tempfile::tempdir().unwrap();
        let refused = check(&folder(dir.path(), 2)).unwrap_err().to_string();
        assert!(
            refused.contains("release 2026-11.v2 corrects 2026-11, which is not out"),
            "{refused}"
        );
        let record = folder(dir.path(), 2).record("r");
        assert_eq!(record.corrects.as_deref(), Some("2026-11"));
        assert_eq!(folder(dir.path(), 1).record("r").corrects, None);
    }

    #[test]
    fn an_attempt_that_did_not_publish_gives_its_run_day_and_a_bad_record_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let release = folder(dir.path(), 1);
        std::fs::create_dir_all(release.path()).unwrap();
        std::fs::write(
            release.path().join("run.json"),
            r#"{"status": "failed", "dates": {"run_day": "2026-12-03", "relative": []}}"#,
        )
        .unwrap();
        assert_eq!(
            check(&release).unwrap(),
            NaiveDate::from_ymd_opt(2026, 12, 3)
        );
        std::fs::write(release.path().join(RELEASE_FILE), "{").unwrap();
        let refused = check(&release).unwrap_err().to_string();
        assert!(
            refused.contains("release.json: not a release's record"),
            "{refused}"
        );
    }

    #[test]
    fn the_release_is_placed_in_its_folder_of_the_collection() {
        let text = "[pipeline]\nname = \"m\"\ncutoff = 2019-12-31\nout = \"out/m\"\n";
        let mut file = PipelineFile::parse("m.toml", text, &[]).unwrap();
        let monthly = Monthly {
            month: "2026-11".into(),
            version: 2,
            reveal: Reveal::Never,
        };
        let placed = place(&mut file, &monthly, None, NaiveDate::MIN);
        assert_eq!(placed.collection, PathBuf::from("out/m"));
        assert_eq!(placed.path(), PathBuf::from("out/m/2026-11.v2"));
        assert_eq!(
            file.table["pipeline"]["out"].as_str(),
            Some("out/m/2026-11.v2")
        );
    }
}
