//! The pipeline that rebuilds a set from its manifest: the pinned pipeline with
//! every stage that needs what the manifest stands for replaced, as its kind
//! declares (`InRebuild`):
//!
//! - The listing (`wayback-cdx`, `prefetch`: `Lists`) gives way to `manifest-captures`:
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

use tempora_engine::{InRebuild, PipelineFile, Registry};

use crate::inputs::{inputs_folder, ManifestInputs};

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
/// What each stage becomes is what its kind in `registry` declares.
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
    registry: &Registry,
) -> Result<PipelineFile, String> {
    let mut table: toml::Table = toml::Table::try_from(&inputs.config)
        .map_err(|e| format!("the pinned pipeline (`config`) is not a pipeline table: {e}"))?;
    if let Some(pipeline) = table
        .get_mut("pipeline")
        .and_then(toml::Value::as_table_mut)
    {
        pipeline.insert("out".into(), out.display().to_string().into());
        // The rebuild makes the articles of the manifest it is given, whole:
        // which part was held back (and the key that chose it) is the
        // original's, and a monthly release's folder is the original's too.
        pipeline.remove("release");
    }
    let stages = table
        .get_mut("stages")
        .and_then(toml::Value::as_table_mut)
        .ok_or("the pinned pipeline has no stages")?;
    let names = stage_roles(stages, registry);
    if let Some((name, _)) = names.iter().find(|(_, r)| *r == InRebuild::Discovers) {
        return Err(format!(
            "stage `{name}` discovers articles through feeds: a rebuild fetches the manifest's \
             captures of pipelines that list them with `wayback-cdx`"
        ));
    }
    let replacements = Replacements {
        fetch_kind: registry
            .kinds()
            .iter()
            .find(|k| k.in_rebuild == InRebuild::Fetches)
            .map(|k| k.name),
        manifest_path: manifest.display().to_string().into(),
        facts_path: inputs
            .facts
            .as_ref()
            .map(|f| inputs_folder(manifest).join(f).display().to_string()),
        archive: shared_archive(stages, &names, archive),
        facts_sources: facts_sources(stages),
    };
    let mut fetched = false;
    for (name, role) in &names {
        fetched |= replacements.replace(stages, name, *role)?;
    }
    if !fetched {
        return Err("the pinned pipeline fetches no pages (no `wayback-fetch` stage)".into());
    }
    replacements.add_captures(stages);
    let text = toml::to_string(&table).map_err(|e| format!("the rebuild pipeline: {e}"))?;
    let mut file = PipelineFile::parse(&format!("{} (rebuild)", inputs.pipeline), &text, overrides)
        .map_err(|e| e.to_string())?;
    // The lines of a document written here are no user's: a problem is named by
    // its key path, and by the `--set` that gave it.
    file.lines = Default::default();
    Ok(file)
}

