//! The `jsonl` and `parquet` sources, fuzzed: files our sinks wrote, broken the
//! ways files break (cut short, bytes flipped, inserted or dropped, spans
//! repeated) and arbitrary bytes. No panic; a bad line is a rejection naming
//! its file and line (or, with `on_error = "fail"`, an error naming them); a bad
//! Parquet file is an error naming the file.
//! `PROPTEST_CASES=5000 cargo test -p tempora-sink --test fuzz_sources` runs longer.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::configure;
use proptest::prelude::*;
use tempora_engine::testing::{context, run_stage, StageOutput};
use tempora_engine::StageError;
use tempora_records::{Record, RecordKind};
use tempora_testkit::fuzz::{broken, config};

const ARTICLES: &str = r#"{"id":"1","url":"https://www.bbc.co.uk/news/uk-1","source":"bbc","published":"2021-01-01","captured":"20210301000000","title":"One","summary":"The first, with \"quotes\" and ünïcode.","document":"A.\nB."}
{"id":"2","url":"https://www.bbc.co.uk/news/uk-2","source":"bbc","published":"2021-01-02","captured":"20210302000000","title":"Two","summary":"The second.","document":"C.","split":"future"}
"#;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn read(kind: &str, path: &Path, fail: bool) -> Result<StageOutput, StageError> {
    let ctx = context(path.parent().unwrap());
    let options = format!(
        "paths = [{:?}]\nrecord = \"article\"\non_error = \"{}\"",
        path.display().to_string(),
        if fail { "fail" } else { "skip" }
    );
    let source = configure(kind, &ctx, &options).unwrap();
    runtime().block_on(run_stage(source, &ctx, Vec::new(), HashMap::new()))
}

/// The Parquet file the `parquet` sink writes of [`ARTICLES`].
fn parquet_sample() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let records: Vec<Record> = ARTICLES
        .lines()
        .map(|l| Record::from_json(RecordKind::Article, l).unwrap())
        .collect();
    let sink = configure("parquet", &ctx, "path = \"a.parquet\"").unwrap();
    runtime()
        .block_on(run_stage(sink, &ctx, records, HashMap::new()))
        .unwrap();
    std::fs::read(dir.path().join("a.parquet")).unwrap()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn broken_jsonl_is_rejected_line_by_line(bytes in broken(vec![ARTICLES.as_bytes().to_vec()]), fail in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.jsonl");
        std::fs::write(&path, &bytes).unwrap();
        let named = format!("{}:", path.display());
        match read("jsonl-source", &path, fail) {
            Ok(output) => {
                for r in &output.rejected {
                    let location = r.location.clone().unwrap_or_default();
                    prop_assert!(location.starts_with(&named), "{location}");
                    prop_assert!(!r.reason.is_empty());
                }
                // Nothing lost: every non-blank line is a record or a rejection.
                let lines = bytes
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                    .count();
                prop_assert_eq!(output.out().len() + output.rejected.len(), lines);
            }
            Err(e) => prop_assert!(e.to_string().contains("in.jsonl"), "{e}"),
        }
    }

    #[test]
    fn broken_parquet_is_an_error_naming_the_file(bytes in broken(vec![parquet_sample()])) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.parquet");
        std::fs::write(&path, &bytes).unwrap();
        if let Err(e) = read("parquet-source", &path, true) {
            prop_assert!(e.to_string().contains("in.parquet"), "{e}");
        }
    }
}

/// A foreign Parquet file (not written by our sink) of articles, with one more
/// column of type `extra`, written by polars.
fn foreign_parquet(path: &Path, extra: polars::prelude::Column) {
    use polars::prelude::*;
    let text = |name: &str, values: [&str; 2]| Column::new(name.into(), values);
    let mut frame = DataFrame::new_infer_height(vec![
        text("id", ["1", "2"]),
        text(
            "url",
            [
                "https://www.bbc.co.uk/news/uk-1",
                "https://www.bbc.co.uk/news/uk-2",
            ],
        ),
        text("published", ["2021-01-01", "2021-01-02"]),
        text("captured", ["20210301000000", "20210302000000"]),
        text("title", ["One", "Two"]),
        text("summary", ["The first.", "The second."]),
        text("document", ["A.", "B."]),
        extra,
    ])
    .unwrap();
    ParquetWriter::new(std::fs::File::create(path).unwrap())
        .finish(&mut frame)
        .unwrap();
}

#[test]
fn a_foreign_dictionary_column_is_read_as_its_values() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("categorical.parquet");
    // pandas' categoricals are stored as dictionary-encoded columns.
    let source = Column::new("source".into(), ["bbc", "cnn"])
        .cast(&DataType::from_categories(Categories::global()))
        .unwrap();
    foreign_parquet(&path, source);
    let out = read("parquet-source", &path, true).unwrap();
    let sources: Vec<String> = out
        .out()
        .iter()
        .map(|r| r.to_json()["source"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sources, ["bbc", "cnn"]);
}

#[test]
fn a_binary_column_is_an_error_naming_file_and_column() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("binary.parquet");
    let raw = Column::new("raw".into(), [b"\x00\x01".as_slice(), b"\xff".as_slice()]);
    foreign_parquet(&path, raw);
    let e = read("parquet-source", &path, true).unwrap_err().to_string();
    assert!(e.contains("binary.parquet") && e.contains("`raw`"), "{e}");
}
