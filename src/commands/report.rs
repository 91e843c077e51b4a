//! `tempora report DIR`.

use crate::exit::Outcome;
use std::path::PathBuf;

use anyhow::Context as _;

/// Write the dataset report of an output directory: `report.md`, `report.json` and
/// charts (`charts/*.svg`, `*.png`).
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The directory: a pipeline's `out` (JSONL or Parquet article files, `run.json`),
    /// or any directory of summarization data with `summary` and `document` fields.
    pub dir: PathBuf,
}

/// Runs `tempora report`: writes the report and prints where, with a line per set.
///
/// # Errors
/// No such folder (bad usage); see [`tempora_report::write_report`].
pub fn run(args: &ReportArgs) -> Outcome {
    super::output_folder(&args.dir)?;
    let written = tempora_report::write_report(&args.dir)
        .with_context(|| format!("report of {}", args.dir.display()))?;
    for (name, set) in &written.report.sets {
        let mean = |m: &tempora_report::tables::MeanMedian| m.mean.unwrap_or(f64::NAN);
        println!(
            "{name}: {} articles, coverage {:.3}, density {:.2}, compression {:.2}",
            set.articles,
            mean(&set.coverage),
            mean(&set.density),
            mean(&set.compression)
        );
    }
    println!(
        "wrote {} and {} ({} charts)",
        written.markdown.display(),
        written.json.display(),
        written.report.charts.len()
    );
    Ok(())
}
