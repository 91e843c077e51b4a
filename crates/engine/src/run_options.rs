//! How to run a pipeline: the progress display, the stop signals, and what
//! `run.json` records of the build and the command line.

use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::RunReport;

use crate::progress::ProgressMode;

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Progress bars, log lines, or nothing.
    pub progress: ProgressMode,
    /// Cancelled on the first Ctrl-C: sources stop, the rest drains.
    pub shutdown: CancellationToken,
    /// Cancelled on the second Ctrl-C: every task is aborted at once.
    pub abort: CancellationToken,
    /// Tool version, recorded in `run.json`.
    pub version: String,
    /// Git commit the binary was built from (`unknown` when not built from a git
    /// checkout), recorded in `run.json`.
    pub commit: String,
    /// Whether that checkout had uncommitted changes; `None` when unknown.
    pub dirty: Option<bool>,
    /// The command line as given, program first.
    pub command_line: Vec<String>,
    /// The `--set` overrides as given (`KEY.PATH=VALUE`).
    pub overrides: Vec<String>,
    /// What the outputs were first built with, when this run rebuilds them from
    /// a manifest (recorded in `run.json` as `rebuilt_from`; the dataset card
    /// describes that build).
    pub rebuilt_from: Option<serde_json::Value>,
    /// How a completed run is checked against the runs before it
    /// (`tempora_health` in the binary): called with the run's report and the
    /// output folder before `run.json` is written; its verdict is kept in the
    /// report and recorded as `run.json`'s `health`. `None`: no check. An
    /// incremental pipeline keeps every run's records under `runs/<run>/`; a
    /// pipeline that makes its outputs anew keeps a copy of each reviewed run's
    /// `run.json` there, for the next runs to be compared with.
    pub review: Option<Review>,
    /// The files a completed run makes from its other outputs (the dataset
    /// card, a manifest's inputs, the commitment to a withheld part), published
    /// in the same journal as them (see [`crate::publish`]). `None`: none.
    pub derive: Option<Derive>,
}

/// Makes files from a run's outputs: called with the folder as the publication
/// will leave it (a preview, `run.json` included), writes its files there (each
/// by replacing, never by writing into an existing file: the preview's files
/// are links to the folder's) and says which; a failure publishes nothing.
#[derive(Clone)]
pub struct Derive(pub std::sync::Arc<DeriveFn>);

/// What a [`Derive`] calls.
pub type DeriveFn = dyn Fn(&Path) -> Result<Derived, String> + Send + Sync;

impl std::fmt::Debug for Derive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Derive")
    }
}

/// The files a [`Derive`] made and removed in the preview, relative to it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Derived {
    /// Written: published with the run's files.
    pub written: Vec<String>,
    /// Removed: removed from the folder with the publication.
    pub removed: Vec<String>,
}

/// A check of a completed run against the runs recorded in its output folder
/// (see [`RunOptions::review`]).
#[derive(Clone)]
pub struct Review(pub std::sync::Arc<ReviewFn>);

/// What a [`Review`] calls: the run's report and its output folder in, the
/// verdict out.
pub type ReviewFn = dyn Fn(&RunReport, &Path) -> std::sync::Arc<dyn Verdict> + Send + Sync;

/// A [`Review`]'s verdict, kept as its own type from the check to the exit
/// code (the binary reads it back by downcasting); `run.json` records it as
/// [`Verdict::to_json`] gives it.
pub trait Verdict: std::any::Any + std::fmt::Debug + Send + Sync {
    /// The verdict as `run.json`'s `health` records it.
    fn to_json(&self) -> serde_json::Value;
}

impl std::fmt::Debug for Review {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Review")
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            progress: ProgressMode::Off,
            shutdown: CancellationToken::new(),
            abort: CancellationToken::new(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: "unknown".to_string(),
            dirty: None,
            command_line: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            overrides: Vec::new(),
            rebuilt_from: None,
            review: None,
            derive: None,
        }
    }
}
