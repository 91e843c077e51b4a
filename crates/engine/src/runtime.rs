//! The runtime: builds every stage of a [`Plan`], wires them with bounded
//! channels, runs each as a tokio task, supervises them, and writes
//! `rejected.jsonl` (the `rejected` module) and `run.json` ([`crate::run_report`])
//! in `pipeline.out`.
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
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::atomic_file::AtomicFile;
use crate::context::{PipelineContext, RunMode};
use crate::cost::CrawlCost;
use crate::error::StageError;
use crate::fingerprint::FINGERPRINT;
use crate::input_files::{self, InputFile};
use crate::out_dir::OutDir;
use crate::plan::Plan;
pub use crate::preflight::PreflightError;
use crate::progress::Progress;
use crate::publish::{Publication, Staged};
use crate::registry::Role;
use crate::run_options::RunOptions;
use crate::run_report::{RunReport, RunStatus, StageFailure};
use crate::stage::{AfterPublishHooks, StageIo};
use crate::stats::StageStats;
use crate::topology::{self, Prepared, Wiring};
use crate::Rejected;
use tempora_records::RecordKind;

/// Kept here for callers that write their files the runtime's way.
pub use crate::atomic_file::write_atomically;

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
    /// The plan's context naming this run.
    context: PipelineContext,
    options: RunOptions,
    stats: Vec<Arc<StageStats>>,
    tasks: JoinSet<(usize, Result<(), StageError>, Duration)>,
    task_stage: HashMap<tokio::task::Id, usize>,
    rejected_writer: tokio::task::JoinHandle<std::io::Result<(u64, AtomicFile)>>,
    inputs: tokio::task::JoinHandle<Vec<InputFile>>,
    /// `runs/<run>/` of an incremental pipeline, where this run's records go.
    run_folder: Option<PathBuf>,
    /// `runs/<run>/` of a reviewed pipeline that makes its outputs anew.
    history_folder: Option<PathBuf>,
    progress: Progress,
    started_at: DateTime<Utc>,
    start: Instant,
    verdict: tokio::sync::watch::Sender<Option<bool>>,
    after_publish: AfterPublishHooks,
    /// What the sinks staged, published together once the run completed.
    publication: Publication,
    /// Held until the run has written its last file.
    out_dir: OutDir,
}

/// Builds and wires every stage and starts them; [`Running::wait`] awaits the end.
///
/// # Errors
/// When the output directory is not writable, a sink of an incremental pipeline would
/// replace an earlier run's file, or a stage cannot be built; no stage has started then.
pub fn start(plan: Plan, options: RunOptions) -> Result<Running, PreflightError> {
    let started_at = Utc::now();
    let start = Instant::now();
    let prepared = topology::prepare(&plan, started_at, options.review.is_some())?;
    let stages = topology::build_stages(&plan, &options, &prepared, started_at, start)?;
    let Prepared {
        context,
        out_dir,
        run_folder,
        history_folder,
        reads,
        described,
        fingerprint,
    } = prepared;
    // Hashing the inputs reads them: off the async threads, beside the run (once).
    let inputs = match described {
        Some(inputs) => tokio::spawn(async move { inputs }),
        None => tokio::task::spawn_blocking(move || input_files::describe(&reads)),
    };
    let records_dir = run_folder
        .clone()
        .unwrap_or_else(|| plan.context.out.clone());
    let (rejected_tx, rejected_rx) = mpsc::channel::<Vec<Rejected>>(64);
    let stage_order: HashMap<String, usize> = plan
        .stages
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    let rejected_writer = tokio::spawn(crate::rejected::write_rejected(
        records_dir,
        stage_order,
        rejected_rx,
    ));
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
    let shared = Shared {
        rejected: rejected_tx,
        verdict: verdict_rx,
        after_publish: AfterPublishHooks::default(),
        publication: Publication::default(),
    };
    if let Some(fingerprint) = fingerprint {
        // Published with the outputs: what built them.
        let path = plan.context.out.join(FINGERPRINT);
        let file = AtomicFile::with_contents(&path, fingerprint.to_json().as_bytes())
            .map_err(|source| PreflightError::OutDir { path, source })?;
        if let Ok(mut staged) = shared.publication.lock() {
            staged.push(Staged::File(file));
        }
    }
    let (tasks, task_stage) = spawn_stages(&plan, &options, stages, &stats, &shared);
    Ok(Running {
        plan,
        context,
        options,
        stats,
        tasks,
        task_stage,
        rejected_writer,
        inputs,
        run_folder,
        history_folder,
        progress,
        started_at,
        start,
        verdict,
        after_publish: shared.after_publish,
        publication: shared.publication,
        out_dir,
    })
}

