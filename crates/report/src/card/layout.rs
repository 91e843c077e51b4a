//! What the card describes: the output folder's Parquet files, told apart by
//! their schema (one record kind each) and by the `parquet` sink of `run.json`
//! whose path template names them, grouped into configs and splits; and the
//! checks that the files agree with `run.json`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize as _;
use serde_json::Value;
use tempora_engine::stats::FileWritten;
use tempora_engine::windows::default_sets;
use tempora_engine::{Bound, SetBounds, SetSpec, Windows};
use tempora_records::RecordKind;
use tempora_sink::features::{features, Feature};
use tempora_sink::parquet::{read_footer, Footer};
use tempora_sink::release::Commitment;
use tempora_sink::schema::arrow_schema;
use tempora_sink::template::PathTemplate;

use super::CardError;

/// One Parquet file of the folder.
#[derive(Debug, Clone)]
pub struct DataFile {
    /// Path relative to the folder, `/`-separated.
    pub path: String,
    /// Its rows.
    pub rows: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// The features of its schema.
    pub features: Vec<(String, Feature)>,
}

/// A config: files of one record kind, by split.
#[derive(Debug, Clone)]
pub struct Config {
    /// `sets`, `pairs`, `novelty`, `facts`, `captures` or `pages`.
    pub name: &'static str,
    /// The record kind of its files.
    pub kind: RecordKind,
    /// Split name to its files, in the card's order.
    pub splits: Vec<(String, Vec<DataFile>)>,
}

impl Config {
    /// The config's features (every file of a config has the same).
    pub fn features(&self) -> &[(String, Feature)] {
        self.splits
            .first()
            .and_then(|(_, files)| files.first())
            .map_or(&[], |f| &f.features)
    }
}

/// `run.json`, parsed, with its path for errors.
#[derive(Debug, Clone)]
pub struct RunJson {
    /// The file.
    pub path: PathBuf,
    /// Its content (a JSON object with `run` and `config.stages`).
    pub value: Value,
}

