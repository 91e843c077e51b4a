//! A set is a function of its pipeline, not of its run history: the shipped
//! `pipelines/temposum-bbc.toml` against the testkit's model of BBC News in the
//! Archive, run a second time on the same crawl state after failed pages, after
//! Ctrl-C or SIGTERM at several points, with a new cutoff, with another
//! exclusion list, ends with the published outputs of one run of the final
//! configuration on a fresh state, byte for byte (run.json and the card's
//! release lines aside), and asks the Archive only for what the state lacks.
//! The shipped `pipelines/temposum-cnn.toml` against the model of CNN, after
//! failed pages, too.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::temposum::{bbc, cnn, pipeline, Lab};
use tempora_testkit::{Fault, FaultRule, MockWayback, RequestKind, Target};

/// A crawl folder: its lab's pipeline file, state and outputs.
struct Folder {
    dir: tempfile::TempDir,
    lab: &'static Lab,
    /// The mock Archive its pipeline asks.
    endpoint: String,
}

/// How a run ended.
#[derive(Debug)]
struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// The requests the server saw during the run.
    requests: Vec<tempora_testkit::RequestRecord>,
    /// Whether it was stopped by a signal of the test's.
    stopped: bool,
}

impl Ended {
    fn pages(&self) -> Vec<&str> {
        self.requests
            .iter()
            .filter(|r| r.kind == RequestKind::Replay)
            .map(|r| r.target.as_str())
            .collect()
    }

    fn cdx(&self) -> Vec<&str> {
        self.requests
            .iter()
            .filter(|r| r.kind == RequestKind::Cdx)
            .map(|r| r.target.as_str())
            .collect()
    }
}

/// Where a run is stopped.
#[derive(Debug, Clone, Copy)]
enum StopAt {
    /// With this signal once the server has answered this many of its requests.
    Requests(&'static str, usize),
}

impl Folder {
    fn new(lab: &'static Lab, server: &MockWayback) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pipeline.toml"),
            pipeline(lab, &server.endpoint()),
        )
        .unwrap();
        Self {
            dir,
            lab,
            endpoint: server.endpoint(),
        }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// Runs the pipeline with `overrides` and the lab's files, `env` naming
    /// others in their place; stops it at `stop`.
    fn run_with(
        &self,
        server: &MockWayback,
        overrides: &[&str],
        env: &[(&str, &Path)],
        stop: Option<StopAt>,
    ) -> Ended {
        let before = server.log().requests().len();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
        cmd.current_dir(self.dir.path())
            .args(["run", "pipeline.toml", "--progress", "off"])
            .envs(self.lab.env.iter().map(|(k, v)| (k, v.as_path())))
            .envs(env.iter().copied())
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for o in overrides {
            cmd.args(["--set", o]);
        }
        let mut child = cmd.spawn().unwrap();
        let mut stopped = false;
        if let Some(StopAt::Requests(signal, n)) = stop {
            let deadline = Instant::now() + Duration::from_secs(300);
            while child.try_wait().unwrap().is_none() {
                if server.log().requests().len() - before >= n {
                    let sent = Command::new("kill")
                        .args([&format!("-{signal}"), &child.id().to_string()])
                        .status()
                        .unwrap();
                    stopped = sent.success();
                    break;
                }
                assert!(Instant::now() < deadline, "the run did not end");
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        let output = child.wait_with_output().unwrap();
        Ended {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            requests: server.log().requests()[before..].to_vec(),
            stopped,
        }
    }

    fn run(&self, server: &MockWayback, overrides: &[&str]) -> Ended {
        self.run_with(server, overrides, &[], None)
    }

    /// Every published file of the folder, by path: `run.json` and the folder's
    /// hidden files aside, the card without its release section (the run that
    /// wrote it: its name, time, commit and requests), and the mock Archive's
    /// address masked (each folder's server listens on its own port; a file
    /// naming the pipeline's inputs names it).
    fn published(&self) -> BTreeMap<String, Vec<u8>> {
        let mut files = common::temposum::published(&self.out(), &["run.json"]);
        for bytes in files.values_mut() {
            if let Ok(text) = std::str::from_utf8(bytes) {
                if text.contains(&self.endpoint) {
                    *bytes = text.replace(&self.endpoint, "ARCHIVE").into_bytes();
                }
            }
        }
        files
    }

    /// The ids of the articles in the published sets.
    fn article_ids(&self) -> BTreeSet<String> {
        ["in_distribution", "future"]
            .into_iter()
            .flat_map(|split| self.records(split))
            .map(|v| v["id"].as_str().unwrap().to_string())
            .collect()
    }

    /// The records of a published set (none when it was not written).
    fn records(&self, split: &str) -> Vec<serde_json::Value> {
        let text =
            std::fs::read_to_string(self.out().join(format!("{split}.jsonl"))).unwrap_or_default();
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn run_json(&self) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(self.out().join("run.json")).unwrap())
            .unwrap()
    }
}

/// The names of the files that differ between two folders' outputs, for messages.
fn differing(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|n| a.get(*n) != b.get(*n))
        .map(|n| {
            let lines = |m: &BTreeMap<String, Vec<u8>>| {
                m.get(n)
                    .map_or(0, |f| String::from_utf8_lossy(f).lines().count())
            };
            let text = |m: &BTreeMap<String, Vec<u8>>| {
                m.get(n).map(|f| String::from_utf8_lossy(f).into_owned())
            };
            let (ta, tb) = (text(a).unwrap_or_default(), text(b).unwrap_or_default());
            let first = ta
                .lines()
                .zip(tb.lines())
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!(": first difference {x:?} vs {y:?}"))
                .unwrap_or_default();
            format!("{n} ({} vs {} lines){first}", lines(a), lines(b))
        })
        .collect()
}

