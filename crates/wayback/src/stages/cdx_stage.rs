//! `wayback-cdx`: lists captures with the CDX API (source; `out: capture`).

use std::path::PathBuf;

use async_trait::async_trait;
use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    cost, parse_options, DescribeContext, OptionError, PipelineContext, Port, Record, RecordKind,
    Stage, StageConfig, StageError, StageIo, StagePlan,
};

use super::options::{archive_of, default_endpoint, duration, PolitenessOptions};
use crate::cdx::{default_filters, CdxQuery, MatchType};
use crate::lister::{CdxLister, Keep, ListerConfig};
use crate::timestamp;

/// Options of `wayback-cdx`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct CdxOptions {
    /// URL patterns to list, e.g. `bbc.co.uk/news/*` (a trailing `*` lists every URL under the path).
    pub urls: Vec<String>,
    /// How `urls` match (`exact`, `prefix`, `host`, `domain`); by default implied by the pattern.
    #[serde(default)]
    pub match_type: Option<MatchType>,
    /// Earliest capture day; none: from the Archive's beginning.
    #[serde(default)]
    pub from: Option<NaiveDate>,
    /// Latest capture day; none: up to now.
    #[serde(default)]
    pub to: Option<NaiveDate>,
    /// CDX filters (`[!]field:regex`, all must match).
    #[serde(default = "default_filters")]
    #[schemars(default = "default_filters")]
    pub filters: Vec<String>,
    /// CDX collapse fields (the server drops adjacent duplicates); default `["urlkey"]` with `keep = "earliest"`, none otherwise.
    #[serde(default)]
    pub collapse: Option<Vec<String>>,
    /// Rows per CDX request (the CDX `limit`); pages follow with resume keys.
    #[serde(default = "default_limit")]
    #[schemars(default = "default_limit")]
    pub limit: usize,
    /// Stop after this many new captures; none: list everything.
    #[serde(default)]
    pub max_captures: Option<u64>,
    /// Which capture per URL: `earliest` (closest to publication), `latest`, or `all` (every new payload).
    #[serde(default)]
    pub keep: Keep,
    /// SQLite crawl state (resume keys, high-water marks, capture status); a rerun continues where the last stopped.
    #[serde(default)]
    pub state: Option<PathBuf>,
    /// Ask only for captures newer than the last completed listing (needs `state`).
    #[serde(default)]
    pub incremental: bool,
    /// How far before the last listing's newest capture an incremental listing starts again (late-indexed captures).
    #[serde(default = "default_overlap")]
    #[schemars(default = "default_overlap")]
    pub overlap: String,
    /// CDX requests a minute, shared by every stage that talks to the same host.
    #[serde(default = "default_rate")]
    #[schemars(default = "default_rate")]
    pub rate: f64,
    /// The Wayback Machine to ask.
    #[serde(default = "default_endpoint")]
    #[schemars(default = "default_endpoint")]
    pub endpoint: String,
    /// Your contact (email or URL), sent in the User-Agent as the Archive asks of crawlers.
    #[serde(default)]
    pub contact: Option<String>,
    /// A whole User-Agent instead of `tempora/<version> (+contact)`.
    #[serde(default)]
    pub user_agent: Option<String>,
    /// Pauses, retries and timeouts.
    #[serde(default)]
    pub politeness: PolitenessOptions,
}

const fn default_limit() -> usize {
    5000
}
fn default_overlap() -> String {
    "1day".into()
}
const fn default_rate() -> f64 {
    20.0
}

/// Parses the options of `wayback-cdx`.
///
/// # Errors
/// Unknown, missing or mistyped options.
pub fn configure(
    table: toml::Table,
    _ctx: &PipelineContext,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    Ok(Box::new(parse_options::<CdxOptions>(table)?))
}

