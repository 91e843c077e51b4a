//! The `split` stage run alone on articles, through the engine's test harness.

use std::collections::HashMap;

use chrono::NaiveDate;
use tempora_engine::testing::{context, run_stage, StageOutput};
use tempora_engine::{PipelineContext, StageConfig};
use tempora_records::{Article, Record};
use tempora_split::{SplitConfig, Windows};

fn article(id: &str, published: &str) -> Record {
    Record::Article(Box::new(Article {
        id: id.into(),
        url: format!("https://www.bbc.co.uk/news/world-{id}"),
        source: "bbc".into(),
        section: "news".into(),
        published: published.parse().unwrap(),
        published_at: None,
        published_source: None,
        captured: Some("20230101000000".parse().unwrap()),
        title: format!("Story {id}"),
        summary: "A summary.".into(),
        summary_source: Some(tempora_records::SummarySource::Intro),
        document: "A document.".into(),
        dateline: None,
        facts: Vec::new(),
        relations: Vec::new(),
        split: None,
        novelty: None,
        archived_url: None,
        digest: None,
        payload_sha1: None,
    }))
}

/// Options as the engine hands them over: TOML dates already turned into strings.
fn options(toml_text: &str) -> toml::Table {
    toml_text.parse().unwrap()
}

/// A pipeline with `cutoff` and the default sets.
fn ctx_with_cutoff(cutoff: &str) -> PipelineContext {
    let mut ctx = context(std::path::Path::new("out"));
    ctx.cutoff = cutoff.parse::<NaiveDate>().unwrap();
    ctx.windows = Windows::default_for(ctx.cutoff);
    ctx
}

/// A pipeline with `cutoff` and `[pipeline.sets]` written as `sets`.
fn ctx_with_sets(cutoff: &str, sets: &str) -> PipelineContext {
    let mut ctx = ctx_with_cutoff(cutoff);
    ctx.windows = Windows::from_table(&options(sets), ctx.cutoff).unwrap();
    ctx
}

async fn run(table: toml::Table, ctx: &PipelineContext, input: Vec<Record>) -> StageOutput {
    let config: Box<dyn StageConfig> = Box::new(SplitConfig::configure(table, ctx).unwrap());
    run_stage(config, ctx, input, HashMap::new()).await.unwrap()
}

fn ids_and_sets(records: &[Record]) -> Vec<(String, Option<String>)> {
    records
        .iter()
        .map(|r| match r {
            Record::Article(a) => (a.id.clone(), a.split.clone()),
            other => panic!("not an article: {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn default_windows_follow_the_cutoff() {
    let input = vec![article("1", "2015-06-01"), article("2", "2021-03-04")];

    let out = run(
        toml::Table::new(),
        &ctx_with_cutoff("2019-12-31"),
        input.clone(),
    )
    .await;
    assert_eq!(
        ids_and_sets(&out.ports["future"]),
        [("2".to_string(), Some("future".to_string()))]
    );
    assert_eq!(
        ids_and_sets(&out.ports["in_distribution"]),
        [("1".to_string(), Some("in_distribution".to_string()))]
    );

    // `--set pipeline.cutoff=2021-12-31`: the 2021 article is now known to the model.
    let out = run(toml::Table::new(), &ctx_with_cutoff("2021-12-31"), input).await;
    assert!(out.ports["future"].is_empty());
    assert_eq!(out.ports["in_distribution"].len(), 2);
}

#[tokio::test]
async fn cutoff_words_in_sets_move_with_the_cutoff() {
    let sets = r#"
        in_distribution = { from = "2010-01-01", to = "2017-12-31" }
        future = { from = "after_cutoff" }
    "#;
    let input = vec![article("a", "2020-07-01")];
    let early = run(
        toml::Table::new(),
        &ctx_with_sets("2019-12-31", sets),
        input.clone(),
    )
    .await;
    assert_eq!(early.ports["future"].len(), 1);
    let late = run(
        toml::Table::new(),
        &ctx_with_sets("2020-12-31", sets),
        input,
    )
    .await;
    assert!(late.ports["future"].is_empty());
    assert_eq!(
        ids_and_sets(&late.ports["unassigned"]),
        [("a".to_string(), None)]
    );
}

#[tokio::test]
async fn articles_between_windows_are_unassigned_and_counted_per_set_and_year() {
    let ctx = ctx_with_sets(
        "2019-12-31",
        r#"
        in_distribution = { from = "2010-01-01", to = "2017-12-31" }
        future = { from = "2020-01-01", to = "2022-12-31" }
        "#,
    );
    let input = vec![
        article("old", "2009-05-05"),
        article("a", "2012-01-01"),
        article("gap", "2018-03-03"),
        article("b", "2020-01-01"),
        article("c", "2020-11-30"),
        article("late", "2023-01-01"),
    ];
    let out = run(toml::Table::new(), &ctx, input).await;
    let unassigned: Vec<String> = ids_and_sets(&out.ports["unassigned"])
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(unassigned, ["old", "gap", "late"]);
    assert_eq!(out.ports["future"].len(), 2);
    assert!(out.rejected.is_empty());

    let metrics = out.stats.metrics();
    assert_eq!(
        metrics["sets"],
        serde_json::json!({"in_distribution": 1, "future": 2, "unassigned": 3})
    );
    assert_eq!(metrics["years"]["2020"], serde_json::json!({"future": 2}));
    assert_eq!(
        metrics["years"]["2018"],
        serde_json::json!({"unassigned": 1})
    );
    assert_eq!(out.stats.counters()["unassigned"], 3);
}

#[test]
fn ports_are_the_sets_then_unassigned() {
    let config =
        SplitConfig::configure(toml::Table::new(), &ctx_with_cutoff("2019-12-31")).unwrap();
    let names: Vec<String> = config.outputs().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["in_distribution", "future", "unassigned"]);
}

#[test]
fn bad_options_name_their_key_and_sets_are_the_pipelines() {
    let ctx = ctx_with_cutoff("2019-12-31");
    let errors = SplitConfig::configure(options("windows = []"), &ctx).unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("windows"));

    // Sets written in the stage, as before they were the pipeline's: refused with the way out.
    let errors = SplitConfig::configure(
        options(r#"sets = [{ name = "future", from = "after_cutoff" }]"#),
        &ctx,
    )
    .unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("sets"));
    assert!(errors[0].message.contains("[pipeline.sets]"), "{errors:?}");
}
