//! The `jsonl` and `parquet` sinks: records to files under `pipeline.out`, one file
//! per rendered path template. Each file is written under a temporary name in its
//! directory and staged once the input has ended; the runtime renames every
//! sink's files into place together when the run completes (see
//! [`tempora_engine::publish`]), so a stopped or failed run changes no output (a
//! dropped temporary file deletes itself). In `append` mode the file is rewritten
//! the same way with this run's new records after the old ones (see
//! [`crate::append`]).
//!
//! A file that is sorted, appended or Parquet is written once the input has ended;
//! until then its records wait on disk as JSON lines with their sort keys (a
//! [`Spill`]), so a sink's memory does not grow with what it writes.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_engine::atomic_file::AtomicFile;
use tempora_engine::spill::{Keyed, Spill};
use tempora_engine::{
    Batch, Emitted, OptionError, Peers, PipelineContext, Port, ReadPort, Stage, StageConfig,
    StageError, Transform, TransformStage,
};
use tempora_records::RecordKind;

use crate::append;
use crate::format::FileFormat;
use crate::parquet;
use crate::template::PathTemplate;

/// Options of the `jsonl` and `parquet` sinks.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct SinkOptions {
    /// Output path relative to `pipeline.out`; placeholders `{split}`, `{source}`,
    /// `{kind}`, `{relation}` and `{novelty}` (the novelty tag `T_nov`/`T_sim`, else
    /// the bin) are filled from each record (one file per value); `{run}` (the run's
    /// start in UTC, `2026-11-23T023015Z`) and `{date}` (its day, `2026-11-23`) from
    /// the run. A path with no record field is written even when no record comes, and
    /// so is, with `{split}` its only record field, the file of every set the sink
    /// reads: empty (in Parquet, the kind's schema and no rows).
    pub path: String,
    /// `replace`: each run writes its files anew. `append` (JSONL only): each run adds
    /// its records to the file's, leaving out records the file has already (same
    /// identity: articles and pairs by site and id, facts by subject, relation, start
    /// and object, captures and pages by URL and time); the file changes only when a
    /// run completes. An incremental pipeline refuses to `replace` a non-empty file of
    /// what is new each run (a sink that reads the incremental stage, however far
    /// down); a sink of what each run reads whole, such as the facts, replaces its
    /// file with the run's.
    #[serde(default = "default_mode")]
    #[schemars(default = "default_mode")]
    pub mode: SinkMode,
    /// Sort each file's records by a stable key (articles by date, source, id; facts by
    /// subject, relation, start; captures by URL and time) so the same input gives the
    /// same bytes whatever the arrival order. Sorted records wait on disk until the input ends.
    #[serde(default = "default_sort")]
    #[schemars(default = "default_sort")]
    pub sort: bool,
    /// Hold back a share of the articles (and their manifest rows and pairs),
    /// chosen by a keyed hash of the article id, under `withheld/` in the output
    /// folder: `{ share = 0.2, key = "path/to/key" }`. Without it, the
    /// pipeline's `[pipeline.release]` (`withhold`, `key`) holds; see `tempora reveal`.
    #[serde(default)]
    pub withhold: Option<crate::release::WithholdOption>,
}

const fn default_sort() -> bool {
    true
}

const fn default_mode() -> SinkMode {
    SinkMode::Replace
}

/// What a sink does with a file that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SinkMode {
    /// Write the file anew.
    Replace,
    /// Add this run's records to the file's.
    Append,
}

pub(crate) struct SinkConfig {
    pub(crate) format: &'static dyn FileFormat,
    pub(crate) options: SinkOptions,
    pub(crate) template: PathTemplate,
    /// What its inputs carry, as the plan told it.
    pub(crate) read: Vec<ReadPort>,
}

impl SinkConfig {
    /// # Errors
    /// The option at fault and why.
    pub(crate) fn new(
        format: &'static dyn FileFormat,
        options: SinkOptions,
    ) -> Result<Self, (&'static str, String)> {
        let template = PathTemplate::parse(&options.path).map_err(|e| ("path", e))?;
        if let (Some(why), SinkMode::Append) = (format.append_refused(), options.mode) {
            return Err(("mode", why.into()));
        }
        Ok(Self {
            format,
            options,
            template,
            read: Vec::new(),
        })
    }
}

/// The path-template fields a record may lack, each with what a stage that
/// gives it does, in words (see [`StageConfig::gives_fields`]).
const GIVEN_BY: [(&str, &str); 3] = [
    (
        "split",
        "puts records in sets (a `split` stage, or a source of files a split wrote)",
    ),
    (
        "novelty",
        "scores novelty (a `novelty` stage, or a source of files one wrote)",
    ),
    (
        "relation",
        "gives facts (a `wikidata` stage, or a source of facts files)",
    ),
];

impl StageConfig for SinkConfig {
    fn outputs(&self) -> Vec<Port> {
        Vec::new()
    }

