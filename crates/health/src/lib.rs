//! Refreshes that check themselves: each run of an incremental pipeline is
//! compared with the runs before it, recorded in its output folder
//! (`runs/<run>/run.json`), so a nightly set no one watches still says when a
//! site changed its layout or the Archive stopped capturing a section.
//!
//! - [`figures`]: what a run counted, read from its `run.json` (articles kept per
//!   site and section, captures listed per URL pattern, pages rejected per reason,
//!   summaries per source, pages failed, page requests per kept article).
//! - [`check`]: the comparison. Counts are taken per day of the Archive's time a
//!   run covered (its listing's newest capture less the run before's), so a
//!   retry an hour after the night's run, a night cron missed, or a day the
//!   Archive indexed late is no finding; a count is one when it falls below a
//!   `factor` of what the earlier runs give and further than chance explains; a
//!   share when it moves more than `share_change` and further than chance.
//! - [`settings`]: the `pipeline.health` table.
//!
//! The binary runs [`check_run`] through the engine's `RunOptions::review`,
//! prints [`Health::lines`] in the run's summary, and exits 24 on a `warn`.

pub mod check;
pub mod figures;
pub mod settings;

use std::path::Path;

use serde_json::Value;

pub use check::{Finding, Health, Status};
pub use figures::RunFigures;
pub use settings::HealthSettings;

/// Checks the completed run `run` (its report as JSON) against the earlier
/// completed runs recorded under `out/runs/`. `rebuild`: the run makes the whole
/// set anew (`--rebuild`): not checked, and no later run compares with it.
pub fn check_run(run: &Value, out: &Path, settings: &HealthSettings, rebuild: bool) -> Health {
    let this = RunFigures::of_run(run);
    let kept = this.counts.get(figures::KEPT).copied().unwrap_or(0);
    if rebuild {
        return Health::not_checked("a --rebuild run makes the whole set anew", kept);
    }
    if !settings.enabled {
        return Health {
            baseline: true,
            ..Health::not_checked("`[pipeline.health] enabled = false`", kept)
        };
    }
    let earlier = earlier_runs(out, &this.run, settings.runs + 1);
    check::compare(&this, &earlier, settings)
}

/// The figures of the last `n` completed runs before `this` under `out/runs/`,
/// oldest first (a `run.json` that cannot be read is passed over).
pub fn earlier_runs(out: &Path, this: &str, n: usize) -> Vec<RunFigures> {
    let mut names: Vec<String> = std::fs::read_dir(out.join("runs"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.as_str() < this)
        .collect();
    names.sort();
    let mut runs = Vec::new();
    for name in names.iter().rev() {
        if runs.len() == n {
            break;
        }
        let path = out.join("runs").join(name).join("run.json");
        let Some(run) = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        else {
            continue;
        };
        if run["status"] == "completed" {
            runs.push(RunFigures::of_run(&run));
        }
    }
    runs.reverse();
    runs
}
