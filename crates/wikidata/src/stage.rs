//! The `wikidata` stage: options, validation, and the running source that reads the
//! dump on its own threads (or a facts file) and emits the evolving facts.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    parse_options, OnError, OptionError, PipelineContext, Port, PortId, Stage, StageConfig,
    StageError, StageIo, StageStats,
};
use tempora_records::counters::RelationFacts;
use tempora_records::{Fact, Record, RecordKind};
use tokio::sync::mpsc;

use crate::collect::Rejection;
use crate::dump::{read_facts, FactsQuery, FactsRead, RelationTally};
use crate::error::WikidataError;
use crate::facts_file::{read_facts_file, read_meta, write_facts, FactsMeta};
use crate::relations::AskedFacts;

pub(crate) fn default_relations() -> Vec<String> {
    vec!["P39".into(), "P1308".into()]
}

pub(crate) fn default_languages() -> Vec<String> {
    vec!["en".into()]
}

/// Options of the `wikidata` stage.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct WikidataOptions {
    /// The Wikidata JSON dump: `latest-all.json.gz` (many gzip members, inflated on
    /// all cores), `.bz2`, `.zst` or plain JSON, told apart by their first bytes; `-`
    /// reads stdin. Needed unless `facts_file` holds matching facts.
    #[serde(default)]
    pub dump: Option<String>,
    /// A facts file (JSONL, as `tempora facts -o` writes it, with its `.meta.json`
    /// sidecar). When its sidecar matches `cutoff`, `relations`, `languages` (and the
    /// size and mtime of `dump`, when `dump` is set) its facts are emitted and the dump
    /// is not read; otherwise the dump is read and the file rewritten. Nightly
    /// pipelines set both: the dump is read again only when it changes.
    #[serde(default)]
    pub facts_file: Option<PathBuf>,
    /// Relations whose statements make evolving pairs: property ids (`P39`, position
    /// held; `P1308`, officeholder) or the relation catalogue's names
    /// (`member-of-sports-team`, `head-coach`, `chief-executive-officer`,
    /// `chairperson`, ...). A name the catalogue lacks is refused.
    #[serde(default = "default_relations")]
    #[schemars(default = "default_relations")]
    pub relations: Vec<String>,
    /// A folder of more relation catalogue entries (`*.toml`, the format of
    /// `config/relations/`), whose names `relations` may use beside the shipped ones.
    #[serde(default)]
    pub catalogue: Option<PathBuf>,
    /// Languages of labels and aliases, in order of preference; the first with a label
    /// gives `label`, the rest become aliases.
    #[serde(default = "default_languages")]
    #[schemars(default = "default_languages")]
    pub languages: Vec<String>,
    /// Knowledge cutoff for the evolving rule; defaults to `pipeline.cutoff`.
    #[serde(default)]
    pub cutoff: Option<NaiveDate>,
    /// A malformed entity line: `skip` rejects it (to `rejected.jsonl`, with its line
    /// number) and goes on; `fail` stops the run.
    #[serde(default)]
    pub on_error: OnError,
}

/// The `wikidata` stage, configured.
#[derive(Debug, Clone)]
pub struct WikidataConfig {
    options: WikidataOptions,
    query: FactsQuery,
}

impl WikidataConfig {
    /// Parses the options and resolves the cutoff from the pipeline.
    ///
    /// # Errors
    /// Every problem with the options, each naming its key.
    pub fn configure(table: toml::Table, ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        let options: WikidataOptions = parse_options(table)?;
        let mut errors = Vec::new();
        if options.dump.is_none() && options.facts_file.is_none() {
            errors.push(OptionError {
                key: Some("dump".into()),
                message: "set `dump` (a Wikidata JSON dump, or `-` for stdin) or `facts_file`"
                    .into(),
            });
        }
        let (query, problems) = AskedFacts {
            relations: &options.relations,
            catalogue: options.catalogue.as_deref(),
            languages: &options.languages,
            cutoff: options.cutoff.unwrap_or(ctx.cutoff),
            on_error: options.on_error,
        }
        .query();
        errors.extend(problems);
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Self { options, query })
    }

    /// The resolved query (cutoff included).
    pub fn query(&self) -> &FactsQuery {
        &self.query
    }

    fn wanted_meta(&self, facts: &[Fact]) -> FactsMeta {
        FactsMeta::new(&self.query, self.options.dump.as_deref(), facts)
    }
}