impl RunJson {
    /// Reads `dir/run.json`.
    ///
    /// # Errors
    /// It is missing, not JSON, not a run's record, or of a run that failed.
    pub fn read(dir: &Path) -> Result<Self, CardError> {
        let path = dir.join("run.json");
        let not_output = |reason: String| CardError::NotOutput {
            path: path.clone(),
            reason,
        };
        let bytes =
            match std::fs::read(&path) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_output(
                    "missing: a Tempora output folder has the `run.json` of the run that wrote it"
                        .into(),
                )),
                Err(e) => return Err(CardError::io(&path)(e)),
            };
        let value: Value =
            serde_json::from_slice(&bytes).map_err(|e| not_output(format!("not JSON: {e}")))?;
        if value.get("run").and_then(Value::as_str).is_none()
            || !value
                .pointer("/config/stages")
                .is_some_and(Value::is_object)
        {
            return Err(not_output(
                "not a run's record: no `run` name or no `config.stages`".into(),
            ));
        }
        let status = value.get("status").and_then(Value::as_str).unwrap_or("");
        if !matches!(status, "completed" | "interrupted") {
            return Err(not_output(format!(
                "the last run's status is `{status}`: its outputs were not published; run it again"
            )));
        }
        Ok(Self { path, value })
    }

    /// A text field by JSON pointer.
    pub fn text(&self, pointer: &str) -> Option<&str> {
        self.value.pointer(pointer).and_then(Value::as_str)
    }

    /// The stages of the resolved configuration, in file order.
    pub fn config_stages(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.value
            .pointer("/config/stages")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
    }

    /// Stages of the resolved configuration of `kind`.
    pub fn stages_of<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = (&'a String, &'a Value)> {
        self.config_stages()
            .filter(move |(_, s)| s.get("kind").and_then(Value::as_str) == Some(kind))
    }

    /// The pipeline's set names, in the order the pipeline declares them.
    pub fn set_names(&self) -> Vec<String> {
        self.windows().into_iter().map(|w| w.name).collect()
    }

    /// The sets' windows as the run used them, in the pipeline's order: those of
    /// `[pipeline.sets]` (the default sets where it gives none) with each bound
    /// resolved against the cutoff (`after_cutoff` is the day after it). Bounds
    /// that do not resolve (a record of another version) are shown as written.
    pub fn windows(&self) -> Vec<SetWindow> {
        let written = self
            .value
            .pointer("/config/pipeline/sets")
            .and_then(Value::as_object);
        let cutoff = self
            .text("/config/pipeline/cutoff")
            .and_then(|c| match c.parse() {
                Ok(Bound::Date(day)) => Some(day),
                _ => None,
            });
        let specs = match written {
            Some(sets) => sets
                .iter()
                .map(|(name, bounds)| {
                    let bounds = SetBounds::deserialize(bounds).ok()?;
                    Some(SetSpec {
                        name: name.clone(),
                        from: bounds.from,
                        to: bounds.to,
                    })
                })
                .collect::<Option<Vec<_>>>(),
            None => Some(default_sets()),
        };
        let resolved = specs
            .zip(cutoff)
            .and_then(|(specs, cutoff)| Windows::resolve(&specs, cutoff).ok());
        if let Some(windows) = resolved {
            return windows
                .windows()
                .iter()
                .map(|w| SetWindow {
                    name: w.name.clone(),
                    from: w.from.map(|d| d.to_string()),
                    to: w.to.map(|d| d.to_string()),
                })
                .collect();
        }
        let bound = |w: &Value, key: &str| w.get(key).and_then(Value::as_str).map(str::to_string);
        written
            .into_iter()
            .flatten()
            .map(|(name, w)| SetWindow {
                name: name.clone(),
                from: bound(w, "from"),
                to: bound(w, "to"),
            })
            .collect()
    }
}

/// A set's window of publication days, as the card shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetWindow {
    /// The set's name.
    pub name: String,
    /// Its first day (`YYYY-MM-DD`); `None`: open.
    pub from: Option<String>,
    /// Its last day (`YYYY-MM-DD`); `None`: open.
    pub to: Option<String>,
}

/// Where the withheld part is, in the output folder.
const WITHHELD: &str = "withheld/";

/// A `parquet` sink of `run.json`'s configuration.
struct ParquetSink {
    template: PathTemplate,
    has_novelty: bool,
}

fn parquet_sinks(run: &RunJson) -> Result<Vec<ParquetSink>, CardError> {
    run.stages_of("parquet")
        .map(|(stage, options)| {
            let bad = |reason: String| CardError::NotOutput {
                path: run.path.clone(),
                reason: format!("stage `{stage}`: {reason}"),
            };
            let path = options
                .get("path")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("a `parquet` sink without a `path`".into()))?;
            let template = PathTemplate::parse(path).map_err(bad)?;
            Ok(ParquetSink {
                template,
                has_novelty: path.contains("{novelty}"),
            })
        })
        .collect()
}

/// Every `*.parquet` under `dir`, relative and sorted; hidden names (temporary
/// files of a run in flight) are left out, and so are the scores of `tempora
/// score` (`scores/`): a model's judged summaries are no part of the set (the
/// card shows their table).
fn parquet_files(dir: &Path) -> Result<Vec<String>, CardError> {
    let mut found =
        tempora_sink::release::relative_files(dir, Path::new("")).map_err(CardError::io(dir))?;
    let scores = format!("{}/", tempora_score::job::SCORES_DIR);
    found.retain(|f| f.ends_with(".parquet") && !f.starts_with(&scores));
    Ok(found)
}

/// A split name `datasets` accepts (`^\w+(\.\w+)*$`): ASCII letters, digits and `_`.
pub fn split_name(text: &str) -> String {
    let name: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() {
        "_".into()
    } else {
        name
    }
}

