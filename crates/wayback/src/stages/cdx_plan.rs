//! What `wayback-cdx` tells the dry run: one query per window and URL pattern,
//! the listing's CDX requests (in chunks of days), and when fetching can start.

use crate::archive;
use tempora_engine::{DescribeContext, Estimate, Query, Requests, StagePlan};

use super::cdx_options::CdxOptions;
use super::describe::{
    cdx_rate, days_of, hours_at, options_of, politeness, window, window_days,
    ASSUMED_LINES_PER_COLLAPSED_ROW, ASSUMED_LINES_PER_FILTERED_ROW,
    ASSUMED_LISTED_PER_PATTERN_DAY,
};
use super::options::ArchiveOptions;
use super::windows::Span;
use crate::cdx::INDEX_LINES_PER_BLOCK;
use crate::cells::{Cell, Cells};
use crate::state::listings::count_within;

/// `wayback-cdx`: one query per window and URL pattern, and its listing's cost.
pub(super) async fn describe(o: &CdxOptions, ctx: &DescribeContext<'_>) -> StagePlan {
    let (query_windows, queries): (Vec<Span>, Vec<_>) = o.windowed_queries().into_iter().unzip();
    let archive = options_of(&o.archive);
    let described = describe_queries(&queries, &query_windows);
    let mut basis = Vec::new();
    let rows_per_query =
        listed_rows(o, ctx, &archive, (&query_windows, &queries), &mut basis).await;
    let state = open_state(o.state.as_deref());
    let cells = held_cells(state.as_ref());
    let listing = chunked_requests(
        o,
        (&query_windows, &queries, &rows_per_query),
        &cells,
        state.as_ref(),
    );
    basis.push(chunking_basis(o, &listing, archive.cdx_rate));
    if listing.read_back > 0 {
        basis.push(format!(
            "{} of the {} chunks are read back from the crawl state's listings (no request), \
             with the {} captures they hold",
            listing.read_back, listing.chunks, listing.read_back_rows
        ));
    }
    let requests = listing.requests;
    // The chunks read back count what they hold, the others what is assumed.
    let mut captures: u64 = rows_per_query
        .iter()
        .sum::<u64>()
        .saturating_sub(listing.read_back_assumed)
        + listing.read_back_rows;
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
            requests: Requests::of(archive::CDX, requests),
            records_out: Some(captures),
            records_name: "captures".into(),
            hours: hours_at(requests, archive.cdx_rate),
            basis,
        }),
    }
}

/// The dry run's line for each window's query: its pattern and settings.
fn describe_queries(queries: &[crate::cdx::CdxQuery], windows: &[Span]) -> Vec<Query> {
    queries
        .iter()
        .zip(windows)
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
        .collect()
}

/// Rows each window's query is expected to list: counted on the CDX server when
/// the dry run may go online (`--estimate`), assumed otherwise or when counting
/// fails. Adds to `basis` how the figures were found.
async fn listed_rows(
    o: &CdxOptions,
    ctx: &DescribeContext<'_>,
    archive: &ArchiveOptions,
    (windows, queries): (&[Span], &[crate::cdx::CdxQuery]),
    basis: &mut Vec<String>,
) -> Vec<u64> {
    let collapsed = queries
        .first()
        .is_some_and(|q| q.collapse.iter().any(|c| c == "urlkey"));
    let lines_per_row = if collapsed {
        ASSUMED_LINES_PER_COLLAPSED_ROW
    } else {
        ASSUMED_LINES_PER_FILTERED_ROW
    };
    let days = days_of(&o.windows);
    let mut rows_per_query: Vec<u64> = Vec::new();
    if ctx.online {
        rows_per_query =
            counted_rows(archive, (windows, queries), lines_per_row, days, basis).await;
    }
    if rows_per_query.is_empty() {
        rows_per_query = windows
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
    rows_per_query
}

/// Rows each window's query lists, from the CDX server's count of its pattern
/// scaled to the window's share of days; empty when the server could not be
/// asked. Adds to `basis` what was asked, or why counting failed.
async fn counted_rows(
    archive: &ArchiveOptions,
    (windows, queries): (&[Span], &[crate::cdx::CdxQuery]),
    lines_per_row: u64,
    days: u64,
    basis: &mut Vec<String>,
) -> Vec<u64> {
    let all_days = window_days(None, None).max(1) as f64;
    let shares: Vec<f64> = windows
        .iter()
        .map(|&(from, to)| (window_days(from, to) as f64 / all_days).min(1.0))
        .collect();
    match count_rows(archive, queries, lines_per_row, &shares).await {
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
            rows
        }
        Err(e) => {
            basis.push(format!(
                "could not count on the CDX server ({e}); the assumptions below are used instead"
            ));
            Vec::new()
        }
    }
}

