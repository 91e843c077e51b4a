//! Runs `pipelines/temposum-bbc.toml` against the testkit's model of BBC News in
//! the Archive, as shipped and as a naive full crawl (list everything, fetch
//! everything, decide afterwards), with the real binary. Shared by the
//! `crawl_cost` test and the `crawl_cost` benchmark example.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tempora_testkit::newssite::{NewsSite, NewsSiteSpec, FEED_URL};
use tempora_testkit::{MockWayback, RequestKind};

/// The shipped pipeline file.
pub const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pipelines/temposum-bbc.toml");

/// Which crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Today's shape before decide-before-fetching: `pages` reads `captures`.
    Naive,
    /// `pipelines/temposum-bbc.toml` as shipped.
    Shipped,
}

/// What one crawl did and kept.
#[derive(Debug)]
pub struct CrawlRun {
    /// Articles kept, as (split, id, title, summary, published).
    pub kept: BTreeSet<(String, String, String, String, String)>,
    /// Kept records, duplicates included.
    pub records: usize,
    /// Page requests the server saw (article pages, not feeds).
    pub page_requests: usize,
    /// Feed requests the server saw.
    pub feed_requests: usize,
    /// CDX requests the server saw.
    pub cdx_requests: usize,
    /// The capture window (`from`, `to`) of each CDX request.
    pub cdx_windows: Vec<(Option<String>, Option<String>)>,
    /// `run.json`.
    pub run: serde_json::Value,
    /// The run's wall time.
    pub wall: Duration,
    /// The run's peak resident memory (`VmHWM`), in KB; 0 where /proc has none.
    pub peak_kb: u64,
    /// From the first CDX request to the first article page asked for.
    pub first_page_after: Option<Duration>,
    /// From the first CDX request to the last.
    pub listing: Option<Duration>,
    /// The output directory.
    pub out: PathBuf,
    /// Holds the run's files until the run is dropped.
    _dir: tempfile::TempDir,
}

/// The pipeline of `shape`, pointed at the mock and at files in `dir`: the
/// shipped file with its facts read from the model's JSONL (no dump), its
/// Wayback stages at the mock without rate limits, and the sets written as JSONL.
pub fn pipeline(shape: Shape, endpoint: &str, dir: &Path) -> String {
    let text = std::fs::read_to_string(SHIPPED).unwrap();
    let mut file: toml::Table = toml::from_str(&text).unwrap();
    let stages = file["stages"].as_table_mut().unwrap();
    let facts = dir.join("facts.jsonl");
    stages.insert(
        "facts".into(),
        toml::toml! { kind = "jsonl-source" record = "fact" }.into(),
    );
    stages["facts"]
        .as_table_mut()
        .unwrap()
        .insert("paths".into(), vec![facts.display().to_string()].into());
    for name in [
        "novelty",
        "write",
        "write_parquet",
        "write_novelty",
        "write_facts",
    ] {
        stages.remove(name);
    }
    if shape == Shape::Naive {
        stages.remove("wanted");
        stages["pages"]["inputs"] = vec!["captures"].into();
    }
    let state = dir.join("state.sqlite").display().to_string();
    for (_, stage) in stages.iter_mut() {
        let stage = stage.as_table_mut().unwrap();
        if stage["kind"].as_str() == Some("prefetch") {
            stage.insert("state".into(), state.clone().into());
        }
        if !stage["kind"].as_str().unwrap().starts_with("wayback-") {
            continue;
        }
        // The stage that writes the Archive's options (the others name it): the
        // mock, without rate limits.
        if !stage.get("archive").is_some_and(toml::Value::is_str) {
            let archive: toml::Table = toml::toml! { cdx_rate = 0 playback_rate = 0 };
            stage.insert("archive".into(), archive.into());
            stage["archive"]
                .as_table_mut()
                .unwrap()
                .insert("endpoint".into(), endpoint.into());
        }
        stage.insert("state".into(), state.clone().into());
        if stage["kind"].as_str() == Some("wayback-fetch") {
            stage.insert(
                "warc_out".into(),
                dir.join("warc").display().to_string().into(),
            );
            stage.insert("concurrency".into(), 4.into());
        }
    }
    let sink: toml::Table = toml::toml! {
        kind = "jsonl"
        inputs = ["split.in_distribution", "split.future"]
        path = "{split}.jsonl"
    };
    stages.insert("write".into(), sink.into());
    file["pipeline"]["out"] = dir.join("out").display().to_string().into();
    toml::to_string(&file).unwrap()
}

/// Builds the model of `spec`, serves it, and runs both crawls with the
/// `--set` `overrides`.
pub async fn run_both(spec: &NewsSiteSpec, overrides: &[&str]) -> (NewsSite, CrawlRun, CrawlRun) {
    let site = NewsSite::build(spec);
    let naive = run(&site, Shape::Naive, overrides).await;
    let shipped = run(&site, Shape::Shipped, overrides).await;
    (site, naive, shipped)
}

/// Runs one crawl of `site` on its own mock server, with the `--set` `overrides`.
pub async fn run(site: &NewsSite, shape: Shape, overrides: &[&str]) -> CrawlRun {
    run_binary(
        Path::new(env!("CARGO_BIN_EXE_tempora")),
        site,
        shape,
        overrides,
    )
    .await
}

/// [`run`] with another build of `tempora` (a baseline to compare with).
pub async fn run_binary(
    binary: &Path,
    site: &NewsSite,
    shape: Shape,
    overrides: &[&str],
) -> CrawlRun {
    let server = MockWayback::start(site.corpus.clone()).await.unwrap();
    let temp = tempfile::tempdir().unwrap();
    run_in(binary, &server, site, shape, overrides, temp, &[]).await
}

