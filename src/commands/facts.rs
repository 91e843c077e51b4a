//! `tempora facts`: the `wikidata` stage's reading alone, from the command line,
//! with the runtime's progress display on stderr. Writes JSONL with a `.meta.json`
//! sidecar that a pipeline's `facts_file` option can reuse.

use crate::exit::Outcome;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use chrono::NaiveDate;
use tempora_engine::progress::{suspend, Progress};
use tempora_engine::{OnError, ProgressMode, Rejected, StageStats, UsageError};
use tempora_wikidata::facts_file::{write_facts, FactsMeta};
use tempora_wikidata::live::stage::{LiveConfig, LiveOptions};
use tempora_wikidata::relations::AskedFacts;
use tempora_wikidata::{read_facts, FactsQuery, Rejection};

/// Read the evolving facts of a Wikidata dump into a JSONL file.
#[derive(Debug, clap::Args)]
pub struct FactsArgs {
    /// The dump: .json.gz (multi-member), .json.bz2, .json.zst or plain .json, told
    /// apart by their first bytes; `-` reads stdin. Not with `--live`.
    #[arg(
        value_name = "DUMP",
        required_unless_present = "live",
        conflicts_with = "live"
    )]
    pub dump: Option<String>,
    /// Read Wikidata's live services (query service and API) instead of a dump:
    /// the entities are pinned in `--reading`, and only those changed since it
    /// are read again.
    #[arg(long, requires_all = ["reading", "contact"])]
    pub live: bool,
    /// With `--live`: the pinned reading (a gzip file in the dump's line format,
    /// with a `.meta.json` beside it), read and rewritten.
    #[arg(long, value_name = "FILE.json.gz")]
    pub reading: Option<PathBuf>,
    /// With `--live`: your contact (email or URL) for the User-Agent, as
    /// Wikimedia's policy requires.
    #[arg(long, value_name = "EMAIL|URL")]
    pub contact: Option<String>,
    /// With `--live`: the SPARQL endpoint.
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://query.wikidata.org/sparql"
    )]
    pub query_endpoint: String,
    /// With `--live`: the Wikibase API endpoint.
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://www.wikidata.org/w/api.php"
    )]
    pub api_endpoint: String,
    /// Knowledge cutoff for the evolving rule.
    #[arg(long, value_name = "DATE", default_value = "2019-12-31")]
    pub cutoff: NaiveDate,
    /// Relations, comma-separated: property ids (`P54`) or the relation
    /// catalogue's names (`head-coach`); the facts file records the ids.
    #[arg(long, value_delimiter = ',', default_value = "P39,P1308")]
    pub relations: Vec<String>,
    /// A folder of more relation catalogue entries (`*.toml`), whose names
    /// `--relations` may use beside the shipped ones.
    #[arg(long, value_name = "DIR")]
    pub catalogue: Option<PathBuf>,
    /// Languages of labels and aliases, comma-separated, in order of preference.
    #[arg(long, value_delimiter = ',', default_value = "en")]
    pub languages: Vec<String>,
    /// A malformed entity line: `skip` (report it and go on) or `fail`.
    #[arg(long, value_name = "skip|fail", default_value = "skip")]
    pub on_error: OnError,
    /// Output file (.jsonl); a `.meta.json` sidecar is written beside it.
    #[arg(short, long, value_name = "FILE.jsonl")]
    pub output: PathBuf,
    /// Where rejected lines and statements go (JSONL); by default they are counted
    /// and the first few are printed.
    #[arg(long, value_name = "FILE")]
    pub rejected: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `tempora facts`.
///
/// # Errors
/// A `.parquet` output (that goes through a pipeline's parquet sink), relations or
/// languages the stage would refuse, an unreadable or broken dump, an unwritable
/// output.
pub fn run(args: FactsArgs) -> Outcome<ExitCode> {
    let query = query_of(&args)?;
    output_folder(&args.output)?;
    let (dump, problem) = match &args.dump {
        Some(dump) => (dump.clone(), None),
        None => live_reading(&args, &query)?,
    };
    let input = if args.live { "reading" } else { "dump" };
    let mut problems: Vec<String> = problem.into_iter().collect();
    problems.extend(read(&args, &query, &dump, input)?);
    for problem in &problems {
        eprintln!("warning: {problem}");
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        crate::exit::partial()
    })
}

