//! Kill anywhere, lose nothing, change nothing: `pipelines/nightly-bbc.toml`
//! against the testkit's model of BBC News in the Archive (two hosts, repeated
//! captures, live and video pages), killed with SIGKILL at many points of its run
//! and rerun each time, ends with the outputs of a run that was never killed:
//! `articles.jsonl` byte for byte, each article once in every file, no page
//! fetched again that the WARC files already held, and nothing a killed run left
//! behind.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};
use tempora_testkit::MockWayback;
use tempora_wayback::warc::WarcFileReader;

/// The shipped nightly pipeline against `server`, with state, WARC files and
/// outputs in `dir`; the Archive's rates off (the model answers at once).
fn nightly(server: &MockWayback, dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_LOG", "warn,tempora_wayback=info")
        .env("TEMPORA_CONTACT", "tests@example.org")
        .args(common::nightly::args(
            &server.endpoint(),
            dir,
            &dir.join("out"),
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// Where a run is killed.
#[derive(Debug, Clone, Copy)]
enum KillAt {
    /// Once the server has answered this many of the run's requests.
    Requests(usize),
    /// When the fetch stage reports its last page: after the last fetch, before
    /// the sinks publish.
    FetchDone,
    /// With this signal (`INT`, `TERM`: a stop, not a kill) once the server has
    /// answered this many of the run's requests.
    Stop(&'static str, usize),
}

/// Runs the pipeline; kills it at `at` (`None`: lets it end). Whether it was killed.
fn run(server: &MockWayback, dir: &Path, at: Option<KillAt>) -> bool {
    let before = server.log().requests().len();
    let mut child = nightly(server, dir).spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (lines_tx, lines) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line.clone());
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut killed = false;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        let hit = match at {
            Some(KillAt::Requests(n) | KillAt::Stop(_, n)) => {
                server.log().requests().len() - before >= n
            }
            Some(KillAt::FetchDone) => lines.try_iter().any(|l| l.contains("wayback run summary")),
            None => false,
        };
        if hit {
            match at {
                Some(KillAt::Stop(signal, _)) => {
                    let sent = Command::new("kill")
                        .args([&format!("-{signal}"), &child.id().to_string()])
                        .status()
                        .unwrap();
                    assert!(sent.success());
                }
                _ => child.kill().unwrap(),
            }
            killed = true;
            break;
        }
        assert!(Instant::now() < deadline, "the run did not end");
        std::thread::sleep(Duration::from_millis(1));
    }
    let status = child.wait().unwrap();
    let log = reader.join().unwrap();
    if !killed {
        assert!(status.success(), "{log}");
    }
    if killed && matches!(at, Some(KillAt::Stop(..))) {
        // A stopped run ends on its own: interrupted (130), or done before the signal.
        assert!(matches!(status.code(), Some(130 | 0)), "{status:?}\n{log}");
    }
    killed && !status.success()
}

/// Every `.tmp-*` file or folder under `dir`.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with(".tmp-") {
            found.push(path);
        } else if path.is_dir() {
            found.extend(temporaries(&path));
        }
    }
    found
}

/// The ids in each `runs/<run>/articles.jsonl`, in file order.
fn ids_per_run(out: &Path) -> Vec<Vec<String>> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    folders.sort();
    folders
        .iter()
        .filter_map(|f| std::fs::read_to_string(f.join("articles.jsonl")).ok())
        .map(|text| {
            text.lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    format!(
                        "{}/{}",
                        v["source"].as_str().unwrap(),
                        v["id"].as_str().unwrap()
                    )
                })
                .collect()
        })
        .collect()
}

/// How many times each capture is held in the WARC files of `dir`.
fn warc_captures(dir: &Path) -> BTreeMap<String, usize> {
    let mut held = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        for record in WarcFileReader::open(&entry.path(), 1 << 30).unwrap() {
            let record = record.unwrap();
            if let Some(capture) = record.header("Tempora-Capture") {
                let c: serde_json::Value = serde_json::from_str(capture).unwrap();
                *held
                    .entry(format!("{} {}", c["timestamp"], c["url"]))
                    .or_insert(0) += 1;
            }
        }
    }
    held
}