/// What every stage of a run shares: the rejection log, the run's verdict, the
/// hooks run after publication and the files staged for it.
struct Shared {
    rejected: mpsc::Sender<Vec<Rejected>>,
    verdict: tokio::sync::watch::Receiver<Option<bool>>,
    after_publish: AfterPublishHooks,
    publication: Publication,
}

/// The running tasks, and the stage of each task.
type Tasks = (
    JoinSet<(usize, Result<(), StageError>, Duration)>,
    HashMap<tokio::task::Id, usize>,
);

/// Wires `stages` with the plan's channels and spawns each as a task.
fn spawn_stages(
    plan: &Plan,
    options: &RunOptions,
    stages: Vec<Box<dyn crate::stage::Stage>>,
    stats: &[Arc<StageStats>],
    shared: &Shared,
) -> Tasks {
    let mut wiring = Wiring::new(plan);
    let mut tasks = JoinSet::new();
    let mut task_stage = HashMap::new();
    for (i, stage) in stages.into_iter().enumerate() {
        let planned = &plan.stages[i];
        let producers: std::collections::BTreeSet<&str> =
            planned.inputs.iter().map(|p| p.stage.as_str()).collect();
        let io = StageIo {
            name: planned.name.clone(),
            input: wiring.take_input(i),
            producers: producers.len(),
            watermarks: HashMap::new(),
            watermark: None,
            stashed: None,
            side: wiring.take_sides(i),
            ports: wiring.take_ports(i, planned),
            rejected: shared.rejected.clone(),
            stats: stats[i].clone(),
            shutdown: options.shutdown.clone(),
            batch_size: wiring.batch_size,
            last_flush: Instant::now(),
            verdict: shared.verdict.clone(),
            is_sink: planned.role == Role::Sink,
            index: i,
            after_publish: shared.after_publish.clone(),
            publication: shared.publication.clone(),
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
    (tasks, task_stage)
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
            context,
            options,
            stats,
            mut tasks,
            task_stage,
            rejected_writer,
            inputs,
            run_folder,
            history_folder,
            progress,
            started_at,
            start,
            verdict,
            after_publish,
            publication,
            out_dir,
        } = self;
        let names: Vec<String> = plan.stages.iter().map(|s| s.name.clone()).collect();
        let out = plan.context.out.clone();
        let sinks: Vec<bool> = plan.stages.iter().map(|s| s.role == Role::Sink).collect();
        let mut ended =
            supervise(&names, &sinks, &options, &mut tasks, &task_stage, &verdict).await;
        // Every sink staged its files (or the run did not complete): publish them
        // together, or none.
        let staged = std::mem::take(
            &mut *publication
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        // The display thread ends at once; joining it must not hold an async thread.
        let _ = tokio::task::spawn_blocking(move || progress.finish()).await;
        let written = rejected_writer
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())));
        let mut staged = staged;
        let completed_anew = run_folder.is_none() && ended.status == RunStatus::Completed;
        let rejected = rejected_written(written, completed_anew, &mut staged);
        // The report as the run will record it if it publishes: the files made
        // from the outputs read it.
        let mut report = RunReport::of_plan(&plan, &context, &options, started_at);
        report.rejected = rejected;
        report.inputs = inputs.await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "could not describe the input files");
            Vec::new()
        });
        fill_report(&mut report, &plan, &stats, &ended);
        if let (Some(review), true) = (&options.review, report.completed) {
            report.health = Some((review.0)(&report, &out));
        }
        if ended.status == RunStatus::Completed {
            // A pipeline that makes its outputs anew holds only what this run made;
            // an incremental one keeps every night's.
            let remove_stale = plan.context.mode != RunMode::Incremental;
            let derivation = options
                .derive
                .clone()
                .map(|derive| (derive, report.preview_json(start)));
            if let Err(failure) = publish(&out, staged, remove_stale, derivation).await {
                ended.failed(failure);
            }
        } else {
            drop(staged);
        }
        if let Some(f) = run_after_publish(&after_publish, ended.status, &names).await {
            ended.failed(f);
        }
        fill_report(&mut report, &plan, &stats, &ended);
        let records_dir = run_folder.as_deref().unwrap_or(&out);
        report.close(start, records_dir);
        keep_run_files(&out, run_folder.as_deref(), history_folder.as_deref());
        drop(out_dir);
        report
    }
}

