//! Throughput of the fetcher with politeness off, against a mock on loopback,
//! side by side with a baseline: plain `reqwest` GETs of the same URLs at the same
//! concurrency (no politeness, no state, no WARC). Reports pages/s and CPU time
//! per page of this process (the mock runs in its own process).
//!
//! ```text
//! cargo build --release -p tempora-testkit --bin mock-wayback -p tempora-wayback --example fetch_bench
//! target/release/mock-wayback 5000 100000 &     # prints its endpoint
//! target/release/examples/fetch_bench http://127.0.0.1:PORT 5000 8
//! ```
//! Arguments: endpoint, pages, concurrency.

mod common;

use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures_util::StreamExt as _;
use tempora_engine::StageError;
use tempora_records::{Capture, Page};
use tempora_wayback::cdx::CdxQuery;
use tempora_wayback::crawl::{Crawl, PageSink, Tally};
use tempora_wayback::lister::{CdxLister, Keep, ListerConfig, Listing};
use tempora_wayback::output::{Known, Output};
use tempora_wayback::state::State;

/// User + system CPU time of this process (Linux, 100 ticks a second).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0)
        + fields.get(12).and_then(|f| f.parse().ok()).unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

struct Count {
    pages: u64,
    bytes: u64,
}

#[async_trait]
impl PageSink for Count {
    async fn page(&mut self, page: Page) -> Result<(), StageError> {
        self.pages += 1;
        self.bytes += page.body.len() as u64;
        Ok(())
    }
    async fn failed(&mut self, c: Capture, reason: String) -> Result<(), StageError> {
        eprintln!("failed {}: {reason}", c.url);
        Ok(())
    }
    async fn flush(&mut self) -> Result<(), StageError> {
        Ok(())
    }
    fn stopping(&self) -> bool {
        false
    }
}

fn report(name: &str, pages: u64, bytes: u64, wall: Duration, cpu: Duration) -> f64 {
    let rate = pages as f64 / wall.as_secs_f64();
    println!(
        "{name:<28} {pages:>6} pages {:>8.1} MB  {:>7.0} pages/s  {:>7.1} µs CPU/page  ({:.2} s wall, {:.2} s CPU)",
        bytes as f64 / 1e6,
        rate,
        cpu.as_secs_f64() * 1e6 / pages.max(1) as f64,
        wall.as_secs_f64(),
        cpu.as_secs_f64()
    );
    rate
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let endpoint = args
        .first()
        .cloned()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let want: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let concurrency: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(8);
    let captures = list_captures(&endpoint, want).await?;
    let n = captures.len() as u64;
    println!("{n} captures, concurrency {concurrency}, endpoint {endpoint}");
    let base = baseline(&endpoint, &captures, concurrency).await?;
    for (name, durable) in [
        ("crawler, no state/WARC", false),
        ("crawler, state + WARC", true),
    ] {
        let rate = crawler(name, durable, &endpoint, &captures, concurrency).await?;
        println!("{:<28} ratio to baseline: {:.2}", "", rate / base);
    }
    Ok(())
}

/// The captures to fetch: the first `want` of the mock's listing.
async fn list_captures(endpoint: &str, want: u64) -> anyhow::Result<Vec<Capture>> {
    let cdx = common::cdx_client(endpoint, "bench", 0.0)?;
    let mut lister = CdxLister::new(
        cdx,
        State::in_memory()?,
        ListerConfig {
            listing: Listing::Queries(vec![CdxQuery {
                url: "bbc.co.uk/news/*".into(),
                match_type: None,
                from: None,
                to: None,
                filters: vec!["statuscode:200".into()],
                collapse: vec!["urlkey".into()],
                page_size: 10_000,
            }]),
            keep: Keep::Earliest,
            incremental: false,
            overlap_secs: 0,
            source: "bench".into(),
        },
    );
    let mut captures = Vec::new();
    while let Some(step) = lister.next().await? {
        captures.extend(step.captures);
    }
    captures.truncate(usize::try_from(want).unwrap_or(usize::MAX));
    Ok(captures)
}

/// Baseline: plain reqwest, same URLs, same concurrency, bodies gunzipped like
/// ours; reports it and gives its pages a second.
async fn baseline(endpoint: &str, captures: &[Capture], concurrency: usize) -> anyhow::Result<f64> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let urls: Vec<String> = captures
        .iter()
        .map(|c| format!("{endpoint}/web/{}id_/{}", c.timestamp, c.url))
        .collect();
    let (t, c) = (Instant::now(), cpu());
    let bytes: u64 = futures_util::stream::iter(urls.iter())
        .map(|u| {
            let http = http.clone();
            async move {
                let Ok(r) = http.get(u).header("accept-encoding", "gzip").send().await else {
                    return 0;
                };
                let raw = r.bytes().await.unwrap_or_default();
                let mut body = Vec::new();
                let _ = std::io::Read::read_to_end(
                    &mut flate2::read::MultiGzDecoder::new(&raw[..]),
                    &mut body,
                );
                body.len() as u64
            }
        })
        .buffered(concurrency)
        .fold(0, |a, b| async move { a + b })
        .await;
    let n = captures.len() as u64;
    Ok(report(
        "baseline reqwest GET",
        n,
        bytes,
        t.elapsed(),
        cpu() - c,
    ))
}

/// The crawler fetching the same captures, with its state and WARC output
/// (`durable`) or without; reports it and gives its pages a second.
async fn crawler(
    name: &str,
    durable: bool,
    endpoint: &str,
    captures: &[Capture],
    concurrency: usize,
) -> anyhow::Result<f64> {
    let dir = tempfile::tempdir()?;
    let state = if durable {
        State::open(&dir.path().join("s.sqlite"))?
    } else {
        State::in_memory()?
    };
    let warc = durable.then(|| dir.path().join("warc"));
    let output = Output::open(state, warc.as_deref(), "pages", 16 << 20, Known::Skip).await?;
    let fetcher = common::page_fetcher(endpoint, "bench", 0.0)?;
    let mut crawl = Crawl {
        fetcher,
        output: std::sync::Arc::new(output),
        concurrency,
        commit_every: 256,
        tally: Tally::default(),
    };
    let mut sink = Count { pages: 0, bytes: 0 };
    let (t, c) = (Instant::now(), cpu());
    crawl.captures(captures.to_vec(), &mut sink).await?;
    Ok(report(name, sink.pages, sink.bytes, t.elapsed(), cpu() - c))
}
