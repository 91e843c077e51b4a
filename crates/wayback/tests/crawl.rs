//! Whole crawls through the stages (`wayback-cdx` then `wayback-fetch`) against
//! the mock under every fault it can inject.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

use tempora_engine::testing::{context, run_stage, StageOutput};
use tempora_engine::Rejected;
use tempora_records::{Capture, Record};
use tempora_testkit::{
    synthetic, Corpus, Fault, FaultRule, MockCapture, MockWayback, Outcome, RequestKind, Target,
};
use tempora_wayback::stages::{cdx_stage, fetch_stage};
use tempora_wayback::warc::{page_from_record, WarcFileReader};

fn table(text: &str) -> toml::Table {
    toml::from_str(text).unwrap()
}

fn start() -> chrono::NaiveDateTime {
    chrono::NaiveDate::from_ymd_opt(2015, 6, 1)
        .and_then(|d| d.and_hms_opt(8, 0, 0))
        .unwrap()
}

/// The Archive at `endpoint`, `rate` playback requests a minute (0: no limit), short pauses.
fn archive(endpoint: &str, rate: u32) -> String {
    format!(
        r#"archive = {{ endpoint = "{endpoint}", cdx_rate = 0, playback_rate = {rate}, min_pause = "300ms", backoff = "20ms", max_backoff = "200ms", block_pause = "100ms", max_attempts = 4 }}"#
    )
}

