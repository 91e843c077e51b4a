//! The report on a tiny output directory of ours (`tests/fixtures/out/`): golden
//! `report.md` (run with `TEMPORA_BLESS=1` to rewrite it), `report.json` numbers
//! computed by hand, valid charts, and bad input.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tempora_report::{write_report, ReportError};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A copy of the fixture directory (the report writes into it).
fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture().join("out")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

fn report_json(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap()).unwrap()
}

fn close(value: &Value, expected: f64) {
    let got = value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"));
    assert!(
        (got - expected).abs() < 1e-6,
        "got {got}, expected {expected}"
    );
}

#[test]
fn golden_markdown() {
    let dir = fixture_copy();
    write_report(dir.path()).unwrap();
    let got = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    let golden = fixture().join("report.md");
    if std::env::var_os("TEMPORA_BLESS").is_some() {
        std::fs::write(&golden, &got).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    assert!(
        got == want,
        "report.md differs from tests/fixtures/report.md (TEMPORA_BLESS=1 rewrites it):\n{got}"
    );
}

#[test]
fn report_json_holds_hand_computed_numbers() {
    let dir = fixture_copy();
    write_report(dir.path()).unwrap();
    let json = report_json(dir.path());
    let sets = json["sets"].as_object().unwrap();
    assert_eq!(
        sets.keys().collect::<Vec<_>>(),
        ["future", "in_distribution"]
    );
    assert_eq!(json["sets"]["future"]["articles"], 3);
    // in_distribution, by hand (tokens: words and punctuation):
    // 1. "the minister resigned ." in "the minister resigned on monday .": fragments 3
    //    and 1: coverage 1, density 10/4, compression 6/4; novel n-grams 0, 1/3, 1/2, 1.
    // 2. "a new prime minister was chosen ." in "parliament chose a prime minister
    //    today .": fragments "a", "prime minister", ".": coverage 4/7, density 6/7,
    //    compression 1; novel 3/7, 5/6, 1, 1.
    let d = &json["sets"]["in_distribution"];
    assert_eq!(d["articles"], 2);
    close(&d["coverage"]["mean"], (1.0 + 4.0 / 7.0) / 2.0);
    close(&d["coverage"]["median"], (1.0 + 4.0 / 7.0) / 2.0);
    close(&d["density"]["mean"], (2.5 + 6.0 / 7.0) / 2.0);
    close(&d["compression"]["mean"], 1.25);
    close(&d["novel_ngrams"]["1"], 100.0 * (3.0 / 7.0) / 2.0);
    close(
        &d["novel_ngrams"]["2"],
        100.0 * (1.0 / 3.0 + 5.0 / 6.0) / 2.0,
    );
    close(&d["novel_ngrams"]["3"], 75.0);
    close(&d["novel_ngrams"]["4"], 100.0);
    close(&d["summary_tokens"]["mean"], 5.5);

    let skipped: Vec<&str> = json["files"]["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["file"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["facts.jsonl", "rejected.jsonl"]);

    // Counts per source, set and year.
    let counts: Vec<(String, String, i64, i64)> = json["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["source"].as_str().unwrap().to_string(),
                c["set"].as_str().unwrap().to_string(),
                c["year"].as_i64().unwrap(),
                c["articles"].as_i64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("bbc", "future", 2021, 1),
        ("bbc", "future", 2022, 1),
        ("bbc", "in_distribution", 2016, 1),
        ("cnn", "future", 2022, 1),
        ("cnn", "in_distribution", 2017, 1),
    ];
    let expected: Vec<(String, String, i64, i64)> = expected
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), *c, *d))
        .collect();
    assert_eq!(counts, expected);

    // Facts: the US presidency is behind two articles; Joe Biden behind two.
    assert_eq!(json["facts"]["positions"][0]["id"], "Q11696");
    assert_eq!(json["facts"]["positions"][0]["articles"], 2);
    assert_eq!(json["facts"]["people"][0]["label"], "Joe Biden");
    assert_eq!(json["facts"]["people"][0]["articles"], 2);
    assert_eq!(json["facts"]["people"].as_array().unwrap().len(), 4);

    // Novelty: two scored articles, one null; run.json's table.
    let bins = json["novelty"]["bins"].as_array().unwrap();
    assert_eq!(bins.len(), 2);
    assert_eq!(bins[0]["tag"], "T_nov");
    close(&bins[1]["overlap_max"], 62.5);
    assert_eq!(json["novelty"]["run"][0]["bins"][1]["range"], "50-100");
    assert_eq!(json["run"]["cutoff"], "2019-12-31");
}

