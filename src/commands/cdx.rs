//! `tempora cdx PATTERN [--from D] [--to D] [--endpoint URL]`: the captures of a
//! URL pattern as JSON lines, listed by the same code as the `wayback-cdx` stage
//! (same defaults, same politeness, same dedupe).

use crate::exit::Outcome;
use std::io::Write as _;

use anyhow::Context as _;
use serde::de::value::{Error as ValueError, StrDeserializer};
use serde::Deserialize;
use tempora_engine::UsageError;
use tempora_engine::WrittenDuration;
use tempora_wayback::archive::DEFAULT_ENDPOINT;
use tempora_wayback::cdx::{default_filters, CdxQuery, MatchType};
use tempora_wayback::lister::{CdxLister, Keep, ListerConfig, Listing};
use tempora_wayback::stages::options::ArchiveOptions;
use tempora_wayback_format::timestamp;

/// Arguments of `tempora cdx`.
#[derive(Debug, Clone, clap::Args)]
pub struct CdxArgs {
    /// URL or pattern, e.g. `bbc.co.uk/news/*` (a trailing `*` lists every URL under the path).
    pub pattern: String,
    /// Earliest capture: a day (2015-06-01) or 4-14 digits (2015, 20150601120000).
    #[arg(long)]
    pub from: Option<String>,
    /// Latest capture: a day (its end) or 4-14 digits.
    #[arg(long)]
    pub to: Option<String>,
    /// The Wayback Machine to ask.
    #[arg(long, default_value = DEFAULT_ENDPOINT)]
    pub endpoint: String,
    /// How the pattern matches: exact, prefix, host or domain (default: implied by the pattern).
    #[arg(long)]
    pub match_type: Option<String>,
    /// CDX filter, repeatable (default: statuscode:200 and mimetype:text/html).
    #[arg(long = "filter")]
    pub filters: Vec<String>,
    /// No filters at all (revisits, redirects and errors are listed too).
    #[arg(long, conflicts_with = "filters")]
    pub no_filter: bool,
    /// Which capture per URL: earliest, latest or all.
    #[arg(long, default_value = "earliest")]
    pub keep: String,
    /// Rows per CDX request.
    #[arg(long, default_value_t = 5000)]
    pub limit: usize,
    /// Stop after this many captures.
    #[arg(long)]
    pub max: Option<u64>,
    /// CDX requests a minute (80% of the Archive's 30 a minute per IP).
    #[arg(long, default_value_t = 24.0)]
    pub rate: f64,
    /// Shortest pause after a 429 (the Archive sends no Retry-After).
    #[arg(long, default_value = "60s", value_parser = WrittenDuration::parse)]
    pub min_pause: WrittenDuration,
    /// Pause after a refused or reset connection; after 3 in a row the command
    /// stops with exit code 75 (run again later).
    #[arg(long, default_value = "5m", value_parser = WrittenDuration::parse)]
    pub block_pause: WrittenDuration,
    /// Your contact (email or URL) for the User-Agent.
    #[arg(long)]
    pub contact: Option<String>,
}

fn bound(value: Option<&str>, end: bool) -> Result<Option<String>, UsageError> {
    let Some(v) = value else { return Ok(None) };
    if let Ok(day) = chrono::NaiveDate::parse_from_str(v, "%Y-%m-%d") {
        return Ok(Some(if end {
            timestamp::day_end(day)
        } else {
            timestamp::day_start(day)
        }));
    }
    if timestamp::parse(v).is_none() {
        return Err(UsageError::new(format!(
            "`{v}` is neither a day (YYYY-MM-DD) nor a timestamp of 4 to 14 digits"
        )));
    }
    Ok(Some(v.to_string()))
}

/// `value` read as the stage reads its option of type `T` (`match_type`, `keep`):
/// the command line takes the names a pipeline takes.
fn option_value<'de, T: Deserialize<'de>>(value: &'de str) -> Option<T> {
    T::deserialize(StrDeserializer::<ValueError>::new(value)).ok()
}

/// The CDX query and the `keep` rule the arguments ask for.
///
/// # Errors
/// An argument the stage would refuse, or `--from` after `--to`.
fn query_of(args: &CdxArgs) -> Result<(CdxQuery, Keep), UsageError> {
    let match_type = match args.match_type.as_deref() {
        None => None,
        Some(name) => Some(option_value::<MatchType>(name).ok_or_else(|| {
            UsageError::new(format!(
                "--match-type `{name}`: expected exact, prefix, host or domain"
            ))
        })?),
    };
    let keep = option_value::<Keep>(&args.keep).ok_or_else(|| {
        UsageError::new(format!(
            "--keep `{}`: expected earliest, latest or all",
            args.keep
        ))
    })?;
    if args.limit == 0 {
        return Err(UsageError::new("--limit must be at least 1"));
    }
    let filters = match (args.no_filter, args.filters.is_empty()) {
        (true, _) => Vec::new(),
        (false, true) => default_filters(),
        (false, false) => args.filters.clone(),
    };
    let (from, to) = (
        bound(args.from.as_deref(), false)?,
        bound(args.to.as_deref(), true)?,
    );
    if let (Some(f), Some(t)) = (&from, &to) {
        // A short timestamp stands for its whole period: from its first second
        // to its last.
        let pad = |v: &str, digit: char| {
            let mut padded = v.to_string();
            padded.extend(std::iter::repeat_n(digit, 14usize.saturating_sub(v.len())));
            padded
        };
        if pad(f, '0') > pad(t, '9') {
            return Err(UsageError::new(format!(
                "--from {} is after --to {}: nothing could be listed",
                args.from.as_deref().unwrap_or_default(),
                args.to.as_deref().unwrap_or_default()
            )));
        }
    }
    let query = CdxQuery {
        url: args.pattern.clone(),
        match_type,
        from,
        to,
        filters,
        collapse: keep.default_collapse(),
        page_size: args.limit,
    };
    Ok((query, keep))
}

