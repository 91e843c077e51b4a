//! With politeness on: does the achieved request rate match the configured one?
//! Runs for `SECONDS` against an in-process mock with page fetches limited to
//! `PAGE_RATE` a minute (concurrency 2) and CDX queries to `CDX_RATE` a minute at
//! the same time, then compares the rates the server saw.
//!
//! `cargo run --release -p tempora-wayback --example rate_bench -- [SECONDS] [PAGE_RATE] [CDX_RATE]`

mod common;

use std::time::Duration;

use async_trait::async_trait;
use tempora_engine::{Capture, Page, StageError};
use tempora_testkit::{synthetic, Corpus, MockWayback, RequestKind};
use tempora_wayback::cdx::CdxQuery;
use tempora_wayback::crawl::{Crawl, PageSink, Tally};
use tempora_wayback::output::Output;
use tempora_wayback::state::State;

struct Discard;

#[async_trait]
impl PageSink for Discard {
    async fn page(&mut self, _: Page) -> Result<(), StageError> {
        Ok(())
    }
    async fn failed(&mut self, _: Capture, _: String) -> Result<(), StageError> {
        Ok(())
    }
    async fn flush(&mut self) -> Result<(), StageError> {
        Ok(())
    }
    fn stopping(&self) -> bool {
        false
    }
}

fn achieved(server: &MockWayback, kind: RequestKind) -> (usize, f64) {
    let times: Vec<f64> = server
        .requests()
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| r.at.as_secs_f64())
        .collect();
    let span = times.last().unwrap_or(&0.0) - times.first().unwrap_or(&0.0);
    // n requests span n - 1 intervals.
    (
        times.len(),
        (times.len().saturating_sub(1)) as f64 * 60.0 / span.max(1e-9),
    )
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let seconds = args.first().copied().unwrap_or(60.0);
    let page_rate = args.get(1).copied().unwrap_or(120.0);
    let cdx_rate = args.get(2).copied().unwrap_or(20.0);
    let start = chrono::NaiveDate::from_ymd_opt(2015, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or_default();
    let articles = synthetic::articles(5000, start, 7);
    let server = MockWayback::start(Corpus::new(
        articles
            .iter()
            .map(|a| synthetic::article_capture(a, 30, 20_000)),
    ))
    .await?;
    let endpoint = server.endpoint();
    let cdx = common::cdx_client(&endpoint, "bench", cdx_rate)?;
    let lookups = articles.clone();
    let cdx_task = tokio::spawn(async move {
        for a in lookups {
            let q = CdxQuery {
                url: a.url.clone(),
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
    });
    let captures: Vec<Capture> = articles
        .iter()
        .map(|a| Capture {
            url: a.url.clone(),
            timestamp: synthetic::timestamp(a.published + chrono::Duration::minutes(30)),
            status: Some(200),
            mime: "text/html".into(),
            digest: String::new(),
            length: None,
            source: "bench".into(),
        })
        .collect();
    let fetcher = common::page_fetcher(&endpoint, "bench", page_rate)?;
    let mut crawl = Crawl {
        fetcher,
        output: std::sync::Arc::new(
            Output::open(State::in_memory()?, None, "pages", 16 << 20).await?,
        ),
        concurrency: 2,
        commit_every: 64,
        tally: Tally::default(),
    };
    let fetch_task = tokio::spawn(async move {
        let _ = crawl.captures(captures, &mut Discard).await;
    });
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    cdx_task.abort();
    fetch_task.abort();
    for (name, kind, configured) in [
        ("pages", RequestKind::Replay, page_rate),
        ("cdx", RequestKind::Cdx, cdx_rate),
    ] {
        let (n, rate) = achieved(&server, kind);
        println!(
            "{name:<6} configured {configured:>6.1}/min  achieved {rate:>7.2}/min over {n} requests  ({:+.2}%)",
            (rate / configured - 1.0) * 100.0
        );
    }
    Ok(())
}
