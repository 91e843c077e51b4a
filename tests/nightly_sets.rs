//! The nightly set, night after night as cron runs it: `pipelines/nightly-bbc.toml`
//! crawls the testkit's model of BBC News in the Archive, then
//! `pipelines/nightly-bbc-sets.toml` makes the sets over every page crawled so
//! far with the facts of the testkit's Wikidata (the model's positions and
//! holders) as of that night. An article crawled on the first night joins the
//! future set the night a fact it names changes and leaves it when the fact is
//! corrected; each night's sets equal one fresh run over the same pages and the
//! same facts.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use tempora_testkit::{MockWayback, MockWikidata};

use common::nightly::{live_facts, sets_args, tempora};
use common::temposum::bbc;
use common::wikidata::{before_and_after, positions};

const SETS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/pipelines/nightly-bbc-sets.toml"
);

async fn ok(args: Vec<String>) -> String {
    let env = bbc().env.clone();
    let out = tokio::task::spawn_blocking(move || tempora(&args, &env))
        .await
        .unwrap();
    let said = common::said::said(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    said
}

/// The shipped sets pipeline, its facts read from `wd` every night.
fn nightly_sets(dir: &Path, wd: &MockWikidata) -> Vec<String> {
    let mut args = sets_args(SETS, dir, &dir.join("sets"));
    live_facts(&mut args, dir, wd);
    args
}

/// One fresh run of the same pipeline with the night's reading read as a dump
/// (the `wikidata` stage), over the same pages, into `out`.
fn fresh(dir: &Path, out: &Path) -> Vec<String> {
    let mut file: toml::Table = toml::from_str(&std::fs::read_to_string(SETS).unwrap()).unwrap();
    let copy = out.with_extension("dump.json.gz");
    std::fs::copy(dir.join("wikidata.json.gz"), &copy).unwrap();
    let mut facts = toml::Table::new();
    facts.insert("kind".into(), "wikidata".into());
    facts.insert("dump".into(), copy.display().to_string().into());
    // The same relations as the live stage's.
    if let Some(relations) = file["stages"]["facts"].get("relations") {
        facts.insert("relations".into(), relations.clone());
    }
    file["stages"]
        .as_table_mut()
        .unwrap()
        .insert("facts".into(), facts.into());
    let path = out.with_extension("toml");
    std::fs::write(&path, toml::to_string(&file).unwrap()).unwrap();
    sets_args(&path.display().to_string(), dir, out)
}

/// The ids of a set's articles (none when the set has no file).
fn ids(out: &Path, set: &str) -> BTreeSet<String> {
    std::fs::read_to_string(out.join(format!("{set}.jsonl")))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].to_string())
        .collect()
}

/// The set files of `out` (JSONL, Parquet and the facts), by name.
fn set_files(out: &Path) -> Vec<(String, Vec<u8>)> {
    [
        "in_distribution.jsonl",
        "future.jsonl",
        "in_distribution.parquet",
        "future.parquet",
        "facts.jsonl",
    ]
    .iter()
    .map(|name| {
        (
            name.to_string(),
            std::fs::read(out.join(name)).unwrap_or_default(),
        )
    })
    .collect()
}

/// The night's sets equal one fresh run over the same pages and facts.
async fn assert_fresh_run_equal(dir: &Path, night: usize) {
    let out = dir.join(format!("fresh-{night}"));
    ok(fresh(dir, &out)).await;
    let (nightly, fresh) = (set_files(&dir.join("sets")), set_files(&out));
    for ((name, a), (_, b)) in nightly.iter().zip(&fresh) {
        assert!(a == b, "night {night}: {name} differs from a fresh run's");
    }
}

