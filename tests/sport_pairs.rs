//! The testkit's BBC model with its sport and business stories, crawled from the
//! mock Archive by the shipped BBC pipeline with a `minimal-pairs` stage on the
//! future set: a club's new manager, a player's new club and a company's new
//! chief executive each give pairs of their relation, beside the offices'.

mod common;

use std::collections::BTreeMap;

use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};
use tempora_testkit::MockWayback;

use common::temposum::{bbc_lab, pipeline, run_shipped_file};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sport_and_business_stories_give_pairs_of_their_relations() {
    let spec = NewsSiteSpec {
        first_year: 2016,
        ..NewsSiteSpec::default()
    };
    let site = NewsSite::with_sport_and_business(&spec);
    let lab = bbc_lab(site);
    let archive = MockWayback::start(lab.corpus.clone()).await.unwrap();
    let mut file: toml::Table = toml::from_str(&pipeline(&lab, &archive.endpoint())).unwrap();
    let stages = file["stages"].as_table_mut().unwrap();
    let pairs = toml::toml! { kind = "minimal-pairs" inputs = ["split.future"] facts = "facts" };
    stages.insert("pairs".into(), pairs.into());
    let sink = toml::toml! { kind = "jsonl" inputs = ["pairs"] path = "pairs.jsonl" };
    stages.insert("write_pairs".into(), sink.into());
    let dir = tempfile::tempdir().unwrap();
    run_shipped_file(&lab, &toml::to_string(&file).unwrap(), dir.path());

    let text = std::fs::read_to_string(dir.path().join("out/pairs.jsonl")).unwrap();
    let pairs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut by_relation: BTreeMap<String, Vec<&serde_json::Value>> = BTreeMap::new();
    for p in &pairs {
        let relation = p["fact"]["relation"].as_str().unwrap().to_string();
        by_relation.entry(relation).or_default().push(p);
    }
    let relations: Vec<&str> = by_relation.keys().map(String::as_str).collect();
    assert_eq!(relations, ["P1308", "P169", "P286", "P54"], "{text}");
    // Each outdated edit puts in the value of the cutoff, in the form the summary
    // used ("Harwick Rovers manager Alan Pryor", "Alan Pryor, the Rovers
    // manager,", "Marden Wanderers striker Callum Yeo").
    for (relation, stated, before, name) in [
        ("P286", "Q9100043", "Q9100042", "Alan Pryor"),
        ("P54", "Q9100053", "Q9100052", "Marden"),
        ("P169", "Q9100063", "Q9100062", "Ruth Calder"),
    ] {
        let outdated: Vec<&&serde_json::Value> = by_relation[relation]
            .iter()
            .filter(|p| p["fact_error"] == "outdated")
            .collect();
        assert!(!outdated.is_empty(), "{relation}: {text}");
        for p in outdated {
            assert_eq!(p["fact"]["stated"], stated, "{p}");
            assert_eq!(p["fact"]["substituted"], before, "{p}");
            let replacement = p["span"]["replacement"].as_str().unwrap();
            assert!(replacement.starts_with(name), "{p}");
        }
    }
    // The control for the player: a club he never played for, of the clubs the
    // facts know (Harwick Rovers, known from its managers).
    let control = by_relation["P54"]
        .iter()
        .find(|p| p["fact_error"] == "non_verifiable")
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(control["fact"]["substituted"], "Q9100041", "{control}");
}
