//! A run's figures, read from its `run.json`: what the stages counted, named as
//! the operator reads them. Read from the report, not kept apart, so runs made
//! before the check existed compare too.

use std::collections::BTreeMap;

use chrono::NaiveDateTime;
use serde::Deserialize;
use serde_json::Value;
use tempora_records::counters::{
    ExtractCount, FetchCount, ListingMetric, Refresh, RelationArticles, RelationFacts,
    FACT_SOURCE_KINDS, SETS_STAGE_KIND,
};

/// Articles kept (what reached the sinks).
pub const KEPT: &str = "articles kept";
/// Page requests per kept article.
pub const REQUESTS_PER_ARTICLE: &str = "page requests per kept article";
/// Pages whose fetch failed, as a share of the pages requested.
pub const PAGES_FAILED: &str = "pages failed";
/// Evolving facts read (from a dump, a facts file or Wikidata's services).
pub const FACTS_READ: &str = "facts read";
/// Wikidata entities a refresh read again (new, or edited since the last reading).
pub const ENTITIES_CHANGED: &str = "Wikidata entities changed";
/// Facts that differ from the last reading's (new ones and gone ones).
pub const FACTS_CHANGED: &str = "facts changed";
/// Articles a set selected: `articles selected future`.
pub const SELECTED: &str = "articles selected";
/// Evolving facts read of one relation: `facts read P54`.
pub const RELATION_FACTS: &str = "facts read";
/// Articles kept for the sets with a fact of one relation (the `conflicts`
/// stage's): `articles with facts of P54`.
pub const RELATION_ARTICLES: &str = "articles with facts of";

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
        let mut tally = Tally {
            figures: Self {
                run: run["run"].as_str().unwrap_or_default().to_string(),
                baseline: run["health"]["baseline"].as_bool().unwrap_or(true),
                ..Self::default()
            },
            ..Tally::default()
        };
        for stage in run["stages"].as_array().into_iter().flatten() {
            match stage["kind"].as_str().unwrap_or_default() {
                ExtractCount::STAGE_KIND => tally.extract(stage),
                ListingMetric::STAGE_KIND => tally.listing(&stage["metrics"]),
                FetchCount::STAGE_KIND => {
                    let counter = |c: FetchCount| stage["counters"][c.name()].as_u64().unwrap_or(0);
                    tally.fetched += counter(FetchCount::Fetched);
                    tally.failed += counter(FetchCount::Failed);
                }
                kind if FACT_SOURCE_KINDS.contains(&kind) => tally.facts(stage),
                SETS_STAGE_KIND => tally.sets(stage),
                RelationArticles::STAGE_KIND => tally.relation_articles(stage),
                _ => {}
            }
        }
        tally.finish(&run["cost"])
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

/// What the stages of one run counted, gathered stage by stage.
#[derive(Default)]
struct Tally {
    figures: RunFigures,
    pages_read: u64,
    articles_read: u64,
    fetched: u64,
    failed: u64,
    rejected: BTreeMap<String, u64>,
    summaries: BTreeMap<String, u64>,
}

impl Tally {
    /// An `extract` stage: pages read, articles per section, summaries per
    /// source, pages rejected per reason.
    fn extract(&mut self, stage: &Value) {
        self.pages_read += stage["records_in"].as_u64().unwrap_or(0);
        self.articles_read += stage["records_out"].as_u64().unwrap_or(0);
        for (name, n) in stage["counters"].as_object().into_iter().flatten() {
            let n = n.as_u64().unwrap_or(0);
            match ExtractCount::parse(name) {
                Some(ExtractCount::Section { source, section }) => add(
                    &mut self.figures.counts,
                    format!("articles {source}/{section}"),
                    n,
                ),
                Some(ExtractCount::SummarySource(source)) => {
                    add(&mut self.summaries, format!("summaries from {source}"), n);
                }
                Some(ExtractCount::Rejected(reason)) => {
                    add(&mut self.rejected, format!("pages rejected as {reason}"), n);
                }
                Some(ExtractCount::Layout(_)) | None => {}
            }
        }
    }

