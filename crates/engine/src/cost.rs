//! What a crawl cost: requests to the Archive by kind, what became of the captures
//! (skipped before fetching, by reason; rejected per stage), and the cost figure,
//! page requests per kept article. Stages count with the counter names below;
//! the runtime adds them up for `run.json`'s `cost`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::records::RecordKind;
use crate::stats::StageReport;

/// Counter of CDX requests sent (retries included).
pub const REQUESTS_CDX: &str = "requests_cdx";
/// Counter of feed and sitemap captures requested (retries included).
pub const REQUESTS_FEED: &str = "requests_feed";
/// Counter of page captures requested (retries included).
pub const REQUESTS_PAGE: &str = "requests_page";
/// Counter of requests that were a retry (after a 5xx, a timeout, a cut body, a 429 pause).
pub const REQUESTS_RETRIED: &str = "requests_retried";
/// Prefix of the counters of captures left out before fetching, by reason.
pub const SKIPPED_PREFIX: &str = "skipped_";

/// Requests to the Archive, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Requests {
    /// CDX queries.
    pub cdx: u64,
    /// Feed and sitemap captures.
    pub feed: u64,
    /// Page captures.
    pub page: u64,
    /// Of all the above, those that were retries.
    pub retried: u64,
}

impl Requests {
    /// Every request.
    pub fn total(&self) -> u64 {
        self.cdx + self.feed + self.page
    }
}

/// `run.json`'s `cost`: what the run asked of the Archive and what it kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CrawlCost {
    /// Requests by kind, over every stage.
    pub requests: Requests,
    /// Captures left out before fetching, by reason (`not_article`, `duplicate`,
    /// `excluded`, `outside_windows`, `feed_summary`), over every stage.
    pub skipped_before_fetching: BTreeMap<String, u64>,
    /// Records rejected, per stage that rejected any.
    pub rejected: BTreeMap<String, u64>,
    /// Articles the run kept: the most any sink of articles received.
    pub kept_articles: u64,
    /// Page requests per kept article (null when none was kept).
    pub page_requests_per_kept_article: Option<f64>,
}

impl CrawlCost {
    /// Adds up the stages' counters. `sink_kinds` gives, per stage name, the kind
    /// of records a sink receives (sinks of articles count the kept articles).
    pub fn from_stages(stages: &[StageReport], sink_kinds: &BTreeMap<String, RecordKind>) -> Self {
        let mut cost = Self::default();
        for stage in stages {
            for (name, value) in &stage.counters {
                let n = value.as_u64().unwrap_or(0);
                match name.as_str() {
                    REQUESTS_CDX => cost.requests.cdx += n,
                    REQUESTS_FEED => cost.requests.feed += n,
                    REQUESTS_PAGE => cost.requests.page += n,
                    REQUESTS_RETRIED => cost.requests.retried += n,
                    other => {
                        if let Some(reason) = other.strip_prefix(SKIPPED_PREFIX) {
                            *cost
                                .skipped_before_fetching
                                .entry(reason.to_string())
                                .or_default() += n;
                        }
                    }
                }
            }
            if stage.rejected > 0 {
                cost.rejected.insert(stage.name.clone(), stage.rejected);
            }
            if sink_kinds.get(&stage.name) == Some(&RecordKind::Article) {
                cost.kept_articles = cost.kept_articles.max(stage.records_in);
            }
        }
        cost.page_requests_per_kept_article =
            (cost.kept_articles > 0).then(|| cost.requests.page as f64 / cost.kept_articles as f64);
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        }
    }

    #[test]
    fn adds_up_requests_skips_and_kept_articles() {
        let stages = [
            stage("captures", &[(REQUESTS_CDX, 3), (REQUESTS_RETRIED, 1)], 0),
            stage("feeds", &[(REQUESTS_CDX, 2), (REQUESTS_FEED, 10)], 0),
            stage("wanted", &[("skipped_duplicate", 7), ("to_fetch", 40)], 90),
            stage("pages", &[(REQUESTS_PAGE, 40)], 40),
            stage("write", &[], 8),
            stage("write_facts", &[], 500),
        ];
        let sinks = BTreeMap::from([
            ("write".to_string(), RecordKind::Article),
            ("write_facts".to_string(), RecordKind::Fact),
        ]);
        let cost = CrawlCost::from_stages(&stages, &sinks);
        assert_eq!(
            cost.requests,
            Requests {
                cdx: 5,
                feed: 10,
                page: 40,
                retried: 1
            }
        );
        assert_eq!(cost.skipped_before_fetching["duplicate"], 7);
        assert_eq!(cost.kept_articles, 8);
        assert_eq!(cost.page_requests_per_kept_article, Some(5.0));
        assert_eq!(cost.rejected.len(), 6);
        let none = CrawlCost::from_stages(&stages[..4], &sinks);
        assert_eq!(none.page_requests_per_kept_article, None);
    }
}
