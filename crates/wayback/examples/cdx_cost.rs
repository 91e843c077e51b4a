//! How many CDX requests does one year of a news site cost, by prefix scan and by
//! feeds? Builds a synthetic year on the in-process mock (ARTICLES a day, each
//! captured 3 times; OTHER non-article URLs a day under /news/, each captured 5
//! times; the RSS feed captured hourly), runs both ways with the crawler's own
//! code, and counts requests at the server.
//!
//! `cargo run --release -p tempora-wayback --example cdx_cost -- [ARTICLES] [OTHER] [PAGE_SIZE]`

mod common;

use chrono::{Duration as Span, NaiveDate};
use tempora_testkit::{synthetic, Corpus, MockCapture, MockWayback, RequestKind};
use tempora_wayback::cdx::CdxQuery;
use tempora_wayback::discover::{DiscoveryConfig, FeedDiscovery, Lookup};
use tempora_wayback::lister::{CdxLister, Keep, ListerConfig, Listing};
use tempora_wayback::state::State;

const FEED: &str = "http://feeds.bbci.co.uk/news/rss.xml";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let per_day = args.first().copied().unwrap_or(10);
    let other_per_day = args.get(1).copied().unwrap_or(40);
    let page_size = args.get(2).copied().unwrap_or(5000);
    let (articles, captures) = synthetic_year(per_day, other_per_day);
    let total = captures.len();
    let server = MockWayback::start(Corpus::new(captures)).await?;
    let endpoint = server.endpoint();
    println!(
        "synthetic year: {} articles, {} other URLs, {total} captures",
        articles.len(),
        other_per_day * 365
    );

    let listed = prefix_scan(&endpoint, page_size).await?;
    let count = |kind| {
        server
            .log()
            .requests()
            .iter()
            .filter(|r| r.kind == kind)
            .count()
    };
    let prefix_cdx = count(RequestKind::Cdx);
    println!("prefix scan: {prefix_cdx} CDX requests (page size {page_size}), {listed} URLs to fetch (articles and everything else)");
    server.log().clear();

    let found = feed_discovery(&endpoint).await?;
    println!(
        "feeds: {} CDX requests ({} feed captures read), {found} article URLs to fetch",
        count(RequestKind::Cdx),
        count(RequestKind::Replay)
    );
    Ok(())
}

/// The synthetic year of 2019: `per_day` articles a day, each captured 3
/// times; `other_per_day` other URLs a day under /news/, each captured 5 times;
/// the RSS feed of the last day's articles captured hourly.
fn synthetic_year(
    per_day: usize,
    other_per_day: usize,
) -> (Vec<synthetic::SyntheticArticle>, Vec<MockCapture>) {
    let start = NaiveDate::from_ymd_opt(2019, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or_default();
    let articles = synthetic::articles(per_day * 365, start, 24 * 60 / per_day as i64);
    let mut captures: Vec<MockCapture> = Vec::new();
    for a in &articles {
        for delay in [30, 60 * 24, 60 * 24 * 90] {
            captures.push(synthetic::article_capture(a, delay, 300));
        }
    }
    for day in 0..365i64 {
        for i in 0..other_per_day {
            let url = format!("http://www.bbc.co.uk/news/live/other-{day}-{i}");
            for k in 0..5 {
                let at = start + Span::days(day) + Span::hours(k * 4);
                captures.push(MockCapture::html(
                    &url,
                    &synthetic::timestamp(at),
                    format!("o{k}"),
                ));
            }
        }
        for hour in 0..24 {
            let at = start + Span::days(day) + Span::hours(hour);
            let items: Vec<_> = articles
                .iter()
                .filter(|a| a.published <= at && a.published > at - Span::days(1))
                .cloned()
                .collect();
            captures.push(synthetic::xml_capture(
                FEED,
                at,
                &synthetic::rss_feed(&items),
            ));
        }
    }
    (articles, captures)
}

/// Lists the year under `bbc.co.uk/news/` by prefix scan, one capture per URL;
/// the URLs to fetch.
async fn prefix_scan(endpoint: &str, page_size: usize) -> anyhow::Result<usize> {
    let mut lister = CdxLister::new(
        common::cdx_client(endpoint, "cost", 0.0)?,
        State::in_memory()?,
        ListerConfig {
            listing: Listing::Queries(vec![CdxQuery {
                url: "bbc.co.uk/news/*".into(),
                match_type: None,
                from: Some("20190101000000".into()),
                to: Some("20191231235959".into()),
                filters: vec!["statuscode:200".into(), "mimetype:text/html".into()],
                collapse: vec!["urlkey".into()],
                page_size,
            }]),
            keep: Keep::Earliest,
            incremental: false,
            overlap_secs: 0,
            source: "prefix".into(),
        },
    );
    let mut listed = 0;
    while let Some(step) = lister.next().await? {
        listed += step.captures.len();
    }
    Ok(listed)
}

/// Finds the year's articles from the feed's daily captures, one CDX lookup per
/// article; the article URLs to fetch.
async fn feed_discovery(endpoint: &str) -> anyhow::Result<usize> {
    let fetcher = common::page_fetcher(endpoint, "cost", 0.0)?;
    let mut discovery = FeedDiscovery::new(
        common::cdx_client(endpoint, "cost", 0.0)?,
        fetcher,
        State::in_memory()?,
        DiscoveryConfig {
            feeds: vec![FEED.into()],
            windows: vec![(Some("20190101000000".into()), Some("20191231235959".into()))],
            feed_collapse: vec!["timestamp:8".into()],
            lookup: Lookup::Cdx,
            lookup_within: 30 * 86_400,
            incremental: false,
            source: "feeds".into(),
        },
    );
    let mut found = 0;
    while let Some(step) = discovery.next().await? {
        found += step.captures.len();
    }
    Ok(found)
}