/// One crawl of `site` served by `server`, with its state and outputs in `temp`
/// (as an earlier run there left them: [`CrawlRun::into_dir`]), the binary run
/// under `wrapper` when given (`taskset -c 0`); the server's log counts this run only.
pub async fn run_in(
    binary: &Path,
    server: &MockWayback,
    site: &NewsSite,
    shape: Shape,
    overrides: &[&str],
    temp: tempfile::TempDir,
    wrapper: &[&str],
) -> CrawlRun {
    let binary = binary.to_path_buf();
    let dir = temp.path().to_path_buf();
    std::fs::write(dir.join("facts.jsonl"), &site.facts).unwrap();
    let xsum = dir.join("xsum-split.json");
    std::fs::write(&xsum, &site.xsum_split).unwrap();
    server.log().clear();
    let path = dir.join("pipeline.toml");
    std::fs::write(&path, pipeline(shape, &server.endpoint(), &dir)).unwrap();
    let sets: Vec<String> = overrides
        .iter()
        .flat_map(|o| ["--set".to_string(), (*o).to_string()])
        .collect();
    let wrapper: Vec<String> = wrapper.iter().map(|w| (*w).to_string()).collect();
    let started = Instant::now();
    let (output, peak_kb) = tokio::task::spawn_blocking(move || {
        let mut cmd = match wrapper.split_first() {
            Some((program, args)) => {
                let mut cmd = Command::new(program);
                cmd.args(args).arg(&binary);
                cmd
            }
            None => Command::new(&binary),
        };
        let child = cmd
            .args(["run", "--progress", "off"])
            .arg(&path)
            .args(&sets)
            .env("XSUM_SPLIT", &xsum)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The peak so far, read until the process is gone (its pipes drain meanwhile).
        let status = format!("/proc/{}/status", child.id());
        let watch = std::thread::spawn(move || {
            let mut peak = 0;
            while let Ok(text) = std::fs::read_to_string(&status) {
                peak = peak_kb(&text).unwrap_or(0).max(peak);
                std::thread::sleep(Duration::from_millis(20));
            }
            peak
        });
        let output = child.wait_with_output().unwrap();
        (output, watch.join().unwrap())
    })
    .await
    .unwrap();
    let wall = started.elapsed();
    assert!(
        output.status.success(),
        "{shape:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = dir.join("out");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["status"], "completed", "{shape:?}: {run}");
    let mut kept = BTreeSet::new();
    let mut records = 0;
    for split in ["in_distribution", "future"] {
        let text = std::fs::read_to_string(out.join(format!("{split}.jsonl"))).unwrap_or_default();
        for line in text.lines() {
            let a: serde_json::Value = serde_json::from_str(line).unwrap();
            let field = |k: &str| a[k].as_str().unwrap_or_default().to_string();
            kept.insert((
                split.to_string(),
                field("id"),
                field("title"),
                field("summary"),
                field("published"),
            ));
            records += 1;
        }
    }
    let log = server.log().requests();
    let replay = |feed: bool| {
        log.iter()
            .filter(|r| {
                r.kind == RequestKind::Replay
                    && r.target.contains(FEED_URL.trim_start_matches("http://")) == feed
            })
            .count()
    };
    let cdx_at: Vec<Duration> = log
        .iter()
        .filter(|r| r.kind == RequestKind::Cdx)
        .map(|r| r.at)
        .collect();
    let first_page = log
        .iter()
        .find(|r| {
            r.kind == RequestKind::Replay
                && !r.target.contains(FEED_URL.trim_start_matches("http://"))
        })
        .map(|r| r.at);
    let first_cdx = cdx_at.iter().min().copied();
    CrawlRun {
        wall,
        peak_kb,
        first_page_after: first_page.zip(first_cdx).map(|(p, c)| p.saturating_sub(c)),
        listing: first_cdx
            .zip(cdx_at.iter().max().copied())
            .map(|(a, b)| b - a),
        kept,
        records,
        page_requests: replay(false),
        feed_requests: replay(true),
        cdx_requests: log.iter().filter(|r| r.kind == RequestKind::Cdx).count(),
        cdx_windows: log
            .iter()
            .filter(|r| r.kind == RequestKind::Cdx)
            .map(|r| (query_param(&r.target, "from"), query_param(&r.target, "to")))
            .collect(),
        run,
        out,
        _dir: temp,
    }
}

impl CrawlRun {
    /// The folder of the run's state and outputs, for another run there.
    pub fn into_dir(self) -> tempfile::TempDir {
        self._dir
    }
}

/// `VmHWM` (peak resident memory, KB) of a `/proc/<pid>/status`.
fn peak_kb(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Each stage's records in, out and rejected, for failure messages.
pub fn summary(run: &serde_json::Value) -> String {
    run["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}: in {} out {} rejected {} {}\n",
                s["name"], s["records_in"], s["records_out"], s["rejected"], s["counters"]
            )
        })
        .collect()
}

/// The first rejections of `stage` in `rejected.jsonl`, for failure messages.
pub fn first_rejections(run: &CrawlRun, stage: &str, n: usize) -> String {
    let stage = format!("\"stage\":\"{stage}\"");
    std::fs::read_to_string(run.out.join("rejected.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(&stage))
        .take(n)
        .map(|l| format!("{}\n", &l[..l.len().min(400)]))
        .collect()
}

/// A counter of a stage in `run.json`.
pub fn counter(run: &serde_json::Value, stage: &str, name: &str) -> u64 {
    run["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == stage)
        .and_then(|s| s["counters"][name].as_u64())
        .unwrap_or(0)
}

/// The value of `name` in the query string of `target`.
pub fn query_param(target: &str, name: &str) -> Option<String> {
    let query = target.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| v.to_string())
    })
}
