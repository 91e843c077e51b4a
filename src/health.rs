//! A refresh's check of itself (`tempora_health`), wired into `tempora run`: its
//! `[pipeline.health]` table read with the file's other problems, the check run
//! on a completed incremental run before `run.json` is written, and its lines in
//! the summary.

use std::sync::Arc;

use tempora_engine::{ConfigError, PipelineFile, Review, RunReport, Verdict};
use tempora_health::{Health, HealthSettings};

/// The file's `[pipeline.health]` settings, `None` without the table; a problem
/// with them is added to the file's problems (the plan reports it with the
/// rest, at its key's line) and the defaults stand in.
pub fn settings(file: &mut PipelineFile) -> Option<HealthSettings> {
    let table = file.table.get("pipeline").and_then(|p| p.get("health"))?;
    Some(read_settings(file, table.clone()))
}

fn read_settings(file: &mut PipelineFile, table: toml::Value) -> HealthSettings {
    let mut problem = |key: Option<&str>, message: String| {
        let key = key.map_or_else(|| "health".to_string(), |k| format!("health.{k}"));
        file.problems.push(ConfigError::pipeline(&key, message));
    };
    let Some(table) = table.as_table().cloned() else {
        problem(None, "must be a table: `[pipeline.health]` with `runs`, `min_runs`, `factor`, `share_change`, `sigmas`, `enabled`".into());
        return HealthSettings::default();
    };
    let settings: HealthSettings = match tempora_engine::parse_options(table) {
        Ok(settings) => settings,
        Err(errors) => {
            for e in errors {
                problem(e.key.as_deref().filter(|k| !k.is_empty()), e.message);
            }
            return HealthSettings::default();
        }
    };
    let problems = settings.problems();
    if problems.is_empty() {
        return settings;
    }
    for (key, message) in problems {
        problem(Some(key), message);
    }
    HealthSettings::default()
}

/// The check the runtime runs on a completed run of `plan`: every run of an
/// incremental pipeline, and of a pipeline that makes its outputs anew when it
/// has a `[pipeline.health]` table (`settings`; the runtime then keeps each
/// run's `run.json` under `runs/<run>/` to compare the next with). `None`: no
/// check.
pub fn review_of(
    plan: &tempora_engine::Plan,
    settings: Option<&HealthSettings>,
    rebuild: bool,
) -> Option<Review> {
    let incremental = plan.incremental_stage().is_some();
    (incremental || settings.is_some())
        .then(|| review(settings.cloned().unwrap_or_default(), rebuild))
}

/// The check of a completed run against the runs before it.
fn review(settings: HealthSettings, rebuild: bool) -> Review {
    Review(Arc::new(
        move |report: &RunReport, out: &std::path::Path| -> Arc<dyn Verdict> {
            // The health crate reads runs as `run.json` reads (see its docs).
            let run = serde_json::to_value(report).unwrap_or_default();
            Arc::new(Checked(tempora_health::check_run(
                &run, out, &settings, rebuild,
            )))
        },
    ))
}

/// The check's verdict as the engine keeps it.
#[derive(Debug)]
struct Checked(Health);

impl Verdict for Checked {
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.0)
            .unwrap_or_else(|e| format!("the verdict cannot be written: {e}").into())
    }
}

/// The check recorded in `report`, if the run was checked.
pub fn of(report: &RunReport) -> Option<&Health> {
    let verdict: &dyn std::any::Any = report.health.as_deref()?;
    verdict.downcast_ref::<Checked>().map(|c| &c.0)
}
