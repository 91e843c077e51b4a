//! `tempora cdx PATTERN [--from D] [--to D] [--endpoint URL]`: the captures of a
//! URL pattern as JSON lines, listed by the same code as the `wayback-cdx` stage
//! (same defaults, same politeness, same dedupe).

use std::io::Write as _;
use tempora_engine::UsageError;

use anyhow::{bail, Context as _};

use crate::archive::{Archive, DEFAULT_ENDPOINT};
use crate::cdx::{default_filters, CdxQuery, MatchType};
use crate::lister::{CdxLister, Keep, ListerConfig};
use crate::politeness::{Politeness, RequestClass};
use crate::timestamp;

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
    #[arg(long, default_value = "60s")]
    pub min_pause: String,
    /// Pause after a refused or reset connection; after 3 in a row the command
    /// stops with exit code 75 (run again later).
    #[arg(long, default_value = "5m")]
    pub block_pause: String,
    /// Your contact (email or URL) for the User-Agent.
    #[arg(long)]
    pub contact: Option<String>,
}

fn bound(value: Option<&str>, end: bool) -> anyhow::Result<Option<String>> {
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
        ))
        .into());
    }
    Ok(Some(v.to_string()))
}

/// Lists the captures and prints one JSON line each.
///
/// # Errors
/// Bad arguments, or a listing that failed (blocked IP, rejected query).
pub async fn run(args: CdxArgs) -> anyhow::Result<()> {
    let match_type = match args.match_type.as_deref() {
        None => None,
        Some("exact") => Some(MatchType::Exact),
        Some("prefix") => Some(MatchType::Prefix),
        Some("host") => Some(MatchType::Host),
        Some("domain") => Some(MatchType::Domain),
        Some(other) => {
            return Err(UsageError::new(format!(
                "--match-type `{other}`: expected exact, prefix, host or domain"
            ))
            .into())
        }
    };
    let keep = match args.keep.as_str() {
        "earliest" => Keep::Earliest,
        "latest" => Keep::Latest,
        "all" => Keep::All,
        other => {
            return Err(UsageError::new(format!(
                "--keep `{other}`: expected earliest, latest or all"
            ))
            .into())
        }
    };
    if args.limit == 0 {
        return Err(UsageError::new("--limit must be at least 1").into());
    }
    let filters = match (args.no_filter, args.filters.is_empty()) {
        (true, _) => Vec::new(),
        (false, true) => default_filters(),
        (false, false) => args.filters.clone(),
    };
    let query = CdxQuery {
        url: args.pattern.clone(),
        match_type,
        from: bound(args.from.as_deref(), false)?,
        to: bound(args.to.as_deref(), true)?,
        filters,
        collapse: keep.default_collapse(),
        page_size: args.limit,
    };
    let pause = |flag: &str, value: &str| {
        humantime::parse_duration(value)
            .map_err(|e| UsageError::new(format!("--{flag} `{value}`: {e}")))
    };
    let politeness = Politeness {
        min_pause: pause("min-pause", &args.min_pause)?,
        block_pause: pause("block-pause", &args.block_pause)?,
        ..Politeness::default_for(RequestClass::Cdx)
    };
    let archive = Archive::new(&args.endpoint, args.contact.as_deref(), None, politeness);
    let mut lister = CdxLister::new(
        archive.cdx(args.rate)?,
        archive.state()?,
        ListerConfig {
            watermarks: Default::default(),
            queries: vec![query],
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
            bail!("{url}: blocked site: {message}");
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
