//! A set shared as its manifest and rebuilt exactly: the shipped
//! `pipelines/temposum-bbc.toml` against the testkit's model of BBC News in the
//! Archive, then `tempora rebuild` of its `manifest.jsonl` into a fresh folder,
//! in a fresh crawl state: the same published files, no CDX request, one page
//! request per capture; against a changed Archive, each article it cannot
//! rebuild named, the rest the same.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::temposum::{bbc, cnn, run_shipped, Lab};
use tempora_testkit::{Corpus, MockWayback, RequestKind};

/// A lab's shipped pipeline, run once against its model: the original.
struct Original {
    lab: &'static Lab,
    dir: tempfile::TempDir,
}

impl Original {
    /// Runs the lab's shipped pipeline against its model.
    async fn run(lab: &'static Lab) -> Self {
        let server = MockWayback::start(lab.corpus.clone()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        run_shipped(lab, &server.endpoint(), dir.path());
        Self { lab, dir }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn manifest(&self) -> PathBuf {
        self.out().join("manifest.jsonl")
    }

    fn rows(&self) -> Vec<serde_json::Value> {
        lines(&self.manifest())
    }

    /// The articles of the published sets.
    fn articles(&self) -> usize {
        ["in_distribution", "future"]
            .iter()
            .map(|s| lines(&self.out().join(format!("{s}.jsonl"))).len())
            .sum()
    }

    /// Rebuilds from the manifest against `server`, and checks the same files
    /// come out with no listing and one page request per capture.
    fn assert_rebuilt_the_same(&self, server: &MockWayback) {
        let rows = self.rows();
        let sets = self.articles();
        assert!(sets > 20, "the model keeps articles: {sets}");
        assert_eq!(rows.len(), sets, "one manifest row per published article");
        for row in &rows {
            assert!(row.get("title").is_none() && row.get("document").is_none());
            assert_eq!(row["timestamp"].as_str().unwrap().len(), 14);
        }
        let same = rebuild(self, server);
        assert_eq!(same.code, Some(0), "{}\n{}", same.stdout, same.stderr);
        assert_eq!(
            same.requests(RequestKind::Cdx),
            0,
            "a rebuild lists nothing"
        );
        assert_eq!(same.requests(RequestKind::Replay), rows.len());
        assert_same_files(&published(&self.out()), &published(&same.out));
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(same.out.join("run.json")).unwrap()).unwrap();
        assert!(run["rebuilt_from"]["config"].is_object());
        // Again in the same folder: the crawl state holds every page.
        let again = rebuild_in(self, server, same.dir);
        assert_eq!(again.code, Some(0), "{}\n{}", again.stdout, again.stderr);
        assert_eq!(again.requests.len(), 0, "a second rebuild asks for nothing");
        assert_same_files(&published(&self.out()), &published(&again.out));
    }
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// How a rebuild ended.
struct Rebuilt {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    out: PathBuf,
    requests: Vec<tempora_testkit::RequestRecord>,
    dir: tempfile::TempDir,
}

/// `tempora rebuild MANIFEST --out out` of `original` in a fresh folder (fresh
/// crawl state) against `server`, without the variables that name the
/// original's exclusion lists and training summaries.
fn rebuild(original: &Original, server: &MockWayback) -> Rebuilt {
    rebuild_in(original, server, tempfile::tempdir().unwrap())
}

/// [`rebuild`] in `dir`, whose crawl state and outputs a rebuild may have left.
fn rebuild_in(original: &Original, server: &MockWayback, dir: tempfile::TempDir) -> Rebuilt {
    let before = server.log().requests().len();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    for (var, _) in &original.lab.env {
        cmd.env_remove(var);
    }
    let endpoint = server.endpoint();
    let out = cmd
        .current_dir(dir.path())
        .arg("rebuild")
        .arg(original.manifest())
        .args(["--out", "out", "--endpoint", &endpoint, "--rate", "0"])
        .args(["--progress", "off"])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    Rebuilt {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        out: dir.path().join("out"),
        requests: server.log().requests()[before..].to_vec(),
        dir,
    }
}

impl Rebuilt {
    fn requests(&self, kind: RequestKind) -> usize {
        self.requests.iter().filter(|q| q.kind == kind).count()
    }
}

/// The published files of `out` but the run's own records (`run.json`,
/// `rejected.jsonl`, hidden files) and the card's release section.
fn published(out: &Path) -> BTreeMap<String, Vec<u8>> {
    common::temposum::published(out, &["run.json", "rejected.jsonl"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_set_rebuilt_from_its_manifest_is_the_same_and_a_changed_archive_is_named() {
    let original = Original::run(bbc()).await;
    let server = MockWayback::start(original.lab.corpus.clone())
        .await
        .unwrap();
    original.assert_rebuilt_the_same(&server);
    let rows = original.rows();

    // A changed Archive: one capture's page now reads otherwise, one is gone,
    // one serves other bytes that read the same.
    let at = |i: usize| {
        let r = &rows[i];
        (
            r["timestamp"].as_str().unwrap().to_string(),
            r["archived_url"].as_str().unwrap().to_string(),
        )
    };
    let (changed, gone, touched) = (at(3), at(rows.len() / 2), at(rows.len() - 2));
    let corpus = Corpus::new(original.lab.corpus.rows().iter().filter_map(|(_, c)| {
        let mut c = c.clone();
        if c.url == gone.1 {
            return None;
        }
        if (c.timestamp.clone(), c.url.clone()) == changed {
            let html = String::from_utf8_lossy(&c.body).replacen("<p>", "<p>Corrected: ", 3);
            c.body = html.into_bytes();
        }
        if (c.timestamp.clone(), c.url.clone()) == touched {
            c.body.extend_from_slice(b"\n<!-- served again -->\n");
        }
        Some(c)
    }));
    let server = MockWayback::start(corpus).await.unwrap();
    let partial = rebuild(&original, &server);
    assert_eq!(
        partial.code,
        Some(23),
        "{}\n{}",
        partial.stdout,
        partial.stderr
    );
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(partial.out.join("run.json")).unwrap()).unwrap();
    let missing = run["missing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["stage"] == "manifest_check")
        .unwrap_or_else(|| panic!("{}", run["missing"]));
    assert_eq!(missing["count"], 2, "{missing}");
    let items = missing["items"].to_string();
    let id = |i: usize| rows[i]["id"].as_str().unwrap().to_string();
    assert!(
        items.contains(&id(3)) && items.contains("its capture changed"),
        "{items}"
    );
    assert!(
        items.contains(&id(rows.len() / 2)) && items.contains("no article"),
        "{items}"
    );
    assert!(
        partial.stdout.contains("incomplete: 2 articles"),
        "{}",
        partial.stdout
    );
    // The rest is rebuilt as it was: the original's rows but the two.
    let rebuilt: Vec<serde_json::Value> = lines(&partial.out.join("manifest.jsonl"));
    let expected: Vec<serde_json::Value> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != rows.len() / 2)
        .map(|(_, r)| r.clone())
        .collect();
    assert_eq!(rebuilt.len(), expected.len());
    let payload_changed = rebuilt
        .iter()
        .zip(&expected)
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        payload_changed, 1,
        "the capture served again: another SHA-1, the same text"
    );
}

#[test]
fn a_file_that_is_not_a_manifest_is_refused_naming_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest.jsonl");
    // Refused before any work: exit 2, the reason on stderr.
    let refused = || {
        let out = Command::new(env!("CARGO_BIN_EXE_tempora"))
            .arg("rebuild")
            .arg(&manifest)
            .arg("--out")
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(!dir.path().join("out").exists());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    std::fs::write(&manifest, "{\"source\":\"bbc\",\"title\":\"x\"}\n").unwrap();
    let stderr = refused();
    assert!(
        stderr.contains("manifest.jsonl:1:") && stderr.contains("`title`"),
        "{stderr}"
    );
    // Rows, but pins of another schema beside them.
    let row = serde_json::json!({
        "source": "bbc", "id": "1", "section": "news", "split": null, "novelty": null,
        "url": "u", "published": "2020-01-01", "published_source": null,
        "summary_source": null, "timestamp": "20200101000000", "archived_url": "http://a/1",
        "digest": "D", "payload_sha1": "P", "text_sha256": "T", "facts": []
    });
    std::fs::write(&manifest, format!("{row}\n")).unwrap();
    let inputs = dir.path().join("manifest.inputs.json");
    std::fs::write(&inputs, "{\"schema\":\"tempora-manifest/0\"}").unwrap();
    let stderr = refused();
    assert!(
        stderr.contains("manifest.inputs.json") && stderr.contains("`schema`"),
        "{stderr}"
    );
    std::fs::remove_file(&inputs).unwrap();
    let stderr = refused();
    assert!(stderr.contains("manifest.inputs.json"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cnn_set_rebuilt_from_its_manifest_is_the_same() {
    let original = Original::run(cnn()).await;
    let server = MockWayback::start(original.lab.corpus.clone())
        .await
        .unwrap();
    original.assert_rebuilt_the_same(&server);
}

/// The files of two folders, the same byte for byte; where not, the first lines
/// that differ.
fn assert_same_files(want: &BTreeMap<String, Vec<u8>>, got: &BTreeMap<String, Vec<u8>>) {
    let differ: Vec<&String> = want
        .keys()
        .chain(got.keys())
        .filter(|k| want.get(*k) != got.get(*k))
        .collect();
    let first_lines = |name: &str| {
        let text = |m: &BTreeMap<String, Vec<u8>>| {
            String::from_utf8_lossy(m.get(name).map_or(&[][..], Vec::as_slice)).into_owned()
        };
        let (a, b) = (text(want), text(got));
        a.lines()
            .zip(b.lines())
            .filter(|(x, y)| x != y)
            .take(3)
            .map(|(x, y)| format!("\n- {x}\n+ {y}"))
            .collect::<String>()
    };
    assert!(
        differ.is_empty(),
        "rebuilt files differ: {differ:?}{}",
        differ.first().map_or(String::new(), |f| first_lines(f))
    );
}

/// The original's facts in another order than the testkit's (as another dump
/// gives them: its entities in another order): the rebuild, which reads them in
/// `manifest.facts.jsonl`'s order, publishes the same bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_set_whose_facts_came_in_another_order_rebuilds_the_same() {
    let lab = bbc();
    let files = tempfile::tempdir().unwrap();
    let facts = std::fs::read_to_string(lab.files.path().join("facts.jsonl")).unwrap();
    let mut lines: Vec<&str> = facts.lines().collect();
    assert!(lines.len() > 2, "the model has facts to reorder");
    lines.reverse();
    let third = lines.len() / 3;
    lines.rotate_left(third);
    let reordered: String = lines.iter().map(|l| format!("{l}\n")).collect();
    assert_ne!(reordered, facts);
    std::fs::write(files.path().join("facts.jsonl"), reordered).unwrap();
    let other: &'static common::temposum::Lab = Box::leak(Box::new(common::temposum::Lab {
        shipped: lab.shipped,
        corpus: lab.corpus.clone(),
        files,
        env: lab.env.clone(),
    }));
    let original = Original::run(other).await;
    let server = MockWayback::start(other.corpus.clone()).await.unwrap();
    original.assert_rebuilt_the_same(&server);
}

/// The shared set with its facts file (`manifest.facts.jsonl`, which the
/// rebuild reads in place of the dump) reversed and rotated, as another tool
/// that rewrote it might: the rebuild publishes the original's files, byte for
/// byte (its own facts file too), and lists nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuild_from_its_facts_in_another_order_is_the_same() {
    let original = Original::run(bbc()).await;
    // The set as shared: the manifest's files alone, its facts in another order.
    let shared = tempfile::tempdir().unwrap();
    std::fs::create_dir(shared.path().join("out")).unwrap();
    for entry in std::fs::read_dir(original.out())
        .unwrap()
        .map(Result::unwrap)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("manifest.") {
            std::fs::copy(entry.path(), shared.path().join("out").join(&name)).unwrap();
        }
    }
    let facts_file = shared.path().join("out/manifest.facts.jsonl");
    let facts = std::fs::read_to_string(&facts_file).unwrap();
    let mut lines: Vec<&str> = facts.lines().collect();
    assert!(lines.len() > 2, "the set has facts to reorder");
    lines.reverse();
    let third = lines.len() / 3;
    lines.rotate_left(third);
    let reordered: String = lines.iter().map(|l| format!("{l}\n")).collect();
    assert_ne!(reordered, facts);
    std::fs::write(&facts_file, reordered).unwrap();
    let shared = Original {
        lab: original.lab,
        dir: shared,
    };

    let server = MockWayback::start(original.lab.corpus.clone())
        .await
        .unwrap();
    let rebuilt = rebuild(&shared, &server);
    assert_eq!(
        rebuilt.code,
        Some(0),
        "{}\n{}",
        rebuilt.stdout,
        rebuilt.stderr
    );
    assert_eq!(
        rebuilt.requests(RequestKind::Cdx),
        0,
        "a rebuild lists nothing"
    );
    assert_eq!(
        rebuilt.requests(RequestKind::Replay),
        original.rows().len(),
        "one page request per capture"
    );
    assert_same_files(&published(&original.out()), &published(&rebuilt.out));
}
