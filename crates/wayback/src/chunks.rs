//! The listing's chunks of days: each window listed a chunk at a time, every URL
//! pattern of a chunk before the next, with a watermark after each, in spans
//! that adapt to what the listing finds.
//!
//! A chunk's span starts at `chunk_days` and doubles after a chunk whose busiest
//! query listed less than half a page of rows (the CDX `limit`), up to
//! [`MAX_GROWTH`] times `chunk_days`: on a sparse site each CDX request then
//! lists enough captures that the fetch, not the CDX rate, sets the crawl's
//! pace. It halves again, never below `chunk_days`, after a chunk whose busiest
//! query needed more than one page: on a dense site fetching starts soon and
//! follows the listing closely.
//!
//! Chunks lie on one grid counted from [`GRID_START`]: a chunk of span `S`
//! ends where a cell of `S` days ends (the first of a window starts at the
//! window, the last ends with it), and spans are `chunk_days` times a power of
//! two, so a smaller cell never straddles a larger one. Windows that share days
//! share the chunks over them, and which chunks a run lists depends only on its
//! windows and on what the Archive holds (the rows each chunk listed, which the
//! crawl state keeps): a rerun lists the same chunks and reads them back from
//! the state, and a run with other sets (a new cutoff) reads back the chunks it
//! shares with the runs before.

use std::collections::VecDeque;

use chrono::{Datelike, Days, NaiveDate};
use tempora_wayback_format::timestamp;

use crate::cdx::CdxQuery;
use crate::cells::{Cell, Cells};
use crate::stages::windows::Span;

/// Where the chunks' grid starts: the first year of the Wayback Machine's captures.
pub const GRID_START: NaiveDate = match NaiveDate::from_ymd_opt(1996, 1, 1) {
    Some(d) => d,
    None => NaiveDate::MIN,
};

/// How many times `chunk_days` a chunk grows to at most: past that, a listing
/// asks about once per pattern a year or more, and chunks this long would
/// share little with the windows of another cutoff.
pub const MAX_GROWTH: u32 = 16;

/// The windows cut in chunks of days, one after the other (see the module
/// documentation).
#[derive(Debug, Clone)]
pub struct Chunking {
    windows: VecDeque<Span>,
    /// `chunk_days`; 0 lists each window whole.
    base: u32,
    /// The span is `base << level` days.
    level: u32,
    /// Where the next chunk of the front window starts (`None`: at the window's start).
    next_start: Option<NaiveDate>,
    /// Days of the last chunk (a window's first and last can be cut short).
    last_days: i64,
    /// Rows a CDX page holds.
    page_rows: u64,
    /// The open window's last chunk is the one that holds this day.
    today: NaiveDate,
}

impl Chunking {
    /// `windows` in chunks of `chunk_days` to start with, adapting to pages of
    /// `page_rows` rows; an open window's last chunk holds today.
    pub fn new(windows: Vec<Span>, chunk_days: u32, page_rows: usize) -> Self {
        Self::until(
            windows,
            chunk_days,
            page_rows,
            chrono::Utc::now().date_naive(),
        )
    }

    /// [`Self::new`] with `today` given (tests, and plans that must not move).
    pub fn until(windows: Vec<Span>, chunk_days: u32, page_rows: usize, today: NaiveDate) -> Self {
        Self {
            windows: windows.into(),
            base: chunk_days,
            level: 0,
            next_start: None,
            last_days: 0,
            page_rows: page_rows.max(1) as u64,
            today,
        }
    }

    /// Days a chunk spans now.
    pub fn span_days(&self) -> u32 {
        self.base << self.level
    }

    /// The next chunk (ends inclusive, `None` open), or `None` after the last.
    /// A window without a start, or with `chunk_days` 0, is one chunk.
    pub fn next_chunk(&mut self) -> Option<Span> {
        self.next_chunk_capped(Cap::Grid)
    }

    /// The day the next chunk starts on, `None` when it is a whole window (or
    /// there is none).
    fn next_start(&self) -> Option<NaiveDate> {
        let &(from, _) = self.windows.front()?;
        self.next_start.or(from).filter(|_| self.base > 0)
    }

