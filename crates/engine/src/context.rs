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
    /// The run: its start and name (the `{run}` and `{date}` of sink paths). In a
    /// plan, the time the pipeline was planned; the runtime builds the stages with
    /// a copy of the plan's context naming the run once it has claimed its folder
    /// (a second run in the same second takes a suffix).
    pub run: RunId,
    /// How the run treats what earlier runs left: decided when the plan is made,
    /// before any stage is checked.
    pub mode: RunMode,
}

/// How a run treats what earlier runs of its pipeline left in its folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunMode {
    /// Every run makes its outputs anew from everything it lists.
    #[default]
    Fresh,
    /// A stage brings only what is new since its last run (see
    /// [`crate::StageKind::incremental_option`]) and the outputs accumulate.
    Incremental,
    /// An incremental pipeline's run that makes the whole accumulated set anew
    /// (`tempora run --rebuild`): its appending sinks write their files anew.
    Rebuild,
}

impl RunMode {
    /// The mode of a pipeline that is `incremental`, run with `rebuild` asked
    /// (which a pipeline that is not incremental needs not: it is fresh).
    pub fn of(incremental: bool, rebuild: bool) -> Self {
        match (incremental, rebuild) {
            (false, _) => Self::Fresh,
            (true, false) => Self::Incremental,
            (true, true) => Self::Rebuild,
        }
    }

    /// Whether the pipeline is incremental (night or rebuild): its folder keeps
    /// every run's records under `runs/`.
    pub fn incremental_pipeline(self) -> bool {
        self != Self::Fresh
    }
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
            mode: RunMode::Fresh,
        }
    }
}