/// Each stage's name and what its kind becomes in a rebuild, in file order (a
/// stage of no known kind runs as it is: planning names its problem).
fn stage_roles(stages: &toml::Table, registry: &Registry) -> Vec<(String, InRebuild)> {
    let role_of = |t: &toml::Value| {
        t.get("kind")
            .and_then(toml::Value::as_str)
            .and_then(|k| registry.get(k))
            .map_or(InRebuild::Runs, |k| k.in_rebuild)
    };
    stages
        .iter()
        .map(|(name, t)| (name.clone(), role_of(t)))
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
    /// The kind that fetches captures, for a stage that read kept pages.
    fetch_kind: Option<&'static str>,
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
    /// Replaces, rewires or drops the stage `name`, whose kind becomes `role`
    /// in a rebuild; tells whether it is a fetch stage.
    ///
    /// # Errors
    /// A stage that is not a table where one is changed, or a source of facts
    /// the manifest cannot stand for.
    fn replace(
        &self,
        stages: &mut toml::Table,
        name: &str,
        role: InRebuild,
    ) -> Result<bool, String> {
        match role {
            InRebuild::Lists => {
                stages.remove(name);
            }
            InRebuild::Fetches => {
                let stage = table_of(stages, name)?;
                stage.insert("inputs".into(), vec![CAPTURES.to_string()].into());
                stage.insert("archive".into(), self.archive.clone().into());
                return Ok(true);
            }
            InRebuild::ReadsKept => {
                let Some(kind) = self.fetch_kind else {
                    return Err(format!(
                        "stage `{name}` reads kept pages, and no stage kind fetches captures"
                    ));
                };
                let mut fetch = toml::Table::new();
                fetch.insert("kind".into(), kind.into());
                fetch.insert("inputs".into(), vec![CAPTURES.to_string()].into());
                fetch.insert("archive".into(), self.archive.clone().into());
                stages.insert(name.to_string(), fetch.into());
                return Ok(true);
            }
            InRebuild::PassedBy => pass_by(stages, name),
            InRebuild::Scores => {
                let stage = table_of(stages, name)?;
                stage.insert("kind".into(), "manifest-novelty".into());
                stage.insert("manifest".into(), self.manifest_path.clone());
            }
            InRebuild::Reads => self.check_after(stages, name),
            _ if self.facts_sources.iter().any(|s| s == name) => {
                self.read_facts_file(stages, name)?;
            }
            InRebuild::ReadsFacts => {
                return Err(format!(
                    "stage `{name}` reads a Wikidata dump, and the manifest has no facts file \
                     of its own (a pipeline with one source of facts has)"
                ))
            }
            InRebuild::Runs | InRebuild::Discovers => {}
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

/// The Archive's options of the pinned pipeline (the listing stage's `archive`
/// table, the one the fetch stages share), with the flags given.
fn shared_archive(
    stages: &toml::Table,
    roles: &[(String, InRebuild)],
    flags: &ArchiveFlags,
) -> toml::Table {
    let mut table = roles
        .iter()
        .filter(|(_, role)| *role == InRebuild::Lists)
        .filter_map(|(name, _)| stages.get(name))
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
pub fn playback_rate(file: &PipelineFile, registry: &Registry) -> Option<f64> {
    let stages = file.table.get("stages").and_then(toml::Value::as_table)?;
    let fetches = |kind: &str| registry.get(kind).map(|k| k.in_rebuild) == Some(InRebuild::Fetches);
    stages.values().find_map(|s| {
        fetches(s.get("kind")?.as_str()?)
            .then(|| {
                let rate = s.get("archive")?.get("playback_rate")?;
                rate.as_float()
                    .or_else(|| rate.as_integer().map(|i| i as f64))
            })
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's test kinds under names no code knows, each declaring what it
    /// becomes in a rebuild.
    fn registry() -> Registry {
        let kind = |from: &str, name: &'static str, in_rebuild: InRebuild| {
            let mut kind = tempora_engine::test_kinds()
                .into_iter()
                .find(|k| k.name == from)
                .unwrap();
            kind.name = name;
            kind.in_rebuild = in_rebuild;
            kind
        };
        Registry::new([
            kind("test-generate", "my-lister", InRebuild::Lists),
            kind("test-pass", "my-fetcher", InRebuild::Fetches),
            kind("test-pass", "my-filter", InRebuild::PassedBy),
            kind("test-count", "my-sink", InRebuild::Runs),
            kind("test-generate", "my-kept-pages", InRebuild::ReadsKept),
        ])
    }

    #[test]
    fn each_stage_becomes_what_its_kind_declares_whatever_its_name() {
        let run = serde_json::json!({
            "pipeline": "p",
            "config": {
                "pipeline": { "cutoff": "2019-12-31" },
                "stages": {
                    "listing": { "kind": "my-lister", "count": 1,
                                 "archive": { "endpoint": "http://127.0.0.1:1" } },
                    "pages": { "kind": "my-fetcher", "inputs": ["listing"] },
                    "kept": { "kind": "my-filter", "inputs": ["pages"] },
                    "write": { "kind": "my-sink", "inputs": ["kept"] },
                },
            },
        });
        let inputs = ManifestInputs::of_run(&run, Default::default(), false);
        let flags = ArchiveFlags {
            playback_rate: Some(12.0),
            ..ArchiveFlags::default()
        };
        let file = rebuild_pipeline(
            Path::new("/m/manifest.jsonl"),
            &inputs,
            Path::new("/out"),
            &flags,
            &[],
            &registry(),
        )
        .unwrap();
        let stages = file.table["stages"].as_table().unwrap();
        let names: Vec<&str> = stages.keys().map(String::as_str).collect();
        assert_eq!(names, ["pages", "write", CAPTURES], "{stages:#?}");
        // The fetcher reads the manifest's captures with the lister's Archive
        // options and the rebuild's rate; the filter is passed by.
        let pages = &stages["pages"];
        assert_eq!(
            pages["inputs"].as_array().unwrap()[0].as_str(),
            Some(CAPTURES)
        );
        assert_eq!(
            pages["archive"]["endpoint"].as_str(),
            Some("http://127.0.0.1:1")
        );
        assert_eq!(pages["archive"]["playback_rate"].as_float(), Some(12.0));
        assert_eq!(
            stages["write"]["inputs"].as_array().unwrap()[0].as_str(),
            Some("pages")
        );
        assert_eq!(playback_rate(&file, &registry()), Some(12.0));
        // Under the shipped names, the same pipeline is not rebuilt: no kind of
        // the registry fetches.
        let shipped = Registry::new(tempora_engine::test_kinds());
        let refused = rebuild_pipeline(
            Path::new("/m/manifest.jsonl"),
            &inputs,
            Path::new("/out"),
            &flags,
            &[],
            &shipped,
        );
        assert!(refused.unwrap_err().contains("fetches no pages"));
    }

    /// A source of pages kept by an earlier crawl (WARC files the receiver of a
    /// manifest lacks) becomes a fetch of the manifest's captures, of the kind
    /// that declares it fetches, with the rebuild's Archive options.
    #[test]
    fn kept_pages_are_fetched_again_in_a_rebuild() {
        let run = serde_json::json!({
            "pipeline": "p",
            "config": {
                "pipeline": { "cutoff": "2019-12-31" },
                "stages": {
                    "pages": { "kind": "my-kept-pages", "count": 1 },
                    "write": { "kind": "my-sink", "inputs": ["pages"] },
                },
            },
        });
        let inputs = ManifestInputs::of_run(&run, Default::default(), false);
        let flags = ArchiveFlags {
            contact: Some("me@example.org".into()),
            ..ArchiveFlags::default()
        };
        let file = rebuild_pipeline(
            Path::new("/m/manifest.jsonl"),
            &inputs,
            Path::new("/out"),
            &flags,
            &[],
            &registry(),
        )
        .unwrap();
        let stages = file.table["stages"].as_table().unwrap();
        let pages = &stages["pages"];
        assert_eq!(pages["kind"].as_str(), Some("my-fetcher"), "{stages:#?}");
        assert!(pages.get("count").is_none());
        assert_eq!(
            pages["inputs"].as_array().unwrap()[0].as_str(),
            Some(CAPTURES)
        );
        assert_eq!(pages["archive"]["contact"].as_str(), Some("me@example.org"));
        assert!(stages.contains_key(CAPTURES));
    }
}
