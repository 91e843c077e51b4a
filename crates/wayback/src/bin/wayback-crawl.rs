//! A standalone crawl without a pipeline: list captures of URL patterns and fetch
//! them into WARC files, with the same code and state as the `wayback-cdx` and
//! `wayback-fetch` stages. Pages emitted by this run go to `--pages-out` as JSON
//! lines (written from scratch each run). Used by the kill-and-restart test; built
//! with the crate's `testing` feature only (as its tests build it).
//!
//! `wayback-crawl --endpoint URL --state FILE --warc-out DIR --pages-out FILE PATTERN... [options]`

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use async_trait::async_trait;
use clap::Parser;
use tempora_engine::StageError;
use tempora_http::politeness::{Politeness, RequestClass};
use tempora_records::{Capture, Page};
use tempora_wayback::archive::{Archive, DEFAULT_ENDPOINT};
use tempora_wayback::cdx::{default_filters, CdxClient, CdxQuery};
use tempora_wayback::crawl::{Crawl, PageSink, Tally};
use tempora_wayback::fetch::FetchConfig;
use tempora_wayback::lister::{CdxLister, Keep, ListerConfig, Listing};
use tempora_wayback::output::{Known, Output};
use tempora_wayback::state::State;

#[derive(Parser)]
#[command(about = "List and fetch Wayback captures into WARC files (resumable, kill-safe)")]
struct Args {
    /// URL patterns.
    #[arg(required = true)]
    patterns: Vec<String>,
    /// Wayback endpoint.
    #[arg(long, default_value = DEFAULT_ENDPOINT)]
    endpoint: String,
    /// SQLite state file.
    #[arg(long)]
    state: PathBuf,
    /// WARC directory.
    #[arg(long)]
    warc_out: PathBuf,
    /// Pages emitted by this run, as JSON lines.
    #[arg(long)]
    pages_out: PathBuf,
    /// CDX requests a minute (0: unlimited).
    #[arg(long, default_value_t = 20.0)]
    cdx_rate: f64,
    /// Page requests a minute (0: unlimited).
    #[arg(long, default_value_t = 30.0)]
    page_rate: f64,
    /// Requests in flight.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// Rows per CDX request.
    #[arg(long, default_value_t = 5000)]
    limit: usize,
    /// Pages per durable commit.
    #[arg(long, default_value_t = 64)]
    commit_every: usize,
    /// Only captures newer than the last completed listing.
    #[arg(long)]
    incremental: bool,
    /// Shortest pause after a 429, e.g. 60s.
    #[arg(long, default_value = "60s", value_parser = humantime::parse_duration)]
    min_pause: Duration,
    /// Pause after a refused or reset connection.
    #[arg(long, default_value = "5m", value_parser = humantime::parse_duration)]
    block_pause: Duration,
    /// First retry delay.
    #[arg(long, default_value = "2s", value_parser = humantime::parse_duration)]
    backoff: Duration,
    /// Contact for the User-Agent.
    #[arg(long)]
    contact: Option<String>,
}

struct JsonLines {
    out: std::io::BufWriter<std::fs::File>,
    failed: u64,
    /// The listing, batch by batch, from the task that runs it.
    listed: tokio::sync::mpsc::Receiver<anyhow::Result<Vec<Capture>>>,
}

#[async_trait]
impl PageSink for JsonLines {
    async fn page(&mut self, page: Page) -> Result<(), StageError> {
        let line = serde_json::to_string(&page).map_err(|e| StageError::internal(e.to_string()))?;
        writeln!(self.out, "{line}").map_err(|e| StageError::external(e.to_string()))
    }

    async fn failed(&mut self, capture: Capture, reason: String) -> Result<(), StageError> {
        self.failed += 1;
        eprintln!("failed: {} {}: {reason}", capture.timestamp, capture.url);
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), StageError> {
        self.out
            .flush()
            .map_err(|e| StageError::external(e.to_string()))
    }

    fn stopping(&self) -> bool {
        false
    }

