//! The index card of a collection of monthly releases (`OUT/README.md`), which
//! makes the folder one Hugging Face dataset with one config per release:
//! `datasets.load_dataset(OUT, "2026-11")`.
//!
//! In: a collection, a folder with no `run.json` whose subfolders named
//! `YYYY-MM` (version 1) or `YYYY-MM.vN` (a correction, N >= 2) each hold a
//! release: a complete output folder of `tempora run` with its `release.json`;
//! and `reveals/<release>.json`, the withheld part of a release revealed later.
//! Other subfolders are no part of it. Out: `OUT/README.md`:
//!
//! - `configs`: one per release, named by it; its splits are the release's
//!   `sets` config (its `manifest` config when the folder holds no sets, as a
//!   published folder without the publishers' text does), the paths under the
//!   release's folder; once revealed, the withheld counterpart of each of those
//!   files is the split `<split>_withheld` (the public splits stay as they
//!   are, so a split's name says which part it is). A split without rows is
//!   left out, and a release with no row has no config (the table says "no
//!   article"): `datasets` cannot load an empty split. The newest release is
//!   the default. `dataset_info` per config, as the single folder's card gives it.
//! - The body: what the collection is, a table of every release newest first
//!   (its articles per set, withheld share and reveal, facts reading, whether
//!   its folder holds the publishers' text), how to load and rebuild one.
//!
//! Promised: derived from the release folders and `reveals/` alone, so the same
//! folders give the same bytes; written only when every check passes (each
//! release's files agree with its `run.json`, as for its own card; its
//! `release.json` names it; a revealed file is the one committed to), else
//! nothing, and the error names the folder or file.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tempora_sink::features::{features, Feature};
use tempora_sink::release::{sha256_file, sha256_hex, Commitment, CommittedFile};

use super::body::{facts_readings, FactsReading};
use super::layout::{self, Config, DataFile, RunJson};
use super::yaml::{self, Yaml};
use super::CardError;
use crate::markdown::{cell, code};

/// A release's own record in its folder.
pub const RELEASE_FILE: &str = "release.json";

/// The folder of the collection that records reveals, `reveals/<release>.json`.
pub const REVEALS_DIR: &str = "reveals";

/// Where a release's withheld part is, in its folder.
const WITHHELD: &str = "withheld/";

/// A release's name: its month and version (`2026-11`, `2026-11.v2`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReleaseName {
    /// `YYYY-MM`.
    pub month: String,
    /// 1 for the month's first release, N for `.vN`.
    pub version: u32,
}

impl ReleaseName {
    /// Reads a folder name: `None` when it is not named like a release;
    /// `Some(Err)` when it is, but is no release's name (why).
    pub fn parse(name: &str) -> Option<Result<Self, String>> {
        let (month, version) = match name.split_once(".v") {
            Some((month, version)) => (month, Some(version)),
            None => (name, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let looks = month.len() == 7
            && month.as_bytes()[4] == b'-'
            && digits(&month[..4])
            && digits(&month[5..])
            && version.is_none_or(digits);
        if !looks {
            return None;
        }
        if !matches!(month[5..].parse::<u32>(), Ok(1..=12)) {
            return Some(Err(format!(
                "`{}` is not a month: a release is named YYYY-MM, a correction YYYY-MM.vN",
                &month[5..]
            )));
        }
        let version = match version {
            None => 1,
            Some(v) => match v.parse::<u32>() {
                Ok(n) if n >= 2 && !v.starts_with('0') => n,
                _ => {
                    return Some(Err(format!(
                        "version `{v}`: a correction is named `{month}.v2`, `.v3`, ... \
                         (version 1 is `{month}`)"
                    )))
                }
            },
        };
        Some(Ok(Self {
            month: month.to_string(),
            version,
        }))
    }
}

impl std::fmt::Display for ReleaseName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.version {
            1 => f.write_str(&self.month),
            n => write!(f, "{}.v{n}", self.month),
        }
    }
}

/// The schema of a reveal's record.
pub const REVEAL_SCHEMA: &str = "tempora-reveal/1";

