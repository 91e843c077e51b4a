//! `tempora run`, `validate`, `graph` and `stages`: the pipeline commands.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use tempora_engine::progress::suspend;
use tempora_engine::runtime::PreflightError;
use tempora_engine::{
    ConfigErrors, DryRun, ErrorDomain, Plan, ProgressMode, RunOptions, RunReport, RunStatus,
};

use crate::derived::{self, MadeCard, ManifestPins};
use crate::exit::{self, Outcome};
use crate::prepare::{Prepared, Refusal, Refused};
use crate::registry::registry;

/// A pipeline file and overrides.
#[derive(Debug, clap::Args)]
pub struct PipelineArgs {
    /// The pipeline file (TOML).
    pub pipeline: PathBuf,
    /// Override any key, e.g. `--set pipeline.cutoff=2023-06-30` or
    /// `--set pipeline.sets.future.to=2024-12-31` (the value is TOML, else a string).
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    pub set: Vec<String>,
    /// The run day (UTC) that dates written relative to the run count from
    /// (`cutoff = "run - 365 days"`); default: today.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub as_of: Option<chrono::NaiveDate>,
}

/// How progress is shown.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ProgressArg {
    /// Bars on a terminal, log lines every 10 s otherwise.
    Auto,
    /// Log lines every 10 s.
    Log,
    /// Nothing but the final summary.
    Off,
}

/// `tempora run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Show the plan (stages, queries, politeness, an estimate of requests and
    /// hours) and the problems that would stop the run, but run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run: ask the CDX server how large each URL pattern is (one
    /// request per pattern) instead of estimating from stated assumptions.
    #[arg(long, requires = "dry_run")]
    pub estimate: bool,
    /// Progress display.
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: ProgressArg,
    /// For an incremental pipeline: make the whole accumulated set anew from the
    /// crawl state with this configuration, replacing what earlier nights added
    /// (after a change of cutoff, sets, filters, profiles or lists, which a night
    /// run refuses). Asks the Archive only for what the state lacks.
    #[arg(long, conflicts_with = "dry_run")]
    pub rebuild: bool,
}

fn bad_file(e: &ConfigErrors) -> ExitCode {
    eprintln!("error: {e}");
    exit::usage()
}

/// `args`' file prepared, or the exit code of its refusal (said on stderr).
fn prepared(args: &PipelineArgs) -> Result<Prepared, ExitCode> {
    crate::prepare::load(&args.pipeline, &args.set, args.as_of, false)
        .map_err(|r| bad_file(r.errors()))
}

/// `tempora run --dry-run`: the plan, even when input files or variables are
/// missing; those problems after it, and exit 2 when there is any.
fn dry_run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let Prepared { plan, problems, .. } = match prepared(&args.pipeline) {
        Ok(prepared) => prepared,
        Err(code) => return Ok(code),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let dry = runtime.block_on(DryRun::describe(&plan, problems, args.estimate));
    // A closed pipe (`| head`) is not an error worth a panic.
    let mut stdout = std::io::stdout().lock();
    let _ = write!(stdout, "{dry}");
    Ok(if dry.problems.is_empty() {
        let _ = writeln!(stdout, "\ndry run: nothing was run");
        ExitCode::SUCCESS
    } else {
        exit::usage()
    })
}

