//! Exit codes: 0 ok, 1 runtime failure, 2 bad usage or pipeline file, 23 completed
//! with problems (items missing: run again to retry them; or a warning: a stage
//! rejected everything, a source gave nothing, a training set was empty), 24 completed, but a refresh's
//! figures are far outside the runs before it (look at run.json's `health`), 75 a
//! service asked us to wait (run again later), 130 interrupted.
//!
//! A command that fails returns a [`Failure`], whose kind is chosen where the
//! typed error is known (a [`UsageError`], the Archive asking us to wait), so the
//! code never has to be guessed from an error's words or its type at the end.

use std::process::ExitCode;

use tempora_engine::{StageError, UsageError};
use tempora_wayback::WaybackError;

/// A stage or command failed at run time.
pub fn failure() -> ExitCode {
    ExitCode::from(1)
}
/// Bad usage or a bad pipeline file.
pub fn usage() -> ExitCode {
    ExitCode::from(2)
}
/// The run completed and published its outputs, but some items could not be
/// had (pages the Archive did not serve after every attempt): the same
/// command again retries them. Also a run with warnings (`run.json`'s
/// `warnings`: a stage that rejected every record, a source that gave none):
/// never a silent empty success. As rsync exits 23 on a partial transfer.
pub fn partial() -> ExitCode {
    ExitCode::from(23)
}
/// The run completed and published its outputs, but its health check found
/// figures far outside the runs before it (a layout no profile reads, a
/// section the Archive stopped capturing): someone should look. Distinct from
/// 23 (which a rerun may mend); as rsync's 24 says source files vanished.
pub fn health_warning() -> ExitCode {
    ExitCode::from(24)
}
/// An external service asks us to wait (IP block, rate limit): run again later
/// (`EX_TEMPFAIL`, which cron wrappers and systemd can act on).
pub fn try_later() -> ExitCode {
    ExitCode::from(75)
}

/// Stopped by Ctrl-C or SIGTERM (nothing published; run.json says `interrupted`).
pub fn interrupted() -> ExitCode {
    ExitCode::from(130)
}

/// Why a command stopped without finishing, which decides its exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad usage or a bad file given on the command line: exit 2.
    Usage(anyhow::Error),
    /// A service asks us to wait: exit 75.
    TryLater(anyhow::Error),
    /// Anything else that failed at run time: exit 1.
    Failed(anyhow::Error),
}

impl Failure {
    /// The error, with its sources.
    pub fn error(&self) -> &(dyn std::error::Error + 'static) {
        match self {
            Self::Usage(e) | Self::TryLater(e) | Self::Failed(e) => e.as_ref(),
        }
    }

    /// The exit code it calls for.
    pub fn code(&self) -> ExitCode {
        match self {
            Self::Usage(_) => usage(),
            Self::TryLater(_) => try_later(),
            Self::Failed(_) => failure(),
        }
    }
}

/// The error and its sources in one line, as the command line prints it.
impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&tempora_engine::error::chain(self.error()))
    }
}

/// A command's result: an exit code (or nothing, for success), or why it failed.
pub type Outcome<T = ()> = Result<T, Failure>;

impl From<UsageError> for Failure {
    fn from(e: UsageError) -> Self {
        Self::Usage(e.into())
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Self::Failed(e)
    }
}

impl From<WaybackError> for Failure {
    fn from(e: WaybackError) -> Self {
        if e.asks_to_wait() {
            Self::TryLater(e.into())
        } else {
            Self::Failed(e.into())
        }
    }
}

impl From<StageError> for Failure {
    fn from(e: StageError) -> Self {
        match e {
            StageError::Temporary { .. } => Self::TryLater(e.into()),
            _ => Self::Failed(e.into()),
        }
    }
}

/// Errors that are run-time failures whatever their kind (exit 1): a file that
/// cannot be read or written, a dump or a training file that is not what it says.
macro_rules! run_time_failures {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Failure {
            fn from(e: $error) -> Self {
                Self::Failed(e.into())
            }
        }
    )*};
}

run_time_failures!(
    std::io::Error,
    serde_json::Error,
    tempora_extract::eval::EvalError,
    tempora_extract::ProfileError,
    tempora_filter::FilterError,
    tempora_novelty::NoveltyError,
    tempora_wikidata::WikidataError,
);
