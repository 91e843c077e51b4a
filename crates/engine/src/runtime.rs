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
use crate::cost::CrawlCost;
use crate::error::StageError;
use crate::fingerprint::FINGERPRINT;
use crate::input_files::{self, InputFile};
use crate::out_dir::{check_writable, OutDir};
use crate::plan::Plan;
pub use crate::preflight::PreflightError;
use crate::preflight::{keep_earlier_runs, same_configuration};
use crate::progress::Progress;
use crate::publish::{Publication, Staged};
use crate::records::{RecordKind, Rejected};
use crate::registry::Role;
use crate::run_options::RunOptions;
use crate::run_report::{RunReport, RunStatus, StageFailure};
use crate::runs::RunId;
use crate::stage::{AfterPublishHooks, Message, OutPort, StageIo};
use crate::stats::StageStats;

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
pub fn start(mut plan: Plan, options: RunOptions) -> Result<Running, PreflightError> {
    let started_at = Utc::now();
    let start = Instant::now();
    let out = plan.context.out.clone();
    check_writable(&out).map_err(|source| PreflightError::OutDir {
        path: out.clone(),
        source,
    })?;
    let out_dir = OutDir::claim(&out)?;
    plan.context.run = RunId::new(started_at);
    // An incremental pipeline adds to its folder, unless it is rebuilt.
    let incremental = plan.incremental_stage().map(str::to_string);
    plan.context.incremental = incremental.is_some() && !options.rebuild;
    plan.context.rebuild = incremental.is_some() && options.rebuild;
    let run_folder = match &incremental {
        Some(incremental) => Some(keep_earlier_runs(&mut plan, incremental, options.rebuild)?),
        None => None,
    };
    let reads = input_files::named_by(&plan);
    // An incremental pipeline fingerprints its input files before it starts;
    // run.json records the same description.
    let described = incremental.as_ref().map(|_| input_files::describe(&reads));
    let fingerprint = match (&described, &run_folder) {
        (Some(inputs), Some(folder)) => match same_configuration(&plan, options.rebuild, inputs) {
            Ok(fingerprint) => Some(fingerprint),
            Err(refused) => {
                let _ = std::fs::remove_dir(folder);
                return Err(refused);
            }
        },
        _ => None,
    };
    let records_dir = run_folder.clone().unwrap_or_else(|| out.clone());

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
                report.inputs = described.unwrap_or_else(|| input_files::describe(&reads));
                report.close(start, &out);
                return Err(PreflightError::Build { stage, source });
            }
        }
    }
    // Hashing the inputs reads them: off the async threads, beside the run (once).
    let inputs = match described {
        Some(inputs) => tokio::spawn(async move { inputs }),
        None => tokio::task::spawn_blocking(move || input_files::describe(&reads)),
    };

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
    let after_publish = AfterPublishHooks::default();
    let publication = Publication::default();
    if let Some(fingerprint) = fingerprint {
        // Published with the outputs: what built them.
        let path = out.join(FINGERPRINT);
        let file = AtomicFile::with_contents(&path, fingerprint.to_json().as_bytes())
            .map_err(|source| PreflightError::OutDir { path, source })?;
        if let Ok(mut staged) = publication.lock() {
            staged.push(Staged::File(file));
        }
    }
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
            publication: publication.clone(),
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
        publication,
        out_dir,
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
            inputs,
            run_folder,
            progress,
            started_at,
            start,
            verdict,
            after_publish,
            publication,
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
                            // A stopped run publishes nothing: its sinks would hold
                            // only part of the sets.
                            let completed = !options.shutdown.is_cancelled();
                            verdict.send_replace(Some(completed));
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
        // Every sink staged its files (or the run did not complete): publish them
        // together, or none.
        let staged = std::mem::take(
            &mut *publication
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        if status == RunStatus::Completed {
            // A pipeline that makes its outputs anew holds only what this run made;
            // an incremental one keeps every night's.
            let remove_stale = !plan.context.incremental;
            let published = tokio::task::spawn_blocking({
                let out = out.clone();
                move || crate::publish::publish(&out, staged, remove_stale)
            })
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())));
            if let Err(e) = published {
                tracing::error!(error = %e, "could not publish the outputs");
                status = RunStatus::Failed;
                failure = Some(StageFailure {
                    stage: None,
                    message: format!("could not publish the outputs in {}: {e}", out.display()),
                    domain: crate::error::ErrorDomain::External,
                });
            }
        } else {
            drop(staged);
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
            .map(|((s, st), dt)| st.report(&s.name, &s.kind, *dt))
            .collect();
        report.cost =
            CrawlCost::from_stages(&report.stages, &sink_kinds(&plan), &plan.request_kinds);
        report.rejected = rejected;
        // What the published outputs lack: a run that publishes nothing lacks
        // nothing (what a stopped run had not reached yet is not missing).
        if report.completed {
            report.missing = plan
                .stages
                .iter()
                .zip(&stats)
                .filter_map(|(s, st)| st.missing_of(&s.name))
                .collect();
        }
        report.inputs = inputs.await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "could not describe the input files");
            Vec::new()
        });
        // A file too large to hash apart, hashed by the stage that read it whole.
        for (s, st) in plan.stages.iter().zip(&stats) {
            for (option, sha256) in st.digests() {
                report
                    .inputs
                    .iter_mut()
                    .filter(|i| i.stage == s.name && i.option == option && i.sha256.is_none())
                    .for_each(|i| i.sha256 = Some(sha256.clone()));
            }
        }
        if let (Some(review), true, true) =
            (&options.review, run_folder.is_some(), report.completed)
        {
            report.health = Some((review.0)(&report, &out));
        }
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

/// Copies `name` of a run's folder to `out`, where it stands for the latest run.
fn copy_as_latest(run_folder: &Path, out: &Path, name: &str) -> std::io::Result<()> {
    let mut from = std::fs::File::open(run_folder.join(name))?;
    write_atomically(&out.join(name), |w| std::io::copy(&mut from, w).map(drop))
}
