//! The earliest capture of each article that any run's listing offered, kept in
//! the crawl state: a fact about the Archive (the story was published by then),
//! not a decision, so every pipeline with a `state` file keeps it. It lets
//! `outside_windows` decide, before fetching, a story that a run with other
//! sets meets only through a later capture (another URL of it, first captured
//! inside the new window) while an earlier run listed it before the window: the
//! story was published before the window, whatever the later page says.
//!
//! Recorded when an article is decided, with the capture it holds then, its
//! earliest this run: within one run it adds nothing, it tells later runs.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OptionalExtension};
use tempora_engine::StageError;
use tempora_extract::ArticleKey;
use tempora_records::Capture;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS prefetch_first_seen(
  site TEXT NOT NULL,
  id TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  PRIMARY KEY (site, id)
) WITHOUT ROWID;
";

/// The earliest capture offered per article, in the crawl state's file.
pub(crate) struct FirstSeen {
    conn: Connection,
    path: String,
}

impl FirstSeen {
    /// Opens (creating) the table in the crawl state at `path`.
    ///
    /// # Errors
    /// When the file cannot be opened or is not a SQLite database.
    pub(crate) fn open(path: &Path) -> Result<Self, StageError> {
        let (conn, shown) = super::choices::open_state(Some(path))?;
        conn.execute_batch(SCHEMA)
            .map_err(|e| StageError::input(format!("state {shown}: {e}")))?;
        Ok(Self { conn, path: shown })
    }

    /// For each article and the capture it holds (its earliest this run): the
    /// earlier capture a run before listed, if there is one; and records the
    /// held capture where none as early is known. A run that lists nothing
    /// new (a rerun) only reads.
    ///
    /// # Errors
    /// Database errors, naming the file.
    pub(crate) fn earlier(
        &mut self,
        held: &[(ArticleKey, Capture)],
    ) -> Result<HashMap<ArticleKey, String>, StageError> {
        let mut earlier = HashMap::new();
        let mut new = Vec::new();
        for (key, capture) in held {
            match self.first(key)? {
                Some(t) if t.as_str() < capture.timestamp.as_str() => {
                    earlier.insert(key.clone(), t);
                }
                Some(t) if t.as_str() == capture.timestamp.as_str() => {}
                _ => new.push((key, capture)),
            }
        }
        if !new.is_empty() {
            self.record(new.into_iter())?;
        }
        Ok(earlier)
    }

    /// Records each article's capture against its earliest.
    ///
    /// # Errors
    /// Database errors, naming the file.
    fn record<'a>(
        &mut self,
        offered: impl Iterator<Item = (&'a ArticleKey, &'a Capture)>,
    ) -> Result<(), StageError> {
        let work = |conn: &mut Connection| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            {
                let mut put = tx.prepare_cached(
                    "INSERT INTO prefetch_first_seen(site, id, timestamp) VALUES (?1, ?2, ?3)
                     ON CONFLICT(site, id) DO UPDATE SET timestamp = excluded.timestamp
                     WHERE excluded.timestamp < timestamp",
                )?;
                for (key, capture) in offered {
                    put.execute((&key.site, &key.id, capture.timestamp.as_str()))?;
                }
            }
            tx.commit()
        };
        let path = self.path.clone();
        work(&mut self.conn).map_err(|e| StageError::input(format!("state {path}: {e}")))
    }

    /// The earliest capture time of `key` any listing offered.
    ///
    /// # Errors
    /// Database errors, naming the file.
    pub(crate) fn first(&self, key: &ArticleKey) -> Result<Option<String>, StageError> {
        self.conn
            .prepare_cached("SELECT timestamp FROM prefetch_first_seen WHERE site = ?1 AND id = ?2")
            .and_then(|mut s| s.query_row((&key.site, &key.id), |r| r.get(0)).optional())
            .map_err(|e| StageError::input(format!("state {}: {e}", self.path)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(timestamp: &str) -> Capture {
        super::super::choices::tests::capture("https://www.bbc.co.uk/news/uk-1", timestamp)
    }

    #[test]
    fn the_earliest_capture_offered_outlives_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite");
        let key = ArticleKey {
            site: "bbc".into(),
            id: "1".into(),
        };
        {
            let mut seen = FirstSeen::open(&path).unwrap();
            assert_eq!(seen.first(&key).unwrap(), None);
            let (late, early) = (capture("20200301000000"), capture("20200101000000"));
            // The first run holds the late capture: nothing earlier is known.
            let held = [(key.clone(), late.clone())];
            assert!(seen.earlier(&held).unwrap().is_empty());
            assert_eq!(seen.first(&key).unwrap().as_deref(), Some("20200301000000"));
            // A run that holds an earlier one records it.
            assert!(seen.earlier(&[(key.clone(), early)]).unwrap().is_empty());
            assert_eq!(seen.first(&key).unwrap().as_deref(), Some("20200101000000"));
            // One that holds the late one again learns of the earlier.
            let known = seen.earlier(&held).unwrap();
            assert_eq!(known.get(&key).map(String::as_str), Some("20200101000000"));
        }
        let seen = FirstSeen::open(&path).unwrap();
        assert_eq!(seen.first(&key).unwrap().as_deref(), Some("20200101000000"));
    }
}
