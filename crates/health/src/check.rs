//! A run's figures against the earlier runs': what moved far enough to be a
//! finding, with both numbers and why it matters.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::figures::{
    RunFigures, KEPT, PAGES_FAILED, RELATION_ARTICLES, RELATION_FACTS, REQUESTS_PER_ARTICLE,
};
use crate::settings::HealthSettings;

/// `ok`, or `warn` when there is a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Nothing far outside the earlier runs (or nothing to compare with: see `note`).
    Ok,
    /// At least one finding.
    Warn,
}

/// One figure far outside what the earlier runs give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The figure (`articles bbc/sport`, `pages rejected as not_recognised`, ...).
    pub figure: String,
    /// This run's value (a count, a share from 0 to 1, or a ratio).
    pub value: f64,
    /// What the earlier runs lead to expect: their median (a count's scaled to the
    /// time this run covers).
    pub expected: f64,
    /// The earlier runs' lowest and highest (scaled as `expected`).
    pub range: [f64; 2],
    /// How many earlier runs the expectation is taken from.
    pub runs: usize,
    /// Both numbers as people read them (`0 this run, 25 expected from the last
    /// 14 runs (18 to 31)`).
    pub numbers: String,
    /// Why it matters.
    pub why: String,
    /// One line: the figure, both numbers and the reason it matters.
    pub message: String,
}

/// The check of one run (`run.json`'s `health`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// `ok` or `warn`.
    pub status: Status,
    /// Earlier completed runs this one was compared with.
    pub compared_with: usize,
    /// Days of the Archive's time this run covered: its listing's newest capture
    /// less the one before it (`null` for a first run; 1 per run when nothing lists).
    pub days: Option<f64>,
    /// Whether later runs compare with this one (not a `--rebuild`).
    pub baseline: bool,
    /// What the check could not do, when it could not do all (nothing to compare
    /// with, too few runs, not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Each figure far outside the earlier runs.
    pub findings: Vec<Finding>,
    /// Articles kept by this run (the card's chart of kept articles per run).
    pub kept: u64,
}

impl Health {
    /// A run that is not checked and that no later run compares with.
    pub fn not_checked(why: &str, kept: u64) -> Self {
        Self {
            status: Status::Ok,
            compared_with: 0,
            days: None,
            baseline: false,
            note: Some(format!("not checked: {why}")),
            findings: Vec::new(),
            kept,
        }
    }

    /// The summary lines a run prints: one for the check, one per finding.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![match (self.status, &self.note) {
            (Status::Warn, _) => format!(
                "health: warn: {} finding{} against the last {} runs",
                self.findings.len(),
                if self.findings.len() == 1 { "" } else { "s" },
                self.compared_with
            ),
            (Status::Ok, Some(note)) => format!("health: ok ({note})"),
            (Status::Ok, None) => format!(
                "health: ok (every figure within the last {} runs' range)",
                self.compared_with
            ),
        }];
        lines.extend(
            self.findings
                .iter()
                .map(|f| format!("  finding: {}", f.message)),
        );
        lines
    }
}

/// `this` against `earlier` (oldest first; the runs just before it, one more than
/// `settings.runs` so the oldest compared has its days too).
pub fn compare(this: &RunFigures, earlier: &[RunFigures], settings: &HealthSettings) -> Health {
    let mut all: Vec<&RunFigures> = earlier.iter().collect();
    all.push(this);
    let days = spans(&all);
    let this_days = days.last().copied().flatten();
    let first = earlier.len().saturating_sub(settings.runs);
    let trailing: Vec<(&RunFigures, Option<f64>)> = earlier
        .iter()
        .zip(days.iter().copied())
        .skip(first)
        .filter(|(r, _)| r.baseline)
        .collect();
    let judge = Judge {
        this,
        trailing: &trailing,
        settings,
    };
    let mut judged = Judged::default();
    if let Some(days) = this_days {
        judge.counts(days, &mut judged);
    }
    judge.shares(&mut judged);
    judge.requests(&mut judged);
    let compared_with = trailing.len();
    let note = if compared_with == 0 {
        Some("nothing to compare with: no earlier completed run in this output folder".to_string())
    } else if judged.figures == 0 {
        Some(format!(
            "{compared_with} earlier run{}: figures are judged once {} have them (`[pipeline.health] min_runs`)",
            if compared_with == 1 { "" } else { "s" },
            settings.min_runs
        ))
    } else {
        None
    };
    Health {
        status: if judged.findings.is_empty() {
            Status::Ok
        } else {
            Status::Warn
        },
        compared_with,
        days: this_days,
        baseline: true,
        note,
        findings: judged.findings,
        kept: this.counts.get(KEPT).copied().unwrap_or(0),
    }
}

