//! A set with no article is published as empty, it never disappears: the demo
//! with a `future` window no article falls in still has `future.jsonl` and
//! `future.parquet` (no rows, the article schema) and `pairs.parquet` (no rows,
//! the pair schema); its card lists those files and says the set is empty, but
//! declares no split of them, since `datasets` cannot load a split with no rows
//! (`tests/python/check_empty.py` loads the folder); the run's summary says the
//! set is empty; the report and the scores take the empty set in their stride.
//! With a withheld part, an empty set is empty in both halves.

mod common;

use std::path::Path;

use common::bin::{succeeded, tempora};
use common::demo::run_into;
use common::said::said;
use tempora_records::RecordKind;

/// The demo into `out` with `future` from 2030 (no article), and `extra` `--set`s:
/// its stdout.
fn run_empty_future(out: &Path, extra: &[&str]) -> String {
    let future = ["--set", "pipeline.sets.future.from=2030-01-01"];
    run_into(out, &[&future[..], extra].concat())
}

/// The rows of a Parquet file, checked to have `kind`'s declared schema.
fn parquet_rows(path: &Path, kind: RecordKind) -> u64 {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let footer = tempora_sink::parquet::read_footer(file).unwrap();
    let schema = tempora_sink::schema::arrow_schema(kind);
    assert_eq!(
        footer.schema.fields(),
        schema.fields(),
        "{}",
        path.display()
    );
    footer.rows
}

#[test]
fn an_empty_set_has_its_files_and_its_sentence_but_no_split() {
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    let stdout = run_empty_future(out, &[]);

    assert_eq!(std::fs::read(out.join("future.jsonl")).unwrap(), b"");
    assert_eq!(std::fs::read(out.join("pairs.jsonl")).unwrap(), b"");
    assert_eq!(
        parquet_rows(&out.join("future.parquet"), RecordKind::Article),
        0
    );
    assert_eq!(
        parquet_rows(&out.join("pairs.parquet"), RecordKind::Pair),
        0
    );
    assert!(parquet_rows(&out.join("in_distribution.parquet"), RecordKind::Article) > 0);
    // A path with a field only records give (`{novelty}`) has no file to name.
    let novelty: Vec<String> = std::fs::read_dir(out.join("novelty"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        novelty.iter().all(|f| !f.starts_with("future")),
        "{novelty:?}"
    );

    // The run's summary: the files, the card's splits, and the empty set.
    for line in [
        "future.jsonl (0 records), future.parquet (0 records)",
        "pairs.jsonl (0 records), pairs.parquet (0 records)",
        "sets: in_distribution (1)\n",
        "future: empty, no article in its window (2030-01-01 to open)\n",
    ] {
        assert!(stdout.contains(line), "{line:?} not in\n{stdout}");
    }
    assert!(!stdout.contains("in_distribution: empty"), "{stdout}");
    assert!(
        !stdout.contains("pairs: "),
        "no config of no rows: {stdout}"
    );

    // The card: the files with no rows in its table and the sentence, but no
    // split of them (nor a config left with none: the pairs).
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    for needle in [
        "| sets | future (empty) | 0 | `future.parquet` |",
        "| pairs | test (empty) | 0 | `pairs.parquet` |",
        "`datasets` cannot load a split with no rows",
        "| future | 2030-01-01 | open | 0 |",
        "- `future`: no article in its window (2030-01-01 to open).",
    ] {
        assert!(readme.contains(needle), "{needle:?} not in\n{readme}");
    }
    let yaml = &readme[..readme[4..].find("\n---\n").unwrap()];
    for absent in [
        "- split: future\n",
        "- name: future\n",
        "config_name: pairs",
    ] {
        assert!(!yaml.contains(absent), "{absent:?} in\n{yaml}");
    }
    assert!(yaml.contains("  - split: in_distribution\n"), "{yaml}");

    // The report and the scores take the empty set.
    succeeded(&tempora(&["report", out.to_str().unwrap()]));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| future | `future.parquet` | 0 |"), "{md}");
    // A system's summary of the one article: nothing left out, so exit 0.
    let predictions = out.join("one.jsonl");
    std::fs::write(
        &predictions,
        "{\"id\": \"27123456\", \"summary\": \"Joe Biden visits Kiev.\"}\n",
    )
    .unwrap();
    let score = tempora(&[
        "score",
        out.to_str().unwrap(),
        "--predictions",
        predictions.to_str().unwrap(),
    ]);
    succeeded(&score);
    assert!(out.join("scores/summary.json").is_file());
}

/// No set with an article at all: still every file, and a report and scores.
#[test]
fn a_run_whose_every_set_is_empty_publishes_them_all_and_reports() {
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    let stdout = run_empty_future(
        out,
        &[
            "--set",
            "pipeline.sets.in_distribution={from=2000-01-01, to=2000-12-31}",
        ],
    );
    // No article at all: the facts are the one config, and the default.
    assert!(!stdout.contains("sets: "), "{stdout}");
    assert!(stdout.contains("facts: train (14)\n"), "{stdout}");
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        readme.contains("configs:\n- config_name: facts\n  default: true\n"),
        "{readme}"
    );
    for set in ["in_distribution", "future"] {
        assert_eq!(
            parquet_rows(&out.join(format!("{set}.parquet")), RecordKind::Article),
            0
        );
        assert!(
            stdout.contains(&format!("{set}: empty, no article in its window")),
            "{stdout}"
        );
    }
    assert_eq!(
        parquet_rows(&out.join("manifest.parquet"), RecordKind::Manifest),
        0
    );
    succeeded(&tempora(&["report", out.to_str().unwrap()]));
    // Every prediction names an article the sets do not hold: scored as such
    // (exit 23, published but items missing), not an error.
    let score = tempora(&[
        "score",
        out.to_str().unwrap(),
        "--predictions",
        "pipelines/demo/predictions/stale.jsonl",
    ]);
    assert_eq!(score.status.code(), Some(23), "{}", said(&score));
    assert!(
        said(&score).contains("with an id the set does not hold"),
        "{}",
        said(&score)
    );
    assert!(out.join("scores/summary.json").is_file());
}