/// The rejections the run wrote, counted: a pipeline that makes its outputs anew
/// and completed publishes them with its outputs (`staged`); a run that
/// publishes nothing, or an incremental one (in its own folder), writes them as
/// they are.
fn rejected_written(
    written: std::io::Result<(u64, AtomicFile)>,
    completed_anew: bool,
    staged: &mut Vec<Staged>,
) -> u64 {
    match written {
        Ok((n, file)) if completed_anew => {
            staged.push(Staged::File(file));
            n
        }
        Ok((n, file)) => file.commit().map(|()| n).unwrap_or_else(|e| {
            tracing::error!(error = %e, "could not write rejected.jsonl");
            n
        }),
        Err(e) => {
            tracing::error!(error = %e, "could not write rejected.jsonl");
            0
        }
    }
}

/// Keeps the run's `run.json` (and an incremental run's `rejected.jsonl`) where
/// they outlive the next run: a reviewed pipeline's history folder, and the
/// output folder's copy of an incremental run's own.
fn keep_run_files(out: &Path, run_folder: Option<&Path>, history_folder: Option<&Path>) {
    if let Some(folder) = history_folder {
        if let Err(e) = std::fs::copy(out.join("run.json"), folder.join("run.json")) {
            tracing::error!(error = %e, "could not keep the run's run.json in its history folder");
        }
    }
    if let Some(folder) = run_folder {
        for name in ["run.json", "rejected.jsonl"] {
            if let Err(e) = copy_as_latest(folder, out, name) {
                tracing::error!(error = %e, file = name, "could not copy the run's file to the output directory");
            }
        }
    }
}

/// How the stages ended: the run's status, the first failure, and each stage's
/// time.
struct Ended {
    status: RunStatus,
    failure: Option<StageFailure>,
    elapsed: Vec<Option<Duration>>,
}

impl Ended {
    fn failed(&mut self, failure: StageFailure) {
        self.status = RunStatus::Failed;
        self.failure = Some(failure);
    }
}

/// Awaits every stage task: sinks are told to publish once every other stage
/// ended well (`verdict`), the first failure stops the run, a second stop signal
/// aborts it.
async fn supervise(
    names: &[String],
    sinks: &[bool],
    options: &RunOptions,
    tasks: &mut JoinSet<(usize, Result<(), StageError>, Duration)>,
    task_stage: &HashMap<tokio::task::Id, usize>,
    verdict: &tokio::sync::watch::Sender<Option<bool>>,
) -> Ended {
    // Sinks stage their files once every other stage has ended well (see
    // `Transform::stage_files`).
    let mut upstream_left = sinks.iter().filter(|sink| !**sink).count();
    if upstream_left == 0 {
        verdict.send_replace(Some(true));
    }
    let mut ended = Ended {
        status: RunStatus::Completed,
        failure: None,
        elapsed: vec![None; names.len()],
    };
    let mut aborted = false;
    loop {
        tokio::select! {
            biased;
            () = options.abort.cancelled(), if !aborted => {
                aborted = true;
                ended.status = RunStatus::Aborted;
                verdict.send_replace(Some(false));
                tasks.abort_all();
            }
            joined = tasks.join_next_with_id() => {
                let Some(joined) = joined else { break };
                let (i, result) = match joined {
                    Ok((_, (i, result, dt))) => {
                        ended.elapsed[i] = Some(dt);
                        (i, result)
                    }
                    Err(e) if e.is_cancelled() => continue,
                    Err(e) => {
                        let i = task_stage.get(&e.id()).copied().unwrap_or(0);
                        (i, Err(StageError::internal(format!("the stage panicked: {e}"))))
                    }
                };
                let ended_well = matches!(result, Ok(()) | Err(StageError::Stopped));
                if ended_well && !sinks[i] {
                    upstream_left -= 1;
                    if upstream_left == 0 && ended.failure.is_none() && !aborted {
                        // A stopped run publishes nothing: its sinks would hold
                        // only part of the sets.
                        verdict.send_replace(Some(!options.shutdown.is_cancelled()));
                    }
                }
                match result {
                    Ok(()) | Err(StageError::Stopped) => {}
                    Err(e) if ended.failure.is_none() && !aborted => {
                        let name = &names[i];
                        let message = crate::error::chain(&e);
                        tracing::error!(stage = %name, error = %message, "stage failed; stopping the run");
                        ended.failed(StageFailure {
                            stage: Some(name.clone()),
                            domain: e.domain(),
                            message,
                        });
                        verdict.send_replace(Some(false));
                        options.shutdown.cancel();
                        tasks.abort_all();
                    }
                    Err(_) => {}
                }
            }
        }
    }
    if ended.status == RunStatus::Completed && options.shutdown.is_cancelled() {
        ended.status = RunStatus::Interrupted;
    }
    ended
}

