//! `report.md`: the report as Markdown tables, linking the SVG charts.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::tables::{EntityCount, MeanMedian};
use crate::Report;

/// Renders the report as Markdown.
pub fn render(report: &Report) -> String {
    let mut md = String::new();
    md.push_str("# Dataset report\n\n");
    files(&mut md, report);
    if let Some(run) = &report.run {
        run_section(&mut md, run);
    }
    counts(&mut md, report);
    facts(&mut md, report);
    crate::relations::markdown(&mut md, &report.relations);
    novelty(&mut md, report);
    characteristics(&mut md, report);
    pairs(&mut md, report);
    if let Some(summary) = &report.scores {
        crate::scores::section(&mut md, summary, &report.charts, "##");
    }
    md
}

/// The report's main tables for the dataset card: articles per source, set and
/// year, the evolving facts, the novelty bins and the dataset characteristics,
/// each heading one level down (`###`). Not the run's own table: the card
/// describes the sets, which a rerun on the same crawl state makes again byte for
/// byte, and names the run that wrote it in its release section only.
pub(crate) fn main_tables(report: &Report) -> String {
    let mut md = String::new();
    counts(&mut md, report);
    facts(&mut md, report);
    crate::relations::markdown(&mut md, &report.relations);
    novelty(&mut md, report);
    characteristics(&mut md, report);
    if let Some(summary) = &report.scores {
        crate::scores::section(&mut md, summary, &report.charts, "##");
    }
    md.lines()
        .map(|line| match line.strip_prefix("## ") {
            Some(heading) => format!("### {heading}\n"),
            None => format!("{line}\n"),
        })
        .collect()
}

fn pairs(md: &mut String, report: &Report) {
    if report.pairs.is_empty() {
        return;
    }
    md.push_str(
        "## Minimal pairs

",
    );
    md.push_str(
        "Summaries with one evolving fact swapped (`minimal-pairs`): `outdated` puts the \
         value at the cutoff, `non_verifiable` a value the fact never had.\n\n",
    );
    md.push_str("| set | fact error | error type | pairs |\n|---|---|---|---:|\n");
    for p in &report.pairs {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            cell(&p.set),
            cell(&p.fact_error),
            cell(&p.error_type),
            p.pairs
        );
    }
    md.push('\n');
}

fn files(md: &mut String, report: &Report) {
    md.push_str("| set | file | articles |\n|---|---|---:|\n");
    for f in &report.files.read {
        let n = report.sets.get(&f.set).map_or(0, |s| s.articles);
        let _ = writeln!(md, "| {} | `{}` | {n} |", cell(&f.set), cell(&f.file));
    }
    md.push('\n');
    if !report.files.skipped.is_empty() {
        md.push_str("Not read: ");
        let skipped: Vec<String> = report
            .files
            .skipped
            .iter()
            .map(|s| format!("`{}` ({})", cell(&s.file), s.reason))
            .collect();
        md.push_str(&skipped.join("; "));
        md.push_str(".\n\n");
    }
}

fn run_section(md: &mut String, run: &crate::run_info::RunInfo) {
    md.push_str("## Run\n\n");
    let mut facts = Vec::new();
    let mut fact = |name: &str, value: &Option<String>| {
        if let Some(v) = value {
            facts.push(format!("{name} {}", code(v)));
        }
    };
    fact("pipeline", &run.pipeline);
    fact("tempora", &run.version);
    fact("status", &run.status);
    fact("cutoff", &run.cutoff);
    fact("started", &run.started_at);
    fact("ended", &run.ended_at);
    if !facts.is_empty() {
        let _ = writeln!(md, "From `run.json`: {}.\n", facts.join(", "));
    }
    if !run.stages.is_empty() {
        md.push_str("| stage | kind | in | out | rejected |\n|---|---|---:|---:|---:|\n");
        let num = |n: Option<u64>| n.map_or_else(|| "—".to_string(), |n| n.to_string());
        for s in &run.stages {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                cell(&s.name),
                cell(&s.kind),
                num(s.records_in),
                num(s.records_out),
                num(s.rejected)
            );
        }
        md.push('\n');
    }
}

fn counts(md: &mut String, report: &Report) {
    md.push_str("## Articles per source, set and year\n\n");
    let years: BTreeSet<Option<i32>> = report.counts.iter().map(|c| c.year).collect();
    let mut rows: BTreeMap<(String, String), BTreeMap<Option<i32>, usize>> = BTreeMap::new();
    for c in &report.counts {
        let source = c.source.clone().unwrap_or_else(|| "—".into());
        *rows
            .entry((source, c.set.clone()))
            .or_default()
            .entry(c.year)
            .or_default() += c.articles;
    }
    let year_name = |y: &Option<i32>| y.map_or_else(|| "undated".to_string(), |y| y.to_string());
    md.push_str("| source | set |");
    for y in &years {
        let _ = write!(md, " {} |", year_name(y));
    }
    md.push_str(" total |\n|---|---|");
    md.push_str(&"---:|".repeat(years.len() + 1));
    md.push('\n');
    let mut column_totals: BTreeMap<Option<i32>, usize> = BTreeMap::new();
    for ((source, set), by_year) in &rows {
        let _ = write!(md, "| {} | {} |", cell(source), cell(set));
        for y in &years {
            let n = by_year.get(y).copied().unwrap_or(0);
            *column_totals.entry(*y).or_default() += n;
            let _ = write!(md, " {n} |");
        }
        let _ = writeln!(md, " {} |", by_year.values().sum::<usize>());
    }
    md.push_str("| **total** | |");
    for y in &years {
        let _ = write!(md, " {} |", column_totals.get(y).copied().unwrap_or(0));
    }
    let _ = writeln!(md, " {} |\n", column_totals.values().sum::<usize>());
}

