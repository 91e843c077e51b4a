//! `tempora novelty` and `tempora diversify`: the stage's scoring and binning, and
//! the subset selection, on files.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempora_engine::UsageError;

use anyhow::Context as _;

use crate::bins::{Bins, DEFAULT_MIN_BIN};
use crate::diversify::{select, shuffled, SampleNgrams, Subset};
use crate::overlap::{TrainingIndex, DEFAULT_N};
use crate::stage::round;
use crate::training::{summary_of_record, Format};

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

/// Runs `tempora novelty`.
///
/// # Errors
/// Unreadable or malformed inputs (naming file, line and field), or an output that
/// cannot be written.
pub fn run_novelty(args: NoveltyArgs) -> anyhow::Result<()> {
    if args.min_bin == 0 {
        return Err(UsageError::new("--min-bin must be at least 1").into());
    }
    let index = TrainingIndex::build(&args.train, &args.field, args.n)?;
    eprintln!(
        "indexed {} training summaries: {} distinct {}-grams",
        index.summaries(),
        index.set().len(),
        index.n()
    );
    let field = args.test_field.as_deref().unwrap_or(&args.field);
    let mut records = Vec::new();
    let mut rejected = Vec::new();
    for path in &args.test {
        for (location, record) in read_test_records(path, field)? {
            let summary = summary_of_record(&record, field)
                .map_err(|message| anyhow::anyhow!("{location}: {message}"))?;
            match index.overlap(&summary) {
                Some(o) => records.push((record, round(o.percent()))),
                None => {
                    // The shape of the pipelines' `rejected.jsonl`.
                    let mut rejection = JsonRecord::new();
                    rejection.insert("stage".into(), "novelty".into());
                    rejection.insert(
                        "reason".into(),
                        format!("the summary has fewer than {} word tokens", index.n()).into(),
                    );
                    rejection.insert("location".into(), location.into());
                    rejection.insert("record".into(), serde_json::Value::Object(record));
                    rejected.push(rejection);
                }
            }
        }
    }
    let overlaps: Vec<f64> = records.iter().map(|(_, o)| *o).collect();
    let bins = Bins::of(&overlaps, args.min_bin);
    write_jsonl(
        &args.output,
        records.into_iter().map(|(mut record, overlap)| {
            // Every overlap has a bin: bins tile 0-100 and `records` is not empty here.
            let bin = bins.find(overlap);
            record.insert(
                "novelty".into(),
                serde_json::json!({
                    "overlap": overlap,
                    "bin": bin.map(|b| b.range.as_str()),
                    "tag": bin.and_then(|b| b.tag),
                }),
            );
            record
        }),
    )?;
    let rejected_path = sibling(&args.output, "rejected.jsonl");
    if rejected.is_empty() {
        // A stale file from an earlier run would belie this one.
        let _ = std::fs::remove_file(&rejected_path);
    } else {
        write_jsonl(&rejected_path, rejected.iter().cloned())?;
        eprintln!(
            "{} records without a {}-gram: {}",
            rejected.len(),
            index.n(),
            rejected_path.display()
        );
    }
    print!("{}", bin_table(&bins));
    Ok(())
}

/// The bin table as Markdown.
pub fn bin_table(bins: &Bins) -> String {
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

type JsonRecord = serde_json::Map<String, serde_json::Value>;

/// Test records of one file, each with its location (`file, line N` or `row N`).
fn read_test_records(path: &Path, field: &str) -> anyhow::Result<Vec<(String, JsonRecord)>> {
    let shown = path.display();
    let mut records = Vec::new();
    match Format::of(path) {
        Format::Parquet => {
            let file = File::open(path).with_context(|| format!("{shown}"))?;
            let lines =
                tempora_sink::parquet::read_json_lines(file).with_context(|| format!("{shown}"))?;
            for (i, line) in lines
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .enumerate()
            {
                let record: JsonRecord = serde_json::from_slice(line)
                    .with_context(|| format!("{shown}, row {}", i + 1))?;
                records.push((format!("{shown}, row {}", i + 1), record));
            }
        }
        format => {
            let text = std::fs::read_to_string(path).with_context(|| format!("{shown}"))?;
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let location = format!("{shown}, line {}", i + 1);
                let record = if format == Format::Jsonl {
                    serde_json::from_str(line)
                        .with_context(|| format!("{location}: not a JSON object"))?
                } else {
                    let mut record = JsonRecord::new();
                    record.insert(field.to_string(), line.into());
                    record
                };
                records.push((location, record));
            }
        }
    }
    Ok(records)
}

/// `path` with its `.jsonl` extension replaced by `.{suffix}`.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!("{stem}.{suffix}"))
}

/// Writes records as JSON lines to `path`, atomically (a temporary file renamed).
fn write_jsonl(path: &Path, records: impl Iterator<Item = JsonRecord>) -> anyhow::Result<()> {
    write_atomically(path, |out| {
        for record in records {
            serde_json::to_writer(&mut *out, &record)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// Creates `path` (and its directory) through the engine's atomic write: an
/// interrupted run leaves no file that looks complete.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&File>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
    }
    tempora_engine::runtime::write_atomically(path, |out| {
        write(out).map_err(|e| std::io::Error::other(format!("{e:#}")))
    })
    .with_context(|| format!("{}", path.display()))
}

/// Runs `tempora diversify`.
///
/// # Errors
/// Bad options, unreadable or malformed inputs, or outputs that cannot be written.
pub fn run_diversify(args: DiversifyArgs) -> anyhow::Result<()> {
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
    let samples = SampleNgrams::read(&args.train, &args.field, args.n)?;
    let order = shuffled(samples.samples(), args.seed);
    let mut subsets: Vec<Subset> = Vec::new();
    for &max_repeats in &args.max_repeats {
        let subset = select(&samples, &order, max_repeats);
        let path = args
            .output
            .join(format!("max-repeats-{max_repeats}.{}", format.extension()));
        if format == Format::Parquet {
            write_atomically(&path, |out| {
                crate::training::write_selected_parquet(
                    &args.train[0],
                    &subset.kept,
                    out.get_ref(),
                )?;
                Ok(())
            })?;
        } else {
            write_atomically(&path, |out| {
                crate::training::write_selected_lines(&args.train, &subset.kept, out)?;
                Ok(())
            })?;
        }
        subsets.push(subset);
    }
    let summary = serde_json::json!({
        "train": args.train,
        "field": args.field,
        "n": args.n,
        "seed": args.seed,
        "samples": samples.samples(),
        "subsets": subsets.iter().map(|s| serde_json::json!({
            "max_repeats": s.max_repeats,
            "size": s.size,
        })).collect::<Vec<_>>(),
    });
    write_atomically(&args.output.join("diversify.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    print!("{}", size_table(samples.samples(), &subsets));
    Ok(())
}

/// The subset sizes as Markdown (the paper's table 8).
pub fn size_table(samples: usize, subsets: &[Subset]) -> String {
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
