//! The folder a lab publishes (`tempora publish OUT --to DIR`): the shipped
//! `pipelines/temposum-bbc.toml` run against the testkit's model of BBC News in
//! the Archive, published to a second folder as a user would, which holds the
//! manifest, the facts and a card and none of the publishers' text; its card
//! says so and how to rebuild; `tempora rebuild` of its manifest, in a fresh
//! crawl state, gives back the original's files byte for byte. And what is
//! refused: a folder to write that is not empty, a folder to publish that is no
//! output, a card of a folder that lacks a file it should have.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::bin::{succeeded, tempora_in};
use common::said::said;
use common::temposum::{bbc, run_shipped};
use tempora_testkit::{MockWayback, RequestKind};

/// Every line of the published files, JSON lines and Parquet rows alike (as
/// JSON), by file.
fn records(dir: &Path) -> BTreeMap<String, Vec<serde_json::Value>> {
    let mut out = BTreeMap::new();
    for (name, bytes) in common::temposum::published(dir, &[]) {
        let text = if name.ends_with(".parquet") {
            let file = std::fs::File::open(dir.join(&name)).unwrap();
            String::from_utf8(tempora_sink::parquet::read_json_lines(file).unwrap()).unwrap()
        } else if name.ends_with(".jsonl") {
            String::from_utf8(bytes).unwrap()
        } else {
            continue;
        };
        let lines = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        out.insert(name, lines);
    }
    out
}

/// The texts of the original's articles: their titles, summaries and documents.
fn article_texts(out: &Path) -> Vec<String> {
    let mut texts = Vec::new();
    for set in ["in_distribution", "future"] {
        for article in common::jsonl::lines(&out.join(format!("{set}.jsonl"))) {
            for field in ["title", "summary", "document"] {
                if let Some(text) = article[field].as_str().filter(|t| t.len() > 20) {
                    texts.push(text.to_string());
                }
            }
        }
    }
    texts
}