/// `reveals/<release>.json`: a release's withheld part, revealed after it was
/// published (its folder is not touched). Written by the run that makes the
/// next release, or by `tempora reveal` on a release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevealRecord {
    /// [`REVEAL_SCHEMA`].
    pub schema: String,
    /// The release revealed.
    pub release: String,
    /// When it was revealed (UTC, RFC 3339).
    pub at: String,
    /// The release's own key (hex), with which anyone can check the choice.
    pub key: String,
    /// Its withheld files as committed (paths under the release's folder).
    pub files: Vec<CommittedFile>,
}

/// A release of the collection, read and checked.
struct Release {
    name: ReleaseName,
    /// Its folder.
    dir: PathBuf,
    /// Its `release.json`.
    record: Value,
    run: RunJson,
    configs: Vec<Config>,
    commitment: Option<Commitment>,
    reveal: Option<RevealRecord>,
    /// Which of its files hold the publishers' text.
    text: super::text::TextFiles,
    /// Its articles per set.
    articles: Vec<SetArticles>,
    /// The config the index card gives it, if its folder has sets or a manifest.
    config: Option<ReleaseConfig>,
}

/// A set's articles in a release.
struct SetArticles {
    set: String,
    /// In its published files.
    published: u64,
    /// Held back (its commitment's files).
    withheld: u64,
}

/// A release's config of the index card.
#[derive(Debug, Clone)]
pub struct ReleaseConfig {
    /// The release (`2026-11`), the config's name.
    pub name: String,
    /// Which config of the release's folder it is (`sets` or `manifest`).
    pub from: &'static str,
    /// Split name to its files, paths under the collection.
    pub splits: Vec<(String, Vec<DataFile>)>,
    /// The files' features.
    pub features: Vec<(String, Feature)>,
}

/// An index card, ready to write.
#[derive(Debug, Clone)]
pub struct CollectionCard {
    /// One config per release with rows to load, newest first; the first is the default.
    pub configs: Vec<ReleaseConfig>,
    /// The releases with no row to load (no article), which have no config, newest first.
    pub without_config: Vec<String>,
    /// The whole `README.md`.
    pub text: String,
}

/// Whether `dir` is a collection of releases: no `run.json`, and a subfolder
/// named like a release.
pub fn is_collection(dir: &Path) -> bool {
    if dir.join("run.json").exists() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        e.path().is_dir() && ReleaseName::parse(&e.file_name().to_string_lossy()).is_some()
    })
}

/// Builds the index card of the collection `dir` without writing anything.
///
/// # Errors
/// See [`CardError`]: `dir` holds a `run.json` (it is a release, not a
/// collection) or no release; a `README.md` that `tempora card` did not write;
/// a subfolder named like a release that holds no release (its `release.json`
/// or `run.json` missing) or another release; a release's files that disagree
/// with its `run.json`; a reveal of no release, or of files other than those
/// committed to.
pub fn build_collection_card(dir: &Path) -> Result<CollectionCard, CardError> {
    if dir.join("run.json").exists() {
        return Err(CardError::Collection {
            path: dir.to_path_buf(),
            reason: "holds run.json: it is an output folder, not a collection of releases \
                     (`tempora card` writes its own card)"
                .into(),
        });
    }
    super::check_readme(dir)?;
    let mut releases = read_releases(dir)?;
    attach_reveals(dir, &mut releases)?;
    for release in &mut releases {
        release.config = release_config(release)?;
    }
    let configs: Vec<ReleaseConfig> = releases.iter().filter_map(|r| r.config.clone()).collect();
    let front = yaml::render(&front_matter(&releases, &configs));
    let body = render(&releases, &configs);
    Ok(CollectionCard {
        without_config: releases
            .iter()
            .filter(|r| r.config.is_none())
            .map(|r| r.name.to_string())
            .collect(),
        text: format!("---\n{front}---\n\n{}\n\n{body}", super::MARKER),
        configs,
    })
}

/// Writes `dir/README.md`, the index card of a collection; nothing when a
/// check fails.
///
/// # Errors
/// See [`build_collection_card`]; or the card cannot be written.
pub fn write_collection_card(dir: &Path) -> Result<CollectionCard, CardError> {
    let card = build_collection_card(dir)?;
    super::write_readme(dir, &card.text)?;
    Ok(card)
}

