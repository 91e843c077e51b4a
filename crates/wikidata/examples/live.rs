//! A reading of Wikidata's live services through the library, as the
//! `wikidata-live` stage makes it, against any endpoints (the testkit's model,
//! `mock-wikidata DUMP PORT`): the requests it sent, the entities found and
//! read, the pinned file's size, the facts per relation read from it, and the
//! hours the same requests take at the polite defaults. With a reading already
//! at `--reading`, a refresh: only the entities changed since are read.
//! `cargo run -p tempora-wikidata --release --example live -- --query URL --api URL --reading FILE.json.gz [--relations P54] [--cutoff 2019-12-31]`
//! (the requests go out unpaced: the model has no limits; the hours are
//! computed at the defaults).

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use tempora_engine::StageStats;
use tempora_http::politeness::{WIKIDATA_API_RATE, WIKIDATA_QUERY_RATE};
use tempora_wikidata::live::stage::{LiveConfig, LiveOptions};
use tokio_util::sync::CancellationToken;

const USAGE: &str = "usage: live --query URL --api URL --reading FILE.json.gz [--relations P54,...] [--cutoff DATE]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let mut table = toml::Table::new();
    table.insert("contact".into(), "bench@example.org".into());
    // Unpaced: the model has no limits, and the hours are computed below.
    table.insert("query_rate".into(), 1e9.into());
    table.insert("api_rate".into(), 1e9.into());
    let mut cutoff = "2019-12-31".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or(USAGE)?;
        match arg.as_str() {
            "--query" => table.insert("query_endpoint".into(), value.into()),
            "--api" => table.insert("api_endpoint".into(), value.into()),
            "--reading" => table.insert("reading".into(), value.into()),
            "--relations" => table.insert(
                "relations".into(),
                value
                    .split(',')
                    .map(toml::Value::from)
                    .collect::<Vec<_>>()
                    .into(),
            ),
            "--cutoff" => {
                cutoff = value;
                None
            }
            _ => return Err(USAGE.into()),
        };
    }
    let options: LiveOptions =
        tempora_engine::parse_options(table).map_err(|e| format!("{USAGE}: {e:?}"))?;
    let reading = options.reading.clone();
    let config = LiveConfig::new(options, cutoff.parse()?).map_err(|e| format!("{e:?}"))?;
    let stats = Arc::new(StageStats::default());
    let started = Instant::now();
    let pinned = tokio::runtime::Runtime::new()?
        .block_on(config.pinned_reading(&stats, &CancellationToken::new(), true))?
        .ok_or("stopped")?;
    let seconds = started.elapsed().as_secs_f64();
    if let Some(problem) = &pinned.problem {
        return Err(problem.clone().into());
    }
    let refresh = pinned.refresh.unwrap_or_default();
    let minutes =
        refresh.queries as f64 / WIKIDATA_QUERY_RATE + refresh.reads as f64 / WIKIDATA_API_RATE;
    println!(
        "{} queries, {} API reads in {seconds:.1} s; at the defaults ({WIKIDATA_QUERY_RATE} queries and {WIKIDATA_API_RATE} reads a minute) {:.2} hours",
        refresh.queries,
        refresh.reads,
        minutes / 60.0
    );
    println!(
        "entities: {} found, {} objects; {} read, {} unchanged, {} dropped; {} facts changed",
        refresh.found,
        refresh.objects,
        refresh.changed,
        refresh.unchanged,
        refresh.dropped,
        refresh.facts_changed
    );
    facts_of(&config, reading)
}

/// Reads the pinned reading as the stage does, and says what it holds.
fn facts_of(config: &LiveConfig, reading: PathBuf) -> Result<(), Box<dyn Error>> {
    let size = std::fs::metadata(&reading)?.len();
    let read = tempora_wikidata::read_facts(
        &reading.display().to_string(),
        config.query(),
        &StageStats::default(),
        &Arc::new(AtomicBool::new(false)),
        &mut |_| {},
    )?;
    println!(
        "pinned {}: {size} bytes, {} entities, {} facts",
        reading.display(),
        read.entities,
        read.facts.len()
    );
    for tally in &read.relations {
        println!("{}", tally.line("reading"));
    }
    Ok(())
}
