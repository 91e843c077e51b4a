//! Listing captures: CDX queries paged with resume keys, every page recorded in
//! the state in one transaction with the captures it listed, local dedupe, and
//! the choice of which capture per URL to keep.
//!
//! `collapse` only removes *adjacent* duplicates (and restarts on every page),
//! so dedupe happens here too: by urlkey + digest always, and by urlkey alone
//! for `keep = "earliest"`. A rerun first hands back the captures that are
//! listed but not fetched yet, then continues each query from its saved resume
//! key. An incremental run starts a completed query again from its high-water
//! mark (minus an overlap, for captures the Archive indexes late).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_engine::Capture;
use tempora_wayback_format::timestamp;

use crate::cdx::{CdxClient, CdxQuery, CdxRow, PageAnswer};
use crate::error::WaybackError;
use crate::state::{self, State};

/// Which capture of a URL to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// The first capture: the closest to publication.
    #[default]
    Earliest,
    /// The last capture.
    Latest,
    /// Every capture with a new payload.
    All,
}

impl Keep {
    /// The CDX `collapse` that suits this choice when none is given: `urlkey`
    /// for the earliest capture (the server sends one row per URL), none
    /// otherwise (the latest and every new payload need every row).
    pub fn default_collapse(self) -> Vec<String> {
        match self {
            Self::Earliest => vec!["urlkey".into()],
            Self::Latest | Self::All => Vec::new(),
        }
    }
}

/// What a listing does.
#[derive(Debug, Clone)]
pub struct ListerConfig {
    /// The queries, listed one after the other.
    pub queries: Vec<CdxQuery>,
    /// Watermarks (14-digit times) by the index of the query after which each
    /// holds: every capture earlier than it has been listed once that query is
    /// done (the queries before it cover every pattern up to that time).
    pub watermarks: BTreeMap<usize, String>,
    /// Which capture per URL.
    pub keep: Keep,
    /// Ask only for captures newer than the last completed listing.
    pub incremental: bool,
    /// How far before the high-water mark an incremental listing starts again (seconds).
    pub overlap_secs: i64,
    /// Stage name, stamped on captures.
    pub source: String,
}

/// One step of a listing.
#[derive(Debug, Default)]
pub struct Listed {
    /// New captures, in index order.
    pub captures: Vec<Capture>,
    /// Rows the CDX returned in this step.
    pub rows: u64,
    /// Rows dropped as duplicates or already known.
    pub duplicates: u64,
    /// A query whose site is blocked, with the Archive's message.
    pub blocked: Option<(String, String)>,
    /// These captures were listed by an earlier run and are handed back.
    pub resumed: bool,
    /// Every capture earlier than this has now been listed (see
    /// [`ListerConfig::watermarks`]).
    pub watermark: Option<String>,
}

struct Active {
    id: String,
    query: CdxQuery,
    resume: Option<String>,
    held: Option<CdxRow>,
}

