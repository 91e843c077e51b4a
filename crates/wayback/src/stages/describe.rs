//! What the wayback stages share when they tell `tempora run --dry-run` their
//! CDX queries, politeness and estimates (each stage's own plan is beside it:
//! `cdx_plan`, `feeds_stage`, `fetch_stage`): the assumptions, windows, rates
//! and hours.
//!
//! Without `--estimate` the figures rest on the assumptions below, printed with
//! them. With `--estimate`, `wayback-cdx` asks the CDX server how many index
//! blocks each URL pattern spans (one request per pattern) and starts from that.

use chrono::{NaiveDate, Utc};

use super::options::{source_of, ArchiveOptions, ArchiveSetting};
use super::windows::Span;

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
pub(super) fn archive_start() -> NaiveDate {
    NaiveDate::from_ymd_opt(1996, 1, 1).unwrap_or_default()
}

/// Days of the window `from..=to` (open ends: the Archive's start, today).
pub(super) fn window_days(from: Option<NaiveDate>, to: Option<NaiveDate>) -> u64 {
    let from = from.unwrap_or_else(archive_start);
    let to = to.unwrap_or_else(|| Utc::now().date_naive());
    u64::try_from((to - from).num_days() + 1).unwrap_or(0)
}

pub(super) fn window(from: Option<NaiveDate>, to: Option<NaiveDate>) -> String {
    let from = from.map_or("the Archive's start".into(), |d| d.to_string());
    let to = to.map_or("today".into(), |d| d.to_string());
    format!("{from} to {to}")
}

/// Hours `requests` take at `rate` a minute (0 = no limit).
pub(super) fn hours_at(requests: u64, rate: f64) -> f64 {
    if rate > 0.0 {
        requests as f64 / rate / 60.0
    } else {
        0.0
    }
}

pub(super) fn rate(rate: f64, what: &str) -> String {
    if rate > 0.0 {
        format!("{rate} {what} a minute")
    } else {
        format!("no limit on {what}")
    }
}

/// The Archive's options of a stage: its own, or those of the stage it names
/// (the defaults if that stage could not be read; the plan says why).
pub(super) fn options_of(setting: &ArchiveSetting) -> ArchiveOptions {
    setting.options().cloned().unwrap_or_default()
}

/// Where the limits come from, the rates this stage uses, the pauses and retries, in words.
pub(super) fn politeness(
    setting: &ArchiveSetting,
    rates: &[(&str, String)],
) -> Vec<(String, String)> {
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
        ("timeout".into(), p.timeout.to_string()),
    ]);
    out
}

/// The CDX pool's rate in words, with the Archive's limit.
pub(super) fn cdx_rate(rate_per_minute: f64) -> String {
    format!(
        "{} (CDX search and timemaps, one pool; the Archive allows {} a minute per IP)",
        rate(rate_per_minute, "requests"),
        tempora_http::politeness::ARCHIVE_CDX_LIMIT
    )
}

/// The playback pool's rate in words, with the Archive's limit.
pub(super) fn playback_rate(rate_per_minute: f64) -> String {
    format!(
        "{} (pages and feeds, redirects and retries counted, one pool; the Archive allows {} a minute per IP)",
        rate(rate_per_minute, "requests"),
        tempora_http::politeness::ARCHIVE_PLAYBACK_LIMIT
    )
}

/// Days of every window.
pub(super) fn days_of(windows: &[Span]) -> u64 {
    windows
        .iter()
        .map(|&(from, to)| window_days(from, to))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_count_both_ends_and_hours_follow_the_rate() {
        let d = |s: &str| s.parse::<NaiveDate>().ok();
        assert_eq!(window_days(d("2020-01-01"), d("2020-01-31")), 31);
        assert_eq!(window_days(d("2020-02-01"), d("2020-01-01")), 0);
        assert_eq!(hours_at(1200, 20.0), 1.0);
        assert_eq!(hours_at(1200, 0.0), 0.0);
    }
}
