//! The pipeline that rebuilds a set from its manifest: the pinned pipeline with
//! every stage that needs what the manifest stands for replaced.
//!
//! - The listing (`wayback-cdx`, `prefetch`) gives way to `manifest-captures`:
//!   exactly the manifest's captures, no CDX request; `wayback-fetch` keeps its
//!   state, WARC files, retries and resume, and talks to the Archive with the
//!   options given to the rebuild.
//! - After each `extract` stage, `manifest-check` passes the articles read as
//!   their rows say and names the rest.
//! - The source of evolving facts reads the manifest's facts file (no dump).
//! - `exclude` is passed by: the manifest lists only what it kept.
//! - `novelty` becomes `manifest-novelty`: the rows' scores (no training set).
//! - Everything else (conflicts, split, pairs, the sinks, the manifest itself)
//!   runs as it ran, so the published files are the original's.

use std::path::Path;

use tempora_engine::PipelineFile;

use crate::inputs::ManifestInputs;

/// The Archive's options given to `tempora rebuild` (each `None` keeps the
/// pinned pipeline's).
#[derive(Debug, Clone, Default)]
pub struct ArchiveFlags {
    /// `archive.endpoint`.
    pub endpoint: Option<String>,
    /// `archive.contact`.
    pub contact: Option<String>,
    /// `archive.playback_rate`: page requests a minute.
    pub playback_rate: Option<f64>,
}

/// The stage that emits the manifest's captures.
const CAPTURES: &str = "manifest_captures";
/// The stage that checks each article against its row.
const CHECK: &str = "manifest_check";

/// The rebuild pipeline of the manifest at `manifest` (absolute), whose pins
/// are `inputs`, publishing into `out`; `overrides` (`--set`) are applied last.
///
/// # Errors
/// A pinned pipeline that cannot be rebuilt (no fetch stage, feeds discovery,
/// several sources of facts), or problems resolving the result (see
/// [`PipelineFile::parse`]).
pub fn rebuild_pipeline(
    manifest: &Path,
    inputs: &ManifestInputs,
    out: &Path,
    archive: &ArchiveFlags,
    overrides: &[String],
) -> Result<PipelineFile, String> {
    let mut table: toml::Table = toml::Table::try_from(&inputs.config)
        .map_err(|e| format!("the pinned pipeline (`config`) is not a pipeline table: {e}"))?;
    if let Some(pipeline) = table
        .get_mut("pipeline")
        .and_then(toml::Value::as_table_mut)
    {
        pipeline.insert("out".into(), out.display().to_string().into());
    }
    let stages = table
        .get_mut("stages")
        .and_then(toml::Value::as_table_mut)
        .ok_or("the pinned pipeline has no stages")?;
    let names = stage_kinds(stages);
    if let Some((name, _)) = names.iter().find(|(_, k)| k == "wayback-feeds") {
        return Err(format!(
            "stage `{name}` discovers articles through feeds: a rebuild fetches the manifest's \
             captures of pipelines that list them with `wayback-cdx`"
        ));
    }
    let replacements = Replacements {
        manifest_path: manifest.display().to_string().into(),
        facts_path: inputs
            .facts
            .as_ref()
            .map(|f| manifest.with_file_name(f).display().to_string()),
        archive: shared_archive(stages, archive),
        facts_sources: facts_sources(stages),
    };
    let mut fetched = false;
    for (name, kind) in &names {
        fetched |= replacements.replace(stages, name, kind)?;
    }
    if !fetched {
        return Err("the pinned pipeline fetches no pages (no `wayback-fetch` stage)".into());
    }
    replacements.add_captures(stages);
    let text = toml::to_string(&table).map_err(|e| format!("the rebuild pipeline: {e}"))?;
    PipelineFile::parse(&format!("{} (rebuild)", inputs.pipeline), &text, overrides)
        .map_err(|e| e.to_string())
}

