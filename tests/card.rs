//! The dataset card (`README.md` of an output folder), through the real binary:
//! the demo's card declares the configs over its Parquet files with the row counts
//! the files hold, `tempora card` rewrites the same bytes, and every bad folder is
//! refused with the file and the reason, writing nothing.

mod common;

use std::path::Path;
use std::process::Output;

use common::bin::{succeeded, tempora};
use common::demo::run_into;

fn run_demo(out: &Path) {
    run_into(out, &[]);
}

fn card(dir: &Path) -> Output {
    tempora(&["card", dir.to_str().unwrap()])
}

fn rows(path: &Path) -> u64 {
    tempora_sink::parquet::read_footer(std::fs::File::open(path).unwrap())
        .unwrap()
        .rows
}

/// The `split:`/`path:` pairs and `name:`/`num_examples:` pairs of the front matter.
fn front_matter(readme: &str) -> &str {
    let rest = readme.strip_prefix("---\n").expect("front matter first");
    &rest[..rest.find("\n---\n").expect("front matter closed")]
}

#[test]
fn every_run_writes_a_card_whose_configs_and_sizes_are_the_files() {
    let out = tempfile::tempdir().unwrap();
    run_demo(out.path());
    let readme = std::fs::read_to_string(out.path().join("README.md")).unwrap();
    let yaml = front_matter(&readme);
    assert!(
        yaml.contains("- config_name: sets\n  default: true\n"),
        "{yaml}"
    );
    for config in ["pairs", "novelty", "facts"] {
        assert!(
            yaml.contains(&format!("- config_name: {config}\n  data_files:")),
            "{config}"
        );
    }
    // Each split's num_examples is its file's row count, read from the file.
    for (split, file) in [
        ("future", "future.parquet"),
        ("in_distribution", "in_distribution.parquet"),
        ("test", "pairs.parquet"),
        ("train", "facts.parquet"),
        ("future_T_nov", "novelty/future.T_nov.parquet"),
    ] {
        let path = out.path().join(file);
        let declared = format!(
            "  - name: {split}\n    num_bytes: {}\n    num_examples: {}\n",
            std::fs::metadata(&path).unwrap().len(),
            rows(&path)
        );
        assert!(yaml.contains(&declared), "{declared} not in\n{yaml}");
        assert!(yaml.contains(&format!("  - split: {split}\n    path:\n    - {file}\n")));
    }
    assert!(yaml.contains("    dtype: \"timestamp[us, tz=UTC]\"\n"));
    // The body: release, provenance, tables, fields, citations.
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("run.json")).unwrap())
            .unwrap();
    assert!(readme.contains(&format!("Release `{}`", run["run"].as_str().unwrap())));
    for needle in [
        "Knowledge cutoff**: `2019-12-31`",
        "pipelines/demo/wikidata.json.gz",
        "pipelines/demo/xsum-split.json",
        "pipelines/demo/train-summaries.jsonl",
        "### Articles per source, set and year",
        "### `pair` (configs pairs)",
        "cheang-etal-2023-temposum",
        "narayan-etal-2018-dont",
        "choubey-etal-2023-lexical",
    ] {
        assert!(readme.contains(needle), "{needle}");
    }

    // The card says which files hold the publishers' text: the sets, the pairs;
    // not the manifest; and, in the release, the run's rejected records.
    let text = readme
        .lines()
        .find(|l| l.starts_with("This folder holds the publishers' text"))
        .unwrap_or_else(|| panic!("no statement of the text in\n{readme}"));
    for file in [
        "`future.parquet`",
        "`future.jsonl`",
        "`in_distribution.parquet`",
        "`novelty/future.T_nov.parquet`",
        "`pairs.parquet`",
    ] {
        assert!(text.contains(file), "{file} not in {text}");
    }
    assert!(!text.contains("rejected.jsonl"), "{text}");
    assert!(
        readme.contains(
            "The records of what the runs rejected, `rejected.jsonl`, hold the publishers' \
             text too"
        ),
        "{readme}"
    );
    assert!(text.contains("hold none of it, and the sets are rebuilt from them (below)"));
    assert!(text.ends_with(
        "`tempora publish PATH --to DIR` copies them, with the facts and a card of their own, \
         to a folder `DIR` that holds no text, to share where these files may not be."
    ));
    assert!(!text.contains("`manifest.jsonl`,") && !text.contains("`facts.parquet`"));
    assert!(!readme.contains("not redistributed"), "{readme}");

    // `tempora card` rewrites the same card from the same folder.
    std::fs::remove_file(out.path().join("README.md")).unwrap();
    succeeded(&card(out.path()));
    assert_eq!(
        std::fs::read_to_string(out.path().join("README.md")).unwrap(),
        readme
    );
}

