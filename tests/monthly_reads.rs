//! What a monthly release keeps of the pages it reads: `pipelines/monthly-bbc.toml`
//! reads every page the nightly crawl ever kept, and a page captured before the
//! release's month holds no article of the month (a capture comes after its
//! article's publication). The `warc` source leaves such a page out before it is
//! extracted, so the release's `rejected.jsonl` names it by its capture alone
//! (URL and time, no text) and `run.json` counts it as prefetch counts what it
//! skips; no text of an earlier article is copied into the release folder.

mod common;

use std::collections::BTreeMap;

use serde_json::Value;
use tempora_testkit::{MockWayback, MockWikidata};

use common::jsonl::lines;
use common::nightly::{live_facts, set, sets_args, tempora};
use common::said::said;
use common::temposum::bbc;
use common::wikidata::before_and_after;

/// The release `2020-06`, made on 2020-07-03 over one night's crawl of the
/// testkit's BBC model.
const MONTH_START: &str = "20200601000000";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_names_the_pages_captured_before_its_month_by_their_captures_alone() {
    let archive = MockWayback::start(bbc().corpus.clone()).await.unwrap();
    let wd = MockWikidata::start(before_and_after().0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ok = |args: &[String]| {
        let out = tempora(args, &bbc().env);
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", said(&out));
    };
    let crawled = dir.path().join("crawl");
    ok(&common::nightly::args(
        &archive.endpoint(),
        dir.path(),
        &crawled,
    ));
    let key = dir.path().join("monthly.key");
    std::fs::write(&key, [5u8; 32]).unwrap();
    let out = dir.path().join("releases");
    let mut args = sets_args("pipelines/monthly-bbc.toml", dir.path(), &out);
    live_facts(&mut args, dir.path(), &wd);
    set(&mut args, "pipeline.release.key", format!("{key:?}"));
    args.extend(["--as-of".into(), "2020-07-03".into()]);
    ok(&args);

    let release = out.join("2020-06");
    let rejected = std::fs::read_to_string(release.join("rejected.jsonl")).unwrap();
    for article in earlier_articles(&lines(&crawled.join("articles.jsonl"))) {
        let summary = article["summary"].as_str().unwrap();
        assert!(
            !rejected.contains(summary),
            "rejected.jsonl holds {article}"
        );
    }
    let skipped = skipped_captures(&rejected);
    assert!(skipped > 0, "{rejected}");
    let run: Value =
        serde_json::from_slice(&std::fs::read(release.join("run.json")).unwrap()).unwrap();
    assert_eq!(
        run["cost"]["skipped_before_fetching"]["outside_windows"], skipped,
        "{}",
        run["cost"]
    );
}

/// The crawl's articles captured before the month, each with a summary no
/// other article of the crawl has; some of them of an earlier year.
fn earlier_articles(crawl: &[Value]) -> Vec<&Value> {
    let mut summaries: BTreeMap<&str, usize> = BTreeMap::new();
    for article in crawl {
        *summaries
            .entry(article["summary"].as_str().unwrap())
            .or_default() += 1;
    }
    let earlier: Vec<&Value> = crawl
        .iter()
        .filter(|a| a["captured"].as_str().unwrap() < MONTH_START)
        .filter(|a| summaries[a["summary"].as_str().unwrap()] == 1)
        .collect();
    assert!(
        earlier
            .iter()
            .any(|a| a["published"].as_str().unwrap() < "2020"),
        "the crawl holds articles of 2019"
    );
    earlier
}

/// How many lines of `rejected` name a page captured before the month, each
/// by its capture alone, with prefetch's reason; no other line holds a page or
/// an article captured before the month.
fn skipped_captures(rejected: &str) -> usize {
    let mut skipped = 0;
    for line in rejected.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        let record = &line["record"];
        let captured = record["capture"]["timestamp"]
            .as_str()
            .or(record["captured"].as_str());
        let before = record["timestamp"]
            .as_str()
            .is_some_and(|t| t < MONTH_START);
        if line["stage"] == "pages" && before {
            let fields = record.as_object().unwrap();
            assert!(fields.contains_key("url"), "{line}");
            for text in ["body", "title", "summary"] {
                assert!(!fields.contains_key(text), "{line}");
            }
            assert!(
                line["reason"]
                    .as_str()
                    .unwrap()
                    .ends_with("(capture time): in no window of [pipeline.sets]"),
                "{line}"
            );
            skipped += 1;
        } else if let Some(captured) = captured {
            assert!(captured >= MONTH_START, "{line}");
        }
    }
    skipped
}