/// The night's model Archive.
async fn night_archive() -> std::sync::Arc<MockWayback> {
    let site = NewsSite::build(&NewsSiteSpec {
        seed: 22,
        first_year: 2020,
        last_year: 2020,
        articles_per_month: 6,
    });
    std::sync::Arc::new(MockWayback::start(site.corpus.clone()).await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_night_stopped_by_sigint_or_sigterm_anywhere_ends_as_if_never_stopped() {
    let server = night_archive().await;
    let whole = tempfile::tempdir().unwrap();
    let (s, w) = (server.clone(), whole.path().to_path_buf());
    tokio::task::spawn_blocking(move || run(&s, &w, None))
        .await
        .unwrap();
    let expected = std::fs::read(whole.path().join("out/articles.jsonl")).unwrap();
    let asked_whole = server.log().requests().len();
    for (signal, share) in [("INT", 0.2), ("INT", 0.5), ("TERM", 0.7), ("INT", 0.9)] {
        let stopped = tempfile::tempdir().unwrap();
        let at = KillAt::Stop(signal, (asked_whole as f64 * share) as usize);
        let (s, d) = (server.clone(), stopped.path().to_path_buf());
        let was_stopped = tokio::task::spawn_blocking(move || run(&s, &d, Some(at)))
            .await
            .unwrap();
        assert!(
            was_stopped,
            "{signal} at {share}: the night ended before the signal"
        );
        let out = stopped.path().join("out");
        // Nothing published by the stopped night.
        assert!(!out.join("articles.jsonl").exists(), "{signal} at {share}");
        let (s, d) = (server.clone(), stopped.path().to_path_buf());
        tokio::task::spawn_blocking(move || run(&s, &d, None))
            .await
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&std::fs::read(out.join("articles.jsonl")).unwrap()),
            String::from_utf8_lossy(&expected),
            "{signal} at {share}: the accumulated articles differ from an uninterrupted night's"
        );
        let runs = ids_per_run(&out);
        assert_eq!(runs.len(), 1, "one published night: {runs:?}");
        assert_eq!(temporaries(&out), Vec::<PathBuf>::new());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_night_killed_anywhere_ends_as_if_never_killed() {
    let server = night_archive().await;

    // The night as it should be: one run, never killed.
    let whole = tempfile::tempdir().unwrap();
    let s = server.clone();
    let w = whole.path().to_path_buf();
    tokio::task::spawn_blocking(move || run(&s, &w, None))
        .await
        .unwrap();
    let expected = std::fs::read(whole.path().join("out/articles.jsonl")).unwrap();
    let expected_runs = ids_per_run(&whole.path().join("out"));
    assert_eq!(expected_runs.len(), 1);
    let asked_whole = server.log().requests().len();
    assert!(expected_runs[0].len() > 20, "{expected_runs:?}");
    let pages_whole = warc_captures(&whole.path().join("warc"));

    // The same night, killed again and again: at the first requests (listing),
    // while fetching, after the last fetch and before publishing; then run to its end.
    let killed = tempfile::tempdir().unwrap();
    let mut points: Vec<KillAt> = [1, 2, 4, 8, 16, 32, 64]
        .into_iter()
        .filter(|&n| n < asked_whole)
        .map(KillAt::Requests)
        .collect();
    points.push(KillAt::FetchDone);
    points.push(KillAt::Requests(asked_whole / 2));
    points.push(KillAt::FetchDone);
    let mut kills = 0;
    for at in points {
        let s = server.clone();
        let k = killed.path().to_path_buf();
        kills += usize::from(
            tokio::task::spawn_blocking(move || run(&s, &k, Some(at)))
                .await
                .unwrap(),
        );
    }
    assert!(
        kills >= 5,
        "only {kills} runs were killed before they ended"
    );
    let s = server.clone();
    let k = killed.path().to_path_buf();
    tokio::task::spawn_blocking(move || run(&s, &k, None))
        .await
        .unwrap();

    let out = killed.path().join("out");
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(out.join("articles.jsonl")).unwrap()),
        String::from_utf8_lossy(&expected),
        "the accumulated articles differ from those of a run never killed"
    );
    // Each article once in every run's file, and every article of the night in one
    // of them.
    let runs = ids_per_run(&out);
    for ids in &runs {
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(
            unique.len(),
            ids.len(),
            "an article twice in one run's file: {ids:?}"
        );
    }
    let all: BTreeSet<&String> = runs.iter().flatten().collect();
    let want: BTreeSet<&String> = expected_runs[0].iter().collect();
    assert_eq!(all, want);
    // No page fetched again once the WARC files held it, and the same pages held.
    let pages = warc_captures(&killed.path().join("warc"));
    let twice: Vec<_> = pages.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "held twice: {twice:?}");
    assert_eq!(
        pages.keys().collect::<Vec<_>>(),
        pages_whole.keys().collect::<Vec<_>>()
    );
    // Nothing a killed run left behind.
    assert_eq!(temporaries(&out), Vec::<PathBuf>::new());
}

