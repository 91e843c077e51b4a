//! The `tempora` command line: parses arguments and calls the crates. No stage
//! logic lives here: [`pipeline`] runs pipeline files, and each module of
//! [`commands`] runs one crate's work on files through the functions its stage
//! calls.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

mod commands;
mod health;
mod memory;
mod pipeline;
mod registry;
mod release;

/// Exit codes: 0 ok, 1 runtime failure, 2 bad usage or pipeline file, 23 completed
/// with items missing (run again to retry them), 24 completed, but a refresh's
/// figures are far outside the runs before it (look at run.json's `health`), 75 a
/// service asked us to wait (run again later), 130 interrupted.
mod exit {
    use std::process::ExitCode;

    /// A stage or command failed at run time.
    pub fn failure() -> ExitCode {
        ExitCode::from(1)
    }
    /// Bad usage or a bad pipeline file.
    pub fn usage() -> ExitCode {
        ExitCode::from(2)
    }
    /// The run completed and published its outputs, but some items could not be
    /// had (pages the Archive did not serve after every attempt): the same
    /// command again retries them. As rsync exits 23 on a partial transfer.
    pub fn partial() -> ExitCode {
        ExitCode::from(23)
    }
    /// The run completed and published its outputs, but its health check found
    /// figures far outside the runs before it (a layout no profile reads, a
    /// section the Archive stopped capturing): someone should look. Distinct from
    /// 23 (which a rerun may mend); as rsync's 24 says source files vanished.
    pub fn health_warning() -> ExitCode {
        ExitCode::from(24)
    }
    /// An external service asks us to wait (IP block, rate limit): run again later
    /// (`EX_TEMPFAIL`, which cron wrappers and systemd can act on).
    pub fn try_later() -> ExitCode {
        ExitCode::from(75)
    }

    /// Stopped by Ctrl-C or SIGTERM (nothing published; run.json says `interrupted`).
    pub fn interrupted() -> ExitCode {
        ExitCode::from(130)
    }
}

/// Tempora builds temporally split evaluation sets for NLP: news articles published
/// after a model's knowledge cutoff that state facts which changed after it.
#[derive(Debug, Parser)]
#[command(name = "tempora", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a pipeline file.
    Run(pipeline::RunArgs),
    /// Check a pipeline file and list every problem.
    Validate(pipeline::PipelineArgs),
    /// Print a pipeline's stage graph as Graphviz dot.
    Graph(pipeline::PipelineArgs),
    /// List every stage kind with its ports and options.
    Stages,
    /// Find evolving facts in a Wikidata JSON dump.
    Facts(commands::facts::FactsArgs),
    /// List Wayback Machine captures of a URL pattern as JSON lines.
    Cdx(commands::cdx::CdxArgs),
    /// Extract articles from archived HTML pages (one JSON line per page).
    Extract(commands::extract::ExtractArgs),
    /// Score extraction against a folder of pages with expected fields.
    EvalExtract(commands::eval_extract::EvalArgs),
    /// Score test summaries by n-gram overlap with training summaries, and bin them.
    Novelty(commands::novelty::NoveltyArgs),
    /// Select lexically diverse training subsets, one per repeat threshold.
    Diversify(commands::diversify::DiversifyArgs),
    /// Write outdated-fact minimal pairs for articles that went through `conflicts`.
    Pairs(commands::pairs::PairsArgs),
    /// Rebuild a set from its manifest (`manifest.jsonl`): fetch exactly its
    /// captures, check each, publish the same files, with no listing, dump or
    /// exclusion list.
    Rebuild(commands::rebuild::RebuildArgs),
    /// Publish the part of the sets a run held back (`[pipeline.release]`), once
    /// each withheld file and the key match what the folder committed to.
    Reveal(commands::reveal::RevealArgs),
    /// Write the dataset report of an output directory (report.md, report.json, charts).
    Report(commands::report::ReportArgs),
    /// Write the dataset card (README.md) of an output folder: Hugging Face configs,
    /// features and provenance, so `datasets.load_dataset(DIR)` loads the sets.
    Card(commands::card::CardArgs),
}

fn main() -> ExitCode {
    memory::one_arena_per_core();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(tempora_engine::progress::log_writer)
        .with_ansi(tempora_engine::progress::colour_on_stderr())
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => pipeline::run(&args),
        Command::Validate(args) => Ok(pipeline::validate(&args)),
        Command::Graph(args) => Ok(pipeline::graph(&args)),
        Command::Stages => Ok(pipeline::stages()),
        Command::Facts(args) => commands::facts::run(args).map(|()| ExitCode::SUCCESS),
        Command::Cdx(args) => tokio::runtime::Runtime::new()
            .map_err(anyhow::Error::from)
            .and_then(|rt| rt.block_on(commands::cdx::run(args)))
            .map(|()| ExitCode::SUCCESS),
        Command::Extract(args) => commands::extract::run(args).map(|()| ExitCode::SUCCESS),
        Command::Pairs(args) => commands::pairs::run(args).map(|()| ExitCode::SUCCESS),
        Command::EvalExtract(args) => commands::eval_extract::run(args).map(|()| ExitCode::SUCCESS),
        Command::Novelty(args) => commands::novelty::run(args).map(|()| ExitCode::SUCCESS),
        Command::Diversify(args) => commands::diversify::run(args).map(|()| ExitCode::SUCCESS),
        Command::Rebuild(args) => commands::rebuild::run(&args),
        Command::Reveal(args) => commands::reveal::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Report(args) => commands::report::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Card(args) => commands::card::run(&args).map(|()| ExitCode::SUCCESS),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        let asks_to_wait = |c: &(dyn std::error::Error + 'static)| {
            c.downcast_ref::<tempora_wayback::WaybackError>()
                .is_some_and(tempora_wayback::WaybackError::asks_to_wait)
                || matches!(
                    c.downcast_ref::<tempora_engine::StageError>(),
                    Some(tempora_engine::StageError::Temporary(_))
                )
        };
        if e.chain().any(|c| c.is::<tempora_engine::UsageError>()) {
            exit::usage()
        } else if e.chain().any(asks_to_wait) {
            exit::try_later()
        } else {
            exit::failure()
        }
    })
}
