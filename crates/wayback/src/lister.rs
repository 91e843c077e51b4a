//! Listing captures: CDX queries paged with resume keys, every page recorded in
//! the state in one transaction with the captures it listed, local dedupe, and
//! the choice of which capture per URL to keep.
//!
//! `collapse` only removes *adjacent* duplicates (and restarts on every page),
//! so dedupe happens here too: by urlkey + digest always, and by urlkey alone
//! for `keep = "earliest"`. Every row a query listed is kept in the state
//! ([`state::listings`]): a rerun reads a completed listing back without asking
//! the Archive, and continues one a stopped run began from its saved resume key,
//! deciding `keep` again on what this run lists. An incremental run first hands
//! back the captures an earlier night listed and nobody fetched, then starts a
//! completed query again from its high-water mark (minus an overlap, for
//! captures the Archive indexes late), handing on only captures new to the state.

use std::collections::VecDeque;

use tempora_records::Capture;
use tempora_wayback_format::timestamp;

use crate::cdx::{CdxClient, CdxQuery, CdxRow, PageAnswer};
use crate::cells::{Cell, Cells};
use crate::chunks::{Chunk, ChunkedListing};
use crate::error::WaybackError;
use crate::state::listings::Within;
use crate::state::{self, QueryRow, State};
use rusqlite::Connection;

pub use crate::keep::Keep;
use crate::keep::{HeldRow, Picker, Scope};

/// What a listing does.
#[derive(Debug, Clone)]
pub struct ListerConfig {
    /// The queries.
    pub listing: Listing,
    /// Which capture per URL.
    pub keep: Keep,
    /// Ask only for captures newer than the last completed listing.
    pub incremental: bool,
    /// How far before the high-water mark an incremental listing starts again (seconds).
    pub overlap_secs: i64,
    /// Stage name, stamped on captures.
    pub source: String,
}

/// The queries a listing makes.
#[derive(Debug, Clone)]
pub enum Listing {
    /// These queries, one after the other, with no watermark.
    Queries(Vec<CdxQuery>),
    /// Chunks of days whose span adapts to the rows they list, every pattern of
    /// a chunk before the next, and a watermark after each (see [`crate::chunks`]).
    Chunked(Box<ChunkedListing>),
}

impl Listing {
    fn next_chunk(&mut self, cells: &Cells) -> Option<Chunk> {
        match self {
            Self::Queries(queries) => (!queries.is_empty()).then(|| Chunk {
                queries: std::mem::take(queries),
                watermark: None,
                cell: None,
            }),
            Self::Chunked(chunks) => chunks.next_chunk(cells),
        }
    }

    /// Tells a chunked listing what its last chunk found: the rows its busiest
    /// query listed, as the state holds them (whether this run listed them, read
    /// them back or left a completed query out), so that the chunks a run lists
    /// depend on the Archive only.
    fn found(&mut self, most_rows: u64) {
        if let Self::Chunked(chunks) = self {
            chunks.found(most_rows);
        }
    }
}

/// One step of a listing.
#[derive(Debug, Default)]
pub struct Listed {
    /// Captures handed on, in index order.
    pub captures: Vec<Capture>,
    /// Rows the CDX returned in this step.
    pub rows: u64,
    /// Rows read back from the state's cache of an earlier listing (no request).
    pub cached_rows: u64,
    /// Rows dropped as duplicates or already known.
    pub duplicates: u64,
    /// A query whose site is blocked, with the Archive's message.
    pub blocked: Option<(String, String)>,
    /// These captures were listed by an earlier run and are handed back.
    pub resumed: bool,
    /// Every capture earlier than this has now been listed: the watermark after a
    /// chunk (see [`crate::chunks::Chunk::watermark`]).
    pub watermark: Option<String>,
    /// The URL of the query that listed `captures` (`None` for captures handed
    /// back from an earlier run).
    pub query: Option<String>,
}

/// Where the next rows of the active query come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rows {
    /// The state's cache, after row `after`; `then_live`: the listing did not
    /// complete, and goes on at the Archive from its resume key.
    Cache { after: i64, then_live: bool },
    /// The Archive.
    Live,
}