    /// A path with `{split}` needs records in sets, `{novelty}` scored ones,
    /// `{relation}` facts: some stage before this sink must give them, or every
    /// record would be rejected.
    fn link(&mut self, peers: &Peers<'_>) -> Vec<OptionError> {
        let me = peers.me();
        GIVEN_BY
            .iter()
            .filter(|(field, _)| self.options.path.contains(&format!("{{{field}}}")))
            .filter(|(field, _)| {
                !peers
                    .iter()
                    .any(|p| p.gives(field) && peers.is_downstream(p.name, me))
            })
            .map(|(field, does)| {
                OptionError::at(
                    "path",
                    format!(
                        "has `{{{field}}}`, but no stage before this sink {does}: every \
                         record would be rejected"
                    ),
                )
            })
            .collect()
    }

    fn read_ports(&mut self, ports: &[ReadPort]) {
        self.read = ports.to_vec();
    }

    fn writes(&self) -> Vec<(String, String)> {
        vec![("path".to_string(), self.options.path.clone())]
    }

    /// Takes the pipeline's release unless the sink sets its own `withhold`.
    fn hold_back(&mut self, release: &dyn std::any::Any) -> bool {
        let Some(release) = release.downcast_ref::<crate::release::WithholdOption>() else {
            return false;
        };
        self.options.withhold.get_or_insert_with(|| release.clone());
        true
    }

    fn replaced_files(&self, ctx: &PipelineContext) -> Vec<(String, PathBuf)> {
        if self.options.mode == SinkMode::Append {
            return Vec::new();
        }
        self.template
            .for_run(&ctx.run)
            .existing_files(&ctx.out)
            .into_iter()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
            .map(|p| ("path".to_string(), p))
            .collect()
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        let mut sink = FileSink {
            format: self.format,
            template: self.template.for_run(&ctx.run),
            sort: self.options.sort,
            // A rebuild makes the accumulated set anew: nothing to add to.
            mode: if ctx.mode == tempora_engine::RunMode::Rebuild {
                SinkMode::Replace
            } else {
                self.options.mode
            },
            out: ctx.out.clone(),
            files: BTreeMap::new(),
            withhold: self
                .options
                .withhold
                .as_ref()
                .map(crate::release::Withhold::load)
                .transpose()
                .map_err(StageError::input)?,
            empty_kind: self
                .read
                .first()
                .map(|p| p.kind)
                .filter(|kind| self.read.iter().all(|p| p.kind == *kind)),
        };
        for path in self.empty_files(&sink.template) {
            sink.open(&path)?;
        }
        Ok(Box::new(TransformStage(sink)))
    }
}

impl SinkConfig {
    /// The files written even when no record arrives, for an empty result is a
    /// result: a fixed path; or, for a path whose only record field is `{split}`,
    /// the file of every set the inputs carry. With a withheld part, a file of
    /// sets has its withheld twin too, so each file of a set has both halves,
    /// either of them empty.
    fn empty_files(&self, template: &PathTemplate) -> Vec<PathBuf> {
        let sets: std::collections::BTreeSet<&str> = self
            .read
            .iter()
            .flat_map(|p| p.sets.iter().map(String::as_str))
            .collect();
        let public: Vec<PathBuf> = match template.fixed_path() {
            Some(path) => vec![path],
            None => sets
                .iter()
                .filter_map(|set| template.for_set(set))
                .collect(),
        };
        let twins = if self.options.withhold.is_some() && !sets.is_empty() {
            public
                .iter()
                .map(|p| Path::new(crate::release::DIR).join(p))
                .collect()
        } else {
            Vec::new()
        };
        public.into_iter().chain(twins).collect()
    }
}

struct FileSink {
    format: &'static dyn FileFormat,
    template: PathTemplate,
    sort: bool,
    mode: SinkMode,
    out: PathBuf,
    files: BTreeMap<PathBuf, OpenFile>,
    /// What is held back (`[pipeline.release]`): written under `withheld/`.
    withhold: Option<crate::release::Withhold>,
    /// The one kind of record its inputs carry, if they carry one: a file that
    /// receives no record is written with it (a Parquet file's schema).
    empty_kind: Option<RecordKind>,
}

struct OpenFile {
    tmp: AtomicFile,
    lines: Lines,
    /// The kind of the first record (an appended file holds one kind).
    kind: Option<RecordKind>,
    count: u64,
}

/// Where a file's lines go until it is published.
enum Lines {
    /// Straight into the file (unsorted JSONL).
    Streamed(BufWriter<std::fs::File>),
    /// Held with their sort key (sorted JSONL, appended JSONL, Parquet).
    Held(Spill<Keyed>),
}

