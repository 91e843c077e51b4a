//! The evolving facts of a dump into a facts file (with its `.meta.json` sidecar)
//! through the library, without building the `tempora` binary (which links
//! polars): the defaults of `tempora facts` (P39 and P1308, English names, cutoff
//! 2019-12-31) or `--relations`, progress on stderr unless `--quiet`.
//! `cargo run -p tempora-wikidata --release --example facts -- DUMP -o facts.jsonl [--relations P39,P54] [--quiet]`
//! (`tempora facts` has every option).

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tempora_engine::progress::Progress;
use tempora_engine::{ProgressMode, StageStats};
use tempora_wikidata::facts_file::{write_facts, FactsMeta};
use tempora_wikidata::{read_facts, FactsQuery, WikidataOptions};

const USAGE: &str = "usage: facts DUMP -o FILE.jsonl [--relations P39,P54,...] [--quiet]";

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
    let (mut dump, mut output, mut quiet, mut relations) = (None, None, false, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-o" | "--output" => output = Some(PathBuf::from(args.next().ok_or(USAGE)?)),
            "-q" | "--quiet" => quiet = true,
            "--relations" => {
                let list = args.next().ok_or(USAGE)?;
                relations = Some(list.split(',').map(str::to_string).collect::<Vec<_>>());
            }
            _ => dump = Some(arg),
        }
    }
    let (Some(dump), Some(output)) = (dump, output) else {
        return Err(USAGE.into());
    };
    // The stage's defaults, read as a pipeline with an empty `wikidata` table.
    let options: WikidataOptions = tempora_engine::parse_options(toml::Table::new())
        .map_err(|e| format!("the stage's default options: {e:?}"))?;
    let query = FactsQuery {
        relations: relations.unwrap_or(options.relations),
        languages: options.languages,
        cutoff: "2019-12-31".parse()?,
        on_error: options.on_error,
    };
    let stats = Arc::new(StageStats::default());
    let mode = if quiet {
        ProgressMode::Off
    } else {
        ProgressMode::Auto
    };
    let progress = Progress::start(mode, vec![("facts".to_string(), stats.clone())]);
    let mut rejected = 0u64;
    let cancel = Arc::new(AtomicBool::new(false));
    let read = read_facts(&dump, &query, &stats, &cancel, &mut |_| rejected += 1);
    progress.finish();
    let read = read?;
    let meta = FactsMeta::new(&query, Some(&dump), &read.facts);
    write_facts(&output, &read.facts, &meta)?;
    eprintln!(
        "{} entities, {} facts{}; {rejected} rejected; wrote {}",
        read.entities,
        read.facts.len(),
        if read.second_pass {
            " (second pass for object names)"
        } else {
            ""
        },
        output.display()
    );
    for tally in &read.relations {
        eprintln!("{}", tally.line("dump"));
    }
    Ok(())
}