struct Active {
    /// The state key of the rows: the query's own, or the cell's it is read from.
    id: String,
    query: CdxQuery,
    resume: Option<String>,
    held: Option<CdxRow>,
    from: Rows,
    /// The capture times a read from a longer cell keeps.
    within: Within,
}

impl Active {
    /// `query` read back whole from the completed listing kept under `id`
    /// (`within` those capture times).
    fn read_back(id: String, query: CdxQuery, within: Within) -> Self {
        Self {
            id,
            query,
            resume: None,
            held: None,
            from: Rows::Cache {
                after: 0,
                then_live: false,
            },
            within,
        }
    }
}

/// A listing of several queries, one CDX page per step.
///
/// Without `incremental`, every query's listing is a fact kept in the state: a
/// completed one is read back from it (no request), one a stopped run began is
/// read back and then continued from its resume key, and `keep` is decided on
/// this run's listing alone, so what a run hands on depends on its queries and
/// the Archive, not on earlier runs. An incremental listing hands on only what
/// is new to the state: the captures earlier nights handed on are known there.
pub struct CdxLister {
    client: CdxClient,
    state: State,
    cfg: ListerConfig,
    handed_back: bool,
    /// The queries of the chunk being listed, not yet started.
    pending: VecDeque<CdxQuery>,
    /// Where the rows of every query of the chunk being listed are kept.
    chunk_ids: Vec<(String, Within)>,
    /// The cell listed before that answers the chunk being listed.
    chunk_cell: Option<Cell>,
    /// The cells of the state (a run-local listing reads back the days they cover).
    cells: Cells,
    active: Option<Active>,
    /// The watermark to hand out once the chunk's last query is done.
    mark: Option<String>,
    /// The newest capture any query of this stage found in an earlier run.
    high_water: Option<String>,
}

impl CdxLister {
    /// A listing with `client`, recording in `state`.
    pub fn new(client: CdxClient, state: State, cfg: ListerConfig) -> Self {
        Self {
            client,
            state,
            cfg,
            handed_back: false,
            pending: VecDeque::new(),
            chunk_ids: Vec::new(),
            chunk_cell: None,
            cells: Cells::default(),
            active: None,
            mark: None,
            high_water: None,
        }
    }

    fn scope(&self) -> Scope {
        if self.cfg.incremental {
            Scope::State
        } else {
            Scope::Run
        }
    }

    /// The next step: for an incremental listing, the captures an earlier run
    /// listed and nobody fetched first; then one page at a time, from the state's
    /// cache or the CDX server. `None` when every query is complete.
    ///
    /// # Errors
    /// CDX or state errors; a blocked IP stops the listing.
    pub async fn next(&mut self) -> Result<Option<Listed>, WaybackError> {
        if !self.handed_back {
            self.handed_back = true;
            if let Some(listed) = self.begin_run().await? {
                return Ok(Some(listed));
            }
        }
        loop {
            if self.active.is_none() {
                if let Some(query) = self.pending.pop_front() {
                    self.active = self.start(query).await?;
                    continue;
                }
                if let Some(watermark) = self.mark.take() {
                    return Ok(Some(Listed {
                        watermark: Some(watermark),
                        ..Listed::default()
                    }));
                }
                if !self.next_chunk().await? {
                    return Ok(None);
                }
                continue;
            }
            let query = self.active.as_ref().map(|a| a.query.url.clone());
            return self
                .step()
                .await
                .map(|listed| Some(Listed { query, ..listed }));
        }
    }

