//! The scores as Markdown: the one rendering of a [`Summary`]'s tables, which
//! `scores.md` holds and `tempora report` and the dataset card show (their
//! scores section adds its words and charts around it).
//!
//! In order: how the intervals were drawn, the leaderboard (what a reader
//! cites), the table of every system and set with the note on what was not
//! scored, the table per relation, and the differences of every two systems.
//! Every table gives each figure's coverage (summaries of the set's articles),
//! and a rate of less than the whole set is marked `†`, the note naming the
//! systems and the articles they left out. Percentages have one decimal.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use tempora_engine::cost::thousands;

use crate::bootstrap::{Bootstrap, Interval};
use crate::compare::{Difference, Leaderboard, Standing};
use crate::tables::{share, Row, Summary, ALL_SETS};

/// The mark of a rate of part of the set.
pub const PARTIAL: &str = "†";

/// Which differences of two systems [`tables`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairs {
    /// Every pair on every set (`scores.md`).
    All,
    /// The pairs on the leaderboard's set, else every pair (the report and the
    /// card: the rest are in `scores.md`).
    Leaderboard,
}

/// `scores.md`: a title, then every table, every pair.
pub fn scores_md(summary: &Summary) -> String {
    let mut md = format!(
        "# Scores: outdated claims per system\n\nJudged against `{}` ({} facts) by `tempora score`.\n\n",
        summary.facts, summary.facts_read
    );
    md.push_str(&tables(summary, Pairs::All, ""));
    md
}

/// The tables of `summary`, each after a line saying what it holds: the
/// intervals' sentence, the leaderboard, every row with the note on what was
/// not scored, the rows per relation, and the differences of `pairs`. `files`
/// is where the reader finds `summary.json` and `scores.md` (`scores/` from the
/// set folder, nothing beside them).
pub fn tables(summary: &Summary, pairs: Pairs, files: &str) -> String {
    let mut md = intervals(summary.bootstrap.as_ref());
    md.push('\n');
    if let Some(board) = &summary.leaderboard {
        md.push_str(&leaderboard(summary, board));
        md.push('\n');
    }
    md.push_str("**Every system and set**:\n\n");
    md.push_str(&markdown(summary));
    md.push('\n');
    let note = not_scored(summary, files);
    if !note.is_empty() {
        md.push_str(&note);
        md.push('\n');
    }
    let by_relation = markdown_by_relation(summary);
    if !by_relation.is_empty() {
        md.push_str("**By the relation of the claims** (its Wikidata property):\n\n");
        md.push_str(&by_relation);
        md.push('\n');
    }
    md.push_str(&differences(summary, pairs, files));
    md
}

/// How the intervals were drawn, or that there are none.
fn intervals(bootstrap: Option<&Bootstrap>) -> String {
    match bootstrap {
        Some(b) => format!(
            "Each rate has its {:.0} % {} bootstrap interval over {}, in brackets \
({} resamples, seed {}: the same scores give the same intervals); a difference's \
interval is a paired bootstrap over the articles both systems summarized.\n",
            b.confidence * 100.0,
            b.method,
            b.over,
            thousands(u64::from(b.resamples)),
            b.seed
        ),
        None => "The rates have no intervals: they were scored without resamples \
(`tempora score --resamples 0`, or by a Tempora that drew none).\n"
            .to_string(),
    }
}

/// The leaderboard: the control first, then the systems, fewest outdated
/// first, then those with no summary of the set.
fn leaderboard(summary: &Summary, board: &Leaderboard) -> String {
    let on = if board.set == ALL_SETS {
        "each system's summaries of every set".to_string()
    } else {
        format!("the `{}` set", board.set)
    };
    let mut md = format!(
        "**Leaderboard on {on}**: the systems ranked by outdated rate, lower is better (a summary with no claim has no outdated one: read the rate with the share of summaries with a claim)"
    );
    let control = board.control.as_deref();
    match control {
        Some(control) => {
            let _ = write!(
                md,
                "; `{control}`, the set's own summaries, is the control, and each system's difference from it is on the articles both summarized.\n\n\
| rank | system | outdated rate | never rate | with a claim | difference from `{control}` | coverage |\n\
|---|---|---:|---:|---:|---:|---:|\n"
            );
        }
        None => md.push_str(
            ".\n\n| rank | system | outdated rate | never rate | with a claim | coverage |\n\
|---|---|---:|---:|---:|---:|\n",
        ),
    }
    for standing in &board.standings {
        let _ = writeln!(md, "{}", standing_cells(summary, board, standing));
    }
    md
}

