//! What the wayback stages tell `tempora run --dry-run`: their CDX queries, their
//! politeness, and an estimate of their requests and hours.
//!
//! Without `--estimate` the figures rest on the assumptions below, printed with
//! them. With `--estimate`, `wayback-cdx` asks the CDX server how many index
//! blocks each URL pattern spans (one request per pattern) and starts from that.

use chrono::{NaiveDate, Utc};
use tempora_engine::{DescribeContext, Estimate, Query, Requests, StagePlan};

use super::cdx_stage::CdxOptions;
use super::feeds_stage::FeedsOptions;
use super::fetch_stage::FetchOptions;
use super::options::{source_of, ArchiveOptions, ArchiveSetting};
use super::windows::Span;
use crate::cdx::INDEX_LINES_PER_BLOCK;
use crate::discover::Lookup;

/// Assumed captures listed a day per URL pattern, after filters and collapse: BBC
/// News alone publishes some 100-200 stories a day, and each is listed under URL
/// variants (hosts, `/mobile/`, query strings) and beside index and live pages.
pub const ASSUMED_LISTED_PER_PATTERN_DAY: u64 = 300;

/// Assumed index lines per listed capture when the listing collapses by URL: a
/// news page is captured about ten times (redirects, errors and revisits included).
pub const ASSUMED_LINES_PER_COLLAPSED_ROW: u64 = 10;

/// Assumed index lines per listed capture without collapse (filters drop redirects,
/// errors and other types).
pub const ASSUMED_LINES_PER_FILTERED_ROW: u64 = 2;

/// Assumed new articles a day per feed or sitemap.
pub const ASSUMED_ARTICLES_PER_FEED_DAY: u64 = 50;

/// The Wayback Machine's first captures: a window without `from` starts here.
fn archive_start() -> NaiveDate {
    NaiveDate::from_ymd_opt(1996, 1, 1).unwrap_or_default()
}

/// Days of the window `from..=to` (open ends: the Archive's start, today).
fn window_days(from: Option<NaiveDate>, to: Option<NaiveDate>) -> u64 {
    let from = from.unwrap_or_else(archive_start);
    let to = to.unwrap_or_else(|| Utc::now().date_naive());
    u64::try_from((to - from).num_days() + 1).unwrap_or(0)
}

fn window(from: Option<NaiveDate>, to: Option<NaiveDate>) -> String {
    let from = from.map_or("the Archive's start".into(), |d| d.to_string());
    let to = to.map_or("today".into(), |d| d.to_string());
    format!("{from} to {to}")
}

/// Hours `requests` take at `rate` a minute (0 = no limit).
fn hours_at(requests: u64, rate: f64) -> f64 {
    if rate > 0.0 {
        requests as f64 / rate / 60.0
    } else {
        0.0
    }
}

fn rate(rate: f64, what: &str) -> String {
    if rate > 0.0 {
        format!("{rate} {what} a minute")
    } else {
        format!("no limit on {what}")
    }
}

/// The Archive's options of a stage: its own, or those of the stage it names
/// (the defaults if that stage could not be read; the plan says why).
fn options_of(setting: &ArchiveSetting) -> ArchiveOptions {
    setting.options().cloned().unwrap_or_default()
}

/// Where the limits come from, the rates this stage uses, the pauses and retries, in words.
fn politeness(setting: &ArchiveSetting, rates: &[(&str, String)]) -> Vec<(String, String)> {
    let p = options_of(setting);
    let mut out = vec![("set in".to_string(), source_of(setting))];
    out.extend(rates.iter().map(|(k, v)| ((*k).to_string(), v.clone())));
    out.extend([
        (
            "after a 429".into(),
            format!(
                "every worker pauses for Retry-After, at least {}; the run stops after {} in a row (exit 75)",
                p.min_pause, p.max_rate_limits
            ),
        ),
        (
            "retries".into(),
            format!(
                "{} attempts for 5xx, timeouts and cut bodies, waiting {} doubling up to {}",
                p.max_attempts, p.backoff, p.max_backoff
            ),
        ),
        (
            "after a refused connection".into(),
            format!(
                "every worker pauses {}; the run stops after {} in a row (exit 75)",
                p.block_pause, p.max_blocks
            ),
        ),
        ("timeout".into(), p.timeout),
    ]);
    out
}