    /// Takes up the next chunk's queries, after telling the listing what the last
    /// one found; `false` after the last chunk.
    async fn next_chunk(&mut self) -> Result<bool, WaybackError> {
        let ids = std::mem::take(&mut self.chunk_ids);
        if matches!(self.cfg.listing, Listing::Chunked(_)) && !ids.is_empty() {
            let most = self
                .state
                .call(move |c| {
                    let mut most = 0;
                    for (id, within) in &ids {
                        most = most.max(state::listings::count_within(c, id, within)?);
                    }
                    Ok(most)
                })
                .await?;
            self.cfg.listing.found(most);
        }
        let Some(chunk) = self.cfg.listing.next_chunk(&self.cells) else {
            return Ok(false);
        };
        self.chunk_cell = chunk.cell;
        self.chunk_ids = chunk.queries.iter().map(|q| self.rows_of(q)).collect();
        self.pending = chunk.queries.into();
        self.mark = chunk.watermark;
        Ok(true)
    }

    /// Where `query`'s rows are kept (see [`Cell::rows_of`]).
    fn rows_of(&self, query: &CdxQuery) -> (String, Within) {
        Cell::rows_of(self.chunk_cell, query)
    }

    /// Before the first query: a run-local listing starts its choice afresh; an
    /// incremental one reads its high-water mark and hands back what an earlier
    /// run listed and nobody fetched.
    async fn begin_run(&mut self) -> Result<Option<Listed>, WaybackError> {
        let source = self.cfg.source.clone();
        if !self.cfg.incremental {
            self.cells = self
                .state
                .call(move |c| {
                    state::listings::run::start(c, &source)?;
                    Cells::load(c)
                })
                .await?;
            return Ok(None);
        }
        let of = source.clone();
        self.high_water = self
            .state
            .call(move |c| state::queries::newest_done(c, &of))
            .await?;
        let captures = self
            .state
            .call(move |c| state::captures::pending(c, &source))
            .await?;
        if captures.is_empty() {
            return Ok(None);
        }
        tracing::info!(source = %self.cfg.source, count = captures.len(), "handing back captures listed by an earlier run");
        Ok(Some(Listed {
            captures,
            resumed: true,
            ..Listed::default()
        }))
    }

    /// Sets up the listing of `query`, or `None` when there is nothing to do.
    async fn start(&mut self, query: CdxQuery) -> Result<Option<Active>, WaybackError> {
        let id = query.id();
        let key = id.clone();
        let row = self
            .state
            .call(move |c| state::queries::load(c, &key))
            .await?;
        if !self.cfg.incremental {
            let (rows, within) = self.rows_of(&query);
            if row.is_none() && within.is_some() {
                tracing::debug!(url = %query.url, "CDX listing read back from a longer one");
                return Ok(Some(Active::read_back(rows, query, within)));
            }
            return self.start_run_local(id, query, row).await;
        }
        let mut query = query;
        if let Some(row) = row.as_ref().filter(|r| r.in_progress) {
            if row.pages > 0 && row.resume_key.is_none() {
                // Killed between its last page and its completion.
                let key = id.clone();
                self.state
                    .call(move |c| state::queries::complete(c, &key))
                    .await?;
                return Ok(None);
            }
            query.from.clone_from(&row.effective_from);
            let held = row
                .held
                .as_deref()
                .and_then(|h| serde_json::from_str::<HeldRow>(h).ok());
            tracing::info!(url = %query.url, pages = row.pages, "resuming a CDX listing");
            return Ok(Some(Active {
                id,
                query,
                resume: row.resume_key.clone(),
                held: held.map(HeldRow::into_row),
                from: Rows::Live,
                within: None,
            }));
        }
        let done_high_water = row.as_ref().and_then(|r| r.done_high_water.clone());
        if row.as_ref().is_some_and(|r| r.completed_at.is_some())
            && ends_before(&query, self.high_water.as_deref(), self.cfg.overlap_secs)
        {
            return Ok(None);
        }
        if let Some(from) = done_high_water.and_then(|hw| restart_from(&hw, self.cfg.overlap_secs))
        {
            let configured = query
                .from
                .as_deref()
                .and_then(timestamp::parse)
                .map(timestamp::format);
            if configured.as_ref().is_none_or(|c| *c < from) {
                query.from = Some(from);
            }
        }
        // Each night's rows join the cache of the query (a rebuild reads them all).
        self.begin(id, query, false).await.map(Some)
    }