/// One run's figures and the earlier runs' (each with the days it covered).
struct Judge<'a> {
    this: &'a RunFigures,
    trailing: &'a [(&'a RunFigures, Option<f64>)],
    settings: &'a HealthSettings,
}

/// How many figures were judged, and the findings.
#[derive(Default)]
struct Judged {
    figures: usize,
    findings: Vec<Finding>,
}

impl Judge<'_> {
    /// Counts, per day of the Archive's time: a finding when one falls below a
    /// `factor` of what the earlier runs' median rate gives for `days`, further
    /// than chance explains.
    fn counts(&self, days: f64, judged: &mut Judged) {
        let names: BTreeSet<&String> = self
            .trailing
            .iter()
            .flat_map(|(r, _)| r.counts.keys())
            .chain(self.this.counts.keys())
            .collect();
        for name in names {
            let rates: Vec<f64> = self
                .trailing
                .iter()
                .filter_map(|(r, d)| {
                    let d = d.filter(|d| *d > 0.0)?;
                    Some(as_f64(r.counts.get(name).copied().unwrap_or(0)) / d)
                })
                .collect();
            if rates.len() < self.settings.min_runs {
                continue;
            }
            judged.figures += 1;
            let value = as_f64(self.this.counts.get(name).copied().unwrap_or(0));
            let (low, median, high) = spread(&rates);
            let expected = median * days;
            // Chance: Poisson, widened by how much the earlier runs' rates vary
            // themselves (weekends, the Archive's uneven pace).
            let varies = 1.4826 * mad(&rates, median) * days;
            let chance = (expected + varies * varies).sqrt();
            if value < expected / self.settings.factor
                && expected - value > self.settings.sigmas * chance
            {
                judged.findings.push(finding(
                    name,
                    value,
                    expected,
                    [low * days, high * days],
                    rates.len(),
                    count_reason(name),
                ));
            }
        }
    }

    /// Shares: a finding when one moves `share_change` from the earlier runs'
    /// median, further than chance explains (binomial).
    fn shares(&self, judged: &mut Judged) {
        let names: BTreeSet<&String> = self
            .trailing
            .iter()
            .flat_map(|(r, _)| r.share_names())
            .chain(self.this.share_names())
            .collect();
        for name in names {
            let now = self.this.share(name);
            let Some(value) = now.value() else { continue };
            let shares: Vec<f64> = self
                .trailing
                .iter()
                .filter_map(|(r, _)| r.share(name).value())
                .collect();
            if shares.len() < self.settings.min_runs {
                continue;
            }
            judged.figures += 1;
            let (low, median, high) = spread(&shares);
            let q = median.clamp(0.05, 0.95);
            let chance = (q * (1.0 - q) / as_f64(now.n)).sqrt();
            let moved = (value - median).abs();
            if moved >= self.settings.share_change && moved > self.settings.sigmas * chance {
                judged.findings.push(finding(
                    name,
                    value,
                    median,
                    [low, high],
                    shares.len(),
                    share_reason(name, value > median),
                ));
            }
        }
    }

    /// Page requests per kept article: a finding when they rise above a `factor`
    /// of the earlier runs' median, further than chance explains (Poisson).
    fn requests(&self, judged: &mut Judged) {
        let ratios: Vec<f64> = self.trailing.iter().filter_map(|(r, _)| ratio(r)).collect();
        let Some(value) = ratio(self.this) else {
            return;
        };
        if ratios.len() < self.settings.min_runs {
            return;
        }
        judged.figures += 1;
        let (low, median, high) = spread(&ratios);
        let expected_requests = median * as_f64(self.this.requests.n);
        let extra = as_f64(self.this.requests.of) - expected_requests;
        if value > median * self.settings.factor
            && extra > self.settings.sigmas * expected_requests.sqrt()
        {
            judged.findings.push(finding(
                REQUESTS_PER_ARTICLE,
                value,
                median,
                [low, high],
                ratios.len(),
                "each kept article costs more page requests than before: the crawl fetches pages that give no article",
            ));
        }
    }
}

