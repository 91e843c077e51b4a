//! The dataset report of Tempora (`tempora report DIR`).
//!
//! In: a directory of article outputs, every JSON lines or Parquet file whose
//! records have `summary` and `document` (Tempora's sinks, or any summarization
//! dataset exported with those fields, XSum for one), and `run.json` when present.
//! Out: `DIR/report.md`, `DIR/report.json` and histograms in `DIR/charts/` (SVG and
//! PNG). Promised: articles per source, set and year (TempoSum's table 1); the
//! evolving facts behind the articles (top positions and people); the novelty bins
//! (from the articles' `novelty` fields and from `run.json`) with a histogram of
//! overlap; and per set, the dataset characteristics of CDEvalSumm and Newsroom
//! (Grusky et al. 2018): extractive fragment coverage, density and compression, as
//! Newsroom's `fragments.py` computes them ([`fragments`]), and the percent of novel
//! n-grams for n = 1..4 (SummEval's definition), mean and median of each. Every
//! statistic uses the report tokens of `tempora_novelty::tokens`: UAX #29 word
//! segments, lowercased, punctuation included. The same directory gives the same
//! bytes.
//!
//! Per-article statistics run on the rayon pool, a chunk of lines at a time
//! ([`stats`]); the aggregates come from polars ([`tables`]). This crate links
//! polars besides `crates/sink`: it needs the novelty crate's tokens, and the
//! novelty crate reads Parquet through the sink crate, so the report cannot live in
//! the sink crate without a dependency cycle (sink -> novelty -> sink). Only this
//! crate and the sink pay polars' build time; the stage crates stay fast to test.
//!
//! Speed: `cargo run -p tempora-report --release --example bench_report` generates
//! 100,000 articles of 400 words (199 MB of JSONL) and times the report: 3.1-3.4 s
//! on the 2-core development machine, nearly all of it the per-article statistics
//! (3.2-3.3 s timed alone); 6.0 s while other builds loaded it.

pub mod card;
pub mod charts;
pub mod error;
pub mod fragments;
pub mod markdown;
pub mod pairs;
pub mod publish;
pub mod read;
pub mod relations;
pub mod run_info;
pub mod scores;
pub mod stats;
pub mod tables;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

pub use error::ReportError;

use charts::Histogram;
use pairs::PairCount;
use read::{Discovery, Format, SkippedFile};
use run_info::{RunBinTable, RunInfo};
use stats::ArticleRow;
use tables::{BinCount, Count, EntityCount, SetStats, Tables};

/// How many positions and people the report lists.
pub const TOP_ENTITIES: usize = 15;

/// The report's description of its tokens.
pub const TOKENS: &str = "UAX #29 word segments (Unicode word boundaries), lowercased; punctuation segments are tokens, whitespace is not";

/// Subdirectory of the charts.
pub const CHARTS_DIR: &str = "charts";

/// A file read as a set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetSource {
    /// The set.
    pub set: String,
    /// File name in the directory.
    pub file: String,
    /// `jsonl` or `parquet`.
    pub format: &'static str,
}

/// The files of the directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Files {
    /// Read as sets.
    pub read: Vec<SetSource>,
    /// Not read, with the reason.
    pub skipped: Vec<SkippedFile>,
}

/// The evolving facts behind the articles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Facts {
    /// Positions, most articles first.
    pub positions: Vec<EntityCount>,
    /// People, most articles first.
    pub people: Vec<EntityCount>,
}

/// Novelty bins.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Novelty {
    /// Bins of the articles' `novelty` fields, per set.
    pub bins: Vec<BinCount>,
    /// Bin tables of `run.json`'s novelty stages.
    pub run: Vec<RunBinTable>,
}

/// Everything the report shows; `report.json` is this, serialized.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Per set (file stem): articles and dataset characteristics.
    pub sets: BTreeMap<String, SetStats>,
    /// The files read and skipped.
    pub files: Files,
    /// What a token is.
    pub tokens: &'static str,
    /// Articles per source, set and year.
    pub counts: Vec<Count>,
    /// The evolving facts.
    pub facts: Facts,
    /// Articles per set and relation, facts per facts file and relation.
    pub relations: relations::Relations,
    /// Novelty bins.
    pub novelty: Novelty,
    /// Minimal pairs per set, fact error and error type (files of `minimal-pairs`
    /// records).
    pub pairs: Vec<PairCount>,
    /// `run.json`, when present.
    pub run: Option<RunInfo>,
    /// The scores of `tempora score`, when `scores/summary.json` is present: its
    /// summary, or why it is not of the folder's files as they are now.
    pub scores: Option<scores::Scores>,
    /// Chart files, relative to the directory.
    pub charts: Vec<String>,
}

/// What a report run wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// The report.
    pub report: Report,
    /// `report.md`.
    pub markdown: PathBuf,
    /// `report.json`.
    pub json: PathBuf,
}

