//! `run.json`: what ran (the command line and its `--set` overrides, the version
//! and git commit of the build, every input file with its size, time and
//! SHA-256) and how it went, per stage and in all. It is written however the run
//! ends, also when it cannot start: a stage that fails to build, or a pipeline
//! file with problems ([`record_refused`]).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::atomic_file::write_atomically;
use crate::config::PipelineFile;
use crate::cost::CrawlCost;
use crate::error::{ConfigErrors, ErrorDomain};
use crate::input_files::InputFile;
use crate::out_dir::check_writable;
use crate::plan::Plan;
use crate::registry::{Registry, Role};
use crate::run_options::RunOptions;
use crate::stats::StageReport;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Every source reached its end and everything drained.
    Completed,
    /// Stopped on request (Ctrl-C); what was in flight drained, outputs are complete files.
    Interrupted,
    /// A stage failed; its error is in the report.
    Failed,
    /// Aborted by a second Ctrl-C; outputs were not published.
    Aborted,
}

/// The stage that failed and why.
#[derive(Debug, Clone, Serialize)]
pub struct StageFailure {
    /// Stage name; `None` when the pipeline file as a whole was refused.
    pub stage: Option<String>,
    /// The error.
    pub message: String,
    /// Whose move it is: `input` (fix the data or config), `external` (I/O,
    /// network), `temporary` (a service asks us to wait: run again later) or
    /// `internal` (a bug).
    pub domain: ErrorDomain,
}

/// A `--set` override in `run.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppliedOverride {
    /// As given: `KEY.PATH=VALUE`.
    pub given: String,
    /// The key path.
    pub key: String,
    /// The value the key holds in the resolved pipeline (after `${VAR}`).
    pub value: serde_json::Value,
}

/// What `run.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Pipeline name.
    pub pipeline: String,
    /// Pipeline file.
    pub file: String,
    /// Tempora version.
    pub version: String,
    /// Git commit Tempora was built from (`unknown` when not built from a git checkout).
    pub commit: String,
    /// Whether the build's checkout had uncommitted changes; `null` when unknown.
    pub dirty: Option<bool>,
    /// The command line as given, program first.
    pub command_line: Vec<String>,
    /// The `--set` overrides, as given and as applied.
    pub overrides: Vec<AppliedOverride>,
    /// The run day and every date written relative to it, as written and as
    /// resolved (see [`crate::dates`]); absent when the file's dates were not
    /// resolved (a pipeline run by the engine alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dates: Option<crate::dates::RunDates>,
    /// The run's name, its start in UTC (`2026-11-23T023015Z`, see [`crate::runs`]).
    pub run: String,
    /// How the run ended.
    pub status: RunStatus,
    /// Whether every source reached its end and everything drained.
    pub completed: bool,
    /// The failure, when a stage failed.
    pub error: Option<StageFailure>,
    /// Start time (UTC).
    pub started_at: DateTime<Utc>,
    /// End time (UTC).
    pub ended_at: DateTime<Utc>,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Per stage, in pipeline order.
    pub stages: Vec<StageReport>,
    /// Requests to outside services by kind (every kind the stage kinds declare),
    /// items skipped before fetching by reason, rejections per stage, and requests
    /// per kept article.
    pub cost: CrawlCost,
    /// Records written to `rejected.jsonl`.
    pub rejected: u64,
    /// What the run could not produce and a rerun may (pages the Archive did not
    /// serve after every attempt), per stage; the outputs lack it. Empty when
    /// nothing is missing, and in a run that did not complete (it published nothing).
    pub missing: Vec<crate::stats::Missing>,
    /// Why a completed run is not what its user wanted: a stage that rejected
    /// every record it received, a source that gave none, a stage's own warning
    /// (an empty training set). The run exits "completed with problems".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// Every file a stage option names: path, size, modification time and, under
    /// 100 MB, SHA-256.
    pub inputs: Vec<InputFile>,
    /// The resolved pipeline (after `--set` and `${VAR}`).
    pub config: serde_json::Value,
    /// What the outputs were first built with, when this run rebuilds them
    /// (`tempora rebuild`: the manifest's pinned pipeline and inputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuilt_from: Option<serde_json::Value>,
    /// An incremental pipeline's completed run checked against the runs before it
    /// (see [`crate::RunOptions::review`]): `status`, findings, figures.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "verdict_json"
    )]
    pub health: Option<std::sync::Arc<dyn crate::run_options::Verdict>>,
}

