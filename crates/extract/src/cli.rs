//! `tempora extract` (pages to Article JSON lines, with the stage's code) and the
//! accuracy evaluation (`tempora eval-extract`, or `cargo run -p tempora-extract
//! --release --example eval -- DIR`).

use std::io::Write as _;
use std::path::PathBuf;
use tempora_engine::UsageError;

use anyhow::{bail, Context as _};
use rayon::prelude::*;

use crate::eval::evaluate;
use crate::extract::{Extractor, FallbackChoice, PageInput, SummaryFallback};
use crate::profile::load_profiles;

/// Extract articles from saved HTML pages: one Article JSON line per page on stdout,
/// the rejection reason of every other page on stderr.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// Site profile: a site name (`bbc`, `cnn`, or one from `--profiles`), or `auto`
    /// to choose by the page's URL.
    #[arg(long, default_value = "auto")]
    pub site: String,
    /// The page's original URL, when the file does not name it (one FILE only).
    #[arg(long)]
    pub url: Option<String>,
    /// The capture's 14-digit timestamp (one FILE only).
    #[arg(long)]
    pub captured: Option<String>,
    /// Summary for pages whose layout has none where the profile allows it (CNN
    /// without highlights, BBC without a bold intro); without it, each site's profile
    /// decides (`none` in the shipped profiles: such pages are rejected).
    #[arg(long, value_enum)]
    pub summary_fallback: Option<SummaryFallback>,
    /// Directory of more site profiles (`*.toml`).
    #[arg(long)]
    pub profiles: Option<PathBuf>,
    /// Reject pages whose document has fewer characters.
    #[arg(long, default_value_t = 100)]
    pub min_document_chars: usize,
    /// Saved HTML pages (raw captures or pages saved from the Wayback viewer).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Runs `tempora extract`.
///
/// # Errors
/// Bad options, an unreadable file, or a profile that does not compile.
pub fn run(args: ExtractArgs) -> anyhow::Result<()> {
    if args.files.len() > 1 && (args.url.is_some() || args.captured.is_some()) {
        return Err(UsageError::new(
            "--url and --captured describe one page; give one FILE with them",
        )
        .into());
    }
    let profiles = load_profiles(args.profiles.as_deref())?;
    let forced = (args.site != "auto").then_some(args.site.as_str());
    let extractor = Extractor::new(
        profiles,
        forced,
        args.summary_fallback.map(FallbackChoice::from).as_ref(),
        args.min_document_chars,
    )
    .map_err(anyhow::Error::msg)
    .context("--site")?;
    let url = args.url.as_deref().unwrap_or("");
    let captured = args.captured.as_deref().unwrap_or("");
    let results: Vec<anyhow::Result<Result<String, String>>> = args
        .files
        .par_iter()
        .map(|path| {
            let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
            let html = crate::charset::decode_html(&bytes, None);
            Ok(
                match extractor.extract(PageInput {
                    html: &html,
                    url,
                    captured,
                }) {
                    Ok(x) => Ok(serde_json::to_string(&x.article)?),
                    Err(r) => Err(format!("{}: rejected: {}", path.display(), r.reason)),
                },
            )
        })
        .collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for result in results {
        match result? {
            Ok(line) => writeln!(out, "{line}")?,
            Err(reason) => eprintln!("{reason}"),
        }
    }
    out.flush()?;
    Ok(())
}

/// Score extraction against a folder of pages with known answers (one sub-folder
/// per site, laid out like `../shared/fixtures/pages`): prints a Markdown table.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The folder of site folders.
    pub dir: PathBuf,
    /// Summary for pages without one where the profile allows it; `description` by
    /// default so that pages without highlights still have their body scored.
    #[arg(long, value_enum, default_value_t = SummaryFallback::Description)]
    pub summary_fallback: SummaryFallback,
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
pub fn run_eval(args: EvalArgs) -> anyhow::Result<()> {
    let report = evaluate(
        &args.dir,
        args.profiles.as_deref(),
        args.summary_fallback,
        args.min_document_chars,
    )?;
    print!("{}", report.to_markdown());
    if args.strict && !report.all_exact() {
        bail!("some known fields were extracted wrong");
    }
    Ok(())
}
