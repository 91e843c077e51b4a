//! The `tempora` command line: parses arguments and calls the crates. No stage
//! logic lives here: [`pipeline`] runs pipeline files, and each module of
//! [`commands`] runs one crate's work on files through the functions its stage
//! calls.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

mod commands;
mod derived;
mod exit;
mod health;
mod memory;
mod monthly;
mod pipeline;
mod prepare;
mod registry;
mod release;

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
    /// Judge every office-holder claim in a model's summaries against the facts at
    /// each article's date (current, outdated, former, not_yet, never, unknown).
    Score(commands::score::ScoreArgs),
    /// Write an lm-evaluation-harness task per set of a folder (and a group of
    /// them), so the harness runs a model on the sets and `tempora score` reads its
    /// samples.
    Harness(commands::harness::HarnessArgs),
    /// Rebuild a set from its manifest (`manifest.jsonl`): fetch exactly its
    /// captures, check each, publish the same files, with no listing, dump or
    /// exclusion list.
    Rebuild(commands::rebuild::RebuildArgs),
    /// Publish the part of the sets a run held back (`[pipeline.release]`), once
    /// each withheld file and the key match what the folder committed to.
    Reveal(commands::reveal::RevealArgs),
    /// Write a folder to publish, with none of the publishers' text: the manifest,
    /// the facts, the scores without text, `run.json` and a card of its own.
    Publish(commands::publish::PublishArgs),
    /// Write the dataset report of an output directory (report.md, report.json, charts).
    Report(commands::report::ReportArgs),
    /// Write the dataset card (README.md) of an output folder: Hugging Face configs,
    /// features and provenance, so `datasets.load_dataset(DIR)` loads the sets.
    Card(commands::card::CardArgs),
}

fn main() -> ExitCode {
    memory::one_arena_per_core();
    let cli = Cli::parse();
    // `-q`: warnings and errors only, unless RUST_LOG says otherwise.
    let quiet = matches!(&cli.command, Command::Facts(args) if args.quiet);
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new(if quiet { "warn" } else { "info" })),
        )
        .with_writer(tempora_engine::progress::log_writer)
        .with_ansi(tempora_engine::progress::colour_on_stderr())
        .init();
    let result = match cli.command {
        Command::Run(args) => pipeline::run(&args),
        Command::Validate(args) => Ok(pipeline::validate(&args)),
        Command::Graph(args) => Ok(pipeline::graph(&args)),
        Command::Stages => Ok(pipeline::stages()),
        Command::Facts(args) => commands::facts::run(args),
        Command::Cdx(args) => tokio::runtime::Runtime::new()
            .map_err(exit::Failure::from)
            .and_then(|rt| rt.block_on(commands::cdx::run(args)))
            .map(|()| ExitCode::SUCCESS),
        Command::Extract(args) => commands::extract::run(args).map(|()| ExitCode::SUCCESS),
        Command::Pairs(args) => commands::pairs::run(args).map(|()| ExitCode::SUCCESS),
        Command::EvalExtract(args) => commands::eval_extract::run(args).map(|()| ExitCode::SUCCESS),
        Command::Novelty(args) => commands::novelty::run(args).map(|()| ExitCode::SUCCESS),
        Command::Diversify(args) => commands::diversify::run(args).map(|()| ExitCode::SUCCESS),
        Command::Score(args) => commands::score::run(&args),
        Command::Harness(args) => commands::harness::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Rebuild(args) => commands::rebuild::run(&args),
        Command::Reveal(args) => commands::reveal::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Publish(args) => commands::publish::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Report(args) => commands::report::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Card(args) => commands::card::run(&args).map(|()| ExitCode::SUCCESS),
    };
    result.unwrap_or_else(|failure| {
        eprintln!("error: {failure}");
        failure.code()
    })
}
