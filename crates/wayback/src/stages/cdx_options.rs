//! The options of `wayback-cdx` and the CDX queries they make: each window in
//! chunks of days, every URL pattern of a chunk before the next, with the
//! watermark that holds after each chunk (see [`crate::chunks`]).

use std::path::PathBuf;

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{parse_options, OptionError, PipelineContext, StageConfig};
use tempora_wayback_format::timestamp;

use super::options::{ArchiveOptions, ArchiveSetting};
use super::windows::{listing_windows, Span};
use crate::cdx::{default_filters, CdxQuery, MatchType};
use crate::chunks::{expand_years, ChunkedListing, Chunking};
use crate::lister::Keep;
use tempora_engine::WrittenDuration;

/// Options of `wayback-cdx`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct CdxOptions {
    /// URL patterns to list, e.g. `bbc.co.uk/news/*` (a trailing `*` lists every URL
    /// under the path); `{year}` in a pattern (`cnn.com/{year}/*`) stands for each
    /// year of the listing's windows.
    pub urls: Vec<String>,
    /// How `urls` match (`exact`, `prefix`, `host`, `domain`); by default implied by the pattern.
    #[serde(default)]
    pub match_type: Option<MatchType>,
    /// Earliest capture day. With neither `from` nor `to`, the listing covers the
    /// pipeline's sets (`[pipeline.sets]`), each span of days they cover and not
    /// the gaps between them; a window set by hand must cover every set.
    #[serde(default)]
    pub from: Option<NaiveDate>,
    /// Latest capture day (see `from`).
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
    /// Capture days listed at a time, to start with: every pattern is listed for
    /// the first chunk of days of a window, then for the next, and so on, and
    /// after each chunk the stages after are told that nothing earlier will come
    /// (a watermark), so `prefetch` passes articles on to fetch while the listing
    /// goes on. The span adapts to what the listing finds: it doubles (up to 16
    /// times this) after a chunk whose busiest pattern listed less than half of
    /// `limit` rows, so a sparse site's listing does not hold back the fetch,
    /// and halves (not below this) after one that needed more than a page. 0
    /// lists each window whole, pattern after pattern.
    #[serde(default = "default_chunk_days")]
    #[schemars(default = "default_chunk_days")]
    pub chunk_days: u32,
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
    pub overlap: WrittenDuration,
    /// The Wayback Machine and its politeness, written once per Archive: a table
    /// (`endpoint`, `contact`, `cdx_rate`, `playback_rate`, pauses and retries), or
    /// the name of the wayback stage whose table this one shares (`archive =
    /// "captures"`). Absent: the public Wayback Machine at its defaults, 80% of
    /// its published per-IP limits: `cdx_rate` 24 a minute (it allows 30 CDX
    /// and timemap requests) and `playback_rate` 480 (it allows 600 pages and
    /// feeds, redirects and retries counted); `min_pause` 60 s after a 429.
    #[serde(default)]
    #[schemars(with = "Option<ArchiveOptions>")]
    pub archive: ArchiveSetting,
    /// The capture windows listed: `from`/`to` when given, else the pipeline's
    /// sets (`[pipeline.sets]`), one window per span they cover.
    #[serde(skip)]
    pub windows: Vec<(Option<NaiveDate>, Option<NaiveDate>)>,
}

const fn default_limit() -> usize {
    5000
}
const fn default_chunk_days() -> u32 {
    30
}
fn default_overlap() -> WrittenDuration {
    WrittenDuration::days(1)
}

/// Parses the options of `wayback-cdx`.
///
/// # Errors
/// Unknown, missing or mistyped options.
pub fn configure(
    table: toml::Table,
    ctx: &PipelineContext,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    let mut options = parse_options::<CdxOptions>(table)?;
    options.windows = listing_windows(options.from, options.to, ctx);
    Ok(Box::new(options))
}

impl CdxOptions {
    /// The queries, one per window and URL pattern, each with its window; every
    /// pattern of a window before the next, so the listing goes forward in time. A
    /// pattern with `{year}` stands for one pattern per year its window spans.
    pub fn windowed_queries(&self) -> Vec<(Span, CdxQuery)> {
        let mut queries = Vec::new();
        for &(from, to) in &self.windows {
            for pattern in &self.urls {
                for url in expand_years(pattern, from, to) {
                    queries.push(((from, to), self.query(url, from, to)));
                }
            }
        }
        queries
    }

    /// The listing as it goes: each window in chunks of days whose span adapts
    /// to what the listing finds, starting at `chunk_days` (see
    /// [`crate::chunks`]), every pattern of a chunk before the next.
    pub fn listing(&self) -> ChunkedListing {
        ChunkedListing::new(
            Chunking::new(self.windows.clone(), self.chunk_days, self.limit),
            self.urls.clone(),
            self.query(String::new(), None, None),
        )
    }

    fn query(&self, url: String, from: Option<NaiveDate>, to: Option<NaiveDate>) -> CdxQuery {
        CdxQuery {
            url,
            match_type: self.match_type,
            from: from.map(timestamp::day_start),
            to: to.map(timestamp::day_end),
            filters: self.filters.clone(),
            collapse: self
                .collapse
                .clone()
                .unwrap_or_else(|| self.keep.default_collapse()),
            page_size: self.limit,
        }
    }

    pub(super) fn problems(&self) -> Vec<OptionError> {
        let mut out = Vec::new();
        if self.urls.is_empty() || self.urls.iter().any(|u| u.trim().is_empty()) {
            out.push(OptionError::at(
                "urls",
                "give at least one URL pattern, none empty".into(),
            ));
        }
        if let (Some(from), Some(to)) = (self.from, self.to) {
            if from > to {
                out.push(OptionError::at(
                    "from",
                    format!("`from` ({from}) is after `to` ({to})"),
                ));
            }
        }
        if self.incremental && self.state.is_none() {
            out.push(OptionError::at(
                "incremental",
                "needs `state`: the last listing is remembered there".into(),
            ));
        }
        if self.limit == 0 {
            out.push(OptionError::at(
                "limit",
                "must be at least 1 row per request".into(),
            ));
        }
        out.extend(self.archive.problems());
        out
    }
}
