//! `tempora publish OUT --to DIR`: the folder a lab can publish, with none of
//! the publishers' text (the manifest, the facts, the commitment, the scores
//! without text, `run.json`) and its own card.

use std::path::PathBuf;

use tempora_engine::UsageError;
use tempora_report::card::releases;
use tempora_report::card::CardError;
use tempora_report::publish::{publish_collection, publish_folder, PublishError};

use crate::exit::Outcome;

/// Write a folder to publish, with none of the publishers' text: the manifest,
/// the facts, the withheld part's commitment, the scores that hold no text,
/// `run.json` and a card that says how to rebuild the sets from the manifest.
#[derive(Debug, clap::Args)]
pub struct PublishArgs {
    /// The output folder of `tempora run`.
    pub out: PathBuf,
    /// The folder to write: a new one, or an empty one.
    #[arg(long)]
    pub to: PathBuf,
}

/// Runs `tempora publish`: writes the folder and prints its files and configs.
///
/// # Errors
/// `OUT` is no output folder or `DIR` is not empty (bad usage); see
/// [`publish_folder`] for the rest. Nothing is written then.
pub fn run(args: &PublishArgs) -> Outcome {
    super::output_folder(&args.out)?;
    if releases::is_collection(&args.out) {
        return collection(args);
    }
    let published = publish_folder(&args.out, &args.to).map_err(|e| failure(e, args))?;
    super::card::print_card(&published.card);
    println!(
        "wrote {} ({} files and README.md, {} bytes; {} bytes in {}), with none of the \
         publishers' text",
        args.to.display(),
        published.files.len(),
        published.bytes,
        published.source_bytes,
        args.out.display()
    );
    Ok(())
}

/// `tempora publish` of a collection of monthly releases: each release's
/// publishable folder, the reveals' records and the index card.
fn collection(args: &PublishArgs) -> Outcome {
    let published = publish_collection(&args.out, &args.to).map_err(|e| failure(e, args))?;
    for (name, release) in &published.releases {
        println!(
            "{name}: {} files and README.md, {} bytes",
            release.files.len(),
            release.bytes
        );
    }
    super::card::print_collection_card(&published.card);
    println!(
        "wrote {} ({} release{}, {} reveal{}, {} bytes; {} bytes in {}), with none of the \
         publishers' text",
        args.to.display(),
        published.releases.len(),
        if published.releases.len() == 1 {
            ""
        } else {
            "s"
        },
        published.reveals.len(),
        if published.reveals.len() == 1 {
            ""
        } else {
            "s"
        },
        published.bytes,
        published.source_bytes,
        args.out.display()
    );
    Ok(())
}

/// A publication's error as the command's failure: bad usage where the
/// folders given are wrong.
fn failure(e: PublishError, args: &PublishArgs) -> crate::exit::Failure {
    match e {
        PublishError::NotEmpty { .. }
        | PublishError::Inside { .. }
        | PublishError::Card(CardError::NotOutput { .. }) => {
            crate::exit::Failure::from(UsageError::new(e.to_string()))
        }
        other => crate::exit::Failure::from(
            anyhow::Error::new(other)
                .context(format!("publishable folder of {}", args.out.display())),
        ),
    }
}