fn standing_cells(summary: &Summary, board: &Leaderboard, s: &Standing) -> String {
    let partial = partial(summary, &s.system, &board.set, s.summaries, s.articles);
    let control = board.control.as_deref();
    let rank = match s.rank {
        Some(rank) => rank.to_string(),
        None if Some(s.system.as_str()) == control => "control".to_string(),
        None => "–".to_string(),
    };
    let against = match (control, &s.against_control) {
        (None, _) => String::new(),
        (Some(_), None) => " – |".to_string(),
        (Some(_), Some(d)) => format!(
            " {} |",
            difference_cell(d, d.articles < s.articles.unwrap_or(0))
        ),
    };
    format!(
        "| {rank} | {} | {} | {} | {} |{against} {} |",
        s.system,
        rate_cell(
            s.summaries,
            s.outdated_rate,
            s.outdated_interval.as_ref(),
            partial
        ),
        rate_cell(
            s.summaries,
            s.never_rate,
            s.never_interval.as_ref(),
            partial
        ),
        rate_cell(s.summaries, share(s.with_claim, s.summaries), None, false),
        coverage(s.summaries, s.articles),
    )
}

/// Every row as a Markdown table.
fn markdown(summary: &Summary) -> String {
    let mut out = String::from(
        "| system | set | summaries | coverage | with a claim | claims | outdated rate | never rate | current share | current | outdated | former | not yet | never | unknown |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in &summary.rows {
        let partial = partial_row(summary, row);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.system,
            row.set,
            row.summaries,
            coverage(row.summaries, row.articles),
            row.with_claim,
            row.claims,
            rate_cell(
                row.summaries,
                row.outdated_rate,
                row.outdated_interval.as_ref(),
                partial
            ),
            rate_cell(
                row.summaries,
                row.never_rate,
                row.never_interval.as_ref(),
                partial
            ),
            percent(row.current_share),
            verdict_cells(&row.verdicts),
        );
    }
    out
}

/// The rows per relation of their claims as a Markdown table, or nothing when
/// every claim is of one relation.
fn markdown_by_relation(summary: &Summary) -> String {
    let relations: BTreeSet<&str> = summary
        .rows
        .iter()
        .flat_map(|r| r.relations.keys().map(String::as_str))
        .collect();
    if relations.len() < 2 {
        return String::new();
    }
    let mut out = String::from(
        "| system | set | relation | coverage | claims | outdated rate | never rate | current | outdated | former | not yet | never | unknown |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in &summary.rows {
        let partial = partial_row(summary, row);
        for (relation, f) in &row.relations {
            let _ = writeln!(
                out,
                "| {} | {} | {relation} | {} | {} | {} | {} | {} |",
                row.system,
                row.set,
                coverage(row.summaries, row.articles),
                f.claims,
                rate_cell(row.summaries, f.outdated_rate, None, partial),
                rate_cell(row.summaries, f.never_rate, None, partial),
                verdict_cells(&f.verdicts),
            );
        }
    }
    out
}

