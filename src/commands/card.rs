//! `tempora card DIR`, and the lines that name a card's configs (also printed by
//! `tempora run` when it rewrites the card).

use crate::exit::Outcome;
use std::path::PathBuf;

use anyhow::Context as _;
use tempora_report::card::Card;

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
/// See [`tempora_report::card::write_card`]; nothing is written then.
pub fn run(args: &CardArgs) -> Outcome {
    super::output_folder(&args.dir)?;
    let card = tempora_report::card::write_card(&args.dir)
        .with_context(|| format!("dataset card of {}", args.dir.display()))?;
    print_card(&card);
    println!("wrote {}", args.dir.join("README.md").display());
    Ok(())
}

/// One line per config: its splits and rows.
pub fn print_card(card: &Card) {
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