/// A set whose bounds name the cutoff is shown by the days the run used: the
/// demo with `future` from `after_cutoff` under a cutoff of 2020-12-31.
#[test]
fn the_card_shows_the_days_the_run_used() {
    let out = tempfile::tempdir().unwrap();
    run_into(
        out.path(),
        &[
            "--set",
            "pipeline.cutoff=2020-12-31",
            "--set",
            "pipeline.sets.future={from=\"after_cutoff\"}",
        ],
    );
    let readme = std::fs::read_to_string(out.path().join("README.md")).unwrap();
    assert!(
        readme.contains("| future | 2021-01-01 | open | 2 |\n"),
        "{readme}"
    );
    assert!(!readme.contains("after_cutoff"), "{readme}");
}

/// Runs `tempora card` on a broken copy of the demo's output and checks the error
/// names `file` and says `why`, and that no README.md was written.
fn refused(out: &Path, file: &str, why: &str) {
    let readme = out.join("README.md");
    let before = std::fs::read(&readme).ok();
    let o = card(out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "accepted; expected {why}");
    assert!(stderr.contains(file) && stderr.contains(why), "{stderr}");
    assert_eq!(
        std::fs::read(&readme).ok(),
        before,
        "the card changed on {why}"
    );
}

#[test]
fn a_folder_that_is_not_a_tempora_output_or_disagrees_with_run_json_is_refused() {
    let empty = tempfile::tempdir().unwrap();
    refused(empty.path(), "run.json", "not a Tempora output: missing");

    let out = tempfile::tempdir().unwrap();
    run_demo(out.path());
    let dir = out.path();
    std::fs::remove_file(dir.join("README.md")).unwrap();
    let copy = |from: &str, to: &str| std::fs::copy(dir.join(from), dir.join(to)).unwrap();
    let put_back = tempfile::tempdir().unwrap();
    let keep = |name: &str| std::fs::copy(dir.join(name), put_back.path().join(name)).unwrap();
    let restore = |name: &str| std::fs::copy(put_back.path().join(name), dir.join(name)).unwrap();
    for name in ["run.json", "in_distribution.parquet", "pairs.parquet"] {
        keep(name);
    }

    // Rows that differ from what run.json says was written.
    copy("future.parquet", "in_distribution.parquet");
    refused(
        dir,
        "in_distribution.parquet",
        "holds 2 rows, but run.json says stage `write_parquet` wrote 1",
    );
    restore("in_distribution.parquet");

    // A file run.json names that is gone.
    std::fs::remove_file(dir.join("pairs.parquet")).unwrap();
    refused(dir, "pairs.parquet", "it is missing");
    restore("pairs.parquet");

    // A Parquet file no sink writes.
    std::fs::create_dir(dir.join("extra")).unwrap();
    copy("pairs.parquet", "extra/other.parquet");
    refused(
        dir,
        "extra/other.parquet",
        "no `parquet` sink of run.json writes to this path",
    );
    std::fs::remove_dir_all(dir.join("extra")).unwrap();

    // A file that is not Parquet.
    std::fs::write(dir.join("pairs.parquet"), b"not parquet").unwrap();
    refused(dir, "pairs.parquet", "not a Parquet file");
    restore("pairs.parquet");

    // A Parquet file of other columns (a novelty partition where the pairs are).
    copy("future.parquet", "pairs.parquet");
    refused(dir, "pairs.parquet", "disagrees with run.json");
    restore("pairs.parquet");

    // A README.md someone else wrote is not replaced.
    std::fs::write(dir.join("README.md"), "# my notes\n").unwrap();
    refused(dir, "README.md", "did not write");
    std::fs::remove_file(dir.join("README.md")).unwrap();

    // run.json: not JSON, not a run's record, a failed run.
    let run = std::fs::read_to_string(dir.join("run.json")).unwrap();
    std::fs::write(dir.join("run.json"), "{").unwrap();
    refused(dir, "run.json", "not JSON");
    std::fs::write(dir.join("run.json"), "{\"pipeline\": \"x\"}").unwrap();
    refused(dir, "run.json", "not a run's record");
    std::fs::write(
        dir.join("run.json"),
        run.replace("\"status\": \"completed\"", "\"status\": \"failed\""),
    )
    .unwrap();
    refused(dir, "run.json", "status is `failed`");
    restore("run.json");

    // Put together again, the folder gets its card.
    assert!(card(dir).status.success());
    assert!(dir.join("README.md").exists());
}