/// Each stage's name and kind (empty when it has none), in file order.
fn stage_kinds(stages: &toml::Table) -> Vec<(String, String)> {
    let kind_of = |t: &toml::Value| {
        t.get("kind")
            .and_then(toml::Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    stages
        .iter()
        .map(|(name, t)| (name.clone(), kind_of(t)))
        .collect()
}

/// The stages the facts sink reads: the sources of evolving facts.
fn facts_sources(stages: &toml::Table) -> Vec<String> {
    stages
        .get(crate::attach::SINKS[2])
        .and_then(|t| t.get("inputs"))
        .and_then(toml::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// What the stages that need what the manifest stands for are replaced with.
struct Replacements {
    /// The manifest's path, as the new stages' `manifest` option.
    manifest_path: toml::Value,
    /// The manifest's facts file, when it has one.
    facts_path: Option<String>,
    /// The Archive's options the fetch stages are given.
    archive: toml::Table,
    /// The stages that are sources of evolving facts.
    facts_sources: Vec<String>,
}

impl Replacements {
    /// Replaces, rewires or drops the stage `name` of kind `kind` as the
    /// rebuild needs; tells whether it is a fetch stage.
    ///
    /// # Errors
    /// A stage that is not a table where one is changed, or a source of facts
    /// the manifest cannot stand for.
    fn replace(&self, stages: &mut toml::Table, name: &str, kind: &str) -> Result<bool, String> {
        match kind {
            "wayback-cdx" | "prefetch" => {
                stages.remove(name);
            }
            "wayback-fetch" => {
                let stage = table_of(stages, name)?;
                stage.insert("inputs".into(), vec![CAPTURES.to_string()].into());
                stage.insert("archive".into(), self.archive.clone().into());
                return Ok(true);
            }
            "exclude" => pass_by(stages, name),
            "novelty" => {
                let stage = table_of(stages, name)?;
                stage.insert("kind".into(), "manifest-novelty".into());
                stage.insert("manifest".into(), self.manifest_path.clone());
            }
            "extract" => self.check_after(stages, name),
            _ if self.facts_sources.iter().any(|s| s == name) => {
                self.read_facts_file(stages, name)?;
            }
            "wikidata" => {
                return Err(format!(
                    "stage `{name}` reads a Wikidata dump, and the manifest has no facts file \
                     of its own (a pipeline with one source of facts has)"
                ))
            }
            _ => {}
        }
        Ok(false)
    }

    /// Adds a `manifest-check` stage after the `extract` stage `name`, and
    /// points its readers at the check.
    fn check_after(&self, stages: &mut toml::Table, name: &str) {
        let check = toml::Value::Array(vec![CHECK.into()]);
        rewire(stages, name, &check);
        let mut table = toml::Table::new();
        table.insert("kind".into(), "manifest-check".into());
        table.insert("inputs".into(), vec![name.to_string()].into());
        table.insert("manifest".into(), self.manifest_path.clone());
        stages.insert(CHECK.into(), table.into());
    }

    /// Replaces the source of facts `name` with a `jsonl-source` of the
    /// manifest's facts file.
    ///
    /// # Errors
    /// The manifest has no facts file.
    fn read_facts_file(&self, stages: &mut toml::Table, name: &str) -> Result<(), String> {
        let Some(path) = &self.facts_path else {
            return Err("the manifest has no facts file".into());
        };
        let mut source = toml::Table::new();
        source.insert("kind".into(), "jsonl-source".into());
        source.insert("record".into(), "fact".into());
        source.insert("paths".into(), vec![path.clone()].into());
        source.insert("on_error".into(), "fail".into());
        stages.insert(name.to_string(), source.into());
        Ok(())
    }

    /// Adds the stage that emits the manifest's captures.
    fn add_captures(self, stages: &mut toml::Table) {
        let mut captures = toml::Table::new();
        captures.insert("kind".into(), "manifest-captures".into());
        captures.insert("manifest".into(), self.manifest_path);
        stages.insert(CAPTURES.into(), captures.into());
    }
}

/// Removes the stage `name` (an `exclude`), pointing its readers at its inputs.
fn pass_by(stages: &mut toml::Table, name: &str) {
    let stage = stages
        .remove(name)
        .unwrap_or(toml::Value::Table(Default::default()));
    let from = stage
        .get("inputs")
        .cloned()
        .unwrap_or(toml::Value::Array(vec![]));
    rewire(stages, name, &from);
}

fn table_of<'a>(stages: &'a mut toml::Table, name: &str) -> Result<&'a mut toml::Table, String> {
    stages
        .get_mut(name)
        .and_then(toml::Value::as_table_mut)
        .ok_or_else(|| format!("stage `{name}` is not a table"))
}

/// The Archive's options of the pinned pipeline (a `wayback-cdx` stage's
/// `archive` table, the one the fetch stages share), with the flags given.
fn shared_archive(stages: &toml::Table, flags: &ArchiveFlags) -> toml::Table {
    let mut table = stages
        .values()
        .filter(|s| s.get("kind").and_then(toml::Value::as_str) == Some("wayback-cdx"))
        .find_map(|s| s.get("archive").and_then(toml::Value::as_table))
        .cloned()
        .unwrap_or_default();
    if let Some(endpoint) = &flags.endpoint {
        table.insert("endpoint".into(), endpoint.clone().into());
    }
    if let Some(contact) = &flags.contact {
        table.insert("contact".into(), contact.clone().into());
    }
    if let Some(rate) = flags.playback_rate {
        table.insert("playback_rate".into(), rate.into());
    }
    table
}

/// Points every stage that read `from` (its default port) at `to` instead.
fn rewire(stages: &mut toml::Table, from: &str, to: &toml::Value) {
    let to: Vec<toml::Value> = to.as_array().cloned().unwrap_or_default();
    for (name, stage) in stages.iter_mut() {
        if name == CHECK {
            continue;
        }
        let Some(inputs) = stage.get_mut("inputs").and_then(toml::Value::as_array_mut) else {
            continue;
        };
        if inputs.iter().any(|i| i.as_str() == Some(from)) {
            let mut rewired = Vec::new();
            for input in inputs.drain(..) {
                if input.as_str() == Some(from) {
                    rewired.extend(to.iter().cloned());
                } else {
                    rewired.push(input);
                }
            }
            *inputs = rewired;
        }
    }
}

/// The page requests a minute `file`'s fetch stages are given, when given.
pub fn playback_rate(file: &PipelineFile) -> Option<f64> {
    let stages = file.table.get("stages").and_then(toml::Value::as_table)?;
    stages.values().find_map(|s| {
        (s.get("kind")?.as_str()? == "wayback-fetch")
            .then(|| {
                let rate = s.get("archive")?.get("playback_rate")?;
                rate.as_float()
                    .or_else(|| rate.as_integer().map(|i| i as f64))
            })
            .flatten()
    })
}
