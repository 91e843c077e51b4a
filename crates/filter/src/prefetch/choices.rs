//! What `prefetch` remembers per article, in SQLite rather than in memory: the
//! capture it holds (the earliest seen so far) until the article is decided, and
//! the capture it chose once decided (passed on to fetch, or skipped); and, until
//! then, the captures it left out, so that each is rejected naming the capture
//! chosen, not the one held when it came: the same words in any input order.
//!
//! The choice is made once and kept: a run killed after choosing and rerun (its
//! listing hands the captures back), or a later night that lists the article
//! again, finds the choice and holds to it, so no article is fetched twice under
//! two captures. Without a `state` file the table lives in a private temporary
//! SQLite file, deleted when the run ends: memory does not grow with the listing
//! either way.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};
use tempora_engine::StageError;
use tempora_extract::ArticleKey;
use tempora_records::Capture;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS prefetch_articles(
  stage TEXT NOT NULL,
  site TEXT NOT NULL,
  id TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  url TEXT NOT NULL,
  capture TEXT NOT NULL,
  -- 0: held; 1: decided by this run; 2: decided by an earlier run.
  decided INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (stage, site, id)
);
CREATE INDEX IF NOT EXISTS prefetch_held ON prefetch_articles(stage, decided, timestamp);
CREATE TABLE IF NOT EXISTS prefetch_dropped(
  stage TEXT NOT NULL,
  site TEXT NOT NULL,
  id TEXT NOT NULL,
  capture TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS prefetch_dropped_article ON prefetch_dropped(stage, site, id);
";

/// What became of one capture offered for its article.
#[derive(Debug)]
pub(crate) enum Offer {
    /// Held as the article's earliest capture so far (the capture held before, if
    /// any, is left out).
    Held,
    /// Left out: the article holds an earlier capture. A duplicate of the capture
    /// chosen, which [`Choices::decided`] hands back with it.
    Dropped,
    /// The article was decided for another capture, `kept` (`earlier_run`: by a
    /// run before this one): this one is a duplicate.
    Duplicate { kept: Capture, earlier_run: bool },
    /// An earlier run chose this very capture (it was killed before the fetch was
    /// recorded, and the listing hands the capture back): to be decided again.
    Chosen,
}

/// The per-article table of one `prefetch` stage.
pub(crate) struct Choices {
    conn: Connection,
    stage: String,
    path: String,
}

impl Choices {
    /// Opens (creating) the table in the SQLite file at `path`, or in a private
    /// temporary file without one.
    ///
    /// # Errors
    /// When the file cannot be opened or is not a SQLite database.
    pub(crate) fn open(path: Option<&Path>, stage: &str) -> Result<Self, StageError> {
        let (conn, shown) = open_state(path)?;
        let fail = |e: rusqlite::Error| StageError::input(format!("state {shown}: {e}"));
        conn.execute_batch(SCHEMA)
            // What a killed run left out is offered again by its rerun's listing.
            .and_then(|()| {
                conn.execute("DELETE FROM prefetch_dropped WHERE stage = ?1", [stage])
                    .map(drop)
            })
            // What runs before this one decided, said so in a duplicate's reason (a
            // duplicate of this run's choice reads the same whenever it came).
            .and_then(|()| {
                conn.execute(
                    "UPDATE prefetch_articles SET decided = 2 WHERE stage = ?1 AND decided = 1",
                    [stage],
                )
                .map(drop)
            })
            .map_err(fail)?;
        Ok(Self {
            conn,
            stage: stage.to_string(),
            path: shown,
        })
    }

    fn error(&self, e: &rusqlite::Error) -> StageError {
        StageError::input(format!("state {}: {e}", self.path))
    }

    /// Offers each capture for its article, in one transaction: the earliest
    /// capture of an undecided article is held (ties: the smaller URL), the others
    /// are kept aside until it is decided.
    ///
    /// # Errors
    /// Database errors, naming the file.
    pub(crate) fn offer(
        &mut self,
        captures: Vec<(ArticleKey, Capture)>,
    ) -> Result<Vec<(ArticleKey, Capture, Offer)>, StageError> {
        let stage = self.stage.clone();
        let work = |conn: &mut Connection| -> rusqlite::Result<_> {
            let tx = conn.transaction()?;
            let mut out = Vec::with_capacity(captures.len());
            {
                let mut find = tx.prepare_cached(
                    "SELECT capture, decided FROM prefetch_articles WHERE stage = ?1 AND site = ?2 AND id = ?3",
                )?;
                let mut drop = tx.prepare_cached(
                    "INSERT INTO prefetch_dropped(stage, site, id, capture) VALUES (?1, ?2, ?3, ?4)",
                )?;
                let mut put = tx.prepare_cached(
                    "INSERT INTO prefetch_articles(stage, site, id, timestamp, url, capture)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT(stage, site, id) DO UPDATE SET
                       timestamp = excluded.timestamp, url = excluded.url, capture = excluded.capture",
                )?;
                for (key, capture) in captures {
                    let known: Option<(String, i64)> = find
                        .query_row((&stage, &key.site, &key.id), |r| {
                            Ok((r.get(0)?, r.get::<_, i64>(1)?))
                        })
                        .optional()?;
                    let known = known.and_then(|(json, decided)| {
                        serde_json::from_str::<Capture>(&json)
                            .ok()
                            .map(|c| (c, decided))
                    });
                    let order = |c: &Capture| (c.timestamp, c.url.clone());
                    let json = |c: &Capture| serde_json::to_string(c).unwrap_or_default();
                    let offer = match known {
                        Some((kept, 1..)) if order(&kept) == order(&capture) => Offer::Chosen,
                        Some((kept, decided @ 1..)) => Offer::Duplicate {
                            kept,
                            earlier_run: decided == 2,
                        },
                        Some((kept, _)) if order(&kept) <= order(&capture) => {
                            drop.execute((&stage, &key.site, &key.id, json(&capture)))?;
                            Offer::Dropped
                        }
                        earlier => {
                            if let Some((replaced, _)) = &earlier {
                                drop.execute((&stage, &key.site, &key.id, json(replaced)))?;
                            }
                            put.execute((
                                &stage,
                                &key.site,
                                &key.id,
                                &capture.timestamp,
                                &capture.url,
                                json(&capture),
                            ))?;
                            Offer::Held
                        }
                    };
                    out.push((key, capture, offer));
                }
            }
            tx.commit()?;
            Ok(out)
        };
        work(&mut self.conn).map_err(|e| self.error(&e))
    }

    /// Up to `limit` held articles whose capture is earlier than `before` (all
    /// without it), by site and id.
    ///
    /// # Errors
    /// Database errors, naming the file.
    pub(crate) fn held(
        &self,
        before: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(ArticleKey, Capture)>, StageError> {
        let work = || -> rusqlite::Result<_> {
            // Two statements, not `?2 IS NULL OR timestamp < ?2`: with a time, the
            // index's range holds just the articles to release (each watermark
            // releases a few of many held), where the `OR` made every call read
            // every held article.
            let mut stmt = self.conn.prepare_cached(if before.is_some() {
                "SELECT site, id, capture FROM prefetch_articles
                 WHERE stage = ?1 AND decided = 0 AND timestamp < ?2
                 ORDER BY site, id LIMIT ?3"
            } else {
                "SELECT site, id, capture FROM prefetch_articles
                 WHERE stage = ?1 AND decided = 0 AND ?2 IS NULL
                 ORDER BY site, id LIMIT ?3"
            })?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = stmt.query_map((&self.stage, before, limit), |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (site, id, json) = row?;
                if let Ok(capture) = serde_json::from_str::<Capture>(&json) {
                    out.push((ArticleKey { site, id }, capture));
                }
            }
            Ok(out)
        };
        work().map_err(|e| self.error(&e))
    }

    /// Records the articles as decided: their capture is the chosen one for good.
    /// The captures left out for them ([`Offer::Dropped`]), now duplicates of it.
    ///
    /// # Errors
    /// Database errors, naming the file.
    pub(crate) fn decided(
        &mut self,
        keys: &[ArticleKey],
    ) -> Result<Vec<(ArticleKey, Capture)>, StageError> {
        let stage = self.stage.clone();
        let work = |conn: &mut Connection| -> rusqlite::Result<_> {
            let tx = conn.transaction()?;
            let mut dropped = Vec::new();
            {
                let mut stmt = tx.prepare_cached(
                    "UPDATE prefetch_articles SET decided = 1 WHERE stage = ?1 AND site = ?2 AND id = ?3",
                )?;
                let mut left_out = tx.prepare_cached(
                    "DELETE FROM prefetch_dropped WHERE stage = ?1 AND site = ?2 AND id = ?3
                     RETURNING capture",
                )?;
                for key in keys {
                    stmt.execute((&stage, &key.site, &key.id))?;
                    let rows = left_out
                        .query_map((&stage, &key.site, &key.id), |r| r.get::<_, String>(0))?;
                    for json in rows {
                        if let Ok(capture) = serde_json::from_str::<Capture>(&json?) {
                            dropped.push((key.clone(), capture));
                        }
                    }
                }
            }
            tx.commit()?;
            Ok(dropped)
        };
        work(&mut self.conn).map_err(|e| self.error(&e))
    }
}

/// Opens the SQLite file at `path` (creating its folder), or a private
/// temporary file without one, as the crawl's connections to the same file are
/// opened; with the name its errors give.
///
/// # Errors
/// When the file cannot be opened or is not a SQLite database.
pub(crate) fn open_state(path: Option<&Path>) -> Result<(Connection, String), StageError> {
    let shown = path.map_or_else(
        || "a temporary file".to_string(),
        |p| p.display().to_string(),
    );
    let fail = |e: String| StageError::input(format!("state {shown}: {e}"));
    if let Some(parent) = path
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent).map_err(|e| fail(e.to_string()))?;
    }
    // An empty name is SQLite's private temporary file, removed on close.
    let mut conn =
        Connection::open(path.unwrap_or(Path::new(""))).map_err(|e| fail(e.to_string()))?;
    // Shared with the crawl's connections to the same file. NORMAL: in WAL mode
    // a commit survives a killed process (not a power cut, where the last
    // choices are made again from the handed-back listing).
    tempora_wayback::state::sqlite::prepare_shared(
        &mut conn,
        tempora_wayback::state::sqlite::Sync::Normal,
    )
    .map_err(|e| fail(e.to_string()))?;
    Ok((conn, shown))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A capture of `url` at `timestamp`, for the stage's tests.
    pub(in crate::prefetch) fn capture(url: &str, timestamp: &str) -> Capture {
        Capture {
            url: url.into(),
            timestamp: timestamp.parse().unwrap(),
            status: Some(200),
            mime: "text/html".into(),
            digest: "D".into(),
            length: None,
            source: "captures".into(),
        }
    }

    fn key(id: &str) -> ArticleKey {
        ArticleKey {
            site: "bbc".into(),
            id: id.into(),
        }
    }

    /// Decides article `id`: the URLs of the captures left out for it, sorted.
    fn decided_dropped(choices: &mut Choices, id: &str) -> Vec<String> {
        let mut urls: Vec<String> = choices
            .decided(&[key(id)])
            .unwrap()
            .into_iter()
            .map(|(_, c)| c.url)
            .collect();
        urls.sort();
        urls
    }

    fn offer(choices: &mut Choices, id: &str, url: &str, ts: &str) -> Offer {
        let mut out = choices.offer(vec![(key(id), capture(url, ts))]).unwrap();
        out.pop().unwrap().2
    }

    #[test]
    fn the_earliest_capture_is_held_and_the_choice_outlives_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite");
        {
            let mut c = Choices::open(Some(&path), "wanted").unwrap();
            let late = "https://www.bbc.com/news/uk-1";
            let early = "https://www.bbc.co.uk/news/uk-1";
            assert!(matches!(
                offer(&mut c, "1", late, "20200102000000"),
                Offer::Held
            ));
            assert!(matches!(
                offer(&mut c, "1", early, "20200101000000"),
                Offer::Held
            ));
            // Same time: the smaller URL stands.
            assert!(matches!(
                offer(
                    &mut c,
                    "1",
                    "https://www.bbc.co.uk/news/uk-1?x",
                    "20200101000000"
                ),
                Offer::Dropped
            ));
            let held = c.held(None, 10).unwrap();
            assert_eq!(held.len(), 1);
            assert_eq!(held[0].1.url, early);
            // Left out: the capture held first, and the one after the earliest.
            assert_eq!(
                decided_dropped(&mut c, "1"),
                ["https://www.bbc.co.uk/news/uk-1?x", late]
            );
            assert!(c.held(None, 10).unwrap().is_empty());
            // A later capture in the same run: a duplicate of this run's choice.
            assert!(matches!(
                offer(&mut c, "1", late, "20200103000000"),
                Offer::Duplicate {
                    earlier_run: false,
                    ..
                }
            ));
        }
        // A later run: the chosen capture is decided again, any other is a duplicate,
        // even an earlier one.
        let mut c = Choices::open(Some(&path), "wanted").unwrap();
        assert!(matches!(
            offer(
                &mut c,
                "1",
                "https://www.bbc.co.uk/news/uk-1",
                "20200101000000"
            ),
            Offer::Chosen
        ));
        match offer(
            &mut c,
            "1",
            "https://www.bbc.co.uk/news/uk-1",
            "20191231000000",
        ) {
            Offer::Duplicate {
                kept,
                earlier_run: true,
            } => assert_eq!(kept.timestamp, "20200101000000"),
            other => panic!("{other:?}"),
        }
        // Another stage's choices are its own.
        let mut other = Choices::open(Some(&path), "other").unwrap();
        assert!(matches!(
            offer(
                &mut other,
                "1",
                "https://www.bbc.co.uk/news/uk-1",
                "20191231000000"
            ),
            Offer::Held
        ));
    }

    #[test]
    fn what_is_left_out_is_the_same_in_any_order_and_a_rerun_starts_afresh() {
        let captures = [
            ("https://www.bbc.com/news/uk-1", "20200103000000"),
            ("https://www.bbc.co.uk/news/mobile/uk-1", "20200102000000"),
            ("https://www.bbc.co.uk/news/uk-1", "20200101000000"),
            ("https://www.bbc.co.uk/news/uk-1?x", "20200104000000"),
        ];
        let left_out = |order: &[usize]| {
            let mut c = Choices::open(None, "wanted").unwrap();
            for &i in order {
                offer(&mut c, "1", captures[i].0, captures[i].1);
            }
            let held = c.held(None, 10).unwrap();
            (held[0].1.url.clone(), decided_dropped(&mut c, "1"))
        };
        let expected = left_out(&[0, 1, 2, 3]);
        assert_eq!(expected.0, captures[2].0);
        assert_eq!(expected.1.len(), 3);
        for order in [[3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]] {
            assert_eq!(left_out(&order), expected, "{order:?}");
        }
        // A killed run's left-out captures are not handed back twice by its rerun.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite");
        {
            let mut c = Choices::open(Some(&path), "wanted").unwrap();
            offer(&mut c, "1", captures[2].0, captures[2].1);
            offer(&mut c, "1", captures[0].0, captures[0].1);
        }
        let mut c = Choices::open(Some(&path), "wanted").unwrap();
        offer(&mut c, "1", captures[0].0, captures[0].1);
        let dropped = c.decided(&[key("1")]).unwrap();
        assert_eq!(dropped.len(), 1, "{dropped:?}");
    }

    #[test]
    fn held_articles_are_released_up_to_a_time() {
        let mut c = Choices::open(None, "wanted").unwrap();
        for (id, ts) in [
            ("1", "20200101000000"),
            ("2", "20200301000000"),
            ("3", "20200201000000"),
        ] {
            offer(
                &mut c,
                id,
                &format!("https://www.bbc.co.uk/news/uk-{id}"),
                ts,
            );
        }
        let ids =
            |v: Vec<(ArticleKey, Capture)>| v.into_iter().map(|(k, _)| k.id).collect::<Vec<_>>();
        assert_eq!(ids(c.held(Some("20200201000000"), 10).unwrap()), ["1"]);
        assert_eq!(ids(c.held(None, 2).unwrap()), ["1", "2"]);
    }

    #[test]
    fn a_file_that_is_not_a_database_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite");
        std::fs::write(
            &path,
            b"not a database at all, but long enough to be read as one",
        )
        .unwrap();
        let err = Choices::open(Some(&path), "wanted")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("state.sqlite"), "{err}");
    }
}
