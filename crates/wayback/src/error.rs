//! Errors of the crawler, each naming what it was doing (URL, file, query).

use std::path::PathBuf;

use tempora_engine::StageError;

/// Something the crawler could not do.
#[derive(Debug, thiserror::Error)]
pub enum WaybackError {
    /// The Archive refused or reset connections again and again: an IP block.
    #[error(
        "{host} refused or reset {blocks} connections in a row: the Internet Archive has probably blocked this IP \
         (blocks last an hour and double after that). Stop for at least an hour; the state is saved and the next run \
         continues where this one stopped"
    )]
    Blocked {
        /// Host that blocked us.
        host: String,
        /// Consecutive blocks seen.
        blocks: u32,
    },
    /// The Archive kept answering 429 after every pause.
    #[error("{host} kept answering 429 Too Many Requests after {pauses} pauses; lower `archive.cdx_rate` or `archive.playback_rate` and run again later")]
    RateLimited {
        /// Host.
        host: String,
        /// Pauses taken.
        pauses: u32,
    },
    /// A request failed after every retry.
    #[error("{url}: {reason} (after {attempts} attempts)")]
    Exhausted {
        /// URL requested.
        url: String,
        /// Last failure.
        reason: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The CDX server rejected the query (400): the query itself is wrong.
    #[error("CDX query {url} rejected with HTTP {status}: {message}")]
    BadQuery {
        /// Query URL.
        url: String,
        /// Status.
        status: u16,
        /// First line of the answer.
        message: String,
    },
    /// A CDX answer that is not the CDX format.
    #[error("CDX answer of {url} is not CDX JSON: {message}")]
    BadCdx {
        /// Query URL.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// The state database failed.
    #[error("state {path}: {message}")]
    State {
        /// State file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// Another run holds the state file.
    #[error(
        "state {path} is in use by another run (lock {lock} is held): two runs cannot share one state file; \
         wait for the other run or give this one its own `state`"
    )]
    Locked {
        /// State file.
        path: PathBuf,
        /// Lock file.
        lock: PathBuf,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A WARC file is malformed.
    #[error("{path}: record at byte {offset}: {message}")]
    Warc {
        /// File.
        path: PathBuf,
        /// Offset of the record (or of its gzip member).
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// A setting is unusable.
    #[error("{0}")]
    Config(String),
    /// A bug of ours (a task that panicked): never the user's mistake.
    #[error("internal error: {0}")]
    Internal(String),
    /// The run is stopping.
    #[error("the run is stopping")]
    Stopped,
}

impl WaybackError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}

/// The Archive's words for what stopped a request: the same failures as any
/// host's, with what an operator of a crawl should do about them.
impl From<tempora_http::HttpError> for WaybackError {
    fn from(e: tempora_http::HttpError) -> Self {
        use tempora_http::HttpError;
        match e {
            HttpError::Blocked { host, blocks } => Self::Blocked { host, blocks },
            HttpError::RateLimited { host, pauses } => Self::RateLimited { host, pauses },
            HttpError::Exhausted {
                url,
                reason,
                attempts,
            } => Self::Exhausted {
                url,
                reason,
                attempts,
            },
            HttpError::Config(message) => Self::Config(message),
        }
    }
}

impl WaybackError {
    /// The Archive asks us to wait (it blocked us or kept rate-limiting): the run
    /// should stop and be run again later, not be counted as a failure of ours.
    pub fn asks_to_wait(&self) -> bool {
        matches!(self, Self::Blocked { .. } | Self::RateLimited { .. })
    }
}

impl From<WaybackError> for StageError {
    fn from(e: WaybackError) -> Self {
        let kept = match e {
            WaybackError::Stopped => return StageError::Stopped,
            WaybackError::Internal(m) => return StageError::internal(m),
            WaybackError::Config(_)
            | WaybackError::BadQuery { .. }
            | WaybackError::Locked { .. } => StageError::input(e.to_string()),
            ref e if e.asks_to_wait() => StageError::temporary(e.to_string()),
            ref other => StageError::external(other.to_string()),
        };
        kept.caused_by(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_rate_limits_are_temporary_failures() {
        let blocked = StageError::from(WaybackError::Blocked {
            host: "web.archive.org".into(),
            blocks: 3,
        });
        assert!(
            matches!(blocked, StageError::Temporary { .. }),
            "{blocked:?}"
        );
        let limited = StageError::from(WaybackError::RateLimited {
            host: "web.archive.org".into(),
            pauses: 5,
        });
        assert!(
            matches!(limited, StageError::Temporary { .. }),
            "{limited:?}"
        );
        let config = StageError::from(WaybackError::Config("bad".into()));
        assert!(matches!(config, StageError::Input { .. }), "{config:?}");
        let bug = StageError::from(WaybackError::Internal("commit panicked".into()));
        assert!(matches!(bug, StageError::Internal { .. }), "{bug:?}");
    }
}