/// Publishes what the sinks staged, together (see [`crate::publish`]).
async fn publish(
    out: &Path,
    staged: Vec<Staged>,
    remove_stale: bool,
    derivation: Option<(crate::run_options::Derive, Vec<u8>)>,
) -> Result<(), StageFailure> {
    let published = tokio::task::spawn_blocking({
        let out = out.to_path_buf();
        move || {
            let derivation =
                derivation
                    .as_ref()
                    .map(|(derive, run_json)| crate::publish::Derivation {
                        derive,
                        run_json: run_json.clone(),
                    });
            crate::publish::publish(&out, staged, remove_stale, derivation)
        }
    })
    .await
    .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())));
    published.map(|_| ()).map_err(|e| {
        tracing::error!(error = %e, "could not publish the outputs");
        StageFailure {
            stage: None,
            message: format!("could not publish the outputs in {}: {e}", out.display()),
            domain: crate::error::ErrorDomain::External,
        }
    })
}

/// The report's outcome, stages, cost, what is missing and the inputs' digests.
fn fill_report(report: &mut RunReport, plan: &Plan, stats: &[Arc<StageStats>], ended: &Ended) {
    report.status = ended.status;
    report.completed = ended.status == RunStatus::Completed;
    report.error.clone_from(&ended.failure);
    report.stages = plan
        .stages
        .iter()
        .zip(stats)
        .zip(&ended.elapsed)
        .map(|((s, st), dt)| st.report(&s.name, &s.kind, *dt))
        .collect();
    report.cost = CrawlCost::from_stages(&report.stages, &sink_kinds(plan), &plan.request_kinds);
    // What the published outputs lack: a run that publishes nothing lacks
    // nothing (what a stopped run had not reached yet is not missing).
    if report.completed {
        report.missing = plan
            .stages
            .iter()
            .zip(stats)
            .filter_map(|(s, st)| st.missing_of(&s.name))
            .collect();
        let roles: Vec<Role> = plan.stages.iter().map(|s| s.role).collect();
        // An incremental pipeline, night or `--rebuild`, lists only what is new.
        let incremental = plan.context.mode.incremental_pipeline();
        report.warnings = crate::run_report::warnings_of(&report.stages, &roles, incremental);
    }
    // A file a stage made as its own input, as it is now.
    for (s, st) in plan.stages.iter().zip(stats) {
        for (option, path) in st.pinned() {
            report
                .inputs
                .retain(|i| !(i.stage == s.name && i.option == option));
            report
                .inputs
                .push(crate::input_files::describe_file(&s.name, &option, &path));
        }
    }
    // A file too large to hash apart, hashed by the stage that read it whole.
    for (s, st) in plan.stages.iter().zip(stats) {
        for (option, sha256) in st.digests() {
            report
                .inputs
                .iter_mut()
                .filter(|i| i.stage == s.name && i.option == option && i.sha256.is_none())
                .for_each(|i| i.sha256 = Some(sha256.clone()));
        }
    }
}

/// Runs the stages' [`StageIo::after_publish`] hooks, in pipeline order, when the
/// sinks published (the run completed); the first failure.
async fn run_after_publish(
    hooks: &AfterPublishHooks,
    status: RunStatus,
    names: &[String],
) -> Option<StageFailure> {
    if status != RunStatus::Completed {
        return None;
    }
    let mut hooks = std::mem::take(
        &mut *hooks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    hooks.sort_by_key(|(i, _)| *i);
    for (i, hook) in hooks {
        if let Err(e) = hook().await {
            let message = crate::error::chain(&e);
            tracing::error!(stage = %names[i], error = %message, "could not record the run as published");
            return Some(StageFailure {
                stage: Some(names[i].clone()),
                domain: e.domain(),
                message,
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

/// Copies `name` of a run's folder to `out`, where it stands for the latest run.
fn copy_as_latest(run_folder: &Path, out: &Path, name: &str) -> std::io::Result<()> {
    let mut from = std::fs::File::open(run_folder.join(name))?;
    write_atomically(&out.join(name), |w| std::io::copy(&mut from, w).map(drop))
}