/// Checks that no file of `published` holds a record field of the publishers'
/// text, nor any text of the original's articles (in any file, whatever its format).
fn assert_no_text(published: &Path, original: &Path) {
    let texts = article_texts(original);
    assert!(!texts.is_empty(), "the original keeps articles");
    for (name, lines) in records(published) {
        for line in &lines {
            for field in ["title", "summary", "document", "body", "article"] {
                assert!(line.get(field).is_none(), "{name} holds `{field}`: {line}");
            }
        }
        let json: String = lines.iter().map(ToString::to_string).collect();
        for text in &texts {
            let quoted = serde_json::to_string(text).unwrap();
            let inner = &quoted[1..quoted.len() - 1];
            assert!(
                !json.contains(inner),
                "{name} holds an article's text: {text}"
            );
        }
    }
    for (name, bytes) in common::temposum::published(published, &[]) {
        let text = String::from_utf8_lossy(&bytes);
        for t in &texts {
            assert!(
                !text.contains(t.as_str()),
                "{name} holds an article's text: {t}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_published_folder_holds_no_text_says_how_to_rebuild_and_rebuilds_the_same() {
    let lab = bbc();
    let server = MockWayback::start(lab.corpus.clone()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_shipped(lab, &server.endpoint(), dir.path());
    let out = dir.path().join("out");

    succeeded(&tempora_in(
        dir.path(),
        &["publish", "out", "--to", "publish/bbc"],
    ));
    let to = dir.path().join("publish/bbc");
    let files: Vec<String> = common::temposum::published(&to, &[]).into_keys().collect();
    assert_eq!(
        files,
        [
            "README.md",
            "facts.jsonl",
            "manifest.facts.jsonl",
            "manifest.inputs.json",
            "manifest.jsonl",
            "manifest.parquet",
            "run.json",
        ]
    );
    // Nothing hidden either: no staging folder left beside it, no bookkeeping in it.
    let beside: Vec<_> = std::fs::read_dir(dir.path().join("publish"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["bbc"]);
    assert_eq!(std::fs::read_dir(&to).unwrap().count(), files.len());
    for name in &files[1..] {
        assert_eq!(
            std::fs::read(to.join(name)).unwrap(),
            std::fs::read(out.join(name)).unwrap(),
            "{name} is copied as it is"
        );
    }
    assert_no_text(&to, &out);

    // The card: configs of the files there, no text, how to get the sets back;
    // `tempora card` on the folder writes the same card.
    let card = std::fs::read_to_string(to.join("README.md")).unwrap();
    assert!(
        card.contains("No file of this folder holds the publishers' text"),
        "{card}"
    );
    assert!(
        !card.contains("This folder holds the publishers' text"),
        "{card}"
    );
    assert!(
        card.contains("tempora rebuild PATH/manifest.jsonl --out sets --contact"),
        "{card}"
    );
    assert!(card.contains("## Rebuilding the sets"), "{card}");
    assert!(
        card.contains("config_name: manifest\n  default: true"),
        "{card}"
    );
    assert!(!card.contains("future.parquet"), "{card}");
    succeeded(&tempora_in(dir.path(), &["card", "publish/bbc"]));
    assert_eq!(std::fs::read_to_string(to.join("README.md")).unwrap(), card);
    // The full folder's card says it holds the text, and where to publish from.
    let full = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        full.contains("This folder holds the publishers' text"),
        "{full}"
    );
    assert!(full.contains("`tempora publish PATH --to DIR`"), "{full}");

    // Rebuilt from the published manifest, in a fresh folder and crawl state:
    // the original's files, byte for byte.
    let fresh = tempfile::tempdir().unwrap();
    let endpoint = server.endpoint();
    let manifest = to.join("manifest.jsonl");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    for (var, _) in &lab.env {
        cmd.env_remove(var);
    }
    let before = server.log().requests().len();
    let rebuilt = cmd
        .current_dir(fresh.path())
        .arg("rebuild")
        .arg(&manifest)
        .args(["--out", "sets", "--endpoint", &endpoint, "--rate", "0"])
        .args(["--contact", "you@example.org", "--progress", "off"])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert_eq!(rebuilt.status.code(), Some(0), "{}", said(&rebuilt));
    let requests = &server.log().requests()[before..];
    assert!(requests.iter().all(|q| q.kind != RequestKind::Cdx));
    let skip = ["run.json", "rejected.jsonl"];
    let want = common::temposum::published(&out, &skip);
    let got = common::temposum::published(&fresh.path().join("sets"), &skip);
    assert!(want.contains_key("future.parquet") && want.contains_key("README.md"));
    if let Err(e) = common::order::same_files(&got, &want) {
        panic!("the sets rebuilt from the published folder: {e}");
    }
}

/// The demo, run offline in a folder of its own; the output folder.
fn demo(dir: &Path) -> PathBuf {
    let pipeline = common::demo::demo_with(dir, "");
    succeeded(&tempora_in(dir, &["run", &pipeline, "--progress", "off"]));
    dir.join("out")
}

/// Checks that `tempora publish FROM --to TO` (in `dir`) is refused, exit 2,
/// naming `names`.
fn publish_refused(dir: &Path, from: &str, to: &str, names: &str) {
    let refused = tempora_in(dir, &["publish", from, "--to", to]);
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    assert!(said(&refused).contains(names), "{}", said(&refused));
}

#[test]
fn a_folder_to_write_that_is_not_empty_and_a_folder_that_is_no_output_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    std::fs::create_dir(dir.path().join("full")).unwrap();
    std::fs::write(dir.path().join("full/notes.txt"), "ours").unwrap();
    publish_refused(dir.path(), "out", "full", "full: not empty");
    let left: Vec<_> = std::fs::read_dir(dir.path().join("full"))
        .unwrap()
        .collect();
    assert_eq!(left.len(), 1, "nothing written in it");

    // A folder that is no output of `tempora run`: named, nothing written.
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    publish_refused(
        dir.path(),
        "notes",
        "published",
        "notes/run.json: not a Tempora output",
    );
    assert!(!dir.path().join("published").exists());

    // A folder inside the output folder (whose card would then describe it).
    publish_refused(
        dir.path(),
        "out",
        "out/published",
        "out/published: inside the output folder out",
    );
    assert!(!out.join("published").exists());

    // An empty folder is written; then it is not empty.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    succeeded(&tempora_in(
        dir.path(),
        &["publish", "out", "--to", "empty"],
    ));
    assert!(dir.path().join("empty/manifest.jsonl").is_file());
    let again = tempora_in(dir.path(), &["publish", "out", "--to", "empty"]);
    assert_eq!(again.status.code(), Some(2), "{}", said(&again));
    assert!(out.join("future.parquet").is_file());
}

#[test]
fn the_demo_published_keeps_the_scores_without_text_and_the_card_of_its_copy_works() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let root = env!("CARGO_MANIFEST_DIR");
    let stale = format!("{root}/pipelines/demo/predictions/stale.jsonl");
    succeeded(&tempora_in(
        dir.path(),
        &["score", "out", "--predictions", &stale],
    ));
    succeeded(&tempora_in(dir.path(), &["publish", "out", "--to", "pub"]));
    let files: Vec<String> = common::temposum::published(&dir.path().join("pub"), &[])
        .into_keys()
        .collect();
    // The scores' table and figures, not their rows: those hold the reference
    // summaries (the `reference` system), the set's own text.
    assert_eq!(
        files,
        [
            "README.md",
            "facts.jsonl",
            "facts.parquet",
            "manifest.facts.jsonl",
            "manifest.inputs.json",
            "manifest.jsonl",
            "manifest.parquet",
            "run.json",
            "scores/scores.md",
            "scores/summary.json",
        ]
    );
    assert_no_text(&dir.path().join("pub"), &out);

    // The copy a user makes by hand (the manifest, the facts, run.json) has a card.
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    for name in [
        "manifest.jsonl",
        "manifest.parquet",
        "manifest.inputs.json",
        "manifest.facts.jsonl",
        "run.json",
        "facts.jsonl",
        "facts.parquet",
    ] {
        std::fs::copy(out.join(name), copy.join(name)).unwrap();
    }
    let card = tempora_in(dir.path(), &["card", "copy"]);
    assert_eq!(card.status.code(), Some(0), "{}", said(&card));
    assert!(
        said(&card).contains("manifest: train (3)"),
        "{}",
        said(&card)
    );
    let text = std::fs::read_to_string(copy.join("README.md")).unwrap();
    // The sets' rows are counted from the manifest, not as missing files.
    assert!(
        text.contains("| future | 2020-01-01 | open | 2 |"),
        "{text}"
    );

    // Without a facts file its stage's other files are here: it is missing.
    std::fs::remove_file(copy.join("facts.parquet")).unwrap();
    assert_card_lacks(dir.path(), "copy", "facts.parquet");
}