fn verdict_json<S: serde::Serializer>(
    verdict: &Option<std::sync::Arc<dyn crate::run_options::Verdict>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&verdict.as_ref().map(|v| v.to_json()), serializer)
}

/// One warning of a completed run (see [`RunReport::warnings`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The stage it is about.
    pub stage: String,
    /// What is wrong, in words.
    pub why: String,
}

/// The warnings of a completed run: each stage's own, then, unless the pipeline
/// is incremental (where a night with nothing new is ordinary and the health
/// check judges the counts), every stage that rejected all it received and
/// every source that gave nothing.
pub(crate) fn warnings_of(
    stages: &[StageReport],
    roles: &[Role],
    incremental: bool,
) -> Vec<Warning> {
    let mut out = Vec::new();
    for (stage, role) in stages.iter().zip(roles) {
        let warn = |why: String| Warning {
            stage: stage.name.clone(),
            why,
        };
        out.extend(stage.warnings.iter().cloned().map(warn));
        if incremental {
            continue;
        }
        let rejected = |n: u64| match n {
            0 => String::new(),
            n => format!(" ({n} rejected: see rejected.jsonl)"),
        };
        if *role == Role::Source && stage.records_out == 0 {
            out.push(warn(format!("gave no record{}", rejected(stage.rejected))));
        } else if *role != Role::Source
            && stage.records_in > 0
            && stage.records_out == 0
            && stage.rejected >= stage.records_in
        {
            out.push(warn(format!(
                "rejected every record it received ({}): see rejected.jsonl",
                stage.records_in
            )));
        }
    }
    out
}

impl RunReport {
    /// A report of what ran, before anything ran: status `failed` until told otherwise.
    pub(crate) fn new(
        pipeline: &str,
        file: &str,
        resolved: &toml::Table,
        options: &RunOptions,
        started_at: DateTime<Utc>,
    ) -> Self {
        let overrides = options
            .overrides
            .iter()
            .map(|given| {
                let (key, value) = crate::config::applied_override(resolved, given);
                AppliedOverride {
                    given: given.clone(),
                    key,
                    value: value
                        .and_then(|v| serde_json::to_value(v).ok())
                        .unwrap_or_default(),
                }
            })
            .collect();
        Self {
            pipeline: pipeline.to_string(),
            file: file.to_string(),
            version: options.version.clone(),
            commit: options.commit.clone(),
            dirty: options.dirty,
            command_line: options.command_line.clone(),
            overrides,
            dates: None,
            run: String::new(),
            status: RunStatus::Failed,
            completed: false,
            error: None,
            started_at,
            ended_at: started_at,
            seconds: 0.0,
            stages: Vec::new(),
            cost: CrawlCost::default(),
            rejected: 0,
            missing: Vec::new(),
            warnings: Vec::new(),
            inputs: Vec::new(),
            config: serde_json::to_value(resolved).unwrap_or_default(),
            rebuilt_from: options.rebuilt_from.clone(),
            health: None,
        }
    }

    /// [`RunReport::new`] for a validated pipeline.
    /// `context` is the plan's naming this run.
    pub(crate) fn of_plan(
        plan: &Plan,
        context: &crate::PipelineContext,
        options: &RunOptions,
        started_at: DateTime<Utc>,
    ) -> Self {
        let mut report = Self::new(
            &plan.context.name,
            &plan.file,
            &plan.resolved,
            options,
            started_at,
        );
        report.run = context.run.label().to_string();
        report.dates = plan.dates.clone();
        report.cost = CrawlCost::declared(&plan.request_kinds);
        report
    }

