//! The runtime: builds every stage of a [`Plan`], wires them with bounded
//! channels, runs each as a tokio task, and writes `rejected.jsonl` and
//! `run.json` in `pipeline.out`.
//!
//! Shutdown follows the graph: the `shutdown` token asks sources to stop, and
//! each stage ends when its input closes, so everything in flight drains into
//! the sinks, which then publish their files. A failing stage aborts the other
//! tasks (sinks then delete their temporary files) and the run reports the stage.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::cost::CrawlCost;
use crate::error::StageError;
use crate::plan::Plan;
use crate::progress::{Progress, ProgressMode};
use crate::records::{RecordKind, Rejected};
use crate::registry::Role;
use crate::stage::{Batch, OutPort, StageIo};
use crate::stats::StageStats;

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
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            progress: ProgressMode::Off,
            shutdown: CancellationToken::new(),
            abort: CancellationToken::new(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

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

/// Counters of one stage in `run.json`.
#[derive(Debug, Clone, Serialize)]
pub struct StageReport {
    /// Stage name.
    pub name: String,
    /// Its kind.
    pub kind: String,
    /// Records received.
    pub records_in: u64,
    /// Records sent downstream.
    pub records_out: u64,
    /// Records rejected.
    pub rejected: u64,
    /// Records per output port.
    pub ports: serde_json::Map<String, serde_json::Value>,
    /// Wall time from start to end, seconds.
    pub seconds: f64,
    /// The stage's own counters.
    pub counters: serde_json::Map<String, serde_json::Value>,
    /// The stage's own metrics.
    pub metrics: serde_json::Map<String, serde_json::Value>,
}

/// The stage that failed and why.
#[derive(Debug, Clone, Serialize)]
pub struct StageFailure {
    /// Stage name.
    pub stage: String,
    /// The error.
    pub message: String,
    /// `input` (fix the data or config), `external` (I/O, network), `temporary` (a
    /// service asks us to wait: run again later) or `internal` (a bug).
    pub domain: &'static str,
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
    /// Requests to the Archive by kind, captures skipped before fetching by
    /// reason, rejections per stage, and page requests per kept article.
    pub cost: CrawlCost,
    /// Records written to `rejected.jsonl`.
    pub rejected: u64,
    /// The resolved pipeline (after `--set` and `${VAR}`).
    pub config: serde_json::Value,
}

/// An error before any stage runs.
#[derive(Debug, thiserror::Error)]
pub enum PreflightError {
    /// The output directory cannot be created or written.
    #[error("output directory {path} is not writable: {source}")]
    OutDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A stage could not be built.
    #[error("stage `{stage}`: {source}")]
    Build {
        /// Stage name.
        stage: String,
        /// Why.
        source: StageError,
    },
}

/// Runs a validated pipeline to its end and writes `run.json`.
///
/// # Errors
/// Only for problems found before any work starts; a failing stage is reported in
/// the returned [`RunReport`] (status `failed`).
pub async fn run(plan: Plan, options: RunOptions) -> Result<RunReport, PreflightError> {
    Ok(start(plan, options)?.wait().await)
}

/// A pipeline whose stages are running.
pub struct Running {
    plan: Plan,
    options: RunOptions,
    stats: Vec<Arc<StageStats>>,
    tasks: JoinSet<(usize, Result<(), StageError>, Duration)>,
    task_stage: HashMap<tokio::task::Id, usize>,
    rejected_writer: tokio::task::JoinHandle<std::io::Result<u64>>,
    progress: Progress,
    started_at: DateTime<Utc>,
    start: Instant,
    verdict: tokio::sync::watch::Sender<Option<bool>>,
}

/// Builds and wires every stage and starts them; [`Running::wait`] awaits the end.
///
/// # Errors
/// When the output directory is not writable or a stage cannot be built; no stage
/// has started then.
pub fn start(mut plan: Plan, options: RunOptions) -> Result<Running, PreflightError> {
    let started_at = Utc::now();
    let start = Instant::now();
    let out = plan.context.out.clone();
    check_writable(&out)?;

    let mut stages = Vec::with_capacity(plan.stages.len());
    for planned in &mut plan.stages {
        let Some(config) = planned.config.take() else {
            continue;
        };
        let stage = config
            .build(&plan.context)
            .map_err(|source| PreflightError::Build {
                stage: planned.name.clone(),
                source,
            })?;
        stages.push(stage);
    }

    let batch_size = (plan.context.channel_capacity / 2).clamp(1, 1024);
    let names: Vec<String> = plan.stages.iter().map(|s| s.name.clone()).collect();
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();

    // One input channel per consumer, one per side input; producers get senders.
    let mut input_rx: Vec<Option<mpsc::Receiver<Batch>>> = Vec::new();
    let mut input_tx: Vec<Option<mpsc::Sender<Batch>>> = Vec::new();
    for s in &plan.stages {
        if s.inputs.is_empty() {
            input_rx.push(None);
            input_tx.push(None);
        } else {
            let slots = (s.channel_capacity / batch_size).max(1);
            let (tx, rx) = mpsc::channel(slots);
            input_rx.push(Some(rx));
            input_tx.push(Some(tx));
        }
    }
    let mut port_senders: HashMap<(usize, String), Vec<mpsc::Sender<Batch>>> = HashMap::new();
    let mut side_rx: Vec<HashMap<String, mpsc::Receiver<Batch>>> = Vec::new();
    for (c, s) in plan.stages.iter().enumerate() {
        for input in &s.inputs {
            if let (Some(&p), Some(tx)) = (index.get(input.stage.as_str()), &input_tx[c]) {
                port_senders
                    .entry((p, input.port.clone()))
                    .or_default()
                    .push(tx.clone());
            }
        }
        let mut sides = HashMap::new();
        for (side, from) in &s.side_inputs {
            let slots = (s.channel_capacity / batch_size).max(1);
            let (tx, rx) = mpsc::channel(slots);
            if let Some(&p) = index.get(from.stage.as_str()) {
                port_senders
                    .entry((p, from.port.clone()))
                    .or_default()
                    .push(tx);
            }
            sides.insert(side.key.clone(), rx);
        }
        side_rx.push(sides);
    }
    drop(input_tx);

    let (rejected_tx, rejected_rx) = mpsc::channel::<Vec<Rejected>>(64);
    let stage_order: HashMap<String, usize> = plan
        .stages
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    let rejected_writer = tokio::spawn(write_rejected(out.clone(), stage_order, rejected_rx));

    let stats: Vec<Arc<StageStats>> = plan.stages.iter().map(|_| Arc::default()).collect();
    let progress = Progress::start(
        options.progress,
        plan.stages
            .iter()
            .zip(&stats)
            .map(|(s, st)| (s.name.clone(), st.clone()))
            .collect(),
    );

    let (verdict, verdict_rx) = tokio::sync::watch::channel(None);
    let mut tasks = JoinSet::new();
    let mut task_stage = HashMap::new();
    for (i, stage) in stages.into_iter().enumerate() {
        let planned = &plan.stages[i];
        let ports = planned
            .outputs
            .iter()
            .map(|port| {
                let senders = port_senders
                    .remove(&(i, port.name.clone()))
                    .unwrap_or_default();
                (
                    port.name.clone(),
                    OutPort {
                        senders,
                        buffer: Vec::with_capacity(batch_size),
                    },
                )
            })
            .collect();
        let io = StageIo {
            name: planned.name.clone(),
            input: input_rx[i].take(),
            side: std::mem::take(&mut side_rx[i]),
            ports,
            rejected: rejected_tx.clone(),
            stats: stats[i].clone(),
            shutdown: options.shutdown.clone(),
            batch_size,
            last_flush: Instant::now(),
            verdict: verdict_rx.clone(),
            is_sink: planned.role == Role::Sink,
        };
        let st = stats[i].clone();
        let handle = tasks.spawn(async move {
            let t0 = Instant::now();
            let result = stage.run(io).await;
            st.set_finished();
            (i, result, t0.elapsed())
        });
        task_stage.insert(handle.id(), i);
    }
    drop(rejected_tx);
    Ok(Running {
        plan,
        options,
        stats,
        tasks,
        task_stage,
        rejected_writer,
        progress,
        started_at,
        start,
        verdict,
    })
}

impl Running {
    /// Each stage's name and live counters, in pipeline order.
    pub fn stats(&self) -> Vec<(String, Arc<StageStats>)> {
        self.plan
            .stages
            .iter()
            .zip(&self.stats)
            .map(|(s, st)| (s.name.clone(), st.clone()))
            .collect()
    }

    /// Waits for the run to end, then writes `rejected.jsonl` and `run.json`.
    pub async fn wait(self) -> RunReport {
        let Running {
            plan,
            options,
            stats,
            mut tasks,
            task_stage,
            rejected_writer,
            progress,
            started_at,
            start,
            verdict,
        } = self;
        // Sinks publish once every other stage has ended well (see `Transform::publish`).
        let mut upstream_left = plan.stages.iter().filter(|s| s.role != Role::Sink).count();
        if upstream_left == 0 {
            verdict.send_replace(Some(true));
        }
        let names: Vec<String> = plan.stages.iter().map(|s| s.name.clone()).collect();
        let out = plan.context.out.clone();
        let mut elapsed: Vec<Option<Duration>> = vec![None; names.len()];
        let mut status = RunStatus::Completed;
        let mut failure: Option<StageFailure> = None;
        let mut aborted = false;
        loop {
            tokio::select! {
                biased;
                () = options.abort.cancelled(), if !aborted => {
                    aborted = true;
                    status = RunStatus::Aborted;
                    verdict.send_replace(Some(false));
                    tasks.abort_all();
                }
                joined = tasks.join_next_with_id() => {
                    let Some(joined) = joined else { break };
                    let (i, result) = match joined {
                        Ok((_, (i, result, dt))) => {
                            elapsed[i] = Some(dt);
                            (i, result)
                        }
                        Err(e) if e.is_cancelled() => continue,
                        Err(e) => {
                            let i = task_stage.get(&e.id()).copied().unwrap_or(0);
                            (i, Err(StageError::internal(format!("the stage panicked: {e}"))))
                        }
                    };
                    let ended_well = matches!(result, Ok(()) | Err(StageError::Stopped));
                    if ended_well && plan.stages[i].role != Role::Sink {
                        upstream_left -= 1;
                        if upstream_left == 0 && failure.is_none() && !aborted {
                            verdict.send_replace(Some(true));
                        }
                    }
                    match result {
                        Ok(()) | Err(StageError::Stopped) => {}
                        Err(e) if failure.is_none() && !aborted => {
                            tracing::error!(stage = %names[i], error = %e, "stage failed; stopping the run");
                            failure = Some(StageFailure {
                                stage: names[i].clone(),
                                domain: match e {
                                    StageError::Input(_) => "input",
                                    StageError::External(_) => "external",
                                    StageError::Temporary(_) => "temporary",
                                    _ => "internal",
                                },
                                message: e.to_string(),
                            });
                            status = RunStatus::Failed;
                            verdict.send_replace(Some(false));
                            options.shutdown.cancel();
                            tasks.abort_all();
                        }
                        Err(_) => {}
                    }
                }
            }
        }
        if status == RunStatus::Completed && options.shutdown.is_cancelled() {
            status = RunStatus::Interrupted;
        }
        progress.finish().await;
        let rejected = rejected_writer
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "could not write rejected.jsonl");
                0
            });

        let stages: Vec<StageReport> = plan
            .stages
            .iter()
            .zip(&stats)
            .zip(&elapsed)
            .map(|((s, st), dt)| stage_report(&s.name, &s.kind, st, *dt))
            .collect();
        let cost = CrawlCost::from_stages(&stages, &sink_kinds(&plan));
        let report = RunReport {
            pipeline: plan.context.name.clone(),
            file: plan.file.clone(),
            version: options.version.clone(),
            status,
            completed: status == RunStatus::Completed,
            error: failure,
            started_at,
            ended_at: Utc::now(),
            seconds: start.elapsed().as_secs_f64(),
            stages,
            cost,
            rejected,
            config: serde_json::to_value(&plan.resolved).unwrap_or_default(),
        };
        if let Err(e) = write_atomically(&out.join("run.json"), |w| {
            serde_json::to_writer_pretty(&mut *w, &report)?;
            w.write_all(b"\n")
        }) {
            tracing::error!(error = %e, "could not write run.json");
        }
        report
    }
}