#[tokio::test]
async fn articles_join_and_leave_the_nightly_future_set_as_their_facts_change() {
    let lab = bbc();
    let archive = MockWayback::start(lab.corpus.clone()).await.unwrap();
    let (before, all) = before_and_after();
    let wd = MockWikidata::start(before.clone()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let crawl = || common::nightly::args(&archive.endpoint(), dir, &dir.join("crawl"));

    // Night 1: one pair has changed so far; the crawl keeps its pages.
    ok(crawl()).await;
    ok(nightly_sets(dir, &wd)).await;
    let night1 = ids(&dir.join("sets"), "future");
    assert!(!night1.is_empty());
    assert_fresh_run_equal(dir, 1).await;

    // Night 2: the other positions' new holders are entered in Wikidata. Nothing new
    // to crawl; articles crawled on night 1 join the future set.
    for position in &positions(&all)[1..] {
        wd.set_entity(position.clone());
    }
    ok(crawl()).await;
    let said = ok(nightly_sets(dir, &wd)).await;
    let night2 = ids(&dir.join("sets"), "future");
    assert!(
        night2.len() > night1.len() && night1.is_subset(&night2),
        "night 1 {night1:?}, night 2 {night2:?}\n{said}"
    );
    assert_fresh_run_equal(dir, 2).await;
    let card = std::fs::read_to_string(dir.join("sets/README.md")).unwrap();
    assert!(
        card.contains("Wikidata as read from its live services"),
        "{card}"
    );
    let run: Value =
        serde_json::from_slice(&std::fs::read(dir.join("sets/run.json")).unwrap()).unwrap();
    let refresh = &run["stages"][0]["metrics"]["refresh"];
    assert_eq!(
        (
            &refresh["changed"],
            &refresh["unchanged"],
            &refresh["facts_changed"]
        ),
        (&Value::from(4), &Value::from(15), &Value::from(4)),
        "read again: the two positions edited and their new holders (new objects); \
         the rest taken from the last reading (5 of offices, 10 of sport, business \
         and a chair); two pairs of facts new: {refresh}"
    );

    // Night 3: one change is corrected (the new holder started before the
    // cutoff after all): the articles that named only that pair leave.
    let mut corrected = positions(&all)[1].clone();
    corrected["claims"]["P1308"][1]["qualifiers"]["P580"][0]["datavalue"]["value"]["time"] =
        "+2019-06-01T00:00:00Z".into();
    wd.set_entity(corrected);
    ok(crawl()).await;
    ok(nightly_sets(dir, &wd)).await;
    let night3 = ids(&dir.join("sets"), "future");
    assert!(
        night3.len() < night2.len() && night3.is_subset(&night2),
        "night 2 {night2:?}, night 3 {night3:?}"
    );
    assert_fresh_run_equal(dir, 3).await;
    // Every night is kept for the next nights' check, and checked.
    let nights = std::fs::read_dir(dir.join("sets/runs")).unwrap().count();
    assert_eq!(nights, 3);
    let run: Value =
        serde_json::from_slice(&std::fs::read(dir.join("sets/run.json")).unwrap()).unwrap();
    assert!(run["health"].is_object(), "{}", run["health"]);

    // Night 3's manifest rebuilds night 3's sets elsewhere, from the Archive:
    // the manifest's facts stand for the reading, the captures for the pages.
    let rebuilt = dir.join("rebuilt");
    std::fs::create_dir(&rebuilt).unwrap();
    let manifest = dir.join("sets/manifest.jsonl").display().to_string();
    let endpoint = archive.endpoint();
    let args: Vec<String> = [
        "rebuild",
        &manifest,
        "--out",
        "out",
        "--endpoint",
        &endpoint,
        "--rate",
        "0",
        "--progress",
        "off",
    ]
    .map(String::from)
    .into();
    let out = tokio::task::spawn_blocking({
        let rebuilt = rebuilt.clone();
        move || {
            Command::new(env!("CARGO_BIN_EXE_tempora"))
                .current_dir(&rebuilt)
                .env("RUST_LOG", "warn")
                .env("TEMPORA_CONTACT", "tests@example.org")
                .args(&args)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (night, again) = (
        set_files(&dir.join("sets")),
        set_files(&rebuilt.join("out")),
    );
    for ((name, a), (_, b)) in night.iter().zip(&again) {
        assert!(a == b, "{name} rebuilt differs from night 3's");
    }
}
