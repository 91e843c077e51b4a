//! What the CDX server listed: every valid row of every page of a query, in the
//! order it came, saved in the same transaction as the page's resume key. This is
//! a fact about the Archive, not a decision: a later run reads a completed
//! listing back from here (no CDX request) and decides again, with its own
//! configuration, which captures to hand on.

use rusqlite::Connection;

use crate::cdx::CdxRow;

/// Appends `rows` to the cached listing of query `id`, after what it holds.
pub fn append(conn: &Connection, id: &str, rows: &[CdxRow]) -> rusqlite::Result<()> {
    let mut seq = i64::try_from(count(conn, id)?).unwrap_or(i64::MAX);
    let mut put = conn.prepare_cached(
        "INSERT INTO listings(query, seq, urlkey, timestamp, original, mime, status, digest, length)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for row in rows {
        seq += 1;
        put.execute((
            id,
            seq,
            &row.urlkey,
            &row.timestamp,
            &row.original,
            &row.mime,
            row.status,
            &row.digest,
            row.length.and_then(|l| i64::try_from(l).ok()),
        ))?;
    }
    Ok(())
}

/// The first and last capture time a read of a cached listing keeps (a chunk
/// read back from a longer cell, see [`crate::cells`]).
pub type Within = Option<(String, String)>;

/// How many rows of the cached listing of query `id` fall `within`.
pub fn count_within(conn: &Connection, id: &str, within: &Within) -> rusqlite::Result<u64> {
    let Some((first, last)) = within else {
        return count(conn, id);
    };
    let n: i64 = conn
        .prepare_cached(
            "SELECT COUNT(*) FROM listings WHERE query = ?1 AND timestamp BETWEEN ?2 AND ?3",
        )?
        .query_row((id, first, last), |r| r.get(0))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// How many rows the cached listing of query `id` holds.
pub fn count(conn: &Connection, id: &str) -> rusqlite::Result<u64> {
    let last: Option<i64> = conn
        .prepare_cached("SELECT MAX(seq) FROM listings WHERE query = ?1")?
        .query_row([id], |r| r.get(0))?;
    Ok(last.and_then(|n| u64::try_from(n).ok()).unwrap_or(0))
}

/// Forgets the cached listing of query `id` (a listing that starts over).
pub fn clear(conn: &Connection, id: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM listings WHERE query = ?1")?
        .execute([id])?;
    Ok(())
}

/// Up to `limit` rows of the cached listing of query `id` after row `after`
/// (0: from the start) that fall `within`, each with its place.
pub fn read(
    conn: &Connection,
    id: &str,
    after: i64,
    limit: usize,
    within: &Within,
) -> rusqlite::Result<Vec<(i64, CdxRow)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, urlkey, timestamp, original, mime, status, digest, length FROM listings
         WHERE query = ?1 AND seq > ?2 AND timestamp BETWEEN ?4 AND ?5 ORDER BY seq LIMIT ?3",
    )?;
    let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
    let (first, last) = within
        .as_ref()
        .map_or(("", "~"), |(f, l)| (f.as_str(), l.as_str()));
    let rows = stmt.query_map((id, after, limit, first, last), |r| {
        Ok((
            r.get(0)?,
            CdxRow {
                urlkey: r.get(1)?,
                timestamp: r.get(2)?,
                original: r.get(3)?,
                mime: r.get(4)?,
                status: r
                    .get::<_, Option<i64>>(5)?
                    .and_then(|s| u16::try_from(s).ok()),
                digest: r.get(6)?,
                length: r
                    .get::<_, Option<i64>>(7)?
                    .and_then(|l| u64::try_from(l).ok()),
            },
        ))
    })?;
    rows.collect()
}

/// Rows of the run-local choice (`temp.run_listed`): what this run's listing has
/// handed on for `source`, so that `keep` is decided on this run's listing alone.
pub mod run {
    use rusqlite::Connection;

    /// Starts this run's choice of `source` afresh.
    pub fn start(conn: &Connection, source: &str) -> rusqlite::Result<()> {
        conn.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS run_listed(
               source TEXT NOT NULL, url TEXT NOT NULL, urlkey TEXT NOT NULL, timestamp TEXT NOT NULL,
               digest TEXT NOT NULL);
             CREATE INDEX IF NOT EXISTS temp.run_listed_key ON run_listed(source, urlkey, digest);
             CREATE UNIQUE INDEX IF NOT EXISTS temp.run_listed_capture ON run_listed(source, url, timestamp);",
        )?;
        conn.prepare_cached("DELETE FROM temp.run_listed WHERE source = ?1")?
            .execute([source])?;
        Ok(())
    }

    /// The latest capture time of `urlkey` this run has handed on, if any.
    pub fn latest_of_key(
        conn: &Connection,
        source: &str,
        urlkey: &str,
    ) -> rusqlite::Result<Option<String>> {
        conn.prepare_cached(
            "SELECT MAX(timestamp) FROM temp.run_listed WHERE source = ?1 AND urlkey = ?2",
        )?
        .query_row((source, urlkey), |r| r.get(0))
    }

    /// Whether this run has handed on a capture of `urlkey` with this payload.
    pub fn seen_digest(
        conn: &Connection,
        source: &str,
        urlkey: &str,
        digest: &str,
    ) -> rusqlite::Result<bool> {
        conn.prepare_cached(
            "SELECT 1 FROM temp.run_listed WHERE source = ?1 AND urlkey = ?2 AND digest = ?3 LIMIT 1",
        )?
        .exists((source, urlkey, digest))
    }

    /// Records a capture (`row`) this run hands on; `false` when it handed it on already.
    pub fn insert(
        conn: &Connection,
        source: &str,
        row: &crate::cdx::CdxRow,
    ) -> rusqlite::Result<bool> {
        let added = conn
            .prepare_cached(
                "INSERT OR IGNORE INTO temp.run_listed(source, url, urlkey, timestamp, digest)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute((
                source,
                &row.original,
                &row.urlkey,
                &row.timestamp,
                &row.digest,
            ))?;
        Ok(added > 0)
    }
}