async fn list(endpoint: &str, dir: &Path, extra: &str) -> StageOutput {
    let ctx = context(dir);
    let cfg = cdx_stage::configure(
        table(&format!(
            "urls = [\"bbc.co.uk/news/*\"]\nlimit = 3\nstate = \"{}\"\n{extra}\n{}\n",
            dir.join("state.sqlite").display(),
            archive(endpoint, 0)
        )),
        &ctx,
    )
    .unwrap();
    run_stage(cfg, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap()
}

async fn fetch(endpoint: &str, dir: &Path, captures: Vec<Record>, rate: u32) -> StageOutput {
    let ctx = context(dir);
    let cfg = fetch_stage::configure(
        table(&format!(
            "concurrency = 2\ncommit_every = 4\nmax_redirect_distance = \"1day\"\nstate = \"{}\"\nwarc_out = \"{}\"\n{}\n",
            dir.join("state.sqlite").display(),
            dir.join("warc").display(),
            archive(endpoint, rate)
        )),
        &ctx,
    )
    .unwrap();
    run_stage(cfg, &ctx, captures, HashMap::new())
        .await
        .unwrap()
}

/// Every page record in the WARC files of `dir`, as (url, timestamp).
fn warc_pages(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("warc"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        for record in WarcFileReader::open(&f, 1 << 24).unwrap() {
            if let Some(p) = page_from_record(&record.unwrap(), "warc", 1 << 24).unwrap() {
                out.push((p.capture.url, p.capture.timestamp.into()));
            }
        }
    }
    out
}

fn captures_of(output: &StageOutput) -> Vec<Capture> {
    output
        .out()
        .iter()
        .map(|r| match r {
            Record::Capture(c) => (**c).clone(),
            other => panic!("not a capture: {other:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_under_every_fault_fetches_each_capture_once_or_says_why_not() {
    let articles = synthetic::articles(10, start(), 60);
    let mut corpus: Vec<MockCapture> = articles
        .iter()
        .map(|a| synthetic::article_capture(a, 30, 3000))
        .collect();
    // A capture whose replay redirects to another capture an hour later (within distance),
    // one that redirects a year away, a redirect loop, and a site excluded after listing.
    let moved = "http://www.bbc.co.uk/news/moved-1";
    corpus.push(MockCapture::redirect(
        moved,
        "20150601090000",
        301,
        &articles[0].url,
    ));
    corpus.push(MockCapture::html(
        "http://www.bbc.co.uk/news/far-1",
        "20150601090000",
        "far",
    ));
    corpus.push(MockCapture::redirect(
        "http://www.bbc.co.uk/news/loop-a",
        "20150601090000",
        302,
        "http://www.bbc.co.uk/news/loop-b",
    ));
    corpus.push(MockCapture::redirect(
        "http://www.bbc.co.uk/news/loop-b",
        "20150601090000",
        302,
        "http://www.bbc.co.uk/news/loop-a",
    ));
    corpus.push(MockCapture::html(
        "http://www.bbc.co.uk/news/excluded-1",
        "20150601090000",
        "gone",
    ));
    let server = MockWayback::start(Corpus::new(corpus)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();

    server.add_fault(FaultRule::new(Target::Cdx, Fault::ErrorPage200, 1));
    server.add_fault(FaultRule::new(Target::Cdx, Fault::Unavailable, 1).after(1));
    let listed = list(&server.endpoint(), dir.path(), "").await;
    let captures = captures_of(&listed);
    // The redirects are not listed (statuscode:200); they come from elsewhere, e.g. feeds.
    assert_eq!(captures.len(), 12, "{captures:?}");
    let mut captures = captures;
    for url in [moved, "http://www.bbc.co.uk/news/loop-a"] {
        captures.push(Capture {
            url: url.into(),
            timestamp: "20150601090000".parse().unwrap(),
            status: Some(301),
            mime: "text/html".into(),
            digest: String::new(),
            length: None,
            source: "feeds".into(),
        });
    }

    // The far capture is asked for a year early: the Archive redirects a year away.
    let mut inputs: Vec<Record> = Vec::new();
    for mut c in captures.clone() {
        if c.url.ends_with("far-1") {
            c.timestamp = "20140601090000".parse().unwrap();
        }
        inputs.push(Record::Capture(Box::new(c)));
    }
    server.block_site("http://www.bbc.co.uk/news/excluded-1");
    for (fault, times, after) in [
        (Fault::RateLimit { retry_after: 1 }, 1, 2),
        (Fault::Unavailable, 3, 3),
        (Fault::Slow(Duration::from_millis(200)), 2, 4),
        (Fault::Reset, 1, 5),
        (Fault::Truncate, 1, 6),
        (Fault::WrongEncoding, 1, 7),
    ] {
        server.add_fault(FaultRule::new(Target::Replay, fault, times).after(after));
    }
    let fetched = fetch(&server.endpoint(), dir.path(), inputs.clone(), 1200).await;

    let pages: Vec<(String, String)> = fetched
        .out()
        .iter()
        .map(|r| match r {
            Record::Page(p) => (p.capture.url.clone(), p.capture.timestamp.to_string()),
            other => panic!("not a page: {other:?}"),
        })
        .collect();
    let failed = reasons(&fetched.rejected);
    // Each capture: one page, or one failure with its reason; never both, never twice.
    let unique: HashSet<_> = pages.iter().collect();
    assert_eq!(unique.len(), pages.len(), "a page was emitted twice");
    assert_eq!(
        pages.len() + failed.len(),
        captures.len(),
        "pages {pages:?}\nfailed {failed:?}"
    );
    assert_eq!(pages.len(), 11);
    assert!(failed["http://www.bbc.co.uk/news/far-1"].contains("max_redirect_distance"));
    assert!(failed["http://www.bbc.co.uk/news/loop-a"].contains("redirect loop"));
    assert!(failed["http://www.bbc.co.uk/news/excluded-1"].contains("excluded"));
    // The WARC files hold exactly the pages.
    let mut in_warc = warc_pages(dir.path());
    in_warc.sort();
    let mut expected = pages.clone();
    expected.sort();
    assert_eq!(in_warc, expected);
    // Every fault fired, and nothing reached the server during the Retry-After pause.
    let log = server.log().requests();
    assert!(log.iter().any(|r| r.outcome == Outcome::Status(429)));
    assert!(log.iter().any(|r| r.outcome == Outcome::Reset));
    assert!(log
        .iter()
        .any(|r| matches!(r.outcome, Outcome::Truncated(_))));
    assert!(
        server.log().pause_violations().is_empty(),
        "{:?}",
        server.log().pause_violations()
    );
    assert!(log.iter().all(|r| r
        .user_agent
        .as_deref()
        .is_some_and(|ua| ua.starts_with("tempora/"))));

    // A rerun asks the Archive for nothing again: every page is read back from the
    // WARC files and sent on as the first run sent it, and each failure that trying
    // again cannot help is reported again with its reason.
    let before = log.iter().filter(|r| r.kind == RequestKind::Replay).count();
    let again = fetch(&server.endpoint(), dir.path(), inputs, 0).await;
    assert_eq!(
        server
            .log()
            .requests()
            .iter()
            .filter(|r| r.kind == RequestKind::Replay)
            .count(),
        before
    );
    let replayed: Vec<&Record> = again.out().iter().collect();
    assert_eq!(replayed.len(), fetched.out().len());
    for (first, second) in fetched.out().iter().zip(replayed) {
        assert_eq!(
            first.to_json(),
            second.to_json(),
            "a page read back differs"
        );
    }
    assert_eq!(reasons(&again.rejected), failed);
    assert_eq!(again.stats.counters().get("replayed"), Some(&11));
    assert_eq!(again.stats.counters().get("fetched"), Some(&0));
}

/// The reason of each rejected capture, by URL.
fn reasons(rejected: &[Rejected]) -> HashMap<String, String> {
    rejected
        .iter()
        .map(|r| {
            (
                r.record["url"].as_str().unwrap().to_string(),
                r.reason.clone(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_request_reaches_the_server_during_a_retry_after_pause() {
    let articles = synthetic::articles(8, start(), 60);
    let server = MockWayback::start(Corpus::new(
        articles
            .iter()
            .map(|a| synthetic::article_capture(a, 30, 2000)),
    ))
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let captures = captures_of(&list(&server.endpoint(), dir.path(), "").await);
    // Two workers; the third page request is answered 429 with Retry-After: 1.
    server
        .add_fault(FaultRule::new(Target::Replay, Fault::RateLimit { retry_after: 1 }, 1).after(2));
    let fetched = fetch(
        &server.endpoint(),
        dir.path(),
        captures
            .into_iter()
            .map(|c| Record::Capture(Box::new(c)))
            .collect(),
        300,
    )
    .await;
    assert_eq!(fetched.out().len(), 8);
    let log = server.log().requests();
    let limited = log
        .iter()
        .position(|r| r.outcome == Outcome::Status(429))
        .unwrap();
    assert!(log.len() > limited + 1, "requests went on after the pause");
    assert!(
        server.log().pause_violations().is_empty(),
        "{:?}",
        server.log().pause_violations()
    );
}

#[tokio::test]
async fn options_errors_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let err = cdx_stage::configure(table("urls = [\"x\"]\nbogus = 1\n"), &ctx)
        .err()
        .unwrap();
    assert_eq!(err[0].key.as_deref(), Some("bogus"));
    let cfg = cdx_stage::configure(
        table("urls = []\nincremental = true\nfrom = \"2020-01-02\"\nto = \"2020-01-01\"\n"),
        &ctx,
    )
    .unwrap();
    let problems = cfg.check(&ctx);
    let keys: Vec<_> = problems.iter().filter_map(|p| p.key.as_deref()).collect();
    assert_eq!(keys, ["urls", "from", "incremental"], "{problems:?}");
    // A duration is read with the options: a bad one is refused at its key.
    let err = fetch_stage::configure(
        table("state = \"s.sqlite\"\nmax_redirect_distance = \"soon\"\n"),
        &ctx,
    )
    .err()
    .unwrap();
    assert_eq!(err[0].key.as_deref(), Some("max_redirect_distance"));
    assert!(
        err[0].message.contains("`soon` is not a duration"),
        "{err:?}"
    );
    let cfg = fetch_stage::configure(table("state = \"s.sqlite\"\n"), &ctx).unwrap();
    let problems = cfg.check(&ctx);
    let keys: Vec<_> = problems.iter().filter_map(|p| p.key.as_deref()).collect();
    assert_eq!(keys, ["warc_out"], "{problems:?}");
}
