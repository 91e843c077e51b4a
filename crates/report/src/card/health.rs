//! The card's "Refresh health" section, for an incremental pipeline's folder:
//! the latest run's check against the runs before it (`run.json`'s `health`),
//! its findings, and the articles each recent run kept, as a bar chart in text
//! (it reads the same on the Hub, in a terminal and in a diff).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::layout::RunJson;
use crate::markdown::{cell, code};

/// Runs the chart shows, the latest last.
const CHART_RUNS: usize = 30;
/// Width of the longest bar.
const BAR: f64 = 40.0;

pub(super) fn render(md: &mut String, dir: &Path, run: &RunJson) {
    let Some(health) = run.value.get("health").filter(|h| h.is_object()) else {
        return;
    };
    let _ = writeln!(md, "## Refresh health\n");
    let status = health["status"].as_str().unwrap_or("ok");
    let compared = health["compared_with"].as_u64().unwrap_or(0);
    let _ = write!(
        md,
        "The latest run ({}) was checked against the {compared} completed runs before it: **{status}**",
        code(run.text("/run").unwrap_or("?"))
    );
    match health["note"].as_str() {
        Some(note) => {
            let _ = writeln!(md, " ({}).\n", cell(note));
        }
        None => {
            let _ = writeln!(md, ".\n");
        }
    }
    let findings = health["findings"].as_array().map_or(&[][..], Vec::as_slice);
    if findings.is_empty() {
        let _ = writeln!(md, "No figure was far outside the earlier runs' range.\n");
    } else {
        let _ = writeln!(
            md,
            "| Figure | This run against the runs before | Why it matters |\n|---|---|---|"
        );
        for f in findings {
            let text = |key: &str| cell(f[key].as_str().unwrap_or_default());
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                text("figure"),
                text("numbers"),
                text("why")
            );
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(
        md,
        "How far a figure may move is set in `[pipeline.health]`; every run's check is its \
         `runs/<run>/run.json`'s `health`.\n\nArticles kept per run (`!`: the run's check warned):\n"
    );
    let _ = writeln!(md, "```text\n{}```\n", chart(&recent_runs(dir, run)));
}

/// `(run, kept articles, warned)` of the last runs that completed, oldest first.
fn recent_runs(dir: &Path, latest: &RunJson) -> Vec<(String, u64, bool)> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("runs"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut runs: Vec<(String, u64, bool)> = names
        .iter()
        .rev()
        .filter_map(|name| {
            let bytes = std::fs::read(dir.join("runs").join(name).join("run.json")).ok()?;
            let run: Value = serde_json::from_slice(&bytes).ok()?;
            (run["status"] == "completed").then(|| of(name, &run))
        })
        .take(CHART_RUNS)
        .collect();
    runs.reverse();
    if runs.is_empty() {
        let name = latest.text("/run").unwrap_or("latest");
        runs.push(of(name, &latest.value));
    }
    runs
}

fn of(name: &str, run: &Value) -> (String, u64, bool) {
    let kept = run["cost"]["kept_articles"].as_u64().unwrap_or(0);
    (name.to_string(), kept, run["health"]["status"] == "warn")
}

fn chart(runs: &[(String, u64, bool)]) -> String {
    let most = runs.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    let width = runs.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (name, kept, warned) in runs {
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let bar = ((*kept as f64 / most as f64) * BAR).round() as usize;
        let mark = if *warned { "!" } else { " " };
        let _ = writeln!(
            out,
            "{name:<width$} {mark} {:<bar_width$} {kept}",
            "#".repeat(bar),
            bar_width = BAR as usize
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_busiest_run_and_mark_warnings() {
        let text = chart(&[
            ("a".into(), 200, false),
            ("b".into(), 50, true),
            ("c".into(), 0, false),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0].matches('#').count(), 40);
        assert_eq!(lines[1].matches('#').count(), 10);
        assert!(lines[1].starts_with("b !"), "{text}");
        assert!(
            lines[2].ends_with(" 0") && !lines[2].contains('#'),
            "{text}"
        );
    }
}