/// Lists the captures and prints one JSON line each.
///
/// # Errors
/// Bad arguments, or a listing that failed (blocked IP, rejected query).
pub async fn run(args: CdxArgs) -> Outcome {
    let (query, keep) = query_of(&args)?;
    // The Archive as the stage's options describe it, these flags set.
    let options = ArchiveOptions {
        endpoint: args.endpoint.clone(),
        contact: args.contact.clone(),
        cdx_rate: args.rate,
        min_pause: args.min_pause.clone(),
        block_pause: args.block_pause.clone(),
        ..ArchiveOptions::default()
    };
    let archive = options.archive(None)?;
    let mut lister = CdxLister::new(
        archive.cdx(options.cdx_rate)?,
        archive.state()?,
        ListerConfig {
            listing: Listing::Queries(vec![query]),
            keep,
            incremental: false,
            overlap_secs: 0,
            source: "cdx".into(),
        },
    );
    let mut printed = 0u64;
    let stdout = std::io::stdout();
    while let Some(listed) = lister.next().await? {
        if let Some((url, message)) = listed.blocked {
            return Err(anyhow::anyhow!("{url}: blocked site: {message}").into());
        }
        let mut out = stdout.lock();
        for capture in listed.captures {
            let line = serde_json::to_string(&capture).context("serializing a capture")?;
            if writeln!(out, "{line}").is_err() {
                return Ok(()); // stdout closed (e.g. `| head`): not an error.
            }
            printed += 1;
            if args.max.is_some_and(|m| printed >= m) {
                return Ok(());
            }
        }
        if out.flush().is_err() {
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;
    use tempora_testkit::synthetic::listing_corpus;
    use tempora_testkit::MockWayback;
    use tempora_wayback::stages::cdx_options::CdxOptions;

    use super::*;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: CdxArgs,
    }

    #[tokio::test]
    async fn the_cdx_command_lists_and_refuses_bad_arguments() {
        let server = MockWayback::start(listing_corpus()).await.unwrap();
        let ep = server.endpoint();
        let ok = Cli::parse_from([
            "cdx",
            "bbc.co.uk/news/*",
            "--from",
            "2015-01-01",
            "--to",
            "2015",
            "--endpoint",
            &ep,
            "--rate",
            "0",
        ]);
        run(ok.args).await.unwrap();
        let cdx = server
            .log()
            .requests()
            .into_iter()
            .find(|r| r.kind == tempora_testkit::RequestKind::Cdx)
            .unwrap();
        assert!(
            cdx.target.contains("from=20150101000000&to=2015&"),
            "{}",
            cdx.target
        );
        for (flag, value, expected) in [
            ("--keep", "first", "expected earliest"),
            ("--from", "yesterday", "neither a day"),
            ("--match-type", "fuzzy", "expected exact"),
        ] {
            let bad = Cli::parse_from(["cdx", "bbc.co.uk", flag, value, "--endpoint", &ep]);
            let err = run(bad.args).await.unwrap_err().to_string();
            assert!(err.contains(expected), "{flag}: {err}");
        }
    }

    #[test]
    fn the_defaults_are_the_stages() {
        let cli = Cli::parse_from(["cdx", "bbc.co.uk/news/*"]).args;
        let table = toml::from_str("urls = [\"bbc.co.uk/news/*\"]").unwrap();
        let stage: CdxOptions = tempora_engine::parse_options(table).unwrap();
        let archive = ArchiveOptions::default();
        assert_eq!(option_value::<Keep>(&cli.keep), Some(stage.keep));
        assert_eq!(cli.limit, stage.limit);
        assert_eq!(default_filters(), stage.filters);
        assert_eq!(cli.endpoint, archive.endpoint);
        assert_eq!(cli.rate, archive.cdx_rate);
        assert_eq!(cli.min_pause.get(), archive.min_pause.get());
        assert_eq!(cli.block_pause.get(), archive.block_pause.get());
        // `--help` shows the stage's defaults as the stage writes them.
        let command = <Cli as clap::CommandFactory>::command();
        let shown = |id: &str| {
            let arg = command.get_arguments().find(|a| a.get_id() == id)?;
            arg.get_default_values()
                .first()?
                .to_str()
                .map(str::to_string)
        };
        assert_eq!(
            shown("min_pause").as_deref(),
            Some(archive.min_pause.as_str())
        );
        assert_eq!(
            shown("block_pause").as_deref(),
            Some(archive.block_pause.as_str())
        );
    }

    #[test]
    fn match_types_and_keeps_are_named_as_in_pipelines() {
        for (name, match_type) in [
            ("exact", MatchType::Exact),
            ("prefix", MatchType::Prefix),
            ("host", MatchType::Host),
            ("domain", MatchType::Domain),
        ] {
            assert_eq!(option_value::<MatchType>(name), Some(match_type));
        }
        for (name, keep) in [
            ("earliest", Keep::Earliest),
            ("latest", Keep::Latest),
            ("all", Keep::All),
        ] {
            assert_eq!(option_value::<Keep>(name), Some(keep));
        }
        assert_eq!(option_value::<Keep>("first"), None);
    }
}