    /// [`Self::next_chunk`], its end set by `cap` before its window's end cuts it.
    fn next_chunk_capped(&mut self, cap: Cap) -> Option<Span> {
        let &(from, to) = self.windows.front()?;
        let Some(start) = self.next_start() else {
            self.windows.pop_front();
            return Some((from, to));
        };
        let span = i64::from(self.span_days());
        let cell = (start - GRID_START).num_days().div_euclid(span);
        let grid_end = GRID_START + Days::new(u64::try_from((cell + 1) * span - 1).unwrap_or(0));
        let end = match cap {
            Cap::Grid => grid_end,
            Cap::At(end) => end.max(start),
            Cap::Before(day) => grid_end.min(day.pred_opt().unwrap_or(day)).max(start),
        };
        let last = match to {
            Some(to) if end >= to => Some((Some(start), Some(to))),
            None if end >= self.today => Some((Some(start), None)),
            _ => None,
        };
        self.last_days = (last.and_then(|c| c.1).unwrap_or(end) - start).num_days() + 1;
        if let Some(chunk) = last {
            self.windows.pop_front();
            self.next_start = None;
            return Some(chunk);
        }
        self.next_start = end.succ_opt();
        Some((Some(start), Some(end)))
    }

    /// What the last chunk found: `most_rows`, the rows of its busiest query.
    /// At that many rows a day, fewer than half a page in a whole chunk: the
    /// next chunks span twice as many days; more than a page: the span halves
    /// until a chunk would hold a page at most, never below `chunk_days`. A
    /// chunk cut short by its window counts as its rows a day.
    pub fn found(&mut self, most_rows: u64) {
        let days = u64::try_from(self.last_days).unwrap_or(0).max(1);
        let mut most_rows = most_rows.saturating_mul(u64::from(self.span_days())) / days;
        if most_rows < self.page_rows / 2 && (1 << self.level) < MAX_GROWTH {
            self.level += 1;
        }
        while most_rows > self.page_rows && self.level > 0 {
            self.level -= 1;
            most_rows /= 2;
        }
    }
}

/// Where a chunk ends, before its window's end cuts it.
enum Cap {
    /// Where the grid cell of its span ends.
    Grid,
    /// On this day: where the cell listed before that holds its first day ends.
    At(NaiveDate),
    /// Where the grid cell ends, but before this day, where a cell listed
    /// before starts.
    Before(NaiveDate),
}

/// The queries of a chunked listing: every URL pattern of a chunk before the
/// next, and after each closed chunk its watermark (the next day's first
/// second: every capture before it is listed).
#[derive(Debug, Clone)]
pub struct ChunkedListing {
    /// The chunks.
    pub chunking: Chunking,
    /// URL patterns (`{year}`: one query per year, see [`expand_years`]).
    pub patterns: Vec<String>,
    /// Every query's settings (`url`, `from` and `to` are each chunk's).
    pub template: CdxQuery,
    /// Each window's days, to expand `{year}` over.
    windows: Vec<Span>,
}

/// One chunk's queries and the watermark that holds once they are listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// One query per pattern (and year).
    pub queries: Vec<CdxQuery>,
    /// Every capture before this time has been listed once the queries are done.
    pub watermark: Option<String>,
    /// The cell listed before whose rows answer every query of the chunk (read
    /// back from the state, see [`crate::cells`]).
    pub cell: Option<Cell>,
}

impl ChunkedListing {
    /// A listing of `patterns` over `chunking`'s windows, each query as `template`.
    pub fn new(chunking: Chunking, patterns: Vec<String>, template: CdxQuery) -> Self {
        let windows = chunking.windows.iter().copied().collect();
        Self {
            chunking,
            patterns,
            template,
            windows,
        }
    }

