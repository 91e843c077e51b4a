//! Which capture of a URL a listing keeps (`keep`), and the dedupe that goes
//! with it, applied to CDX rows in index order: against what this run's listing
//! has handed on, or, for an incremental listing, against every capture the
//! crawl state knows.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_records::{Capture, Timestamp};

use crate::cdx::CdxRow;
use crate::state;

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

/// What a listing's `keep` and dedupe are decided against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// What this run has handed on (`temp.run_listed`).
    Run,
    /// Every capture the state knows (an incremental listing: what earlier nights
    /// handed on is not handed on again).
    State,
}

/// Applies `keep` and dedupe to rows in index order (urlkey, then time).
pub(crate) struct Picker<'a> {
    conn: &'a rusqlite::Connection,
    keep: Keep,
    scope: Scope,
    source: &'a str,
    /// The row `keep = "latest"` holds back until the next urlkey.
    pub(crate) held: Option<CdxRow>,
    captures: Vec<Capture>,
    /// Rows left out so far.
    pub(crate) duplicates: u64,
}

impl<'a> Picker<'a> {
    pub(crate) fn new(
        conn: &'a rusqlite::Connection,
        keep: Keep,
        scope: Scope,
        source: &'a str,
        held: Option<CdxRow>,
    ) -> Self {
        Self {
            conn,
            keep,
            scope,
            source,
            held,
            captures: Vec::new(),
            duplicates: 0,
        }
    }

    /// What the picker handed on, the row it holds back, and the duplicates.
    pub(crate) fn into_parts(self) -> (Vec<Capture>, Option<CdxRow>, u64) {
        (self.captures, self.held, self.duplicates)
    }

    fn latest_of_key(&self, urlkey: &str) -> rusqlite::Result<Option<String>> {
        match self.scope {
            Scope::Run => state::listings::run::latest_of_key(self.conn, self.source, urlkey),
            Scope::State => state::captures::latest_of_key(self.conn, urlkey),
        }
    }

    fn seen_digest(&self, row: &CdxRow) -> rusqlite::Result<bool> {
        match self.scope {
            Scope::Run => {
                state::listings::run::seen_digest(self.conn, self.source, &row.urlkey, &row.digest)
            }
            Scope::State => state::captures::seen_digest(self.conn, &row.urlkey, &row.digest),
        }
    }

    pub(crate) fn offer(&mut self, row: CdxRow) -> rusqlite::Result<()> {
        match self.keep {
            Keep::All => {
                if self.seen_digest(&row)? {
                    self.duplicates += 1;
                    return Ok(());
                }
                self.list(&row)
            }
            Keep::Earliest => {
                if self.latest_of_key(&row.urlkey)?.is_some() {
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
    pub(crate) fn flush(&mut self) -> rusqlite::Result<()> {
        let Some(row) = self.held.take() else {
            return Ok(());
        };
        let newest = self.latest_of_key(&row.urlkey)?;
        if newest.is_some_and(|n| n.as_str() >= row.timestamp.as_str()) || self.seen_digest(&row)? {
            self.duplicates += 1;
            return Ok(());
        }
        self.list(&row)
    }

    fn list(&mut self, row: &CdxRow) -> rusqlite::Result<()> {
        let new = match self.scope {
            Scope::Run => state::listings::run::insert(self.conn, self.source, row)?,
            Scope::State => {
                let capture = row.to_capture(self.source);
                state::captures::insert_listed(self.conn, &capture, &row.urlkey)?
            }
        };
        if new {
            self.captures.push(row.to_capture(self.source));
        } else {
            self.duplicates += 1;
        }
        Ok(())
    }
}

/// A held row as stored in the state.
#[derive(Serialize, Deserialize)]
pub(crate) struct HeldRow {
    urlkey: String,
    timestamp: Timestamp,
    original: String,
    mime: String,
    status: Option<u16>,
    digest: String,
    length: Option<u64>,
}

impl HeldRow {
    pub(crate) fn from_row(r: &CdxRow) -> Self {
        Self {
            urlkey: r.urlkey.clone(),
            timestamp: r.timestamp,
            original: r.original.clone(),
            mime: r.mime.clone(),
            status: r.status,
            digest: r.digest.clone(),
            length: r.length,
        }
    }

    pub(crate) fn into_row(self) -> CdxRow {
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