/// The CDX pool's rate in words, with the Archive's limit.
fn cdx_rate(rate_per_minute: f64) -> String {
    format!(
        "{} (CDX search and timemaps, one pool; the Archive allows {} a minute per IP)",
        rate(rate_per_minute, "requests"),
        crate::politeness::ARCHIVE_CDX_LIMIT
    )
}

/// The playback pool's rate in words, with the Archive's limit.
fn playback_rate(rate_per_minute: f64) -> String {
    format!(
        "{} (pages and feeds, redirects and retries counted, one pool; the Archive allows {} a minute per IP)",
        rate(rate_per_minute, "requests"),
        crate::politeness::ARCHIVE_PLAYBACK_LIMIT
    )
}

/// Days of every window.
fn days_of(windows: &[Span]) -> u64 {
    windows
        .iter()
        .map(|&(from, to)| window_days(from, to))
        .sum()
}

/// `wayback-cdx`: one query per window and URL pattern, and its listing's cost.
pub(super) async fn cdx(o: &CdxOptions, ctx: &DescribeContext<'_>) -> StagePlan {
    let (query_windows, queries): (Vec<Span>, Vec<_>) = o.windowed_queries().into_iter().unzip();
    let archive = options_of(&o.archive);
    let described = queries
        .iter()
        .zip(&query_windows)
        .map(|(q, &(from, to))| {
            let mut settings = vec![("window".to_string(), window(from, to))];
            if let Some(m) = q.match_type {
                settings.push(("match".into(), m.as_str().into()));
            }
            let list = |v: &[String]| {
                if v.is_empty() {
                    "none".to_string()
                } else {
                    v.join(", ")
                }
            };
            settings.extend([
                ("filters".to_string(), list(&q.filters)),
                ("collapse".to_string(), list(&q.collapse)),
                ("rows a request".to_string(), q.page_size.to_string()),
            ]);
            Query {
                what: format!("CDX {}", q.url),
                settings,
            }
        })
        .collect();
    let collapsed = queries
        .first()
        .is_some_and(|q| q.collapse.iter().any(|c| c == "urlkey"));
    let lines_per_row = if collapsed {
        ASSUMED_LINES_PER_COLLAPSED_ROW
    } else {
        ASSUMED_LINES_PER_FILTERED_ROW
    };
    let days = days_of(&o.windows);
    let mut basis = Vec::new();
    let mut rows_per_query: Vec<u64> = Vec::new();
    if ctx.online {
        let all_days = window_days(None, None).max(1) as f64;
        let shares: Vec<f64> = query_windows
            .iter()
            .map(|&(from, to)| (window_days(from, to) as f64 / all_days).min(1.0))
            .collect();
        match count_rows(&archive, &queries, lines_per_row, &shares).await {
            Ok(rows) => {
                basis.push(format!(
                    "asked the CDX server: {} count request{} (showNumPages=true&pageSize=1), one per pattern; a block holds up to {INDEX_LINES_PER_BLOCK} index lines",
                    queries.len(),
                    if queries.len() == 1 { "" } else { "s" }
                ));
                basis.push(format!(
                    "the count spans every year of a pattern: a window's share is taken as its share of days ({:.0}% in all)",
                    days as f64 / all_days * 100.0
                ));
                rows_per_query = rows;
            }
            Err(e) => basis.push(format!(
                "could not count on the CDX server ({e}); the assumptions below are used instead"
            )),
        }
    }
    if rows_per_query.is_empty() {
        rows_per_query = query_windows
            .iter()
            .map(|&(from, to)| ASSUMED_LISTED_PER_PATTERN_DAY * window_days(from, to))
            .collect();
        basis.push(format!(
            "assumed {ASSUMED_LISTED_PER_PATTERN_DAY} captures listed a day per pattern over {days} days{}",
            if ctx.online { "" } else { " (run with --estimate to ask the CDX server)" }
        ));
    } else {
        basis.push(format!(
            "assumed {lines_per_row} index lines per listed capture ({})",
            if collapsed {
                "a page is captured about ten times; collapse keeps one"
            } else {
                "filters drop about half"
            }
        ));
    }
    let (requests, first_chunk) = chunked_requests(o, &query_windows, &queries, &rows_per_query);
    let (chunked, watermarks) = o.chunked_queries();
    if watermarks.is_empty() {
        basis.push(
            "each window is listed whole, pattern after pattern (`chunk_days = 0`): what \
             comes after decides only once the whole listing has ended"
                .into(),
        );
    } else {
        basis.push(format!(
            "listed {} days at a time, every pattern of a chunk before the next ({} chunks, {} \
             queries): fetching starts once the first chunk is listed, after about {first_chunk} \
             CDX request{} ({:.1} minutes at the CDX rate), not after the whole listing",
            o.chunk_days,
            chunked
                .iter()
                .map(|q| (&q.from, &q.to))
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            chunked.len(),
            if first_chunk == 1 { "" } else { "s" },
            hours_at(first_chunk, archive.cdx_rate) * 60.0
        ));
    }
    let mut captures: u64 = rows_per_query.iter().sum();
    if let Some(max) = o.max_captures {
        captures = captures.min(max);
    }
    if o.incremental {
        basis.push("incremental: this is the first run's cost; a later run lists only what is new since the last".into());
    }
    StagePlan {
        queries: described,
        politeness: politeness(&o.archive, &[("CDX rate", cdx_rate(archive.cdx_rate))]),
        estimate: Some(Estimate {
            requests: Requests {
                cdx: requests,
                ..Requests::default()
            },
            records_out: Some(captures),
            records_name: "captures".into(),
            hours: hours_at(requests, archive.cdx_rate),
            basis,
        }),
    }
}