/// The differences of `pairs` as a Markdown table after its line, saying where
/// the others are (`files`: as in [`tables`]) when some are left out; nothing
/// without a pair.
fn differences(summary: &Summary, pairs: Pairs, files: &str) -> String {
    let on_board: Vec<&Difference> = match (&summary.leaderboard, pairs) {
        (Some(board), Pairs::Leaderboard) => summary
            .differences
            .iter()
            .filter(|d| d.set == board.set)
            .collect(),
        _ => Vec::new(),
    };
    let shown: Vec<&Difference> = if on_board.is_empty() {
        summary.differences.iter().collect()
    } else {
        on_board
    };
    if shown.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "**Differences between two systems** in outdated rate, on the articles both \
summarized (above 0: `system` has more summaries with an outdated claim than `against`)",
    );
    if shown.len() < summary.differences.len() {
        let _ = write!(
            md,
            "; on the leaderboard's set, every set's in `{files}scores.md`"
        );
    }
    md.push_str(
        ":\n\n| set | system | against | articles both summarized | `system`'s rate | `against`'s rate | difference |\n\
         |---|---|---|---:|---:|---:|---:|\n",
    );
    for d in shown {
        let of = set_articles(summary, d);
        let partial = of.is_some_and(|of| d.articles < of);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            d.set,
            d.system,
            d.against,
            coverage(d.articles, of),
            mark(percent(d.system_rate), partial),
            mark(percent(d.against_rate), partial),
            difference_cell(d, partial),
        );
    }
    md.push('\n');
    md
}

/// The articles of a difference's set, what both systems' rows are of (the
/// larger, for `all`: a system may have left out a whole set).
fn set_articles(summary: &Summary, d: &Difference) -> Option<u64> {
    summary
        .rows
        .iter()
        .filter(|r| r.set == d.set && (r.system == d.system || r.system == d.against))
        .filter_map(|r| r.articles)
        .max()
}

/// What was not scored, under the table: the rates marked [`PARTIAL`], with
/// the systems and the articles they left out, and the predictions of ids the
/// set does not hold; nothing when all was scored. `files`: as in [`tables`].
fn not_scored(summary: &Summary, files: &str) -> String {
    let mut md = String::new();
    let systems = partial_systems(summary);
    if !systems.is_empty() {
        let _ = write!(
            md,
            "{PARTIAL} Of part of the set: the system has no prediction for some of the \
set's articles, so a marked rate is of the articles it summarized (a marked difference, of \
those both systems summarized), not of the whole set, and may not compare with the others."
        );
        for system in systems {
            md.push(' ');
            md.push_str(&left_out(summary, system));
        }
        let _ = writeln!(md, " `{files}summary.json` lists the articles.");
    }
    let unmatched: u64 = summary.unmatched.iter().map(|u| u.count).sum();
    if unmatched > 0 {
        if !md.is_empty() {
            md.push('\n');
        }
        let _ = writeln!(
            md,
            "{unmatched} predictions named an id the set does not hold and were not scored (listed in `{files}summary.json`)."
        );
    }
    md
}

/// The systems with a rate of part of the set, in the rows' order.
fn partial_systems(summary: &Summary) -> Vec<&str> {
    let mut systems: Vec<&str> = summary
        .rows
        .iter()
        .filter(|r| partial_row(summary, r))
        .map(|r| r.system.as_str())
        .collect();
    systems.dedup();
    systems
}

/// `` `t5` left out 3 of the 10 articles (`future`: 2 of 6; `in_distribution`: 1 of 4).``
fn left_out(summary: &Summary, system: &str) -> String {
    // The articles of each set, as the rows give them.
    let sets: BTreeMap<&str, u64> = summary
        .rows
        .iter()
        .filter(|r| r.set != ALL_SETS)
        .filter_map(|r| Some((r.set.as_str(), r.articles?)))
        .collect();
    let per_set: Vec<(&str, u64, u64)> = sets
        .iter()
        .filter_map(|(set, &of)| {
            let scored = summary
                .rows
                .iter()
                .find(|r| r.system == system && r.set == *set)
                .map_or(0, |r| r.summaries);
            (scored < of).then(|| (*set, of - scored, of))
        })
        .collect();
    let (count, of) = match summary.missing.iter().find(|m| m.system == system) {
        Some(m) => (m.count, m.of),
        None => (per_set.iter().map(|s| s.1).sum(), sets.values().sum()),
    };
    let mut text = format!("`{system}` left out {count} of the set's {of} articles");
    if sets.len() > 1 && !per_set.is_empty() {
        let sets: Vec<String> = per_set
            .iter()
            .map(|(set, n, of)| format!("`{set}`: {n} of {of}"))
            .collect();
        let _ = write!(text, " ({})", sets.join("; "));
    }
    text.push('.');
    text
}