fn config_name(kind: RecordKind, novelty: bool) -> &'static str {
    match kind {
        RecordKind::Article if novelty => "novelty",
        RecordKind::Article => "sets",
        RecordKind::Pair => "pairs",
        RecordKind::Manifest => "manifest",
        RecordKind::Fact => "facts",
        RecordKind::Capture => "captures",
        RecordKind::Page => "pages",
        RecordKind::Score => "scores",
    }
}

/// The split of a file: the values of its template's record placeholders
/// (`{split}`, `{novelty}`, ...; not `{run}`/`{date}`, whose files accumulate in
/// one split), joined with `_`; without any, the file's stem for the sets, `test`
/// for the pairs (evaluation data), `train` for the rest (the Hub's name for a
/// lone table).
fn split_of(config: &str, path: &str, values: &[(&'static str, String)]) -> String {
    let parts: Vec<&str> = values
        .iter()
        .filter(|(name, _)| !matches!(*name, "run" | "date"))
        .map(|(_, v)| v.as_str())
        .collect();
    if !parts.is_empty() {
        return split_name(&parts.join("_"));
    }
    match config {
        "sets" => {
            let file = path.rsplit('/').next().unwrap_or(path);
            split_name(file.strip_suffix(".parquet").unwrap_or(file))
        }
        "pairs" => "test".into(),
        _ => "train".into(),
    }
}

/// Reads the folder's Parquet files, checks them against `run.json`, and groups
/// them into configs: `sets` (the sets, the default), `pairs`, `novelty`,
/// `facts`, then `captures` and `pages`; splits in the pipeline's order of sets,
/// then by name.
///
/// # Errors
/// No Parquet file; a file that is not Parquet, whose columns are no record
/// kind's, or that no `parquet` sink of `run.json` names; a file `run.json` says
/// was written that is missing or holds another number of rows.
pub fn read_configs(dir: &Path, run: &RunJson) -> Result<Vec<Config>, CardError> {
    let sinks = parquet_sinks(run)?;
    let (files, revealed) = card_files(dir)?;
    let written = written_counts(run);
    let mut grouped: Grouped = BTreeMap::new();
    let kinds = RecordKind::ALL.map(|k| (k, arrow_schema(k)));
    let kind_of = |footer: &Footer| {
        kinds
            .iter()
            .find(|(_, schema)| schema.fields() == footer.schema.fields())
            .map(|(kind, _)| *kind)
    };
    for relative in &files {
        let placed = read_data_file(dir, relative, &kind_of, &sinks, &written)?;
        grouped
            .entry((config_order(placed.config), placed.config))
            .or_default()
            .entry(placed.split)
            .or_default()
            .push(placed.file);
    }
    let manifest = grouped.keys().any(|(_, name)| *name == "manifest");
    check_written_files(dir, run, &files, &written, revealed, manifest)?;
    Ok(into_configs(grouped, &run.set_names()))
}

/// Data files by (rank, config name), then by split.
type Grouped = BTreeMap<(usize, &'static str), BTreeMap<String, Vec<DataFile>>>;

/// The Parquet files the card describes, and whether the withheld part is
/// among them: it is once revealed (`tempora reveal`).
///
/// # Errors
/// No Parquet file to describe.
fn card_files(dir: &Path) -> Result<(Vec<String>, bool), CardError> {
    let revealed = Commitment::read(dir)
        .ok()
        .flatten()
        .is_some_and(|c| c.revealed.is_some());
    let files: Vec<String> = parquet_files(dir)?
        .into_iter()
        .filter(|f| revealed || !f.starts_with(WITHHELD))
        .collect();
    if files.is_empty() {
        return Err(CardError::NotOutput {
            path: dir.to_path_buf(),
            reason: "no Parquet files: the card's configs point at Parquet (add a `parquet` sink)"
                .into(),
        });
    }
    Ok((files, revealed))
}

/// A data file with the config and split it belongs to.
struct PlacedFile {
    /// The config's name.
    config: &'static str,
    /// The split's name.
    split: String,
    /// The file.
    file: DataFile,
}

/// Reads the footer of the file at `relative` and places it: its record kind by
/// `kind_of`, its split by the `parquet` sink whose path template names it most
/// closely; checks its rows against what `run.json` says was `written`.
///
/// # Errors
/// The file cannot be read, is not Parquet, has no record kind's columns, is
/// named by no sink, holds another number of rows, or has columns with no feature.
fn read_data_file(
    dir: &Path,
    relative: &str,
    kind_of: &dyn Fn(&Footer) -> Option<RecordKind>,
    sinks: &[ParquetSink],
    written: &BTreeMap<String, (String, u64)>,
) -> Result<PlacedFile, CardError> {
    let path = dir.join(relative);
    let disagrees = |reason: String| CardError::Disagrees {
        path: path.clone(),
        reason,
    };
    let file = std::fs::File::open(&path).map_err(CardError::io(&path))?;
    let bytes = file.metadata().map_err(CardError::io(&path))?.len();
    let footer = read_footer(file).map_err(|e| CardError::NotOutput {
        path: path.clone(),
        reason: format!("not a Parquet file: {e}"),
    })?;
    let kind = kind_of(&footer).ok_or_else(|| not_record_kind(&path, &footer))?;
    let withheld = relative.strip_prefix(WITHHELD);
    let (sink, values) = sinks
        .iter()
        .filter_map(|s| Some((s, s.template.captures(withheld.unwrap_or(relative))?)))
        .max_by_key(|(s, _)| s.template.literal_chars())
        .ok_or_else(|| disagrees("no `parquet` sink of run.json writes to this path".into()))?;
    if let Some((stage, count)) = written.get(relative) {
        if *count != footer.rows {
            return Err(disagrees(format!(
                "holds {} rows, but run.json says stage `{stage}` wrote {count}",
                footer.rows
            )));
        }
    }
    let features = features(&footer.schema).map_err(disagrees)?;
    let name = config_name(kind, sink.has_novelty);
    let split = match withheld {
        Some(path) => format!("{}_withheld", split_of(name, path, &values)),
        None => split_of(name, relative, &values),
    };
    Ok(PlacedFile {
        config: name,
        split,
        file: DataFile {
            path: relative.to_string(),
            rows: footer.rows,
            bytes,
            features,
        },
    })
}

/// The error of a file whose columns are no record kind's, listing them.
fn not_record_kind(path: &Path, footer: &Footer) -> CardError {
    CardError::NotOutput {
        path: path.to_path_buf(),
        reason: format!(
            "its columns ({}) are not those of a Tempora record kind",
            footer
                .schema
                .fields()
                .iter()
                .map(|f| f.name().as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The rank of a config in the card: `sets` first (the default).
fn config_order(name: &str) -> usize {
    [
        "sets", "pairs", "novelty", "manifest", "facts", "captures", "pages",
    ]
    .iter()
    .position(|n| *n == name)
    .unwrap_or(usize::MAX)
}

/// Checks that every file `run.json` says was written is among `files` (the
/// withheld part only once revealed). A folder of the manifest without the
/// publishers' text (`tempora publish`'s, `manifest` says it has the manifest)
/// may lack the files that hold the text, and only those: the files of a stage
/// whose records no file of the folder holds (the sets, the pairs); one whose
/// records another file of the folder holds without text (the facts) must be
/// there.
///
/// # Errors
/// The first written file that is missing and may not be; a file of the folder
/// cannot be read.
fn check_written_files(
    dir: &Path,
    run: &RunJson,
    files: &[String],
    written: &BTreeMap<String, (String, u64)>,
    revealed: bool,
    manifest: bool,
) -> Result<(), CardError> {
    let missing: Vec<(&String, &(String, u64))> = written
        .iter()
        .filter(|(file, _)| {
            !files.iter().any(|f| f == *file) && (revealed || !file.starts_with(WITHHELD))
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let without_text = manifest && super::text::files_with_text(dir)?.is_empty();
    let kept = if without_text {
        inputs_kept(dir, run)
    } else {
        BTreeSet::new()
    };
    let lacking = missing.iter().find(|(_, (stage, _))| {
        !without_text || sink_input(run, stage).is_some_and(|input| kept.contains(input))
    });
    let Some((file, (stage, count))) = lacking else {
        return Ok(());
    };
    let mut reason =
        format!("run.json says stage `{stage}` wrote {count} rows to it, but it is missing");
    if without_text {
        reason.push_str(
            " (a folder without the publishers' text may lack the files that hold it, not \
             this one: another file of its stage's input is here)",
        );
    }
    Err(CardError::Disagrees {
        path: dir.join(file),
        reason,
    })
}

/// The input (`stage` or `stage.port`) of the sink `stage` of `run.json`.
fn sink_input<'a>(run: &'a RunJson, stage: &str) -> Option<&'a str> {
    run.value
        .pointer("/config/stages")
        .and_then(|stages| stages.get(stage))
        .and_then(|s| s.pointer("/inputs/0"))
        .and_then(Value::as_str)
}

/// The inputs of the sinks whose files (as `run.json`'s `file X` counters name
/// them) are in `dir`: what some file of the folder holds.
fn inputs_kept<'a>(dir: &Path, run: &'a RunJson) -> BTreeSet<&'a str> {
    files_written(run)
        .filter(|(_, file, _)| dir.join(file).is_file())
        .filter_map(|(stage, _, _)| sink_input(run, stage))
        .collect()
}

/// Every file `run.json`'s stages say they wrote (their `file X` counters):
/// the stage, the file and its rows.
fn files_written(run: &RunJson) -> impl Iterator<Item = (&str, &str, Option<u64>)> {
    let stages = run.value.get("stages").and_then(Value::as_array);
    stages.into_iter().flatten().flat_map(|stage| {
        let name = stage.get("name").and_then(Value::as_str);
        let counters = stage.get("counters").and_then(Value::as_object);
        counters
            .into_iter()
            .flatten()
            .filter_map(move |(counter, count)| {
                Some((name?, FileWritten::parse(counter)?, count.as_u64()))
            })
    })
}

/// The configs of the grouped files, in rank order, their splits in the order
/// of `set_order` (the pipeline's sets), then by name.
fn into_configs(grouped: Grouped, set_order: &[String]) -> Vec<Config> {
    grouped
        .into_iter()
        .map(|((_, name), splits)| {
            let kind = match name {
                "pairs" => RecordKind::Pair,
                "facts" => RecordKind::Fact,
                "captures" => RecordKind::Capture,
                "pages" => RecordKind::Page,
                "manifest" => RecordKind::Manifest,
                "scores" => RecordKind::Score,
                _ => RecordKind::Article,
            };
            let mut splits: Vec<(String, Vec<DataFile>)> = splits.into_iter().collect();
            splits.sort_by_key(|(split, _)| {
                let rank = set_order.iter().position(|s| split.starts_with(s.as_str()));
                (rank.unwrap_or(usize::MAX), split.clone())
            });
            Config { name, kind, splits }
        })
        .collect()
}

/// The Parquet files the last run wrote, with the stage and rows: the `file X`
/// counters of its `parquet` stages.
fn written_counts(run: &RunJson) -> BTreeMap<String, (String, u64)> {
    let parquet: Vec<&String> = run.stages_of("parquet").map(|(name, _)| name).collect();
    files_written(run)
        .filter(|(stage, _, _)| parquet.iter().any(|p| p.as_str() == *stage))
        .filter_map(|(stage, file, count)| Some((file.to_string(), (stage.to_string(), count?))))
        .collect()
}
