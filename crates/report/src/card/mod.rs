//! The dataset card (`README.md` of an output folder), which makes the folder a
//! Hugging Face dataset: `datasets.load_dataset(DIR)` gives the sets as splits,
//! `load_dataset(DIR, "pairs")` the minimal pairs.
//!
//! In: an output folder of `tempora run`: its Parquet files and `run.json`. Out:
//! `DIR/README.md`, YAML front matter then Markdown:
//!
//! - `configs` (the Hub's "manual configuration"): `sets` (the default: one split
//!   per set, `future`, `in_distribution`, ...), `pairs` (split `test`),
//!   `novelty` (one split per set and bin or tag, `future_T_nov`), `facts` (split
//!   `train`), and `captures` / `pages` when the run wrote them. Each split lists
//!   its Parquet files; a `{run}` path gathers every run's file in one split, so
//!   an accumulating (nightly) folder stays one dataset.
//! - `dataset_info` per config: the features of the files' Parquet schema, read
//!   back from the files ([`tempora_sink::features`]), and per split
//!   `num_examples` (the files' rows) and `num_bytes` (the files' size on disk;
//!   `download_size` and `dataset_size` are their sums).
//! - The body: the release (run name and date), what the sets are and how they
//!   were built (from `run.json`), which files hold the publishers' text, the
//!   report's main tables, the fields, the licence note and how to cite.
//!
//! Promised: the card is written only when every check passes (else nothing is
//! written, and the error names the file and why): `run.json` is a completed (or
//! interrupted) run's record; every Parquet file has a record kind's declared
//! schema and is named by a `parquet` sink of `run.json`; every file the last run
//! says it wrote is there with that many rows; a `README.md` already there was
//! written by `tempora card`. The same folder gives the same bytes.

mod body;
mod health;
pub mod layout;
pub mod releases;
pub(crate) mod text;
mod withheld;
pub mod yaml;

use std::path::{Path, PathBuf};

use tempora_sink::features::Feature;

use crate::ReportError;
use layout::{Config, DataFile, RunJson};
use yaml::Yaml;

/// The line that marks a card written by Tempora (a `README.md` without it is
/// not overwritten).
pub const MARKER: &str = "<!-- Written by `tempora card` from run.json and the Parquet files: `tempora card DIR` rewrites it. -->";

/// What can stop a card.
#[derive(Debug, thiserror::Error)]
pub enum CardError {
    /// The folder (or a file in it) is not what `tempora run` writes.
    #[error("{}: not a Tempora output: {reason}", path.display())]
    NotOutput {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A file disagrees with `run.json`.
    #[error("{}: disagrees with run.json: {reason}", path.display())]
    Disagrees {
        /// The file.
        path: PathBuf,
        /// How.
        reason: String,
    },
    /// A folder of releases holds what is no release of it (a folder named
    /// like one), or a reveal that is not what its release committed to.
    #[error("{}: {reason}", path.display())]
    Collection {
        /// The folder or file.
        path: PathBuf,
        /// Why, in words that stand alone.
        reason: String,
    },
    /// A file cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The report's tables could not be computed.
    #[error(transparent)]
    Report(#[from] ReportError),
}

impl CardError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}

/// A card, ready to write.
#[derive(Debug, Clone)]
pub struct Card {
    /// The configs it declares.
    pub configs: Vec<Config>,
    /// The sets with no article, published as files with no rows.
    pub empty_sets: Vec<EmptySet>,
    /// The whole `README.md`.
    pub text: String,
}

/// A set of the pipeline with no article in its window: its files are
/// published with no rows, and the card and the run's summary say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmptySet {
    /// The set's name.
    pub name: String,
    /// Its window of publication days, `2030-01-01 to open`.
    pub window: String,
    /// Whether the folder holds back a part not yet revealed, where the set's
    /// articles may be.
    pub held_back: bool,
}

