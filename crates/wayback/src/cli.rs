//! `tempora cdx PATTERN [--from D] [--to D] [--endpoint URL]`: the captures of a
//! URL pattern as JSON lines, listed by the same code as the `wayback-cdx` stage
//! (same defaults, same politeness, same dedupe).

use std::io::Write as _;

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
    /// CDX requests a minute.
    #[arg(long, default_value_t = 20.0)]
    pub rate: f64,
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
        bail!("`{v}` is neither a day (YYYY-MM-DD) nor a timestamp of 4 to 14 digits");
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
        Some(other) => bail!("--match-type `{other}`: expected exact, prefix, host or domain"),
    };
    let keep = match args.keep.as_str() {
        "earliest" => Keep::Earliest,
        "latest" => Keep::Latest,
        "all" => Keep::All,
        other => bail!("--keep `{other}`: expected earliest, latest or all"),
    };
    if args.limit == 0 {
        bail!("--limit must be at least 1");
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
    let archive = Archive::new(
        &args.endpoint,
        args.contact.as_deref(),
        None,
        Politeness::default_for(RequestClass::Cdx),
    );
    let mut lister = CdxLister::new(
        archive.cdx(args.rate)?,
        archive.state()?,
        ListerConfig {
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