/// A listing of several queries, one CDX page per step.
pub struct CdxLister {
    client: CdxClient,
    state: State,
    cfg: ListerConfig,
    handed_back: bool,
    next_query: usize,
    active: Option<Active>,
    /// The watermark to hand out once the active query is done.
    mark: Option<String>,
    /// The newest capture any query of this listing found in an earlier run.
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
            next_query: 0,
            active: None,
            mark: None,
            high_water: None,
        }
    }

    /// The next step: captures an earlier run listed and nobody fetched, then one
    /// CDX page at a time. `None` when every query is complete.
    ///
    /// # Errors
    /// CDX or state errors; a blocked IP stops the listing.
    pub async fn next(&mut self) -> Result<Option<Listed>, WaybackError> {
        if !self.handed_back {
            self.handed_back = true;
            let ids: Vec<String> = self.cfg.queries.iter().map(CdxQuery::id).collect();
            self.high_water = self
                .state
                .call(move |c| {
                    let mut newest: Option<String> = None;
                    for id in &ids {
                        let hw = state::queries::load(c, id)?.and_then(|r| r.done_high_water);
                        newest = newest.max(hw);
                    }
                    Ok(newest)
                })
                .await?;
            let source = self.cfg.source.clone();
            let captures = self
                .state
                .call(move |c| state::captures::pending(c, &source))
                .await?;
            if !captures.is_empty() {
                tracing::info!(source = %self.cfg.source, count = captures.len(), "handing back captures listed by an earlier run");
                return Ok(Some(Listed {
                    captures,
                    resumed: true,
                    ..Listed::default()
                }));
            }
        }
        loop {
            if self.active.is_none() {
                if let Some(watermark) = self.mark.take() {
                    return Ok(Some(Listed {
                        watermark: Some(watermark),
                        ..Listed::default()
                    }));
                }
                let Some(query) = self.cfg.queries.get(self.next_query).cloned() else {
                    return Ok(None);
                };
                self.mark = self.cfg.watermarks.get(&self.next_query).cloned();
                self.next_query += 1;
                self.active = self.start(query).await?;
                continue;
            }
            return self.step().await.map(Some);
        }
    }

    /// Sets up the listing of `query`, or `None` when there is nothing to do.
    async fn start(&mut self, query: CdxQuery) -> Result<Option<Active>, WaybackError> {
        let id = query.id();
        let key = id.clone();
        let row = self
            .state
            .call(move |c| state::queries::load(c, &key))
            .await?;
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
            }));
        }
        let done_high_water = row.as_ref().and_then(|r| r.done_high_water.clone());
        if row.as_ref().is_some_and(|r| r.completed_at.is_some()) && !self.cfg.incremental {
            tracing::info!(url = %query.url, "CDX listing already complete (set `incremental = true` to look for new captures)");
            return Ok(None);
        }
        if self.cfg.incremental
            && row.as_ref().is_some_and(|r| r.completed_at.is_some())
            && ends_before(&query, self.high_water.as_deref(), self.cfg.overlap_secs)
        {
            return Ok(None);
        }
        if self.cfg.incremental {
            if let Some(from) =
                done_high_water.and_then(|hw| restart_from(&hw, self.cfg.overlap_secs))
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
        }
        let (key, source, from) = (id.clone(), self.cfg.source.clone(), query.from.clone());
        self.state
            .call(move |c| state::queries::begin(c, &key, &source, from.as_deref()))
            .await?;
        Ok(Some(Active {
            id,
            query,
            resume: None,
            held: None,
        }))
    }

    async fn step(&mut self) -> Result<Listed, WaybackError> {
        let Some(active) = self.active.as_mut() else {
            return Ok(Listed::default());
        };
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
        let (id, keep, source) = (active.id.clone(), self.cfg.keep, self.cfg.source.clone());
        let held = active.held.take();
        let resume = page.resume_key.clone();
        let (captures, held, duplicates) = self
            .state
            .call(move |c| {
                let tx = c.transaction()?;
                let mut picker = Picker {
                    conn: &tx,
                    keep,
                    source: &source,
                    held,
                    captures: Vec::new(),
                    duplicates: 0,
                };
                let mut high_water: Option<String> = None;
                for row in page.rows {
                    if row.timestamp.len() != 14 || row.original.is_empty() {
                        picker.duplicates += 1;
                        continue;
                    }
                    if high_water.as_ref().is_none_or(|h| *h < row.timestamp) {
                        high_water = Some(row.timestamp.clone());
                    }
                    picker.offer(row)?;
                }
                if last {
                    picker.flush()?;
                }
                let held_json = picker
                    .held
                    .as_ref()
                    .and_then(|h| serde_json::to_string(&HeldRow::from_row(h)).ok());
                state::queries::save_page(
                    &tx,
                    &id,
                    resume.as_deref(),
                    high_water.as_deref(),
                    held_json.as_deref(),
                )?;
                if last {
                    state::queries::complete(&tx, &id)?;
                }
                let Picker {
                    captures,
                    held,
                    duplicates,
                    ..
                } = picker;
                tx.commit()?;
                Ok((captures, held, duplicates))
            })
            .await?;
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

/// Applies `keep` and dedupe to rows in index order (urlkey, then time).
struct Picker<'a> {
    conn: &'a rusqlite::Connection,
    keep: Keep,
    source: &'a str,
    held: Option<CdxRow>,
    captures: Vec<Capture>,
    duplicates: u64,
}

impl Picker<'_> {
    fn offer(&mut self, row: CdxRow) -> rusqlite::Result<()> {
        match self.keep {
            Keep::All => {
                if state::captures::seen_digest(self.conn, &row.urlkey, &row.digest)? {
                    self.duplicates += 1;
                    return Ok(());
                }
                self.list(&row)
            }
            Keep::Earliest => {
                if state::captures::latest_of_key(self.conn, &row.urlkey)?.is_some() {
                    self.duplicates += 1;
                    return Ok(());
                }
                self.list(&row)
            }
            Keep::Latest => {
                if self.held.as_ref().is_some_and(|h| h.urlkey == row.urlkey) {
                    self.duplicates += 1;
                    self.held = Some(row);
                    return Ok(());
                }
                self.flush()?;
                self.held = Some(row);
                Ok(())
            }
        }
    }

    /// Decides on the held row of `keep = "latest"`: listed unless a capture as new,
    /// or one with the same payload, is known.
    fn flush(&mut self) -> rusqlite::Result<()> {
        let Some(row) = self.held.take() else {
            return Ok(());
        };
        let newest = state::captures::latest_of_key(self.conn, &row.urlkey)?;
        if newest.is_some_and(|n| n >= row.timestamp)
            || state::captures::seen_digest(self.conn, &row.urlkey, &row.digest)?
        {
            self.duplicates += 1;
            return Ok(());
        }
        self.list(&row)
    }

    fn list(&mut self, row: &CdxRow) -> rusqlite::Result<()> {
        let capture = row.to_capture(self.source);
        if state::captures::insert_listed(self.conn, &capture, &row.urlkey)? {
            self.captures.push(capture);
        } else {
            self.duplicates += 1;
        }
        Ok(())
    }
}

/// A held row as stored in the state.
#[derive(Serialize, Deserialize)]
struct HeldRow {
    urlkey: String,
    timestamp: String,
    original: String,
    mime: String,
    status: Option<u16>,
    digest: String,
    length: Option<u64>,
}

impl HeldRow {
    fn from_row(r: &CdxRow) -> Self {
        Self {
            urlkey: r.urlkey.clone(),
            timestamp: r.timestamp.clone(),
            original: r.original.clone(),
            mime: r.mime.clone(),
            status: r.status,
            digest: r.digest.clone(),
            length: r.length,
        }
    }

    fn into_row(self) -> CdxRow {
        CdxRow {
            urlkey: self.urlkey,
            timestamp: self.timestamp,
            original: self.original,
            mime: self.mime,
            status: self.status,
            digest: self.digest,
            length: self.length,
        }
    }
}