impl EmptySet {
    /// Why it is empty, in words: `no article in its window (2030-01-01 to open)`.
    pub fn why(&self) -> String {
        if self.held_back {
            format!(
                "no article published in its window ({}): any it holds are in the withheld \
                 part (withheld.json), until it is revealed",
                self.window
            )
        } else {
            format!("no article in its window ({})", self.window)
        }
    }
}

/// Builds the card of `dir` without writing anything.
///
/// # Errors
/// See [`CardError`]: what is wrong, naming the file.
pub fn build_card(dir: &Path) -> Result<Card, CardError> {
    let run = RunJson::read(dir)?;
    check_readme(dir)?;
    let all = layout::read_configs(dir, &run)?;
    let configs = loadable(&all);
    let front = yaml::render(&front_matter(&run, &configs));
    let body = body::render(dir, &run, &all)?;
    Ok(Card {
        text: format!("---\n{front}---\n\n{MARKER}\n\n{body}"),
        empty_sets: body::empty_sets(dir, &run, &all)?,
        configs,
    })
}

/// The configs as `datasets` loads them: the files with rows, the splits left
/// with a file and the configs left with a split. `datasets` refuses a split of
/// no rows ("corresponds to no data"), and with it the whole config, so the
/// files of an empty set stay in the folder (with no rows) but are no split.
pub(crate) fn loadable(configs: &[Config]) -> Vec<Config> {
    configs
        .iter()
        .map(|c| Config {
            splits: loadable_splits(&c.splits),
            ..c.clone()
        })
        .filter(|c| !c.splits.is_empty())
        .collect()
}

/// The splits as `datasets` loads them: the files with rows, the splits left
/// with a file (see [`loadable`]).
pub(crate) fn loadable_splits(splits: &[(String, Vec<DataFile>)]) -> Vec<(String, Vec<DataFile>)> {
    splits
        .iter()
        .map(|(split, files)| {
            let with_rows: Vec<DataFile> = files.iter().filter(|f| f.rows > 0).cloned().collect();
            (split.clone(), with_rows)
        })
        .filter(|(_, files)| !files.is_empty())
        .collect()
}

/// The default config: the sets; without them (a folder of `tempora publish`,
/// or one whose every set is empty), a lone config, else the manifest.
pub(crate) fn default_config(configs: &[Config]) -> Option<&'static str> {
    let named = |name: &str| configs.iter().find(|c| c.name == name).map(|c| c.name);
    match configs {
        [one] => named("sets").or(Some(one.name)),
        _ => named("sets").or_else(|| named("manifest")),
    }
}

/// Refuses a `README.md` in `dir` that `tempora card` did not write.
///
/// # Errors
/// It is there without [`MARKER`], or cannot be read.
fn check_readme(dir: &Path) -> Result<(), CardError> {
    let readme = dir.join("README.md");
    match std::fs::read_to_string(&readme) {
        Ok(text) if !text.contains(MARKER) => Err(CardError::NotOutput {
            path: readme,
            reason: "a README.md that `tempora card` did not write: move it away first, \
                     the card replaces it"
                .into(),
        }),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CardError::io(&readme)(e)),
    }
}

/// Writes `dir/README.md`, the dataset card; nothing when a check fails.
///
/// # Errors
/// See [`build_card`]; or the card cannot be written.
pub fn write_card(dir: &Path) -> Result<Card, CardError> {
    let card = build_card(dir)?;
    write_readme(dir, &card.text)?;
    Ok(card)
}

/// Writes `dir/README.md` atomically.
fn write_readme(dir: &Path, text: &str) -> Result<(), CardError> {
    let readme = dir.join("README.md");
    crate::write_atomically(&readme, text.as_bytes()).map_err(|e| match e {
        ReportError::Io { path, source } => CardError::Io { path, source },
        other => CardError::Report(other),
    })
}