/// The demo with a withheld part (so its publication holds the card, the
/// manifest's inputs and the commitment besides the sets), run in `dir` with
/// `set`; aborted at the publication's point `abort` when given. Whether it
/// ended by itself.
fn demo_run(file: &str, set: Option<&str>, abort: Option<&str>) -> bool {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(Path::new(file).parent().unwrap())
        .args(["run", file, "--progress", "off"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(set) = set {
        cmd.args(["--set", set]);
    }
    if let Some(point) = abort {
        cmd.env(tempora_engine::publish::ABORT_AT, point);
    }
    let status = cmd.status().unwrap();
    if abort.is_none() {
        assert_eq!(status.code(), Some(0), "{file} {set:?}");
    }
    status.code().is_some()
}

#[test]
fn a_run_killed_at_any_file_of_its_publication_leaves_the_old_folder_or_the_new_one() {
    let release = "[pipeline.release]\nwithhold = 0.3\nkey = \"release.key\"\n";
    // Another configuration: fewer future articles, so every file changes.
    let other = "pipeline.sets.future.to=2020-12-31";
    let skip = ["run.json"];
    let make = |dir: &Path| {
        std::fs::write(dir.join("release.key"), [5u8; 32]).unwrap();
        // Its paths relative to `dir`, where it runs: the files of two folders
        // compare.
        let file = common::demo::demo_with(dir, release);
        demo_run(&file, None, None);
        file
    };
    let old_dir = tempfile::tempdir().unwrap();
    make(old_dir.path());
    let old = common::temposum::published(&old_dir.path().join("out"), &skip);
    let new_dir = tempfile::tempdir().unwrap();
    let file = make(new_dir.path());
    demo_run(&file, Some(other), None);
    let new = common::temposum::published(&new_dir.path().join("out"), &skip);
    for name in ["README.md", "manifest.inputs.json", "withheld.json"] {
        assert!(old.contains_key(name) && new.contains_key(name), "{name}");
        assert_ne!(old[name], new[name], "{name} is the same in both");
    }

    for point in [
        "derived",
        "journal",
        "renamed manifest.inputs.json",
        "renamed withheld.json",
        "renamed README.md",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = make(dir.path());
        let out = dir.path().join("out");
        let before = common::temposum::published(&out, &skip);
        assert_eq!(differing(&old, &before), [] as [&str; 0], "{point}");
        assert!(
            !demo_run(&file, Some(other), Some(point)),
            "{point}: not aborted"
        );
        let journal = out.join(tempora_engine::publish::JOURNAL).exists();
        if point == "derived" {
            // Nothing published: the old folder, every file.
            assert!(!journal, "{point}");
            let now = common::temposum::published(&out, &skip);
            assert_eq!(
                differing(&old, &now),
                [] as [&str; 0],
                "{point}: not the old folder"
            );
        } else {
            // Published in part: the journal names the rest, and the next
            // claim of the folder finishes it before anything else.
            assert!(journal, "{point}: no journal");
        }
        demo_run(&file, Some(other), None);
        let now = common::temposum::published(&out, &skip);
        assert_eq!(
            differing(&new, &now),
            [] as [&str; 0],
            "{point}: not the new folder"
        );
        assert!(
            !out.join(tempora_engine::publish::PREVIEW).exists(),
            "{point}"
        );
    }
}

/// The files that differ between two folders' files (or are in one only).
fn differing<'a>(
    a: &'a BTreeMap<String, Vec<u8>>,
    b: &'a BTreeMap<String, Vec<u8>>,
) -> Vec<&'a str> {
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(String::as_str)
        .collect()
}