#[test]
fn same_input_same_bytes() {
    let a = fixture_copy();
    let b = fixture_copy();
    write_report(a.path()).unwrap();
    write_report(b.path()).unwrap();
    for file in [
        "report.md",
        "report.json",
        "charts/coverage.svg",
        "charts/overlap.png",
    ] {
        let x = std::fs::read(a.path().join(file)).unwrap();
        let y = std::fs::read(b.path().join(file)).unwrap();
        assert!(x == y, "{file} differs between two runs");
    }
}

#[test]
fn charts_are_valid_svg_and_png() {
    let dir = fixture_copy();
    let written = write_report(dir.path()).unwrap();
    let charts = &written.report.charts;
    // coverage, density, compression, four novel n-gram charts and overlap, twice.
    assert_eq!(charts.len(), 16, "{charts:?}");
    for chart in charts {
        let bytes = std::fs::read(dir.path().join(chart)).unwrap();
        if chart.ends_with(".svg") {
            let text = String::from_utf8(bytes).unwrap();
            let doc = roxmltree::Document::parse(&text).unwrap();
            assert_eq!(doc.root_element().tag_name().name(), "svg", "{chart}");
            // Text is drawn (axis labels, title).
            assert!(doc.descendants().any(|n| n.has_tag_name("text")), "{chart}");
        } else {
            assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{chart}");
            let mut reader = png::Decoder::new(std::io::Cursor::new(&bytes))
                .read_info()
                .unwrap_or_else(|e| panic!("{chart}: {e}"));
            let mut rgb = vec![0; reader.output_buffer_size()];
            let frame = reader
                .next_frame(&mut rgb)
                .unwrap_or_else(|e| panic!("{chart}: {e}"));
            assert_eq!((frame.width, frame.height), (900, 500));
            assert_eq!(frame.color_type, png::ColorType::Rgb, "{chart}");
            // Not a blank canvas: bars and text have other colours than white.
            assert!(
                rgb[..frame.buffer_size()].iter().any(|&b| b != 255),
                "{chart}"
            );
        }
    }
}

#[test]
fn a_corrupt_line_is_an_error_naming_file_and_line() {
    let dir = fixture_copy();
    let path = dir.path().join("in_distribution.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"summary\": \"cut short\", \"docu\n");
    std::fs::write(&path, text).unwrap();
    let e = write_report(dir.path()).unwrap_err();
    let message = e.to_string();
    assert!(
        matches!(e, ReportError::BadRecord { line: 3, .. }),
        "{message}"
    );
    assert!(message.contains("in_distribution.jsonl:3"), "{message}");
    assert!(!dir.path().join("report.md").exists());
}

#[test]
fn a_record_without_document_names_the_field() {
    let dir = fixture_copy();
    let path = dir.path().join("future.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\n{\"summary\": \"s\", \"document\": null}\n");
    std::fs::write(&path, text).unwrap();
    let message = write_report(dir.path()).unwrap_err().to_string();
    assert!(message.contains("future.jsonl:5"), "{message}");
    assert!(
        message.contains("`document` is missing or null"),
        "{message}"
    );
}

#[test]
fn a_directory_without_articles_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = write_report(dir.path()).unwrap_err();
    assert!(matches!(e, ReportError::NoSets { .. }));
    assert!(e.to_string().contains("no article outputs"), "{e}");
    // Only facts and rejected records: still none.
    std::fs::copy(
        fixture().join("out/facts.jsonl"),
        dir.path().join("facts.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        fixture().join("out/rejected.jsonl"),
        dir.path().join("rejected.jsonl"),
    )
    .unwrap();
    assert!(matches!(
        write_report(dir.path()),
        Err(ReportError::NoSets { .. })
    ));
    let missing = dir.path().join("missing");
    let e = write_report(&missing).unwrap_err();
    assert!(e.to_string().contains("missing"), "{e}");
}

#[test]
fn a_bad_run_json_is_an_error() {
    let dir = fixture_copy();
    std::fs::write(dir.path().join("run.json"), "{\"stages\": [").unwrap();
    let e = write_report(dir.path()).unwrap_err();
    assert!(e.to_string().contains("run.json"), "{e}");
}

