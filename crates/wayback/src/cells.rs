//! The days the crawl state's listings cover: every completed listing of a
//! chunk is a *cell*, a query's rows over a span of days. A later listing over
//! days a cell covers reads them back from the state instead of asking the
//! Archive (see [`crate::chunks::ChunkedListing::next_chunk`]), so a run with
//! other windows (a new cutoff) asks the CDX server only for days no listing
//! covered. A listing never hands on a capture outside its own days.
//!
//! A cell's rows are each URL's first capture in the cell (the server's
//! `collapse=urlkey`), so they answer exactly a chunk that starts where the
//! cell starts: the first capture in a shorter span from the same start is the
//! same one, if it falls in that span. A chunk that starts later than its cell
//! (the first chunk of a window that now starts inside a cell listed before;
//! within a window, this run listed the days before) is answered by the cell's
//! rows of its days, which lack a URL first captured before the chunk and
//! captured again in it. Such a URL's story was published before the window
//! (a page is published before its first capture), so it cannot be in the
//! window's set: a fresh run lists that later capture, fetches it and rejects
//! the story; this run does not list it (and `prefetch`, which keeps each
//! story's first capture in the state, leaves out before fetching one it meets
//! through another URL first captured in the chunk). The sets are the same;
//! `rejected.jsonl` differs in those stories. (The one exception: a story published in an earlier
//! window of the same run and first captured only after it, in days no window
//! lists, inside the cell; a fresh run keeps it through that later capture.)

use std::collections::HashMap;

use chrono::NaiveDate;
use rusqlite::Connection;
use tempora_wayback_format::timestamp;

use crate::cdx::CdxQuery;
use crate::state::listings::Within;

/// One completed listing: its days (ends inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// The first day listed.
    pub from: NaiveDate,
    /// The last day listed.
    pub to: NaiveDate,
}

impl Cell {
    /// Where the rows of `query` are kept: under its own key, or, when its chunk
    /// is read back from `cell`, a cell listed before, under the cell's, within
    /// the query's days.
    pub fn rows_of(cell: Option<Self>, query: &CdxQuery) -> (String, Within) {
        match cell {
            Some(cell) if cell.query(query) != *query => (
                cell.query(query).id(),
                query.from.clone().zip(query.to.clone()),
            ),
            _ => (query.id(), None),
        }
    }

    /// The query of `query`'s family that listed this cell (its state key is
    /// the cell's rows' key).
    pub fn query(&self, query: &CdxQuery) -> CdxQuery {
        CdxQuery {
            from: Some(timestamp::day_start(self.from)),
            to: Some(timestamp::day_end(self.to)),
            ..query.clone()
        }
    }
}

/// The cells of the state, by query family (a query with its days left out).
#[derive(Debug, Clone, Default)]
pub struct Cells {
    by_family: HashMap<String, Vec<Cell>>,
}

impl Cells {
    /// Every completed listing whose rows the state holds, whose days are whole
    /// days (as chunks' are).
    ///
    /// # Errors
    /// Database errors.
    pub fn load(conn: &Connection) -> rusqlite::Result<Self> {
        let mut stmt = conn.prepare(
            "SELECT id FROM queries WHERE cached = 1 AND in_progress = 0 AND completed_at IS NOT NULL",
        )?;
        let ids = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut cells = Self::default();
        for id in ids {
            if let Ok(query) = serde_json::from_str::<CdxQuery>(&id?) {
                cells.add(&query);
            }
        }
        for list in cells.by_family.values_mut() {
            list.sort_by_key(|c| (c.from, c.to));
        }
        Ok(cells)
    }

    /// Records `query`'s listing as a cell, when its days are whole days.
    fn add(&mut self, query: &CdxQuery) {
        let day = |t: Option<&String>, suffix: &str| {
            let t = t?;
            let date = t.strip_suffix(suffix).filter(|d| d.len() == 8)?;
            NaiveDate::parse_from_str(date, "%Y%m%d").ok()
        };
        let (Some(from), Some(to)) = (
            day(query.from.as_ref(), "000000"),
            day(query.to.as_ref(), "235959"),
        ) else {
            return;
        };
        if from <= to {
            let cells = self.by_family.entry(family(query)).or_default();
            cells.push(Cell { from, to });
        }
    }

