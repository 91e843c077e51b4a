//! The index card of a collection of monthly releases, through the real binary:
//! the demo made as monthly releases (one withheld whole and revealed by the
//! next, a correction, a month with no article, one published without the
//! publishers' text), then `tempora card OUT`: one config per release, the
//! newest the default, a table of every release newest first, the same bytes
//! twice; and every folder that is not a collection's is refused, naming it,
//! writing nothing.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::bin::{succeeded, tempora};
use common::demo::run_into;

/// The demo as the release `month` of the collection `out`, with `extra` `--set`s.
fn release(out: &Path, month: &str, extra: &[&str]) {
    let set_month = format!("pipeline.release.month=\"{month}\"");
    let mut args = vec!["--set", &set_month];
    for e in extra {
        args.extend(["--set", e]);
    }
    run_into(out, &args);
}

/// A collection: 2026-10 held back whole (revealed when 2026-11 is made),
/// 2026-11 half held back, its correction 2026-11.v2, 2026-12 with no article,
/// and 2026-09 published from another folder without the publishers' text.
fn collection(root: &Path) -> std::path::PathBuf {
    let out = root.join("releases");
    let key = root.join("release.key");
    std::fs::write(&key, [7u8; 32]).unwrap();
    let key = format!("pipeline.release.key=\"{}\"", key.display());
    release(&out, "2026-10", &["pipeline.release.withhold=1.0", &key]);
    release(&out, "2026-11", &["pipeline.release.withhold=0.5", &key]);
    release(&out, "2026-11", &["pipeline.release.version=2"]);
    release(
        &out,
        "2026-12",
        &[
            "pipeline.sets.in_distribution={from=2001-01-01,to=2001-12-31}",
            "pipeline.sets.future={from=2030-01-01}",
        ],
    );
    let full = root.join("full");
    release(&full, "2026-09", &[]);
    let published = out.join("2026-09");
    succeeded(&tempora(&[
        "publish",
        full.join("2026-09").to_str().unwrap(),
        "--to",
        published.to_str().unwrap(),
    ]));
    out
}

fn card(dir: &Path) -> Output {
    tempora(&["card", dir.to_str().unwrap()])
}

fn front_matter(readme: &str) -> &str {
    let rest = readme.strip_prefix("---\n").expect("front matter first");
    &rest[..rest.find("\n---\n").expect("front matter closed")]
}