/// CDX requests of the chunked listing, and of its first chunk: each chunk query
/// lists its share of days of the rows `rows_per_query` gives its window's query
/// of the same pattern, in pages of `limit` rows (at least one request each).
fn chunked_requests(
    o: &CdxOptions,
    windows: &[Span],
    queries: &[crate::cdx::CdxQuery],
    rows_per_query: &[u64],
) -> (u64, u64) {
    let (chunked, watermarks) = o.chunked_queries();
    let first_end = watermarks.keys().next().copied().unwrap_or(usize::MAX);
    let day = |t: &Option<String>| {
        t.as_deref()
            .and_then(|t| NaiveDate::parse_from_str(t.get(..8)?, "%Y%m%d").ok())
    };
    let (mut total, mut first) = (0, 0);
    for (i, q) in chunked.iter().enumerate() {
        let (from, to) = (day(&q.from), day(&q.to));
        // The window query of the same pattern whose window holds this chunk.
        let rows_a_day = queries
            .iter()
            .zip(windows)
            .zip(rows_per_query)
            .find(|((w, &(wf, wt)), _)| {
                w.url == q.url && wf <= from && (wt.is_none() || to.is_some_and(|t| Some(t) <= wt))
            })
            .map_or(0.0, |((_, &(wf, wt)), &rows)| {
                rows as f64 / window_days(wf, wt).max(1) as f64
            });
        let rows = (rows_a_day * window_days(from, to) as f64).ceil() as u64;
        let requests = rows.div_ceil(o.limit.max(1) as u64).max(1);
        total += requests;
        if i <= first_end {
            first += requests;
        }
    }
    (total, first)
}

/// Rows each query would list, from the server's block counts.
async fn count_rows(
    archive: &ArchiveOptions,
    queries: &[crate::cdx::CdxQuery],
    lines_per_row: u64,
    shares: &[f64],
) -> Result<Vec<u64>, crate::error::WaybackError> {
    // The stages' one Archive set-up (endpoint, user agent, politeness).
    let cdx = archive.archive(None)?.cdx(archive.cdx_rate)?;
    let mut rows = Vec::with_capacity(queries.len());
    for (q, share) in queries.iter().zip(shares) {
        let lines = cdx.count_blocks(q).await? * INDEX_LINES_PER_BLOCK;
        rows.push((lines as f64 * share / lines_per_row as f64).ceil() as u64);
    }
    Ok(rows)
}

