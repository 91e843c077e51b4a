//! `pipelines/nightly-bbc.toml` run night after night, as cron would, against the
//! mock Wayback Machine on 127.0.0.1: every article of every night ends up in
//! `articles.jsonl` once, a killed run adds nothing, and an incremental pipeline
//! refuses to replace what earlier runs wrote.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use tempora_testkit::synthetic::{self, SyntheticArticle};
use tempora_testkit::{Corpus, MockWayback, RequestKind};

/// The shipped nightly pipeline, pointed at `server`, with its state and outputs in `dir`.
fn nightly(server: &MockWayback, dir: &Path, extra: &[&str]) -> Command {
    let endpoint = server.endpoint();
    let state = dir.join("state.sqlite");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_LOG", "warn")
        .env("TEMPORA_CONTACT", "tests@example.org")
        .args(["run", "pipelines/nightly-bbc.toml", "--progress", "off"])
        .arg("--set")
        .arg(format!("pipeline.out={:?}", dir.join("out")));
    for (key, value) in [
        // One Archive, written once: `pages` shares the options of `captures`.
        ("stages.captures.archive.endpoint", endpoint),
        ("stages.captures.state", format!("{}", state.display())),
        ("stages.pages.state", format!("{}", state.display())),
        ("stages.wanted.state", format!("{}", state.display())),
        (
            "stages.pages.warc_out",
            format!("{}", dir.join("warc").display()),
        ),
    ] {
        cmd.arg("--set").arg(format!("{key}={value:?}"));
    }
    cmd.args(["--set", "stages.captures.archive.cdx_rate=0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

async fn run(cmd: Command) -> Output {
    let mut cmd = cmd;
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

async fn run_ok(cmd: Command) -> String {
    let out = run(cmd).await;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    text
}

fn news(n: usize) -> Vec<SyntheticArticle> {
    let start = chrono::NaiveDate::from_ymd_opt(2020, 3, 1)
        .and_then(|d| d.and_hms_opt(6, 0, 0))
        .unwrap();
    synthetic::articles(n, start, 45)
}

fn capture(a: &SyntheticArticle) -> tempora_testkit::MockCapture {
    synthetic::article_capture(a, 20, 3000)
}

/// A mock Archive holding captures of `articles`, and a fresh folder for the crawl
/// state and the outputs.
async fn archive_and_folder(articles: &[SyntheticArticle]) -> (MockWayback, tempfile::TempDir) {
    let server = MockWayback::start(Corpus::new(articles.iter().map(capture)))
        .await
        .unwrap();
    (server, tempfile::tempdir().unwrap())
}

/// The `id` of every line of an articles file, in file order.
fn ids(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

fn expected_ids(articles: &[SyntheticArticle]) -> BTreeSet<String> {
    articles.iter().map(|a| a.id.to_string()).collect()
}

fn run_folders(out: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_article_of_every_night_is_in_the_dataset_once() {
    let all = news(16);
    let (server, dir) = archive_and_folder(&all[..10]).await;
    let out = dir.path().join("out");
    let dataset = out.join("articles.jsonl");

    let first = run_ok(nightly(&server, dir.path(), &[])).await;
    let night1 = std::fs::read(&dataset).unwrap();
    assert_eq!(
        ids(&dataset).into_iter().collect::<BTreeSet<_>>(),
        expected_ids(&all[..10]),
        "{first}"
    );

    // The next day: new articles, one of them also under the bbc.com host, and a
    // later capture of an article of the first night.
    for a in &all[10..] {
        server.add_capture(capture(a));
    }
    let twin = SyntheticArticle {
        url: all[12].url.replace("www.bbc.co.uk", "www.bbc.com"),
        ..all[12].clone()
    };
    server.add_capture(synthetic::article_capture(&twin, 90, 3000));
    server.add_capture(synthetic::article_capture(&all[3], 60 * 24, 3000));
    let second = run_ok(nightly(&server, dir.path(), &[])).await;

    // Every article of both nights, once; the first night's lines as they were.
    let got = ids(&dataset);
    let unique: BTreeSet<String> = got.iter().cloned().collect();
    assert_eq!(
        got.len(),
        unique.len(),
        "an article twice: {got:?}\n{second}"
    );
    assert_eq!(unique, expected_ids(&all), "{second}");
    assert!(std::fs::read(&dataset).unwrap().starts_with(&night1));

    // Each run has its folder: its own articles, run.json and rejected.jsonl; the
    // top-level run.json and rejected.jsonl are the latest run's.
    let runs = run_folders(&out);
    assert_eq!(runs.len(), 2, "{runs:?}");
    let night_ids = |folder: &Path| -> BTreeSet<String> {
        ids(&folder.join("articles.jsonl")).into_iter().collect()
    };
    assert_eq!(night_ids(&runs[0]), expected_ids(&all[..10]));
    assert!(night_ids(&runs[1]).is_superset(&expected_ids(&all[10..])));
    for folder in &runs {
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(folder.join("run.json")).unwrap()).unwrap();
        assert_eq!(
            report["run"].as_str(),
            folder.file_name().and_then(|n| n.to_str())
        );
        assert_eq!(report["status"], "completed");
        assert!(folder.join("rejected.jsonl").is_file());
    }
    for name in ["run.json", "rejected.jsonl"] {
        assert_eq!(
            std::fs::read(out.join(name)).unwrap(),
            std::fs::read(runs[1].join(name)).unwrap(),
            "{name}"
        );
    }

    // The dataset card is current: both nights' Parquet files are the split
    // `articles`, and the card names the latest run as its release.
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    for folder in &runs {
        let run = folder.file_name().and_then(|n| n.to_str()).unwrap();
        assert!(
            card.contains(&format!("runs/{run}/articles.parquet")),
            "{run} not in the card:\n{card}"
        );
    }
    assert!(card.contains("split: articles"), "{card}");
    let latest = runs[1].file_name().and_then(|n| n.to_str()).unwrap();
    assert!(card.contains(latest), "{card}");

    // A night with nothing new leaves the dataset as it was.
    let before = std::fs::read(&dataset).unwrap();
    let third = run_ok(nightly(&server, dir.path(), &[])).await;
    assert_eq!(std::fs::read(&dataset).unwrap(), before, "{third}");
    assert_eq!(run_folders(&out).len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replacing_an_earlier_nights_file_is_refused_before_any_request() {
    let all = news(4);
    let (server, dir) = archive_and_folder(&all).await;
    let out = dir.path().join("out");
    run_ok(nightly(&server, dir.path(), &[])).await;
    let night1 = std::fs::read(out.join("articles.jsonl")).unwrap();
    assert!(!night1.is_empty());

    server.log().clear();
    let refused = run(nightly(
        &server,
        dir.path(),
        &["--set", "stages.write.mode=\"replace\""],
    ))
    .await;
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    let file = out.join("articles.jsonl");
    for expected in [
        format!("stage `write` would replace {}", file.display()),
        "stage `captures` has `incremental = true`".to_string(),
        "mode = \"append\"".to_string(),
        "`{run}`".to_string(),
    ] {
        assert!(err.contains(&expected), "missing {expected:?} in:\n{err}");
    }
    assert!(
        server.log().requests().is_empty(),
        "{:?}",
        server.log().requests()
    );
    assert_eq!(std::fs::read(&file).unwrap(), night1);
    assert_eq!(run_folders(&out).len(), 1, "a refused run keeps no folder");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_night_adds_nothing_and_the_next_one_catches_up() {
    let all = news(12);
    let (server, dir) = archive_and_folder(&all[..6]).await;
    let dataset = dir.path().join("out/articles.jsonl");
    run_ok(nightly(&server, dir.path(), &[])).await;
    let night1 = std::fs::read(&dataset).unwrap();
    assert_eq!(ids(&dataset).len(), 6);

    for a in &all[6..] {
        server.add_capture(capture(a));
    }
    server.log().clear();
    // A slow night (two pages a second), killed once its first page was asked for.
    let mut child = nightly(
        &server,
        dir.path(),
        &["--set", "stages.captures.archive.playback_rate=120"],
    )
    .spawn()
    .unwrap();
    let mut asked = false;
    for _ in 0..1000 {
        asked = server
            .log()
            .requests()
            .iter()
            .any(|r| r.kind == RequestKind::Replay);
        if asked {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        asked && !status.success(),
        "the run ended before it was killed"
    );
    assert_eq!(std::fs::read(&dataset).unwrap(), night1);

    // The next night adds what the killed one had started, and the rest.
    let next = run_ok(nightly(&server, dir.path(), &[])).await;
    let got = ids(&dataset);
    let unique: BTreeSet<String> = got.iter().cloned().collect();
    assert_eq!(got.len(), unique.len(), "{next}");
    assert_eq!(unique, expected_ids(&all), "{next}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_configuration_is_refused_and_rebuild_makes_the_set_anew() {
    let all = news(16);
    let (server, dir) = archive_and_folder(&all).await;
    let out = dir.path().join("out");
    run_ok(nightly(&server, dir.path(), &[])).await;
    let night1 = std::fs::read(out.join("articles.jsonl")).unwrap();

    // Another cutoff would add records made another way: refused before any
    // request, naming what changed and the ways on.
    // The in-distribution year stays where it was (before the articles).
    let new_cutoff = [
        "--set",
        "pipeline.cutoff=2020-03-01",
        "--set",
        "pipeline.sets.in_distribution.to=2019-12-31",
    ];
    server.log().clear();
    let refused = run(nightly(&server, dir.path(), &new_cutoff)).await;
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    for expected in [
        "pipeline.cutoff: was 2019-12-31, now 2020-03-01",
        "pipeline.sets.future: was",
        "a new `pipeline.out`",
        "--rebuild",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in:\n{err}");
    }
    assert!(
        server.log().requests().is_empty(),
        "{:?}",
        server.log().requests()
    );
    assert_eq!(std::fs::read(out.join("articles.jsonl")).unwrap(), night1);
    assert_eq!(run_folders(&out).len(), 1, "a refused run keeps no folder");

    // How the crawl is done is no change of what it makes.
    run_ok(nightly(
        &server,
        dir.path(),
        &[
            "--set",
            "stages.pages.concurrency=3",
            "--set",
            "stages.captures.limit=7",
        ],
    ))
    .await;

    // `--rebuild`: the accumulated set made anew with the new cutoff, from the
    // crawl state: what one night of the new configuration on a fresh state makes.
    server.log().clear();
    let mut rebuild = new_cutoff.to_vec();
    rebuild.push("--rebuild");
    run_ok(nightly(&server, dir.path(), &rebuild)).await;
    let pages = server
        .log()
        .requests()
        .iter()
        .filter(|r| r.kind == RequestKind::Replay)
        .count();
    assert_eq!(pages, 0, "every page is in the crawl state");
    let fresh = tempfile::tempdir().unwrap();
    run_ok(nightly(&server, fresh.path(), &new_cutoff)).await;
    let rebuilt = std::fs::read(out.join("articles.jsonl")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&rebuilt),
        String::from_utf8_lossy(&std::fs::read(fresh.path().join("out/articles.jsonl")).unwrap())
    );
    assert!(ids(&out.join("articles.jsonl")).len() < expected_ids(&all).len());
    // The folder is now the new configuration's: the next night goes on.
    run_ok(nightly(&server, dir.path(), &new_cutoff)).await;
    assert_eq!(std::fs::read(out.join("articles.jsonl")).unwrap(), rebuilt);
}