/// Reads the live services into the pinned reading (`--live`): its path, and
/// why it is the last reading's when the services could not be read.
fn live_reading(args: &FactsArgs, query: &FactsQuery) -> Outcome<(String, Option<String>)> {
    let usage = |problems: Vec<tempora_engine::OptionError>| {
        let said: Vec<String> = problems
            .iter()
            .map(|p| {
                format!(
                    "--{}: {}",
                    p.key.as_deref().unwrap_or("live").replace('_', "-"),
                    p.message
                )
            })
            .collect();
        UsageError::new(said.join("; "))
    };
    let (Some(reading), Some(contact)) = (&args.reading, &args.contact) else {
        return Err(UsageError::new("--live needs --reading and --contact").into());
    };
    let options = LiveOptions {
        reading: reading.clone(),
        contact: Some(contact.clone()),
        user_agent: None,
        refresh_after: None,
        query_endpoint: args.query_endpoint.clone(),
        api_endpoint: args.api_endpoint.clone(),
        query_rate: tempora_http::politeness::WIKIDATA_QUERY_RATE,
        api_rate: tempora_http::politeness::WIKIDATA_API_RATE,
        maxlag: 5,
        relations: query.relations.clone(),
        catalogue: None,
        languages: query.languages.clone(),
        cutoff: Some(query.cutoff),
        on_error: query.on_error,
    };
    let config = LiveConfig::new(options, query.cutoff).map_err(usage)?;
    let stats = Arc::new(StageStats::default());
    let stop = tokio_util::sync::CancellationToken::new();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let pinned = runtime
        .block_on(async {
            let ctrl_c = stop.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    ctrl_c.cancel();
                }
            });
            config.pinned_reading(&stats, &stop, true).await
        })?
        .ok_or_else(|| anyhow::anyhow!("interrupted before the reading was pinned"))?;
    if !args.quiet {
        if let Some(refresh) = &pinned.refresh {
            eprintln!(
                "read Wikidata: {} entities found, {} objects; {} read (new or changed), {} unchanged, {} dropped; {} facts changed; {} queries, {} API reads",
                refresh.found, refresh.objects, refresh.changed, refresh.unchanged, refresh.dropped, refresh.facts_changed, refresh.queries, refresh.reads
            );
        }
        eprintln!(
            "reading of {}: {} entities, SHA-256 {} ({})",
            pinned.meta.read_at.format("%Y-%m-%d %H:%M UTC"),
            pinned.meta.entities,
            pinned.meta.sha256,
            reading.display()
        );
    }
    Ok((reading.display().to_string(), pinned.problem))
}

/// Reads the facts of `dump` (a dump, or a pinned reading: `input`) into
/// `--output`; what the run should warn of: the relations it holds no statement of.
fn read(args: &FactsArgs, query: &FactsQuery, dump: &str, input: &str) -> Outcome<Vec<String>> {
    let mut rejected = RejectedLines::open(args.rejected.as_deref())?;
    let stats = Arc::new(StageStats::default());
    // The runtime's display: a bar with bytes and ETA on a terminal, log lines otherwise.
    let progress = Progress::start(
        if args.quiet {
            ProgressMode::Off
        } else {
            ProgressMode::Auto
        },
        vec![("facts".to_string(), stats.clone())],
    );
    let cancel = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let result = read_facts(dump, query, &stats, &cancel, &mut |r| rejected.push(r));
    progress.finish();
    let read = result?;
    let rejected = rejected.finish()?;
    let meta = FactsMeta::new(query, Some(dump), &read.facts);
    write_facts(&args.output, &read.facts, &meta)?;
    let lacking = read
        .relations
        .iter()
        .filter(|t| t.statements == 0)
        .map(|t| t.line(input))
        .collect();
    if args.quiet {
        return Ok(lacking);
    }
    eprintln!(
        "{} entities, {} candidates, {} facts{} in {:.1} s; {} rejected; wrote {}",
        read.entities,
        read.candidates,
        read.facts.len(),
        if read.second_pass {
            " (second pass for object names)"
        } else {
            ""
        },
        started.elapsed().as_secs_f64(),
        rejected,
        args.output.display()
    );
    for tally in read.relations.iter().filter(|t| t.statements > 0) {
        eprintln!("{}", tally.line(input));
    }
    Ok(lacking)
}

