//! `tempora rebuild`: a set rebuilt from its manifest, with no listing, dump or
//! exclusion list: the pinned pipeline, its listing replaced by the manifest's
//! captures (see `tempora_manifest::rebuild`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use tempora_manifest::inputs::ManifestInputs;
use tempora_manifest::read::read_manifest;
use tempora_manifest::rebuild::{rebuild_pipeline, ArchiveFlags};

use crate::derived::ManifestPins;
use crate::exit::{self, Outcome};
use crate::pipeline::{refuse as refuse_run, run_options, run_prepared, ProgressArg};
use crate::registry::registry;

/// Arguments of `tempora rebuild`.
#[derive(Debug, clap::Args)]
pub struct RebuildArgs {
    /// The manifest (`manifest.jsonl` of a Tempora output folder), with
    /// `manifest.inputs.json` and `manifest.facts.jsonl` beside it.
    pub manifest: PathBuf,
    /// The folder to publish the rebuilt sets in.
    #[arg(long)]
    pub out: PathBuf,
    /// The Wayback Machine to ask (default: the pinned pipeline's).
    #[arg(long)]
    pub endpoint: Option<String>,
    /// Your contact (email or URL), sent in the User-Agent as the Archive asks of crawlers.
    #[arg(long)]
    pub contact: Option<String>,
    /// Page requests a minute (default: the pinned pipeline's, else 80% of the
    /// Archive's published limit).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Override any key of the rebuild pipeline (`--set stages.pages.concurrency=2`).
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    pub set: Vec<String>,
    /// State the plan (captures, page requests, hours at the rate) and run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Progress display.
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: ProgressArg,
}

/// Runs `tempora rebuild`.
///
/// # Errors
/// Only when the async runtime cannot start.
pub fn run(args: &RebuildArgs) -> Outcome<ExitCode> {
    // As the user named it when it cannot be found (the refusal says so).
    let manifest = std::fs::canonicalize(&args.manifest).or_else(|_| absolute(&args.manifest))?;
    let rows = match read_manifest(&manifest) {
        Ok(rows) => rows,
        Err(e) => return Ok(refuse(&e)),
    };
    let inputs = match ManifestInputs::beside(&manifest) {
        Ok(inputs) => inputs,
        Err(e) => return Ok(refuse(&e)),
    };
    let flags = ArchiveFlags {
        endpoint: args.endpoint.clone(),
        contact: args.contact.clone(),
        playback_rate: args.rate,
    };
    let out = absolute(&args.out)?;
    let file = match rebuild_pipeline(&manifest, &inputs, &out, &flags, &args.set, &registry()) {
        Ok(file) => file,
        Err(e) => return Ok(refuse(&e)),
    };
    let captures = rows
        .iter()
        .map(|r| (&r.timestamp, &r.archived_url))
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if args.dry_run {
        let rate = playback_rate(&file);
        let hours = if rate > 0.0 {
            format!(
                "about {:.1} hours at {rate} page requests a minute",
                captures as f64 / rate / 60.0
            )
        } else {
            "no rate limit".into()
        };
        println!(
            "rebuild of {} from {}: {} articles, {captures} captures: {captures} page requests \
             (none for pages the crawl state holds), no CDX request; {hours}\n\
             outputs in {}\n\ndry run: nothing was run",
            inputs.pipeline,
            manifest.display(),
            rows.len(),
            out.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "rebuilding {} from {}: {} articles, {captures} captures",
        inputs.pipeline,
        manifest.display(),
        rows.len()
    );
    let options = tempora_engine::RunOptions {
        overrides: args.set.clone(),
        rebuilt_from: Some(serde_json::to_value(&inputs).context("the manifest's inputs")?),
        ..run_options(args.progress)
    };
    let prepared = match crate::prepare::prepare(file, false) {
        Ok(prepared) => prepared,
        Err(refused) => return Ok(refuse_run(&refused, &options)),
    };
    run_prepared(
        prepared,
        options,
        Some(ManifestPins::Original(Box::new(inputs))),
    )
}

fn refuse(e: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("error: {e}");
    exit::usage()
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("{}: no absolute path", path.display()))
}

/// The rebuild's page requests a minute: the fetch stages' `archive.playback_rate`.
fn playback_rate(file: &tempora_engine::PipelineFile) -> f64 {
    use tempora_http::politeness::{ARCHIVE_PLAYBACK_LIMIT, CLIENT_SHARE};
    tempora_manifest::rebuild::playback_rate(file, &registry())
        .unwrap_or(ARCHIVE_PLAYBACK_LIMIT * CLIENT_SHARE)
}
