//! A set's scores (`tempora score`), when its folder has them and they are of its
//! files as they are now: the table per system and set, one chart with every
//! system (TempoSum's Figure 2: the outdated rate per set, side by side), and a
//! chart per system. Scores of files that changed since (a rerun with another
//! cutoff) are not shown: the section says why and how to score again.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use tempora_score::job::{SCORES_DIR, SUMMARY_JSON};
use tempora_score::tables::{markdown, markdown_by_relation, Summary, ALL_SETS};

use crate::charts::Bars;
use crate::error::ReportError;

/// The scores of a set folder: current, or of an earlier run of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Scores {
    /// `scores/summary.json`, whose set files and facts are the folder's.
    Current(Summary),
    /// Scores of files the folder no longer holds as they were.
    Stale(Stale),
}

/// Why a folder's scores are not shown, and how to score it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stale {
    /// Why (`future.jsonl` changed since they were scored).
    pub stale: String,
    /// The command that scores the folder again.
    pub score_again: String,
}

/// The file stem of the chart of every system.
pub const BY_SYSTEM: &str = "scores-by-system";

/// Removes the score charts `tempora report` drew in the set folder `dir`
/// (`charts/scores-by-system.*`, `charts/scores_*.*`): drawn from an earlier
/// scoring, the card would show them under the new scores' table. The next
/// `tempora report` draws them again.
///
/// # Errors
/// A chart that cannot be removed.
pub fn remove_charts(dir: &Path) -> std::io::Result<()> {
    let charts = dir.join(crate::CHARTS_DIR);
    let Ok(entries) = std::fs::read_dir(&charts) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry?.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if stem == BY_SYSTEM || stem.starts_with("scores_") {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// Reads `DIR/scores/summary.json`, if present, and checks it against the
/// folder's files.
///
/// # Errors
/// The file exists but cannot be read or is not a scores summary.
pub fn read(dir: &Path) -> Result<Option<Scores>, ReportError> {
    let path = dir.join(SCORES_DIR).join(SUMMARY_JSON);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReportError::io(&path)(e)),
    };
    let summary: Summary = serde_json::from_slice(&bytes).map_err(|e| ReportError::Io {
        path,
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    })?;
    Ok(Some(match summary.changed_in(dir) {
        None => Scores::Current(summary),
        Some(why) => Scores::Stale(Stale {
            stale: why,
            score_again: summary.score_again(),
        }),
    }))
}

/// The charts of current scores, the chart of every system first (none for
/// stale scores).
pub fn charts(scores: &Scores) -> Vec<Bars> {
    match scores {
        Scores::Current(summary) => std::iter::once(by_system(summary))
            .chain(per_system(summary))
            .collect(),
        Scores::Stale(_) => Vec::new(),
    }
}

/// TempoSum's Figure 2: a group per system (`reference` first), a bar per set
/// (`in_distribution` first), the share of the system's summaries in that set
/// with an outdated claim. A system with no summary in a set has 0 there, as
/// its rate in the table.
pub fn by_system(summary: &Summary) -> Bars {
    let mut systems: Vec<&str> = summary.rows.iter().map(|r| r.system.as_str()).collect();
    systems.dedup();
    let mut sets: Vec<&str> = summary
        .rows
        .iter()
        .map(|r| r.set.as_str())
        .filter(|s| *s != ALL_SETS)
        .collect();
    sets.sort_unstable_by_key(|s| (*s != "in_distribution", *s));
    sets.dedup();
    if sets.is_empty() {
        // Scores without sets: each system's whole.
        sets.push(ALL_SETS);
    }
    let rate = |system: &str, set: &str| {
        summary
            .rows
            .iter()
            .find(|r| r.system == system && r.set == set)
            .map_or(0.0, |r| r.outdated_rate)
    };
    Bars {
        name: BY_SYSTEM.into(),
        title: "Summaries with an outdated claim, per system and set".into(),
        y_label: "share of the system's summaries".into(),
        groups: systems.iter().map(|s| s.to_string()).collect(),
        series: sets
            .iter()
            .map(|set| {
                let rates = systems.iter().map(|system| rate(system, set)).collect();
                (set.to_string(), rates)
            })
            .collect(),
    }
}