    /// The report as `run.json` would hold it were the run to end now (that
    /// began at `start`).
    pub(crate) fn preview_json(&self, start: Instant) -> Vec<u8> {
        let mut report = self.clone();
        report.ended_at = Utc::now();
        report.seconds = start.elapsed().as_secs_f64();
        let mut json = serde_json::to_vec_pretty(&report).unwrap_or_default();
        json.push(b'\n');
        json
    }

    /// Stamps the end of a run that began at `start` and writes the report.
    pub(crate) fn close(&mut self, start: Instant, out: &Path) {
        self.ended_at = Utc::now();
        self.seconds = start.elapsed().as_secs_f64();
        self.write(out);
    }

    /// Writes it to `run.json` in `out`, logging a failure (the run's outcome does not
    /// depend on its report).
    pub(crate) fn write(&self, out: &Path) {
        if let Err(e) = write_atomically(&out.join("run.json"), |w| {
            serde_json::to_writer_pretty(&mut *w, self)?;
            w.write_all(b"\n")
        }) {
            tracing::error!(error = %e, "could not write run.json");
        }
    }
}

/// Records a run refused before it started because its pipeline file has problems
/// (a missing input file, an unknown option...): `run.json` with what ran, status
/// `failed` and the problems, in the output directory the file names (its cost
/// names the request kinds of `registry`, none sent). Returns that
/// directory; `None` when the `[pipeline]` table cannot be read to find it, or it
/// cannot be created.
pub fn record_refused(
    file: &PipelineFile,
    errors: &ConfigErrors,
    options: &RunOptions,
    registry: &Registry,
) -> Option<PathBuf> {
    let settings = file.settings().ok()?;
    let name = crate::config::pipeline_name(Some(&settings), &file.path);
    let out = file.output_dir();
    check_writable(&out).ok()?;
    let mut report = RunReport::new(&name, &file.path, &file.table, options, Utc::now());
    report.cost = CrawlCost::declared(&registry.request_kinds());
    report.dates = file.dates.clone();
    report.error = Some(StageFailure {
        stage: None,
        message: errors.to_string(),
        domain: ErrorDomain::Input,
    });
    report.write(&out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stage(name: &str, records_in: u64, records_out: u64, rejected: u64) -> StageReport {
        let stats = crate::stats::StageStats::default();
        let mut report = stats.report(name, "k", None);
        (report.records_in, report.records_out, report.rejected) =
            (records_in, records_out, rejected);
        report
    }

    #[test]
    fn a_run_warns_of_a_stage_that_rejected_all_and_a_source_that_gave_nothing() {
        let mut own = stage("novelty", 3, 3, 0);
        own.warnings
            .push("its training set holds no summary".into());
        let stages = [
            stage("empty", 0, 0, 0),
            stage("full", 0, 5, 0),
            stage("strict", 5, 0, 5),
            stage("sink", 5, 0, 0),
            own,
        ];
        let roles = [
            Role::Source,
            Role::Source,
            Role::Transform,
            Role::Sink,
            Role::Transform,
        ];
        let said: Vec<(String, String)> = warnings_of(&stages, &roles, false)
            .into_iter()
            .map(|w| (w.stage, w.why))
            .collect();
        assert_eq!(
            said,
            [
                ("empty".to_string(), "gave no record".to_string()),
                (
                    "strict".to_string(),
                    "rejected every record it received (5): see rejected.jsonl".to_string()
                ),
                (
                    "novelty".to_string(),
                    "its training set holds no summary".to_string()
                ),
            ]
        );
        // An incremental night with nothing new is ordinary: only the stages'
        // own warnings stand.
        let nightly = warnings_of(&stages, &roles, true);
        assert_eq!(nightly.len(), 1);
        assert_eq!(nightly[0].stage, "novelty");
    }
}