/// Reads `dir`'s outputs and writes `report.md`, `report.json` and `charts/` there.
///
/// # Errors
/// No set in `dir`, a file that cannot be read, a line that is not an article
/// record (named with its file and line), `run.json` that is not JSON, or an output
/// that cannot be written.
pub fn write_report(dir: &Path) -> Result<Written, ReportError> {
    let discovery = read::discover(dir)?;
    let run = run_info::read_run_info(&dir.join("run.json"))?;
    let sets = discovery
        .sets
        .iter()
        .map(|set| Ok((set.name.clone(), stats::analyze_set(set)?)))
        .collect::<Result<Vec<_>, ReportError>>()?;
    let tables = tables::aggregate(&sets, TOP_ENTITIES)?;
    let relations = relations::count(&sets, &discovery.facts)?;
    let chart_dir = dir.join(CHARTS_DIR);
    std::fs::create_dir_all(&chart_dir).map_err(ReportError::io(&chart_dir))?;
    let histograms = histograms(&sets);
    let mut drawn = histograms
        .par_iter()
        .map(|h| charts::draw(h, &chart_dir))
        .collect::<Result<Vec<_>, ReportError>>()?;
    let scores = scores::read(dir)?;
    if let Some(summary) = &scores {
        for bars in scores::charts(summary) {
            drawn.push(charts::draw(&bars, &chart_dir)?);
        }
    }
    let chart_files = drawn
        .iter()
        .flatten()
        .filter_map(|p| p.file_name())
        .map(|name| format!("{CHARTS_DIR}/{}", name.to_string_lossy()))
        .collect();
    let pairs = pairs::count(&discovery.pairs)?;
    let mut report = assemble(discovery, tables, run, chart_files, pairs);
    report.relations = relations;
    report.scores = scores;
    let markdown = dir.join("report.md");
    write_atomically(&markdown, markdown::render(&report).as_bytes())?;
    let json = dir.join("report.json");
    let mut text = serde_json::to_string_pretty(&report).map_err(|e| ReportError::Io {
        path: json.clone(),
        source: e.into(),
    })?;
    text.push('\n');
    write_atomically(&json, text.as_bytes())?;
    Ok(Written {
        report,
        markdown,
        json,
    })
}

pub(crate) fn assemble(
    discovery: Discovery,
    tables: Tables,
    run: Option<RunInfo>,
    charts: Vec<String>,
    pairs: Vec<PairCount>,
) -> Report {
    let read = discovery
        .sets
        .iter()
        .map(|s| SetSource {
            set: s.name.clone(),
            file: s
                .path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            format: match s.format {
                Format::Jsonl => "jsonl",
                Format::Parquet => "parquet",
            },
        })
        .collect();
    Report {
        sets: tables.sets,
        files: Files {
            read,
            skipped: discovery.skipped,
        },
        tokens: TOKENS,
        counts: tables.counts,
        facts: Facts {
            positions: tables.positions,
            people: tables.people,
        },
        relations: relations::Relations::default(),
        novelty: Novelty {
            bins: tables.bins,
            run: run
                .as_ref()
                .map(|r| r.novelty_bins.clone())
                .unwrap_or_default(),
        },
        pairs,
        run,
        scores: None,
        charts,
    }
}

/// The report's histograms: coverage, density, compression, novel n-grams, and
/// overlap when articles carry a novelty.
fn histograms(sets: &[(String, Vec<ArticleRow>)]) -> Vec<Histogram> {
    let series = |f: &dyn Fn(&ArticleRow) -> Option<f64>| -> Vec<(String, Vec<f64>)> {
        sets.iter()
            .map(|(name, rows)| (name.clone(), rows.iter().filter_map(f).collect()))
            .collect()
    };
    let histogram = |name: &str, title: &str, x_label: &str, range, bins, series| Histogram {
        name: name.into(),
        title: title.into(),
        x_label: x_label.into(),
        range,
        bins,
        series,
    };
    let density = series(&|r| Some(r.stats.extractiveness.density));
    let compression = series(&|r| Some(r.stats.extractiveness.compression));
    let mut out = vec![
        histogram(
            "coverage",
            "Extractive fragment coverage",
            "coverage",
            (0.0, 1.0),
            20,
            series(&|r| Some(r.stats.extractiveness.coverage)),
        ),
        histogram(
            "density",
            "Extractive fragment density (last bin: all above)",
            "density",
            (0.0, upper_end(&density)),
            25,
            density,
        ),
        histogram(
            "compression",
            "Compression (last bin: all above)",
            "article tokens / summary tokens",
            (0.0, upper_end(&compression)),
            25,
            compression,
        ),
    ];
    for (i, n) in fragments::NOVEL_NGRAM_SIZES.into_iter().enumerate() {
        out.push(histogram(
            &format!("novel_{n}grams"),
            &format!("Novel {n}-grams of the summary"),
            &format!("% of the summary's distinct {n}-grams not in the article"),
            (0.0, 100.0),
            20,
            series(&|r| r.stats.novel[i]),
        ));
    }
    let overlap = series(&|r| r.novelty.as_ref().map(|n| n.overlap));
    if overlap.iter().any(|(_, v)| !v.is_empty()) {
        out.push(histogram(
            "overlap",
            "Novelty: n-gram overlap with the training summaries",
            "% of the summary's n-grams in the training summaries",
            (0.0, 100.0),
            20,
            overlap.into_iter().filter(|(_, v)| !v.is_empty()).collect(),
        ));
    }
    out
}

/// The upper end of an axis: the 99th percentile of every value, rounded up to an
/// integer (at least 1), so one outlier does not squash the histogram.
fn upper_end(series: &[(String, Vec<f64>)]) -> f64 {
    let mut all: Vec<f64> = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .filter(|v| v.is_finite())
        .collect();
    if all.is_empty() {
        return 1.0;
    }
    all.sort_by(f64::total_cmp);
    let p99 = all[(all.len() - 1) * 99 / 100];
    p99.ceil().max(1.0)
}

/// Writes `path` through the engine's atomic write, so a file under its final name
/// is complete.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    use std::io::Write as _;
    tempora_engine::runtime::write_atomically(path, |w| w.write_all(bytes))
        .map_err(ReportError::io(path))
}