impl StageConfig for WikidataConfig {
    fn gives_fields(&self) -> &'static [&'static str] {
        &["relation"]
    }

    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Fact)]
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        let mut files = match (&self.options.dump, &self.options.facts_file) {
            (Some(dump), _) if dump != "-" => vec![("dump".into(), PathBuf::from(dump))],
            (None, Some(file)) => vec![("facts_file".into(), file.clone())],
            _ => Vec::new(),
        };
        files.extend(
            self.options
                .catalogue
                .iter()
                .map(|c| ("catalogue".into(), c.clone())),
        );
        files
    }

    fn build(&self, _ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(WikidataStage {
            config: self.clone(),
        }))
    }
}

/// The running stage.
struct WikidataStage {
    config: WikidataConfig,
}

enum Event {
    Rejected(Rejection),
    Done(Result<FactsRead, WikidataError>),
}

#[async_trait]
impl Stage for WikidataStage {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let config = self.config;
        if let Some(file) = &config.options.facts_file {
            if let Some(meta) = read_meta(file).map_err(input_error)? {
                match meta.mismatch(&config.wanted_meta(&[])) {
                    None => return emit_facts_file(&config, file.clone(), &mut io).await,
                    Some(why) if config.options.dump.is_some() => {
                        tracing::info!(file = %file.display(), why, "facts file is stale; reading the dump");
                    }
                    Some(why) => {
                        return Err(StageError::input(format!("{}: {why}", file.display())));
                    }
                }
            } else if config.options.dump.is_none() {
                tracing::warn!(file = %file.display(), "facts file has no .meta.json sidecar; using it as it is");
                return emit_facts_file(&config, file.clone(), &mut io).await;
            }
        }
        let Some(dump) = config.options.dump.clone() else {
            return Err(StageError::input("no `dump` to read"));
        };
        let read = read_dump(&config.query, dump, "dump", &mut io).await?;
        let Some(read) = read else {
            return Ok(()); // Cancelled: a source stops without emitting.
        };
        let mut facts = read.facts;
        if let Some(file) = &config.options.facts_file {
            let meta = config.wanted_meta(&facts);
            let file = file.clone();
            facts = tokio::task::spawn_blocking(move || {
                write_facts(&file, &facts, &meta).map(|()| facts)
            })
            .await
            .map_err(|e| StageError::internal(e.to_string()))?
            .map_err(|e| StageError::external(e.to_string()))?;
        }
        emit(facts, &mut io).await
    }
}

/// Emits `facts`, as [`read_dump`] ordered them.
pub(crate) async fn emit(facts: Vec<Fact>, io: &mut StageIo) -> Result<(), StageError> {
    for fact in facts {
        if io.shutdown().is_cancelled() {
            break;
        }
        io.emit(PortId::DEFAULT, Record::Fact(Box::new(fact)))
            .await?;
    }
    io.flush().await
}

