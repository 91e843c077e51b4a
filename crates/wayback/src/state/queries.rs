//! Per-query paging state: where the listing stopped (resume key), the
//! newest capture time seen (high-water mark), and the candidate a `keep =
//! "latest"` listing holds back across pages.

use rusqlite::{Connection, OptionalExtension};

use super::now;

/// What the state knows of a query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryRow {
    /// Key of the next page; `None` at the start of a listing.
    pub resume_key: Option<String>,
    /// A listing was started and not completed.
    pub in_progress: bool,
    /// The `from` that listing uses (incremental runs move it).
    pub effective_from: Option<String>,
    /// Newest capture seen by the listing in progress.
    pub run_high_water: Option<String>,
    /// Newest capture seen by the last completed listing.
    pub done_high_water: Option<String>,
    /// A held-back row (JSON), for `keep = "latest"`.
    pub held: Option<String>,
    /// Pages fetched by the listing in progress.
    pub pages: u64,
    /// When the last listing completed.
    pub completed_at: Option<String>,
    /// The state holds every row the query listed (a listing begun since the
    /// state kept them; an older state recorded only its progress).
    pub cached: bool,
}

/// The state of query `id`, if it was ever started.
pub fn load(conn: &Connection, id: &str) -> rusqlite::Result<Option<QueryRow>> {
    conn.query_row(
        "SELECT resume_key, in_progress, effective_from, run_high_water, done_high_water, held, pages, completed_at, cached
         FROM queries WHERE id = ?1",
        [id],
        |r| {
            Ok(QueryRow {
                resume_key: r.get(0)?,
                in_progress: r.get(1)?,
                effective_from: r.get(2)?,
                run_high_water: r.get(3)?,
                done_high_water: r.get(4)?,
                held: r.get(5)?,
                pages: r.get::<_, i64>(6)?.try_into().unwrap_or(0),
                completed_at: r.get(7)?,
                cached: r.get(8)?,
            })
        },
    )
    .optional()
}

/// Starts a new listing of query `id` from `effective_from`. `fresh`: the
/// listing starts over, its cached rows are forgotten and the cache will hold all
/// it lists; otherwise (an incremental night) its rows join those of earlier
/// listings.
pub fn begin(
    conn: &Connection,
    id: &str,
    source: &str,
    effective_from: Option<&str>,
    fresh: bool,
) -> rusqlite::Result<()> {
    if fresh {
        super::listings::clear(conn, id)?;
    }
    conn.execute(
        "INSERT INTO queries(id, source, in_progress, effective_from, cached) VALUES (?1, ?2, 1, ?3, 1)
         ON CONFLICT(id) DO UPDATE SET in_progress = 1, resume_key = NULL, effective_from = ?3,
           run_high_water = NULL, held = NULL, pages = 0, cached = (cached OR ?4)",
        (id, source, effective_from, fresh),
    )?;
    Ok(())
}

/// Records a page: the next resume key, the high-water mark, the held row.
pub fn save_page(
    conn: &Connection,
    id: &str,
    resume_key: Option<&str>,
    run_high_water: Option<&str>,
    held: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE queries SET resume_key = ?2, run_high_water = MAX(COALESCE(run_high_water, ''), COALESCE(?3, '')),
           held = ?4, pages = pages + 1 WHERE id = ?1",
        (id, resume_key, run_high_water, held),
    )?;
    Ok(())
}

/// Completes the listing: its high-water mark becomes the query's.
pub fn complete(conn: &Connection, id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE queries SET in_progress = 0, resume_key = NULL, held = NULL, completed_at = ?2,
           done_high_water = NULLIF(MAX(COALESCE(done_high_water, ''), COALESCE(run_high_water, '')), '')
         WHERE id = ?1",
        (id, now()),
    )?;
    Ok(())
}

/// The newest capture any completed listing of stage `source` found.
pub fn newest_done(conn: &Connection, source: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        "SELECT MAX(done_high_water) FROM queries WHERE source = ?1",
        [source],
        |r| r.get(0),
    )
}

#[cfg(test)]
mod tests {
    use super::super::State;
    use super::*;

    #[test]
    fn a_listing_pages_then_completes_with_its_high_water_mark() {
        let s = State::in_memory().unwrap();
        s.call_now(|c| {
            assert_eq!(load(c, "q")?, None);
            begin(c, "q", "captures", Some("2015"), true)?;
            save_page(c, "q", Some("k1"), Some("20150105000000"), None)?;
            save_page(c, "q", Some("k2"), Some("20150103000000"), Some("{}"))?;
            let row = load(c, "q")?.unwrap();
            assert!(row.in_progress);
            assert_eq!(row.resume_key.as_deref(), Some("k2"));
            assert_eq!(row.run_high_water.as_deref(), Some("20150105000000"));
            assert_eq!(row.pages, 2);
            complete(c, "q")?;
            let row = load(c, "q")?.unwrap();
            assert!(!row.in_progress && row.resume_key.is_none() && row.completed_at.is_some());
            assert_eq!(row.done_high_water.as_deref(), Some("20150105000000"));
            begin(c, "q", "captures", Some("20150105000001"), false)?;
            complete(c, "q")?;
            assert_eq!(
                load(c, "q")?.unwrap().done_high_water.as_deref(),
                Some("20150105000000")
            );
            Ok(())
        })
        .unwrap();
    }
}
