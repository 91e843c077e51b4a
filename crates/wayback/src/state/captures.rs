//! Per-capture status: listed, fetched (with where its WARC record is), failed
//! (with reason, attempts and whether trying again can help).

use rusqlite::{Connection, OptionalExtension};
use tempora_records::Capture;

use super::now;

/// Captures failed this many times are not tried again.
pub const MAX_ATTEMPTS: i64 = 10;

/// What the state knows of a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureStatus {
    /// Listed, not fetched yet.
    Listed,
    /// Fetched; its page is durable.
    Fetched,
    /// Failed; `permanent` when trying again cannot help.
    Failed {
        /// Why.
        reason: String,
        /// No point in trying again.
        permanent: bool,
        /// Attempts so far (runs that tried).
        attempts: i64,
    },
}

/// Where the state says a fetched capture's page is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The WARC file.
    pub warc_path: String,
    /// The offset of its record there.
    pub offset: u64,
}

/// A fetched capture whose page may not have reached durable output downstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undelivered {
    /// The capture.
    pub capture: Capture,
    /// WARC file holding its page.
    pub warc_path: String,
    /// Offset of its record there.
    pub warc_offset: u64,
}

fn capture_from(row: &rusqlite::Row<'_>) -> rusqlite::Result<Capture> {
    Ok(Capture {
        url: row.get("url")?,
        timestamp: row.get("timestamp")?,
        status: row
            .get::<_, Option<i64>>("status")?
            .and_then(|s| u16::try_from(s).ok()),
        mime: row.get("mime")?,
        digest: row.get("digest")?,
        length: row
            .get::<_, Option<i64>>("length")?
            .and_then(|l| u64::try_from(l).ok()),
        source: row.get("source")?,
    })
}

/// Records a listed capture; `false` when it was already known.
pub fn insert_listed(conn: &Connection, capture: &Capture, urlkey: &str) -> rusqlite::Result<bool> {
    let n = conn.prepare_cached(
        "INSERT OR IGNORE INTO captures(url, timestamp, urlkey, digest, status, mime, length, source, state, listed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'listed', ?9)",
    )?
    .execute((
        &capture.url,
        &capture.timestamp,
        urlkey,
        &capture.digest,
        capture.status,
        &capture.mime,
        capture.length.and_then(|l| i64::try_from(l).ok()),
        &capture.source,
        now(),
    ))?;
    Ok(n > 0)
}

/// Whether a capture of `urlkey` with this payload digest is known.
pub fn seen_digest(conn: &Connection, urlkey: &str, digest: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM captures WHERE urlkey = ?1 AND digest = ?2 LIMIT 1")?
        .exists((urlkey, digest))
}

/// The latest known capture time of `urlkey`, if any capture of it is known.
pub fn latest_of_key(conn: &Connection, urlkey: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT MAX(timestamp) FROM captures WHERE urlkey = ?1")?
        .query_row([urlkey], |r| r.get(0))
}

/// Captures of `source` still to fetch: listed, or failed in a way worth another try.
pub fn pending(conn: &Connection, source: &str) -> rusqlite::Result<Vec<Capture>> {
    let mut stmt = conn.prepare_cached(
        "SELECT * FROM captures WHERE source = ?1 AND ((state = 'listed' AND settled = 0)
           OR (state = 'failed' AND permanent = 0 AND attempts < ?2)) ORDER BY rowid",
    )?;
    let rows = stmt.query_map((source, MAX_ATTEMPTS), capture_from)?;
    rows.collect()
}

/// Every capture `source` listed and no stage fetched is settled: a run that
/// handed them all on completed, so what came after decided them (another capture
/// of the same article was chosen, the page is not wanted). A later run does not
/// hand them back.
pub fn settle(conn: &Connection, source: &str) -> rusqlite::Result<usize> {
    conn.execute(
        "UPDATE captures SET settled = 1 WHERE source = ?1 AND state = 'listed' AND settled = 0",
        [source],
    )
}

/// Claims a capture for fetching in `run`; false when this run has claimed it
/// already (it was handed over twice).
pub fn claim(conn: &Connection, url: &str, timestamp: &str, run: i64) -> rusqlite::Result<bool> {
    let n = conn
        .prepare_cached(
            "UPDATE captures SET fetch_run = ?3
             WHERE url = ?1 AND timestamp = ?2 AND (fetch_run IS NULL OR fetch_run != ?3)",
        )?
        .execute((url, timestamp, run))?;
    Ok(n > 0)
}