#[test]
fn a_folder_with_text_that_lacks_a_set_file_stays_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    std::fs::remove_file(out.join("in_distribution.parquet")).unwrap();
    assert_card_lacks(dir.path(), "out", "in_distribution.parquet");
}

/// Checks that `tempora card FOLDER` (in `dir`) fails naming `file` as missing.
fn assert_card_lacks(dir: &Path, folder: &str, file: &str) {
    let refused = tempora_in(dir, &["card", folder]);
    assert_eq!(refused.status.code(), Some(1), "{}", said(&refused));
    let said = said(&refused);
    assert!(
        said.contains(&format!("{file}: disagrees with run.json"))
            && said.contains("but it is missing"),
        "{said}"
    );
}

/// The article ids of the JSON lines files of `dir` (not its folders) and of
/// `dir/withheld/`, as `(published, withheld)`.
fn article_ids(dir: &Path) -> (Vec<String>, Vec<String>) {
    let ids = |folder: &Path| {
        let mut ids: Vec<String> = std::fs::read_dir(folder)
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .filter(|p| !p.ends_with("rejected.jsonl"))
            .flat_map(|p| common::jsonl::lines(&p))
            .filter_map(|row| row["id"].as_str().map(str::to_string))
            .collect();
        ids.sort();
        ids.dedup();
        ids
    };
    (ids(dir), ids(&dir.join("withheld")))
}

#[test]
fn a_folder_with_a_withheld_part_publishes_its_commitment_and_nothing_of_the_part() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("release.key"), [11u8; 32]).unwrap();
    let key = dir.path().join("release.key").display().to_string();
    let pipeline = common::demo::demo_with(
        dir.path(),
        &format!("[pipeline.release]\nwithhold = 0.5\nkey = {key:?}\n"),
    );
    succeeded(&tempora_in(
        dir.path(),
        &["run", &pipeline, "--progress", "off"],
    ));
    let out = dir.path().join("out");
    let (_, withheld) = article_ids(&out);
    assert!(!withheld.is_empty(), "the key holds back an article");

    succeeded(&tempora_in(dir.path(), &["publish", "out", "--to", "pub"]));
    let pub_dir = dir.path().join("pub");
    let files: Vec<String> = common::temposum::published(&pub_dir, &[])
        .into_keys()
        .collect();
    assert!(files.contains(&"withheld.json".to_string()), "{files:?}");
    assert!(
        !files.iter().any(|f| f.starts_with("withheld/")),
        "{files:?}"
    );
    let (published, _) = article_ids(&pub_dir);
    assert!(!published.is_empty());
    assert!(
        published.iter().all(|id| !withheld.contains(id)),
        "{published:?} {withheld:?}"
    );
    let card = std::fs::read_to_string(pub_dir.join("README.md")).unwrap();
    assert!(card.contains("## Withheld part"), "{card}");
    succeeded(&tempora_in(dir.path(), &["card", "pub"]));
}
