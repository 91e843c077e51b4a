//! The `[pipeline]` settings every stage may use: name, cutoff, the sets' date
//! windows, the output directory, and this run.

use std::path::PathBuf;

use chrono::NaiveDate;

use crate::runs::RunId;
use crate::windows::Windows;

/// The `[pipeline]` settings every stage may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineContext {
    /// Pipeline name.
    pub name: String,
    /// Knowledge cutoff; stages default their dates to it.
    pub cutoff: NaiveDate,
    /// The date windows of the sets (`[pipeline.sets]`, resolved against the
    /// cutoff; without that table, `in_distribution` up to the cutoff and `future`
    /// after it): every stage that needs dates follows them.
    pub windows: Windows,
    /// Output directory: sinks, `run.json` and `rejected.jsonl` go here.
    pub out: PathBuf,
    /// Records per channel.
    pub channel_capacity: usize,
    /// This run: its start and name (the `{run}` and `{date}` of sink paths). Set when
    /// the run starts; until then, the time the pipeline was read.
    pub run: RunId,
    /// Whether the pipeline is incremental (a stage brings only what is new since
    /// its last run, and the outputs accumulate): set when the run starts. Without
    /// it, every run makes its outputs anew from everything it lists.
    pub incremental: bool,
    /// An incremental pipeline's run that makes the whole accumulated set anew
    /// (`tempora run --rebuild`): its appending sinks write their files anew.
    pub rebuild: bool,
}

impl PipelineContext {
    /// The settings of a pipeline named `name` with `cutoff`, its sets the default
    /// ones, its output in `out`: for tests and tools that run stages outside a
    /// pipeline file.
    pub fn new(name: &str, cutoff: NaiveDate, out: PathBuf) -> Self {
        Self {
            name: name.to_string(),
            cutoff,
            windows: Windows::default_for(cutoff),
            out,
            channel_capacity: 256,
            run: RunId::default(),
            incremental: false,
            rebuild: false,
        }
    }
}
