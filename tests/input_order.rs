//! Every published byte is a function of the inputs' content, never of their
//! order: the offline demo run on its inputs in other orders publishes the same
//! files, byte for byte, as on the shipped ones. The orders are those another
//! source would give: the dump's entities in another order, each in a gzip
//! member of its own (as the real dump's members cut it anywhere); the WARC's
//! records in another order (as concurrent fetches would have written them);
//! the exclusion lists' ids and URLs and the training summaries in another order.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::Command;

use common::order::{
    members, permute, permute_lines, permute_xsum_split, published_content, same_files,
    INPUT_RECORDS,
};
use flate2::read::MultiGzDecoder;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pipelines/demo");

/// Runs the demo with `overrides` (`--set` values) into `out`.
fn run_demo(out: &Path, overrides: &[String]) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tempora"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "pipelines/demo.toml", "--progress", "off", "--set"])
        .arg(format!("pipeline.out={:?}", out.display().to_string()));
    for o in overrides {
        command.args(["--set", o]);
    }
    let o = command.env("RUST_LOG", "warn").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

/// The demo's dump with its entity lines in another order, one member each.
fn dump(keys: &[u64]) -> Vec<u8> {
    let text = String::from_utf8(gunzip(&Path::new(DEMO).join("wikidata.json.gz"))).unwrap();
    let entities: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| l.trim_end_matches(','))
        .collect();
    assert!(entities.len() > 10, "the demo's dump holds entities");
    let entities = permute(&entities, keys);
    let mut parts = vec![b"[\n".to_vec()];
    for (i, e) in entities.iter().enumerate() {
        let comma = if i + 1 < entities.len() { "," } else { "" };
        parts.push(format!("{e}{comma}\n").into_bytes());
    }
    parts.push(b"]\n".to_vec());
    members(&parts)
}

/// The demo's WARC with its records in another order, one member each.
fn warc(keys: &[u64]) -> Vec<u8> {
    let bytes = gunzip(&Path::new(DEMO).join("pages.warc.gz"));
    let mut records = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let head_end = at + find(&bytes[at..], b"\r\n\r\n").expect("a WARC header") + 4;
        let head = String::from_utf8_lossy(&bytes[at..head_end]);
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .expect("Content-Length")
            .trim()
            .parse()
            .unwrap();
        let end = head_end + length + 4;
        records.push(bytes[at..end].to_vec());
        at = end;
    }
    assert!(records.len() > 5, "the demo's WARC holds pages");
    members(&permute(&records, keys))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// One of the demo's files of lines with its lines in another order.
fn lines(name: &str, keys: &[u64]) -> String {
    permute_lines(
        &std::fs::read_to_string(Path::new(DEMO).join(name)).unwrap(),
        keys,
    )
}

/// XSum's split file with each list in another order.
fn xsum_split(keys: &[u64]) -> String {
    permute_xsum_split(
        &std::fs::read_to_string(Path::new(DEMO).join("xsum-split.json")).unwrap(),
        keys,
    )
}

/// Writes the demo's inputs in the order `keys` gives into `dir`; the overrides
/// that point the demo at them.
fn permuted_inputs(dir: &Path, keys: &[u64]) -> Vec<String> {
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        format!("{:?}", path.display().to_string())
    };
    vec![
        format!(
            "stages.facts.dump={}",
            write("wikidata.json.gz", &dump(keys))
        ),
        format!(
            "stages.pages.paths=[{}]",
            write("pages.warc.gz", &warc(keys))
        ),
        format!(
            "stages.unseen.xsum_split={}",
            write("xsum-split.json", xsum_split(keys).as_bytes())
        ),
        format!(
            "stages.unseen.cnndm_urls=[{}]",
            write("cnndm-urls.txt", lines("cnndm-urls.txt", keys).as_bytes())
        ),
        format!(
            "stages.novelty.train={}",
            write(
                "train.jsonl",
                lines("train-summaries.jsonl", keys).as_bytes()
            )
        ),
    ]
}

#[test]
fn the_demo_publishes_the_same_bytes_whatever_its_inputs_order() {
    let shipped = tempfile::tempdir().unwrap();
    run_demo(shipped.path(), &[]);
    let expected = published_content(shipped.path(), &INPUT_RECORDS);
    assert!(expected.contains_key("future.jsonl") && expected.contains_key("facts.jsonl"));
    // Each case runs the whole demo: a few are enough to reach many orders.
    let mut runner = TestRunner::new(Config {
        cases: 4,
        ..Config::default()
    });
    runner
        .run(&prop::collection::vec(any::<u64>(), 1..8), |keys| {
            let inputs = tempfile::tempdir().unwrap();
            let out = tempfile::tempdir().unwrap();
            run_demo(out.path(), &permuted_inputs(inputs.path(), &keys));
            let got = published_content(out.path(), &INPUT_RECORDS);
            same_files(&got, &expected).map_err(TestCaseError::fail)?;
            Ok(())
        })
        .unwrap();
}
