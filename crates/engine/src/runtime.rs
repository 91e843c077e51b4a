//! The runtime: builds every stage of a [`Plan`], wires them with bounded
//! channels, runs each as a tokio task, and writes `rejected.jsonl` and
//! `run.json` in `pipeline.out`.
//!
//! `run.json` says what ran (the command line and its `--set` overrides, the
//! version and git commit of the build, every input file with its size, time and
//! SHA-256) and how it went. It is written however the run ends, also when it
//! cannot start: a stage that fails to build, or a pipeline file with problems
//! ([`record_refused`]).
//!
//! An incremental pipeline (see [`Plan::incremental_stage`]) keeps every run: its
//! `run.json` and `rejected.jsonl` go to `runs/<run>/` (see [`crate::runs`]) and are
//! copied to `pipeline.out` as the latest run's, and the run refuses to start when a
//! sink would replace a non-empty file of an earlier run.
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

use crate::atomic_file::AtomicFile;
use crate::config::PipelineFile;
use crate::cost::CrawlCost;
use crate::error::{ConfigErrors, StageError};
use crate::input_files::{self, InputFile};
use crate::out_dir::OutDir;
use crate::plan::Plan;
use crate::progress::{Progress, ProgressMode};
use crate::records::{RecordKind, Rejected};
use crate::registry::Role;
use crate::runs::RunId;
use crate::stage::{AfterPublishHooks, Message, OutPort, Published, StageIo};
use crate::stats::StageStats;

/// Kept here for callers that write their files the runtime's way.
pub use crate::atomic_file::write_atomically;

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
    /// Stage name; `None` when the pipeline file as a whole was refused.
    pub stage: Option<String>,
    /// The error.
    pub message: String,
    /// `input` (fix the data or config), `external` (I/O, network), `temporary` (a
    /// service asks us to wait: run again later) or `internal` (a bug).
    pub domain: &'static str,
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
    /// Requests to the Archive by kind, captures skipped before fetching by
    /// reason, rejections per stage, and page requests per kept article.
    pub cost: CrawlCost,
    /// Records written to `rejected.jsonl`.
    pub rejected: u64,
    /// Every file a stage option names: path, size, modification time and, under
    /// 100 MB, SHA-256.
    pub inputs: Vec<InputFile>,
    /// The resolved pipeline (after `--set` and `${VAR}`).
    pub config: serde_json::Value,
}

impl RunReport {
    /// A report of what ran, before anything ran: status `failed` until told otherwise.
    fn new(
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
            inputs: Vec::new(),
            config: serde_json::to_value(resolved).unwrap_or_default(),
        }
    }

    /// [`RunReport::new`] for a validated pipeline.
    fn of_plan(plan: &Plan, options: &RunOptions, started_at: DateTime<Utc>) -> Self {
        let mut report = Self::new(
            &plan.context.name,
            &plan.file,
            &plan.resolved,
            options,
            started_at,
        );
        report.run = plan.context.run.label().to_string();
        report
    }

    /// Stamps the end of a run that began at `start` and writes the report.
    fn close(&mut self, start: Instant, out: &Path) {
        self.ended_at = Utc::now();
        self.seconds = start.elapsed().as_secs_f64();
        self.write(out);
    }

    /// Writes it to `run.json` in `out`, logging a failure (the run's outcome does not
    /// depend on its report).
    fn write(&self, out: &Path) {
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
/// `failed` and the problems, in the output directory the file names. Returns that
/// directory; `None` when the `[pipeline]` table cannot be read to find it, or it
/// cannot be created.
pub fn record_refused(
    file: &PipelineFile,
    errors: &ConfigErrors,
    options: &RunOptions,
) -> Option<PathBuf> {
    let settings = file.settings().ok()?;
    let name = crate::config::pipeline_name(Some(&settings), &file.path);
    let out = crate::config::output_dir(Some(&settings), &name);
    check_writable(&out).ok()?;
    let mut report = RunReport::new(&name, &file.path, &file.table, options, Utc::now());
    report.error = Some(StageFailure {
        stage: None,
        message: errors.to_string(),
        domain: "input",
    });
    report.write(&out);
    Some(out)
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
    /// A sink of an incremental pipeline would replace what an earlier run wrote.
    #[error(
        "stage `{stage}` would replace {}, which holds the records of earlier runs (its `{key}`), \
         and this pipeline is incremental (stage `{incremental}` has `incremental = true`: each \
         run brings only what is new). Set `mode = \"append\"` on stage `{stage}` to add each \
         run's records to the file, or put `{{run}}` in its `{key}` to give each run a file of its own",
        path.display()
    )]
    WouldReplace {
        /// The sink.
        stage: String,
        /// Its option that names the file.
        key: String,
        /// The file.
        path: PathBuf,
        /// The stage that makes the pipeline incremental.
        incremental: String,
    },
    /// Another run holds the output directory, or what a killed run left there
    /// cannot be removed.
    #[error(transparent)]
    Claim(#[from] crate::out_dir::ClaimError),
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
    inputs: tokio::task::JoinHandle<Vec<InputFile>>,
    /// `runs/<run>/` of an incremental pipeline, where this run's records go.
    run_folder: Option<PathBuf>,
    progress: Progress,
    started_at: DateTime<Utc>,
    start: Instant,
    verdict: tokio::sync::watch::Sender<Option<bool>>,
    after_publish: AfterPublishHooks,
    /// Held until the run has written its last file.
    out_dir: OutDir,
}