/// One chart per system: per set (not `all`), the share of its summaries with an
/// outdated claim and with a claim the facts say was never true.
fn per_system(summary: &Summary) -> Vec<Bars> {
    let mut systems: Vec<&str> = summary.rows.iter().map(|r| r.system.as_str()).collect();
    systems.dedup();
    systems
        .into_iter()
        .map(|system| {
            let rows: Vec<_> = summary
                .rows
                .iter()
                .filter(|r| r.system == system && (r.set != ALL_SETS || only_all(summary, system)))
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
        .all(|r| r.set == ALL_SETS)
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

/// The report's section: the table, the chart of every system, then each
/// system's (`charts`: relative paths, of the charts drawn); for stale scores,
/// why they are not shown and the command to score again.
pub fn section(md: &mut String, scores: &Scores, charts: &[String], heading: &str) {
    let _ = write!(md, "{heading} Scores: outdated claims per system\n\n");
    let summary = match scores {
        Scores::Current(summary) => summary,
        Scores::Stale(stale) => {
            let _ = write!(
                md,
                "The scores in `{SCORES_DIR}/` are of an earlier run of this folder and are \
not shown: {}. Score this folder (`DIR`) again: `{}`.\n\n",
                stale.stale, stale.score_again
            );
            return;
        }
    };
    let _ = write!(
        md,
        "Every claim of a role (an office, a club's manager or player, a company's chief) \
in each system's summaries judged at its article's date against the facts ({}, {} facts) \
by `tempora score`. The outdated rate is the share of summaries with at least one \
claim of a role held only before that date (TempoSum's Figure 2); `reference` is the \
set's own summaries.

",
        summary.facts, summary.facts_read
    );
    md.push_str(&markdown(&summary.rows));
    md.push('\n');
    let by_relation = markdown_by_relation(&summary.rows);
    if !by_relation.is_empty() {
        md.push_str("By the relation of the claims (its Wikidata property):\n\n");
        md.push_str(&by_relation);
        md.push('\n');
    }
    let by_system = format!("/{BY_SYSTEM}.svg");
    let (first, rest): (Vec<&String>, Vec<&String>) = charts
        .iter()
        .filter(|c| c.ends_with(".svg"))
        .partition(|c| c.ends_with(&by_system));
    for chart in first
        .into_iter()
        .chain(rest.into_iter().filter(|c| c.contains("/scores_")))
    {
        let _ = writeln!(md, "![{chart}]({chart})\n");
    }
    not_scored(md, summary);
}

/// What was not scored: predictions of ids the set does not hold, articles
/// without a prediction.
fn not_scored(md: &mut String, summary: &Summary) {
    let unmatched: u64 = summary.unmatched.iter().map(|u| u.count).sum();
    if unmatched > 0 {
        let _ = writeln!(
            md,
            "{unmatched} predictions named an id the set does not hold and were not scored (listed in `scores/summary.json`).\n"
        );
    }
    for missing in &summary.missing {
        let _ = writeln!(
            md,
            "`{}` has no prediction for {} of the set's {} articles (listed in `scores/summary.json`): its rates are of the rest.\n",
            missing.system, missing.count, missing.of
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
            articles: Some(4),
            coverage: Some(1.0),
            outdated_interval: None,
            never_interval: None,
            with_claim: 2,
            claims: 3,
            verdicts: Default::default(),
            outdated_rate: outdated,
            never_rate: 0.0,
            current_share: 0.5,
            relations: Default::default(),
        }
    }

    fn summary(rows: Vec<Row>) -> Summary {
        Summary {
            facts: "facts.jsonl".into(),
            facts_sha256: "ab".into(),
            facts_read: 14,
            rows,
            unmatched: Vec::new(),
            missing: Vec::new(),
            sets: Vec::new(),
            predictions: Vec::new(),
            bootstrap: None,
            leaderboard: None,
            differences: Vec::new(),
        }
    }

    #[test]
    fn a_chart_per_system_with_a_bar_group_per_set() {
        let summary = summary(vec![
            row("reference", "future", 0.0),
            row("bart/x", "future", 0.5),
            row("bart/x", "in_distribution", 0.25),
            row("bart/x", "all", 0.4),
            row("t5", "all", 0.1),
        ]);
        let scores = Scores::Current(summary);
        let charts = charts(&scores);
        let names: Vec<&str> = charts.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [BY_SYSTEM, "scores_reference", "scores_bart_x", "scores_t5"]
        );
        assert_eq!(charts[2].groups, ["future", "in_distribution"]);
        assert_eq!(charts[2].series[0].1, [0.5, 0.25]);
        assert_eq!(charts[3].groups, ["all"], "a system scored without sets");
        let mut md = String::new();
        let drawn = [
            "charts/scores_t5.svg".into(),
            format!("charts/{BY_SYSTEM}.svg"),
        ];
        section(&mut md, &scores, &drawn, "##");
        assert!(
            md.contains("| bart/x | future | 4 | 2 | 3 | 50.0 % |"),
            "{md}"
        );
        let every = md.find(&format!("![charts/{BY_SYSTEM}.svg]")).expect(&md);
        let one = md
            .find("![charts/scores_t5.svg](charts/scores_t5.svg)")
            .expect(&md);
        assert!(
            md.find("| bart/x |").unwrap() < every && every < one,
            "{md}"
        );
    }

    /// TempoSum's Figure 2: a group per system, the reference's too, and per
    /// group the in-distribution bar next to the future one.
    #[test]
    fn the_chart_of_every_system_puts_the_sets_side_by_side() {
        let bars = by_system(&summary(vec![
            row("reference", "future", 0.0),
            row("reference", "in_distribution", 0.0),
            row("reference", "all", 0.0),
            row("bart", "future", 0.5),
            row("bart", "in_distribution", 0.25),
            row("bart", "all", 0.4),
            row("t5", "future", 0.75),
            row("t5", "all", 0.75),
        ]));
        assert_eq!(bars.groups, ["reference", "bart", "t5"]);
        let series: Vec<(&str, &[f64])> = bars
            .series
            .iter()
            .map(|(name, values)| (name.as_str(), values.as_slice()))
            .collect();
        assert_eq!(
            series,
            [
                ("in_distribution", [0.0, 0.25, 0.0].as_slice()),
                ("future", [0.0, 0.5, 0.75].as_slice()),
            ]
        );
    }

    #[test]
    fn stale_scores_show_why_and_the_command_but_no_figure() {
        let stale = Scores::Stale(Stale {
            stale: "`future.jsonl` changed since they were scored".into(),
            score_again: "tempora score DIR --predictions a.jsonl --system a".into(),
        });
        assert!(charts(&stale).is_empty());
        let mut md = String::new();
        section(&mut md, &stale, &[format!("charts/{BY_SYSTEM}.svg")], "##");
        assert!(md.contains("are of an earlier run of this folder and are not shown: `future.jsonl` changed since they were scored. Score this folder (`DIR`) again: `tempora score DIR --predictions a.jsonl --system a`."), "{md}");
        assert!(!md.contains("| system |") && !md.contains("!["), "{md}");
    }
}
