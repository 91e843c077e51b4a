//! Killing a crawl with SIGKILL and restarting it, and incremental runs, with the
//! `wayback-crawl` binary (the same code as the stages) against the mock.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use tempora_records::Page;
use tempora_testkit::{synthetic, Corpus, MockWayback, RequestKind};
use tempora_wayback::warc::{page_from_record, WarcFileReader};

fn start() -> chrono::NaiveDateTime {
    chrono::NaiveDate::from_ymd_opt(2016, 3, 1)
        .and_then(|d| d.and_hms_opt(6, 0, 0))
        .unwrap()
}

fn crawl(endpoint: &str, dir: &Path, pages_out: &str, page_rate: u32, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wayback-crawl"));
    cmd.arg("bbc.co.uk/news/*")
        .args(["--endpoint", endpoint])
        .arg("--state")
        .arg(dir.join("state.sqlite"))
        .arg("--warc-out")
        .arg(dir.join("warc"))
        .arg("--pages-out")
        .arg(dir.join(pages_out))
        .args(["--cdx-rate", "0", "--page-rate", &page_rate.to_string()])
        .args([
            "--limit",
            "7",
            "--commit-every",
            "3",
            "--min-pause",
            "300ms",
            "--backoff",
            "20ms",
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn run_to_end(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// (url, timestamp, body) of every page in a JSON-lines file.
fn pages(path: &Path) -> BTreeSet<(String, String, Vec<u8>)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let p: Page = serde_json::from_str(l).unwrap();
            (p.capture.url, p.capture.timestamp.into(), p.body)
        })
        .collect()
}

/// (url, timestamp) of every page record in the WARC files; duplicates kept.
fn warc_records(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("warc"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        for r in WarcFileReader::open(&f, 1 << 24).unwrap() {
            if let Some(p) = page_from_record(&r.unwrap(), "warc", 1 << 24).unwrap() {
                out.push((p.capture.url, p.capture.timestamp.into()));
            }
        }
    }
    out.sort();
    out
}

fn corpus(n: usize) -> Corpus {
    Corpus::new(
        synthetic::articles(n, start(), 45)
            .iter()
            .map(|a| synthetic::article_capture(a, 20, 4000)),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_killed_with_sigkill_and_restarted_ends_like_an_uninterrupted_one() {
    let reference = MockWayback::start(corpus(40)).await.unwrap();
    let ref_dir = tempfile::tempdir().unwrap();
    let cmd = crawl(&reference.endpoint(), ref_dir.path(), "pages.jsonl", 0, &[]);
    tokio::task::spawn_blocking(move || run_to_end(cmd))
        .await
        .unwrap();
    let expected = pages(&ref_dir.path().join("pages.jsonl"));
    assert_eq!(expected.len(), 40);

    let server = MockWayback::start(corpus(40)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = crawl(&server.endpoint(), dir.path(), "run1.jsonl", 600, &[])
        .spawn()
        .unwrap();
    // Kill it once a good part of the pages went out.
    for _ in 0..400 {
        let replays = server
            .log()
            .requests()
            .iter()
            .filter(|r| r.kind == RequestKind::Replay)
            .count();
        if replays >= 15 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done_before = warc_records(dir.path()).len();
    assert!(done_before < 40, "the crawl ended before it was killed");

    let cmd = crawl(&server.endpoint(), dir.path(), "run2.jsonl", 0, &[]);
    let summary = tokio::task::spawn_blocking(move || run_to_end(cmd))
        .await
        .unwrap();
    // The restarted run's output equals the uninterrupted run's ...
    assert_eq!(pages(&dir.path().join("run2.jsonl")), expected, "{summary}");
    // ... its WARC files hold every page exactly once ...
    let records = warc_records(dir.path());
    let unique: BTreeSet<_> = records.iter().cloned().collect();
    assert_eq!(records.len(), 40, "duplicates in the WARC files: {summary}");
    assert_eq!(unique, warc_records(ref_dir.path()).into_iter().collect());
    // ... and pages made durable before the kill were not fetched again: each is
    // replayed, and only the rest fetched. (A page whose WARC record was written
    // but not yet recorded in the state when the kill came is cut off and fetched
    // again, so at most `done_before` are replayed.)
    let count = |word: &str| -> usize {
        let at = summary.find(&format!("{word} ")).expect(word) + word.len() + 1;
        summary[at..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (replayed, fetched) = (count("replayed"), count("fetched"));
    assert!(
        replayed > 0 && replayed <= done_before,
        "{summary} vs {done_before}"
    );
    assert_eq!(replayed + fetched, 40, "{summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_incremental_run_fetches_only_the_captures_added_since() {
    let all = synthetic::articles(15, start(), 45);
    let server = MockWayback::start(Corpus::new(
        all[..10]
            .iter()
            .map(|a| synthetic::article_capture(a, 20, 2000)),
    ))
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cmd = crawl(
        &server.endpoint(),
        dir.path(),
        "night1.jsonl",
        0,
        &["--incremental"],
    );
    let first = tokio::task::spawn_blocking(move || run_to_end(cmd))
        .await
        .unwrap();
    assert!(first.contains("fetched 10 "), "{first}");

    // The next day: five new articles, and a later capture of an old one.
    for a in &all[10..] {
        server.add_capture(synthetic::article_capture(a, 20, 2000));
    }
    server.add_capture(synthetic::article_capture(&all[0], 60 * 24 * 30, 2000));
    server.log().clear();
    let cmd = crawl(
        &server.endpoint(),
        dir.path(),
        "night2.jsonl",
        0,
        &["--incremental"],
    );
    let second = tokio::task::spawn_blocking(move || run_to_end(cmd))
        .await
        .unwrap();
    let got: BTreeSet<String> = pages(&dir.path().join("night2.jsonl"))
        .into_iter()
        .map(|p| p.0)
        .collect();
    let new: BTreeSet<String> = all[10..].iter().map(|a| a.url.clone()).collect();
    assert_eq!(got, new, "{second}");
    let log = server.log().requests();
    assert_eq!(
        log.iter().filter(|r| r.kind == RequestKind::Replay).count(),
        5
    );
    // The CDX was asked only for what is newer than the first night's newest capture.
    let newest = synthetic::timestamp(all[9].published + chrono::Duration::minutes(20));
    let from = chrono::NaiveDateTime::parse_from_str(&newest, "%Y%m%d%H%M%S").unwrap()
        + chrono::Duration::seconds(1);
    let expected_from = format!("from={}", synthetic::timestamp(from));
    assert!(
        log.iter()
            .filter(|r| r.kind == RequestKind::Cdx)
            .all(|r| r.target.contains(&expected_from)),
        "{log:?}"
    );
}
