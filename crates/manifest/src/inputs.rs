//! What a manifest pins besides its rows (`manifest.inputs.json`): the pipeline
//! as it ran, the Tempora that ran it, and what its stages read (input files
//! with their SHA-256, the built-in site profiles' digests). The rebuild runs
//! the pinned pipeline; the card of a rebuilt set describes the original build.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The manifest's rows, in the output folder.
pub const MANIFEST_FILE: &str = "manifest.jsonl";
/// The evolving facts the run matched articles with.
pub const FACTS_FILE: &str = "manifest.facts.jsonl";
/// This file.
pub const INPUTS_FILE: &str = "manifest.inputs.json";
/// The manifest's schema: rows of [`tempora_records::ManifestEntry`] and this file.
pub const SCHEMA: &str = "tempora-manifest/1";

/// The Tempora that wrote a manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Built {
    /// Version.
    pub version: String,
    /// Git commit (`unknown` when not built from a checkout).
    pub commit: String,
    /// Whether the checkout had uncommitted changes.
    pub dirty: Option<bool>,
}

/// `manifest.inputs.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestInputs {
    /// [`SCHEMA`].
    pub schema: String,
    /// The Tempora that ran.
    pub tempora: Built,
    /// The pipeline's name.
    pub pipeline: String,
    /// The pipeline as it ran (after `--set` and `${VAR}`), as `run.json` records it.
    pub config: Value,
    /// Its input files (path, size, time, SHA-256), as `run.json` records them.
    pub inputs: Value,
    /// What else its stages decide by: each built-in site profile's SHA-256.
    pub declared: BTreeMap<String, String>,
    /// The facts file beside the manifest, when the pipeline had facts.
    pub facts: Option<String>,
    /// The run day and the dates written relative to it, as written and as
    /// resolved, as `run.json` records them (`config` holds the resolved ones).
    /// Absent from the pins of a run that recorded none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dates: Option<Value>,
}