/// The basis line on how the listing is cut in chunks of days, and so when
/// fetching can start.
fn chunking_basis(o: &CdxOptions, listing: &ChunkedRequests, cdx_rate: f64) -> String {
    if o.chunk_days == 0 {
        return "each window is listed whole, pattern after pattern (`chunk_days = 0`): what \
                comes after decides only once the whole listing has ended"
            .into();
    }
    format!(
        "listed {} days at a time to start with, every pattern of a chunk before the next, \
         the span doubling after a chunk that lists less than half a page and halving after \
         one that needs more ({} chunks, {} queries at the rows assumed): fetching starts once \
         the first chunk is listed, after about {} CDX request{} ({:.1} minutes at the CDX \
         rate), not after the whole listing",
        o.chunk_days,
        listing.chunks,
        listing.queries,
        listing.first_chunk,
        if listing.first_chunk == 1 { "" } else { "s" },
        hours_at(listing.first_chunk, cdx_rate) * 60.0
    )
}

/// What the chunked listing asks for at the rows assumed.
struct ChunkedRequests {
    /// CDX requests in all.
    requests: u64,
    /// CDX requests of the first chunk.
    first_chunk: u64,
    chunks: u64,
    queries: u64,
    /// Chunks read back from the state's listings.
    read_back: u64,
    /// Rows those chunks hold in the state.
    read_back_rows: u64,
    /// Rows assumed for those chunks, which their held rows replace.
    read_back_assumed: u64,
}

/// The crawl state at `path`, read-only, so a crawl running meanwhile is not
/// disturbed; `None` without one, or when it cannot be opened.
fn open_state(path: Option<&std::path::Path>) -> Option<rusqlite::Connection> {
    let path = path.filter(|p| p.is_file())?;
    rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()
}

/// The listings the crawl state holds (none without one, or when it cannot be
/// read: the dry run then plans a fresh listing).
fn held_cells(state: Option<&rusqlite::Connection>) -> Cells {
    state.and_then(|c| Cells::load(c).ok()).unwrap_or_default()
}

/// Adds to `held` the captures (URL, time) of `o`'s windows and patterns whose
/// page is in the WARC files of the crawl state at `state` (see
/// [`crate::state::captures::held_pages`]): those of every listing the state holds
/// of each query's family, within the query's window. `None` without a state
/// that can be read.
pub(crate) fn held_pages(
    o: &CdxOptions,
    state: &std::path::Path,
    held: &mut std::collections::HashSet<(String, String)>,
) -> Option<()> {
    let conn = open_state(Some(state))?;
    let cells = Cells::load(&conn).ok()?;
    for (_, query) in o.windowed_queries() {
        let first = query.from.clone().unwrap_or_default();
        let last = query.to.clone().unwrap_or_else(|| "~".into());
        for cell in cells.of(&query) {
            let id = cell.query(&query).id();
            let pages = crate::state::captures::held_pages(&conn, &id, (&first, &last)).ok()?;
            held.extend(pages);
        }
    }
    Some(())
}

/// The chunked listing as it would go if each chunk query listed its share of
/// days of the rows `rows_per_query` gives its window's query of the same
/// pattern, in pages of `limit` rows (at least one request each): the chunks
/// adapt to those rows as a run's adapt to what it lists, and follow `cells`,
/// the listings the state holds, which are read back without a request.
fn chunked_requests(
    o: &CdxOptions,
    (windows, queries, rows_per_query): (&[Span], &[crate::cdx::CdxQuery], &[u64]),
    cells: &Cells,
    state: Option<&rusqlite::Connection>,
) -> ChunkedRequests {
    let day = |t: &Option<String>| {
        t.as_deref()
            .and_then(tempora_wayback_format::timestamp::parse)
            .map(|t| t.date())
    };
    let mut listing = o.listing();
    let mut out = ChunkedRequests {
        requests: 0,
        first_chunk: 0,
        chunks: 0,
        queries: 0,
        read_back: 0,
        read_back_rows: 0,
        read_back_assumed: 0,
    };
    while let Some(chunk) = listing.next_chunk(cells) {
        let mut most = 0;
        for q in &chunk.queries {
            let (from, to) = (day(&q.from), day(&q.to));
            // The window query of the same pattern whose window holds this chunk.
            let rows_a_day = queries
                .iter()
                .zip(windows)
                .zip(rows_per_query)
                .find(|((w, &(wf, wt)), _)| {
                    w.url == q.url
                        && wf <= from
                        && (wt.is_none() || to.is_some_and(|t| Some(t) <= wt))
                })
                .map_or(0.0, |((_, &(wf, wt)), &rows)| {
                    rows as f64 / window_days(wf, wt).max(1) as f64
                });
            let mut rows = (rows_a_day * window_days(from, to) as f64).ceil() as u64;
            if chunk.cell.is_some() {
                // Read back: the rows the state holds, not the assumption.
                let (id, within) = Cell::rows_of(chunk.cell, q);
                let held = state.and_then(|c| count_within(c, &id, &within).ok());
                out.read_back_assumed += rows;
                rows = held.unwrap_or(rows);
                out.read_back_rows += rows;
            } else {
                out.requests += rows.div_ceil(o.limit.max(1) as u64).max(1);
            }
            most = most.max(rows);
            out.queries += 1;
        }
        out.read_back += u64::from(chunk.cell.is_some());
        listing.found(most);
        out.chunks += 1;
        if out.chunks == 1 {
            out.first_chunk = out.requests;
        }
    }
    out
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
