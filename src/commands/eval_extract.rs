//! `tempora eval-extract`: the extraction's accuracy against pages with known
//! answers.

use crate::exit::Outcome;
use std::path::PathBuf;

use tempora_extract::eval::evaluate;
use tempora_extract::SummaryFallback;

use super::extract::SummaryFallbackArg;

/// Score extraction against a folder of pages with known answers (one sub-folder
/// per site, each with an `expected.json`: file name -> `url`, `title`,
/// `published`, `summary`): prints a Markdown table.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The folder of site folders.
    pub dir: PathBuf,
    /// Summary for pages without one where the profile allows it; `description` by
    /// default so that pages without highlights still have their body scored.
    #[arg(long, value_enum, default_value_t = SummaryFallbackArg::Description)]
    pub summary_fallback: SummaryFallbackArg,
    /// Directory of more site profiles (`*.toml`).
    #[arg(long)]
    pub profiles: Option<PathBuf>,
    /// Reject pages whose document has fewer characters.
    #[arg(long, default_value_t = 100)]
    pub min_document_chars: usize,
    /// Exit with an error unless every known title, summary and date is right.
    #[arg(long)]
    pub strict: bool,
}

/// Runs the evaluation.
///
/// # Errors
/// Unreadable folders or answer files; with `--strict`, any wrong field.
pub fn run(args: EvalArgs) -> Outcome {
    let report = evaluate(
        &args.dir,
        args.profiles.as_deref(),
        SummaryFallback::from(args.summary_fallback),
        args.min_document_chars,
    )?;
    print!("{}", report.to_markdown());
    if args.strict && !report.all_exact() {
        return Err(anyhow::anyhow!("some known fields were extracted wrong").into());
    }
    Ok(())
}
