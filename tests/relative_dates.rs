//! Dates relative to the run, end to end: the demo with its cutoff and the
//! start of its future set written as `run_month - 1 day` and `run_month`, run
//! on a given day (`--as-of`), resolves them once before planning, records the
//! run day and what each became in run.json, manifest.inputs.json and the
//! card, publishes what the same plain dates publish, the same bytes on the
//! same day; validate refuses an expression it cannot read, naming its key,
//! and the dry run prints the dates it would use.

mod common;

use std::path::Path;

use common::bin::{succeeded, tempora};
use common::demo::demo_with;
use serde_json::{json, Value};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/demo-golden");

/// The overrides that write the demo's own dates (cutoff 2019-12-31, future from
/// 2020-01-01) relative to a run in January 2020.
const RELATIVE: [&str; 4] = [
    "--set",
    "pipeline.cutoff=\"run_month - 1 day\"",
    "--set",
    "pipeline.sets.future.from=\"run_month\"",
];

/// The stdout of `tempora ARGS` with RELATIVE's overrides, which must succeed.
fn succeeds_relative(args: &[&str]) -> String {
    let mut args = args.to_vec();
    args.extend(RELATIVE);
    succeeded(&tempora(&args))
}

/// Runs the demo in `dir` with the relative dates on run day `day`; its output folder.
fn run_demo(dir: &Path, day: &str) -> std::path::PathBuf {
    let file = demo_with(dir, "");
    succeeds_relative(&["run", &file, "--progress", "off", "--as-of", day]);
    dir.join("out")
}

fn json_of(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn relative_dates_are_resolved_once_recorded_everywhere_and_publish_the_same_bytes() {
    let first = tempfile::tempdir().unwrap();
    let out = run_demo(first.path(), "2020-01-31");
    let dates = json!({ "run_day": "2020-01-31", "relative": [
        { "key": "pipeline.cutoff", "written": "run_month - 1 day", "value": "2019-12-31" },
        { "key": "pipeline.sets.future.from", "written": "run_month", "value": "2020-01-01" },
    ] });

    let run = json_of(&out.join("run.json"));
    assert_eq!(run["dates"], dates);
    // The resolved pipeline holds plain dates: what every reader saw.
    assert_eq!(run["config"]["pipeline"]["cutoff"], "2019-12-31");
    assert_eq!(
        run["config"]["pipeline"]["sets"]["future"]["from"],
        "2020-01-01"
    );
    // The --set overrides as given, and as the resolved pipeline holds them.
    assert_eq!(run["overrides"][0]["value"], "2019-12-31");

    let pins = json_of(&out.join("manifest.inputs.json"));
    assert_eq!(pins["dates"], dates);
    assert_eq!(pins["config"]["pipeline"]["cutoff"], "2019-12-31");

    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        card.contains(
            "- **Dates relative to the run** (run day 2020-01-31): `pipeline.cutoff` = \
             `run_month - 1 day` -> 2019-12-31; `pipeline.sets.future.from` = `run_month` -> \
             2020-01-01.\n"
        ),
        "{card}"
    );
    assert!(
        card.contains("- **Knowledge cutoff**: `2019-12-31`"),
        "{card}"
    );

    // The same dates written plainly publish these sets.
    for name in ["future.jsonl", "in_distribution.jsonl", "facts.jsonl"] {
        let got = std::fs::read_to_string(out.join(name)).unwrap();
        let want = std::fs::read_to_string(Path::new(GOLDEN).join(name)).unwrap();
        assert!(got == want, "{name} differs from the golden file:\n{got}");
    }

    // Another run on the same day publishes the same bytes.
    let second = tempfile::tempdir().unwrap();
    let again = run_demo(second.path(), "2020-01-31");
    for name in [
        "future.jsonl",
        "future.parquet",
        "in_distribution.parquet",
        "manifest.jsonl",
    ] {
        assert_eq!(
            std::fs::read(out.join(name)).unwrap(),
            std::fs::read(again.join(name)).unwrap(),
            "{name} differs between two runs on the same day"
        );
    }
    assert_eq!(json_of(&again.join("run.json"))["dates"], dates);
}

#[test]
fn another_day_resolves_other_dates_and_validate_says_them() {
    let text = succeeds_relative(&["validate", "pipelines/demo.toml", "--as-of", "2026-03-15"]);
    assert!(text.contains("cutoff 2026-02-28"), "{text}");
    assert!(
        text.contains(
            "dates relative to the run: run day 2026-03-15; `pipeline.cutoff` = \
             `run_month - 1 day` -> 2026-02-28; `pipeline.sets.future.from` = `run_month` -> 2026-03-01"
        ),
        "{text}"
    );
}

#[test]
fn validate_refuses_an_expression_it_cannot_read_with_its_key_path() {
    let o = tempora(&[
        "validate",
        "pipelines/demo.toml",
        "--set",
        "pipeline.sets.future.from=\"run_month - x\"",
        "--set",
        "pipeline.cutoff=\"release_end\"",
    ]);
    let errors = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{errors}");
    assert!(
        errors.contains(
            "pipeline.sets.future.from: `run_month - x` is not a date (`x` after `-`, not a \
             number): write YYYY-MM-DD, `cutoff`, `after_cutoff`, or an anchor (`run`, \
             `run_month`, `release_start`, `release_end`) followed by any number of `+ N` or \
             `- N` days, weeks, months or years"
        ),
        "{errors}"
    );
    assert!(
        errors.contains(
            "pipeline.cutoff: `release_end`: it counts from `[pipeline.release] month`, which the \
             file does not set"
        ),
        "{errors}"
    );
    // Each once: the readers of the keys do not say it again.
    assert!(
        errors.starts_with("error: pipelines/demo.toml: 2 errors"),
        "{errors}"
    );
}

#[test]
fn the_dry_run_prints_the_run_day_and_each_date_with_what_was_written() {
    let dry_run = [
        "run",
        "pipelines/demo.toml",
        "--dry-run",
        "--as-of",
        "2026-03-15",
    ];
    let text = succeeds_relative(&dry_run);
    assert!(text.contains(": cutoff 2026-02-28, output in"), "{text}");
    assert!(
        text.contains(
            "dates relative to the run, resolved on run day 2026-03-15 (UTC):\n  \
             pipeline.cutoff = \"run_month - 1 day\" -> 2026-02-28\n  \
             pipeline.sets.future.from = \"run_month\" -> 2026-03-01\n"
        ),
        "{text}"
    );
    assert!(text.contains("`future` (2026-03-01 to open)"), "{text}");

    // Plain dates: the run day, and that nothing counts from it.
    let o = tempora(&dry_run);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("run day 2026-03-15 (UTC); no date is written relative to it"),
        "{text}"
    );
}