/// The front matter's opening entries: the name and what the dataset is.
fn heading_entries(pretty_name: String) -> Vec<(String, Yaml)> {
    vec![
        ("pretty_name".to_string(), Yaml::text(pretty_name)),
        ("license".into(), Yaml::text("other")),
        (
            "task_categories".into(),
            Yaml::List(vec![Yaml::text("summarization")]),
        ),
        (
            "tags".into(),
            Yaml::List(
                ["temporal", "knowledge-conflicts", "news", "tempora"]
                    .map(Yaml::text)
                    .to_vec(),
            ),
        ),
    ]
}

fn front_matter(run: &RunJson, configs: &[Config]) -> Yaml {
    let name = run.text("/pipeline").unwrap_or("tempora");
    let mut entries = heading_entries(format!("{name} (Tempora future test sets)"));
    let default = default_config(configs);
    let config_list = configs
        .iter()
        .map(|c| config_yaml(c.name, Some(c.name) == default, &c.splits))
        .collect();
    entries.push(("configs".into(), Yaml::List(config_list)));
    let info = configs
        .iter()
        .map(|c| info_yaml(c.name, c.features(), &c.splits))
        .collect();
    entries.push(("dataset_info".into(), Yaml::List(info)));
    Yaml::Map(entries)
}

/// A config of the front matter's `configs`: its name, whether it is the
/// default, and each split's files.
fn config_yaml(name: &str, default: bool, splits: &[(String, Vec<DataFile>)]) -> Yaml {
    let mut entries = vec![("config_name".to_string(), Yaml::text(name))];
    if default {
        entries.push(("default".into(), Yaml::Flag(true)));
    }
    let data_files = splits
        .iter()
        .map(|(split, files)| {
            let paths = files.iter().map(|f| Yaml::text(&f.path)).collect();
            Yaml::map([("split", Yaml::text(split)), ("path", Yaml::List(paths))])
        })
        .collect();
    entries.push(("data_files".into(), Yaml::List(data_files)));
    Yaml::Map(entries)
}

/// A config of the front matter's `dataset_info`: its features, and each
/// split's rows and bytes.
fn info_yaml(
    name: &str,
    features: &[(String, Feature)],
    splits: &[(String, Vec<DataFile>)],
) -> Yaml {
    let split_list: Vec<Yaml> = splits
        .iter()
        .map(|(split, files)| {
            Yaml::map([
                ("name", Yaml::text(split)),
                (
                    "num_bytes",
                    Yaml::Count(files.iter().map(|f| f.bytes).sum()),
                ),
                (
                    "num_examples",
                    Yaml::Count(files.iter().map(|f| f.rows).sum()),
                ),
            ])
        })
        .collect();
    let size: u64 = splits.iter().flat_map(|(_, f)| f).map(|f| f.bytes).sum();
    Yaml::map([
        ("config_name", Yaml::text(name)),
        ("features", features_yaml(features)),
        ("splits", Yaml::List(split_list)),
        ("download_size", Yaml::Count(size)),
        ("dataset_size", Yaml::Count(size)),
    ])
}

/// Features as the Hub writes them: `- name: x` with `dtype`, `list` or `struct`.
fn features_yaml(fields: &[(String, Feature)]) -> Yaml {
    Yaml::List(
        fields
            .iter()
            .map(|(name, feature)| {
                let mut entries = vec![("name".to_string(), Yaml::text(name))];
                entries.push(feature_entry(feature));
                Yaml::Map(entries)
            })
            .collect(),
    )
}

fn feature_entry(feature: &Feature) -> (String, Yaml) {
    match feature {
        Feature::Value(dtype) => ("dtype".into(), Yaml::text(dtype)),
        Feature::Struct(fields) => ("struct".into(), features_yaml(fields)),
        Feature::List(item) => {
            let item = match item.as_ref() {
                Feature::Value(dtype) => Yaml::text(dtype),
                Feature::Struct(fields) => features_yaml(fields),
                list @ Feature::List(_) => Yaml::Map(vec![feature_entry(list)]),
            };
            ("list".into(), item)
        }
    }
}