#[test]
fn parquet_sets_are_read_and_jsonl_wins_a_shared_stem() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    // An XSum-like export: only summary, document and an id.
    let mut frame = df!(
        "id" => ["1", "2"],
        "document" => ["The minister resigned on Monday.", "Parliament chose a prime minister today."],
        "summary" => ["The minister resigned.", "A new prime minister was chosen."],
    )
    .unwrap();
    let file = std::fs::File::create(dir.path().join("xsum_test.parquet")).unwrap();
    ParquetWriter::new(file).finish(&mut frame).unwrap();
    // A Parquet copy of a JSONL set is not read twice (nor even opened).
    std::fs::copy(
        fixture().join("out/in_distribution.jsonl"),
        dir.path().join("copy.jsonl"),
    )
    .unwrap();
    std::fs::write(dir.path().join("copy.parquet"), b"not parquet").unwrap();
    let written = write_report(dir.path()).unwrap();
    let json = report_json(dir.path());
    assert_eq!(json["sets"]["xsum_test"]["articles"], 2);
    // The same two articles as in_distribution: the same statistics.
    assert_eq!(
        json["sets"]["xsum_test"]["density"],
        json["sets"]["copy"]["density"]
    );
    assert_eq!(json["files"]["skipped"][0]["file"], "copy.parquet");
    // No source or date in the export: one row with neither.
    assert!(json["counts"][0]["source"].is_null());
    assert!(json["counts"][0]["year"].is_null());
    assert!(written.report.facts.people.is_empty());
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("| xsum_test | `xsum_test.parquet` | 2 |"),
        "{md}"
    );
    assert!(!md.contains("## Run\n"), "no run.json, no run section");
}

#[test]
fn relations_are_counted_per_set_and_per_facts_file() {
    let dir = tempfile::tempdir().unwrap();
    let fact = |relation: &str| {
        format!(
            r#"{{"subject":{{"id":"Q1"}},"relation":"{relation}","object":{{"id":"Q2"}},"rank":"normal","valid_at_cutoff":true}}"#
        )
    };
    let articles = [
        r#"{"id":"1","summary":"S.","document":"D.","relations":["P286","P54"],"facts":[]}"#
            .to_string(),
        // Written before `relations`: its facts' relations count.
        format!(
            r#"{{"id":"2","summary":"S.","document":"D.","facts":[{{"fact":{}}},{{"fact":{}}}]}}"#,
            fact("P39"),
            fact("P39")
        ),
        r#"{"id":"3","summary":"S.","document":"D.","relations":["P286"]}"#.to_string(),
    ];
    std::fs::write(dir.path().join("future.jsonl"), articles.join("\n")).unwrap();
    let facts = [fact("P286"), fact("P102"), fact("P286")];
    std::fs::write(dir.path().join("facts.jsonl"), facts.join("\n")).unwrap();
    write_report(dir.path()).unwrap();
    let json = report_json(dir.path());
    let rows = |key: &str, count: &str| -> Vec<(String, String, u64)> {
        json["relations"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let first = if key == "articles" { "set" } else { "file" };
                (
                    r[first].as_str().unwrap().to_string(),
                    r["name"].as_str().unwrap().to_string(),
                    r[count].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let row = |a: &str, b: &str, n: u64| (a.to_string(), b.to_string(), n);
    assert_eq!(
        rows("articles", "articles"),
        [
            row("future", "head coach (P286)", 2),
            row("future", "position held (P39)", 1),
            row("future", "member of sports team (P54)", 1),
        ]
    );
    // A relation the shipped catalogue lacks is named by its id.
    assert_eq!(
        rows("facts", "facts"),
        [
            row("facts.jsonl", "P102", 1),
            row("facts.jsonl", "head coach (P286)", 2)
        ]
    );
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("| future | head coach (P286) | 2 |"), "{md}");
    assert!(md.contains("| `facts.jsonl` | P102 | 1 |"), "{md}");

    // A line of a facts file that is no fact is named.
    std::fs::write(
        dir.path().join("facts.jsonl"),
        format!("{}\n{{\"rank\":1}}\n", fact("P39")),
    )
    .unwrap();
    let err = write_report(dir.path()).unwrap_err().to_string();
    assert!(err.contains("facts.jsonl:2: not a fact"), "{err}");
}