/// The releases of the collection, newest first.
///
/// # Errors
/// A subfolder named like a release that is none, or none at all.
fn read_releases(dir: &Path) -> Result<Vec<Release>, CardError> {
    let mut releases = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(CardError::io(dir))? {
        let entry = entry.map_err(CardError::io(dir))?;
        let folder = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        match ReleaseName::parse(&folder) {
            None => {}
            Some(Err(why)) => {
                return Err(CardError::Collection {
                    path,
                    reason: format!("named like a release, but is none: {why}"),
                })
            }
            Some(Ok(_)) if unpublished_attempt(&path) => {}
            Some(Ok(name)) => releases.push(read_release(&path, name)?),
        }
    }
    if releases.is_empty() {
        return Err(CardError::NotOutput {
            path: dir.to_path_buf(),
            reason: "no release folder (`YYYY-MM/` or `YYYY-MM.vN/` with its release.json) \
                     and no run.json"
                .into(),
        });
    }
    releases.sort_by(|a, b| b.name.cmp(&a.name));
    Ok(releases)
}

/// The folders of the collection `dir` named like releases, with their names,
/// sorted by name: `published` those that hold a release (its
/// `release.json`), `attempts` those that hold only an attempt that published
/// nothing ([`unpublished_attempt`]). Folders of neither kind are left to the
/// card, which names them.
///
/// # Errors
/// `dir` cannot be read.
pub fn release_folders(dir: &Path) -> std::io::Result<ReleaseFolders> {
    let mut found = ReleaseFolders::default();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let Some(Some(Ok(name))) = name.as_deref().map(ReleaseName::parse) else {
            continue;
        };
        if !path.is_dir() {
            continue;
        }
        if path.join(RELEASE_FILE).is_file() {
            found.published.push((name, path));
        } else if unpublished_attempt(&path) {
            found.attempts.push((name, path));
        }
    }
    found.published.sort();
    found.attempts.sort();
    Ok(found)
}

/// The release folders of a collection ([`release_folders`]).
#[derive(Debug, Default)]
pub struct ReleaseFolders {
    /// Folders holding a release.
    pub published: Vec<(ReleaseName, PathBuf)>,
    /// Folders holding only an attempt that published nothing.
    pub attempts: Vec<(ReleaseName, PathBuf)>,
}

/// Whether the release folder `dir` holds only an attempt that published
/// nothing: no `release.json`, and a `run.json` of a run that failed or was
/// stopped. No release yet: the card leaves it out until a run finishes it.
pub fn unpublished_attempt(dir: &Path) -> bool {
    if dir.join(RELEASE_FILE).exists() {
        return false;
    }
    let Ok(bytes) = std::fs::read(dir.join("run.json")) else {
        return false;
    };
    serde_json::from_slice::<serde_json::Value>(&bytes).is_ok_and(|run| {
        matches!(
            run.get("status").and_then(serde_json::Value::as_str),
            Some("failed" | "interrupted")
        )
    })
}

/// Reads the release `name` in its folder `dir` and checks it.
///
/// # Errors
/// Its `release.json` or `run.json` is missing or names another release, or
/// its files disagree with its `run.json`.
fn read_release(dir: &Path, name: ReleaseName) -> Result<Release, CardError> {
    let path = dir.join(RELEASE_FILE);
    let not_release = |reason: String| CardError::Collection {
        path: path.clone(),
        reason,
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CardError::Collection {
                path: dir.to_path_buf(),
                reason: format!(
                    "named like a release, but holds no {RELEASE_FILE}: `{name}` was never \
                     published in it (a run that did not finish, or a folder that is no \
                     release: move it out of the collection)"
                ),
            })
        }
        Err(e) => return Err(CardError::io(&path)(e)),
    };
    let record: Value =
        serde_json::from_slice(&bytes).map_err(|e| not_release(format!("not JSON: {e}")))?;
    let said = |key: &str| {
        record
            .get(key)
            .map_or_else(|| "none".into(), Value::to_string)
    };
    if record.get("release").and_then(Value::as_str) != Some(&name.to_string()) {
        return Err(not_release(format!(
            "its `release` is {}, but its folder is `{name}`: a release lives in the folder \
             of its name",
            said("release")
        )));
    }
    let version = record.get("version").and_then(Value::as_u64).unwrap_or(1);
    if record.get("month").and_then(Value::as_str) != Some(&name.month)
        || version != u64::from(name.version)
    {
        return Err(not_release(format!(
            "its `month` {} and `version` {} are not those of `{name}`",
            said("month"),
            said("version")
        )));
    }
    let run = RunJson::read(dir)?;
    let configs = layout::read_configs(dir, &run)?;
    let commitment = Commitment::read(dir).map_err(|reason| CardError::NotOutput {
        path: dir.join(tempora_sink::release::COMMITMENT),
        reason,
    })?;
    let text = super::text::files_with_text(dir)?;
    let articles = articles_per_set(dir, &run, &configs, commitment.as_ref())?;
    Ok(Release {
        name,
        dir: dir.to_path_buf(),
        record,
        run,
        configs,
        commitment,
        reveal: None,
        text,
        articles,
        config: None,
    })
}