fn partial_row(summary: &Summary, row: &Row) -> bool {
    partial(summary, &row.system, &row.set, row.summaries, row.articles)
}

/// Whether a system's rate on `set` is of part of it: fewer summaries than the
/// set's articles, or (for `all`, or scores from before coverage was recorded)
/// articles of the set the system has no prediction for.
fn partial(summary: &Summary, system: &str, set: &str, summaries: u64, of: Option<u64>) -> bool {
    let missing = summary
        .missing
        .iter()
        .any(|m| m.system == system && m.count > 0);
    match of {
        Some(of) => summaries < of || (set == ALL_SETS && missing),
        None => missing,
    }
}

/// `3 / 4 (75.0 %)`: summaries of the set's articles, or `–` without a set.
pub fn coverage(summaries: u64, articles: Option<u64>) -> String {
    match articles {
        Some(of) if of > 0 => format!(
            "{summaries} / {of} ({})",
            percent(summaries as f64 / of as f64)
        ),
        Some(_) | None => "–".to_string(),
    }
}

/// `25.0 % [19.0, 31.0]`: a rate with its interval, when it has one.
pub fn rate(rate: f64, interval: Option<&Interval>) -> String {
    match interval {
        Some(interval) => format!("{} {}", percent(rate), interval.percent()),
        None => percent(rate),
    }
}

/// A rate's cell, marked when of part of the set: `25.0 % [19.0, 31.0] †`;
/// `–` when no summary was scored.
fn rate_cell(summaries: u64, share: f64, interval: Option<&Interval>, partial: bool) -> String {
    if summaries == 0 {
        return "–".to_string();
    }
    mark(rate(share, interval), partial)
}

/// `+12.5 % [3.0, 22.0]`: a difference of rates in points, with its interval.
fn difference_cell(d: &Difference, partial: bool) -> String {
    let mut cell = format!("{:+.1} %", d.difference * 100.0);
    if let Some(interval) = &d.interval {
        let _ = write!(cell, " {}", interval.percent());
    }
    mark(cell, partial)
}

fn mark(cell: String, partial: bool) -> String {
    if partial {
        format!("{cell} {PARTIAL}")
    } else {
        cell
    }
}

/// The counts of the verdicts the tables show, as cells: current, outdated,
/// former, not yet, never, unknown.
fn verdict_cells(verdicts: &BTreeMap<String, u64>) -> String {
    [
        "current", "outdated", "former", "not_yet", "never", "unknown",
    ]
    .iter()
    .map(|name| verdicts.get(*name).copied().unwrap_or(0).to_string())
    .collect::<Vec<_>>()
    .join(" | ")
}

