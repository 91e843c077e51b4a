//! The options of `wayback-cdx` and the CDX queries they make: each window in
//! chunks of days, every URL pattern of a chunk before the next, with the
//! watermark that holds after each chunk.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::{Datelike, NaiveDate};
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{parse_options, OptionError, PipelineContext, StageConfig};
use tempora_wayback_format::timestamp;

use super::options::{ArchiveOptions, ArchiveSetting};
use super::windows::{listing_windows, Span};
use super::written_duration::WrittenDuration;
use crate::cdx::{default_filters, CdxQuery, MatchType};
use crate::lister::Keep;

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
    /// Capture days listed at a time: every pattern is listed for the first
    /// `chunk_days` of a window, then for the next, and so on, and after each chunk
    /// the stages after are told that nothing earlier will come (a watermark), so
    /// `prefetch` passes articles on to fetch while the listing goes on. 0 lists
    /// each window whole, pattern after pattern.
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

    /// The queries as they are listed: each window in chunks of `chunk_days`
    /// (the last of an open window stays open), every pattern of a chunk before
    /// the next; and after the last query of each closed chunk, the watermark
    /// that then holds (the next day's first second: every capture before it is
    /// listed).
    pub fn chunked_queries(&self) -> (Vec<CdxQuery>, BTreeMap<usize, String>) {
        let mut queries = Vec::new();
        let mut watermarks = BTreeMap::new();
        for &(from, to) in &self.windows {
            for (chunk_from, chunk_to) in chunks(from, to, self.chunk_days) {
                for pattern in &self.urls {
                    for url in expand_years(pattern, from, chunk_to.or(to)) {
                        queries.push(self.query(url, chunk_from, chunk_to));
                    }
                }
                if let Some(end) = chunk_to.and_then(|d| d.succ_opt()) {
                    watermarks.insert(queries.len() - 1, timestamp::day_start(end));
                }
            }
        }
        (queries, watermarks)
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

/// The window `from..=to` in chunks of `days` days (ends inclusive); the last
/// chunk of an open window is open. A window without a start, or `days` 0: whole.
///
/// Chunks lie on one grid of `days` days counted from [`GRID_START`], whatever
/// the window (only the first and last are cut to it): windows that share days
/// share the chunks over them, so a run with other sets (a new cutoff) reads the
/// listings of those chunks back from the crawl state instead of asking again.
fn chunks(from: Option<NaiveDate>, to: Option<NaiveDate>, days: u32) -> Vec<Span> {
    let Some(mut start) = from.filter(|_| days > 0) else {
        return vec![(from, to)];
    };
    let today = chrono::Utc::now().date_naive();
    let into_grid = (start - GRID_START).num_days().rem_euclid(i64::from(days));
    let mut span = i64::from(days) - into_grid;
    let mut out = Vec::new();
    loop {
        let end = start + chrono::Days::new(u64::try_from(span - 1).unwrap_or(0));
        match to {
            Some(to) if end >= to => {
                out.push((Some(start), Some(to)));
                return out;
            }
            None if end >= today => {
                out.push((Some(start), None));
                return out;
            }
            _ => out.push((Some(start), Some(end))),
        }
        start = end + chrono::Days::new(1);
        span = i64::from(days);
    }
}

/// Where the chunks' grid starts: the first year of the Wayback Machine's captures.
const GRID_START: NaiveDate = match NaiveDate::from_ymd_opt(1996, 1, 1) {
    Some(d) => d,
    None => NaiveDate::MIN,
};

/// `pattern` with `{year}` replaced by each year from `from` to `to` (open ends:
/// the Archive's first year, this year); `pattern` alone when it has none. Sites
/// whose article URLs carry their year (CNN's `cnn.com/2021/...`) are listed for
/// the years of the sets only.
fn expand_years(pattern: &str, from: Option<NaiveDate>, to: Option<NaiveDate>) -> Vec<String> {
    if !pattern.contains("{year}") {
        return vec![pattern.to_string()];
    }
    let first = from.map_or(1996, |d| d.year());
    let last = to.map_or_else(|| chrono::Utc::now().year(), |d| d.year());
    (first..=last)
        .map(|year| pattern.replace("{year}", &year.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_listed_in_chunks_and_the_last_of_an_open_one_stays_open() {
        let d = |s: &str| s.parse::<NaiveDate>().ok();
        // 2020-01-01 is day 8766 of the grid from 1996-01-01, 6 days into a chunk
        // of 30: the first chunk is cut to the 24 days left of it.
        assert_eq!(
            chunks(d("2020-01-01"), d("2020-03-05"), 30),
            [
                (d("2020-01-01"), d("2020-01-24")),
                (d("2020-01-25"), d("2020-02-23")),
                (d("2020-02-24"), d("2020-03-05")),
            ]
        );
        assert_eq!(
            chunks(d("2020-01-01"), d("2020-03-05"), 0),
            [(d("2020-01-01"), d("2020-03-05"))]
        );
        assert_eq!(chunks(None, d("2020-03-05"), 30), [(None, d("2020-03-05"))]);
        let open = chunks(d("2020-01-01"), None, 30);
        assert_eq!(open.last().unwrap().1, None);
        assert!(open
            .windows(2)
            .all(|w| w[0].1.unwrap().succ_opt() == w[1].0));
    }

    #[test]
    fn windows_that_share_days_share_their_chunks() {
        let d = |s: &str| s.parse::<NaiveDate>().ok();
        let wide = chunks(d("2020-01-01"), d("2022-12-31"), 30);
        let narrow = chunks(d("2021-01-01"), d("2021-12-31"), 30);
        // Every chunk of the narrow window but its first and last (cut to the
        // window) is a chunk of the wide one.
        assert!(narrow.len() > 2);
        for chunk in &narrow[1..narrow.len() - 1] {
            assert!(wide.contains(chunk), "{chunk:?}");
        }
        // Chunks are whole grid cells of 30 days inside a window.
        for (from, to) in &wide[1..wide.len() - 1] {
            assert_eq!((to.unwrap() - from.unwrap()).num_days(), 29);
            assert_eq!((from.unwrap() - GRID_START).num_days() % 30, 0);
        }
    }

    #[test]
    fn every_pattern_of_a_chunk_comes_before_the_next_with_a_watermark_after_it() {
        let table: toml::Table = toml::from_str(
            "urls = [\"bbc.co.uk/news/*\", \"cnn.com/{year}/*\"]\nfrom = 2019-12-20\nto = 2020-01-10\nchunk_days = 15",
        )
        .unwrap();
        let mut o: CdxOptions = parse_options(table).unwrap();
        o.windows = vec![(o.from, o.to)];
        let (queries, marks) = o.chunked_queries();
        let shown: Vec<(String, String, String)> = queries
            .iter()
            .map(|q| {
                (
                    q.url.clone(),
                    q.from.clone().unwrap(),
                    q.to.clone().unwrap(),
                )
            })
            .collect();
        let q = |u: &str, f: &str, t: &str| (u.to_string(), f.to_string(), t.to_string());
        assert_eq!(
            shown,
            [
                // 2019-12-20 is 9 days into a chunk of the 15-day grid.
                q("bbc.co.uk/news/*", "20191220000000", "20191225235959"),
                q("cnn.com/2019/*", "20191220000000", "20191225235959"),
                q("bbc.co.uk/news/*", "20191226000000", "20200109235959"),
                q("cnn.com/2019/*", "20191226000000", "20200109235959"),
                q("cnn.com/2020/*", "20191226000000", "20200109235959"),
                q("bbc.co.uk/news/*", "20200110000000", "20200110235959"),
                q("cnn.com/2019/*", "20200110000000", "20200110235959"),
                q("cnn.com/2020/*", "20200110000000", "20200110235959"),
            ]
        );
        assert_eq!(
            marks.into_iter().collect::<Vec<_>>(),
            [
                (1, "20191226000000".to_string()),
                (4, "20200110000000".to_string()),
                (7, "20200111000000".to_string())
            ]
        );
    }

    #[test]
    fn a_year_in_a_pattern_stands_for_each_year_of_its_window() {
        let d = |s: &str| s.parse::<NaiveDate>().ok();
        assert_eq!(
            expand_years("cnn.com/{year}/*", d("2012-01-01"), d("2014-06-30")),
            ["cnn.com/2012/*", "cnn.com/2013/*", "cnn.com/2014/*"]
        );
        assert_eq!(
            expand_years("bbc.com/news/*", None, None),
            ["bbc.com/news/*"]
        );
    }
}