    /// The next chunk's queries, or `None` after the last. Its days follow the
    /// cells listed before (`cells`): a chunk that starts in a cell of every
    /// query ends where that cell ends and is read back; any other ends before
    /// the next cell starts, so that only days no listing covered are asked for.
    pub fn next_chunk(&mut self, cells: &Cells) -> Option<Chunk> {
        let window = self.chunking.windows.front().copied();
        let (cap, found) = match self.chunking.next_start() {
            Some(start) if !cells.is_empty() => self.cap(cells, window, start),
            _ => (Cap::Grid, None),
        };
        let (from, to) = self.chunking.next_chunk_capped(cap)?;
        let queries = self.queries(from, to);
        // A cell answers only a chunk that ends where it ends, or with its window.
        let cell = found.filter(|c| {
            to.is_some_and(|to| to <= c.to) && queries.iter().all(|q| cells.has(q, *c))
        });
        let watermark = to.and_then(|d| d.succ_opt()).map(timestamp::day_start);
        Some(Chunk {
            queries,
            watermark,
            cell,
        })
    }

    /// Where the chunk that starts on `start` in `window` ends, given the cells:
    /// with the cell of every query that holds `start` (the shortest that does),
    /// or before the next cell of the first query starts.
    fn cap(&self, cells: &Cells, window: Option<Span>, start: NaiveDate) -> (Cap, Option<Cell>) {
        let window_to = window.and_then(|w| w.1);
        let probe = self.queries(Some(start), Some(start));
        let Some(first) = probe.first() else {
            return (Cap::Grid, None);
        };
        for cell in cells.holding(first, start) {
            let end = window_to.map_or(cell.to, |t| t.min(cell.to));
            let queries = self.queries(Some(start), Some(end));
            if queries.iter().all(|q| cells.has(q, cell)) {
                return (Cap::At(cell.to), Some(cell));
            }
        }
        match cells.next_start(first, start) {
            Some(day) => (Cap::Before(day), None),
            None => (Cap::Grid, None),
        }
    }

    /// The queries of the chunk `from..=to`, one per pattern, and per year for a
    /// pattern with `{year}`: every year since its window began (an article of
    /// an earlier year can be captured in this chunk).
    fn queries(&self, from: Option<NaiveDate>, to: Option<NaiveDate>) -> Vec<CdxQuery> {
        let window_from = self
            .windows
            .iter()
            .find(|(wf, wt)| {
                wf.is_none_or(|wf| from.is_some_and(|f| f >= wf))
                    && wt.is_none_or(|wt| to.is_some_and(|t| t <= wt))
            })
            .map_or(from, |w| w.0);
        let mut queries = Vec::new();
        for pattern in &self.patterns {
            for url in expand_years(pattern, window_from, to) {
                queries.push(CdxQuery {
                    url,
                    from: from.map(timestamp::day_start),
                    to: to.map(timestamp::day_end),
                    ..self.template.clone()
                });
            }
        }
        queries
    }

    /// What the last chunk found (see [`Chunking::found`]).
    pub fn found(&mut self, most_rows: u64) {
        self.chunking.found(most_rows);
    }
}

