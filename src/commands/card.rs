//! `tempora card DIR`, and the lines that name a card's configs (also printed by
//! `tempora run` when it rewrites the card).

use crate::exit::Outcome;
use std::path::PathBuf;

use anyhow::Context as _;
use tempora_report::card::layout::DataFile;
use tempora_report::card::releases::{self, CollectionCard};
use tempora_report::card::Card;

/// Write the dataset card of an output folder (`README.md`: Hugging Face configs,
/// features, split sizes, provenance), from its Parquet files and `run.json`; of
/// a collection of monthly releases (`YYYY-MM/` folders, no `run.json`), its
/// index card, one config per release.
#[derive(Debug, clap::Args)]
pub struct CardArgs {
    /// The output folder of `tempora run`, or a collection of its releases.
    pub dir: PathBuf,
}

/// Runs `tempora card`: writes `README.md` and prints its configs and splits.
///
/// # Errors
/// See [`tempora_report::card::write_card`]; nothing is written then.
pub fn run(args: &CardArgs) -> Outcome {
    super::output_folder(&args.dir)?;
    if releases::is_collection(&args.dir) {
        let card = releases::write_collection_card(&args.dir)
            .with_context(|| format!("index card of the releases in {}", args.dir.display()))?;
        print_collection_card(&card);
        println!("wrote {}", args.dir.join("README.md").display());
        return Ok(());
    }
    let card = tempora_report::card::write_card(&args.dir)
        .with_context(|| format!("dataset card of {}", args.dir.display()))?;
    print_card(&card);
    println!("wrote {}", args.dir.join("README.md").display());
    Ok(())
}

/// One line per config: its splits and rows.
pub fn print_card(card: &Card) {
    for config in &card.configs {
        println!("{}: {}", config.name, splits_line(&config.splits));
    }
    for set in &card.empty_sets {
        println!("{}: empty, {}", set.name, set.why());
    }
}

/// One line per release: its config's splits and rows, or that it has none to
/// load (no article, or all held back until revealed).
pub fn print_collection_card(card: &CollectionCard) {
    for config in &card.configs {
        println!(
            "{} ({}): {}",
            config.name,
            config.from,
            splits_line(&config.splits)
        );
    }
    for name in &card.without_config {
        println!("{name}: no row to load (no config): no article, or all held back");
    }
}

/// A config's splits with their rows: `future (12), in_distribution (3)`.
fn splits_line(splits: &[(String, Vec<DataFile>)]) -> String {
    let splits: Vec<String> = splits
        .iter()
        .map(|(split, files)| format!("{split} ({})", files.iter().map(|f| f.rows).sum::<u64>()))
        .collect();
    splits.join(", ")
}
