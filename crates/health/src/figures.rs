//! A run's figures, read from its `run.json`: what the stages counted, named as
//! the operator reads them. Read from the report, not kept apart, so runs made
//! before the check existed compare too.

use std::collections::BTreeMap;

use chrono::NaiveDateTime;
use serde_json::Value;

/// Articles kept (what reached the sinks).
pub const KEPT: &str = "articles kept";
/// Page requests per kept article.
pub const REQUESTS_PER_ARTICLE: &str = "page requests per kept article";
/// Pages whose fetch failed, as a share of the pages requested.
pub const PAGES_FAILED: &str = "pages failed";

/// A share: `of` of `n`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Share {
    /// The part.
    pub of: u64,
    /// The whole.
    pub n: u64,
}

impl Share {
    /// `of / n`, `None` when there is no whole.
    pub fn value(self) -> Option<f64> {
        #[allow(clippy::cast_precision_loss)]
        (self.n > 0).then(|| self.of as f64 / self.n as f64)
    }
}

/// What one run counted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFigures {
    /// The run's name (`runs/<run>/`).
    pub run: String,
    /// The newest capture its listing handed on (how far the Archive's time has
    /// come); `None` when it listed nothing new.
    pub listed_until: Option<NaiveDateTime>,
    /// Whether any stage lists captures (otherwise every run counts as one day).
    pub lists: bool,
    /// Counts that grow with the time a run covers: articles kept, per site and
    /// section (`articles bbc/sport`), captures listed per URL pattern.
    pub counts: BTreeMap<String, u64>,
    /// Shares: pages rejected per reason, summaries per source, pages failed.
    pub shares: BTreeMap<String, Share>,
    /// Page requests and kept articles, for requests per kept article.
    pub requests: Share,
    /// Whether other runs may be compared with it (a `--rebuild` run makes the
    /// whole set anew: its figures are no night's).
    pub baseline: bool,
}

impl RunFigures {
    /// The figures of the run `run.json` describes.
    pub fn of_run(run: &Value) -> Self {
        let mut figures = Self {
            run: run["run"].as_str().unwrap_or_default().to_string(),
            baseline: run["health"]["baseline"].as_bool().unwrap_or(true),
            ..Self::default()
        };
        let mut pages_read = 0;
        let mut articles_read = 0;
        let mut fetched = 0;
        let mut failed = 0;
        let mut rejected = BTreeMap::new();
        let mut summaries = BTreeMap::new();
        for stage in run["stages"].as_array().into_iter().flatten() {
            let counters = stage["counters"].as_object();
            let counter = |name: &str| counters.and_then(|c| c.get(name)).and_then(Value::as_u64);
            match stage["kind"].as_str() {
                Some("extract") => {
                    pages_read += stage["records_in"].as_u64().unwrap_or(0);
                    articles_read += stage["records_out"].as_u64().unwrap_or(0);
                    for (name, n) in counters.into_iter().flatten() {
                        let n = n.as_u64().unwrap_or(0);
                        if let Some(section) = name.strip_prefix("section ") {
                            add(&mut figures.counts, format!("articles {section}"), n);
                        } else if let Some(source) = name.strip_prefix("summary_source ") {
                            add(&mut summaries, format!("summaries from {source}"), n);
                        } else if let Some(reason) = name.strip_prefix("rejected: ") {
                            add(&mut rejected, format!("pages rejected as {reason}"), n);
                        }
                    }
                }
                Some("wayback-cdx") => {
                    figures.lists = true;
                    let metrics = &stage["metrics"];
                    for (pattern, n) in metrics["listed"].as_object().into_iter().flatten() {
                        let n = n.as_u64().unwrap_or(0);
                        add(&mut figures.counts, format!("captures listed {pattern}"), n);
                        add(&mut figures.counts, "captures listed".into(), n);
                    }
                    let until = metrics["listed_until"]
                        .as_str()
                        .and_then(|t| NaiveDateTime::parse_from_str(t, "%Y%m%d%H%M%S").ok());
                    figures.listed_until = figures.listed_until.max(until);
                }
                Some("wayback-fetch") => {
                    fetched += counter("fetched").unwrap_or(0);
                    failed += counter("failed").unwrap_or(0);
                }
                _ => {}
            }
        }
        let kept = run["cost"]["kept_articles"]
            .as_u64()
            .unwrap_or(articles_read);
        figures.counts.insert(KEPT.into(), kept);
        let whole = |of: BTreeMap<String, u64>, n: u64| {
            of.into_iter().map(move |(k, of)| (k, Share { of, n }))
        };
        figures.shares.extend(whole(rejected, pages_read));
        figures.shares.extend(whole(summaries, articles_read));
        figures.shares.insert(
            PAGES_FAILED.into(),
            Share {
                of: failed,
                n: fetched + failed,
            },
        );
        figures.requests = Share {
            of: run["cost"]["requests"]["page"].as_u64().unwrap_or(0),
            n: kept,
        };
        // Shares whose whole a run shares with others: a reason no page of this run
        // had is a share of 0 of the pages it read.
        figures.shares.insert(
            "pages read".into(),
            Share {
                of: pages_read,
                n: pages_read,
            },
        );
        figures.shares.insert(
            "articles read".into(),
            Share {
                of: articles_read,
                n: articles_read,
            },
        );
        figures
    }

    /// The whole a share of `figure` is taken of in this run (a share this run has
    /// no part of is 0 of it).
    pub fn whole_of(&self, figure: &str) -> u64 {
        let key = if figure.starts_with("pages rejected as ") {
            "pages read"
        } else if figure.starts_with("summaries from ") {
            "articles read"
        } else {
            figure
        };
        self.shares.get(key).map_or(0, |s| s.n)
    }

    /// The share of `figure` in this run (0 of the whole when it has none).
    pub fn share(&self, figure: &str) -> Share {
        self.shares.get(figure).copied().unwrap_or(Share {
            of: 0,
            n: self.whole_of(figure),
        })
    }

    /// The shares worth comparing (the wholes are not).
    pub fn share_names(&self) -> impl Iterator<Item = &String> {
        self.shares
            .keys()
            .filter(|k| *k != "pages read" && *k != "articles read")
    }
}

fn add(map: &mut BTreeMap<String, u64>, key: String, n: u64) {
    *map.entry(key).or_default() += n;
}
