//! A withheld part, committed now and revealed later: the shipped temposum-bbc
//! pipeline with `[pipeline.release]` against the testkit's BBC model. Withheld
//! articles never reach a published file, about the share asked for is held
//! back, the same ids on a rerun, and `tempora reveal` publishes the untouched
//! part and refuses a changed one.

mod common;

use common::said::said;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use common::temposum::{bbc, pipeline};
use tempora_testkit::MockWayback;

/// The pipeline with a withheld share and `key`, written in `dir`.
fn write_pipeline(dir: &Path, endpoint: &str, key: &str) {
    let mut file: toml::Table = toml::from_str(&pipeline(bbc(), endpoint)).unwrap();
    let mut release = toml::Table::new();
    release.insert("withhold".into(), 0.2.into());
    release.insert("key".into(), key.into());
    file["pipeline"]
        .as_table_mut()
        .unwrap()
        .insert("release".into(), release.into());
    std::fs::write(dir.join("pipeline.toml"), toml::to_string(&file).unwrap()).unwrap();
}

fn tempora(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tempora"))
        .current_dir(dir)
        .args(args)
        .envs(bbc().env.iter().map(|(k, v)| (k, v)))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// The article ids of every JSONL file under `dir` (articles' and manifest rows'
/// `id`, pairs' `article_id`), split into those under `withheld/` and the rest.
fn ids(out: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut withheld = BTreeSet::new();
    let mut published = BTreeSet::new();
    let mut pending = vec![out.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if !name.ends_with(".jsonl")
                || name == "rejected.jsonl"
                || name.starts_with("manifest.facts")
                || name == "facts.jsonl"
            {
                continue;
            }
            let into = if path.strip_prefix(out).unwrap().starts_with("withheld") {
                &mut withheld
            } else {
                &mut published
            };
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let id = v.get("article_id").or_else(|| v.get("id")).unwrap();
                into.insert(id.as_str().unwrap().to_string());
            }
        }
    }
    (withheld, published)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_withheld_part_is_kept_out_committed_and_revealed_only_untouched() {
    let server = MockWayback::start(bbc().corpus.clone()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("release.key"), [7u8; 32]).unwrap();
    write_pipeline(dir.path(), &server.endpoint(), "release.key");
    let out = dir.path().join("out");

    let first = tokio::task::block_in_place(|| {
        tempora(dir.path(), &["run", "pipeline.toml", "--progress", "off"])
    });
    assert_eq!(first.status.code(), Some(0), "{}", said(&first));
    let (withheld, published) = ids(&out);
    assert!(
        withheld.is_disjoint(&published),
        "{:?}",
        withheld.intersection(&published).collect::<Vec<_>>()
    );
    // Binomial: a fifth of the articles, within 4 standard deviations.
    let n = (withheld.len() + published.len()) as f64;
    let sd = (n * 0.2 * 0.8).sqrt();
    assert!(n >= 50.0, "{n} articles");
    assert!(
        (withheld.len() as f64 - 0.2 * n).abs() < 4.0 * sd,
        "{} of {n} withheld",
        withheld.len()
    );

    // The card commits to the withheld files and lists none of them in its configs.
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    let commitment: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("withheld.json")).unwrap()).unwrap();
    assert!(card.contains("## Withheld part"), "{card}");
    let front = card.split("\n---\n").next().unwrap();
    assert!(!front.contains("withheld"), "{front}");
    for file in commitment["files"].as_array().unwrap() {
        assert!(card.contains(file["sha256"].as_str().unwrap()), "{card}");
    }
    assert!(card.contains(commitment["key_sha256"].as_str().unwrap()));

    // A rerun holds back the same articles.
    let future = std::fs::read(out.join("withheld/future.jsonl")).unwrap();
    let again = tokio::task::block_in_place(|| {
        tempora(dir.path(), &["run", "pipeline.toml", "--progress", "off"])
    });
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    assert_eq!(ids(&out).0, withheld);
    assert_eq!(
        std::fs::read(out.join("withheld/future.jsonl")).unwrap(),
        future
    );

    // A changed withheld file is refused, by name; the untouched part is published.
    let mut changed = future.clone();
    changed.extend_from_slice(&future[..future.iter().position(|b| *b == b'\n').unwrap() + 1]);
    std::fs::write(out.join("withheld/future.jsonl"), &changed).unwrap();
    let refused = tempora(dir.path(), &["reveal", "out"]);
    assert_eq!(refused.status.code(), Some(1), "{}", said(&refused));
    assert!(
        said(&refused).contains("withheld/future.jsonl changed since it was committed to"),
        "{}",
        said(&refused)
    );
    assert!(!std::fs::read_to_string(out.join("withheld.json"))
        .unwrap()
        .contains("revealed"));
    std::fs::write(out.join("withheld/future.jsonl"), &future).unwrap();
    let revealed = tempora(dir.path(), &["reveal", "out"]);
    assert_eq!(revealed.status.code(), Some(0), "{}", said(&revealed));
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(card.contains("future_withheld"), "{card}");
    assert!(
        card.contains(&"07".repeat(32)),
        "the key is published: {card}"
    );
    let commitment: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("withheld.json")).unwrap()).unwrap();
    assert!(commitment["revealed"]["at"].is_string(), "{commitment:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_key_is_refused_before_any_request() {
    let server = MockWayback::start(bbc().corpus.clone()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_pipeline(dir.path(), &server.endpoint(), "secret/release.key");
    let out = tokio::task::block_in_place(|| {
        tempora(dir.path(), &["run", "pipeline.toml", "--progress", "off"])
    });
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    let told = said(&out);
    assert!(told.contains("pipeline.release.key"), "{told}");
    assert!(
        told.contains("cannot read the release key secret/release.key: No such file or directory"),
        "{told}"
    );
    assert!(
        server.log().requests().is_empty(),
        "{:?}",
        server.log().requests().len()
    );
    let validate = tempora(dir.path(), &["validate", "pipeline.toml"]);
    assert_eq!(validate.status.code(), Some(2), "{}", said(&validate));
}
