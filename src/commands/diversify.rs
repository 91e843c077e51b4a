//! `tempora diversify`: lexically diverse training subsets, one per threshold.

use crate::exit::Outcome;
use std::fmt::Write as _;
use std::path::PathBuf;

use tempora_engine::UsageError;
use tempora_novelty::overlap::DEFAULT_N;
use tempora_novelty::subsets::{write_subsets, SubsetSize};
use tempora_novelty::training::Format;

/// Select lexically diverse training subsets (Choubey et al. 2023, section 5.1):
/// shuffle with the seed, keep a sample only if no n-gram's count in the kept set
/// then exceeds the threshold. Writes one file per threshold in DIR
/// (`max-repeats-<N>.<jsonl|txt|parquet>`, the records as read) and
/// `diversify.json`, and prints the sizes.
#[derive(Debug, clap::Args)]
pub struct DiversifyArgs {
    /// Training files, all of one format: JSONL, Parquet or text.
    #[arg(long, required = true, num_args = 1..)]
    pub train: Vec<PathBuf>,
    /// Thresholds: most occurrences of one n-gram in a subset, comma-separated.
    #[arg(long, required = true, value_delimiter = ',')]
    pub max_repeats: Vec<u16>,
    /// Shuffle seed: the same seed gives the same subsets.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// N-gram size, in word tokens.
    #[arg(short = 'n', long = "ngram", default_value_t = DEFAULT_N)]
    pub n: usize,
    /// The summary field of JSONL and Parquet records.
    #[arg(long, default_value = "summary")]
    pub field: String,
    /// Output directory (created if missing).
    #[arg(short = 'o', long)]
    pub output: PathBuf,
}

/// Runs `tempora diversify`.
///
/// # Errors
/// Bad options, unreadable or malformed inputs, or outputs that cannot be written.
pub fn run(args: DiversifyArgs) -> Outcome {
    let format = Format::of(&args.train[0]);
    if let Some(other) = args.train.iter().find(|p| Format::of(p) != format) {
        return Err(UsageError::new(format!(
            "{}: all --train files must be of one format ({} is {:?})",
            other.display(),
            args.train[0].display(),
            format
        ))
        .into());
    }
    if format == Format::Parquet && args.train.len() > 1 {
        return Err(UsageError::new(
            "give one Parquet file (or JSONL/text files, as many as you like)",
        )
        .into());
    }
    if let Some(zero) = args.max_repeats.iter().find(|t| **t == 0) {
        return Err(UsageError::new(format!(
            "--max-repeats {zero}: a threshold must be at least 1"
        ))
        .into());
    }
    let drawn = write_subsets(
        &args.train,
        &args.field,
        args.n,
        args.seed,
        &args.max_repeats,
        &args.output,
    )?;
    print!("{}", size_table(drawn.samples, &drawn.subsets));
    Ok(())
}

/// The subset sizes as Markdown (the paper's table 8).
fn size_table(samples: usize, subsets: &[SubsetSize]) -> String {
    let mut table = String::from("| max repeats | samples | share |\n|---|---|---|\n");
    let _ = writeln!(table, "| all | {samples} | 100.0% |");
    for s in subsets {
        let share = if samples == 0 {
            0.0
        } else {
            100.0 * s.size as f64 / samples as f64
        };
        let _ = writeln!(table, "| {} | {} | {share:.1}% |", s.max_repeats, s.size);
    }
    table
}
