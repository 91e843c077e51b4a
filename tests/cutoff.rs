//! A new cutoff is at most two overrides: every shipped pipeline's dry run with
//! the cutoff moved (and the end of the future set, where it has one) shows every
//! window that follows: the sets, the CDX listings (the sets' spans, not the
//! years between them; `{year}` patterns for the sets' years only) and the sets
//! `prefetch` decides by.

use std::process::Command;

use chrono::{Datelike, Utc};

/// `tempora run PIPELINE --dry-run` with `overrides`, as a user runs it.
fn run_dry(pipeline: &str, overrides: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", &format!("pipelines/{pipeline}"), "--dry-run"])
        .env("RUST_LOG", "warn");
    for o in overrides {
        cmd.args(["--set", o]);
    }
    // The data a user provides: named, not there (a dry run lists them as problems).
    for var in [
        "WIKIDATA_DUMP",
        "XSUM_SPLIT",
        "CNNDM_URL_LISTS",
        "XSUM_TRAIN_SUMMARIES",
        "CNNDM_TRAIN_SUMMARIES",
    ] {
        cmd.env(var, format!("/nonexistent/{var}"));
    }
    cmd.env("TEMPORA_CONTACT", "tests@example.org");
    cmd.output().unwrap()
}

/// The dry run's plan (stdout) of a shipped pipeline with `overrides`.
fn dry_run(pipeline: &str, overrides: &[&str]) -> String {
    let out = run_dry(pipeline, overrides);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        matches!(out.status.code(), Some(0 | 2)),
        "{pipeline}: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("plan of"), "{pipeline}: {text}");
    text
}

/// The errors (stderr) of a dry run the pipeline file's problems stop, exit 2.
fn refused(pipeline: &str, overrides: &[&str]) -> String {
    let out = run_dry(pipeline, overrides);
    let errors = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{pipeline}: {errors}");
    assert!(out.stdout.is_empty(), "a plan was printed");
    errors
}

/// The sets the plan shows, as `name (from to to)`.
fn sets(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("sets, by publication date"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.trim().replace('`', ""))
        .collect()
}

/// `(pattern, window)` of every CDX line of stage `stage` in the plan.
fn listings(text: &str, stage: &str) -> Vec<(String, String)> {
    text.lines()
        .skip_while(|l| !l.starts_with(&format!("{stage} (")))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("CDX ")?;
            let (pattern, settings) = rest.split_once(": ")?;
            let window = settings
                .split("; ")
                .find_map(|s| s.strip_prefix("window "))?;
            Some((pattern.to_string(), window.to_string()))
        })
        .collect()
}

/// The line of `prefetch`'s decisions.
fn decisions(text: &str) -> String {
    text.lines()
        .find(|l| l.trim_start().starts_with("before fetching:"))
        .unwrap_or_else(|| panic!("no decisions in:\n{text}"))
        .to_string()
}

const BBC_PATTERNS: [&str; 4] = [
    "bbc.co.uk/news/*",
    "bbc.com/news/*",
    "bbc.co.uk/sport/*",
    "bbc.com/sport/*",
];

#[test]
fn temposum_bbc_moves_every_window_with_two_overrides() {
    let text = dry_run(
        "temposum-bbc.toml",
        &[
            "pipeline.cutoff=2023-12-31",
            "pipeline.sets.future.to=2024-12-31",
        ],
    );
    assert_eq!(
        sets(&text),
        [
            "in_distribution (2010-01-01 to 2017-12-31)",
            "future (2024-01-01 to 2024-12-31)"
        ]
    );
    let mut expected = Vec::new();
    for window in ["2010-01-01 to 2017-12-31", "2024-01-01 to 2024-12-31"] {
        for p in BBC_PATTERNS {
            expected.push((p.to_string(), window.to_string()));
        }
    }
    assert_eq!(listings(&text, "captures"), expected);
    let d = decisions(&text);
    assert!(
        d.contains("`future` (2024-01-01 to 2024-12-31)") && d.contains("training lists"),
        "{d}"
    );
    // The facts follow the cutoff too.
    assert!(text.contains("cutoff 2023-12-31"), "{text}");

    // Only the cutoff moved, past the end of the future set: refused, with the way out.
    let refused = refused("temposum-bbc.toml", &["pipeline.cutoff=2023-12-31"]);
    assert!(
        refused.contains(
            "pipeline.sets.future.to: set `future` ends on 2022-12-31, before its start 2024-01-01"
        ),
        "{refused}"
    );
    assert!(
        refused.contains("pipeline.cutoff: the cutoff 2023-12-31 is past the end of every set")
            && refused.contains("--set pipeline.sets.NAME.to="),
        "{refused}"
    );
}

