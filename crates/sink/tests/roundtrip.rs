//! Sinks write what the sources read back; files appear only when complete.

use std::collections::HashMap;
use std::path::Path;

use chrono::NaiveDate;
use tempora_engine::testing::{context, run_stage};
use tempora_engine::{PipelineContext, StageKind};
use tempora_records::{Article, EditedFact, FactError, MinimalPair, PairSpan, Record, RecordKind};

fn kind(name: &str) -> StageKind {
    tempora_sink::kinds()
        .into_iter()
        .find(|k| k.name == name)
        .unwrap()
}

fn configure(
    name: &str,
    ctx: &PipelineContext,
    toml: &str,
) -> Box<dyn tempora_engine::StageConfig> {
    let table: toml::Table = toml::from_str(toml).unwrap();
    match (kind(name).configure)(table, ctx) {
        Ok(c) => c,
        Err(e) => panic!("{e:?}"),
    }
}

fn article(id: &str, day: u32, split: &str) -> Record {
    Record::Article(Box::new(Article {
        id: id.into(),
        url: format!("https://www.bbc.co.uk/news/world-{id}"),
        source: "bbc".into(),
        section: "news".into(),
        published: NaiveDate::from_ymd_opt(2021, 1, day).unwrap(),
        published_at: None,
        published_source: None,
        captured: Some("20210301000000".parse().unwrap()),
        title: format!("Title {id}"),
        summary: format!("Summary of {id}, with \"quotes\" and ünïcode."),
        summary_source: Some(tempora_records::SummarySource::Intro),
        document: "First paragraph.\nSecond paragraph.".into(),
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

/// The outputs in `dir` (not the folder's own hidden files).
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn jsonl_sink_splits_by_template_and_sorts() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let input = vec![
        article("3", 3, "future"),
        article("1", 1, "future"),
        article("2", 2, "in_distribution"),
    ];
    let sink = configure("jsonl", &ctx, "path = \"{split}.jsonl\"");
    let output = run_stage(sink, &ctx, input, HashMap::new()).await.unwrap();
    assert!(output.rejected.is_empty());
    assert_eq!(
        files_in(dir.path()),
        ["future.jsonl", "in_distribution.jsonl"]
    );
    let future = std::fs::read_to_string(dir.path().join("future.jsonl")).unwrap();
    let ids: Vec<String> = future
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids, ["1", "3"], "sorted by date, then id");
    let first: serde_json::Value = serde_json::from_str(future.lines().next().unwrap()).unwrap();
    assert_eq!(first["document"], "First paragraph.\nSecond paragraph.");
    assert_eq!(first["published"], "2021-01-01");
}

#[tokio::test]
async fn a_record_without_the_template_field_is_rejected_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let mut unsplit = article("9", 9, "x");
    if let Record::Article(a) = &mut unsplit {
        a.split = None;
    }
    let sink = configure("jsonl", &ctx, "path = \"{split}.jsonl\"");
    let output = run_stage(sink, &ctx, vec![unsplit], HashMap::new())
        .await
        .unwrap();
    assert_eq!(output.rejected.len(), 1);
    assert!(output.rejected[0].reason.contains("`split`"));
    assert_eq!(output.rejected[0].record["id"], "9");
}

#[tokio::test]
async fn parquet_round_trips_through_the_parquet_source() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let input = vec![article("1", 1, "future"), article("2", 2, "future")];
    let sink = configure("parquet", &ctx, "path = \"all.parquet\"");
    run_stage(sink, &ctx, input.clone(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(files_in(dir.path()), ["all.parquet"]);

    let path = dir.path().join("all.parquet");
    let source = configure(
        "parquet-source",
        &ctx,
        &format!("paths = [\"{}\"]\nrecord = \"article\"", path.display()),
    );
    let output = run_stage(source, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(output.out(), input.as_slice());
}

#[tokio::test]
async fn jsonl_source_rejects_bad_lines_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let good = article("1", 1, "future");
    let mut line = Vec::new();
    good.write_json(&mut line).unwrap();
    let path = dir.path().join("in.jsonl");
    let text = format!(
        "{}\n\n{{\"id\": \"2\", \"url\": 5}}\nnot json\n",
        String::from_utf8(line).unwrap()
    );
    std::fs::write(&path, text).unwrap();
    let options = format!("paths = [\"{}\"]\nrecord = \"article\"", path.display());

    let source = configure("jsonl-source", &ctx, &options);
    let output = run_stage(source, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(output.out(), std::slice::from_ref(&good));
    let locations: Vec<String> = output
        .rejected
        .iter()
        .map(|r| r.location.clone().unwrap())
        .collect();
    assert_eq!(
        locations,
        [
            format!("{}:3", path.display()),
            format!("{}:4", path.display())
        ]
    );
    assert!(
        output.rejected[0].reason.contains("invalid type"),
        "{}",
        output.rejected[0].reason
    );

    let strict = configure(
        "jsonl-source",
        &ctx,
        &format!("{options}\non_error = \"fail\""),
    );
    let err = run_stage(strict, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("in.jsonl:3"), "{err}");
}

#[test]
fn sources_declare_their_record_kind_as_port_type() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let source = configure("jsonl-source", &ctx, "paths = [\"x\"]\nrecord = \"fact\"");
    assert_eq!(source.outputs()[0].kind, RecordKind::Fact);
    assert_eq!(source.reads()[0].1, Path::new("x"));
    let table: toml::Table = toml::from_str("paths = [\"x\"]\nrecord = \"facts\"").unwrap();
    let err = (kind("jsonl-source").configure)(table, &ctx).err().unwrap();
    assert!(
        err[0].message.contains("unknown variant `facts`"),
        "{err:?}"
    );
}

fn pair(article: &str, error: FactError, split: Option<&str>) -> Record {
    let reference = "Président Joe Biden signed orders.";
    Record::Pair(Box::new(MinimalPair {
        id: format!("{article}#Q11696.P1308.{}", error.as_str()),
        article_id: article.into(),
        article: "Joe Biden, the president, signed orders.\nDonald Trump left.".into(),
        reference_summary: reference.into(),
        edited_summary: reference.replace("Joe Biden", "Donald Trump"),
        error_type: "Intrinsic Entity Error".into(),
        fact_error: error,
        span: PairSpan {
            start: 10,
            end: 19,
            original: "Joe Biden".into(),
            replacement: "Donald Trump".into(),
        },
        published: NaiveDate::from_ymd_opt(2021, 1, 22).unwrap(),
        source: "bbc".into(),
        split: split.map(str::to_string),
        fact: EditedFact {
            subject: "Q11696".into(),
            relation: "P1308".into(),
            stated: "Q6279".into(),
            substituted: "Q22686".into(),
        },
    }))
}

#[tokio::test]
async fn pairs_round_trip_through_jsonl_and_parquet_with_their_public_fields() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let input = vec![
        pair("2", FactError::Outdated, Some("future")),
        pair("1", FactError::NonVerifiable, None),
        pair("1", FactError::Outdated, Some("future")),
    ];
    let mut sorted = input.clone();
    sorted.sort_by_cached_key(Record::sort_key);
    for (kind, file) in [("jsonl", "pairs.jsonl"), ("parquet", "pairs.parquet")] {
        let sink = configure(kind, &ctx, &format!("path = \"{file}\""));
        run_stage(sink, &ctx, input.clone(), HashMap::new())
            .await
            .unwrap();
        let source = configure(
            &format!("{kind}-source"),
            &ctx,
            &format!(
                "paths = [\"{}\"]\nrecord = \"pair\"",
                dir.path().join(file).display()
            ),
        );
        let output = run_stage(source, &ctx, Vec::new(), HashMap::new())
            .await
            .unwrap();
        assert!(output.rejected.is_empty(), "{kind}: {:?}", output.rejected);
        assert_eq!(output.out(), sorted.as_slice(), "{kind}");
    }
    let first = std::fs::read_to_string(dir.path().join("pairs.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    for field in [
        "id",
        "article_id",
        "article",
        "reference_summary",
        "edited_summary",
        "error_type",
    ] {
        assert!(first[field].is_string(), "BUMP's field `{field}`: {first}");
    }
    assert_eq!(first["fact_error"], "non_verifiable");
    assert_eq!(first["span"]["start"], 10);
    assert_eq!(first["fact"]["substituted"], "Q22686");
}
