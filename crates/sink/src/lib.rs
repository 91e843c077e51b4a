//! Where records leave and re-enter a pipeline: the `jsonl` and `parquet` sinks
//! and sources. Parquet is written with arrow-rs from the records' declared
//! schemas and read with polars; besides `tempora-report`, this is the only crate
//! that links a Parquet stack.
//!
//! In: records of any kind. Out: files under `pipeline.out` named by a path
//! template (`{split}.jsonl`), with the records' public field names (the Hugging
//! Face names: `document`, `summary`, ...); every Parquet file of a record kind has
//! that kind's declared Arrow schema ([`schema`]). Promises: a file appears under its
//! name only when complete; the same records give the same bytes (sorted by a
//! stable key unless `sort = false`); the sources read back exactly what the
//! sinks wrote.

mod append;
pub mod features;
mod file_sink;
pub mod format;
pub mod parquet;
pub mod release;
pub mod schema;
pub mod schema_doc;
mod source;
pub mod template;

pub use file_sink::{SinkMode, SinkOptions};
pub use format::{FileFormat, Jsonl, Parquet};
pub use source::SourceOptions;

use tempora_engine::{parse_options, OptionError, Role, StageConfig, StageKind};

use tempora_records::RecordKind;

fn sink(
    format: &'static dyn FileFormat,
    table: toml::Table,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    let options: SinkOptions = parse_options(table)?;
    file_sink::SinkConfig::new(format, options)
        .map(|c| Box::new(c) as Box<dyn StageConfig>)
        .map_err(|(key, message)| {
            vec![OptionError {
                key: Some(key.into()),
                message,
            }]
        })
}

fn source(
    format: &'static dyn FileFormat,
    table: toml::Table,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    let options: SourceOptions = parse_options(table)?;
    Ok(Box::new(source::SourceConfig { format, options }))
}

/// The stage kinds this crate registers.
pub fn kinds() -> Vec<StageKind> {
    vec![
        StageKind {
            name: "jsonl",
            about: "Writes records as JSON lines under pipeline.out (one file per rendered path).",
            role: Role::Sink,
            accepts: &RecordKind::ALL,
            emits: "",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(SinkOptions),
            configure: |t, _| sink(&Jsonl, t),
        },
        StageKind {
            name: "parquet",
            about: "Writes records as Parquet files under pipeline.out, with the record kind's declared schema (docs/reference.md, \"Output schema\"): the JSON field names, typed dates, nested records as structs.",
            role: Role::Sink,
            accepts: &RecordKind::ALL,
            emits: "",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(SinkOptions),
            configure: |t, _| sink(&Parquet, t),
        },
        StageKind {
            name: "jsonl-source",
            about: "Reads records from JSON lines files (e.g. a previous run's articles) to rerun downstream stages.",
            role: Role::Source,
            accepts: &[],
            emits: "out: the `record` kind",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(SourceOptions),
            configure: |t, _| source(&Jsonl, t),
        },
        StageKind {
            name: "parquet-source",
            about: "Reads records from Parquet files written by the `parquet` sink.",
            role: Role::Source,
            accepts: &[],
            emits: "out: the `record` kind",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(SourceOptions),
            configure: |t, _| source(&Parquet, t),
        },
    ]
}
