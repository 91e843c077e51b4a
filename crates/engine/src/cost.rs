//! What a run cost: requests to outside services by kind, what became of the
//! work (items skipped before their costly step, by reason; records rejected per
//! stage), and the cost figure, requests per kept article.
//!
//! The engine knows no service. A stage kind declares the kinds of request it
//! sends ([`RequestKind`], in [`StageKind::requests`](crate::StageKind::requests))
//! and counts each under [`RequestKind::counter`]; retries under
//! [`REQUESTS_RETRIED`], skipped items under [`skipped_counter`]. The runtime adds
//! them up for `run.json`'s `cost`, and the dry run names them.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::AddAssign;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::stats::StageReport;
use tempora_records::RecordKind;

/// A kind of request a stage sends to an outside service, declared by the stage
/// kinds that send it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestKind {
    /// Its key: `run.json`'s `cost.requests.<key>` and the counter `requests_<key>`.
    pub key: &'static str,
    /// Its name in the dry run's words: `4 <label> requests`.
    pub label: &'static str,
    /// Whether each such request fetches an item the run may keep: `run.json`'s
    /// `<key>_requests_per_kept_article` divides their count by the kept articles.
    pub per_kept_article: bool,
}

impl RequestKind {
    /// The stage counter that counts these requests: `requests_<key>`.
    pub fn counter(&self) -> String {
        format!("requests_{}", self.key)
    }
}

/// Counter of requests that were a retry, of any kind (after a 5xx, a timeout, a
/// cut body, a 429 pause).
pub const REQUESTS_RETRIED: &str = "requests_retried";

/// Prefix of the counters of items left out before their costly step, by reason.
const SKIPPED_PREFIX: &str = "skipped_";

/// The counter of items left out before their costly step (a capture not
/// fetched) for `reason`: `skipped_<reason>`, `run.json`'s
/// `cost.skipped_before_fetching.<reason>`.
pub fn skipped_counter(reason: &str) -> String {
    format!("{SKIPPED_PREFIX}{reason}")
}

/// Requests by kind, and how many of them were retries. In `run.json`, an object
/// of each kind's key (every declared kind, zero included) and `retried`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requests {
    by_kind: BTreeMap<RequestKind, u64>,
    /// Of all of them, those that were retries.
    pub retried: u64,
}

impl Requests {
    /// No requests yet, of these kinds (each shown with zero).
    pub fn of_kinds<'a>(kinds: impl IntoIterator<Item = &'a RequestKind>) -> Self {
        Self {
            by_kind: kinds.into_iter().map(|k| (*k, 0)).collect(),
            retried: 0,
        }
    }

    /// `n` requests of `kind`.
    pub fn of(kind: RequestKind, n: u64) -> Self {
        let mut r = Self::default();
        r.add(kind, n);
        r
    }

    /// Adds `n` requests of `kind`.
    pub fn add(&mut self, kind: RequestKind, n: u64) {
        *self.by_kind.entry(kind).or_default() += n;
    }

    /// Requests of `kind`.
    pub fn get(&self, kind: RequestKind) -> u64 {
        self.by_kind.get(&kind).copied().unwrap_or(0)
    }

    /// Every request.
    pub fn total(&self) -> u64 {
        self.by_kind.values().sum()
    }
}

impl AddAssign<&Requests> for Requests {
    fn add_assign(&mut self, other: &Requests) {
        for (kind, n) in &other.by_kind {
            self.add(*kind, *n);
        }
        self.retried += other.retried;
    }
}

impl Serialize for Requests {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.by_kind.len() + 1))?;
        for (kind, n) in &self.by_kind {
            map.serialize_entry(kind.key, n)?;
        }
        map.serialize_entry("retried", &self.retried)?;
        map.end()
    }
}

/// `4 CDX, 12,000 page requests`, `no requests`.
impl fmt::Display for Requests {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .by_kind
            .iter()
            .map(|(kind, n)| (kind.label, *n))
            .chain([("retried", self.retried)])
            .filter(|(_, n)| *n > 0)
            .map(|(label, n)| format!("{} {label}", thousands(n)))
            .collect();
        if parts.is_empty() {
            f.write_str("no requests")
        } else {
            write!(f, "{} requests", parts.join(", "))
        }
    }
}

/// `run.json`'s `cost`: what the run asked of outside services and what it kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CrawlCost {
    /// Requests by kind, over every stage.
    pub requests: Requests,
    /// Items left out before their costly step, by reason (for the Archive's
    /// stages: captures not fetched, as `not_article`, `duplicate`, `excluded`,
    /// `outside_windows`), over every stage.
    pub skipped_before_fetching: BTreeMap<String, u64>,
    /// Records rejected, per stage that rejected any.
    pub rejected: BTreeMap<String, u64>,
    /// Articles the run kept: the most any sink of the records a set is made of
    /// ([`RecordKind::SET_UNIT`]) received.
    pub kept_articles: u64,
}

impl CrawlCost {
    /// Nothing spent yet on requests of the `declared` kinds.
    pub fn declared(declared: &[RequestKind]) -> Self {
        Self {
            requests: Requests::of_kinds(declared),
            ..Self::default()
        }
    }