/// The rows of the card's table of releases.
fn table(readme: &str) -> Vec<&str> {
    readme
        .lines()
        .skip_while(|l| !l.starts_with("| release |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect()
}

fn rows(path: &Path) -> u64 {
    tempora_sink::parquet::read_footer(std::fs::File::open(path).unwrap())
        .unwrap()
        .rows
}

#[test]
fn a_collection_is_one_config_per_release_the_newest_the_default() {
    let root = tempfile::tempdir().unwrap();
    let out = collection(root.path());
    let printed = succeeded(&card(&out));
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    let yaml = front_matter(&readme);
    // One config per release with rows, newest first, the newest the default.
    let names: Vec<&str> = yaml
        .lines()
        .filter_map(|l| l.strip_prefix("- config_name: "))
        .collect();
    let expected = ["2026-11.v2", "2026-11", "2026-10", "2026-09"].map(|n| format!("\"{n}\""));
    assert_eq!(names[..4], expected, "{yaml}");
    assert!(yaml.contains("- config_name: \"2026-11.v2\"\n  default: true\n"));
    assert_eq!(yaml.matches("default: true").count(), 1);
    // A release's splits are its own sets, under its folder.
    let future = out.join("2026-11.v2/future.parquet");
    assert!(yaml.contains("  - split: future\n    path:\n    - \"2026-11.v2/future.parquet\"\n"));
    let declared = format!(
        "  - name: future\n    num_bytes: {}\n    num_examples: {}\n",
        std::fs::metadata(&future).unwrap().len(),
        rows(&future)
    );
    assert!(yaml.contains(&declared), "{declared} not in\n{yaml}");
    // 2026-10 was held back whole and revealed when 2026-11 was made: its
    // config is the withheld files, its empty published splits left out.
    let reveal = out.join("reveals/2026-10.json");
    assert!(reveal.is_file(), "the run side records the reveal");
    let withheld = out.join("2026-10/withheld/future.parquet");
    assert!(rows(&withheld) > 0);
    assert!(yaml.contains(
        "  - split: future_withheld\n    path:\n    - \"2026-10/withheld/future.parquet\"\n"
    ));
    // 2026-11's half is not revealed: no withheld split.
    assert!(!yaml.contains("2026-11/withheld/"), "{yaml}");
    // The published 2026-09 holds no text: its config is the manifest.
    assert!(
        yaml.contains("    - \"2026-09/manifest.parquet\"\n"),
        "{yaml}"
    );
    // The empty 2026-12 has no config: datasets loads no empty split.
    assert!(!yaml.contains("\"2026-12\""), "{yaml}");
    assert!(
        printed.contains("2026-12: no row to load (no config): no article, or all held back"),
        "{printed}"
    );

    let sha = tempora_sink::release::sha256_file(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/demo/wikidata.json.gz"),
    )
    .unwrap();
    let table = table(&readme);
    let first_cells: Vec<&str> = table
        .iter()
        .map(|row| row.split(" | ").next().unwrap())
        .collect();
    assert_eq!(
        first_cells,
        [
            "| `2026-12`",
            "| `2026-11.v2`",
            "| `2026-11`",
            "| `2026-10`",
            "| `2026-09`"
        ],
        "newest first:\n{readme}"
    );
    for row in &table {
        assert!(
            row.contains(&format!(
                "dump `pipelines/demo/wikidata.json.gz`, SHA-256 `{sha}`"
            )),
            "{row}"
        );
    }
    assert!(table[0].contains("| no article | none |"), "{}", table[0]);
    assert!(
        table[1].contains("| 2, corrects `2026-11` |"),
        "{}",
        table[1]
    );
    assert!(
        table[2].contains("| 50%, not yet revealed |"),
        "{}",
        table[2]
    );
    assert!(table[3].contains("| 100%, revealed on "), "{}", table[3]);
    assert!(table[3].contains("future 0 (+2 withheld)"), "{}", table[3]);
    assert!(table[1].ends_with("| yes |"), "{}", table[1]);
    // The empty month's folder holds text only in the run's rejected records.
    assert!(
        table[0].ends_with("| `rejected.jsonl` alone |"),
        "{}",
        table[0]
    );
    assert!(table[4].ends_with("| no |"), "{}", table[4]);
    // Made: the run day its release.json records.
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("2026-11.v2/release.json")).unwrap())
            .unwrap();
    let made = record["run_day"].as_str().unwrap();
    assert!(
        table[1].contains(&format!("| 2026-11 | {made} | 2, corrects")),
        "{}",
        table[1]
    );
    for needle in [
        "datasets.load_dataset(\"PATH\", \"2026-09\")",
        "A release with no row to load has no config (`datasets` loads no empty split): it \
         has no article, or holds every one back until it is revealed (see the table): `2026-12`.",
        "tempora rebuild 2026-11.v2/manifest.jsonl --out rebuilt/2026-11.v2",
        "A correction is a new release of the same month",
    ] {
        assert!(readme.contains(needle), "{needle} not in\n{readme}");
    }

    // Same folders, same bytes; and the release folders are untouched.
    let release_card = std::fs::read(out.join("2026-11/README.md")).unwrap();
    succeeded(&card(&out));
    assert_eq!(
        std::fs::read_to_string(out.join("README.md")).unwrap(),
        readme
    );
    assert_eq!(
        std::fs::read(out.join("2026-11/README.md")).unwrap(),
        release_card
    );
}