/// Makes the folder of `-o FILE` before the dump is read (hours for the real
/// one), or says why it cannot be, so no run ends without its output.
fn output_folder(output: &std::path::Path) -> Result<(), UsageError> {
    if output.is_dir() {
        return Err(UsageError::new(format!(
            "-o {}: is a folder; give the facts file's name (FILE.jsonl)",
            output.display()
        )));
    }
    match output.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(folder) => std::fs::create_dir_all(folder).map_err(|e| {
            UsageError::new(format!(
                "-o {}: cannot make its folder {}: {e}",
                output.display(),
                folder.display()
            ))
        }),
        None => Ok(()),
    }
}

/// The stage's query of the arguments.
///
/// # Errors
/// A `.parquet` output, or options the `wikidata` stage would refuse (usage errors).
fn query_of(args: &FactsArgs) -> Result<FactsQuery, UsageError> {
    if args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        return Err(UsageError::new(format!(
            "{}: `tempora facts` writes JSONL only; parquet output goes through a pipeline \
             with a `wikidata` stage and a `parquet` sink (`tempora run`), or convert the JSONL",
            args.output.display()
        )));
    }
    let (query, problems) = AskedFacts {
        relations: &args.relations,
        catalogue: args.catalogue.as_deref(),
        languages: &args.languages,
        cutoff: args.cutoff,
        on_error: args.on_error,
    }
    .query();
    // `relations[1]` is the stage's key; the command line has one `--relations`.
    let problems: Vec<String> = problems
        .into_iter()
        .map(|p| {
            let key = p.key.as_deref().unwrap_or("relations");
            let option = key.split('[').next().unwrap_or(key);
            format!("--{option}: {}", p.message)
        })
        .collect();
    if !problems.is_empty() {
        return Err(UsageError::new(problems.join("; ")));
    }
    Ok(query)
}

/// The dump lines the stage rejects: to `--rejected` in the shape of the
/// pipelines' `rejected.jsonl`, else the first five on stderr.
struct RejectedLines {
    out: Option<BufWriter<File>>,
    count: u64,
}

impl RejectedLines {
    fn open(path: Option<&std::path::Path>) -> anyhow::Result<Self> {
        let out = match path {
            Some(path) => {
                Some(BufWriter::new(File::create(path).with_context(|| {
                    format!("cannot create {}", path.display())
                })?))
            }
            None => None,
        };
        Ok(Self { out, count: 0 })
    }

    fn push(&mut self, r: Rejection) {
        self.count += 1;
        match &mut self.out {
            Some(out) => {
                let line = Rejected {
                    stage: "facts".into(),
                    reason: r.reason,
                    location: Some(r.location),
                    record: r.record,
                };
                if serde_json::to_writer(&mut *out, &line).is_ok() {
                    let _ = out.write_all(b"\n");
                }
            }
            None if self.count <= 5 => {
                suspend(|| eprintln!("rejected: {}: {}", r.location, r.reason));
            }
            None => {}
        }
    }

    /// How many were rejected, once the file is written.
    fn finish(self) -> anyhow::Result<u64> {
        if let Some(mut out) = self.out {
            out.flush().context("cannot write the rejected lines")?;
        }
        Ok(self.count)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        facts: FactsArgs,
    }

    #[test]
    fn on_error_is_read_from_the_command_line() {
        let parse = |value: &str| {
            Cli::try_parse_from(["facts", "dump.json", "-o", "f.jsonl", "--on-error", value])
                .map(|cli| cli.facts.on_error)
        };
        assert_eq!(parse("fail").unwrap(), OnError::Fail);
        let err = parse("ignore").err().unwrap().to_string();
        assert!(err.contains("`ignore` is not `skip` or `fail`"), "{err}");
    }

    #[test]
    fn the_defaults_are_the_stages() {
        let cli = Cli::parse_from(["facts", "dump.json", "-o", "f.jsonl"]);
        let table = toml::from_str("dump = \"dump.json\"").unwrap();
        let stage: tempora_wikidata::WikidataOptions =
            tempora_engine::parse_options(table).unwrap();
        assert_eq!(cli.facts.relations, stage.relations);
        assert_eq!(cli.facts.languages, stage.languages);
        assert_eq!(cli.facts.on_error, stage.on_error);
    }

    #[test]
    fn relations_the_stage_refuses_are_refused() {
        let cli = Cli::parse_from(["facts", "-", "-o", "f.jsonl", "--relations", "P39,X1"]);
        let err = run(cli.facts).unwrap_err();
        assert!(matches!(err, crate::exit::Failure::Usage(_)), "{err}");
        assert!(
            err.to_string()
                .starts_with("--relations: unknown relation `X1`: give a property id (`P54`)"),
            "{err}"
        );
    }
}
