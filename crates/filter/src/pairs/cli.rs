//! `tempora pairs`: the `minimal-pairs` stage on files, with the stage's code.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use tempora_engine::UsageError;

use anyhow::Context as _;
use chrono::NaiveDate;
use tempora_engine::{Article, FactError, Record};

use super::{timelines, Outcome, PairMaker};
use crate::conflicts::facts::read_facts_file;

/// Write outdated-fact minimal pairs (BUMP-style records) for articles that went
/// through `conflicts`.
#[derive(Debug, clap::Args)]
pub struct PairsArgs {
    /// Articles as JSON lines, with `facts` (a `jsonl` sink's output after `conflicts`).
    #[arg(long, value_name = "FILE.jsonl")]
    pub articles: PathBuf,
    /// Evolving facts as JSON lines (`tempora facts -o FILE.jsonl`).
    #[arg(long, value_name = "FILE.jsonl")]
    pub facts: PathBuf,
    /// Knowledge cutoff the facts were computed for.
    #[arg(long, value_name = "DATE", default_value = "2019-12-31")]
    pub cutoff: NaiveDate,
    /// Output file (.jsonl), sorted as the `jsonl` sink sorts; written under a
    /// temporary name and renamed when complete.
    #[arg(short, long, value_name = "FILE.jsonl")]
    pub output: PathBuf,
}

/// Runs `tempora pairs`.
///
/// # Errors
/// A `.parquet` output, an unreadable file, a line that is not an article or a
/// fact (naming file, line and field), facts made for another cutoff, an
/// unwritable output.
pub fn run(args: PairsArgs) -> anyhow::Result<()> {
    if args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        return Err(UsageError::new(format!(
            "{}: `tempora pairs` writes JSONL only; Parquet goes through a pipeline with a \
             `minimal-pairs` stage and a `parquet` sink (`tempora run`)",
            args.output.display()
        ))
        .into());
    }
    let facts = read_facts_file(&args.facts)?;
    let maker = PairMaker::new(
        timelines(facts, args.cutoff)?,
        args.cutoff,
        vec![FactError::Outdated, FactError::NonVerifiable],
    );
    let mut records = Vec::new();
    let mut counts = std::collections::BTreeMap::<&str, u64>::new();
    for (line_no, article) in read_articles(&args.articles)? {
        let (outcome, pairs) = maker.pairs(&article);
        *counts.entry(outcome.counter()).or_default() += 1;
        if outcome == Outcome::Pairs {
            tracing::debug!(line = line_no, pairs = pairs.len(), "pairs made");
        }
        records.extend(pairs.into_iter().map(|p| Record::Pair(Box::new(p))));
    }
    records.sort_by_cached_key(Record::sort_key);
    write_records(&args.output, &records)?;
    let counts: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    eprintln!(
        "{} pairs ({}); wrote {}",
        records.len(),
        counts.join(", "),
        args.output.display()
    );
    Ok(())
}

/// The articles of a JSONL file with their line numbers; blank lines skipped.
fn read_articles(path: &Path) -> anyhow::Result<Vec<(usize, Article)>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut articles = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{}:{}: cannot read", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let article = serde_json::from_str(&line)
            .with_context(|| format!("{}:{}: not an article", path.display(), i + 1))?;
        articles.push((i + 1, article));
    }
    Ok(articles)
}

/// Writes `records` as JSON lines through the engine's atomic write (a temporary
/// file renamed into place).
fn write_records(path: &Path, records: &[Record]) -> anyhow::Result<()> {
    tempora_engine::runtime::write_atomically(path, |out| {
        for record in records {
            record.write_json(&mut *out)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))
}