/// `pattern` with `{year}` replaced by each year from `from` to `to` (open ends:
/// the Archive's first year, this year); `pattern` alone when it has none. Sites
/// whose article URLs carry their year (CNN's `cnn.com/2021/...`) are listed for
/// the years of the sets only.
pub fn expand_years(pattern: &str, from: Option<NaiveDate>, to: Option<NaiveDate>) -> Vec<String> {
    if !pattern.contains("{year}") {
        return vec![pattern.to_string()];
    }
    let first = from.map_or(GRID_START.year(), |d| d.year());
    let last = to.map_or_else(|| chrono::Utc::now().year(), |d| d.year());
    (first..=last)
        .map(|year| pattern.replace("{year}", &year.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Option<NaiveDate> {
        s.parse::<NaiveDate>().ok()
    }

    fn all(mut c: Chunking, found: impl Fn(Span) -> u64) -> Vec<Span> {
        let mut out = Vec::new();
        while let Some(chunk) = c.next_chunk() {
            c.found(found(chunk));
            out.push(chunk);
        }
        out
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 27).unwrap_or_default()
    }

    #[test]
    fn a_window_is_listed_in_chunks_and_the_last_of_an_open_one_stays_open() {
        let full = |_| 5_000;
        let chunked = |from, to| Chunking::until(vec![(from, to)], 30, 5_000, today());
        // 2020-01-01 is day 8766 of the grid from 1996-01-01, 6 days into a chunk
        // of 30: the first chunk is cut to the 24 days left of it.
        assert_eq!(
            all(chunked(d("2020-01-01"), d("2020-03-05")), full),
            [
                (d("2020-01-01"), d("2020-01-24")),
                (d("2020-01-25"), d("2020-02-23")),
                (d("2020-02-24"), d("2020-03-05")),
            ]
        );
        let whole = Chunking::until(vec![(d("2020-01-01"), d("2020-03-05"))], 0, 5_000, today());
        assert_eq!(all(whole, full), [(d("2020-01-01"), d("2020-03-05"))]);
        assert_eq!(
            all(chunked(None, d("2020-03-05")), full),
            [(None, d("2020-03-05"))]
        );
        let open = all(chunked(d("2020-01-01"), None), full);
        assert_eq!(open.last().unwrap().1, None);
        assert!(open.last().unwrap().0.unwrap() <= today());
        assert!(open
            .windows(2)
            .all(|w| w[0].1.unwrap().succ_opt() == w[1].0));
    }

    #[test]
    fn windows_that_share_days_share_their_chunks() {
        let full = |_| 5_000;
        let wide = all(
            Chunking::until(vec![(d("2020-01-01"), d("2022-12-31"))], 30, 5_000, today()),
            full,
        );
        let narrow = all(
            Chunking::until(vec![(d("2021-01-01"), d("2021-12-31"))], 30, 5_000, today()),
            full,
        );
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
    fn chunks_grow_while_they_come_back_small_and_shrink_when_they_come_back_large() {
        let days = |c: &Span| (c.1.unwrap() - c.0.unwrap()).num_days() + 1;
        let window = vec![(d("2010-01-01"), d("2017-12-31"))];
        // One row a day: every chunk lists less than half a page of 5,000 rows.
        let sparse = all(Chunking::until(window.clone(), 30, 5_000, today()), |c| {
            days(&c) as u64
        });
        let spans: Vec<i64> = sparse.iter().map(days).collect();
        assert!(
            spans.iter().any(|&s| s == i64::from(30 * MAX_GROWTH)),
            "{spans:?}"
        );
        assert!(spans.iter().all(|&s| s <= i64::from(30 * MAX_GROWTH)));
        // Eight years in a dozen chunks, not the 98 of 30 days.
        assert!(sparse.len() <= 12, "{} chunks", sparse.len());
        // 300 rows a day: more than a page after growing once, so back to 30 days.
        let dense = all(Chunking::until(window.clone(), 30, 5_000, today()), |c| {
            days(&c) as u64 * 300
        });
        assert!(dense.iter().map(days).all(|s| s <= 30), "{dense:?}");
        // 100 rows a day: 30 days fill between half a page and a page: steady.
        let steady = all(Chunking::until(window.clone(), 30, 5_000, today()), |c| {
            days(&c) as u64 * 100
        });
        assert_eq!(steady.iter().map(days).max(), Some(30));
        // A sparse year in a dense span: the chunks grow through it and shrink after.
        let mixed = all(Chunking::until(window, 30, 5_000, today()), |c| {
            let per_day = if c.0 < d("2013-01-01") && c.0 >= d("2012-01-01") {
                1
            } else {
                300
            };
            days(&c) as u64 * per_day
        });
        let in_2012: Vec<i64> = mixed
            .iter()
            .filter(|c| c.0 >= d("2012-01-01") && c.0 < d("2013-01-01"))
            .map(days)
            .collect();
        assert!(in_2012.iter().any(|&s| s > 30), "{in_2012:?}");
        let after: Vec<i64> = mixed
            .iter()
            .filter(|c| c.0 >= d("2014-01-01"))
            .map(days)
            .collect();
        assert!(after.iter().all(|&s| s <= 30), "{after:?}");
        // Whatever they found, the chunks cover the window day after day, on the grid.
        for chunks in [&sparse, &dense, &mixed] {
            assert_eq!(chunks[0].0, d("2010-01-01"));
            assert_eq!(chunks.last().unwrap().1, d("2017-12-31"));
            assert!(chunks
                .windows(2)
                .all(|w| w[0].1.unwrap().succ_opt() == w[1].0));
            for (_, to) in &chunks[..chunks.len() - 1] {
                let next = to.unwrap().succ_opt().unwrap();
                assert_eq!((next - GRID_START).num_days() % 30, 0, "{to:?}");
            }
        }
    }

    #[test]
    fn a_grown_chunk_ends_on_its_own_grid_so_listings_of_other_windows_meet_it() {
        // Two windows starting at different days, both sparse: after their first
        // chunks they list the same cells.
        let sparse = |c: Span| (c.1.unwrap() - c.0.unwrap()).num_days() as u64;
        let a = all(
            Chunking::until(vec![(d("2016-03-01"), d("2022-12-31"))], 30, 5_000, today()),
            sparse,
        );
        let b = all(
            Chunking::until(vec![(d("2016-07-15"), d("2022-12-31"))], 30, 5_000, today()),
            sparse,
        );
        let shared = b.iter().filter(|c| a.contains(c)).count();
        assert!(shared * 2 >= b.len(), "{a:?}\n{b:?}");
        // Past the first chunk (cut by its window's start) and before the last
        // (cut by its end), a chunk of S days ends where a cell of S days ends.
        for chunks in [&a, &b] {
            for (from, to) in &chunks[1..chunks.len() - 1] {
                let span = (to.unwrap() - from.unwrap()).num_days() + 1;
                let end = (to.unwrap() - GRID_START).num_days() + 1;
                assert_eq!(end % span, 0, "{from:?}..{to:?} ends off its grid");
            }
        }
    }

    #[test]
    fn every_pattern_of_a_chunk_comes_before_the_next_with_a_watermark_after_it() {
        let template = CdxQuery {
            url: String::new(),
            match_type: None,
            from: None,
            to: None,
            filters: Vec::new(),
            collapse: Vec::new(),
            page_size: 5_000,
        };
        let chunking =
            Chunking::until(vec![(d("2019-12-20"), d("2020-01-10"))], 15, 5_000, today());
        let mut listing = ChunkedListing::new(
            chunking,
            vec!["bbc.co.uk/news/*".into(), "cnn.com/{year}/*".into()],
            template,
        );
        let mut shown = Vec::new();
        while let Some(chunk) = listing.next_chunk(&Cells::default()) {
            listing.found(5_000);
            let queries: Vec<(String, String, String)> = chunk
                .queries
                .iter()
                .map(|q| {
                    (
                        q.url.clone(),
                        q.from.clone().unwrap(),
                        q.to.clone().unwrap(),
                    )
                })
                .collect();
            shown.push((queries, chunk.watermark));
        }
        let q = |u: &str, f: &str, t: &str| (u.to_string(), f.to_string(), t.to_string());
        let mark = |t: &str| Some(t.to_string());
        assert_eq!(
            shown,
            [
                // 2019-12-20 is 9 days into a chunk of the 15-day grid.
                (
                    vec![
                        q("bbc.co.uk/news/*", "20191220000000", "20191225235959"),
                        q("cnn.com/2019/*", "20191220000000", "20191225235959"),
                    ],
                    mark("20191226000000")
                ),
                (
                    vec![
                        q("bbc.co.uk/news/*", "20191226000000", "20200109235959"),
                        q("cnn.com/2019/*", "20191226000000", "20200109235959"),
                        q("cnn.com/2020/*", "20191226000000", "20200109235959"),
                    ],
                    mark("20200110000000")
                ),
                (
                    vec![
                        q("bbc.co.uk/news/*", "20200110000000", "20200110235959"),
                        q("cnn.com/2019/*", "20200110000000", "20200110235959"),
                        q("cnn.com/2020/*", "20200110000000", "20200110235959"),
                    ],
                    mark("20200111000000")
                ),
            ]
        );
    }
}