/// The status of a capture, if known.
pub fn status(
    conn: &Connection,
    url: &str,
    timestamp: &str,
) -> rusqlite::Result<Option<CaptureStatus>> {
    conn.prepare_cached(
        "SELECT state, reason, permanent, attempts FROM captures WHERE url = ?1 AND timestamp = ?2",
    )?
    .query_row((url, timestamp), |r| {
        let state: String = r.get(0)?;
        Ok(match state.as_str() {
            "fetched" => CaptureStatus::Fetched,
            "failed" => CaptureStatus::Failed {
                reason: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                permanent: r.get(2)?,
                attempts: r.get(3)?,
            },
            _ => CaptureStatus::Listed,
        })
    })
    .optional()
}

/// Where the page of a fetched capture is stored, when it is in a WARC file.
pub fn stored(conn: &Connection, url: &str, timestamp: &str) -> rusqlite::Result<Option<Stored>> {
    let place: Option<(Option<String>, Option<i64>)> = conn
        .prepare_cached(
            "SELECT warc_path, warc_offset FROM captures WHERE url = ?1 AND timestamp = ?2 AND state = 'fetched'",
        )?
        .query_row((url, timestamp), |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(match place {
        Some((Some(warc_path), Some(offset))) => Some(Stored {
            warc_path,
            offset: u64::try_from(offset).unwrap_or(0),
        }),
        _ => None,
    })
}

/// Marks a capture fetched in `run`, its page at `offset` of `warc_path` (if written).
pub fn mark_fetched(
    conn: &Connection,
    capture: &Capture,
    run: i64,
    warc: Option<(&str, u64)>,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE captures SET state = 'fetched', reason = NULL, attempts = attempts + 1, fetched_at = ?3,
           fetch_run = ?4, delivered = 0, warc_path = ?5, warc_offset = ?6 WHERE url = ?1 AND timestamp = ?2",
    )?
    .execute((
        &capture.url,
        &capture.timestamp,
        now(),
        run,
        warc.map(|w| w.0),
        warc.and_then(|w| i64::try_from(w.1).ok()),
    ))?;
    Ok(())
}

/// Marks a capture failed with `reason`.
pub fn mark_failed(
    conn: &Connection,
    capture: &Capture,
    reason: &str,
    permanent: bool,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE captures SET state = 'failed', reason = ?3, permanent = ?4, attempts = attempts + 1
         WHERE url = ?1 AND timestamp = ?2",
    )?
    .execute((&capture.url, &capture.timestamp, reason, permanent))?;
    Ok(())
}

/// Fetched captures whose run did not deliver them (it was killed before the end).
pub fn undelivered(conn: &Connection) -> rusqlite::Result<Vec<Undelivered>> {
    let mut stmt = conn.prepare_cached(
        "SELECT * FROM captures WHERE state = 'fetched' AND delivered = 0 AND warc_path IS NOT NULL ORDER BY rowid",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Undelivered {
            capture: capture_from(r)?,
            warc_path: r.get("warc_path")?,
            warc_offset: r.get::<_, i64>("warc_offset")?.try_into().unwrap_or(0),
        })
    })?;
    rows.collect()
}

/// Moves a fetched capture into `run` (its page is delivered again by this run).
pub fn adopt(conn: &Connection, capture: &Capture, run: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE captures SET fetch_run = ?3 WHERE url = ?1 AND timestamp = ?2")?
        .execute((&capture.url, &capture.timestamp, run))?;
    Ok(())
}

/// Sends a fetched capture back to `listed` (its WARC record is gone).
pub fn relist(conn: &Connection, capture: &Capture) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE captures SET state = 'listed', warc_path = NULL, warc_offset = NULL WHERE url = ?1 AND timestamp = ?2",
    )?
    .execute((&capture.url, &capture.timestamp))?;
    Ok(())
}

/// Marks every capture fetched in `run` as delivered.
pub fn mark_delivered(conn: &Connection, run: i64) -> rusqlite::Result<usize> {
    conn.execute(
        "UPDATE captures SET delivered = 1 WHERE fetch_run = ?1 AND state = 'fetched'",
        [run],
    )
}

