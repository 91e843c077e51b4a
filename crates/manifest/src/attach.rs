//! The manifest's stages, added to every pipeline that publishes sets.

use tempora_engine::plan::PlannedStage;
use tempora_engine::Role;

use tempora_records::RecordKind;

use crate::inputs::{FACTS_FILE, MANIFEST_FILE};

/// The stage that makes the rows.
pub const STAGE: &str = "manifest";
/// The sinks it adds: the rows as JSONL and Parquet, the facts as JSONL.
pub const SINKS: [&str; 3] = [
    "write_manifest",
    "write_manifest_parquet",
    "write_manifest_facts",
];

/// The `manifest` stage and its sinks, to add to a pipeline whose configured
/// stages are `stages` when it publishes articles (a sink fed articles), is not
/// incremental (an accumulating folder's records are the nights' own) and names
/// no stage `manifest` or `write_manifest*` itself; else none (an empty table).
/// Given to the plan as [`tempora_engine::Additions::stages`].
pub fn stages(stages: &[PlannedStage]) -> toml::Table {
    let mut added = toml::Table::new();
    let incremental = stages.iter().any(|s| s.incremental);
    if incremental
        || stages
            .iter()
            .any(|s| s.kind == STAGE || s.name == STAGE || SINKS.contains(&s.name.as_str()))
    {
        return added;
    }
    let kind_of = |stage: &str, port: &str| {
        stages
            .iter()
            .find(|s| s.name == stage)
            .and_then(|s| s.outputs.iter().find(|p| p.name == port))
            .map(|p| p.kind)
    };
    let mut articles: Vec<String> = Vec::new();
    for sink in stages.iter().filter(|s| s.role == Role::Sink) {
        for input in &sink.inputs {
            let name = input.to_string();
            if kind_of(&input.stage, &input.port) == Some(RecordKind::Article)
                && !articles.contains(&name)
            {
                articles.push(name);
            }
        }
    }
    if articles.is_empty() {
        return added;
    }
    let facts: Vec<String> = stages
        .iter()
        .filter(|s| s.role == Role::Source && s.outputs.iter().any(|p| p.kind == RecordKind::Fact))
        .map(|s| s.name.clone())
        .collect();
    let mut add = |name: &str, table: toml::Table| {
        added.insert(name.to_string(), toml::Value::Table(table));
    };
    let mut manifest = toml::Table::new();
    manifest.insert("kind".into(), STAGE.into());
    manifest.insert("inputs".into(), articles.into());
    add(STAGE, manifest);
    for (name, kind, path) in [
        (SINKS[0], "jsonl", MANIFEST_FILE),
        (SINKS[1], "parquet", "manifest.parquet"),
    ] {
        add(name, sink(kind, vec![STAGE.to_string()], path));
    }
    // The facts the sets were matched with (CC0): a rebuild reads them instead
    // of the dump. One source of facts only: two could not be told apart.
    if facts.len() == 1 {
        add(SINKS[2], sink("jsonl", facts, FACTS_FILE));
    }
    added
}

fn sink(kind: &str, inputs: Vec<String>, path: &str) -> toml::Table {
    let mut table = toml::Table::new();
    table.insert("kind".into(), kind.into());
    table.insert("inputs".into(), inputs.into());
    table.insert("path".into(), path.into());
    table
}