/// `tempora card` on `out` fails naming `names` and leaves README.md as it was.
fn refused(out: &Path, names: &str) -> String {
    let before = std::fs::read(out.join("README.md")).ok();
    let o = card(out);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "not refused: {names}");
    assert!(stderr.contains(names), "{names} not in {stderr}");
    assert_eq!(std::fs::read(out.join("README.md")).ok(), before);
    stderr
}

/// [`refused`] while `file` of `out` holds `bytes`; then `file` as it was (gone
/// if it was not there).
fn refused_holding(out: &Path, file: &str, bytes: &[u8], names: &str) {
    let path = out.join(file);
    let before = std::fs::read(&path).ok();
    std::fs::write(&path, bytes).unwrap();
    refused(out, names);
    match before {
        Some(before) => std::fs::write(&path, before).unwrap(),
        None => std::fs::remove_file(&path).unwrap(),
    }
}

#[test]
fn what_is_no_release_of_the_collection_is_refused_naming_it() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("releases");
    let key = root.path().join("release.key");
    std::fs::write(&key, [9u8; 32]).unwrap();
    let key = format!("pipeline.release.key=\"{}\"", key.display());
    release(&out, "2026-10", &["pipeline.release.withhold=1.0", &key]);
    release(&out, "2026-11", &["pipeline.release.withhold=0.5", &key]);
    succeeded(&card(&out));
    let copy = |from: &str, to: &str| {
        let o = Command::new("cp")
            .args([
                "-r",
                out.join(from).to_str().unwrap(),
                out.join(to).to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(o.status.success());
    };

    // Other folders are no part of it; one named like a release is.
    std::fs::create_dir_all(out.join("notes")).unwrap();
    succeeded(&card(&out));
    std::fs::create_dir_all(out.join("2026-13")).unwrap();
    refused(
        &out,
        "2026-13: named like a release, but is none: `13` is not a month",
    );
    std::fs::remove_dir(out.join("2026-13")).unwrap();

    // A folder named like a release without its release.json (a run that did
    // not publish), or without run.json.
    copy("2026-11", "2026-08");
    std::fs::remove_file(out.join("2026-08/release.json")).unwrap();
    refused(
        &out,
        "2026-08: named like a release, but holds no release.json",
    );
    std::fs::write(
        out.join("2026-08/release.json"),
        r#"{ "release": "2026-08", "month": "2026-08", "version": 1 }"#,
    )
    .unwrap();
    std::fs::remove_file(out.join("2026-08/run.json")).unwrap();
    refused(&out, "2026-08/run.json: not a Tempora output: missing");
    std::fs::remove_dir_all(out.join("2026-08")).unwrap();

    // A release in the folder of another name.
    copy("2026-11", "2026-07");
    refused(
        &out,
        "2026-07/release.json: its `release` is \"2026-11\", but its folder is `2026-07`",
    );
    std::fs::remove_dir_all(out.join("2026-07")).unwrap();

    // A reveal whose key is not the release's, and one of no release.
    let good = std::fs::read_to_string(out.join("reveals/2026-10.json")).unwrap();
    let mut bad: serde_json::Value = serde_json::from_str(&good).unwrap();
    bad["key"] = "00".repeat(32).into();
    refused_holding(
        &out,
        "reveals/2026-10.json",
        bad.to_string().as_bytes(),
        "reveals/2026-10.json: its key is not the one",
    );
    refused_holding(
        &out,
        "reveals/2026-05.json",
        good.replace("2026-10", "2026-05").as_bytes(),
        "it reveals `2026-05`, which this collection does not hold",
    );
    // A revealed file changed after its reveal (another withheld file's bytes).
    let other = std::fs::read(out.join("2026-10/withheld/in_distribution.parquet")).unwrap();
    refused_holding(
        &out,
        "2026-10/withheld/future.parquet",
        &other,
        "2026-10/withheld/future.parquet: its SHA-256 is not the one",
    );
    succeeded(&card(&out));

    // A README.md of someone else's.
    std::fs::write(out.join("README.md"), "# Our benchmark\n").unwrap();
    refused(
        &out,
        "README.md: not a Tempora output: a README.md that `tempora card` did not write",
    );
}
