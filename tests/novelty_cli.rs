//! `tempora novelty` and `tempora diversify` end to end through the binary.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

fn tempora(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tempora"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

const TRAIN: [&str; 6] = [
    "the prime minister said on monday that talks would resume",
    "police are appealing for witnesses after the crash",
    "police are appealing for witnesses after a fire",
    "police are appealing for witnesses after the crash on monday",
    "a new stadium opens its doors to fans",
    "the prime minister said on monday that he would resign",
];

fn write_train_jsonl(dir: &Path) -> std::path::PathBuf {
    let file = dir.join("train.jsonl");
    let lines: Vec<String> = TRAIN
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{{\"summary\": {s:?}, \"id\": {i}}}"))
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    file
}

#[test]
fn novelty_writes_every_test_record_with_its_score_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let train = write_train_jsonl(dir.path());
    let test = dir.path().join("test.jsonl");
    std::fs::write(
        &test,
        concat!(
            "{\"id\": \"x\", \"summary\": \"A new stadium opens its doors\", \"novelty\": null}\n",
            "{\"id\": \"y\", \"summary\": \"Rain\"}\n",
            "{\"id\": \"z\", \"summary\": \"Snow closes every school in the valley\"}\n",
        ),
    )
    .unwrap();
    let out = dir.path().join("scored.jsonl");
    let table = ok(&tempora(&[
        "novelty",
        "--train",
        path(&train),
        "--test",
        path(&test),
        "--min-bin",
        "1",
        "-o",
        path(&out),
    ]));
    let lines: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    // Field order is kept, `novelty` filled in where it stood.
    assert_eq!(
        lines,
        [
            r#"{"id":"x","summary":"A new stadium opens its doors","novelty":{"overlap":100.0,"bin":"5-100","tag":"T_sim"}}"#,
            r#"{"id":"z","summary":"Snow closes every school in the valley","novelty":{"overlap":0.0,"bin":"0-5","tag":"T_nov"}}"#,
        ]
    );
    let rejected = std::fs::read_to_string(dir.path().join("scored.rejected.jsonl")).unwrap();
    assert!(rejected.contains("\"id\":\"y\"") && rejected.contains("fewer than 4 word tokens"));
    assert!(rejected.contains("test.jsonl, line 2"), "{rejected}");
    assert!(table.contains("| 0-5 | 1 | T_nov |"), "{table}");
    assert!(table.contains("| 5-100 | 1 | T_sim |"), "{table}");
}

#[test]
fn novelty_names_the_file_line_and_field_of_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let train = write_train_jsonl(dir.path());
    let test = dir.path().join("test.jsonl");
    std::fs::write(
        &test,
        "{\"summary\": \"fine words here today\"}\n{\"text\": \"x\"}\n",
    )
    .unwrap();
    let out = dir.path().join("scored.jsonl");
    let o = tempora(&[
        "novelty",
        "--train",
        path(&train),
        "--test",
        path(&test),
        "-o",
        path(&out),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("test.jsonl, line 2: no field `summary`"),
        "{err}"
    );
    assert!(!out.exists(), "no output from a failed run");

    let o = tempora(&[
        "novelty",
        "--train",
        path(&train),
        "--field",
        "highlights",
        "--test",
        path(&test),
        "-o",
        path(&out),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("train.jsonl, line 1: no field `highlights`"),
        "{err}"
    );

    // An empty training file: refused, not every overlap 0.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let o = tempora(&[
        "novelty",
        "--train",
        path(&empty),
        "--test",
        path(&test),
        "-o",
        path(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no training summary in field `summary`"),
        "{err}"
    );
    assert!(!out.exists());
}

/// The largest number of times one 4-gram occurs in these summaries.
fn max_repeats(summaries: &[String]) -> usize {
    let mut counts: HashMap<Vec<String>, usize> = HashMap::new();
    for s in summaries {
        let words: Vec<String> = s
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .collect();
        for gram in words.windows(4) {
            *counts.entry(gram.to_vec()).or_default() += 1;
        }
    }
    counts.into_values().max().unwrap_or(0)
}

fn summaries_of(jsonl: &str) -> Vec<String> {
    jsonl
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["summary"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn diversify_keeps_records_unchanged_within_each_threshold_and_by_seed() {
    let dir = tempfile::tempdir().unwrap();
    let train = write_train_jsonl(dir.path());
    let input = std::fs::read_to_string(&train).unwrap();
    let run = |seed: &str, out: &Path| {
        ok(&tempora(&[
            "diversify",
            "--train",
            path(&train),
            "--max-repeats",
            "1,2",
            "--seed",
            seed,
            "-o",
            path(out),
        ]))
    };
    let a = dir.path().join("a");
    let table = run("7", &a);
    for threshold in [1usize, 2] {
        let kept =
            std::fs::read_to_string(a.join(format!("max-repeats-{threshold}.jsonl"))).unwrap();
        // Records as read: each kept line is a line of the input, in input order.
        let mut rest = input.as_str();
        for line in kept.lines() {
            let at = rest
                .find(line)
                .expect("a kept line is an input line, in order");
            rest = &rest[at + line.len()..];
        }
        assert!(max_repeats(&summaries_of(&kept)) <= threshold);
        let count = kept.lines().count();
        assert!(
            table.contains(&format!("| {threshold} | {count} |")),
            "{table}"
        );
    }
    // Three summaries share "police are appealing for": at most one survives at 1.
    let one = std::fs::read_to_string(a.join("max-repeats-1.jsonl")).unwrap();
    assert_eq!(one.matches("police are appealing").count(), 1);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("diversify.json")).unwrap()).unwrap();
    assert_eq!(meta["samples"], 6);
    assert_eq!(meta["seed"], 7);

    let b = dir.path().join("b");
    run("7", &b);
    for name in [
        "max-repeats-1.jsonl",
        "max-repeats-2.jsonl",
        "diversify.json",
    ] {
        assert_eq!(
            std::fs::read(a.join(name)).unwrap(),
            std::fs::read(b.join(name)).unwrap(),
            "{name}: same seed, same bytes"
        );
    }
    // Some seed keeps another subset at threshold 1 (the walk order decides which of
    // the overlapping summaries stays).
    let differs = (0..20).any(|seed| {
        let c = dir.path().join(format!("c{seed}"));
        run(&seed.to_string(), &c);
        std::fs::read(c.join("max-repeats-1.jsonl")).unwrap() != one.as_bytes()
    });
    assert!(differs, "other seeds give other subsets");
}

#[test]
fn diversify_reads_and_writes_parquet_with_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.parquet");
    let lines: Vec<String> = TRAIN
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{{\"id\": \"{i}\", \"summary\": {s:?}}}"))
        .collect();
    let file = std::fs::File::create(&train).unwrap();
    tempora_sink::parquet::write_json_lines(lines.iter().map(|l| l.as_bytes()), &file).unwrap();
    let out = dir.path().join("subsets");
    ok(&tempora(&[
        "diversify",
        "--train",
        path(&train),
        "--max-repeats",
        "1",
        "-o",
        path(&out),
    ]));
    let written = std::fs::File::open(out.join("max-repeats-1.parquet")).unwrap();
    let rows = String::from_utf8(tempora_sink::parquet::read_json_lines(written).unwrap()).unwrap();
    let summaries = summaries_of(&rows);
    assert!(!summaries.is_empty() && summaries.len() < TRAIN.len());
    assert!(max_repeats(&summaries) <= 1);
    assert!(rows.lines().all(|l| l.contains("\"id\":\"")), "{rows}");
}
