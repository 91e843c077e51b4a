//! The sinks' `mode` (`replace`, `append`) and their run paths (`{run}`, `{date}`):
//! what an incremental pipeline needs to keep every run's records.

use std::collections::HashMap;

use chrono::TimeZone;
use tempora_engine::testing::{context, run_stage};
use tempora_engine::{PipelineContext, RunId, StageConfig};
use tempora_records::{Capture, Record, RecordKind};

fn configure(
    kind: &str,
    ctx: &PipelineContext,
    toml: &str,
) -> Result<Box<dyn StageConfig>, Vec<tempora_engine::OptionError>> {
    let kind = tempora_sink::kinds()
        .into_iter()
        .find(|k| k.name == kind)
        .unwrap();
    (kind.configure)(toml::from_str(toml).unwrap(), ctx)
}

fn article(id: &str, title: &str) -> Record {
    let json = format!(
        r#"{{"id":"{id}","url":"https://www.bbc.co.uk/news/uk-{id}","source":"bbc","published":"2021-01-0{id}","captured":"20210301000000","title":"{title}","summary":"s","document":"d"}}"#
    );
    Record::from_json(RecordKind::Article, &json).unwrap()
}

fn titles(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{} {}",
                v["id"].as_str().unwrap(),
                v["title"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn append_adds_each_runs_new_records_once_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let options = "path = \"articles.jsonl\"\nmode = \"append\"";
    let night1 = vec![article("2", "two"), article("1", "one")];
    run_stage(
        configure("jsonl", &ctx, options).unwrap(),
        &ctx,
        night1,
        HashMap::new(),
    )
    .await
    .unwrap();
    let night2 = vec![article("3", "three"), article("1", "one again")];
    let output = run_stage(
        configure("jsonl", &ctx, options).unwrap(),
        &ctx,
        night2,
        HashMap::new(),
    )
    .await
    .unwrap();
    // Each night's records sorted among themselves, after the earlier nights'.
    assert_eq!(
        titles(&dir.path().join("articles.jsonl")),
        ["1 one", "2 two", "3 three"]
    );
    let counters = output.stats.counters();
    assert_eq!(
        counters.get("file articles.jsonl"),
        Some(&1),
        "{counters:?}"
    );
    assert_eq!(
        counters.get("already in the file"),
        Some(&1),
        "{counters:?}"
    );
}

#[tokio::test]
async fn an_appended_file_holds_one_record_kind() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let capture = Record::Capture(Box::new(Capture {
        url: "http://www.bbc.co.uk/news/uk-1".into(),
        timestamp: "20210301000000".parse().unwrap(),
        status: Some(200),
        mime: "text/html".into(),
        digest: "X".into(),
        length: None,
        source: "captures".into(),
    }));
    let sink = configure("jsonl", &ctx, "path = \"all.jsonl\"\nmode = \"append\"").unwrap();
    let output = run_stage(
        sink,
        &ctx,
        vec![article("1", "one"), capture],
        HashMap::new(),
    )
    .await
    .unwrap();
    assert_eq!(output.rejected.len(), 1);
    assert!(
        output.rejected[0]
            .reason
            .contains("all.jsonl holds article records"),
        "{}",
        output.rejected[0].reason
    );
    assert_eq!(titles(&dir.path().join("all.jsonl")), ["1 one"]);
}

#[test]
fn parquet_refuses_append_and_says_what_to_do_instead() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let Err(errors) = configure("parquet", &ctx, "path = \"a.parquet\"\nmode = \"append\"") else {
        panic!("append to Parquet was accepted");
    };
    assert_eq!(errors[0].key.as_deref(), Some("mode"));
    assert!(
        errors[0].message.contains("`{run}`"),
        "{}",
        errors[0].message
    );
}

#[test]
fn replace_mode_names_the_non_empty_files_it_would_replace() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    std::fs::write(dir.path().join("future.jsonl"), "{}\n").unwrap();
    std::fs::write(dir.path().join("in_distribution.jsonl"), "").unwrap();
    let replace = configure("jsonl", &ctx, "path = \"{split}.jsonl\"").unwrap();
    assert_eq!(
        replace.replaced_files(&ctx),
        [("path".to_string(), dir.path().join("future.jsonl"))]
    );
    let append = configure("jsonl", &ctx, "path = \"{split}.jsonl\"\nmode = \"append\"").unwrap();
    assert!(append.replaced_files(&ctx).is_empty());
    // A path that names the run is new for every run.
    let per_run = configure("jsonl", &ctx, "path = \"{run}-future.jsonl\"").unwrap();
    std::fs::write(dir.path().join("2020-01-01T000000Z-future.jsonl"), "{}\n").unwrap();
    assert!(per_run.replaced_files(&ctx).is_empty());
    // ... but a `{date}` path is the same for a day's runs.
    let per_day = configure("jsonl", &ctx, "path = \"{date}.jsonl\"").unwrap();
    std::fs::write(dir.path().join(format!("{}.jsonl", ctx.run.date())), "{}\n").unwrap();
    assert_eq!(per_day.replaced_files(&ctx).len(), 1);
}

#[tokio::test]
async fn run_paths_are_filled_from_the_runs_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = context(dir.path());
    ctx.run = RunId::new(
        chrono::Utc
            .with_ymd_and_hms(2026, 11, 23, 2, 30, 15)
            .unwrap(),
    );
    let sink = configure("jsonl", &ctx, "path = \"runs/{run}/articles-{date}.jsonl\"").unwrap();
    run_stage(sink, &ctx, vec![article("1", "one")], HashMap::new())
        .await
        .unwrap();
    let path = dir
        .path()
        .join("runs/2026-11-23T023015Z/articles-2026-11-23.jsonl");
    assert_eq!(titles(&path), ["1 one"]);
}