/// The kind of records each sink receives (the kind of its first input's port).
fn sink_kinds(plan: &Plan) -> BTreeMap<String, RecordKind> {
    plan.stages
        .iter()
        .filter(|s| s.role == Role::Sink)
        .filter_map(|sink| {
            let input = sink.inputs.first()?;
            let from = plan.stages.iter().find(|s| s.name == input.stage)?;
            let port = from.outputs.iter().find(|p| p.name == input.port)?;
            Some((sink.name.clone(), port.kind))
        })
        .collect()
}

fn stage_report(name: &str, kind: &str, st: &StageStats, dt: Option<Duration>) -> StageReport {
    StageReport {
        name: name.to_string(),
        kind: kind.to_string(),
        records_in: st.records_in(),
        records_out: st.records_out(),
        rejected: st.rejected(),
        ports: st.ports().into_iter().map(|(k, v)| (k, v.into())).collect(),
        seconds: dt.map_or(0.0, |d| d.as_secs_f64()),
        counters: st
            .counters()
            .into_iter()
            .map(|(k, v)| (k, v.into()))
            .collect(),
        metrics: st.metrics().into_iter().collect(),
    }
}

fn check_writable(out: &Path) -> Result<(), PreflightError> {
    let fail = |source| PreflightError::OutDir {
        path: out.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(out).map_err(fail)?;
    tempfile::Builder::new()
        .prefix(".tempora-probe")
        .tempfile_in(out)
        .map(drop)
        .map_err(fail)
}

/// Writes a file under a temporary name in its directory and renames it into place.
///
/// # Errors
/// I/O errors; the temporary file is removed.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // A bare file name has the empty path as its parent: the working directory.
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file());
        write(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Collects every rejection and writes `rejected.jsonl` in a total order that does
/// not depend on how the stages' work interleaved: by stage (pipeline order),
/// then by the whole JSON line.
async fn write_rejected(
    out: PathBuf,
    stage_order: HashMap<String, usize>,
    mut rx: mpsc::Receiver<Vec<Rejected>>,
) -> std::io::Result<u64> {
    let path = out.join("rejected.jsonl");
    let tmp = tempfile::Builder::new()
        .prefix(".tmp-rejected")
        .tempfile_in(&out)?;
    let mut lines: Vec<(usize, Vec<u8>)> = Vec::new();
    while let Some(batch) = rx.recv().await {
        for r in batch {
            let stage = stage_order.get(&r.stage).copied().unwrap_or(usize::MAX);
            lines.push((stage, serde_json::to_vec(&r)?));
        }
    }
    lines.sort_unstable();
    let n = lines.len() as u64;
    let mut w = std::io::BufWriter::new(tmp.as_file());
    for (_, line) in &lines {
        w.write_all(line)?;
        w.write_all(b"\n")?;
    }
    w.flush()?;
    drop(w);
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(n)
}