    /// A source of evolving facts: the facts it read and, for a reading of
    /// Wikidata's services, the entities it read again.
    fn facts(&mut self, stage: &Value) {
        let counts = &mut self.figures.counts;
        add(
            counts,
            FACTS_READ.into(),
            stage["records_out"].as_u64().unwrap_or(0),
        );
        per_relation(counts, stage, RELATION_FACTS, |name| {
            RelationFacts::parse(name).map(|r| r.0)
        });
        let refresh = Refresh::deserialize(&stage["metrics"][Refresh::METRIC]);
        if let Ok(refresh) = refresh {
            add(counts, ENTITIES_CHANGED.into(), refresh.changed as u64);
            add(counts, FACTS_CHANGED.into(), refresh.facts_changed as u64);
        }
    }

    /// The `conflicts` stage: the articles it kept with a fact of each relation.
    fn relation_articles(&mut self, stage: &Value) {
        per_relation(&mut self.figures.counts, stage, RELATION_ARTICLES, |name| {
            RelationArticles::parse(name).map(|r| r.0)
        });
    }

    /// The `split` stage: the articles each set selected.
    fn sets(&mut self, stage: &Value) {
        for (set, n) in stage["ports"].as_object().into_iter().flatten() {
            if set != "unassigned" {
                add(
                    &mut self.figures.counts,
                    format!("{SELECTED} {set}"),
                    n.as_u64().unwrap_or(0),
                );
            }
        }
    }

    /// A `wayback-cdx` stage: captures listed per URL pattern, and the newest.
    fn listing(&mut self, metrics: &Value) {
        let counts = &mut self.figures.counts;
        self.figures.lists = true;
        for (pattern, n) in metrics[ListingMetric::Listed.name()]
            .as_object()
            .into_iter()
            .flatten()
        {
            let n = n.as_u64().unwrap_or(0);
            add(counts, format!("captures listed {pattern}"), n);
            add(counts, "captures listed".into(), n);
        }
        let until = metrics[ListingMetric::ListedUntil.name()]
            .as_str()
            .and_then(|t| NaiveDateTime::parse_from_str(t, "%Y%m%d%H%M%S").ok());
        self.figures.listed_until = self.figures.listed_until.max(until);
    }

    /// The figures, with the run's `cost` (kept articles, page requests).
    fn finish(self, cost: &Value) -> RunFigures {
        let mut figures = self.figures;
        let kept = cost["kept_articles"].as_u64().unwrap_or(self.articles_read);
        figures.counts.insert(KEPT.into(), kept);
        let whole = |of: BTreeMap<String, u64>, n: u64| {
            of.into_iter().map(move |(k, of)| (k, Share { of, n }))
        };
        figures.shares.extend(whole(self.rejected, self.pages_read));
        figures
            .shares
            .extend(whole(self.summaries, self.articles_read));
        figures.shares.insert(
            PAGES_FAILED.into(),
            Share {
                of: self.failed,
                n: self.fetched + self.failed,
            },
        );
        figures.requests = Share {
            of: cost["requests"]["page"].as_u64().unwrap_or(0),
            n: kept,
        };
        // The wholes, so a reason no page of this run had is a share of 0 of the
        // pages it read.
        for (name, n) in [
            ("pages read", self.pages_read),
            ("articles read", self.articles_read),
        ] {
            figures.shares.insert(name.into(), Share { of: n, n });
        }
        figures
    }
}

fn add(map: &mut BTreeMap<String, u64>, key: String, n: u64) {
    *map.entry(key).or_default() += n;
}

/// Adds each of `stage`'s counters that `relation` reads as one relation's to
/// the figure `figure` of that relation (`facts read P54`).
fn per_relation<'a>(
    map: &mut BTreeMap<String, u64>,
    stage: &'a Value,
    figure: &str,
    relation: impl Fn(&'a str) -> Option<&'a str>,
) {
    for (name, n) in stage["counters"].as_object().into_iter().flatten() {
        if let Some(relation) = relation(name) {
            add(map, format!("{figure} {relation}"), n.as_u64().unwrap_or(0));
        }
    }
}
