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
