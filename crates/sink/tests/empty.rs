//! An empty result is published as empty: a sink writes a 0-row file for a set
//! that brought nothing (a path named by `{split}` alone) and for a fixed path
//! that received nothing, JSONL and Parquet alike, the Parquet file with the
//! record kind's declared schema.

mod common;

use std::collections::HashMap;
use std::path::Path;

use tempora_engine::testing::{context, run_stage};
use tempora_engine::{PipelineContext, ReadPort, StageConfig};
use tempora_records::{Record, RecordKind};
use tempora_sink::parquet::read_footer;
use tempora_sink::schema::arrow_schema;

/// The sink `kind` with `options`, told that its one input carries `kind`
/// records of `sets`, as the plan tells it.
fn sink(
    ctx: &PipelineContext,
    format: &str,
    options: &str,
    read: &[(RecordKind, &[&str])],
) -> Box<dyn StageConfig> {
    let mut config = common::configure(format, ctx, options).unwrap();
    let ports: Vec<ReadPort> = read
        .iter()
        .map(|(kind, sets)| ReadPort {
            kind: *kind,
            sets: sets.iter().map(|s| (*s).to_string()).collect(),
        })
        .collect();
    config.read_ports(&ports);
    config
}

fn article(id: &str, split: &str) -> Record {
    let json = format!(
        r#"{{"id":"{id}","url":"https://www.bbc.co.uk/news/uk-{id}","source":"bbc","published":"2015-01-02","captured":"20150301000000","title":"t","summary":"s","document":"d","split":"{split}"}}"#
    );
    Record::from_json(RecordKind::Article, &json).unwrap()
}

/// Every file under `dir` (not hidden ones), relative and sorted.
fn files(dir: &Path) -> Vec<String> {
    tempora_sink::release::relative_files(dir, Path::new("")).unwrap()
}

/// The rows of a Parquet file, checked to have `kind`'s declared schema.
fn parquet_rows(path: &Path, kind: RecordKind) -> u64 {
    let footer = read_footer(std::fs::File::open(path).unwrap()).unwrap();
    assert_eq!(
        footer.schema.fields(),
        arrow_schema(kind).fields(),
        "{}",
        path.display()
    );
    footer.rows
}

#[tokio::test]
async fn a_set_that_brings_nothing_has_its_files_with_no_rows() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let sets: &[&str] = &["in_distribution", "future"];
    for (format, path) in [("jsonl", "{split}.jsonl"), ("parquet", "{split}.parquet")] {
        let config = sink(
            &ctx,
            format,
            &format!("path = \"{path}\""),
            &[(RecordKind::Article, sets)],
        );
        let input = vec![article("1", "in_distribution")];
        let output = run_stage(config, &ctx, input, HashMap::new())
            .await
            .unwrap();
        let counters = output.stats.counters();
        let written = |file: &str| counters.get(&format!("file {file}")).copied();
        let future = path.replace("{split}", "future");
        assert_eq!(written(&future), Some(0), "{format}: {counters:?}");
        assert_eq!(
            written(&path.replace("{split}", "in_distribution")),
            Some(1)
        );
    }
    assert_eq!(
        files(dir.path()),
        [
            "future.jsonl",
            "future.parquet",
            "in_distribution.jsonl",
            "in_distribution.parquet"
        ]
    );
    assert_eq!(std::fs::read(dir.path().join("future.jsonl")).unwrap(), b"");
    let future = dir.path().join("future.parquet");
    assert_eq!(parquet_rows(&future, RecordKind::Article), 0);
    let in_distribution = dir.path().join("in_distribution.parquet");
    assert_eq!(parquet_rows(&in_distribution, RecordKind::Article), 1);
}

#[tokio::test]
async fn a_fixed_path_that_receives_nothing_is_written_empty_in_both_formats() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    for (format, path) in [("jsonl", "pairs.jsonl"), ("parquet", "pairs.parquet")] {
        let config = sink(
            &ctx,
            format,
            &format!("path = \"{path}\""),
            &[(RecordKind::Pair, &["future"])],
        );
        let output = run_stage(config, &ctx, Vec::new(), HashMap::new())
            .await
            .unwrap();
        assert_eq!(
            output.stats.counters().get(&format!("file {path}")),
            Some(&0)
        );
    }
    assert_eq!(files(dir.path()), ["pairs.jsonl", "pairs.parquet"]);
    assert_eq!(std::fs::read(dir.path().join("pairs.jsonl")).unwrap(), b"");
    let pairs = dir.path().join("pairs.parquet");
    assert_eq!(parquet_rows(&pairs, RecordKind::Pair), 0);
    // Read back by the parquet source: no record, no error.
    let source = common::configure(
        "parquet-source",
        &ctx,
        &format!("paths = [\"{}\"]\nrecord = \"pair\"", pairs.display()),
    )
    .unwrap();
    let output = run_stage(source, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert!(output.out().is_empty() && output.rejected.is_empty());
}

#[tokio::test]
async fn a_path_with_a_field_only_records_give_writes_no_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let sets: &[&str] = &["future"];
    for path in [
        "novelty/{split}.{novelty}.parquet",
        "{source}/{split}.parquet",
        "{kind}.parquet",
    ] {
        let config = sink(
            &ctx,
            "parquet",
            &format!("path = \"{path}\""),
            &[(RecordKind::Article, sets)],
        );
        run_stage(config, &ctx, Vec::new(), HashMap::new())
            .await
            .unwrap();
    }
    // Inputs of two kinds give no schema: a fixed Parquet path that receives
    // nothing is then not written.
    let mixed = sink(
        &ctx,
        "parquet",
        "path = \"all.parquet\"",
        &[(RecordKind::Article, sets), (RecordKind::Fact, &[])],
    );
    run_stage(mixed, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert!(files(dir.path()).is_empty(), "{:?}", files(dir.path()));
}

#[tokio::test]
async fn with_a_withheld_part_an_empty_set_is_empty_in_both_halves() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let ctx = context(&out);
    let key = dir.path().join("release.key");
    std::fs::write(&key, [7u8; 32]).unwrap();
    let withhold = format!("withhold = {{ share = 0.5, key = \"{}\" }}", key.display());
    let sets: &[&str] = &["future"];
    let options = format!("path = \"{{split}}.parquet\"\n{withhold}");
    let config = sink(&ctx, "parquet", &options, &[(RecordKind::Article, sets)]);
    run_stage(config, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    // Facts are of no set: a facts file has no withheld twin.
    let options = format!("path = \"facts.parquet\"\n{withhold}");
    let facts = sink(&ctx, "parquet", &options, &[(RecordKind::Fact, &[])]);
    run_stage(facts, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    assert_eq!(
        files(&out),
        ["facts.parquet", "future.parquet", "withheld/future.parquet"]
    );
    for file in ["future.parquet", "withheld/future.parquet"] {
        assert_eq!(parquet_rows(&out.join(file), RecordKind::Article), 0);
    }
}
