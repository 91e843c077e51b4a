//! The `wikidata` stage run alone with real channels: facts out, rejections with line
//! numbers, counters and progress, facts-file reuse, options, and stopping on shutdown.

mod common;

use std::collections::HashMap;

use common::*;
use tempora_engine::testing::{context, run_stage, run_stage_with_shutdown};
use tempora_engine::{PipelineContext, StageConfig};
use tempora_records::Record;
use tempora_wikidata::WikidataConfig;

fn config(toml_text: &str, ctx: &PipelineContext) -> Box<dyn StageConfig> {
    let table: toml::Table = toml::from_str(toml_text).unwrap();
    Box::new(WikidataConfig::configure(table, ctx).unwrap())
}

fn subjects(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .map(|r| match r {
            Record::Fact(f) => format!("{} {} {}", f.subject.id, f.relation, f.object.id),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn emits_the_facts_of_the_demo_dump_with_counters_and_progress() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let dump = demo_dump();
    let cfg = config(&format!("dump = {:?}", dump.to_str().unwrap()), &ctx);
    assert_eq!(cfg.reads(), vec![("dump".to_string(), dump.clone())]);
    let out = run_stage(cfg, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    let facts = subjects(out.out());
    assert_eq!(facts.len(), 14);
    assert!(facts.contains(&"Q6279 P39 Q11696".to_string()));
    let counters = out.stats.counters();
    assert_eq!(counters.get("entities"), Some(&17));
    assert_eq!(counters.get("candidates"), Some(&13));
    assert_eq!(counters.get("facts"), Some(&14));
    let size = std::fs::metadata(&dump).unwrap().len();
    // The demo's senate seat needs the second pass: twice the file.
    assert_eq!(out.stats.progress(), (2 * size, 2 * size, true));
    assert!(out.rejected.is_empty());
}

#[tokio::test]
async fn each_relation_is_counted_and_one_the_dump_lacks_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let dump = demo_dump();
    let facts_file = dir.path().join("facts.jsonl");
    let table = format!(
        "dump = {:?}\nfacts_file = {:?}\nrelations = [\"P39\", \"P1308\", \"P286\"]",
        dump.to_str().unwrap(),
        facts_file.to_str().unwrap()
    );
    let out = run_stage(config(&table, &ctx), &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    let counters = out.stats.counters();
    assert_eq!(counters.get("facts P39"), Some(&5));
    assert_eq!(counters.get("facts P1308"), Some(&9));
    assert_eq!(counters.get("facts P286"), Some(&0));
    assert_eq!(
        out.stats.warnings(),
        ["P286: the dump holds no statement of it, 0 facts"],
        "only the relation the dump lacks is warned of"
    );
    let relations = &out.stats.metrics()["relations"];
    assert_eq!(relations["P286"]["statements"], 0);
    assert_eq!(relations["P39"]["facts"], 5);
    assert!(relations["P39"]["statements"].as_u64().unwrap() >= 5);
    assert!(relations["P39"]["pairs"].as_u64().unwrap() >= 1);
    let sidecar: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("facts.jsonl.meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        sidecar["facts_per_relation"],
        serde_json::json!({"P1308": 9, "P286": 0, "P39": 5})
    );

    // The facts file reused: its facts are counted per relation too.
    let again = run_stage(config(&table, &ctx), &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(again.stats.counters().get("entities"), None, "not read");
    assert_eq!(again.stats.counters().get("facts P1308"), Some(&9));
}

#[tokio::test]
async fn rejections_carry_the_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let text = demo_text().replacen(
        "{\"type\":\"item\",\"id\":\"Q42\"",
        "{\"type\":\"item\",\"id\":\"Q42\",\"claims\":{\"P39\":[{]}}",
        1,
    );
    let path = write(dir.path(), "dump.json", text.as_bytes());
    let cfg = config(
        &format!("dump = {:?}\non_error = \"skip\"", path.to_str().unwrap()),
        &ctx,
    );
    let out = run_stage(cfg, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(out.rejected.len(), 1);
    assert_eq!(out.rejected[0].location.as_deref(), Some("line 7"));
    assert_eq!(out.rejected[0].stage, "under_test");
    assert_eq!(out.out().len(), 14);

    let cfg = config(
        &format!("dump = {:?}\non_error = \"fail\"", path.to_str().unwrap()),
        &ctx,
    );
    let err = run_stage(cfg, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("dump.json, line 7"), "{err}");
}

#[tokio::test]
async fn a_facts_file_is_written_then_reused_until_the_dump_changes() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let dump = write(dir.path(), "dump.json", demo_text().as_bytes());
    let facts_file = dir.path().join("facts.jsonl");
    let both = format!(
        "dump = {:?}\nfacts_file = {:?}",
        dump.to_str().unwrap(),
        facts_file.to_str().unwrap()
    );
    let first = run_stage(config(&both, &ctx), &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert!(facts_file.exists());
    assert_eq!(first.stats.counters().get("entities"), Some(&17));

    // Same dump, same options: the file is emitted, the dump is not read.
    let again = run_stage(config(&both, &ctx), &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(again.out(), first.out());
    assert_eq!(again.stats.counters().get("entities"), None);

    // Only the facts file: reused as long as its options match.
    let only = format!("facts_file = {:?}", facts_file.to_str().unwrap());
    let reused = run_stage(config(&only, &ctx), &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(reused.out(), first.out());
    let other_cutoff = format!("{only}\ncutoff = \"2022-12-31\"");
    let err = run_stage(
        config(&other_cutoff, &ctx),
        &ctx,
        Vec::new(),
        HashMap::new(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("facts.jsonl") && err.contains("cutoff 2019-12-31, not 2022-12-31"),
        "{err}"
    );

    // The dump grew: it is read again and the file rewritten.
    let grown = demo_text().replace(
        "\n]\n",
        ",\n{\"type\":\"item\",\"id\":\"Q1\",\"labels\":{},\"claims\":{}}\n]\n",
    );
    std::fs::write(&dump, grown).unwrap();
    let reread = run_stage(config(&both, &ctx), &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(reread.stats.counters().get("entities"), Some(&18));
}

#[tokio::test]
async fn a_cancelled_run_stops_without_facts() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let cfg = config(&format!("dump = {:?}", demo_dump().to_str().unwrap()), &ctx);
    let token = tokio_util_token();
    token.cancel();
    let out = run_stage_with_shutdown(cfg, &ctx, Vec::new(), HashMap::new(), token)
        .await
        .unwrap();
    assert!(out.out().is_empty());
}

fn tokio_util_token() -> tokio_util::sync::CancellationToken {
    tokio_util::sync::CancellationToken::new()
}

#[test]
fn options_are_checked_and_the_cutoff_defaults_to_the_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let parse = |t: &str| WikidataConfig::configure(toml::from_str(t).unwrap(), &ctx);
    let cfg = parse("dump = \"-\"").unwrap();
    assert_eq!(cfg.query().cutoff, ctx.cutoff);
    assert_eq!(cfg.query().relations, ["P39", "P1308"]);
    assert_eq!(cfg.query().languages, ["en"]);
    assert!(cfg.reads().is_empty(), "stdin is not a file to check");
    assert_eq!(
        parse("dump = \"-\"\ncutoff = \"2021-06-30\"")
            .unwrap()
            .query()
            .cutoff
            .to_string(),
        "2021-06-30"
    );
    let errs = parse("").unwrap_err();
    assert_eq!(errs[0].key.as_deref(), Some("dump"));
    let errs = parse("dump = \"-\"\nrelations = [\"position held\"]").unwrap_err();
    assert_eq!(errs[0].key.as_deref(), Some("relations[0]"));
    assert!(errs[0]
        .message
        .contains("unknown relation `position held`: give a property id"));
    // The catalogue's names stand for their properties.
    let cfg = parse("dump = \"-\"\nrelations = [\"position-held\", \"head-coach\"]").unwrap();
    assert_eq!(cfg.query().relations, ["P39", "P286"]);
    let errs = parse("dump = \"-\"\nlanguage = [\"en\"]").unwrap_err();
    assert_eq!(errs[0].key.as_deref(), Some("language"));
    let errs = parse("dump = \"-\"\non_error = \"ignore\"").unwrap_err();
    assert!(errs[0].message.contains("ignore"));
}

#[test]
fn the_kind_documents_every_option() {
    let kinds = tempora_wikidata::kinds();
    assert_eq!(kinds[0].name, "wikidata");
    let docs = tempora_engine::options::option_docs(&(kinds[0].options)());
    let mut names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "catalogue",
            "cutoff",
            "dump",
            "facts_file",
            "languages",
            "on_error",
            "relations"
        ]
    );
    assert!(docs.iter().all(|d| !d.doc.is_empty()));
    let relations = docs.iter().find(|d| d.name == "relations").unwrap();
    assert_eq!(relations.default.as_deref(), Some("[\"P39\",\"P1308\"]"));
}