fn facts(md: &mut String, report: &Report) {
    md.push_str("## Evolving facts behind the articles\n\n");
    if report.facts.positions.is_empty() && report.facts.people.is_empty() {
        md.push_str("No article carries `facts`.\n\n");
        return;
    }
    md.push_str(
        "Articles naming a fact of each entity, over every set: the person, and the other \
         side of their role (a position: an office, club, company or organization), as the \
         relation catalogue says (P39 position held: person and office; P1308 \
         officeholder: office and holder; P286 head coach: club and manager).\n\n",
    );
    entity_table(md, "Positions", "position", &report.facts.positions);
    entity_table(md, "People", "person", &report.facts.people);
}

fn entity_table(md: &mut String, title: &str, what: &str, entities: &[EntityCount]) {
    let _ = writeln!(
        md,
        "### {title}\n\n| {what} | Wikidata | articles |\n|---|---|---:|"
    );
    for e in entities {
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            cell(&e.label),
            cell(&e.id),
            e.articles
        );
    }
    md.push('\n');
}

fn novelty(md: &mut String, report: &Report) {
    md.push_str("## Novelty bins\n\n");
    let bins = &report.novelty.bins;
    if bins.is_empty() && report.novelty.run.is_empty() {
        md.push_str("No article carries a `novelty` and `run.json` has no novelty bin table.\n\n");
        return;
    }
    if !bins.is_empty() {
        md.push_str(
            "From the articles' `novelty` field: overlap is the percent of the summary's \
             n-grams found in the training summaries.\n\n",
        );
        md.push_str("| set | bin | tag | articles | overlap min | overlap max |\n");
        md.push_str("|---|---|---|---:|---:|---:|\n");
        for b in bins {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                cell(&b.set),
                b.bin.as_deref().map_or_else(|| "—".into(), cell),
                b.tag.as_deref().map_or_else(|| "—".into(), cell),
                b.articles,
                number(b.overlap_min, 2),
                number(b.overlap_max, 2),
            );
        }
        md.push('\n');
    }
    for table in &report.novelty.run {
        let _ = writeln!(
            md,
            "From `run.json`, stage `{}`, metric `{}`:\n\n| bin | tag | records |\n|---|---|---:|",
            table.stage, table.metric
        );
        for b in &table.bins {
            let tag = b.tag.as_deref().map_or_else(|| "—".into(), cell);
            let _ = writeln!(md, "| {} | {tag} | {} |", cell(&b.range), b.count);
        }
        md.push('\n');
    }
    chart(md, report, "overlap", "Histogram of overlap");
}

fn characteristics(md: &mut String, report: &Report) {
    md.push_str("## Dataset characteristics\n\n");
    let _ = writeln!(
        md,
        "Tokens: {}. Extractive fragments as Newsroom's `fragments.py` (Grusky et al., 2018): \
         coverage is the share of summary tokens in fragments copied from the article, \
         density the sum of squared fragment lengths per summary token, compression article \
         tokens per summary token. Novel n-grams as SummEval: the percent of the summary's \
         distinct n-grams that are not in the article (summaries shorter than n left out).\n",
        report.tokens
    );
    md.push_str(
        "| set | articles | coverage mean | coverage median | density mean | density median \
         | compression mean | compression median | summary tokens mean | article tokens mean |\n",
    );
    md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (name, s) in &report.sets {
        let pair =
            |m: &MeanMedian, d: usize| format!("{} | {}", number(m.mean, d), number(m.median, d));
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(name),
            s.articles,
            pair(&s.coverage, 3),
            pair(&s.density, 2),
            pair(&s.compression, 2),
            number(s.summary_tokens.mean, 1),
            number(s.article_tokens.mean, 1),
        );
    }
    md.push_str("\nNovel n-grams, percent (mean / median):\n\n");
    md.push_str("| set | 1-grams | 2-grams | 3-grams | 4-grams |\n|---|---:|---:|---:|---:|\n");
    for (name, s) in &report.sets {
        let _ = write!(md, "| {} |", cell(name));
        for (n, mean) in &s.novel_ngrams {
            let median = s.novel_ngrams_median.get(n).copied().flatten();
            let _ = write!(md, " {} / {} |", number(*mean, 1), number(median, 1));
        }
        md.push('\n');
    }
    md.push('\n');
    for (name, title) in [
        ("coverage", "Coverage"),
        ("density", "Density"),
        ("compression", "Compression"),
        ("novel_1grams", "Novel 1-grams"),
        ("novel_2grams", "Novel 2-grams"),
        ("novel_3grams", "Novel 3-grams"),
        ("novel_4grams", "Novel 4-grams"),
    ] {
        chart(md, report, name, title);
    }
}

/// A link to a chart's SVG (with its PNG), when it was drawn.
fn chart(md: &mut String, report: &Report, name: &str, title: &str) {
    let svg = format!("{}/{name}.svg", crate::CHARTS_DIR);
    if report.charts.contains(&svg) {
        let _ = writeln!(
            md,
            "![{title}]({svg}) ([PNG]({}/{name}.png))\n",
            crate::CHARTS_DIR
        );
    }
}

fn number(x: Option<f64>, decimals: usize) -> String {
    x.map_or_else(|| "—".into(), |x| format!("{x:.decimals$}"))
}

/// Text safe in a table cell.
pub(crate) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// Inline code.
pub(crate) fn code(text: &str) -> String {
    format!("`{}`", text.replace('`', "'"))
}