/// Reads the facts of `query` from `dump` (named by `option`) on their own
/// threads; rejections arrive while it reads. The facts come in the canonical
/// order, as [`read_facts`] sorts them and a facts file holds them: what a stage
/// emits does not depend on the dump's order, nor on whether it read a dump, a
/// file or a live reading.
pub(crate) async fn read_dump(
    query: &FactsQuery,
    dump: String,
    option: &str,
    io: &mut StageIo,
) -> Result<Option<FactsRead>, StageError> {
    let cancel = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (token, cancel) = (io.shutdown().clone(), cancel.clone());
        tokio::spawn(async move {
            token.cancelled().await;
            cancel.store(true, Ordering::Relaxed);
        })
    };
    let (tx, mut rx) = mpsc::channel::<Event>(256);
    let (query, stats, thread_cancel) = (query.clone(), io.stats().clone(), cancel.clone());
    let reader = std::thread::Builder::new()
        .name("wikidata-dump".into())
        .spawn(move || {
            let rejects = tx.clone();
            let mut reject = |r: Rejection| {
                if rejects.blocking_send(Event::Rejected(r)).is_err() {
                    thread_cancel.store(true, Ordering::Relaxed);
                }
            };
            let result = read_facts(&dump, &query, &stats, &thread_cancel, &mut reject);
            let _ = tx.blocking_send(Event::Done(result));
        })
        .map_err(|e| StageError::external(format!("cannot start the dump reader: {e}")))?;
    let mut outcome = None;
    while let Some(event) = rx.recv().await {
        match event {
            Event::Rejected(r) => io.reject(r.record, r.reason, Some(r.location)).await?,
            Event::Done(result) => outcome = Some(result),
        }
    }
    watcher.abort();
    let _ = tokio::task::spawn_blocking(move || reader.join()).await;
    match outcome {
        Some(Ok(read)) => {
            io.stats()
                .set_metric("second_pass", serde_json::json!(read.second_pass));
            note_relations(io.stats(), &read.relations, option);
            if let Some(sha256) = &read.sha256 {
                io.stats().read_whole(option, sha256.clone());
            }
            Ok(Some(read))
        }
        Some(Err(WikidataError::Cancelled)) => Ok(None),
        Some(Err(e)) => Err(input_error(e)),
        None => Err(StageError::internal(
            "the dump reader stopped without a result",
        )),
    }
}

/// Notes what the input (`dump`, `reading`) held of each relation: a `facts
/// P54` counter each, the `relations` metric, a log line each, and a warning
/// for a relation the input holds no statement of (a property a dump lacks, or
/// mistyped): its 0 facts are said, not left to be noticed.
fn note_relations(stats: &StageStats, tallies: &[RelationTally], input: &str) {
    let mut metric = serde_json::Map::new();
    for tally in tallies {
        stats.count(&RelationFacts(&tally.relation).name(), tally.facts);
        metric.insert(
            tally.relation.clone(),
            serde_json::json!({
                "subjects": tally.subjects,
                "statements": tally.statements,
                "pairs": tally.pairs,
                "facts": tally.facts,
            }),
        );
        let line = tally.line(input);
        if tally.statements == 0 {
            tracing::warn!("{line}");
            stats.warn(&line);
        } else {
            tracing::info!("{line}");
        }
    }
    stats.set_metric("relations", serde_json::Value::Object(metric));
}

async fn emit_facts_file(
    config: &WikidataConfig,
    file: PathBuf,
    io: &mut StageIo,
) -> Result<(), StageError> {
    let path = file.clone();
    let lines = tokio::task::spawn_blocking(move || read_facts_file(&path))
        .await
        .map_err(|e| StageError::internal(e.to_string()))?
        .map_err(input_error)?;
    for (line, fact) in lines {
        if io.shutdown().is_cancelled() {
            break;
        }
        match fact {
            Ok(fact) => {
                io.stats().count("facts", 1);
                io.stats().count(&RelationFacts(&fact.relation).name(), 1);
                io.emit(PortId::DEFAULT, Record::Fact(Box::new(fact)))
                    .await?;
            }
            Err(reason) if config.query.on_error == OnError::Skip => {
                let location = format!("{}:{line}", file.display());
                io.reject(serde_json::Value::Null, reason, Some(location))
                    .await?;
            }
            Err(reason) => {
                return Err(StageError::input(format!(
                    "{}, line {line}: {reason}",
                    file.display()
                )))
            }
        }
    }
    io.flush().await
}

pub(crate) fn input_error(e: WikidataError) -> StageError {
    match e {
        WikidataError::Io { .. } => StageError::external(e.to_string()),
        _ => StageError::input(e.to_string()),
    }
}