/// Builds and wires every stage and starts them; [`Running::wait`] awaits the end.
///
/// # Errors
/// When the output directory is not writable, a sink of an incremental pipeline would
/// replace an earlier run's file, or a stage cannot be built; no stage has started then.
pub fn start(mut plan: Plan, options: RunOptions) -> Result<Running, PreflightError> {
    let started_at = Utc::now();
    let start = Instant::now();
    let out = plan.context.out.clone();
    check_writable(&out)?;
    let out_dir = OutDir::claim(&out)?;
    plan.context.run = RunId::new(started_at);
    let run_folder = match plan.incremental_stage().map(str::to_string) {
        Some(incremental) => Some(keep_earlier_runs(&mut plan, &incremental)?),
        None => None,
    };
    let records_dir = run_folder.clone().unwrap_or_else(|| out.clone());

    let reads = input_files::named_by(&plan);
    let mut stages = Vec::with_capacity(plan.stages.len());
    for i in 0..plan.stages.len() {
        let Some(config) = plan.stages[i].config.take() else {
            continue;
        };
        match config.build(&plan.context) {
            Ok(stage) => stages.push(stage),
            Err(source) => {
                let stage = plan.stages[i].name.clone();
                // Nothing runs (so describing the inputs here holds up no task); the
                // report says what would have run and why it did not.
                let mut report = RunReport::of_plan(&plan, &options, started_at);
                report.error = Some(StageFailure {
                    stage: Some(stage.clone()),
                    message: source.to_string(),
                    domain: source.domain(),
                });
                report.inputs = input_files::describe(&reads);
                report.close(start, &out);
                return Err(PreflightError::Build { stage, source });
            }
        }
    }
    // Hashing the inputs reads them: off the async threads, beside the run.
    let inputs = tokio::task::spawn_blocking(move || input_files::describe(&reads));

    let batch_size = (plan.context.channel_capacity / 2).clamp(1, 1024);
    let names: Vec<String> = plan.stages.iter().map(|s| s.name.clone()).collect();
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();

    // One input channel per consumer, one per side input; producers get senders.
    let mut input_rx: Vec<Option<mpsc::Receiver<Message>>> = Vec::new();
    let mut input_tx: Vec<Option<mpsc::Sender<Message>>> = Vec::new();
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
    let mut port_senders: HashMap<(usize, String), Vec<mpsc::Sender<Message>>> = HashMap::new();
    let mut side_rx: Vec<HashMap<String, mpsc::Receiver<Message>>> = Vec::new();
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
    let rejected_writer = tokio::spawn(write_rejected(records_dir, stage_order, rejected_rx));

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
    let after_publish = AfterPublishHooks::default();
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
        let producers: std::collections::BTreeSet<&str> =
            planned.inputs.iter().map(|p| p.stage.as_str()).collect();
        let io = StageIo {
            name: planned.name.clone(),
            input: input_rx[i].take(),
            producers: producers.len(),
            watermarks: HashMap::new(),
            watermark: None,
            stashed: None,
            side: std::mem::take(&mut side_rx[i]),
            ports,
            rejected: rejected_tx.clone(),
            stats: stats[i].clone(),
            shutdown: options.shutdown.clone(),
            batch_size,
            last_flush: Instant::now(),
            verdict: verdict_rx.clone(),
            is_sink: planned.role == Role::Sink,
            index: i,
            after_publish: after_publish.clone(),
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
        inputs,
        run_folder,
        progress,
        started_at,
        start,
        verdict,
        after_publish,
        out_dir,
    })
}