/// With `[pipeline.release]` holding a share back, every file of a set has its
/// withheld twin: the empty set is empty in both halves, committed with 0 rows.
#[test]
fn with_a_withheld_part_an_empty_set_is_empty_in_both_halves() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("release.key");
    std::fs::write(&key, [7u8; 32]).unwrap();
    let out = dir.path().join("out");
    let release = format!(
        "pipeline.release={{withhold=0.5, key=\"{}\"}}",
        key.display()
    );
    run_empty_future(&out, &["--set", &release]);
    for file in ["future.parquet", "withheld/future.parquet"] {
        assert_eq!(
            parquet_rows(&out.join(file), RecordKind::Article),
            0,
            "{file}"
        );
    }
    for file in [
        "future.jsonl",
        "withheld/future.jsonl",
        "withheld/pairs.jsonl",
    ] {
        assert_eq!(std::fs::read(out.join(file)).unwrap(), b"", "{file}");
    }
    assert_eq!(
        parquet_rows(&out.join("withheld/pairs.parquet"), RecordKind::Pair),
        0
    );
    // Facts are of no set: they have no withheld twin.
    assert!(!out.join("withheld/facts.parquet").exists());
    let commitment: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("withheld.json")).unwrap()).unwrap();
    let committed = |path: &str| {
        commitment["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path)
            .map(|f| f["rows"].as_u64().unwrap())
    };
    assert_eq!(
        committed("withheld/future.parquet"),
        Some(0),
        "{commitment}"
    );
    assert_eq!(committed("withheld/future.jsonl"), Some(0), "{commitment}");
}
