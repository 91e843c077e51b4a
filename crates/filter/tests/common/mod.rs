//! Shared helpers of the filter tests: our fixture files and article builders.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use tempora_engine::testing::{context, run_stage, StageOutput};
use tempora_engine::{PipelineContext, StageConfig, StageError, Windows};
use tempora_records::{Article, Fact, Record};

/// A file under `tests/fixtures/`.
pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative)
}

/// The fixture facts, as a `wikidata` stage would hand them over.
pub fn fixture_facts() -> Vec<Record> {
    std::fs::read_to_string(fixture("conflicts/facts.jsonl"))
        .unwrap()
        .lines()
        .map(|l| Record::Fact(Box::new(serde_json::from_str::<Fact>(l).unwrap())))
        .collect()
}

/// The fixture articles.
pub fn fixture_articles() -> Vec<Record> {
    std::fs::read_to_string(fixture("conflicts/articles.jsonl"))
        .unwrap()
        .lines()
        .map(|l| Record::Article(Box::new(serde_json::from_str::<Article>(l).unwrap())))
        .collect()
}

/// A BBC article with our own text.
pub fn article(id: &str, published: &str, summary: &str, document: &str) -> Record {
    Record::Article(Box::new(Article {
        id: id.into(),
        url: format!("https://www.bbc.co.uk/news/world-us-canada-{id}"),
        source: "bbc".into(),
        section: "news".into(),
        published: published.parse().unwrap(),
        published_at: None,
        published_source: None,
        captured: Some("20230101000000".parse().unwrap()),
        title: format!("Story {id}"),
        summary: summary.into(),
        summary_source: Some(tempora_records::SummarySource::Intro),
        document: document.into(),
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

/// The article inside a record.
pub fn as_article(record: &Record) -> &Article {
    match record {
        Record::Article(a) => a,
        other => panic!("not an article: {other:?}"),
    }
}

/// A test context with this cutoff.
pub fn ctx(cutoff: &str) -> PipelineContext {
    let mut ctx = context(Path::new("out"));
    ctx.cutoff = cutoff.parse::<NaiveDate>().unwrap();
    ctx.windows = Windows::default_for(ctx.cutoff);
    ctx
}

/// Options as the engine hands them over (TOML dates already strings).
pub fn options(toml_text: &str) -> toml::Table {
    toml_text.parse().unwrap()
}

/// Runs a configured stage with the fixture facts as its `facts` side input.
pub async fn run_with_facts(
    config: Box<dyn StageConfig>,
    ctx: &PipelineContext,
    input: Vec<Record>,
) -> Result<StageOutput, StageError> {
    let side = HashMap::from([("facts".to_string(), fixture_facts())]);
    run_stage(config, ctx, input, side).await
}
