//! The crawl at the Archive's own pace, against the testkit's model of its
//! limits (600 playback and 30 CDX requests a minute, 429 without `Retry-After`
//! above them, a firewall for clients that keep sending into 429s) with time
//! running faster and every answer taking time, as the real ones do.

mod common;

use common::one_by_one::OneByOne;

use std::time::Duration;

use common::{archive, quick};
use tempora_engine::StageError;
use tempora_http::politeness::{RequestClass, ARCHIVE_PLAYBACK_LIMIT, CLIENT_SHARE};
use tempora_records::Capture;
use tempora_testkit::{synthetic, ArchiveLimits, Corpus, MockWayback, Outcome, RequestKind};
use tempora_wayback::crawl::{Crawl, Tally};
use tempora_wayback::fetch::FetchConfig;
use tempora_wayback::output::{Known, Output};
use tempora_wayback::state::State;

/// Time runs this many times faster in the model, and in the client's rates.
const FASTER: u32 = 10;

fn captures(n: usize) -> (Corpus, Vec<Capture>) {
    let start = chrono::NaiveDate::from_ymd_opt(2015, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap();
    let articles = synthetic::articles(n, start, 7);
    let corpus = Corpus::new(
        articles
            .iter()
            .map(|a| synthetic::article_capture(a, 30, 2_000)),
    );
    let captures = articles
        .iter()
        .map(|a| synthetic::listed_capture(a, 30))
        .collect();
    (corpus, captures)
}

async fn crawl(
    endpoint: &str,
    rate: f64,
    concurrency: usize,
    todo: Vec<Capture>,
) -> (OneByOne, Result<(), StageError>) {
    let fetcher = archive(endpoint, &quick(RequestClass::Page, rate))
        .fetcher(rate, FetchConfig::default())
        .unwrap();
    let mut crawl = Crawl {
        fetcher,
        output: std::sync::Arc::new(
            Output::open(
                State::in_memory().unwrap(),
                None,
                "pages",
                16 << 20,
                Known::Skip,
            )
            .await
            .unwrap(),
        ),
        concurrency,
        commit_every: 8,
        tally: Tally::default(),
    };
    let mut sink = OneByOne::new(todo);
    let result = crawl.run(Vec::new(), &mut sink).await;
    (sink, result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_default_rate_requests_stay_in_flight_across_batches_under_the_limits() {
    let (corpus, todo) = captures(160);
    let server = MockWayback::start(corpus).await.unwrap();
    let limits = ArchiveLimits::real().faster(FASTER);
    server.enforce(limits.clone());
    // The default playback rate, with time running FASTER times faster.
    let rate = CLIENT_SHARE * ARCHIVE_PLAYBACK_LIMIT * f64::from(FASTER);
    let (sink, result) = crawl(&server.endpoint(), rate, 32, todo.clone()).await;
    result.unwrap();

    // Every capture fetched once, in the order handed over.
    assert!(sink.failed.is_empty(), "{:?}", sink.failed.first());
    let got: Vec<&str> = sink.pages.iter().map(|p| p.capture.url.as_str()).collect();
    let want: Vec<&str> = todo.iter().map(|c| c.url.as_str()).collect();
    assert_eq!(got, want);
    // Never above the Archive's limit: no 429 at all.
    let requests = server.log().requests();
    assert_eq!(requests.len(), todo.len());
    assert!(requests.iter().all(|r| r.outcome == Outcome::Status(200)));
    assert!(server.log().busiest(RequestKind::Replay, limits.window) <= limits.playback);
    // Captures came one at a time, yet several requests were answered at once:
    // at this rate and answer time about six are needed (a crawl that waited for
    // each batch would have had one).
    assert!(
        server.log().most_in_flight() >= 3,
        "{}",
        server.log().most_in_flight()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn above_the_limits_the_crawl_pauses_on_429s_without_retry_after_and_is_never_firewalled() {
    let (corpus, todo) = captures(60);
    let server = MockWayback::start(corpus).await.unwrap();
    // A limit of 20 a window, so a client with no rate limit meets it at once.
    let limits = ArchiveLimits {
        playback: 20,
        latency: Duration::from_millis(5),
        ..ArchiveLimits::real().faster(200)
    };
    server.enforce(limits.clone());
    let (sink, result) = crawl(&server.endpoint(), 0.0, 8, todo.clone()).await;
    result.unwrap();

    let requests = server.log().requests();
    let refused = requests
        .iter()
        .filter(|r| r.outcome == Outcome::Status(429))
        .count();
    assert!(refused > 0, "the limit was never met");
    // The pause after a 429 without Retry-After (`min_pause`, 300 ms here) outlasts
    // the window (300 ms), so the client never sends into 429s long enough to be
    // firewalled: no connection was ever refused, and every capture came through.
    assert!(requests.iter().all(|r| r.outcome != Outcome::Reset));
    assert_eq!(sink.pages.len(), todo.len(), "{:?}", sink.failed.first());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_keeps_sending_into_429s_is_stopped_with_the_archives_words() {
    let (corpus, todo) = captures(40);
    let server = MockWayback::start(corpus).await.unwrap();
    // Every request over the limit of 1 a window, and a window that never ends
    // within the test: only 429s after the first request.
    server.enforce(ArchiveLimits {
        playback: 1,
        window: Duration::from_secs(3600),
        firewall_after: Duration::from_secs(3600),
        latency: Duration::ZERO,
        ..ArchiveLimits::real()
    });
    let (_, result) = crawl(&server.endpoint(), 0.0, 8, todo).await;
    let err = result.unwrap_err().to_string();
    assert!(err.contains("429"), "{err}");
    // The 8 requests in flight when the first 429 came back count as one pause:
    // the run stopped after `max_rate_limits` (10) pauses, each of which waited.
    let refused = server
        .log()
        .requests()
        .iter()
        .filter(|r| r.outcome == Outcome::Status(429))
        .count();
    assert!(refused >= 10, "{refused}");
}