/// Reads `reveals/*.json` and gives each release its reveal.
///
/// # Errors
/// A record that cannot be read, names another release than its file, or a
/// release the collection does not hold.
fn attach_reveals(dir: &Path, releases: &mut [Release]) -> Result<(), CardError> {
    let folder = dir.join(REVEALS_DIR);
    let files = tempora_sink::release::relative_files(&folder, Path::new(""))
        .map_err(CardError::io(&folder))?;
    for file in files {
        let Some(stem) = file.strip_suffix(".json") else {
            continue;
        };
        let path = folder.join(&file);
        let refuse = |reason: String| CardError::Collection {
            path: path.clone(),
            reason,
        };
        let bytes = std::fs::read(&path).map_err(CardError::io(&path))?;
        let reveal: RevealRecord = serde_json::from_slice(&bytes)
            .map_err(|e| refuse(format!("not a reveal record: {e}")))?;
        if reveal.release != stem {
            return Err(refuse(format!(
                "it reveals `{}`, but is named for `{stem}`",
                reveal.release
            )));
        }
        let Some(release) = releases.iter_mut().find(|r| r.name.to_string() == stem) else {
            return Err(refuse(format!(
                "it reveals `{stem}`, which this collection does not hold"
            )));
        };
        check_reveal(release, &reveal, &path)?;
        release.reveal = Some(reveal);
    }
    Ok(())
}

/// Checks a reveal against the release's commitment: the key is the one
/// committed to, and each file is committed to with the same SHA-256 and
/// records (and, where the folder holds it, has them).
///
/// # Errors
/// The release holds nothing back, or any of the above differs.
fn check_reveal(release: &Release, reveal: &RevealRecord, path: &Path) -> Result<(), CardError> {
    let refuse = |reason: String| CardError::Collection {
        path: path.to_path_buf(),
        reason,
    };
    let name = release.name.to_string();
    let Some(commitment) = &release.commitment else {
        return Err(refuse(format!(
            "release `{name}` holds nothing back (no withheld.json)"
        )));
    };
    if key_bytes(&reveal.key).map(|k| sha256_hex(&k)).as_deref()
        != Some(commitment.key_sha256.as_str())
    {
        return Err(refuse(format!(
            "its key is not the one `{name}/withheld.json` committed to (its SHA-256 differs)"
        )));
    }
    for file in &reveal.files {
        let committed = commitment.files.iter().find(|c| c.path == file.path);
        if committed.is_none_or(|c| c.sha256 != file.sha256 || c.rows != file.rows) {
            return Err(refuse(format!(
                "`{}` is not committed to by `{name}/withheld.json` with this SHA-256 and \
                 {} records",
                file.path, file.rows
            )));
        }
        let on_disk = release.dir.join(&file.path);
        if on_disk.is_file()
            && sha256_file(&on_disk).map_err(CardError::io(&on_disk))? != file.sha256
        {
            return Err(CardError::Collection {
                path: on_disk,
                reason: format!("its SHA-256 is not the one {} reveals", path.display()),
            });
        }
    }
    Ok(())
}