/// `wayback-fetch`: one page request per capture it receives.
pub(super) fn fetch(o: &FetchOptions, ctx: &DescribeContext<'_>) -> StagePlan {
    let archive = options_of(&o.archive);
    let mut plan = StagePlan {
        politeness: politeness(
            &o.archive,
            &[
                ("page rate", playback_rate(archive.playback_rate)),
                (
                    "in flight",
                    format!(
                        "at most {}: the rate spaces the sends, so what is in flight is the rate times the answer time",
                        o.concurrency
                    ),
                ),
            ],
        ),
        ..StagePlan::default()
    };
    plan.estimate = Some(match ctx.records_in {
        Some(captures) => Estimate {
            requests: Requests {
                page: captures,
                ..Requests::default()
            },
            records_out: Some(captures),
            records_name: "pages".into(),
            hours: hours_at(captures, archive.playback_rate),
            basis: vec![format!(
                "one request per capture listed upstream; redirects between captures (up to {} each) add requests",
                o.max_redirects
            )],
        },
        None => Estimate {
            basis: vec!["one request per capture it receives; the stages upstream cannot say how many".into()],
            ..Estimate::default()
        },
    });
    plan
}

/// `wayback-feeds`: the feed listings, the feed fetches and the article lookups.
pub(super) fn feeds(o: &FeedsOptions, _ctx: &DescribeContext<'_>) -> StagePlan {
    let archive = options_of(&o.archive);
    let days = days_of(&o.windows);
    let per_day = feed_captures_a_day(&o.feed_collapse);
    let feed_fetches = days * per_day * o.feeds.len() as u64;
    let articles = days * ASSUMED_ARTICLES_PER_FEED_DAY * o.feeds.len() as u64;
    let lookups = match o.lookup {
        Lookup::Cdx => articles,
        Lookup::Redirect | Lookup::None => 0,
    };
    let cdx = (o.feeds.len() * o.windows.len()) as u64 + lookups;
    let queries = o
        .windows
        .iter()
        .flat_map(|w| o.feeds.iter().map(move |feed| (*w, feed)))
        .map(|((from, to), feed)| Query {
            what: format!("CDX {feed}"),
            settings: vec![
                ("window".into(), window(from, to)),
                ("collapse".into(), o.feed_collapse.join(", ")),
                (
                    "articles found by".into(),
                    match o.lookup {
                        Lookup::Cdx => format!("one CDX lookup each, within {}", o.lookup_within),
                        Lookup::Redirect => "the Archive's redirect (no CDX request)".into(),
                        Lookup::None => "not looked up: feed items only (the `items` port)".into(),
                    },
                ),
            ],
        })
        .collect();
    StagePlan {
        queries,
        politeness: politeness(
            &o.archive,
            &[
                ("CDX rate", cdx_rate(archive.cdx_rate)),
                ("feed rate", playback_rate(archive.playback_rate)),
            ],
        ),
        estimate: Some(Estimate {
            requests: Requests {
                cdx,
                feed: feed_fetches,
                ..Requests::default()
            },
            records_out: Some(articles),
            records_name: "captures".into(),
            hours: hours_at(cdx, archive.cdx_rate) + hours_at(feed_fetches, archive.playback_rate),
            basis: vec![
                format!(
                    "{per_day} feed capture{} a day per feed (collapse {}) over {days} days",
                    if per_day == 1 { "" } else { "s" },
                    o.feed_collapse.join(", ")
                ),
                format!("assumed {ASSUMED_ARTICLES_PER_FEED_DAY} new articles a day per feed"),
            ],
        }),
    }
}

/// Feed captures a day that `collapse = ["timestamp:N"]` lets through.
fn feed_captures_a_day(collapse: &[String]) -> u64 {
    let digits = collapse
        .iter()
        .find_map(|c| c.strip_prefix("timestamp:")?.parse::<u32>().ok());
    match digits {
        Some(n) if n <= 8 => 1,
        Some(9) => 10,
        Some(10) => 24,
        Some(11) => 144,
        Some(12) => 1440,
        // Uncollapsed or finer: a busy feed is captured about hourly.
        _ => 24,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_count_both_ends_and_collapse_sets_feed_reads() {
        let d = |s: &str| s.parse::<NaiveDate>().ok();
        assert_eq!(window_days(d("2020-01-01"), d("2020-01-31")), 31);
        assert_eq!(window_days(d("2020-02-01"), d("2020-01-01")), 0);
        assert_eq!(feed_captures_a_day(&["timestamp:8".into()]), 1);
        assert_eq!(feed_captures_a_day(&["timestamp:10".into()]), 24);
        assert_eq!(hours_at(1200, 20.0), 1.0);
        assert_eq!(hours_at(1200, 0.0), 0.0);
    }
}
