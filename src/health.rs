//! A refresh's check of itself (`tempora_health`), wired into `tempora run`: its
//! `[pipeline.health]` table read with the file's other problems, the check run
//! on a completed incremental run before `run.json` is written, and its lines in
//! the summary.

use std::sync::Arc;

use tempora_engine::{ConfigError, PipelineFile, Review, RunReport};
use tempora_health::{Health, HealthSettings};

/// The file's `[pipeline.health]` settings; a problem with them is added to the
/// file's problems (the plan reports it with the rest, at its line) and the
/// defaults stand in.
pub fn settings(file: &mut PipelineFile) -> HealthSettings {
    let table = file
        .table
        .get("pipeline")
        .and_then(|p| p.get("health"))
        .map(|h| h.as_table().cloned().ok_or(()));
    let table = match table {
        None => None,
        Some(Ok(table)) => Some(table),
        Some(Err(())) => {
            file.problems.push(ConfigError::pipeline(
                "health",
                "must be a table: `[pipeline.health]` with `runs`, `min_runs`, `factor`, `share_change`, `sigmas`, `enabled`",
            ));
            return HealthSettings::default();
        }
    };
    HealthSettings::from_table(table.as_ref()).unwrap_or_else(|problems| {
        for (key, message) in problems {
            let key = key.map_or_else(|| "health".to_string(), |k| format!("health.{k}"));
            file.problems.push(ConfigError::pipeline(&key, message));
        }
        HealthSettings::default()
    })
}

/// The check the runtime runs on a completed incremental run.
pub fn review(settings: HealthSettings, rebuild: bool) -> Review {
    Review(Arc::new(
        move |report: &RunReport, out: &std::path::Path| {
            let run = serde_json::to_value(report).unwrap_or_default();
            let health = tempora_health::check_run(&run, out, &settings, rebuild);
            serde_json::to_value(health).unwrap_or_default()
        },
    ))
}

/// The check recorded in `report`, if the run was checked.
pub fn of(report: &RunReport) -> Option<Health> {
    serde_json::from_value(report.health.clone()?).ok()
}
