//! `tempora novelty`: the `novelty` stage's scoring, binning and tagging, on files.

use crate::exit::Outcome;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tempora_engine::{Rejected, UsageError};
use tempora_novelty::bins::{Bins, SetBins, DEFAULT_MIN_BIN};
use tempora_novelty::output::write_jsonl;
use tempora_novelty::overlap::{TrainingIndex, DEFAULT_N};
use tempora_novelty::test_records::read_records;
use tempora_novelty::training::summary_of_record;

/// Score test summaries by their n-gram overlap with training summaries and bin them.
/// Every test record is written to OUT with a `novelty {overlap, bin, tag}` object,
/// in input order; records whose summary has no n-gram go to
/// `<OUT without .jsonl>.rejected.jsonl` with the reason. The bin table is printed.
#[derive(Debug, clap::Args)]
pub struct NoveltyArgs {
    /// Training summaries: JSONL, Parquet (a Hugging Face export as it is) or text
    /// with one summary per line, told apart by extension.
    #[arg(long, required = true, num_args = 1..)]
    pub train: Vec<PathBuf>,
    /// Test records: JSONL or Parquet (text: one summary per line).
    #[arg(long, required = true, num_args = 1..)]
    pub test: Vec<PathBuf>,
    /// N-gram size, in word tokens.
    #[arg(short = 'n', long = "ngram", default_value_t = DEFAULT_N)]
    pub n: usize,
    /// The summary field of training records (`highlights` for CNN/DailyMail).
    #[arg(long, default_value = "summary")]
    pub field: String,
    /// The summary field of test records; by default `--field`.
    #[arg(long)]
    pub test_field: Option<String>,
    /// Least number of records per bin (5-point bins merge upwards until each holds
    /// this many).
    #[arg(long, default_value_t = DEFAULT_MIN_BIN)]
    pub min_bin: usize,
    /// Output JSONL file.
    #[arg(short = 'o', long)]
    pub output: PathBuf,
}

/// The set the test files make: one, as a pipeline's set before `split`.
const TEST_SET: &str = "";

/// Runs `tempora novelty`.
///
/// # Errors
/// Unreadable or malformed inputs (naming file, line and field), or an output that
/// cannot be written.
pub fn run(args: NoveltyArgs) -> Outcome {
    if args.min_bin == 0 {
        return Err(UsageError::new("--min-bin must be at least 1").into());
    }
    let index = TrainingIndex::build(&args.train, &args.field, args.n)?;
    if index.summaries() == 0 {
        // Every overlap would be 0: a set binned against nothing.
        let files: Vec<String> = args.train.iter().map(|p| p.display().to_string()).collect();
        return Err(UsageError::new(format!(
            "--train {}: no training summary in field `{}`; every overlap would be 0",
            files.join(" "),
            args.field
        ))
        .into());
    }
    eprintln!(
        "indexed {} training summaries: {} distinct {}-grams",
        index.summaries(),
        index.set().len(),
        index.n()
    );
    let field = args.test_field.as_deref().unwrap_or(&args.field);
    let mut scored = Vec::new();
    let mut rejected = Vec::new();
    for path in &args.test {
        for (location, record) in read_records(path, field)? {
            let summary = summary_of_record(&record, field)
                .map_err(|message| anyhow::anyhow!("{location}: {message}"))?;
            match index.score(&summary) {
                Ok(overlap) => scored.push((record, overlap)),
                Err(too_short) => rejected.push(Rejected {
                    stage: "novelty".into(),
                    reason: too_short.to_string(),
                    location: Some(location),
                    record: serde_json::Value::Object(record),
                }),
            }
        }
    }
    let bins = SetBins::draw(scored.iter().map(|(_, o)| (TEST_SET, *o)), args.min_bin);
    let mut tagged = Vec::with_capacity(scored.len());
    for (mut record, overlap) in scored {
        // The set's bins were drawn over these very overlaps.
        let novelty = bins
            .novelty(TEST_SET, overlap)
            .ok_or_else(|| anyhow::anyhow!("overlap {overlap} is outside every bin"))?;
        record.insert("novelty".into(), serde_json::to_value(novelty)?);
        tagged.push(record);
    }
    write_jsonl(&args.output, tagged)?;
    let rejected_path = sibling(&args.output, "rejected.jsonl");
    if rejected.is_empty() {
        // A stale file from an earlier run would belie this one.
        let _ = std::fs::remove_file(&rejected_path);
    } else {
        write_jsonl(&rejected_path, &rejected)?;
        eprintln!(
            "{} records without a {}-gram: {}",
            rejected.len(),
            index.n(),
            rejected_path.display()
        );
    }
    print!(
        "{}",
        bin_table(bins.of(TEST_SET).unwrap_or(&Bins::default()))
    );
    Ok(())
}

/// The bin table as Markdown.
fn bin_table(bins: &Bins) -> String {
    let mut table = String::from("| bin | records | tag |\n|---|---|---|\n");
    for bin in bins.bins() {
        let _ = writeln!(
            table,
            "| {} | {} | {} |",
            bin.range,
            bin.count,
            bin.tag.unwrap_or("")
        );
    }
    table
}

/// `path` with its `.jsonl` extension replaced by `.{suffix}`.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!("{stem}.{suffix}"))
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;

    #[test]
    fn the_defaults_are_the_stages() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: NoveltyArgs,
        }
        let cli = Cli::parse_from(["novelty", "--train", "t", "--test", "x", "-o", "o"]).args;
        let table = toml::from_str("train = \"t\"").unwrap();
        let stage: tempora_novelty::NoveltyOptions = tempora_engine::parse_options(table).unwrap();
        assert_eq!(
            (cli.field, cli.n, cli.min_bin),
            (stage.field, stage.n, stage.min_bin)
        );
    }
}