/// Claims this run's folder `runs/<run>/` and checks that no sink would replace an
/// earlier run's file; on a refusal the (empty) folder is removed again.
fn keep_earlier_runs(plan: &mut Plan, incremental: &str) -> Result<PathBuf, PreflightError> {
    let out = plan.context.out.clone();
    let folder = plan
        .context
        .run
        .claim_folder(&out)
        .map_err(|source| PreflightError::OutDir {
            path: out.join(crate::runs::RUNS_DIR),
            source,
        })?;
    // The run's own files are kept in its folder; a sink path like `{split}.jsonl`
    // matches them too without writing them.
    let own = [out.join("run.json"), out.join("rejected.jsonl")];
    for stage in &plan.stages {
        let Some(config) = &stage.config else {
            continue;
        };
        let replaced = config.replaced_files(&plan.context);
        if let Some((key, path)) = replaced.into_iter().find(|(_, p)| !own.contains(p)) {
            let _ = std::fs::remove_dir(&folder);
            return Err(PreflightError::WouldReplace {
                stage: stage.name.clone(),
                key,
                path,
                incremental: incremental.to_string(),
            });
        }
    }
    Ok(folder)
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
            inputs,
            run_folder,
            progress,
            started_at,
            start,
            verdict,
            after_publish,
            out_dir,
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
                                stage: Some(names[i].clone()),
                                domain: e.domain(),
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
        if let Some(f) = run_after_publish(&after_publish, status, &names).await {
            status = RunStatus::Failed;
            failure = Some(f);
        }
        // The display thread ends at once; joining it must not hold an async thread.
        let _ = tokio::task::spawn_blocking(move || progress.finish()).await;
        let rejected = rejected_writer
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "could not write rejected.jsonl");
                0
            });

        let mut report = RunReport::of_plan(&plan, &options, started_at);
        report.status = status;
        report.completed = status == RunStatus::Completed;
        report.error = failure;
        report.stages = plan
            .stages
            .iter()
            .zip(&stats)
            .zip(&elapsed)
            .map(|((s, st), dt)| stage_report(&s.name, &s.kind, st, *dt))
            .collect();
        report.cost = CrawlCost::from_stages(&report.stages, &sink_kinds(&plan));
        report.rejected = rejected;
        report.inputs = inputs.await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "could not describe the input files");
            Vec::new()
        });
        let records_dir = run_folder.as_deref().unwrap_or(&out);
        report.close(start, records_dir);
        if let Some(folder) = &run_folder {
            for name in ["run.json", "rejected.jsonl"] {
                if let Err(e) = copy_as_latest(folder, &out, name) {
                    tracing::error!(error = %e, file = name, "could not copy the run's file to the output directory");
                }
            }
        }
        drop(out_dir);
        report
    }
}