    /// Begins listing `query` at the Archive (`fresh`: see [`state::queries::begin`]).
    async fn begin(
        &self,
        id: String,
        query: CdxQuery,
        fresh: bool,
    ) -> Result<Active, WaybackError> {
        let (key, source, from) = (id.clone(), self.cfg.source.clone(), query.from.clone());
        self.state
            .call(move |c| state::queries::begin(c, &key, &source, from.as_deref(), fresh))
            .await?;
        Ok(Active {
            id,
            query,
            resume: None,
            held: None,
            from: Rows::Live,
            within: None,
        })
    }

    /// [`Self::start`] of a run-local listing: the cache first, the Archive for
    /// what it does not hold.
    async fn start_run_local(
        &mut self,
        id: String,
        mut query: CdxQuery,
        row: Option<QueryRow>,
    ) -> Result<Option<Active>, WaybackError> {
        match row.filter(|r| r.cached) {
            Some(row) if row.in_progress && !(row.pages > 0 && row.resume_key.is_none()) => {
                tracing::info!(url = %query.url, pages = row.pages, "reading back a CDX listing begun by an earlier run, then resuming it");
                query.from.clone_from(&row.effective_from);
                Ok(Some(Active {
                    id,
                    query,
                    resume: row.resume_key,
                    held: None,
                    from: Rows::Cache {
                        after: 0,
                        then_live: true,
                    },
                    within: None,
                }))
            }
            Some(row) => {
                if row.in_progress {
                    // Killed between its last page and its completion.
                    let key = id.clone();
                    self.state
                        .call(move |c| state::queries::complete(c, &key))
                        .await?;
                }
                tracing::debug!(url = %query.url, "CDX listing read back from the state");
                Ok(Some(Active::read_back(id, query, None)))
            }
            None => self.begin(id, query, true).await.map(Some),
        }
    }

    async fn step(&mut self) -> Result<Listed, WaybackError> {
        let scope = self.scope();
        let Some(active) = self.active.as_mut() else {
            return Ok(Listed::default());
        };
        if let Rows::Cache { after, then_live } = active.from {
            return self.step_cached(after, then_live).await;
        }
        let page = match self
            .client
            .page(&active.query, active.resume.as_deref())
            .await?
        {
            PageAnswer::Blocked(message) => {
                let url = active.query.url.clone();
                tracing::warn!(url = %url, %message, "site is excluded from the Wayback Machine");
                self.active = None;
                return Ok(Listed {
                    blocked: Some((url, message)),
                    ..Listed::default()
                });
            }
            PageAnswer::Page(page) => page,
        };
        let last = page.resume_key.is_none() || page.rows.is_empty();
        let rows = page.rows.len() as u64;
        let saved = SavedPage {
            id: active.id.clone(),
            rows: page.rows,
            unreadable: page.unreadable,
            resume: page.resume_key.clone(),
            last,
            keep: self.cfg.keep,
            scope,
            source: self.cfg.source.clone(),
            held: active.held.take(),
        };
        let (captures, held, duplicates) = self.state.call(move |c| saved.save(c)).await?;
        if last {
            self.active = None;
        } else if let Some(active) = self.active.as_mut() {
            active.resume = page.resume_key;
            active.held = held;
        }
        Ok(Listed {
            captures,
            rows,
            duplicates,
            ..Listed::default()
        })
    }