#[test]
fn temposum_cnn_lists_the_years_of_its_sets_only() {
    let text = dry_run(
        "temposum-cnn.toml",
        &[
            "pipeline.cutoff=2023-12-31",
            "pipeline.sets.future.to=2024-12-31",
        ],
    );
    assert_eq!(
        sets(&text),
        [
            "in_distribution (2012-01-01 to 2015-12-31)",
            "future (2024-01-01 to 2024-12-31)"
        ]
    );
    let listed = listings(&text, "captures");
    // Each host the Archive files CNN's stories under, for each year of a set.
    let years = |host: &str| {
        (2012..=2015)
            .map(|y| (y, "2012-01-01 to 2015-12-31"))
            .map(move |(y, w)| (format!("{host}/{y}/*"), w.to_string()))
            .collect::<Vec<_>>()
    };
    let future = |host: &str| {
        (
            format!("{host}/2024/*"),
            "2024-01-01 to 2024-12-31".to_string(),
        )
    };
    let hosts = ["cnn.com", "edition.cnn.com", "us.cnn.com"];
    let expected: Vec<(String, String)> = hosts
        .iter()
        .flat_map(|h| years(h))
        .chain(hosts.iter().map(|h| future(h)))
        .collect();
    assert_eq!(listed, expected);
    assert!(
        decisions(&text).contains("`in_distribution` (2012-01-01 to 2015-12-31)"),
        "{text}"
    );
}

#[test]
fn future_2024_follows_the_cutoff_at_both_ends_of_its_sets() {
    let text = dry_run("future-2024.toml", &["pipeline.cutoff=2024-06-30"]);
    assert_eq!(
        sets(&text),
        [
            "in_distribution (2022-01-01 to 2024-06-30)",
            "future (2024-07-01 to open)"
        ]
    );
    // The two sets touch: one listing window, from the first set's start on.
    let listed = listings(&text, "captures");
    let this_year = Utc::now().year();
    let mut expected = vec![
        (
            "bbc.co.uk/news/*".to_string(),
            "2022-01-01 to today".to_string(),
        ),
        (
            "bbc.com/news/*".to_string(),
            "2022-01-01 to today".to_string(),
        ),
        (
            "bbc.co.uk/sport/*".to_string(),
            "2022-01-01 to today".to_string(),
        ),
        (
            "bbc.com/sport/*".to_string(),
            "2022-01-01 to today".to_string(),
        ),
    ];
    expected.extend(
        (2022..=this_year).map(|y| (format!("cnn.com/{y}/*"), "2022-01-01 to today".to_string())),
    );
    assert_eq!(listed, expected);
    assert!(
        decisions(&text).contains("`future` (2024-07-01 to open)"),
        "{text}"
    );
}

#[test]
fn nightly_bbc_lists_the_year_before_the_cutoff_and_every_day_after_it() {
    // A new cutoff moves the in-distribution year with it in one more override.
    let text = dry_run(
        "nightly-bbc.toml",
        &[
            "pipeline.cutoff=2023-12-31",
            "pipeline.sets.in_distribution.from=2023-01-01",
        ],
    );
    assert_eq!(
        sets(&text),
        [
            "in_distribution (2023-01-01 to 2023-12-31)",
            "future (2024-01-01 to open)"
        ]
    );
    assert_eq!(
        listings(&text, "captures"),
        [
            (
                "bbc.co.uk/news/*".to_string(),
                "2023-01-01 to today".to_string()
            ),
            (
                "bbc.com/news/*".to_string(),
                "2023-01-01 to today".to_string()
            ),
            (
                "bbc.co.uk/sport/*".to_string(),
                "2023-01-01 to today".to_string()
            ),
            (
                "bbc.com/sport/*".to_string(),
                "2023-01-01 to today".to_string()
            ),
        ]
    );
    assert!(decisions(&text).contains("decides for articles"), "{text}");
}

#[test]
fn the_demo_moves_its_future_set_with_the_cutoff() {
    // The demo's future set starts on a day of its own: one override moves it.
    let text = dry_run("demo.toml", &["pipeline.sets.future.from=2021-01-01"]);
    assert_eq!(
        sets(&text),
        [
            "in_distribution (2010-01-01 to 2017-12-31)",
            "future (2021-01-01 to open)"
        ]
    );
}