fn assert_same_outputs(got: &Folder, fresh: &Folder, what: &str) {
    let (a, b) = (got.published(), fresh.published());
    assert!(
        a == b,
        "{what}: outputs differ from a fresh run's: {:?}",
        differing(&a, &b)
    );
}

fn assert_completed(ended: &Ended) {
    assert_eq!(ended.code, Some(0), "{}\n{}", ended.stdout, ended.stderr);
}

/// A mock Archive of the lab's model.
async fn serve(lab: &Lab) -> MockWayback {
    MockWayback::start(lab.corpus.clone()).await.unwrap()
}

/// A fresh run of the lab's pipeline with `overrides` and `env` on its own
/// server and state: the reference.
async fn fresh(lab: &'static Lab, overrides: &[&str], env: &[(&str, &Path)]) -> Folder {
    let server = serve(lab).await;
    let folder = Folder::new(lab, &server);
    let ended = folder.run_with(&server, overrides, env, None);
    assert_completed(&ended);
    folder
}

/// `failing` kept articles' pages answered 503 at every attempt (a request
/// whose target contains `target(id)`): the run publishes the sets without them
/// and says so; the same command again asks for those pages only and ends with
/// `reference`'s outputs; a third run asks for nothing.
async fn failed_pages_then_the_same_command(
    lab: &'static Lab,
    reference: &Folder,
    failing: &[String],
    target: fn(&str) -> String,
) {
    let n = failing.len();
    let server = serve(lab).await;
    for id in failing {
        let rule = FaultRule::new(Target::UrlContains(target(id)), Fault::Unavailable, 2);
        server.add_fault(rule);
    }
    let folder = Folder::new(lab, &server);
    let first = folder.run(&server, &[]);
    assert_eq!(
        first.code,
        Some(23),
        "partial: {}\n{}",
        first.stdout,
        first.stderr
    );
    let incomplete = format!("{n} pages could not be fetched");
    assert!(
        first.stdout.contains(&format!("incomplete: {incomplete}")),
        "{}",
        first.stdout
    );
    let run = folder.run_json();
    assert_eq!(run["status"], "completed");
    assert_eq!(run["missing"][0]["count"], n, "{}", run["missing"]);
    assert_eq!(run["missing"][0]["items"].as_array().unwrap().len(), n);
    let card = std::fs::read_to_string(folder.out().join("README.md")).unwrap();
    assert!(
        card.contains(&incomplete) && card.to_lowercase().contains("run the same command again"),
        "{card}"
    );
    // The sets lack those articles, and only those.
    let expected: BTreeSet<String> = reference
        .article_ids()
        .into_iter()
        .filter(|id| !failing.contains(id))
        .collect();
    assert_eq!(folder.article_ids(), expected);

    // The same command again: only the failed pages are asked for, no listing.
    let second = folder.run(&server, &[]);
    assert_completed(&second);
    assert_eq!(second.pages().len(), n, "{:?}", second.pages());
    assert!(second.cdx().is_empty(), "{:?}", second.cdx());
    assert!(!second.stdout.contains("incomplete"), "{}", second.stdout);
    assert_eq!(folder.run_json()["missing"], serde_json::json!([]));
    assert_same_outputs(&folder, reference, "retry");
    // And a third run changes nothing and asks for nothing.
    let third = folder.run(&server, &[]);
    assert_completed(&third);
    assert!(third.requests.is_empty(), "{:?}", third.requests);
    assert_same_outputs(&folder, reference, "a run with everything cached");
}