/// `tempora validate`: every problem at once, exit 2 when there is any.
pub fn validate(args: &PipelineArgs) -> ExitCode {
    match prepared(args).and_then(|p| p.runnable().map_err(|r| bad_file(&r.errors))) {
        Ok(Prepared { plan, dates, .. }) => {
            println!(
                "{}: ok ({} stages, cutoff {}, output in {})",
                plan.file,
                plan.stages.len(),
                plan.context.cutoff,
                plan.context.out.display()
            );
            if !dates.relative.is_empty() {
                println!("dates relative to the run: {dates}");
            }
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// `tempora graph`: the stage graph as Graphviz dot.
///
/// The graph is drawn from the file alone: unset variables and input files
/// not there yet do not stop it (as `--dry-run`); a problem of the file does.
pub fn graph(args: &PipelineArgs) -> ExitCode {
    match prepared(args) {
        Ok(Prepared { plan, .. }) => {
            print!("{}", plan.to_dot());
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// `tempora stages`: every kind with its ports and options (Markdown).
pub fn stages() -> ExitCode {
    print!("{}", registry().reference());
    ExitCode::SUCCESS
}

/// `tempora run`.
///
/// # Errors
/// Only when the async runtime cannot start.
pub fn run(args: &RunArgs) -> Outcome<ExitCode> {
    if args.dry_run {
        return Ok(dry_run(args)?);
    }
    let given = &args.pipeline;
    let loaded = crate::prepare::load(&given.pipeline, &given.set, given.as_of, args.rebuild);
    let prepared = match loaded {
        Ok(prepared) => prepared,
        Err(Refusal::Unread(e)) => return Ok(bad_file(&e)),
        Err(Refusal::Refused(refused)) => return Ok(refuse(&refused, &run_options(args.progress))),
    };
    let options = RunOptions {
        overrides: args.pipeline.set.clone(),
        review: crate::health::review_of(&prepared.plan, prepared.health.as_ref(), args.rebuild),
        ..run_options(args.progress)
    };
    let pins = prepared.manifest.then_some(ManifestPins::OfThisRun);
    run_prepared(prepared, options, pins)
}

/// Says why a file does not run, and records the refusal in its output
/// folder's `run.json` when there is one to write.
pub fn refuse(refused: &Refused, options: &RunOptions) -> ExitCode {
    eprintln!("error: {}", refused.errors);
    // A release that is out never changes, not even its run.json.
    if crate::monthly::is_release(&refused.file.output_dir()) {
        return exit::usage();
    }
    if let Some(out) =
        tempora_engine::record_refused(&refused.file, &refused.errors, options, &registry())
    {
        eprintln!("recorded in {}", out.join("run.json").display());
    }
    exit::usage()
}

/// The options of a run shown with `progress`, stamped with this binary's version.
pub fn run_options(progress: ProgressArg) -> RunOptions {
    RunOptions {
        progress: match progress {
            ProgressArg::Auto => ProgressMode::Auto,
            ProgressArg::Log => ProgressMode::Log(Duration::from_secs(10)),
            ProgressArg::Off => ProgressMode::Off,
        },
        version: env!("CARGO_PKG_VERSION").to_string(),
        commit: env!("TEMPORA_GIT_COMMIT").to_string(),
        dirty: env!("TEMPORA_GIT_DIRTY").parse().ok(),
        ..RunOptions::default()
    }
}

/// Runs a prepared file (`tempora run` and `tempora rebuild`); with `manifest`,
/// the run publishes the manifest's pins beside it; with a release, its
/// commitment to what it held back; with Parquet output, the dataset card: all
/// in the same publication as the sets (see [`crate::derived`]).
///
/// # Errors
/// Only when the async runtime cannot start.
pub fn run_prepared(
    prepared: Prepared,
    options: RunOptions,
    manifest: Option<ManifestPins>,
) -> Outcome<ExitCode> {
    let Prepared {
        plan,
        release,
        monthly,
        ..
    } = match prepared.runnable() {
        Ok(prepared) => prepared,
        Err(refused) => return Ok(refuse(&refused, &options)),
    };
    let mut options = options;
    let out = plan.context.out.clone();
    let declared = tempora_manifest::inputs::declared(&plan);
    // A rebuild says which of its site profiles changed since the manifest (the
    // plan already holds what each stage declares: no second planning).
    if let Some(ManifestPins::Original(pinned)) = &manifest {
        for change in pinned.changed_since(&declared) {
            println!("note: {change}: articles it reads otherwise are named");
        }
    }
    let facts = plan
        .stages
        .iter()
        .any(|s| s.name == tempora_manifest::attach::SINKS[2]);
    // The card, the manifest's pins and the commitment are published with the sets.
    let (derive, card) = derived::derive(derived::Of {
        out: out.clone(),
        pins: manifest,
        declared,
        facts,
        release: release.clone(),
        monthly: monthly.clone(),
    });
    options.derive = Some(derive);
    let report = match run_plan(plan, options)? {
        Ok(report) => report,
        Err(
            e @ (PreflightError::OutDir { .. }
            | PreflightError::WouldReplace { .. }
            | PreflightError::ConfigChanged { .. }),
        ) => {
            eprintln!("error: {}", tempora_engine::error::chain(&e));
            return Ok(exit::usage());
        }
        Err(e) => {
            eprintln!("error: {}", tempora_engine::error::chain(&e));
            return Ok(exit::failure());
        }
    };
    print_summary(&report, &out);
    if report.status == RunStatus::Completed {
        print_card(&out, &card);
        if let Some(folder) = &monthly {
            let key = release.as_ref().map(|r| r.key.as_path());
            match crate::monthly::after_release(folder, key) {
                Ok(lines) => lines.iter().for_each(|line| println!("{line}")),
                Err(e) => {
                    eprintln!("error: release {} is out, but {e:#}", folder.monthly.name());
                    return Ok(exit::failure());
                }
            }
        }
    }
    Ok(exit_code(&report))
}

/// Runs `plan` on a multi-threaded runtime, stopped by the first Ctrl-C or
/// SIGTERM and aborted by the second.
///
/// # Errors
/// Only when the async runtime cannot start.
fn run_plan(plan: Plan, options: RunOptions) -> anyhow::Result<Result<RunReport, PreflightError>> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let name = plan.context.name.clone();
    let out = plan.context.out.clone();
    Ok(runtime.block_on(async move {
        let shutdown = options.shutdown.clone();
        let abort = options.abort.clone();
        tokio::spawn(async move {
            let mut stops = StopSignals::new();
            if stops.next().await {
                suspend(|| eprintln!("\nstopping: sources closed, what was fetched is kept for the next run, nothing is published (Ctrl-C again to abort)"));
                shutdown.cancel();
            }
            if stops.next().await {
                suspend(|| eprintln!("\naborting: outputs of this run are not published"));
                abort.cancel();
            }
        });
        tracing::info!(pipeline = %name, out = %out.display(), "starting");
        tempora_engine::run(plan, options).await
    }))
}

/// The exit code of a run that ran (see [`crate::exit`]).
fn exit_code(report: &RunReport) -> ExitCode {
    let warned =
        crate::health::of(report).is_some_and(|h| h.status == tempora_health::Status::Warn);
    match report.status {
        RunStatus::Completed if !report.missing.is_empty() || !report.warnings.is_empty() => {
            exit::partial()
        }
        RunStatus::Completed if warned => exit::health_warning(),
        RunStatus::Completed => ExitCode::SUCCESS,
        RunStatus::Failed
            if report
                .error
                .as_ref()
                .is_some_and(|e| e.domain == ErrorDomain::Temporary) =>
        {
            exit::try_later()
        }
        RunStatus::Failed => exit::failure(),
        RunStatus::Interrupted | RunStatus::Aborted => exit::interrupted(),
    }
}

/// Ctrl-C (SIGINT) and, on Unix, SIGTERM (what cron, systemd and `kill` send):
/// both stop a run the same way.
struct StopSignals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    fn new() -> Self {
        Self {
            #[cfg(unix)]
            term: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok(),
        }
    }

    /// Waits for the next stop signal; false when none can come.
    async fn next(&mut self) -> bool {
        #[cfg(unix)]
        if let Some(term) = self.term.as_mut() {
            return tokio::select! {
                c = tokio::signal::ctrl_c() => c.is_ok(),
                t = term.recv() => t.is_some(),
            };
        }
        tokio::signal::ctrl_c().await.is_ok()
    }
}

fn print_summary(report: &RunReport, out: &std::path::Path) {
    let width = report
        .stages
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    println!(
        "{:<width$}  {:<14} {:>10} {:>10} {:>9} {:>8}",
        "stage", "kind", "in", "out", "rejected", "seconds"
    );
    for s in &report.stages {
        println!(
            "{:<width$}  {:<14} {:>10} {:>10} {:>9} {:>8.2}",
            s.name, s.kind, s.records_in, s.records_out, s.rejected, s.seconds
        );
    }
    let mut files: Vec<String> = report
        .stages
        .iter()
        .flat_map(tempora_engine::stats::StageReport::files_written)
        .map(|(file, n)| format!("{file} ({})", records(n)))
        .collect();
    files.sort();
    println!();
    println!("status: {:?} in {:.2} s", report.status, report.seconds);
    for m in &report.missing {
        println!(
            "incomplete: {} {} {} (stage {}; listed in run.json and {})",
            m.count,
            m.what,
            m.why,
            m.stage,
            out.join("rejected.jsonl").display()
        );
    }
    for w in &report.warnings {
        println!("warning: stage `{}` {}", w.stage, w.why);
    }
    for line in crate::health::of(report)
        .into_iter()
        .flat_map(tempora_health::Health::lines)
    {
        println!("{line}");
    }
    if report.status == RunStatus::Interrupted {
        println!("nothing published: the outputs in {} are those of the last completed run; run the same command again to go on (what was fetched is kept)", out.display());
    }
    if let Some(e) = &report.error {
        let stage = e.stage.as_deref().unwrap_or("(none)");
        println!("failed stage: {stage} ({}): {}", e.domain, e.message);
    }
    if !files.is_empty() {
        println!("wrote in {}: {}", out.display(), files.join(", "));
    }
    println!(
        "rejected: {} in {}; report: {}",
        records(report.rejected),
        out.join("rejected.jsonl").display(),
        out.join("run.json").display()
    );
}

/// Says what card the run published: its configs and path, or why none.
fn print_card(out: &std::path::Path, card: &MadeCard) {
    match &*card
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        Some(card) => {
            crate::commands::card::print_card(card);
            println!("dataset card: {}", out.join("README.md").display());
        }
        None => {
            println!("dataset card: none (no Parquet output; add a `parquet` sink for one)");
        }
    }
}

/// `1 record`, `14 records`.
fn records(n: u64) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}
