//! A set's scores (`tempora score`), when its folder has them and they are of its
//! files as they are now: the table per system and set, one chart with every
//! system (TempoSum's Figure 2: the outdated rate per set, side by side), and a
//! chart per system. Scores of files that changed since (a rerun with another
//! cutoff) are not shown: the section says why and how to score again.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use tempora_score::bootstrap::Interval;
use tempora_score::job::{SCORES_DIR, SUMMARY_JSON};
use tempora_score::markdown::{self, Pairs};
use tempora_score::tables::{Summary, ALL_SETS};

use crate::charts::Bars;
use crate::error::ReportError;

/// The scores of a set folder: current, or of an earlier run of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Scores {
    /// `scores/summary.json`, whose set files and facts are the folder's.
    Current(Box<Summary>),
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
        None => Scores::Current(Box::new(summary)),
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
/// with an outdated claim, with its interval when it has one. A system with no
/// summary in a set has 0 there, as its rate in the table, and no interval.
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
    let row = |system: &str, set: &str| {
        summary
            .rows
            .iter()
            .find(|r| r.system == system && r.set == set)
    };
    Bars {
        name: BY_SYSTEM.into(),
        title: "Summaries with an outdated claim, per system and set".into(),
        y_label: "share of the system's summaries".into(),
        groups: systems.iter().map(|s| s.to_string()).collect(),
        series: sets
            .iter()
            .map(|set| {
                let rates = systems
                    .iter()
                    .map(|system| row(system, set).map_or(0.0, |r| r.outdated_rate))
                    .collect();
                (set.to_string(), rates)
            })
            .collect(),
        intervals: sets
            .iter()
            .map(|set| {
                systems
                    .iter()
                    .map(|system| bounds(row(system, set)?.outdated_interval.as_ref()))
                    .collect()
            })
            .collect(),
    }
}

/// An interval as the chart takes it.
fn bounds(interval: Option<&Interval>) -> Option<(f64, f64)> {
    interval.map(|i| (i.low, i.high))
}

/// One chart per system: per set (not `all`), the share of its summaries with an
/// outdated claim and with a claim the facts say was never true, with their
/// intervals.
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
                intervals: vec![
                    rows.iter()
                        .map(|r| bounds(r.outdated_interval.as_ref()))
                        .collect(),
                    rows.iter()
                        .map(|r| bounds(r.never_interval.as_ref()))
                        .collect(),
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
    let files = format!("{SCORES_DIR}/");
    md.push_str(&markdown::tables(summary, Pairs::Leaderboard, &files));
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
            empty: 0,
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
        let scores = Scores::Current(Box::new(summary));
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
            md.contains("| bart/x | future | 4 | 4 / 4 (100.0 %) | 2 | 3 | 50.0 % |"),
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

    /// A row of `summaries` of the set's 40 articles, the rate's interval ±12.5
    /// points.
    fn scored(system: &str, set: &str, summaries: u64, outdated: f64) -> Row {
        Row {
            summaries,
            articles: Some(40),
            coverage: Some(summaries as f64 / 40.0),
            outdated_interval: Some(Interval {
                low: (outdated - 0.125).max(0.0),
                high: outdated + 0.125,
            }),
            never_interval: Some(Interval {
                low: 0.0,
                high: 0.05,
            }),
            ..row(system, set, outdated)
        }
    }

    /// `reference`, `bart` and `t5` (36 of the 40 articles) on the future set,
    /// with intervals, the leaderboard and the differences.
    fn with_intervals() -> Summary {
        let rows = vec![
            scored("reference", "future", 40, 0.125),
            scored("bart", "future", 40, 0.5),
            scored("t5", "future", 36, 0.25),
        ];
        let differences = tempora_score::compare::differences(&[], Some(&Default::default()));
        Summary {
            leaderboard: tempora_score::compare::leaderboard(&rows, &differences),
            bootstrap: Some(Default::default()),
            ..summary(rows)
        }
    }

    /// The report's and the card's section: the intervals' sentence, then the
    /// leaderboard, then every row, each with its interval and coverage, a
    /// rate of part of the set marked and explained, then the charts.
    #[test]
    fn the_section_puts_the_leaderboard_first_with_intervals_and_coverage() {
        let scores = Scores::Current(Box::new(with_intervals()));
        let drawn = [format!("charts/{BY_SYSTEM}.svg")];
        let mut md = String::new();
        section(&mut md, &scores, &drawn, "##");
        let at = |text: &str| md.find(text).unwrap_or_else(|| panic!("{text} in {md}"));
        let order = [
            at("(1,000 resamples, seed 12345"),
            at("**Leaderboard on the `future` set**"),
            at("| control | reference | 12.5 % [0.0, 25.0] |"),
            at("| 1 | t5 | 25.0 % [12.5, 37.5] † | 0.0 % [0.0, 5.0] † | 5.6 % | – | 36 / 40 (90.0 %) |"),
            at("| 2 | bart | 50.0 % [37.5, 62.5] |"),
            at("**Every system and set**"),
            at("| t5 | future | 36 | 36 / 40 (90.0 %) | 2 | 3 | 25.0 % [12.5, 37.5] † |"),
            at("† Of part of the set"),
            at("`t5` left out 4 of the set's 40 articles. `scores/summary.json` lists the articles."),
            at("![charts/scores-by-system.svg]"),
        ];
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?} in {md}");
        // Only once: the note is the one place that says what was left out.
        assert_eq!(md.matches("left out").count(), 1, "{md}");
    }

    /// The chart of every system carries each bar's interval, and draws it as
    /// an error bar (three black lines: the whisker and its caps); a bar
    /// without an interval, or with one of no width, draws none.
    #[test]
    fn the_chart_of_every_system_draws_each_bars_interval() {
        let summary = with_intervals();
        let bars = by_system(&summary);
        assert_eq!(
            bars.intervals,
            [[
                Some((0.0, 0.25)),
                Some((0.375, 0.625)),
                Some((0.125, 0.375))
            ]]
        );
        let whiskers = |bars: &Bars| {
            let dir = tempfile::tempdir().unwrap();
            let [svg, _] = crate::charts::draw(bars, dir.path()).unwrap();
            let svg = std::fs::read_to_string(svg).unwrap();
            svg.matches(r##"stroke="#000000" stroke-width="2" points="##)
                .count()
        };
        assert_eq!(whiskers(&bars), 9);
        let mut narrow = bars.clone();
        narrow.intervals[0][1] = Some((0.5, 0.5));
        narrow.intervals[0][2] = None;
        assert_eq!(whiskers(&narrow), 3);
        let none = Bars {
            intervals: Vec::new(),
            ..bars
        };
        assert_eq!(whiskers(&none), 0);
        // Each system's chart has its rates' intervals too.
        let t5 = &charts(&Scores::Current(Box::new(summary)))[3];
        assert_eq!(t5.intervals, [[Some((0.125, 0.375))], [Some((0.0, 0.05))]]);
    }
}