    async fn next_captures(&mut self) -> Result<Option<Vec<Capture>>, StageError> {
        match self.listed.recv().await {
            Some(Ok(captures)) => Ok(Some(captures)),
            Some(Err(e)) => Err(StageError::external(format!("{e:#}"))),
            None => Ok(None),
        }
    }
}

fn archive(args: &Args) -> Archive {
    let politeness = Politeness {
        min_pause: args.min_pause,
        block_pause: args.block_pause,
        backoff: args.backoff,
        ..Politeness::default_for(RequestClass::Cdx)
    };
    let archive = Archive::new(&args.endpoint, args.contact.as_deref(), None, politeness);
    archive.with_state(Some(&args.state))
}

/// The listing of the patterns, whole (no window), each capture's earliest
/// version kept.
fn lister(args: &Args, cdx: CdxClient, state: State) -> CdxLister {
    let queries = args
        .patterns
        .iter()
        .map(|p| CdxQuery {
            url: p.clone(),
            match_type: None,
            from: None,
            to: None,
            filters: default_filters(),
            collapse: Keep::Earliest.default_collapse(),
            page_size: args.limit,
        })
        .collect();
    CdxLister::new(
        cdx,
        state,
        ListerConfig {
            listing: Listing::Queries(queries),
            keep: Keep::Earliest,
            incremental: args.incremental,
            overlap_secs: 0,
            source: "captures".into(),
        },
    )
}

/// The fetch run: pages into the WARC directory, recorded in `state`.
async fn crawl(args: &Args, archive: &Archive, state: State) -> anyhow::Result<Crawl> {
    let limits = FetchConfig::default();
    let max_body = limits.max_body;
    let fetcher = archive.fetcher(args.page_rate, limits)?;
    let output = Output::open(state, Some(&args.warc_out), "pages", max_body, Known::Skip).await?;
    Ok(Crawl {
        fetcher,
        output: std::sync::Arc::new(output),
        concurrency: args.concurrency,
        commit_every: args.commit_every,
        tally: Tally::default(),
    })
}

/// Runs the listing beside the fetching, a batch or two ahead of it: its
/// batches come out of the receiver, up to its first error.
fn spawn_listing(
    mut lister: CdxLister,
) -> (
    tokio::task::JoinHandle<()>,
    tokio::sync::mpsc::Receiver<anyhow::Result<Vec<Capture>>>,
) {
    let (tx, listed) = tokio::sync::mpsc::channel(2);
    let listing = tokio::spawn(async move {
        loop {
            let next = lister.next().await.map_err(anyhow::Error::from);
            let batch = match next {
                Ok(Some(l)) => Ok(l.captures),
                Ok(None) => return,
                Err(e) => Err(e),
            };
            let failed = batch.is_err();
            if tx.send(batch).await.is_err() || failed {
                return;
            }
        }
    });
    (listing, listed)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber_init();
    let args = Args::parse();
    let archive = archive(&args);
    let state = archive.state()?;
    let cdx = archive.cdx(args.cdx_rate)?;
    let lister = lister(&args, cdx, state.clone());
    let mut crawl = crawl(&args, &archive, state).await?;
    let file = std::fs::File::create(&args.pages_out)
        .with_context(|| args.pages_out.display().to_string())?;
    let (listing, listed) = spawn_listing(lister);
    let mut sink = JsonLines {
        out: std::io::BufWriter::new(file),
        failed: 0,
        listed,
    };
    let refetch = crawl.replay(&mut sink).await?;
    crawl.run(refetch, &mut sink).await?;
    listing.await?;
    sink.flush().await?;
    crawl.output.finish().await?;
    let t = crawl.summary();
    println!(
        "new {} fetched {} failed {} skipped {} replayed {}",
        t.received.saturating_sub(t.skipped),
        t.fetched,
        t.failed,
        t.skipped,
        t.replayed
    );
    Ok(())
}

fn tracing_subscriber_init() {
    // The binary logs warnings to stderr only when RUST_LOG asks; keep it dependency-free.
}
