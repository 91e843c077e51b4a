//! A SQLite file that several connections of one run share (the crawl's state:
//! the Archive stages' connections and `prefetch`'s choices), opened so that none
//! of them fails because another is busy.

use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};

/// How long a connection waits for another's lock before it gives up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How a connection's commits reach the disk (`PRAGMA synchronous`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sync {
    /// A commit survives a power cut.
    Full,
    /// In WAL mode a commit survives a killed process, not a power cut.
    Normal,
}

/// Readies a connection to a shared file: it waits up to [`BUSY_TIMEOUT`] for
/// other connections' locks, its writers take the lock when they begin (so a
/// writer waits its turn instead of failing on a stale snapshot), and the file is
/// in WAL mode (readers beside one writer).
///
/// Turning a new file to WAL needs the whole file to itself, and SQLite answers
/// that request "database is locked" at once, without waiting, while another
/// connection has the file open: two stages opening a new state file together
/// could fail the run. The mode is a property of the file, so this reads it first
/// and converts only a file not yet converted, retrying until another connection
/// has done it or the wait runs out. A private database (in memory, or SQLite's
/// temporary file) keeps the mode it can have.
///
/// # Errors
/// SQLite's error; "database is locked" once [`BUSY_TIMEOUT`] has passed.
pub fn prepare_shared(conn: &mut Connection, sync: Sync) -> rusqlite::Result<()> {
    conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let private = conn.path().is_none_or(str::is_empty);
    let deadline = Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(2);
    loop {
        match wal(conn) {
            Ok(true) => break,
            Ok(false) if private => break,
            Ok(false) => {}
            Err(e) if is_busy(&e) => {}
            Err(e) => return Err(e),
        }
        if Instant::now() >= deadline {
            return Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                Some(
                    "database is locked: another connection holds it while it turns to WAL mode"
                        .into(),
                ),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
    conn.pragma_update(
        None,
        "synchronous",
        match sync {
            Sync::Full => "FULL",
            Sync::Normal => "NORMAL",
        },
    )
}

/// Whether the file is in WAL mode, turning it so if it is not yet.
fn wal(conn: &Connection) -> rusqlite::Result<bool> {
    let is_wal = |mode: String| mode.eq_ignore_ascii_case("wal");
    if is_wal(conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?) {
        return Ok(true);
    }
    Ok(is_wal(conn.query_row(
        "PRAGMA journal_mode = WAL",
        [],
        |r| r.get(0),
    )?))
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_connections_opening_a_new_file_together_all_succeed_in_wal_mode() {
        for round in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(format!("state-{round}.sqlite"));
            let start = std::sync::Arc::new(std::sync::Barrier::new(12));
            let opens: Vec<_> = (0..12)
                .map(|_| {
                    let (path, start) = (path.clone(), start.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        let mut conn = Connection::open(&path)?;
                        prepare_shared(&mut conn, Sync::Full)?;
                        conn.execute_batch("CREATE TABLE IF NOT EXISTS t (x INTEGER)")?;
                        conn.query_row("PRAGMA journal_mode", [], |r| r.get::<_, String>(0))
                    })
                })
                .collect();
            for open in opens {
                let mode = open
                    .join()
                    .unwrap()
                    .unwrap_or_else(|e| panic!("round {round}: {e}"));
                assert_eq!(mode, "wal");
            }
        }
    }

    #[test]
    fn a_private_database_keeps_the_mode_it_can_have() {
        let mut memory = Connection::open_in_memory().unwrap();
        prepare_shared(&mut memory, Sync::Normal).unwrap();
        let mode: String = memory
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "memory");
        let mut temporary = Connection::open("").unwrap();
        prepare_shared(&mut temporary, Sync::Normal).unwrap();
        let sync: i64 = temporary
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 1, "NORMAL");
    }
}