impl ManifestInputs {
    /// The pins of the run whose `run.json` is `run`; `declared` as the plan's
    /// stages declare it (see [`tempora_engine::StageConfig::fingerprint`]).
    /// The pipeline's `out` is left out: where a set was written is not what
    /// it is (a rebuild names its own folder).
    pub fn of_run(run: &Value, declared: BTreeMap<String, String>, facts: bool) -> Self {
        let mut config = run.get("config").cloned().unwrap_or(Value::Null);
        if let Some(pipeline) = config.get_mut("pipeline").and_then(Value::as_object_mut) {
            pipeline.remove("out");
        }
        let text = |key: &str| {
            run.get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        Self {
            schema: SCHEMA.into(),
            tempora: Built {
                version: text("version"),
                commit: text("commit"),
                dirty: run.get("dirty").and_then(Value::as_bool),
            },
            pipeline: text("pipeline"),
            config,
            inputs: run.get("inputs").cloned().unwrap_or(Value::Null),
            declared,
            facts: facts.then(|| FACTS_FILE.to_string()),
            dates: run.get("dates").cloned(),
        }
    }

    /// Writes the file into `out` (whole or not at all).
    ///
    /// # Errors
    /// When it cannot be written.
    pub fn write(&self, out: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        tempora_engine::atomic_file::AtomicFile::with_contents(
            &out.join(INPUTS_FILE),
            format!("{text}\n").as_bytes(),
        )?
        .commit()
    }

    /// Reads the pins beside the manifest at `manifest`.
    ///
    /// # Errors
    /// Missing or unreadable, not JSON, unknown or missing fields, another schema.
    pub fn beside(manifest: &Path) -> Result<Self, String> {
        let path = inputs_folder(manifest).join(INPUTS_FILE);
        let bytes = std::fs::read(&path).map_err(|e| {
            format!(
                "{}: {e} (a manifest is read with the `{INPUTS_FILE}` written beside it)",
                path.display()
            )
        })?;
        let value: Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let schema = value.get("schema").and_then(Value::as_str).unwrap_or("");
        if schema != SCHEMA {
            return Err(format!(
                "{}: field `schema` is `{schema}`: this Tempora reads `{SCHEMA}`",
                path.display()
            ));
        }
        serde_json::from_value(value).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The folder of a manifest's inputs (`manifest.inputs.json`,
/// `manifest.facts.jsonl`): the manifest's own, or, for the manifest of a
/// withheld part (`withheld/manifest.jsonl`), which has none beside it, the
/// output folder it is in.
pub fn inputs_folder(manifest: &Path) -> PathBuf {
    let own = manifest
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let withheld = own.file_name().is_some_and(|n| n == WITHHELD_DIR);
    match own.parent() {
        Some(output) if withheld && !own.join(INPUTS_FILE).exists() => output.to_path_buf(),
        _ => own,
    }
}

/// The folder of a withheld part, in an output folder.
const WITHHELD_DIR: &str = "withheld";

/// What the stages of `plan` declare they decide by besides their options (a
/// built-in site profile's SHA-256), by `stages.<name>.<key>`.
pub fn declared(plan: &tempora_engine::Plan) -> BTreeMap<String, String> {
    plan.stages
        .iter()
        .map(|s| (s, &s.config))
        .flat_map(|(s, config)| {
            config
                .fingerprint()
                .into_iter()
                .map(|(key, value)| (format!("stages.{}.{key}", s.name), value))
        })
        .collect()
}

impl ManifestInputs {
    /// What the stages declare now (`now`, as [`declared`] gives it) that differs
    /// from the pins, one line each: a site profile changed since the manifest
    /// was written reads some pages otherwise, and the rebuild names those.
    pub fn changed_since(&self, now: &BTreeMap<String, String>) -> Vec<String> {
        self.declared
            .iter()
            .filter_map(|(key, was)| {
                let is = now.get(key)?;
                (is != was).then(|| {
                    format!(
                        "{key} changed since the manifest was written (SHA-256 {} now {})",
                        &was[..was.len().min(12)],
                        &is[..is.len().min(12)]
                    )
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pins(run: Value) -> ManifestInputs {
        let declared = BTreeMap::from([(
            "stages.articles.profile bbc.toml".to_string(),
            "aaaa".to_string(),
        )]);
        ManifestInputs::of_run(&run, declared, true)
    }

    #[test]
    fn the_pins_leave_out_where_the_set_was_written_and_read_back_beside_the_rows() {
        let run = serde_json::json!({
            "pipeline": "p", "version": "0.1.0", "commit": "abc", "dirty": false,
            "config": {"pipeline": {"name": "p", "out": "/tmp/out"}, "stages": {}},
            "inputs": []
        });
        let pinned = pins(run);
        assert_eq!(pinned.config["pipeline"], serde_json::json!({"name": "p"}));
        // Pins written before the run recorded its dates are read as before.
        assert_eq!(pinned.dates, None);
        let text = serde_json::to_string(&pinned).unwrap();
        assert!(!text.contains("dates"), "{text}");
        let dir = tempfile::tempdir().unwrap();
        pinned.write(dir.path()).unwrap();
        let back = ManifestInputs::beside(&dir.path().join(MANIFEST_FILE)).unwrap();
        assert_eq!(back, pinned);
    }

    #[test]
    fn the_pins_record_the_dates_relative_to_the_run() {
        let dates = serde_json::json!({ "run_day": "2020-01-31", "relative": [
            { "key": "pipeline.cutoff", "written": "run_month - 1 day", "value": "2019-12-31" }
        ] });
        let run = serde_json::json!({ "config": {}, "dates": dates });
        let pinned = pins(run);
        assert_eq!(pinned.dates.as_ref(), Some(&dates));
        let dir = tempfile::tempdir().unwrap();
        pinned.write(dir.path()).unwrap();
        let back = ManifestInputs::beside(&dir.path().join(MANIFEST_FILE)).unwrap();
        assert_eq!(back.dates, Some(dates));
    }

    #[test]
    fn a_changed_profile_is_named_and_an_unchanged_one_is_not() {
        let pinned = pins(serde_json::json!({}));
        let key = "stages.articles.profile bbc.toml".to_string();
        let same = BTreeMap::from([(key.clone(), "aaaa".to_string())]);
        assert!(pinned.changed_since(&same).is_empty());
        let changed = BTreeMap::from([(key, "bbbb".to_string())]);
        let lines = pinned.changed_since(&changed);
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].contains("profile bbc.toml") && lines[0].contains("bbbb"),
            "{lines:?}"
        );
    }
}
