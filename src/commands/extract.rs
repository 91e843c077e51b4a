//! `tempora extract`: pages to Article JSON lines, with the `extract` stage's
//! extractor; and the summary fallback as the command line names it.

use crate::exit::Outcome;
use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use rayon::prelude::*;
use tempora_engine::UsageError;
use tempora_extract::{load_profiles, Extractor, FallbackChoice, PageInput, SummaryFallback};
use tempora_records::Timestamp;

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
    pub captured: Option<Timestamp>,
    /// Summary for pages whose layout has none where the profile allows it (CNN
    /// without highlights, BBC without a bold intro); without it, each site's profile
    /// decides (`none` in the shipped profiles: such pages are rejected).
    #[arg(long, value_enum)]
    pub summary_fallback: Option<SummaryFallbackArg>,
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

/// [`SummaryFallback`] as the command line names it (`first-paragraph`); the
/// library's type carries no command-line parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SummaryFallbackArg {
    /// Nothing: the page is rejected with "no reference summary".
    None,
    /// The page's meta / Open Graph description.
    Description,
    /// The first sentence of the body, which is then removed from the document.
    Lead,
    /// The headline (the document stays whole): TempoSum's released CNN sets pair
    /// each document with its title.
    Title,
    /// The body's first paragraph, which is then removed from the document: where
    /// a BBC page sets its opening paragraph in plain type instead of bold.
    FirstParagraph,
}

impl From<SummaryFallbackArg> for SummaryFallback {
    fn from(arg: SummaryFallbackArg) -> Self {
        match arg {
            SummaryFallbackArg::None => Self::None,
            SummaryFallbackArg::Description => Self::Description,
            SummaryFallbackArg::Lead => Self::Lead,
            SummaryFallbackArg::Title => Self::Title,
            SummaryFallbackArg::FirstParagraph => Self::FirstParagraph,
        }
    }
}

/// Runs `tempora extract`.
///
/// # Errors
/// Bad options, an unreadable file, or a profile that does not compile.
pub fn run(args: ExtractArgs) -> Outcome {
    if args.files.len() > 1 && (args.url.is_some() || args.captured.is_some()) {
        return Err(UsageError::new(
            "--url and --captured describe one page; give one FILE with them",
        )
        .into());
    }
    let profiles = load_profiles(args.profiles.as_deref())?;
    let forced = (args.site != "auto").then_some(args.site.as_str());
    let fallback = args
        .summary_fallback
        .map(|f| FallbackChoice::from(SummaryFallback::from(f)));
    let extractor = Extractor::new(profiles, forced, fallback.as_ref(), args.min_document_chars)
        .map_err(anyhow::Error::msg)
        .context("--site")?;
    let url = args.url.as_deref().unwrap_or("");
    let results: Vec<anyhow::Result<Result<String, String>>> = args
        .files
        .par_iter()
        .map(|path| {
            let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
            let html = tempora_extract::charset::decode_html(&bytes, None);
            Ok(
                match extractor.extract(PageInput {
                    html: &html,
                    url,
                    captured: args.captured,
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

#[cfg(test)]
mod tests {
    use clap::ValueEnum as _;

    use super::*;

    #[test]
    fn cli_refuses_url_with_several_files() {
        let args = ExtractArgs {
            site: "auto".into(),
            url: Some("http://www.bbc.co.uk/news/uk-1".into()),
            captured: None,
            summary_fallback: None,
            profiles: None,
            min_document_chars: 100,
            files: vec!["a.html".into(), "b.html".into()],
        };
        let err = run(args).unwrap_err().to_string();
        assert!(err.contains("one FILE"), "{err}");
    }

    #[test]
    fn the_defaults_are_the_stages() {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: ExtractArgs,
        }
        let cli = Cli::parse_from(["extract", "a.html"]).args;
        let stage: tempora_extract::ExtractOptions =
            tempora_engine::parse_options(toml::Table::new()).unwrap();
        assert_eq!(cli.min_document_chars, stage.min_document_chars);
        assert_eq!(cli.summary_fallback, None);
        assert_eq!(stage.summary_fallback, None);
    }

    /// The command line's name of each fallback, from the library's: a fallback
    /// added to the library does not compile here until the command line has it.
    fn arg_of(fallback: SummaryFallback) -> SummaryFallbackArg {
        match fallback {
            SummaryFallback::None => SummaryFallbackArg::None,
            SummaryFallback::Description => SummaryFallbackArg::Description,
            SummaryFallback::Lead => SummaryFallbackArg::Lead,
            SummaryFallback::Title => SummaryFallbackArg::Title,
            SummaryFallback::FirstParagraph => SummaryFallbackArg::FirstParagraph,
        }
    }

    #[test]
    fn every_fallback_has_the_flag_value_of_its_pipeline_name() {
        for &arg in SummaryFallbackArg::value_variants() {
            let fallback = SummaryFallback::from(arg);
            assert_eq!(arg_of(fallback), arg);
            let in_pipelines = serde_json::to_value(fallback).unwrap();
            let on_the_command_line = arg.to_possible_value().unwrap();
            assert_eq!(
                in_pipelines.as_str().unwrap().replace('_', "-"),
                on_the_command_line.get_name(),
            );
        }
    }
}
