//! Crawl state in SQLite: a cache of facts about the Archive. Per query its
//! resume key, high-water mark and every row it listed (`listings`); per capture
//! its status (listed, fetched with where its WARC record is, failed with reason
//! and attempts); the runs, and how much of each WARC file is committed.
//!
//! What depends on a pipeline's configuration (which capture stands for an
//! article, which pages a set needs) is decided again by every run from these
//! facts; only an incremental pipeline also reads what its earlier nights handed
//! on (`settled`, `delivered`), its output folder holding their records.
//!
//! One state file belongs to one run at a time: opening it takes an exclusive
//! lock on `<state>.lock` (an OS file lock, so a killed run never leaves it
//! held). Stages of the same run that name the same file share one connection.
//! Writes are transactions with `synchronous = FULL`: once a call returns, what
//! it wrote survives a `SIGKILL` or a power cut.

pub mod captures;
pub mod listings;
pub mod queries;
pub mod sqlite;

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use rusqlite::Connection;

pub use captures::{CaptureStatus, Stored, Undelivered};
pub use queries::QueryRow;

use crate::error::WaybackError;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS queries(
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  resume_key TEXT,
  in_progress INTEGER NOT NULL DEFAULT 0,
  effective_from TEXT,
  run_high_water TEXT,
  done_high_water TEXT,
  held TEXT,
  pages INTEGER NOT NULL DEFAULT 0,
  completed_at TEXT,
  cached INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS listings(
  query TEXT NOT NULL,
  seq INTEGER NOT NULL,
  urlkey TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  original TEXT NOT NULL,
  mime TEXT NOT NULL,
  status INTEGER,
  digest TEXT NOT NULL,
  length INTEGER,
  PRIMARY KEY (query, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS captures(
  url TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  urlkey TEXT NOT NULL,
  digest TEXT NOT NULL,
  status INTEGER,
  mime TEXT NOT NULL,
  length INTEGER,
  source TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('listed', 'fetched', 'failed')),
  reason TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  permanent INTEGER NOT NULL DEFAULT 0,
  listed_at TEXT NOT NULL,
  fetched_at TEXT,
  fetch_run INTEGER,
  delivered INTEGER NOT NULL DEFAULT 0,
  settled INTEGER NOT NULL DEFAULT 0,
  warc_path TEXT,
  warc_offset INTEGER,
  PRIMARY KEY (url, timestamp)
);
CREATE INDEX IF NOT EXISTS captures_by_key ON captures(urlkey, digest);
CREATE INDEX IF NOT EXISTS captures_by_state ON captures(state, delivered);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  stage TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE TABLE IF NOT EXISTS warc_files(
  path TEXT PRIMARY KEY,
  committed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS articles(
  url TEXT PRIMARY KEY,
  published TEXT NOT NULL,
  title TEXT,
  feed TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT
);
CREATE TABLE IF NOT EXISTS feed_items(
  url TEXT NOT NULL,
  description TEXT NOT NULL,
  title TEXT,
  published TEXT NOT NULL,
  feed_timestamp TEXT NOT NULL,
  PRIMARY KEY (url, description)
);
CREATE TABLE IF NOT EXISTS feed_captures(
  url TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY (url, timestamp)
);
";

struct Inner {
    conn: Mutex<Connection>,
    path: PathBuf,
    _lock: Option<File>,
}

/// A handle on a state database; clones share the connection.
#[derive(Clone)]
pub struct State {
    inner: Arc<Inner>,
}

fn registry() -> &'static Mutex<HashMap<PathBuf, Weak<Inner>>> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Weak<Inner>>>> = OnceLock::new();
    OPEN.get_or_init(Mutex::default)
}

impl State {
    /// Opens (creating) the state file at `path`, or joins this run's open handle on it.
    ///
    /// # Errors
    /// [`WaybackError::Locked`] when another run holds it; database or I/O errors.
    pub fn open(path: &Path) -> Result<Self, WaybackError> {
        let io = |e| WaybackError::io(path, e);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let key = dir
            .canonicalize()
            .map_err(io)?
            .join(path.file_name().unwrap_or_default());
        let mut open = registry().lock().unwrap_or_else(|p| p.into_inner());
        if let Some(inner) = open.get(&key).and_then(Weak::upgrade) {
            return Ok(Self { inner });
        }
        let lock_path = PathBuf::from(format!("{}.lock", key.display()));
        let lock = File::create(&lock_path).map_err(|e| WaybackError::io(&lock_path, e))?;
        if lock.try_lock().is_err() {
            return Err(WaybackError::Locked {
                path: path.to_path_buf(),
                lock: lock_path,
            });
        }
        let conn = Connection::open(&key).map_err(|e| db_error(path, &e))?;
        let state = Self::init(conn, key.clone(), Some(lock))?;
        open.insert(key, Arc::downgrade(&state.inner));
        Ok(state)
    }

    /// A private in-memory state (a run without `state`: dedupe within the run only).
    ///
    /// # Errors
    /// When SQLite cannot start.
    pub fn in_memory() -> Result<Self, WaybackError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|e| db_error(&path, &e))?;
        Self::init(conn, path, None)
    }

    fn init(mut conn: Connection, path: PathBuf, lock: Option<File>) -> Result<Self, WaybackError> {
        // Shared with prefetch's connection to the same file.
        crate::state::sqlite::prepare_shared(&mut conn, crate::state::sqlite::Sync::Full)
            .and_then(|()| conn.execute_batch(SCHEMA))
            .and_then(|()| migrate(&conn))
            .map_err(|e| db_error(&path, &e))?;
        Ok(Self {
            inner: Arc::new(Inner {
                conn: Mutex::new(conn),
                path,
                _lock: lock,
            }),
        })
    }

    /// The state file (`:memory:` for a private one).
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `work` on the connection now (short work only: it blocks the thread).
    ///
    /// # Errors
    /// The database error, naming the state file.
    pub fn call_now<R>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<R>,
    ) -> Result<R, WaybackError> {
        let mut conn = self.inner.conn.lock().unwrap_or_else(|p| p.into_inner());
        work(&mut conn).map_err(|e| db_error(&self.inner.path, &e))
    }

    /// Runs `work` on the connection on a blocking thread (commits fsync).
    ///
    /// # Errors
    /// The database error, naming the state file.
    pub async fn call<R: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<R> + Send + 'static,
    ) -> Result<R, WaybackError> {
        let state = self.clone();
        tokio::task::spawn_blocking(move || state.call_now(work))
            .await
            .map_err(|e| {
                let path = self.inner.path.display();
                WaybackError::Internal(format!("work on the state {path} panicked: {e}"))
            })?
    }
}