impl FileSink {
    fn open(&mut self, relative: &Path) -> Result<&mut OpenFile, StageError> {
        if !self.files.contains_key(relative) {
            let path = self.out.join(relative);
            let dir = path.parent().unwrap_or(&self.out);
            std::fs::create_dir_all(dir).map_err(|e| StageError::io(dir, e))?;
            let tmp = AtomicFile::create(&path).map_err(|e| StageError::io(dir, e))?;
            let streaming = self.format.streams() && !self.sort && self.mode == SinkMode::Replace;
            let lines = if streaming {
                let file = tmp
                    .as_file()
                    .try_clone()
                    .map_err(|e| StageError::io(&path, e))?;
                Lines::Streamed(BufWriter::with_capacity(1 << 16, file))
            } else {
                Lines::Held(Spill::new(dir).map_err(|e| StageError::io(dir, e))?)
            };
            self.files.insert(
                relative.to_path_buf(),
                OpenFile {
                    tmp,
                    lines,
                    kind: None,
                    count: 0,
                },
            );
        }
        self.files
            .get_mut(relative)
            .ok_or_else(|| StageError::internal("file vanished"))
    }

    /// Writes out what `file` holds and stages it (or keeps an appended file with
    /// nothing new) for the run's publication.
    fn stage_file(
        &mut self,
        relative: &Path,
        file: OpenFile,
        out: &mut Emitted,
    ) -> Result<(), StageError> {
        let path = self.out.join(relative);
        let io_err = |e| StageError::io(&path, e);
        let counter = tempora_engine::stats::FileWritten::counter(relative);
        let held = match file.lines {
            Lines::Streamed(mut w) => {
                w.flush().map_err(io_err)?;
                drop(w);
                out.count(&counter, file.count);
                return out.stage_file(file.tmp).map_err(io_err);
            }
            Lines::Held(held) => held,
        };
        // Held lines, read back sorted (a total order: records with the same key,
        // an article written twice, are ordered by their whole JSON line, not by
        // arrival) or in arrival order.
        let lines: Box<dyn Iterator<Item = std::io::Result<Keyed>>> = if self.sort {
            Box::new(held.sorted().map_err(io_err)?)
        } else {
            Box::new(held.in_order().map_err(io_err)?)
        };
        let lines = lines.map(|keyed| keyed.map(|k| k.line));
        if self.mode == SinkMode::Append {
            let (appended, changed) = append::append_jsonl(&path, file.kind, lines, file.tmp)?;
            out.count(&counter, appended.added);
            out.count("already in the file", appended.present);
            match changed {
                Some(tmp) => out.stage_file(tmp).map_err(io_err)?,
                None => out.stage_kept(path.clone()),
            }
            return Ok(());
        }
        let mut lines = lines;
        let kind = file.kind.or(self.empty_kind);
        if !self
            .format
            .write(&path, kind, &mut lines, file.tmp.as_file())?
        {
            return Ok(());
        }
        out.count(&counter, file.count);
        out.stage_file(file.tmp).map_err(io_err)
    }
}

impl Transform for FileSink {
    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        let sort = self.sort;
        for record in batch {
            let relative = match self.template.render(&record) {
                Ok(p)
                    if self
                        .withhold
                        .as_ref()
                        .is_some_and(|w| w.holds_record(&record)) =>
                {
                    Path::new(crate::release::DIR).join(p)
                }
                Ok(p) => p,
                Err(reason) => {
                    out.reject(&record, reason);
                    continue;
                }
            };
            let key = if sort {
                record.sort_key()
            } else {
                String::new()
            };
            let append = self.mode == SinkMode::Append;
            let one_kind = self.format.one_kind();
            let file = self.open(&relative)?;
            let kind = *file.kind.get_or_insert(record.kind());
            if one_kind && kind != record.kind() {
                let mixed = parquet::WriteError::MixedKinds {
                    kind,
                    found: record.kind(),
                    row: usize::try_from(file.count + 1).unwrap_or(usize::MAX),
                };
                return Err(StageError::input(format!(
                    "{}: {mixed}",
                    relative.display()
                )));
            }
            if append && kind != record.kind() {
                out.reject(
                    &record,
                    format!(
                        "{} holds {kind} records: an appended file holds one kind (put `{{kind}}` in the path)",
                        relative.display()
                    ),
                );
                continue;
            }
            file.count += 1;
            let mut line = Vec::with_capacity(256);
            record
                .write_json(&mut line)
                .map_err(|e| StageError::internal(format!("cannot serialize a record: {e}")))?;
            let written = match &mut file.lines {
                Lines::Streamed(w) => w.write_all(&line).and_then(|()| w.write_all(b"\n")),
                Lines::Held(held) => held.push(&Keyed { key, line }),
            };
            written.map_err(|e| StageError::io(&relative, e))?;
        }
        Ok(())
    }

    fn stage_files(&mut self, out: &mut Emitted) -> Result<(), StageError> {
        let files = std::mem::take(&mut self.files);
        for (relative, file) in files {
            self.stage_file(&relative, file, out)?;
        }
        Ok(())
    }
}
