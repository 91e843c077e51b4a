//! The crawl's pace against the Archive's own limits: the testkit's model of
//! them (600 playback and 30 CDX requests a minute, 429 without `Retry-After`
//! above, a firewall for clients that send into 429s) with every answer taking
//! 0.7 s, captures handed to the fetcher one at a time (as `prefetch` hands
//! them) and CDX queries going at the same time. Runs the old defaults (pages
//! 30 a minute, 2 in flight; CDX 20 a minute) and the new ones (80% of the
//! limits: 480 and 24 a minute, up to 32 in flight) side by side and prints what
//! the server saw, per model minute.
//!
//! `cargo run --release -p tempora-wayback --example pace_bench -- [MINUTES] [FASTER]`
//!
//! MINUTES of model time per setting (default 3); FASTER runs the model's clock
//! (and the client's rates) that many times faster (default 1: real time).

#[path = "../tests/common/one_by_one.rs"]
mod one_by_one;

use std::time::Duration;

use one_by_one::OneByOne;
use tempora_http::politeness::{Politeness, RequestClass};
use tempora_testkit::{synthetic, ArchiveLimits, Corpus, MockWayback, Outcome, RequestKind};
use tempora_wayback::cdx::{CdxClient, CdxQuery};
use tempora_wayback::crawl::{Crawl, Tally};
use tempora_wayback::output::{Known, Output};
use tempora_wayback::state::State;

struct Setting {
    name: &'static str,
    page_rate: f64,
    cdx_rate: f64,
    concurrency: usize,
}

struct Seen {
    pages_per_minute: f64,
    busiest_playback: usize,
    busiest_cdx: usize,
    refused: usize,
    resets: usize,
    in_flight: usize,
}

/// Runs `setting` for `minutes` of model time against a mock of the Archive's
/// limits whose clock goes `faster`; what the server saw.
async fn run(setting: &Setting, minutes: f64, faster: u32) -> anyhow::Result<Seen> {
    let start = chrono::NaiveDate::from_ymd_opt(2015, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or_default();
    // Enough for the new defaults' pace, with room.
    let n = (minutes * 600.0) as usize + 100;
    let articles = synthetic::articles(n, start, 7);
    let server = MockWayback::start(Corpus::new(
        articles
            .iter()
            .map(|a| synthetic::article_capture(a, 30, 20_000)),
    ))
    .await?;
    let limits = ArchiveLimits::real().faster(faster);
    server.enforce(limits.clone());
    let endpoint = server.endpoint();
    let scale = f64::from(faster);
    let politeness = Politeness {
        min_pause: Duration::from_secs(60) / faster,
        block_pause: Duration::from_secs(300) / faster,
        ..Politeness::default_for(RequestClass::Page)
    };
    let archive =
        tempora_wayback::archive::Archive::new(&endpoint, None, Some("pace-bench"), politeness);
    let cdx_task = spawn_lookups(
        archive.cdx(setting.cdx_rate * scale)?,
        articles.iter().map(|a| a.url.clone()).collect(),
    );
    let mut crawl = Crawl {
        fetcher: archive.fetcher(setting.page_rate * scale, Default::default())?,
        output: std::sync::Arc::new(
            Output::open(State::in_memory()?, None, "pages", 16 << 20, Known::Skip).await?,
        ),
        concurrency: setting.concurrency,
        commit_every: 64,
        tally: Tally::default(),
    };
    let captures = articles
        .iter()
        .map(|a| synthetic::listed_capture(a, 30))
        .collect();
    let fetch_task = tokio::spawn(async move {
        let mut sink = OneByOne::new(captures);
        let _ = crawl.run(Vec::new(), &mut sink).await;
    });
    tokio::time::sleep(Duration::from_secs_f64(minutes * 60.0 / scale)).await;
    cdx_task.abort();
    fetch_task.abort();
    Ok(seen(&server, &limits, minutes))
}

/// CDX queries going on beside the crawl: one lookup per URL, until one fails.
fn spawn_lookups(cdx: CdxClient, urls: Vec<String>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        for url in urls {
            let q = CdxQuery {
                url,
                match_type: None,
                from: None,
                to: None,
                filters: Vec::new(),
                collapse: Vec::new(),
                page_size: 1,
            };
            if cdx.page(&q, None).await.is_err() {
                break;
            }
        }
    })
}

/// What the server saw over `minutes` of model time.
fn seen(server: &MockWayback, limits: &ArchiveLimits, minutes: f64) -> Seen {
    let requests = server.log().requests();
    let served = requests
        .iter()
        .filter(|r| r.kind == RequestKind::Replay && r.outcome == Outcome::Status(200))
        .count();
    Seen {
        pages_per_minute: served as f64 / minutes,
        busiest_playback: server.log().busiest(RequestKind::Replay, limits.window),
        busiest_cdx: server.log().busiest(RequestKind::Cdx, limits.window),
        refused: requests
            .iter()
            .filter(|r| r.outcome == Outcome::Status(429))
            .count(),
        resets: requests
            .iter()
            .filter(|r| r.outcome == Outcome::Reset)
            .count(),
        in_flight: server.log().most_in_flight(),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let minutes: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(3.0);
    let faster: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let settings = [
        Setting {
            name: "old defaults",
            page_rate: 30.0,
            cdx_rate: 20.0,
            concurrency: 2,
        },
        Setting {
            name: "new defaults",
            page_rate: 480.0,
            cdx_rate: 24.0,
            concurrency: 32,
        },
    ];
    println!(
        "Archive model: 600 playback / 30 CDX a minute, answers after 0.7 s; {minutes} model minutes each, clock x{faster}"
    );
    println!(
        "{:<13} {:>10} {:>16} {:>11} {:>6} {:>7} {:>10} {:>12}",
        "setting",
        "pages/min",
        "busiest playback",
        "busiest CDX",
        "429s",
        "resets",
        "in flight",
        "pages a day"
    );
    let mut base = None;
    for setting in &settings {
        let seen = run(setting, minutes, faster).await?;
        let per_day = seen.pages_per_minute * 1440.0;
        println!(
            "{:<13} {:>10.1} {:>16} {:>11} {:>6} {:>7} {:>10} {:>12.0}",
            setting.name,
            seen.pages_per_minute,
            seen.busiest_playback,
            seen.busiest_cdx,
            seen.refused,
            seen.resets,
            seen.in_flight,
            per_day
        );
        let base = *base.get_or_insert(seen.pages_per_minute);
        println!(
            "{:<13} ratio to old defaults: {:.1}",
            "",
            seen.pages_per_minute / base
        );
    }
    Ok(())
}