/// Runs the stages' [`StageIo::after_publish`] hooks, in pipeline order, when the
/// sinks published (the run completed or was interrupted); the first failure.
async fn run_after_publish(
    hooks: &AfterPublishHooks,
    status: RunStatus,
    names: &[String],
) -> Option<StageFailure> {
    let published = match status {
        RunStatus::Completed => Published::Completed,
        RunStatus::Interrupted => Published::Interrupted,
        _ => return None,
    };
    let mut hooks = std::mem::take(
        &mut *hooks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    hooks.sort_by_key(|(i, _)| *i);
    for (i, hook) in hooks {
        if let Err(e) = hook(published).await {
            tracing::error!(stage = %names[i], error = %e, "could not record the run as published");
            return Some(StageFailure {
                stage: Some(names[i].clone()),
                domain: e.domain(),
                message: e.to_string(),
            });
        }
    }
    None
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

/// Copies `name` of a run's folder to `out`, where it stands for the latest run.
fn copy_as_latest(run_folder: &Path, out: &Path, name: &str) -> std::io::Result<()> {
    let mut from = std::fs::File::open(run_folder.join(name))?;
    write_atomically(&out.join(name), |w| std::io::copy(&mut from, w).map(drop))
}

/// Collects every rejection and writes `rejected.jsonl` in a total order that does
/// not depend on how the stages' work interleaved: by stage (pipeline order),
/// then by the whole JSON line (within a stage that rejected at most 256 MiB, see
/// [`SORTED_REJECTIONS_MAX_BYTES`]); in `dir` (the output directory, or the run's
/// folder of an incremental pipeline).
async fn write_rejected(
    dir: PathBuf,
    stage_order: HashMap<String, usize>,
    mut rx: mpsc::Receiver<Vec<Rejected>>,
) -> std::io::Result<u64> {
    let file = AtomicFile::create(&dir.join("rejected.jsonl"))?;
    // Rejections stream to one spill file per stage (a rejected page holds its whole
    // body, so a crawl's rejections need not fit in memory); the spills are joined in
    // stage order when the run ends.
    let mut spills: BTreeMap<usize, (std::io::BufWriter<std::fs::File>, u64)> = BTreeMap::new();
    let mut n = 0u64;
    while let Some(batch) = rx.recv().await {
        for r in batch {
            let stage = stage_order.get(&r.stage).copied().unwrap_or(usize::MAX);
            let (w, bytes) = match spills.entry(stage) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert((std::io::BufWriter::new(tempfile::tempfile_in(&dir)?), 0))
                }
            };
            let line = serde_json::to_vec(&r)?;
            w.write_all(&line)?;
            w.write_all(b"\n")?;
            *bytes += line.len() as u64 + 1;
            n += 1;
        }
    }
    let mut out = std::io::BufWriter::new(file.as_file());
    for (_, (spill, bytes)) in spills {
        join_spill(spill, bytes, &mut out)?;
    }
    out.flush()?;
    drop(out);
    file.commit()?;
    Ok(n)
}

/// A stage's rejections up to this size are sorted by line, so the same input
/// gives the same `rejected.jsonl` whatever the arrival order; a larger spill is
/// copied in arrival order rather than held in memory.
const SORTED_REJECTIONS_MAX_BYTES: u64 = 256 << 20;

/// Appends one stage's spilled rejections to `out`: sorted when small enough.
fn join_spill(
    spill: std::io::BufWriter<std::fs::File>,
    bytes: u64,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    use std::io::{BufRead as _, Seek as _};
    let mut file = spill
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    file.rewind()?;
    if bytes > SORTED_REJECTIONS_MAX_BYTES {
        tracing::warn!(
            bytes,
            "a stage rejected more than {} MiB of records: its part of rejected.jsonl is in arrival order",
            SORTED_REJECTIONS_MAX_BYTES >> 20
        );
        std::io::copy(&mut file, out)?;
        return Ok(());
    }
    let mut lines = std::io::BufReader::new(file)
        .split(b'\n')
        .collect::<std::io::Result<Vec<Vec<u8>>>>()?;
    lines.sort_unstable();
    for line in lines {
        out.write_all(&line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