/// A share as a percentage with one decimal: `12.5 %`.
pub fn percent(share: f64) -> String {
    format!("{:.1} %", share * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare;
    use crate::tables::{Missing, RelationFigures};

    fn interval(low: f64, high: f64) -> Option<Interval> {
        Some(Interval { low, high })
    }

    /// A row of `summaries` of `of` articles, with intervals ±10 points.
    fn row(system: &str, set: &str, summaries: u64, of: u64, outdated: f64) -> Row {
        Row {
            system: system.into(),
            set: set.into(),
            summaries,
            articles: Some(of),
            coverage: Some(summaries as f64 / of as f64),
            with_claim: summaries,
            empty: 0,
            claims: summaries,
            verdicts: BTreeMap::new(),
            outdated_rate: outdated,
            never_rate: 0.05,
            outdated_interval: interval((outdated - 0.1).max(0.0), outdated + 0.1),
            never_interval: interval(0.0, 0.12),
            current_share: 0.5,
            relations: BTreeMap::new(),
        }
    }

    fn difference(set: &str, system: &str, against: &str, articles: u64) -> Difference {
        Difference {
            set: set.into(),
            system: system.into(),
            against: against.into(),
            articles,
            system_rate: 0.4,
            against_rate: 0.1,
            difference: 0.3,
            interval: interval(0.18, 0.41),
        }
    }

    /// `reference`, `bart` and `t5` (which left out 6 of the future set's 40
    /// articles) on two sets, as `tempora score` summarizes them.
    fn summary() -> Summary {
        let rows = vec![
            row("reference", "future", 40, 40, 0.02),
            row("reference", "in_distribution", 30, 30, 0.0),
            row("reference", "all", 70, 70, 0.01),
            row("bart", "future", 40, 40, 0.31),
            row("bart", "in_distribution", 30, 30, 0.15),
            row("bart", "all", 70, 70, 0.25),
            row("t5", "future", 34, 40, 0.2),
            row("t5", "in_distribution", 30, 30, 0.1),
            row("t5", "all", 64, 70, 0.15),
        ];
        let mut differences = Vec::new();
        for set in ["future", "in_distribution", "all"] {
            differences.push(difference(set, "bart", "reference", 40));
            differences.push(difference(set, "t5", "reference", 34));
            differences.push(difference(set, "t5", "bart", 34));
        }
        Summary {
            facts: "facts.jsonl".into(),
            facts_sha256: String::new(),
            facts_read: 14,
            leaderboard: compare::leaderboard(&rows, &differences),
            rows,
            unmatched: Vec::new(),
            missing: vec![Missing {
                system: "t5".into(),
                file: "t5.jsonl".into(),
                count: 6,
                of: 70,
                ids: Vec::new(),
            }],
            sets: Vec::new(),
            predictions: Vec::new(),
            bootstrap: Some(Bootstrap::default()),
            differences,
        }
    }

    /// The line of `md` that starts with `start`.
    fn line<'a>(md: &'a str, start: &str) -> &'a str {
        md.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line {start:?} in {md}"))
    }

    /// Every row with its coverage and its rates' intervals; a rate of part of
    /// the set marked, the note naming the system and what it left out.
    #[test]
    fn rows_show_coverage_intervals_and_mark_a_rate_of_part_of_the_set() {
        let md = tables(&summary(), Pairs::All, "");
        assert_eq!(
            line(&md, "| bart | future |"),
            "| bart | future | 40 | 40 / 40 (100.0 %) | 40 | 40 | 31.0 % [21.0, 41.0] | 5.0 % [0.0, 12.0] | 50.0 % | 0 | 0 | 0 | 0 | 0 | 0 |"
        );
        assert_eq!(
            line(&md, "| t5 | future |"),
            "| t5 | future | 34 | 34 / 40 (85.0 %) | 34 | 34 | 20.0 % [10.0, 30.0] † | 5.0 % [0.0, 12.0] † | 50.0 % | 0 | 0 | 0 | 0 | 0 | 0 |"
        );
        assert!(line(&md, "| t5 | all |").contains("| 64 / 70 (91.4 %) |"));
        assert!(line(&md, "| t5 | all |").contains("15.0 % [5.0, 25.0] †"));
        assert!(!line(&md, "| t5 | in_distribution |").contains('†'), "{md}");
        assert!(!line(&md, "| bart | all |").contains('†'), "{md}");
        let note = line(&md, "† ");
        assert!(
            note.contains("`t5` left out 6 of the set's 70 articles (`future`: 6 of 40)."),
            "{note}"
        );
        assert!(
            note.contains("`summary.json` lists the articles."),
            "{note}"
        );
        assert_eq!(note.matches("left out").count(), 1, "{note}");
        assert!(
            md.starts_with("Each rate has its 95 % percentile bootstrap interval over articles, in brackets (1,000 resamples, seed 12345"),
            "{md}"
        );
    }

    /// The leaderboard comes first, ranks fewest outdated first with the
    /// control labelled, and gives each system's difference from the control.
    #[test]
    fn the_leaderboard_comes_first_with_the_control_labelled() {
        let md = tables(&summary(), Pairs::All, "");
        let board = md.find("**Leaderboard on the `future` set**").expect(&md);
        assert!(board < md.find("**Every system and set**").expect(&md));
        assert!(md[board..].contains("lower is better"), "{md}");
        let ranks: Vec<Vec<&str>> = md[board..]
            .lines()
            .skip(4)
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.split(" | ").take(2).collect())
            .collect();
        assert_eq!(
            ranks,
            [["| control", "reference"], ["| 1", "t5"], ["| 2", "bart"]]
        );
        assert_eq!(
            line(&md, "| 1 | t5 |"),
            "| 1 | t5 | 20.0 % [10.0, 30.0] † | 5.0 % [0.0, 12.0] † | 100.0 % | +30.0 % [18.0, 41.0] † | 34 / 40 (85.0 %) |"
        );
        assert!(line(&md, "| control | reference |").contains("| – | 40 / 40 (100.0 %) |"));
    }

    /// A system that left out the whole future set is on the leaderboard,
    /// unranked, with no rate; without `reference`, no control is named.
    #[test]
    fn a_system_without_the_set_is_listed_unranked_and_no_control_is_invented() {
        let mut summary = summary();
        summary.rows.retain(|r| r.system != "reference");
        summary.rows.push(row("pegasus", "future", 0, 40, 0.0));
        summary
            .rows
            .push(row("pegasus", "in_distribution", 30, 30, 0.1));
        summary.rows.push(row("pegasus", "all", 30, 70, 0.1));
        summary.differences.clear();
        summary.leaderboard = compare::leaderboard(&summary.rows, &summary.differences);
        let md = tables(&summary, Pairs::All, "");
        assert!(!md.contains("control"), "{md}");
        assert!(
            md.contains("| rank | system | outdated rate | never rate | with a claim | coverage |"),
            "{md}"
        );
        assert_eq!(
            line(&md, "| – | pegasus |"),
            "| – | pegasus | – | – | – | 0 / 40 (0.0 %) |"
        );
        assert!(
            line(&md, "| pegasus | future |").contains("| 0 / 40 (0.0 %) |"),
            "{md}"
        );
        assert!(
            md.contains("`pegasus` left out 40 of the set's 70 articles"),
            "{md}"
        );
    }

    /// `scores.md` has every pair of every set; the report's section the
    /// leaderboard set's, saying where the rest are.
    #[test]
    fn the_section_shows_the_leaderboard_sets_pairs_and_scores_md_all() {
        let summary = summary();
        let all = scores_md(&summary);
        let pairs = |md: &str| {
            md.lines()
                .filter(|l| l.starts_with("| ") && !l.starts_with("| set |"))
                .count()
        };
        assert_eq!(pairs(&differences(&summary, Pairs::All, "")), 9);
        let some = differences(&summary, Pairs::Leaderboard, "scores/");
        assert_eq!(pairs(&some), 3, "{some}");
        assert!(some.contains("every set's in `scores/scores.md`"), "{some}");
        assert!(!some.contains("| in_distribution |"), "{some}");
        assert!(all.contains("| in_distribution | t5 | bart |"), "{all}");
        assert_eq!(
            line(&some, "| future | t5 | bart |"),
            "| future | t5 | bart | 34 / 40 (85.0 %) | 40.0 % † | 10.0 % † | +30.0 % [18.0, 41.0] † |"
        );
        assert!(line(&some, "| future | bart | reference |").ends_with("| +30.0 % [18.0, 41.0] |"));
    }

    /// Per relation, each row keeps its coverage and its mark.
    #[test]
    fn the_table_per_relation_keeps_coverage_and_marks() {
        let mut summary = summary();
        for row in &mut summary.rows {
            for relation in ["P286", "P39"] {
                let figures = RelationFigures {
                    claims: 1,
                    verdicts: BTreeMap::new(),
                    outdated_rate: 0.5,
                    never_rate: 0.0,
                };
                row.relations.insert(relation.into(), figures);
            }
        }
        let md = markdown_by_relation(&summary);
        assert_eq!(
            line(&md, "| t5 | future | P286 |"),
            "| t5 | future | P286 | 34 / 40 (85.0 %) | 1 | 50.0 % † | 0.0 % † | 0 | 0 | 0 | 0 | 0 | 0 |"
        );
        assert!(line(&md, "| bart | future | P39 |")
            .contains("| 40 / 40 (100.0 %) | 1 | 50.0 % | 0.0 % |"));
        summary.rows.iter_mut().for_each(|r| r.relations.clear());
        assert!(markdown_by_relation(&summary).is_empty());
    }

    /// A `summary.json` from before intervals, coverage and the leaderboard
    /// renders: no interval, coverage `–`, the articles left out still marked
    /// and named.
    #[test]
    fn an_old_summary_without_the_new_fields_renders() {
        let old = r#"{"facts": "facts.jsonl", "facts_sha256": "ab", "facts_read": 3,
            "rows": [
              {"system": "reference", "set": "future", "summaries": 3, "with_claim": 1, "claims": 1,
               "verdicts": {"current": 1}, "outdated_rate": 0.0, "never_rate": 0.0, "current_share": 1.0},
              {"system": "one", "set": "future", "summaries": 1, "with_claim": 1, "claims": 1,
               "verdicts": {"outdated": 1}, "outdated_rate": 1.0, "never_rate": 0.0, "current_share": 0.0}],
            "unmatched": [{"system": "one", "file": "one.jsonl", "count": 2, "ids": [[3, "x"], [4, "y"]]}],
            "missing": [{"system": "one", "file": "one.jsonl", "count": 2, "of": 3, "ids": ["a", "b"]}]}"#;
        let summary: Summary = serde_json::from_str(old).unwrap();
        let md = scores_md(&summary);
        assert!(md.contains("\n\nThe rates have no intervals"), "{md}");
        assert!(
            !md.contains("Leaderboard") && !md.contains("Differences"),
            "{md}"
        );
        assert_eq!(
            line(&md, "| reference | future |"),
            "| reference | future | 3 | – | 1 | 1 | 0.0 % | 0.0 % | 100.0 % | 1 | 0 | 0 | 0 | 0 | 0 |"
        );
        assert!(
            line(&md, "| one | future |").contains("| 100.0 % † | 0.0 % † |"),
            "{md}"
        );
        assert!(
            line(&md, "† ").contains("`one` left out 2 of the set's 3 articles."),
            "{md}"
        );
        assert!(
            md.contains("2 predictions named an id the set does not hold"),
            "{md}"
        );
    }

    /// `tempora score`'s line of a row gives the same figures as the tables.
    #[test]
    fn the_printed_line_has_the_intervals_and_the_coverage() {
        assert_eq!(
            row("t5", "future", 34, 40, 0.2).line(),
            "t5 / future: 34 summaries, 34 with a claim, 34 claims; outdated rate 20.0 % [10.0, 30.0], \
never rate 5.0 % [0.0, 12.0], current share 50.0 %; coverage 34 / 40 (85.0 %)"
        );
        let old = Row {
            articles: None,
            outdated_interval: None,
            never_interval: None,
            ..row("t5", "all", 3, 3, 0.5)
        };
        assert_eq!(
            old.line(),
            "t5 / all: 3 summaries, 3 with a claim, 3 claims; outdated rate 50.0 %, never rate 5.0 %, current share 50.0 %"
        );
    }

    #[test]
    fn cells() {
        assert_eq!(coverage(3, Some(4)), "3 / 4 (75.0 %)");
        assert_eq!(coverage(3, None), "–");
        let d = Difference {
            difference: -0.125,
            interval: interval(-0.2, -0.05),
            ..difference("future", "a", "b", 10)
        };
        assert_eq!(difference_cell(&d, false), "-12.5 % [-20.0, -5.0]");
    }
}
