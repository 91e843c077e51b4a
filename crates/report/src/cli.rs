//! `tempora report DIR`.

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
/// See [`crate::write_report`].
pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let written = crate::write_report(&args.dir)
        .with_context(|| format!("report of {}", args.dir.display()))?;
    for (name, set) in &written.report.sets {
        let mean = |m: &crate::tables::MeanMedian| m.mean.unwrap_or(f64::NAN);
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

/// Write the dataset card of an output folder (`README.md`: Hugging Face configs,
/// features, split sizes, provenance), from its Parquet files and `run.json`.
#[derive(Debug, clap::Args)]
pub struct CardArgs {
    /// The output folder of `tempora run`.
    pub dir: PathBuf,
}

/// Runs `tempora card`: writes `README.md` and prints its configs and splits.
///
/// # Errors
/// See [`crate::card::write_card`]; nothing is written then.
pub fn run_card(args: &CardArgs) -> anyhow::Result<()> {
    let card = crate::card::write_card(&args.dir)
        .with_context(|| format!("dataset card of {}", args.dir.display()))?;
    print_card(&card);
    println!("wrote {}", args.dir.join("README.md").display());
    Ok(())
}

/// One line per config: its splits and rows.
pub fn print_card(card: &crate::card::Card) {
    for config in &card.configs {
        let splits: Vec<String> = config
            .splits
            .iter()
            .map(|(split, files)| {
                format!("{split} ({})", files.iter().map(|f| f.rows).sum::<u64>())
            })
            .collect();
        println!("{}: {}", config.name, splits.join(", "));
    }
}