    /// The cells of `query`'s family that hold `day`, shortest first.
    pub fn holding(&self, query: &CdxQuery, day: NaiveDate) -> Vec<Cell> {
        let mut found: Vec<Cell> = self
            .cells(query)
            .iter()
            .filter(|c| c.from <= day && day <= c.to)
            .copied()
            .collect();
        found.sort_by_key(|c| (c.to - c.from, c.from));
        found
    }

    /// Whether `cell` is a cell of `query`'s family.
    pub fn has(&self, query: &CdxQuery, cell: Cell) -> bool {
        self.cells(query).contains(&cell)
    }

    /// The first day after `day` where a cell of `query`'s family starts.
    pub fn next_start(&self, query: &CdxQuery, day: NaiveDate) -> Option<NaiveDate> {
        self.cells(query)
            .iter()
            .map(|c| c.from)
            .filter(|&from| from > day)
            .min()
    }

    /// The cells of `query`'s family, earliest first.
    pub fn of(&self, query: &CdxQuery) -> &[Cell] {
        self.cells(query)
    }

    /// Whether there is no cell at all.
    pub fn is_empty(&self) -> bool {
        self.by_family.is_empty()
    }

    fn cells(&self, query: &CdxQuery) -> &[Cell] {
        self.by_family
            .get(&family(query))
            .map_or(&[], Vec::as_slice)
    }
}

/// A query's family: its state key without its days.
fn family(query: &CdxQuery) -> String {
    CdxQuery {
        from: None,
        to: None,
        ..query.clone()
    }
    .id()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{queries, State};

    fn query(url: &str, from: &str, to: &str) -> CdxQuery {
        CdxQuery {
            url: url.into(),
            match_type: None,
            from: Some(from.into()),
            to: Some(to.into()),
            filters: vec!["statuscode:200".into()],
            collapse: vec!["urlkey".into()],
            page_size: 5_000,
        }
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn completed_listings_of_whole_days_are_cells_of_their_family() {
        let state = State::in_memory().unwrap();
        let done = query("bbc.co.uk/news/*", "20200101000000", "20200130235959");
        let begun = query("bbc.co.uk/news/*", "20200131000000", "20200229235959");
        let other = query("bbc.com/news/*", "20200101000000", "20200130235959");
        let partial_day = query("bbc.co.uk/news/*", "20200301120000", "20200330235959");
        state
            .call_now(|c| {
                for q in [&done, &other, &partial_day] {
                    queries::begin(c, &q.id(), "captures", q.from.as_deref(), true)?;
                    queries::complete(c, &q.id())?;
                }
                queries::begin(c, &begun.id(), "captures", begun.from.as_deref(), true)
            })
            .unwrap();
        let cells = state.call_now(|c| Cells::load(c)).unwrap();
        let jan = Cell {
            from: day("2020-01-01"),
            to: day("2020-01-30"),
        };
        // Any query of the family, whatever its own days, finds the cell.
        let probe = query("bbc.co.uk/news/*", "20200115000000", "20200120235959");
        assert_eq!(cells.holding(&probe, day("2020-01-15")), [jan]);
        assert!(cells.has(&probe, jan));
        assert_eq!(jan.query(&probe).id(), done.id());
        // The listing in progress and the one from noon are no cells.
        assert!(cells.holding(&probe, day("2020-02-05")).is_empty());
        assert!(cells.holding(&probe, day("2020-03-05")).is_empty());
        assert_eq!(cells.next_start(&probe, day("2020-01-15")), None);
        assert_eq!(
            cells.next_start(&probe, day("2019-12-15")),
            Some(day("2020-01-01"))
        );
        // Another pattern, or other filters, is another family.
        let mut filtered = probe.clone();
        filtered.filters.clear();
        assert!(cells.holding(&filtered, day("2020-01-15")).is_empty());
        assert!(!cells.has(&query("bbc.co.uk/sport/*", "2020", "2020"), jan));
    }
}