impl CdxOptions {
    /// The queries, one per URL pattern.
    pub fn queries(&self) -> Vec<CdxQuery> {
        let collapse = self
            .collapse
            .clone()
            .unwrap_or_else(|| self.keep.default_collapse());
        self.urls
            .iter()
            .map(|url| CdxQuery {
                url: url.clone(),
                match_type: self.match_type,
                from: self.from.map(timestamp::day_start),
                to: self.to.map(timestamp::day_end),
                filters: self.filters.clone(),
                collapse: collapse.clone(),
                page_size: self.limit,
            })
            .collect()
    }

    fn problems(&self) -> Vec<(Option<String>, String)> {
        let mut out = Vec::new();
        if self.urls.is_empty() || self.urls.iter().any(|u| u.trim().is_empty()) {
            out.push((
                Some("urls".into()),
                "give at least one URL pattern, none empty".into(),
            ));
        }
        if let (Some(from), Some(to)) = (self.from, self.to) {
            if from > to {
                out.push((
                    Some("from".into()),
                    format!("`from` ({from}) is after `to` ({to})"),
                ));
            }
        }
        if self.incremental && self.state.is_none() {
            out.push((
                Some("incremental".into()),
                "needs `state`: the last listing is remembered there".into(),
            ));
        }
        if self.limit == 0 {
            out.push((
                Some("limit".into()),
                "must be at least 1 row per request".into(),
            ));
        }
        if let Err(e) = duration("overlap", &self.overlap) {
            out.push((Some("overlap".into()), e.to_string()));
        }
        if let Err(e) = self.politeness.resolve(self.rate) {
            out.push((Some("politeness".into()), e.to_string()));
        }
        out
    }
}

#[async_trait(?Send)]
impl StageConfig for CdxOptions {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Capture)]
    }

    fn check(&self, _ctx: &PipelineContext) -> Vec<(Option<String>, String)> {
        self.problems()
    }

    fn incremental(&self) -> bool {
        self.incremental
    }

    async fn describe(&self, ctx: &DescribeContext<'_>) -> StagePlan {
        super::describe::cdx(self, ctx).await
    }

    fn build(self: Box<Self>, _ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        if let Some((_, message)) = self.problems().into_iter().next() {
            return Err(StageError::input(message));
        }
        Ok(Box::new(CdxStage { options: *self }))
    }
}

struct CdxStage {
    options: CdxOptions,
}

#[async_trait]
impl Stage for CdxStage {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let o = self.options;
        let archive = archive_of!(o)?;
        let overlap = duration("overlap", &o.overlap)?.as_secs();
        let mut lister = CdxLister::new(
            archive
                .cdx(o.rate)?
                .counting(io.stats().clone(), cost::REQUESTS_CDX),
            archive.state()?,
            ListerConfig {
                queries: o.queries(),
                keep: o.keep,
                incremental: o.incremental,
                overlap_secs: i64::try_from(overlap).unwrap_or(i64::MAX),
                source: io.name().to_string(),
            },
        );
        let port = io.port(Port::DEFAULT)?;
        let mut emitted = 0u64;
        loop {
            let step = tokio::select! {
                biased;
                () = io.shutdown().cancelled() => break,
                step = lister.next() => step?,
            };
            let Some(listed) = step else { break };
            let stats = io.stats().clone();
            stats.count("cdx_rows", listed.rows);
            stats.count("duplicates", listed.duplicates);
            if listed.resumed {
                stats.count("resumed", listed.captures.len() as u64);
            }
            if let Some((url, message)) = listed.blocked {
                io.reject(
                    serde_json::json!({ "query": url }),
                    format!("blocked site: {message}"),
                    Some(url),
                )
                .await?;
            }
            for capture in listed.captures {
                io.emit(port, Record::Capture(Box::new(capture))).await?;
                emitted += 1;
                if o.max_captures.is_some_and(|max| emitted >= max) {
                    break;
                }
            }
            io.flush().await?;
            if o.max_captures.is_some_and(|max| emitted >= max) {
                break;
            }
        }
        io.flush().await
    }
}