/// The committed length of each WARC file we wrote.
pub fn warc_files(conn: &Connection) -> rusqlite::Result<Vec<(String, u64)>> {
    let mut stmt = conn.prepare_cached("SELECT path, committed FROM warc_files ORDER BY path")?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get(0)?, r.get::<_, i64>(1)?.try_into().unwrap_or(0)))
    })?;
    rows.collect()
}

/// Records how much of a WARC file is committed.
pub fn set_warc_committed(conn: &Connection, path: &str, len: u64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO warc_files(path, committed) VALUES (?1, ?2)
         ON CONFLICT(path) DO UPDATE SET committed = excluded.committed",
    )?
    .execute((path, i64::try_from(len).unwrap_or(i64::MAX)))?;
    Ok(())
}

/// The captures of the cached listing of query `id` between `first` and `last`
/// whose page is held: fetched, in a WARC file, within its committed length
/// (fsynced). A run that lists them again reads their pages back, with no request.
pub fn held_pages(
    conn: &Connection,
    id: &str,
    (first, last): (&str, &str),
) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.url, c.timestamp FROM listings l
         JOIN captures c ON c.url = l.original AND c.timestamp = l.timestamp
         JOIN warc_files w ON w.path = c.warc_path
         WHERE l.query = ?1 AND l.timestamp BETWEEN ?2 AND ?3
           AND c.state = 'fetched' AND c.warc_offset < w.committed",
    )?;
    let rows = stmt.query_map((id, first, last), |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// Counts of captures by state: (listed, fetched, failed).
pub fn counts(conn: &Connection) -> rusqlite::Result<(u64, u64, u64)> {
    conn.query_row(
        "SELECT COUNT(*) FILTER (WHERE state = 'listed'), COUNT(*) FILTER (WHERE state = 'fetched'),
                COUNT(*) FILTER (WHERE state = 'failed') FROM captures",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

#[cfg(test)]
mod tests {
    use super::super::State;
    use super::*;

    fn capture(ts: &str) -> Capture {
        Capture {
            url: "http://www.bbc.co.uk/news/uk-1".into(),
            timestamp: ts.parse().unwrap(),
            status: Some(200),
            mime: "text/html".into(),
            digest: format!("D{ts}"),
            length: Some(10),
            source: "captures".into(),
        }
    }

    #[test]
    fn lifecycle_listed_fetched_failed_delivered() {
        let s = State::in_memory().unwrap();
        s.call_now(|c| {
            let (a, b) = (capture("20150101000000"), capture("20150102000000"));
            assert!(insert_listed(c, &a, "uk,co,bbc)/news/uk-1")?);
            assert!(!insert_listed(c, &a, "uk,co,bbc)/news/uk-1")?);
            insert_listed(c, &b, "uk,co,bbc)/news/uk-1")?;
            assert!(seen_digest(c, "uk,co,bbc)/news/uk-1", "D20150101000000")?);
            assert_eq!(
                latest_of_key(c, "uk,co,bbc)/news/uk-1")?.as_deref(),
                Some("20150102000000")
            );
            assert_eq!(latest_of_key(c, "nothing")?, None);
            assert_eq!(pending(c, "captures")?.len(), 2);
            mark_fetched(c, &a, 1, Some(("a.warc.gz", 0)))?;
            mark_failed(c, &b, "HTTP 404: not archived", true)?;
            assert_eq!(
                status(c, &a.url, &a.timestamp)?,
                Some(CaptureStatus::Fetched)
            );
            assert!(matches!(
                status(c, &b.url, &b.timestamp)?,
                Some(CaptureStatus::Failed {
                    permanent: true,
                    attempts: 1,
                    ..
                })
            ));
            assert!(pending(c, "captures")?.is_empty());
            assert_eq!(undelivered(c)?.len(), 1);
            assert_eq!(mark_delivered(c, 1)?, 1);
            assert!(undelivered(c)?.is_empty());
            assert_eq!(counts(c)?, (0, 1, 1));
            set_warc_committed(c, "a.warc.gz", 10)?;
            set_warc_committed(c, "a.warc.gz", 20)?;
            assert_eq!(warc_files(c)?, vec![("a.warc.gz".to_string(), 20)]);
            Ok(())
        })
        .unwrap();
    }
}
