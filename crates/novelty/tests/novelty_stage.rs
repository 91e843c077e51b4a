//! The `novelty` stage run alone on articles, through the engine's test harness, with
//! training summaries in each file format.

use std::collections::HashMap;
use std::path::Path;

use tempora_engine::testing::{context, run_stage, StageOutput};
use tempora_engine::StageConfig;
use tempora_novelty::NoveltyConfig;
use tempora_records::{Article, Record};

fn article(id: &str, split: &str, summary: &str) -> Record {
    Record::Article(Box::new(Article {
        id: id.into(),
        url: format!("https://www.bbc.co.uk/news/world-{id}"),
        source: "bbc".into(),
        section: "news".into(),
        published: "2021-03-04".parse().unwrap(),
        published_at: None,
        published_source: None,
        captured: Some("20210305000000".parse().unwrap()),
        title: format!("Story {id}"),
        summary: summary.into(),
        summary_source: Some(tempora_records::SummarySource::Intro),
        document: "A document.".into(),
        dateline: None,
        facts: Vec::new(),
        relations: Vec::new(),
        split: Some(split.into()),
        novelty: None,
        archived_url: None,
        digest: None,
        payload_sha1: None,
    }))
}

async fn run(options: &str, input: Vec<Record>) -> StageOutput {
    // The output folder: where the held articles wait until the input ends.
    let out = tempfile::tempdir().unwrap();
    let ctx = context(out.path());
    let table: toml::Table = options.parse().unwrap();
    let config: Box<dyn StageConfig> = Box::new(NoveltyConfig::configure(table, &ctx).unwrap());
    run_stage(config, &ctx, input, HashMap::new())
        .await
        .unwrap()
}

/// (id, overlap, bin, tag) of each output article, in output order.
fn scores(out: &StageOutput) -> Vec<(String, f64, String, Option<String>)> {
    out.out()
        .iter()
        .map(|r| match r {
            Record::Article(a) => {
                let n = a.novelty.as_ref().expect("every output article is scored");
                (a.id.clone(), n.overlap, n.bin.clone(), n.tag.clone())
            }
            other => panic!("not an article: {other:?}"),
        })
        .collect()
}

const TRAIN: &str = "the prime minister said on monday that talks would resume\n\
                     police are appealing for witnesses after the crash\n";

#[tokio::test]
async fn scores_bins_and_tags_each_set_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.txt");
    std::fs::write(&train, TRAIN).unwrap();
    let input = vec![
        // 4-grams: "the prime minister said", "prime minister said on",
        // "minister said on friday": 2 of 3 seen.
        article("a", "future", "The Prime Minister said on Friday"),
        // Nothing seen.
        article("b", "future", "A new stadium opens its doors today"),
        // Every 4-gram seen.
        article("c", "future", "Police are appealing for witnesses"),
        // Too short to score.
        article("d", "future", "Rain again"),
        // Another set: binned on its own.
        article("e", "in_distribution", "police are appealing for help"),
    ];
    let options = format!("train = {:?}\nmin_bin = 1", train.display().to_string());
    let out = run(&options, input).await;
    let got = scores(&out);
    let ids: Vec<&str> = got.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "e"]);
    assert_eq!(got[0].1, 66.6667);
    assert_eq!(got[1].1, 0.0);
    assert_eq!(got[2].1, 100.0);
    assert_eq!(got[3].1, 50.0);
    // future: 0 -> 0-5 (T_nov), 66.67 -> 5-70, 100 -> 70-100 (T_sim).
    assert_eq!(
        (got[1].2.as_str(), got[1].3.as_deref()),
        ("0-5", Some("T_nov"))
    );
    assert_eq!((got[0].2.as_str(), got[0].3.as_deref()), ("5-70", None));
    assert_eq!(
        (got[2].2.as_str(), got[2].3.as_deref()),
        ("70-100", Some("T_sim"))
    );
    // in_distribution has one article: one bin, no contrast, no tag.
    assert_eq!((got[3].2.as_str(), got[3].3.as_deref()), ("0-100", None));

    assert_eq!(out.rejected.len(), 1);
    assert!(
        out.rejected[0].reason.contains("no 4-gram"),
        "{}",
        out.rejected[0].reason
    );
    let bins = &out.stats.metrics()["bins"];
    assert_eq!(bins["future"].as_array().unwrap().len(), 3);
    assert_eq!(bins["future"][0]["count"], 1);
    assert_eq!(bins["in_distribution"][0]["range"], "0-100");
}

