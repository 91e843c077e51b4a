//! `tempora facts`: the `wikidata` stage alone, from the command line, with progress
//! on stderr. Writes JSONL with a `.meta.json` sidecar that a pipeline's
//! `facts_file` option can reuse.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tempora_engine::UsageError;

use anyhow::Context;
use chrono::NaiveDate;
use tempora_engine::StageStats;

use crate::collect::{OnError, Rejection};
use crate::dump::{read_facts, FactsQuery};
use crate::facts_file::{write_facts, DumpFingerprint, FactsMeta};

/// Read the evolving facts of a Wikidata dump into a JSONL file.
#[derive(Debug, clap::Args)]
pub struct FactsArgs {
    /// The dump: .json.gz (multi-member), .json.bz2, .json.zst or plain .json, told
    /// apart by their first bytes; `-` reads stdin.
    #[arg(value_name = "DUMP")]
    pub dump: String,
    /// Knowledge cutoff for the evolving rule.
    #[arg(long, value_name = "DATE", default_value = "2019-12-31")]
    pub cutoff: NaiveDate,
    /// Relations, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "P39,P1308")]
    pub relations: Vec<String>,
    /// Languages of labels and aliases, comma-separated, in order of preference.
    #[arg(long, value_delimiter = ',', default_value = "en")]
    pub languages: Vec<String>,
    /// A malformed entity line: `skip` (report it and go on) or `fail`.
    #[arg(long, value_name = "skip|fail", default_value = "skip", value_parser = parse_on_error)]
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

fn parse_on_error(s: &str) -> Result<OnError, String> {
    match s {
        "skip" => Ok(OnError::Skip),
        "fail" => Ok(OnError::Fail),
        _ => Err(format!("`{s}` is not `skip` or `fail`")),
    }
}

/// Runs `tempora facts`.
///
/// # Errors
/// A `.parquet` output (that goes through a pipeline's parquet sink), an unreadable or
/// broken dump, an unwritable output.
pub fn run(args: FactsArgs) -> anyhow::Result<()> {
    if args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        return Err(UsageError::new(format!(
            "{}: `tempora facts` writes JSONL only; parquet output goes through a pipeline \
             with a `wikidata` stage and a `parquet` sink (`tempora run`), or convert the JSONL",
            args.output.display()
        ))
        .into());
    }
    let query = FactsQuery {
        relations: args.relations.clone(),
        languages: args.languages.clone(),
        cutoff: args.cutoff,
        on_error: args.on_error,
    };
    let mut rejected_out = match &args.rejected {
        Some(path) => {
            Some(BufWriter::new(File::create(path).with_context(|| {
                format!("cannot create {}", path.display())
            })?))
        }
        None => None,
    };
    let mut rejected = 0u64;
    let mut reject = |r: Rejection| {
        rejected += 1;
        let line = serde_json::json!({"stage": "facts", "reason": r.reason, "location": r.location, "record": r.record});
        match &mut rejected_out {
            Some(out) => {
                let _ = writeln!(out, "{line}");
            }
            None if rejected <= 5 => eprintln!("rejected: {}: {}", r.location, r.reason),
            None => {}
        }
    };
    let stats = Arc::new(StageStats::default());
    let done = Arc::new(AtomicBool::new(false));
    let progress = (!args.quiet).then(|| spawn_progress(stats.clone(), done.clone()));
    let cancel = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let result = read_facts(&args.dump, &query, &stats, &cancel, &mut reject);
    done.store(true, Ordering::Relaxed);
    if let Some(handle) = progress {
        let _ = handle.join();
    }
    let read = result?;
    if let Some(mut out) = rejected_out {
        out.flush().context("cannot write the rejected lines")?;
    }
    let meta = FactsMeta {
        cutoff: args.cutoff,
        relations: args.relations,
        languages: args.languages,
        dump: DumpFingerprint::of(&args.dump),
        facts: read.facts.len(),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    write_facts(&args.output, &read.facts, &meta)?;
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
    Ok(())
}

/// Prints progress to stderr: one updated line on a terminal, a line every 10 s otherwise.
fn spawn_progress(stats: Arc<StageStats>, done: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let terminal = std::io::stderr().is_terminal();
        let every = if terminal {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(10)
        };
        let started = Instant::now();
        let mut last = Instant::now();
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if last.elapsed() < every {
                continue;
            }
            last = Instant::now();
            let line = progress_line(&stats, started.elapsed());
            if terminal {
                eprint!("\r{line}\x1b[K");
            } else {
                eprintln!("{line}");
            }
        }
        if terminal {
            eprint!("\r\x1b[K");
        }
    })
}

fn progress_line(stats: &StageStats, elapsed: Duration) -> String {
    let (done, total, _) = stats.progress();
    let counters = stats.counters();
    let get = |k: &str| counters.get(k).copied().unwrap_or(0);
    let secs = elapsed.as_secs_f64().max(0.001);
    let mb = |b: u64| b as f64 / 1e6;
    let share = if total > 0 {
        done as f64 / total as f64
    } else {
        0.0
    };
    let eta = if share > 0.0 && share < 1.0 {
        format!(", ETA {:.0} s", secs / share - secs)
    } else {
        String::new()
    };
    let of_total = if total > 0 {
        format!("/{:.1} MB ({:.0}%)", mb(total), share * 100.0)
    } else {
        " MB".into()
    };
    format!(
        "{:.1}{of_total}, {} entities ({:.0}/s), {} candidates, {} facts{eta}",
        mb(done),
        get("entities"),
        get("entities") as f64 / secs,
        get("candidates"),
        get("facts"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_shows_bytes_rate_counts_and_eta() {
        let stats = StageStats::default();
        stats.set_progress_total(200_000_000, true);
        stats.set_progress(50_000_000);
        stats.count("entities", 1000);
        stats.count("facts", 3);
        let line = progress_line(&stats, Duration::from_secs(10));
        assert!(
            line.starts_with("50.0/200.0 MB (25%), 1000 entities (100/s)"),
            "{line}"
        );
        assert!(line.ends_with("3 facts, ETA 30 s"), "{line}");
    }

    #[test]
    fn on_error_values() {
        assert_eq!(parse_on_error("fail"), Ok(OnError::Fail));
        assert!(parse_on_error("ignore").is_err());
    }
}