/// The days of the Archive's time each run covered: its newest listed capture
/// less the newest before it (0 when it listed nothing new, `None` for the first
/// that lists); 1 for each run when no run lists captures.
fn spans(runs: &[&RunFigures]) -> Vec<Option<f64>> {
    if !runs.iter().any(|r| r.lists) {
        return vec![Some(1.0); runs.len()];
    }
    let mut newest = None;
    runs.iter()
        .map(|r| {
            let days = match (newest, r.listed_until) {
                (Some(before), Some(now)) => Some(as_days(now - before).max(0.0)),
                (Some(_), None) => Some(0.0),
                (None, _) => None,
            };
            newest = newest.max(r.listed_until);
            days
        })
        .collect()
}

fn as_days(d: chrono::TimeDelta) -> f64 {
    as_f64(u64::try_from(d.num_seconds()).unwrap_or(0)) / 86_400.0
}

fn ratio(r: &RunFigures) -> Option<f64> {
    (r.requests.n > 0).then(|| as_f64(r.requests.of) / as_f64(r.requests.n))
}

/// Lowest, median, highest.
fn spread(values: &[f64]) -> (f64, f64, f64) {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    let median = if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    };
    (v[0], median, v[v.len() - 1])
}

/// The median absolute deviation of `values` from `median`.
fn mad(values: &[f64], median: f64) -> f64 {
    let deviations: Vec<f64> = values.iter().map(|v| (v - median).abs()).collect();
    spread(&deviations).1
}

#[allow(clippy::cast_precision_loss)]
fn as_f64(n: u64) -> f64 {
    n as f64
}

fn finding(
    figure: &str,
    value: f64,
    expected: f64,
    range: [f64; 2],
    runs: usize,
    why: &str,
) -> Finding {
    let shown = |x: f64| {
        if figure == PAGES_FAILED
            || figure.starts_with("pages rejected as ")
            || figure.starts_with("summaries from ")
        {
            format!("{:.0}%", x * 100.0)
        } else if figure == REQUESTS_PER_ARTICLE {
            format!("{x:.2}")
        } else {
            format!("{x:.0}")
        }
    };
    let numbers = format!(
        "{} this run, {} expected from the last {runs} runs ({} to {})",
        shown(value),
        shown(expected),
        shown(range[0]),
        shown(range[1]),
    );
    Finding {
        figure: figure.to_string(),
        value,
        expected,
        range,
        runs,
        message: format!("{figure}: {numbers}: {why}"),
        numbers,
        why: why.to_string(),
    }
}

fn count_reason(figure: &str) -> &'static str {
    if figure.starts_with("captures listed") {
        "the Archive lists fewer new captures than before: it may have stopped capturing these pages, or the site moved them"
    } else if figure.starts_with(RELATION_ARTICLES) {
        "fewer articles with facts of this relation than before: its facts were lost, or the articles that name them"
    } else if figure.starts_with(RELATION_FACTS) {
        "fewer facts than before: the dump or reading holds fewer statements of the relation, or Wikidata's services answered less"
    } else {
        "fewer articles than before: the Archive may have stopped capturing them, or their pages are in a layout no site profile reads"
    }
}

fn share_reason(figure: &str, up: bool) -> &'static str {
    match (figure, up) {
        ("pages rejected as not_recognised", true) => {
            "more pages in a layout no site profile reads: the site has likely changed its layout (add it to the site's profile)"
        }
        (PAGES_FAILED, true) => "the Archive failed more page requests than before: it may be failing or refusing the crawl",
        (f, _) if f.starts_with("summaries from ") => {
            "the reference summaries come from elsewhere than before: a layout change may have moved the summary"
        }
        (f, _) if f.starts_with("pages rejected as ") => {
            "extraction rejects pages for this reason at another rate than before: the pages listed or their layout changed"
        }
        _ => "this share moved far from the earlier runs'",
    }
}