#[tokio::test]
async fn more_articles_than_one_release_all_come_back_whole_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.txt");
    std::fs::write(&train, TRAIN).unwrap();
    // 2,500 articles (the stage hands on 1,024 per call at the end), alternating
    // between two sets and between a seen and an unseen summary.
    let input: Vec<Record> = (0..2500)
        .map(|i| {
            let set = if i % 3 == 0 {
                "in_distribution"
            } else {
                "future"
            };
            let summary = if i % 2 == 0 {
                format!("Police are appealing for witnesses {i}")
            } else {
                format!("A new stadium opens its doors {i}")
            };
            article(&format!("{i:05}"), set, &summary)
        })
        .collect();
    let options = format!("train = {:?}", train.display().to_string());
    let out = run(&options, input.clone()).await;
    assert_eq!(out.out().len(), 2500);
    for (got, sent) in out.out().iter().zip(&input) {
        let (Record::Article(got), Record::Article(sent)) = (got, sent) else {
            panic!("not articles");
        };
        // Every field as it came in, plus the novelty.
        let mut unscored = got.clone();
        let novelty = unscored.novelty.take().expect("scored");
        assert_eq!(&unscored, sent);
        let seen = sent.summary.starts_with("Police");
        assert_eq!(novelty.overlap > 50.0, seen, "{}: {novelty:?}", sent.id);
    }
    assert!(out.rejected.is_empty());
}

#[tokio::test]
async fn reads_jsonl_training_records_by_field_and_several_files() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("train.jsonl");
    std::fs::write(
        &jsonl,
        "{\"id\": 1, \"highlights\": [\"Police are appealing\", \"for witnesses today\"]}\n",
    )
    .unwrap();
    let text = dir.path().join("more.txt");
    std::fs::write(&text, "a new stadium opens its doors\n").unwrap();
    let options = format!(
        "train = [{:?}, {:?}]\nfield = \"highlights\"\nmin_bin = 1",
        jsonl.display().to_string(),
        text.display().to_string()
    );
    let out = run(
        &options,
        vec![
            // Highlights joined by a newline are one token stream, like XSum's text.
            article("a", "future", "police are appealing for witnesses"),
            article("b", "future", "a new stadium opens"),
        ],
    )
    .await;
    let got = scores(&out);
    assert_eq!(got[0].1, 100.0);
    assert_eq!(got[1].1, 100.0);
}

#[tokio::test]
async fn a_bad_training_line_stops_the_stage_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("train.jsonl");
    std::fs::write(&jsonl, "{\"summary\": \"fine\"}\n{\"document\": \"x\"}\n").unwrap();
    let ctx = context(Path::new("out"));
    let table: toml::Table = format!("train = {:?}", jsonl.display().to_string())
        .parse()
        .unwrap();
    let config: Box<dyn StageConfig> = Box::new(NoveltyConfig::configure(table, &ctx).unwrap());
    let err = run_stage(
        config,
        &ctx,
        vec![article("a", "future", "x y z w")],
        HashMap::new(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("train.jsonl, line 2") && err.contains("no field `summary`"),
        "{err}"
    );
}

#[test]
fn options_are_checked_with_their_keys() {
    let ctx = context(Path::new("out"));
    let unknown = NoveltyConfig::configure("train = \"t.txt\"\nngram = 3".parse().unwrap(), &ctx)
        .unwrap_err();
    assert!(unknown[0].message.contains("ngram"), "{unknown:?}");
    let config =
        NoveltyConfig::configure("train = []\nn = 0\nmin_bin = 0".parse().unwrap(), &ctx).unwrap();
    let problems = tempora_engine::StageConfig::check(&config, &ctx);
    let keys: Vec<_> = problems.iter().filter_map(|p| p.key.as_deref()).collect();
    assert_eq!(keys, ["train", "n", "min_bin"]);
}
