//! What a stage tells the dry run of itself ([`StageConfig::describe`](crate::StageConfig::describe)):
//! its queries, politeness and cost as data, with what it is told in return
//! (the pipeline, the records expected on its inputs).

use crate::context::PipelineContext;
use crate::cost::Requests;

/// What a stage is told when it describes itself.
#[derive(Debug, Clone)]
pub struct DescribeContext<'a> {
    /// The `[pipeline]` settings.
    pub pipeline: &'a PipelineContext,
    /// Records expected on the stage's inputs: the sum of what its producers expect
    /// to emit; `None` when a producer cannot say.
    pub records_in: Option<u64>,
    /// Whether the stage may ask servers for counts (`--estimate`).
    pub online: bool,
}

/// One request pattern of a stage (for the Archive's stages, a CDX query), as
/// named settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// What is asked, e.g. `CDX bbc.co.uk/news/*`.
    pub what: String,
    /// Its settings in order: `("from", "2010-01-01")`, `("collapse", "urlkey")`.
    pub settings: Vec<(String, String)>,
}

/// What a stage's work costs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Estimate {
    /// Requests it will make, by kind.
    pub requests: Requests,
    /// Records it will emit, when it can say (the stages it feeds build on it).
    pub records_out: Option<u64>,
    /// What `records_out` counts, e.g. `captures`.
    pub records_name: String,
    /// Hours the requests take at the configured rates.
    pub hours: f64,
    /// How the figures were reached: each assumption, or the count requests made.
    pub basis: Vec<String>,
}

/// A stage's description of what it will ask of the outside world.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StagePlan {
    /// What it asks for, one entry per query.
    pub queries: Vec<Query>,
    /// Rates, pauses and retries, as named settings.
    pub politeness: Vec<(String, String)>,
    /// Its cost; `None` for a stage that does local work only.
    pub estimate: Option<Estimate>,
}