    /// A page of rows read back from the cache of the active query.
    async fn step_cached(&mut self, after: i64, then_live: bool) -> Result<Listed, WaybackError> {
        let scope = self.scope();
        let Some(active) = self.active.as_mut() else {
            return Ok(Listed::default());
        };
        let (id, keep, source) = (active.id.clone(), self.cfg.keep, self.cfg.source.clone());
        let held = active.held.take();
        let limit = active.query.page_size.max(1);
        let within = active.within.clone();
        let (captures, held, duplicates, rows, last_seq) = self
            .state
            .call(move |c| {
                let tx = c.transaction()?;
                let rows = state::listings::read(&tx, &id, after, limit, &within)?;
                let done = rows.len() < limit;
                let last_seq = rows.last().map_or(after, |(seq, _)| *seq);
                let count = rows.len() as u64;
                let mut picker = Picker::new(&tx, keep, scope, &source, held);
                for (_, row) in rows {
                    picker.offer(row)?;
                }
                if done && !then_live {
                    picker.flush()?;
                }
                let (captures, held, duplicates) = picker.into_parts();
                tx.commit()?;
                Ok((
                    captures,
                    held,
                    duplicates,
                    count,
                    (!done).then_some(last_seq),
                ))
            })
            .await?;
        match (last_seq, then_live) {
            (Some(after), _) => {
                if let Some(active) = self.active.as_mut() {
                    active.from = Rows::Cache { after, then_live };
                    active.held = held;
                }
            }
            (None, true) => {
                if let Some(active) = self.active.as_mut() {
                    active.from = Rows::Live;
                    active.held = held;
                }
            }
            (None, false) => self.active = None,
        }
        Ok(Listed {
            captures,
            cached_rows: rows,
            duplicates,
            ..Listed::default()
        })
    }
}

/// Whether an incremental listing can leave `query` out: its window ends more
/// than `overlap_secs` before the newest capture an earlier listing found (its
/// high-water mark), where an incremental query would start again anyway.
fn ends_before(query: &CdxQuery, high_water: Option<&str>, overlap_secs: i64) -> bool {
    let (Some(to), Some(hw)) = (query.to.as_deref(), high_water) else {
        return false;
    };
    restart_from(hw, overlap_secs).is_some_and(|from| to < from.as_str())
}

/// Where an incremental listing starts again: a second after the high-water
/// mark `hw`, less `overlap_secs` (captures the Archive indexes late).
fn restart_from(hw: &str, overlap_secs: i64) -> Option<String> {
    timestamp::shift(hw, 1 - overlap_secs)
}

/// A live page of a listing, to be saved: its rows appended to the listing and
/// offered to `keep`, with its resume key, in one transaction.
struct SavedPage {
    id: String,
    rows: Vec<CdxRow>,
    unreadable: u64,
    resume: Option<String>,
    /// The listing's last page: the held row is decided, the query completed.
    last: bool,
    keep: Keep,
    scope: Scope,
    source: String,
    held: Option<CdxRow>,
}

impl SavedPage {
    /// Saves the page; the captures handed on, the row held for the next page,
    /// and the duplicates left out.
    fn save(self, c: &mut Connection) -> rusqlite::Result<(Vec<Capture>, Option<CdxRow>, u64)> {
        let tx = c.transaction()?;
        let (mut valid, invalid): (Vec<CdxRow>, Vec<CdxRow>) = self
            .rows
            .into_iter()
            .partition(|row| !row.original.is_empty());
        // In index order, as the protocol gives them, whatever the server:
        // `keep` decides on a URL's rows one after the other.
        valid.sort_by(|a, b| {
            (&a.urlkey, a.timestamp, &a.original).cmp(&(&b.urlkey, b.timestamp, &b.original))
        });
        let high_water = valid.iter().map(|r| r.timestamp).max();
        state::listings::append(&tx, &self.id, &valid)?;
        let mut picker = Picker::new(&tx, self.keep, self.scope, &self.source, self.held);
        picker.duplicates += invalid.len() as u64 + self.unreadable;
        for row in valid {
            picker.offer(row)?;
        }
        if self.last {
            picker.flush()?;
        }
        let held_json = picker
            .held
            .as_ref()
            .and_then(|h| serde_json::to_string(&HeldRow::from_row(h)).ok());
        state::queries::save_page(
            &tx,
            &self.id,
            self.resume.as_deref(),
            high_water.as_deref(),
            held_json.as_deref(),
        )?;
        if self.last {
            state::queries::complete(&tx, &self.id)?;
        }
        let parts = picker.into_parts();
        tx.commit()?;
        Ok(parts)
    }
}
