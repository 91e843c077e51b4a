//! The engine of Tempora: the stage abstraction, the registry of stage kinds,
//! pipeline TOML and its validation, and the runtime that runs a pipeline. It
//! moves [`tempora_records::Record`]s without looking inside them.
//!
//! In: a pipeline file and a [`Registry`] of stage kinds. Out: the stages run as
//! tokio tasks joined by bounded channels, `rejected.jsonl` and `run.json` in
//! `pipeline.out`. Promises: every problem in a pipeline file is reported at once,
//! naming stage and key; no unbounded channel; CPU work off the I/O threads; an
//! interrupted run leaves no file that looks complete.

pub mod atomic_file;
#[cfg(any(test, feature = "testing"))]
pub mod builtin;
pub mod config;
pub mod context;
pub mod cost;
pub mod dates;
pub mod describe;
pub mod dry_run;
pub mod error;
pub mod fingerprint;
pub mod input_files;
pub mod key_path;
pub mod options;
pub mod out_dir;
pub mod peers;
pub mod plan;
pub mod preflight;
pub mod progress;
pub mod publish;
pub mod registry;
mod rejected;
pub mod run_options;
pub mod run_report;
pub mod runs;
pub mod runtime;
pub mod spill;
pub mod stage;
pub mod stats;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod topology;
pub mod transform;
pub mod windows;
pub mod written_duration;

pub use config::PipelineFile;
pub use context::{PipelineContext, RunMode};
pub use cost::{CrawlCost, RequestKind, Requests};
pub use dates::{ResolvedDate, RunDates};
pub use describe::{DescribeContext, Estimate, Query, StagePlan};
pub use dry_run::DryRun;
pub use error::{Concern, ConfigError, ConfigErrors, ErrorDomain, OnError, StageError, UsageError};
pub use options::{parse_options, OptionError};
pub use peers::{Peer, Peers};
pub use plan::{Additions, Plan};
pub use progress::ProgressMode;
pub use registry::{InRebuild, Port, ReadPort, Registry, Role, SideInput, StageConfig, StageKind};
pub use rejected::Rejected;
pub use run_options::{Derive, Derived, Review, RunOptions, Verdict};
pub use run_report::{record_refused, RunReport, RunStatus, Warning};
pub use runs::RunId;
pub use runtime::{run, start, Running};
pub use stage::{
    AfterPublish, Batch, Emitted, Input, PortId, SideInputs, Stage, StageIo, Watermark,
};
pub use stats::StageStats;
pub use transform::{blocking, Finish, Transform, TransformStage};
pub use windows::{Bound, SetBounds, SetSpec, Window, Windows, UNASSIGNED};
pub use written_duration::WrittenDuration;

/// The engine's `test-*` stage kinds (the `builtin` module) in a build for tests (the
/// `testing` feature, which the workspace's tests turn on); none in a release
/// build, so a user's binary holds no test code.
#[must_use]
pub fn test_kinds() -> Vec<StageKind> {
    #[cfg(any(test, feature = "testing"))]
    return builtin::test_kinds();
    #[cfg(not(any(test, feature = "testing")))]
    Vec::new()
}