    /// Adds up the stages' counters of the `declared` request kinds. `sink_kinds`
    /// gives, per stage name, the kind of records a sink receives (sinks of
    /// articles count the kept articles).
    pub fn from_stages(
        stages: &[StageReport],
        sink_kinds: &BTreeMap<String, RecordKind>,
        declared: &[RequestKind],
    ) -> Self {
        let counters: BTreeMap<String, RequestKind> =
            declared.iter().map(|k| (k.counter(), *k)).collect();
        let mut cost = Self::declared(declared);
        for stage in stages {
            for (name, value) in &stage.counters {
                let n = value.as_u64().unwrap_or(0);
                if let Some(kind) = counters.get(name) {
                    cost.requests.add(*kind, n);
                } else if name == REQUESTS_RETRIED {
                    cost.requests.retried += n;
                } else if let Some(reason) = name.strip_prefix(SKIPPED_PREFIX) {
                    *cost
                        .skipped_before_fetching
                        .entry(reason.to_string())
                        .or_default() += n;
                }
            }
            if stage.rejected > 0 {
                cost.rejected.insert(stage.name.clone(), stage.rejected);
            }
            if sink_kinds.get(&stage.name) == Some(&RecordKind::SET_UNIT) {
                cost.kept_articles = cost.kept_articles.max(stage.records_in);
            }
        }
        cost
    }

    /// Requests of `kind` per kept article (`None` when none was kept).
    pub fn per_kept_article(&self, kind: RequestKind) -> Option<f64> {
        (self.kept_articles > 0).then(|| self.requests.get(kind) as f64 / self.kept_articles as f64)
    }
}

/// The fields above, then `<key>_requests_per_kept_article` for each request
/// kind that fetches what a run keeps (null when none was kept).
impl Serialize for CrawlCost {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let per_kept: Vec<RequestKind> = self
            .requests
            .by_kind
            .keys()
            .filter(|k| k.per_kept_article)
            .copied()
            .collect();
        let mut map = serializer.serialize_map(Some(4 + per_kept.len()))?;
        map.serialize_entry("requests", &self.requests)?;
        map.serialize_entry("skipped_before_fetching", &self.skipped_before_fetching)?;
        map.serialize_entry("rejected", &self.rejected)?;
        map.serialize_entry("kept_articles", &self.kept_articles)?;
        for kind in per_kept {
            map.serialize_entry(
                &format!("{}_requests_per_kept_article", kind.key),
                &self.per_kept_article(kind),
            )?;
        }
        map.end()
    }
}

/// `12,345`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: RequestKind = RequestKind {
        key: "list",
        label: "listing",
        per_kept_article: false,
    };
    const FETCH: RequestKind = RequestKind {
        key: "fetch",
        label: "fetch",
        per_kept_article: true,
    };

    fn stage(name: &str, counters: &[(&str, u64)], records_in: u64) -> StageReport {
        StageReport {
            name: name.into(),
            kind: "k".into(),
            records_in,
            records_out: 0,
            rejected: 2,
            ports: serde_json::Map::new(),
            seconds: 0.0,
            counters: counters
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).into()))
                .collect(),
            metrics: serde_json::Map::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn adds_up_declared_requests_skips_and_kept_articles() {
        let skipped = skipped_counter("duplicate");
        let stages = [
            stage(
                "captures",
                &[("requests_list", 3), (REQUESTS_RETRIED, 1)],
                0,
            ),
            stage("undeclared", &[("requests_other", 50)], 0),
            stage("wanted", &[(&skipped, 7), ("to_fetch", 40)], 90),
            stage("pages", &[("requests_fetch", 40)], 40),
            stage("write", &[], 8),
            stage("write_facts", &[], 500),
        ];
        let sinks = BTreeMap::from([
            ("write".to_string(), RecordKind::Article),
            ("write_facts".to_string(), RecordKind::Fact),
        ]);
        let cost = CrawlCost::from_stages(&stages, &sinks, &[LIST, FETCH]);
        assert_eq!(cost.requests.get(LIST), 3);
        assert_eq!(cost.requests.get(FETCH), 40);
        assert_eq!(cost.requests.retried, 1);
        assert_eq!(cost.requests.total(), 43, "undeclared counters are no cost");
        assert_eq!(cost.skipped_before_fetching["duplicate"], 7);
        assert_eq!(cost.kept_articles, 8);
        assert_eq!(cost.per_kept_article(FETCH), Some(5.0));
        assert_eq!(cost.rejected.len(), 6);
        let none = CrawlCost::from_stages(&stages[..4], &sinks, &[LIST, FETCH]);
        assert_eq!(none.per_kept_article(FETCH), None);
    }

    #[test]
    fn run_json_names_every_declared_kind_and_the_figure_of_the_fetching_one() {
        let cost = CrawlCost::from_stages(&[], &BTreeMap::new(), &[FETCH, LIST]);
        assert_eq!(
            serde_json::to_string(&cost).unwrap(),
            r#"{"requests":{"fetch":0,"list":0,"retried":0},"skipped_before_fetching":{},"rejected":{},"kept_articles":0,"fetch_requests_per_kept_article":null}"#
        );
        let stages = [
            stage("pages", &[("requests_fetch", 3)], 2),
            stage("out", &[], 2),
        ];
        let sinks = BTreeMap::from([("out".to_string(), RecordKind::Article)]);
        let cost =
            serde_json::to_value(CrawlCost::from_stages(&stages, &sinks, &[FETCH, LIST])).unwrap();
        assert_eq!(cost["fetch_requests_per_kept_article"], 1.5);
        assert_eq!(cost["requests"]["fetch"], 3);
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn requests_are_told_by_label_in_key_order_retries_last() {
        let mut r = Requests::of(LIST, 4);
        r += &Requests::of(FETCH, 12_000);
        assert_eq!(r.to_string(), "12,000 fetch, 4 listing requests");
        r.retried = 2;
        assert_eq!(r.to_string(), "12,000 fetch, 4 listing, 2 retried requests");
        assert_eq!(Requests::of_kinds(&[LIST]).to_string(), "no requests");
    }
}