/// Brings a state file written by an earlier version up to this schema.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let has = |table: &str, column: &str| -> rusqlite::Result<bool> {
        conn.query_row(
            "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2",
            (table, column),
            |r| r.get::<_, i64>(0).map(|n| n > 0),
        )
    };
    if !has("captures", "settled")? {
        conn.execute_batch("ALTER TABLE captures ADD COLUMN settled INTEGER NOT NULL DEFAULT 0")?;
    }
    // Listings begun before the state kept their rows are listed again.
    if !has("queries", "cached")? {
        conn.execute_batch("ALTER TABLE queries ADD COLUMN cached INTEGER NOT NULL DEFAULT 0")?;
    }
    Ok(())
}

fn db_error(path: &Path, e: &rusqlite::Error) -> WaybackError {
    WaybackError::State {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Now, as stored in the state (UTC, RFC 3339).
pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Starts a run of `stage`; returns its id.
pub fn start_run(conn: &Connection, stage: &str) -> rusqlite::Result<i64> {
    conn.execute(
        "INSERT INTO runs(stage, started_at) VALUES (?1, ?2)",
        (stage, now()),
    )?;
    Ok(conn.last_insert_rowid())
}

/// Marks a run finished.
pub fn finish_run(conn: &Connection, run: i64) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE runs SET finished_at = ?2 WHERE id = ?1",
        (run, now()),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_open_in_the_same_run_shares_and_another_process_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s/crawl.sqlite");
        let a = State::open(&path).unwrap();
        let b = State::open(&path).unwrap();
        assert!(Arc::ptr_eq(&a.inner, &b.inner));
        // Another run (another open file description) cannot take the lock.
        let lock = File::open(format!("{}.lock", a.path().display())).unwrap();
        assert!(lock.try_lock().is_err());
        drop((a, b));
        assert!(lock.try_lock().is_ok());
        lock.unlock().unwrap();
        let err = {
            let _held = lock.try_lock();
            State::open(&path).err().unwrap()
        };
        assert!(err.to_string().contains("in use by another run"), "{err}");
    }

    #[test]
    fn runs_are_numbered() {
        let s = State::in_memory().unwrap();
        let (a, b) = s
            .call_now(|c| Ok((start_run(c, "x")?, start_run(c, "x")?)))
            .unwrap();
        assert!(b > a);
        s.call_now(|c| finish_run(c, a)).unwrap();
    }
}