/// A key written in hex, as bytes.
fn key_bytes(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The config of a release: its `sets` config, else its `manifest` config,
/// paths under the collection, with the revealed withheld files as
/// `<split>_withheld` splits, the splits without rows left out; `None` when
/// the folder has neither or no split has rows.
///
/// # Errors
/// A revealed file that cannot be read, or whose rows or features differ from
/// what it should be.
fn release_config(release: &Release) -> Result<Option<ReleaseConfig>, CardError> {
    let Some(config) = ["sets", "manifest"]
        .iter()
        .find_map(|n| release.configs.iter().find(|c| c.name == *n))
    else {
        return Ok(None);
    };
    let name = release.name.to_string();
    let under = |f: &DataFile| DataFile {
        path: format!("{name}/{}", f.path),
        ..f.clone()
    };
    let mut splits: Vec<(String, Vec<DataFile>)> = config
        .splits
        .iter()
        .map(|(split, files)| (split.clone(), files.iter().map(under).collect()))
        .collect();
    let features = config.features().to_vec();
    if let Some(reveal) = &release.reveal {
        for (split, files) in &config.splits {
            let mut withheld = Vec::new();
            for file in files {
                let path = format!("{WITHHELD}{}", file.path);
                let Some(revealed) = reveal.files.iter().find(|f| f.path == path) else {
                    continue;
                };
                let on_disk = release.dir.join(&path);
                if on_disk.is_file() {
                    withheld.push(withheld_file(&on_disk, &name, revealed, &features)?);
                }
            }
            if !withheld.is_empty() {
                splits.push((format!("{split}_withheld"), withheld));
            }
        }
    }
    // `datasets` cannot load a split without rows ("corresponds to no data"),
    // nor a config with one: an empty split is said in the table, not declared.
    let splits = super::loadable_splits(&splits);
    if splits.is_empty() {
        return Ok(None);
    }
    Ok(Some(ReleaseConfig {
        name,
        from: config.name,
        splits,
        features,
    }))
}

/// A revealed withheld file as a data file of the config.
///
/// # Errors
/// It is not Parquet, holds other rows than revealed, or other features than
/// the config's.
fn withheld_file(
    path: &Path,
    release: &str,
    revealed: &CommittedFile,
    config_features: &[(String, Feature)],
) -> Result<DataFile, CardError> {
    let disagrees = |reason: String| CardError::Collection {
        path: path.to_path_buf(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(CardError::io(path))?;
    let bytes = file.metadata().map_err(CardError::io(path))?.len();
    let footer = tempora_sink::parquet::read_footer(file).map_err(|e| CardError::NotOutput {
        path: path.to_path_buf(),
        reason: format!("not a Parquet file: {e}"),
    })?;
    if footer.rows != revealed.rows {
        return Err(disagrees(format!(
            "holds {} rows, but its reveal says {}",
            footer.rows, revealed.rows
        )));
    }
    let features = features(&footer.schema).map_err(&disagrees)?;
    if features != config_features {
        return Err(disagrees(
            "its columns are not those of the published files it belongs with".into(),
        ));
    }
    Ok(DataFile {
        path: format!("{release}/{}", revealed.path),
        rows: footer.rows,
        bytes,
        features,
    })
}

/// The front matter: one config per release, the newest the default.
fn front_matter(releases: &[Release], configs: &[ReleaseConfig]) -> Yaml {
    let pipeline = releases
        .first()
        .and_then(|r| r.run.text("/pipeline"))
        .unwrap_or("tempora");
    let mut entries = super::heading_entries(format!("{pipeline} (Tempora monthly releases)"));
    let list = configs
        .iter()
        .enumerate()
        .map(|(i, c)| super::config_yaml(&c.name, i == 0, &c.splits))
        .collect();
    entries.push(("configs".into(), Yaml::List(list)));
    let info = configs
        .iter()
        .map(|c| super::info_yaml(&c.name, &c.features, &c.splits))
        .collect();
    entries.push(("dataset_info".into(), Yaml::List(info)));
    Yaml::Map(entries)
}

/// The card's Markdown body.
fn render(releases: &[Release], configs: &[ReleaseConfig]) -> String {
    let mut md = String::new();
    let pipeline = releases
        .first()
        .and_then(|r| r.run.text("/pipeline"))
        .unwrap_or("tempora");
    let _ = writeln!(
        md,
        "# {} (monthly releases)\n\n\
         News summarization test sets built with Tempora, one release per month: the articles \
         published in that month, judged against the evolving facts as read when the release \
         was made. Each release is a folder named by its month (`2026-11/`), a complete \
         Tempora output with its own card (`2026-11/README.md`: how it was built, its fields, \
         its licence). A release never changes once written: a later run adds the next month \
         and leaves every earlier folder byte for byte, even when a fact changes afterwards. \
         A correction is a new release of the same month, `YYYY-MM.v2` (then `.v3`), listed \
         below with the release it corrects; the release it corrects stays as it was.\n",
        cell(pipeline)
    );
    table(&mut md, releases);
    loading(&mut md, releases, configs);
    withheld(&mut md, releases);
    rebuilding(&mut md, releases);
    md.push_str(
        "## This card\n\n`tempora card DIR` writes it from the release folders and `reveals/` \
         alone: the same folders give the same bytes.\n",
    );
    md
}

/// The table of releases, newest first.
fn table(md: &mut String, releases: &[Release]) {
    md.push_str(
        "## Releases\n\n\
         Made: the day the release's dates were resolved on (its `release.json`). Facts reading: \
         the evolving facts its articles were judged against, as read when it was made (a live \
         reading's time and the SHA-256 of what was read, or the dump's SHA-256). Publishers' \
         text: whether its folder holds the articles' text (`rejected.jsonl` alone: only the \
         run's record of what it rejected), or only the manifest to rebuild them from.\n\n\
         | release | month | made | version | articles | withheld | facts reading | publishers' text |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for release in releases {
        let name = release.name.to_string();
        let mut version = release.name.version.to_string();
        if let Some(corrects) = release.record.get("corrects").and_then(Value::as_str) {
            let _ = write!(version, ", corrects {}", code(corrects));
        }
        let text = match (&release.text.outputs[..], &release.text.records[..]) {
            ([], []) => "no",
            ([], _) => "`rejected.jsonl` alone",
            _ => "yes",
        };
        let made = release.record.get("run_day").and_then(Value::as_str);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {text} |",
            code(&name),
            cell(&release.name.month),
            cell(made.unwrap_or("(not stated)")),
            version,
            articles(release),
            withheld_cell(release),
            facts_cell(&facts_readings(&release.run)),
        );
    }
    md.push('\n');
}

/// A release's articles per set, published and held back: the published
/// ones as its own card counts them, the held back ones from its commitment
/// (the withheld counterparts of its sets' files), in the pipeline's order of
/// sets.
///
/// # Errors
/// A manifest file cannot be read.
fn articles_per_set(
    dir: &Path,
    run: &RunJson,
    configs: &[Config],
    commitment: Option<&Commitment>,
) -> Result<Vec<SetArticles>, CardError> {
    let mut published = super::body::articles_per_set(dir, configs)?;
    let mut held: BTreeMap<String, u64> = BTreeMap::new();
    let sets = configs.iter().filter(|c| c.name == "sets");
    for (split, files) in sets.flat_map(|c| &c.splits) {
        for file in files {
            let rows: u64 = commitment
                .into_iter()
                .flat_map(|c| &c.files)
                .filter(|f| f.path.strip_prefix(WITHHELD) == Some(file.path.as_str()))
                .map(|f| f.rows)
                .sum();
            *held.entry(split.clone()).or_default() += rows;
        }
    }
    let mut names = run.set_names();
    names.extend(published.keys().chain(held.keys()).cloned());
    let mut out: Vec<SetArticles> = Vec::new();
    for name in names {
        if out.iter().any(|s| s.set == name) {
            continue;
        }
        out.push(SetArticles {
            published: published.remove(&name).unwrap_or(0),
            withheld: held.remove(&name).unwrap_or(0),
            set: name,
        });
    }
    Ok(out)
}

/// A release's articles per set, or that it has none.
fn articles(release: &Release) -> String {
    if release
        .articles
        .iter()
        .all(|s| s.published + s.withheld == 0)
    {
        return "no article".into();
    }
    release
        .articles
        .iter()
        .map(|s| match s.withheld {
            0 => format!("{} {}", cell(&s.set), s.published),
            w => format!("{} {} (+{w} withheld)", cell(&s.set), s.published),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A release's withheld share and whether it was revealed.
fn withheld_cell(release: &Release) -> String {
    let share = match (&release.commitment, release.record.get("withhold")) {
        (Some(c), _) => c.share,
        (None, Some(Value::Number(n))) => n.as_f64().unwrap_or(0.0),
        _ => return "none".into(),
    };
    let Some(reveal) = &release.reveal else {
        return format!("{:.0}%, not yet revealed", share * 100.0);
    };
    let on = format!(" on {}", reveal.at.get(..10).unwrap_or(&reveal.at));
    let splits = release
        .config
        .as_ref()
        .is_some_and(|c| c.splits.iter().any(|(s, _)| s.ends_with("_withheld")));
    let files = if splits {
        "the `*_withheld` splits"
    } else {
        "its files are not in this folder"
    };
    format!("{:.0}%, revealed{on} ({files})", share * 100.0)
}

/// The facts readings of a release: when and which bytes.
fn facts_cell(readings: &[FactsReading]) -> String {
    if readings.is_empty() {
        return "(not stated)".into();
    }
    readings
        .iter()
        .map(|r| {
            let mut s = match (&r.read_at, &r.file) {
                (Some(at), _) => format!("{}: read {at}", code(&r.stage)),
                (None, Some(file)) => format!("{}: dump {}", code(&r.stage), code(file)),
                (None, None) => code(&r.stage),
            };
            if let Some(sha) = &r.sha256 {
                let _ = write!(s, ", SHA-256 {}", code(sha));
            }
            s
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// How to load a release, and each config's splits.
fn loading(md: &mut String, releases: &[Release], configs: &[ReleaseConfig]) {
    md.push_str("## Loading\n\n");
    let empty: Vec<String> = releases
        .iter()
        .filter(|r| r.config.is_none())
        .map(|r| code(&r.name.to_string()))
        .collect();
    if !empty.is_empty() {
        let _ = writeln!(
            md,
            "A release with no row to load has no config (`datasets` loads no empty split): \
             it has no article, or holds every one back until it is revealed (see the table): {}.\n",
            empty.join(", ")
        );
    }
    let Some(newest) = configs.first() else {
        return;
    };
    let one = configs.last().map_or(newest.name.as_str(), |c| &c.name);
    let _ = writeln!(
        md,
        "```python\nimport datasets\n\
         newest = datasets.load_dataset(\"PATH\")  # the default config: the newest release with rows to load, {0}\n\
         release = datasets.load_dataset(\"PATH\", \"{1}\")  # one release by its name\n```\n\n\
         `PATH` is this folder, or `USER/REPO` once it is on the Hub. Each config is a release: \
         its sets as splits (`future`, ...), or, for a folder published without the publishers' \
         text, its `manifest` (split `train`: each article as its capture in the Internet \
         Archive). A release's withheld part, once revealed, is the `<split>_withheld` splits \
         of the same config, beside the published splits, which stay as they were. A split \
         without rows is left out of its config.\n",
        code(&newest.name),
        one.replace('"', "'"),
    );
    // One row per release: a collection grows by a release a month.
    md.push_str("| config | from | splits (rows) |\n|---|---|---|\n");
    for c in configs {
        let splits: Vec<String> = c
            .splits
            .iter()
            .map(|(split, files)| {
                let rows: u64 = files.iter().map(|f| f.rows).sum();
                format!("{} ({rows})", cell(split))
            })
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            code(&c.name),
            c.from,
            splits.join(", ")
        );
    }
    md.push('\n');
}

/// The withheld parts: held back until revealed, the reveal recorded beside.
fn withheld(md: &mut String, releases: &[Release]) {
    if !releases.iter().any(|r| r.commitment.is_some()) {
        return;
    }
    md.push_str(
        "## Withheld parts\n\n\
         A release may hold back a share of its articles, chosen by a keyed hash of the article \
         id under the release's own key, so that models can later be told apart by whether \
         they saw them. Its folder commits to them (`withheld.json`: each file's SHA-256 and \
         records, the key's SHA-256; its own card shows them). When the part is revealed, the \
         release's folder is not touched: the reveal (the key and the files) is recorded in \
         `reveals/<release>.json`, checked against that commitment, and this card adds the \
         files to the release's config.\n\n",
    );
}

/// How to rebuild a release from its manifest.
fn rebuilding(md: &mut String, releases: &[Release]) {
    // The newest release with articles to rebuild, and its manifest that lists
    // them: the published one, or, for a release held back and since revealed,
    // its withheld part's.
    let Some((release, manifest)) = releases
        .iter()
        .filter(|r| r.config.is_some())
        .find_map(|r| Some((r, manifest_with_rows(r)?)))
    else {
        return;
    };
    let name = release.name.to_string();
    let _ = writeln!(
        md,
        "## Rebuilding a release\n\n\
         Each release's manifest (`manifest.jsonl`, with `manifest.inputs.json` and \
         `manifest.facts.jsonl` beside it; for a part held back and revealed, \
         `withheld/manifest.jsonl`, read with the inputs of its release's folder) lists its \
         articles without their text, by their captures in the Internet Archive. Anyone can \
         rebuild a release's sets from it, byte for byte where the Archive serves the same \
         captures:\n\n\
         ```sh\ntempora rebuild {name}/{manifest} --out rebuilt/{name} --contact you@example.org\n```\n\n\
         The rebuild names every article it cannot rebuild as listed (see the release's own \
         card).\n"
    );
}

/// The manifest of `release` that lists articles: `manifest.jsonl` when its
/// published manifest has rows, else `withheld/manifest.jsonl` once its
/// withheld part is revealed and has rows; `None` when neither has.
fn manifest_with_rows(release: &Release) -> Option<&'static str> {
    let manifest = |rows: &dyn Fn(&DataFile) -> bool| {
        release
            .configs
            .iter()
            .filter(|c| c.name == "manifest")
            .flat_map(|c| c.splits.iter().flat_map(|(_, files)| files))
            .any(rows)
    };
    if manifest(&|f| f.rows > 0 && !f.path.starts_with(WITHHELD)) {
        return Some("manifest.jsonl");
    }
    let revealed = release.reveal.as_ref().is_some_and(|reveal| {
        reveal
            .files
            .iter()
            .any(|f| f.path == format!("{WITHHELD}manifest.jsonl") && f.rows > 0)
    });
    revealed.then_some("withheld/manifest.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_names_are_months_and_later_versions() {
        let ok = |s: &str| ReleaseName::parse(s).unwrap().unwrap();
        assert_eq!(ok("2026-11").to_string(), "2026-11");
        assert_eq!(ok("2026-11.v2").version, 2);
        assert_eq!(ok("2026-11.v12").to_string(), "2026-11.v12");
        for other in [
            "reveals",
            "2026-1",
            "2026-11-01",
            "2026_11",
            "x2026-11",
            "2026-11.v",
        ] {
            assert!(ReleaseName::parse(other).is_none(), "{other}");
        }
        for bad in [
            "2026-13",
            "2026-00",
            "2026-11.v1",
            "2026-11.v0",
            "2026-11.v02",
        ] {
            assert!(
                matches!(ReleaseName::parse(bad), Some(Err(_))),
                "{bad} is named like a release but is none"
            );
        }
        // Newest first is the names' order reversed: month, then version.
        let mut names = [ok("2026-11"), ok("2026-12"), ok("2026-11.v2")];
        names.sort();
        assert_eq!(
            names.map(|n| n.to_string()),
            ["2026-11", "2026-11.v2", "2026-12"]
        );
    }

    /// A release's facts are named by their reading: a live reading's time
    /// and SHA-256, a dump's file and SHA-256.
    #[test]
    fn the_facts_reading_is_its_time_and_sha256() {
        let run = RunJson {
            path: "run.json".into(),
            value: serde_json::json!({
                "config": { "stages": {
                    "live": { "kind": "wikidata-live", "reading": "state/wd.json.gz" },
                    "dump": { "kind": "wikidata", "dump": "wd.json.gz" },
                    "split": { "kind": "split" },
                } },
                "stages": [{ "name": "live", "metrics": { "reading": {
                    "read_at": "2026-11-28T02:31:07.5Z", "entities": 12, "sha256": "cd34" } } }],
                "inputs": [
                    { "stage": "live", "option": "reading", "path": "state/wd.json.gz",
                      "sha256": "cd34" },
                    { "stage": "dump", "option": "dump", "path": "wd.json.gz", "sha256": "ab12" },
                ],
            }),
        };
        assert_eq!(
            facts_cell(&facts_readings(&run)),
            "`live`: read 2026-11-28 02:31 UTC, SHA-256 `cd34`; \
             `dump`: dump `wd.json.gz`, SHA-256 `ab12`"
        );
        let none = RunJson {
            path: "run.json".into(),
            value: serde_json::json!({ "config": { "stages": {} } }),
        };
        assert_eq!(facts_cell(&facts_readings(&none)), "(not stated)");
    }

    #[test]
    fn a_key_in_hex_reads_back() {
        assert_eq!(key_bytes("00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(key_bytes("abc"), None);
        assert_eq!(key_bytes("zz"), None);
    }
}
