//! What built an incremental pipeline's output folder, so a run that would
//! build its records differently is refused before it adds to them.
//!
//! An incremental folder accumulates: each night adds what is new, and the
//! records of earlier nights stay as those nights made them. A night run with
//! another cutoff, other sets, filters, site profiles or exclusion lists would
//! add records made one way to records made another, and nothing would say so.
//! So every publication of an incremental pipeline records a fingerprint of what
//! decides its records ([`FINGERPRINT`]): the cutoff, the sets, every stage's
//! options but those that only change how a stage works
//! ([`StageConfig::operational`](crate::StageConfig::operational)), what else a stage declares
//! ([`StageConfig::fingerprint`](crate::StageConfig::fingerprint): a built-in site profile), and the input files
//! (SHA-256, or size and time for files too large to hash). The next night
//! compares its own and lists each difference.

use std::collections::BTreeMap;
use std::path::Path;

use crate::input_files::{self, InputFile};
use crate::plan::Plan;

/// The fingerprint's name in the output directory.
pub const FINGERPRINT: &str = ".tempora-fingerprint.json";

/// What decides a pipeline's records, setting by setting (key path: value).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint(pub BTreeMap<String, String>);

impl Fingerprint {
    /// The fingerprint of `plan` (before its stages are built), whose input files
    /// are `inputs` (as [`input_files::describe`] gives them: `run.json` records
    /// the same, without reading them again).
    pub fn of(plan: &Plan, inputs: &[InputFile]) -> Self {
        let mut settings = BTreeMap::new();
        settings.insert(
            "pipeline.cutoff".to_string(),
            plan.context.cutoff.to_string(),
        );
        for window in plan.context.windows.windows() {
            settings.insert(format!("pipeline.sets.{}", window.name), window.to_string());
        }
        let stages = plan.resolved.get("stages").and_then(toml::Value::as_table);
        for stage in &plan.stages {
            let config = &stage.config;
            let operational = config.operational();
            let table = stages
                .and_then(|t| t.get(&stage.name))
                .and_then(toml::Value::as_table);
            for (key, value) in table.into_iter().flatten() {
                if !operational.contains(&key.as_str()) {
                    settings.insert(format!("stages.{}.{key}", stage.name), value.to_string());
                }
            }
            for (key, value) in config.fingerprint() {
                settings.insert(format!("stages.{}.{key}", stage.name), value);
            }
        }
        for file in inputs {
            settings.insert(
                format!("stages.{}.{} file {}", file.stage, file.option, file.path),
                identity(file),
            );
        }
        Self(settings)
    }

    /// The fingerprint recorded in `out`, if any.
    ///
    /// # Errors
    /// When the file is there but cannot be read as one.
    pub fn recorded(out: &Path) -> Result<Option<Self>, String> {
        let path = out.join(FINGERPRINT);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Each setting that differs from `before`: `key: was X, now Y`.
    pub fn changes_since(&self, before: &Self) -> Vec<String> {
        let keys: std::collections::BTreeSet<&String> =
            self.0.keys().chain(before.0.keys()).collect();
        keys.into_iter()
            .filter_map(|key| {
                let (was, now) = (before.0.get(key), self.0.get(key));
                (was != now).then(|| {
                    let shown =
                        |v: Option<&String>| v.map_or("(not set)".to_string(), Clone::clone);
                    format!("{key}: was {}, now {}", shown(was), shown(now))
                })
            })
            .collect()
    }

    /// The fingerprint as its file holds it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The SHA-256 of `bytes`, lowercase hex, as a fingerprint shows a text a stage
/// decides by (a built-in site profile).
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    input_files::lower_hex(&sha2::Sha256::digest(bytes))
}

/// What identifies an input file's contents.
fn identity(file: &InputFile) -> String {
    match (&file.sha256, file.bytes, &file.modified) {
        (Some(hash), _, _) => format!("sha256 {hash}"),
        (None, Some(bytes), Some(modified)) => format!("{bytes} bytes, modified {modified}"),
        _ => file.error.clone().unwrap_or_else(|| "unknown".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print(pairs: &[(&str, &str)]) -> Fingerprint {
        Fingerprint(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn each_change_is_named_with_both_values() {
        let before = print(&[("pipeline.cutoff", "2019-12-31"), ("stages.a.x", "1")]);
        let now = print(&[("pipeline.cutoff", "2020-12-31"), ("stages.b.y", "2")]);
        assert_eq!(
            now.changes_since(&before),
            [
                "pipeline.cutoff: was 2019-12-31, now 2020-12-31",
                "stages.a.x: was 1, now (not set)",
                "stages.b.y: was (not set), now 2",
            ]
        );
        assert!(now.changes_since(&now).is_empty());
    }

    #[test]
    fn a_recorded_fingerprint_reads_back_and_a_broken_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Fingerprint::recorded(dir.path()).unwrap(), None);
        let print = print(&[("pipeline.cutoff", "2019-12-31")]);
        std::fs::write(dir.path().join(FINGERPRINT), print.to_json()).unwrap();
        assert_eq!(Fingerprint::recorded(dir.path()).unwrap(), Some(print));
        std::fs::write(dir.path().join(FINGERPRINT), "{").unwrap();
        let err = Fingerprint::recorded(dir.path()).unwrap_err();
        assert!(err.contains(FINGERPRINT), "{err}");
    }
}
