//! A set's scores (`tempora score`), when its folder has them: the table per
//! system and set, and a chart per system in the style of TempoSum's Figure 2.

use std::fmt::Write as _;
use std::path::Path;

use tempora_score::job::{SCORES_DIR, SUMMARY_JSON};
use tempora_score::tables::{markdown, Summary};

use crate::charts::Bars;
use crate::error::ReportError;

/// Reads `DIR/scores/summary.json`, if present.
///
/// # Errors
/// The file exists but cannot be read or is not a scores summary.
pub fn read(dir: &Path) -> Result<Option<Summary>, ReportError> {
    let path = dir.join(SCORES_DIR).join(SUMMARY_JSON);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReportError::io(&path)(e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ReportError::Io {
            path,
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })
}

/// One chart per system: per set (not `all`), the share of its summaries with an
/// outdated claim and with a claim the facts say was never true.
pub fn charts(summary: &Summary) -> Vec<Bars> {
    let mut systems: Vec<&str> = summary.rows.iter().map(|r| r.system.as_str()).collect();
    systems.dedup();
    systems
        .into_iter()
        .map(|system| {
            let rows: Vec<_> = summary
                .rows
                .iter()
                .filter(|r| r.system == system && (r.set != "all" || only_all(summary, system)))
                .collect();
            Bars {
                name: format!("scores_{}", file_stem(system)),
                title: format!("{system}: summaries with an outdated or never-true claim"),
                y_label: "share of the system's summaries".into(),
                groups: rows.iter().map(|r| r.set.clone()).collect(),
                series: vec![
                    (
                        "outdated".into(),
                        rows.iter().map(|r| r.outdated_rate).collect(),
                    ),
                    ("never".into(), rows.iter().map(|r| r.never_rate).collect()),
                ],
            }
        })
        .collect()
}

fn only_all(summary: &Summary, system: &str) -> bool {
    summary
        .rows
        .iter()
        .filter(|r| r.system == system)
        .all(|r| r.set == "all")
}

/// A system name as a file name: ASCII letters, digits, `-` and `_`.
fn file_stem(system: &str) -> String {
    system
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The report's section: the table, then the charts (`charts` relative paths).
pub fn section(md: &mut String, summary: &Summary, charts: &[String], heading: &str) {
    let _ = write!(
        md,
        "{heading} Scores: outdated claims per system

Every office-holder claim of each system's summaries judged at its article's date \
against the facts ({}, {} facts) by `tempora score`. The outdated rate is the share \
of summaries with at least one claim of an office held only before that date \
(TempoSum's Figure 2); `reference` is the set's own summaries.

",
        summary.facts, summary.facts_read
    );
    md.push_str(&markdown(&summary.rows));
    md.push('\n');
    for chart in charts
        .iter()
        .filter(|c| c.ends_with(".svg") && c.contains("/scores_"))
    {
        let _ = writeln!(md, "![{chart}]({chart})\n");
    }
    let unmatched: u64 = summary.unmatched.iter().map(|u| u.count).sum();
    if unmatched > 0 {
        let _ = writeln!(
            md,
            "{unmatched} predictions named an id the set does not hold and were not scored (listed in `scores/summary.json`).\n"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempora_score::tables::Row;

    fn row(system: &str, set: &str, outdated: f64) -> Row {
        Row {
            system: system.into(),
            set: set.into(),
            summaries: 4,
            with_claim: 2,
            claims: 3,
            verdicts: Default::default(),
            outdated_rate: outdated,
            never_rate: 0.0,
            current_share: 0.5,
        }
    }

    #[test]
    fn a_chart_per_system_with_a_bar_group_per_set() {
        let summary = Summary {
            facts: "facts.jsonl".into(),
            facts_sha256: "ab".into(),
            facts_read: 14,
            rows: vec![
                row("reference", "future", 0.0),
                row("bart/x", "future", 0.5),
                row("bart/x", "in_distribution", 0.25),
                row("bart/x", "all", 0.4),
                row("t5", "all", 0.1),
            ],
            unmatched: Vec::new(),
        };
        let charts = charts(&summary);
        let names: Vec<&str> = charts.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["scores_reference", "scores_bart_x", "scores_t5"]);
        assert_eq!(charts[1].groups, ["future", "in_distribution"]);
        assert_eq!(charts[1].series[0].1, [0.5, 0.25]);
        assert_eq!(charts[2].groups, ["all"], "a system scored without sets");
        let mut md = String::new();
        section(&mut md, &summary, &["charts/scores_t5.svg".into()], "##");
        assert!(
            md.contains("| bart/x | future | 4 | 2 | 3 | 50.0 % |"),
            "{md}"
        );
        assert!(
            md.contains("![charts/scores_t5.svg](charts/scores_t5.svg)"),
            "{md}"
        );
    }
}