/// `n` ids spread over `kept`.
fn spread(kept: &BTreeSet<String>, n: usize) -> Vec<String> {
    kept.iter()
        .step_by(kept.len() / n)
        .take(n)
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_failed_pages_ends_as_a_fresh_run() {
    let reference = fresh(bbc(), &[], &[]).await;
    let kept = reference.article_ids();
    assert!(kept.len() > 50, "the model keeps articles: {}", kept.len());
    // BBC's id ends the story's URL.
    let target = |id: &str| format!("-{id}");
    failed_pages_then_the_same_command(bbc(), &reference, &spread(&kept, 5), target).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cnn_a_retry_after_failed_pages_ends_as_a_fresh_run() {
    let reference = fresh(cnn(), &[], &[]).await;
    // Not vacuous: both sets keep stories, the older with their highlights as the
    // summary, the future ones (pages without highlights) with their title.
    for (split, source) in [("in_distribution", "highlights"), ("future", "title")] {
        let records = reference.records(split);
        assert!(records.len() > 5, "{split}: {} articles", records.len());
        let sources: BTreeSet<&str> = records
            .iter()
            .map(|r| r["summary_source"].as_str().unwrap_or("none"))
            .collect();
        assert!(sources.contains(source), "{split}: {sources:?}");
    }
    // CNN's id is the story's path: `/index.html` (or `/`) follows it in every URL.
    let target = |id: &str| format!("{id}/");
    let failing = spread(&reference.article_ids(), 4);
    failed_pages_then_the_same_command(cnn(), &reference, &failing, target).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_at_any_point_then_the_same_command_ends_as_a_run_never_stopped() {
    let reference = fresh(bbc(), &[], &[]).await;
    let total = {
        let server = serve(bbc()).await;
        let folder = Folder::new(bbc(), &server);
        let ended = folder.run(&server, &[]);
        assert_completed(&ended);
        ended.requests.len()
    };
    for (signal, share) in [("INT", 0.3), ("INT", 0.55), ("INT", 0.8), ("TERM", 0.55)] {
        let server = serve(bbc()).await;
        let folder = Folder::new(bbc(), &server);
        let at = (total as f64 * share) as usize;
        let stopped = folder.run_with(&server, &[], &[], Some(StopAt::Requests(signal, at)));
        assert!(
            stopped.stopped,
            "{signal} at {at} of {total}: the run ended before"
        );
        assert_eq!(
            stopped.code,
            Some(130),
            "{signal}: {}\n{}",
            stopped.stdout,
            stopped.stderr
        );
        // A stopped run publishes nothing: no set, no card.
        assert!(
            !folder.out().join("future.jsonl").exists() && !folder.out().join("README.md").exists(),
            "{signal} at {at}: a stopped run published"
        );
        assert_eq!(folder.run_json()["status"], "interrupted");
        let fetched_before: BTreeSet<String> =
            stopped.pages().iter().map(|p| p.to_string()).collect();

        let rerun = folder.run(&server, &[]);
        assert_completed(&rerun);
        assert_same_outputs(&folder, &reference, &format!("{signal} at {at} of {total}"));
        // What the stopped run fetched is read back, not asked for again.
        let again: Vec<&str> = rerun
            .pages()
            .into_iter()
            .filter(|p| fetched_before.contains(*p))
            .collect();
        assert!(
            again.is_empty(),
            "{signal} at {at}: fetched again {again:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_cutoff_on_an_old_state_ends_as_a_fresh_run_of_it() {
    // An earlier cutoff (the model's facts file is computed for 2019-12-31, and a
    // facts file holds for any earlier cutoff): the future set moves to days the
    // first run did not list, and loses days it did.
    let new_cutoff = [
        "pipeline.cutoff=2019-06-30",
        "pipeline.sets.future.to=2020-12-31",
    ];
    let reference = fresh(bbc(), &new_cutoff, &[]).await;

    let server = serve(bbc()).await;
    let folder = Folder::new(bbc(), &server);
    let first = folder.run(&server, &[]);
    assert_completed(&first);
    let old_future = folder.article_ids();
    let second = folder.run(&server, &new_cutoff);
    assert_completed(&second);
    assert_same_outputs(&folder, &reference, "new cutoff");
    assert_ne!(
        folder.article_ids(),
        old_future,
        "the sets follow the cutoff"
    );
    // No page the state holds is asked for again, and no listing of a window
    // the first run completed.
    let fetched: BTreeSet<&str> = first.pages().into_iter().collect();
    let refetched: Vec<&str> = second
        .pages()
        .into_iter()
        .filter(|p| fetched.contains(p))
        .collect();
    assert!(refetched.is_empty(), "{refetched:?}");
    let listed: BTreeSet<&str> = first.cdx().into_iter().collect();
    let relisted: Vec<&str> = second
        .cdx()
        .into_iter()
        .filter(|q| listed.contains(q))
        .collect();
    assert!(relisted.is_empty(), "{relisted:?}");
    // The new future set's chunks that the old window covered whole are read
    // back: only the chunks cut by the new window's ends are asked for.
    assert!(
        second.cdx().len() < first.cdx().len() / 4,
        "{} CDX requests of {}",
        second.cdx().len(),
        first.cdx().len()
    );
    // And back to the first cutoff: the first run's sets again, nothing asked.
    let back = folder.run(&server, &[]);
    assert_completed(&back);
    assert!(back.requests.is_empty(), "{:?}", back.requests);
    assert_eq!(folder.article_ids(), old_future);
}

/// Sets that lie inside what the shipped run listed, each starting and ending
/// on other days (as the README's new cutoff moves the future set; the model's
/// facts hold for its own cutoff, so the days are moved by hand): every listing
/// is read back (its chunks no longer match the first run's: they are read from
/// the longer ones that cover them), and every story the state holds is decided
/// without a page (a story met only through a later URL of it was listed before
/// the set by the first run), so the Archive is asked nothing. The sets are a
/// fresh run's; `rejected.jsonl` differs only in stories published before a
/// set's first day, each in no set (see `tempora_wayback::cells`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sets_inside_what_was_listed_ask_the_archive_nothing() {
    let moved = [
        "pipeline.sets.in_distribution.from=2012-03-15",
        "pipeline.sets.future.from=2020-07-01",
        "pipeline.sets.future.to=2021-12-31",
    ];
    let fresh_server = serve(bbc()).await;
    let reference = Folder::new(bbc(), &fresh_server);
    assert_completed(&reference.run(&fresh_server, &moved));
    let server = serve(bbc()).await;
    let folder = Folder::new(bbc(), &server);
    let first = folder.run(&server, &[]);
    assert_completed(&first);
    // The dry run says so first.
    let mut dry = Command::new(env!("CARGO_BIN_EXE_tempora"));
    dry.current_dir(folder.dir.path())
        .args(["run", "pipeline.toml", "--dry-run"])
        .envs(folder.lab.env.iter().map(|(k, v)| (k, v.as_path())));
    for o in moved {
        dry.args(["--set", o]);
    }
    let plan = String::from_utf8_lossy(&dry.output().unwrap().stdout).into_owned();
    let listing = plan
        .split("captures (wayback-cdx)")
        .nth(1)
        .and_then(|stage| stage.split("\n\n").next())
        .unwrap_or_default();
    assert!(listing.contains("estimate: no requests,"), "{plan}");
    let read_back = listing
        .lines()
        .find(|l| l.contains("chunks are read back from the crawl state's listings"))
        .unwrap_or_default();
    let words: Vec<&str> = read_back.split_whitespace().collect();
    assert!(words.len() > 4 && words[0] == words[3], "{read_back}");
    let second = folder.run(&server, &moved);
    assert_completed(&second);
    assert!(second.cdx().is_empty(), "{:?}", second.cdx());
    let kept = reference.article_ids();
    assert!(kept.len() > 20, "{} articles kept", kept.len());
    assert!(second.pages().is_empty(), "{:?}", second.pages());
    eprintln!(
        "first run: {} CDX and {} page requests; the moved sets: {} and {}",
        first.cdx().len(),
        first.pages().len(),
        second.cdx().len(),
        second.pages().len()
    );

    let (mut got, mut want) = (folder.published(), reference.published());
    let rejected = |m: &mut BTreeMap<String, Vec<u8>>| {
        let text = String::from_utf8(m.remove("rejected.jsonl").unwrap()).unwrap();
        text.lines()
            .map(str::to_string)
            .collect::<BTreeSet<String>>()
    };
    let (got_rejected, want_rejected) = (rejected(&mut got), rejected(&mut want));
    assert!(
        got == want,
        "outputs differ from a fresh run's: {:?}",
        differing(&got, &want)
    );
    let kept = reference.article_ids();
    assert!(kept.len() > 20, "{} articles kept", kept.len());
    let differ: Vec<&String> = got_rejected.symmetric_difference(&want_rejected).collect();
    assert!(!differ.is_empty(), "the model has stories before the sets");
    for line in differ {
        let story = story_of(line);
        assert!(!kept.contains(&story), "{story}: {line}");
    }
}

/// The BBC story a rejected record is about: the article's id, or the digits
/// that end its capture's URL path.
fn story_of(line: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    let record = &value["record"];
    if let Some(id) = record["id"].as_str() {
        return id.to_string();
    }
    let url = record["url"].as_str().unwrap_or_default();
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let digits: String = path
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_exclusion_list_on_an_old_state_ends_as_a_fresh_run_of_it() {
    // XSum's split without its training ids: fewer articles are excluded.
    let text = std::fs::read_to_string(bbc().files.path().join("xsum-split.json")).unwrap();
    let split: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut smaller = split.clone();
    smaller["train"] = serde_json::json!([]);
    assert_ne!(smaller, split, "the model's split has training ids");
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("xsum-other.json");
    std::fs::write(&other, smaller.to_string()).unwrap();
    let reference = fresh(bbc(), &[], &[("XSUM_SPLIT", &other)]).await;

    let server = serve(bbc()).await;
    let folder = Folder::new(bbc(), &server);
    assert_completed(&folder.run(&server, &[]));
    let before = folder.article_ids();
    let second = folder.run_with(&server, &[], &[("XSUM_SPLIT", &other)], None);
    assert_completed(&second);
    assert_same_outputs(&folder, &reference, "another exclusion list");
    assert!(folder.article_ids().len() > before.len());
    assert!(second.cdx().is_empty(), "{:?}", second.cdx());
}
