//! `tempora score`'s intervals end to end: systems of made-up summaries of one
//! day, judged against the demo's facts ("Vice President Joe Biden" is outdated
//! on 2021-01-21, "President Joe Biden" current), so that each system's outdated
//! rate is known; `summary.json` read as a user reads it.

mod common;

use std::path::{Path, PathBuf};

use common::bin::{succeeded, tempora};
use common::demo::run_into;
use serde_json::Value;

/// A system's predictions: `n` summaries of 2021-01-21, the first `outdated`
/// of them naming Biden vice president, the rest president; written as
/// `dir/name.jsonl`.
fn system(dir: &Path, name: &str, n: usize, outdated: usize) -> PathBuf {
    let lines: Vec<String> = (0..n)
        .map(|i| {
            let title = if i < outdated {
                "Vice President"
            } else {
                "President"
            };
            serde_json::json!({
                "id": format!("a{i:04}"),
                "published": "2021-01-21",
                "summary": format!("{title} Joe Biden signed order number {i}."),
            })
            .to_string()
        })
        .collect();
    let path = dir.join(format!("{name}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `tempora score` of `predictions` with the demo's facts into `out`, with
/// `extra` arguments: `summary.json`.
fn score(facts: &Path, predictions: &[&Path], out: &Path, extra: &[&str]) -> Value {
    let facts = facts.display().to_string();
    let out_arg = out.display().to_string();
    let files: Vec<String> = predictions
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut args = vec![
        "score",
        "--facts",
        &facts,
        "--out",
        &out_arg,
        "--predictions",
    ];
    args.extend(files.iter().map(String::as_str));
    args.extend(extra);
    succeeded(&tempora(&args));
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

fn row<'a>(summary: &'a Value, system: &str) -> &'a Value {
    summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["system"] == system)
        .unwrap_or_else(|| panic!("no row of {system}: {summary:#}"))
}

fn bounds(interval: &Value) -> (f64, f64) {
    (
        interval["low"].as_f64().unwrap(),
        interval["high"].as_f64().unwrap(),
    )
}

/// The normal approximation of a rate's 95 % interval, which the bootstrap's
/// percentile interval of a share of 200 or more articles agrees with to a
/// point or so.
fn wald(k: f64, n: f64) -> (f64, f64) {
    let p = k / n;
    let half = 1.96 * (p * (1.0 - p) / n).sqrt();
    (p - half, p + half)
}

#[test]
fn intervals_differences_and_the_leaderboard_in_summary_json() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    run_into(&demo, &[]);
    let facts = demo.join("facts.jsonl");
    let a = system(dir.path(), "a", 200, 50);
    let twin = system(dir.path(), "twin", 200, 50);
    let big = system(dir.path(), "big", 800, 200);
    let worse = system(dir.path(), "worse", 200, 100);
    let out = dir.path().join("scores");
    let summary = score(&facts, &[&a, &twin, &big, &worse], &out, &[]);

    // Each rate with its interval, matching the reference computation.
    assert_eq!(summary["bootstrap"]["resamples"], 1000, "{summary:#}");
    let (low, high) = bounds(&row(&summary, "a")["outdated_interval"]);
    let (w_low, w_high) = wald(50.0, 200.0);
    assert!(
        (low - w_low).abs() < 0.015 && (high - w_high).abs() < 0.015,
        "{low} {high}"
    );
    assert_eq!(row(&summary, "a")["outdated_rate"], 0.25);
    assert_eq!(bounds(&row(&summary, "a")["never_interval"]), (0.0, 0.0));
    // Four times the articles at the same rate: half the width.
    let (b_low, b_high) = bounds(&row(&summary, "big")["outdated_interval"]);
    let ratio = (high - low) / (b_high - b_low);
    assert!((1.6..2.4).contains(&ratio), "{ratio}");

    // Identical systems differ by exactly 0; a worse one by about 25 points.
    let differences = summary["differences"].as_array().unwrap();
    let pair = |system: &str, against: &str| {
        differences
            .iter()
            .find(|d| d["system"] == system && d["against"] == against)
            .unwrap_or_else(|| panic!("no {system} against {against}: {summary:#}"))
    };
    let same = pair("twin", "a");
    assert_eq!(same["articles"], 200);
    assert_eq!(bounds(&same["interval"]), (0.0, 0.0));
    let worse_a = pair("worse", "a");
    let (d_low, d_high) = bounds(&worse_a["interval"]);
    assert!((worse_a["difference"].as_f64().unwrap() - 0.25).abs() < 1e-9);
    assert!(d_low > 0.15 && d_high < 0.35 && d_low < 0.25 && 0.25 < d_high);
    // Paired on the articles both summarized: big's first 200.
    let big_a = pair("big", "a");
    assert_eq!(big_a["articles"], 200);

    // The leaderboard: fewest outdated first, ties sharing a rank; no control
    // without a set.
    let board = &summary["leaderboard"];
    assert_eq!(board["set"], "all");
    let standings: Vec<(Value, &str)> = board["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["rank"].clone(), s["system"].as_str().unwrap()))
        .collect();
    assert_eq!(
        standings,
        [
            (1.into(), "a"),
            (1.into(), "big"),
            (1.into(), "twin"),
            (4.into(), "worse")
        ]
    );

    // The same inputs, the same bytes; the systems in another order, the
    // same figures; no resample, no interval.
    let bytes = std::fs::read(out.join("summary.json")).unwrap();
    let again = dir.path().join("again");
    score(&facts, &[&a, &twin, &big, &worse], &again, &[]);
    assert_eq!(std::fs::read(again.join("summary.json")).unwrap(), bytes);
    let reordered = score(&facts, &[&worse, &big, &twin, &a], &again, &[]);
    for key in ["rows", "differences", "leaderboard", "bootstrap"] {
        assert_eq!(reordered[key], summary[key], "{key}");
    }
    let none = score(&facts, &[&a, &twin], &again, &["--resamples", "0"]);
    assert_eq!(none["bootstrap"], Value::Null);
    assert_eq!(row(&none, "a")["outdated_interval"], Value::Null);
    assert_eq!(row(&none, "a")["outdated_rate"], 0.25);
}

/// Against a set: each row's coverage is of the set's articles, the
/// leaderboard ranks on the future set with `reference` as the control.
#[test]
fn coverage_and_the_control_against_the_demo_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    run_into(&out, &[]);
    // A system that summarized one of the future set's two articles.
    let partial = dir.path().join("partial.jsonl");
    std::fs::write(
        &partial,
        "{\"id\": \"55738746\", \"summary\": \"Vice President Joe Biden signed orders.\"}\n",
    )
    .unwrap();
    let stale =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/demo/predictions/stale.jsonl");
    let dir_arg = out.display().to_string();
    let said = tempora(&[
        "score",
        &dir_arg,
        "--predictions",
        &partial.display().to_string(),
        &stale.display().to_string(),
    ]);
    assert_eq!(said.status.code(), Some(23), "an article without a summary");
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.join("scores/summary.json")).unwrap()).unwrap();
    let future = |system: &str| {
        summary["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["system"] == system && r["set"] == "future")
            .unwrap()
            .clone()
    };
    assert_eq!(
        (
            future("partial")["summaries"].clone(),
            future("partial")["articles"].clone()
        ),
        (1.into(), 2.into())
    );
    assert_eq!(future("partial")["coverage"], 0.5);
    assert_eq!(future("stale")["coverage"], 1.0);
    let board = &summary["leaderboard"];
    assert_eq!(board["set"], "future");
    let first = &board["standings"][0];
    assert_eq!(
        (first["system"].as_str(), &first["rank"]),
        (Some("reference"), &Value::Null)
    );
    // Each system against the control, on the articles both summarized.
    let partial_row = board["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["system"] == "partial")
        .unwrap();
    assert_eq!(partial_row["against_control"]["articles"], 1);
    assert_eq!(partial_row["against_control"]["difference"], 1.0);
}

/// A system that left out a whole set, and one with no summary at all, are
/// in every table with their coverage (0), unranked on the leaderboard, and
/// named under the tables; an empty summary is counted and said.
#[test]
fn a_system_that_left_out_a_set_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    run_into(&out, &[]);
    let only_in = dir.path().join("only_in.jsonl");
    std::fs::write(&only_in, "{\"id\": \"27123456\", \"summary\": \"\"}\n").unwrap();
    let nothing = dir.path().join("nothing.jsonl");
    std::fs::write(&nothing, "").unwrap();
    let said = tempora(&[
        "score",
        &out.display().to_string(),
        "--predictions",
        &only_in.display().to_string(),
        &nothing.display().to_string(),
    ]);
    assert_eq!(said.status.code(), Some(23));
    let stderr = String::from_utf8_lossy(&said.stderr);
    assert!(
        stderr.contains("warning: `only_in`: 1 of its 1 summaries are empty"),
        "{stderr}"
    );
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.join("scores/summary.json")).unwrap()).unwrap();
    for system in ["only_in", "nothing"] {
        let future = summary["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["system"] == system && r["set"] == "future")
            .unwrap_or_else(|| panic!("no future row of {system}: {summary:#}"));
        assert_eq!(
            (&future["summaries"], &future["coverage"]),
            (&0.into(), &0.0.into())
        );
        assert_eq!(future["outdated_interval"], Value::Null);
        let standing = summary["leaderboard"]["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["system"] == system)
            .unwrap_or_else(|| panic!("{system} not on the leaderboard: {summary:#}"));
        assert_eq!(standing["rank"], Value::Null);
    }
    assert_eq!(summary["leaderboard"]["control"], "reference");
    let md = std::fs::read_to_string(out.join("scores/scores.md")).unwrap();
    assert!(
        md.contains("`only_in` left out 2 of the set's 3 articles"),
        "{md}"
    );
    assert!(
        md.contains("`nothing` left out 3 of the set's 3 articles"),
        "{md}"
    );
    assert!(md.contains("| – | nothing | – | – | – |"), "{md}");
}

/// `reference` is the control's name, whatever `--no-reference` says; the
/// resamples have a bound.
#[test]
fn the_controls_name_and_too_many_resamples_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    run_into(&out, &[]);
    let stale =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/demo/predictions/stale.jsonl");
    let (out_arg, stale_arg) = (out.display().to_string(), stale.display().to_string());
    let said = tempora(&[
        "score",
        &out_arg,
        "--no-reference",
        "--predictions",
        &stale_arg,
        "--system",
        "reference",
    ]);
    assert_eq!(said.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&said.stderr).contains("`reference` names the set's own summaries")
    );
    let said = tempora(&[
        "score",
        &out_arg,
        "--resamples",
        "2000000",
        "--predictions",
        &stale_arg,
    ]);
    assert_eq!(said.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&said.stderr).contains("--resamples"));
}
