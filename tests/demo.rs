//! The bundled offline demo, end to end through the real binary: its outputs match
//! the golden files, Parquet holds the same records as JSONL, and a second run
//! gives the same bytes. Run with `UPDATE_GOLDEN=1` to rewrite the golden files
//! (then read the diff: it is the review).

mod common;

use std::path::Path;
use std::process::Command;

use common::demo::run_into;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/demo-golden");
const OUTPUTS: [&str; 4] = [
    "future.jsonl",
    "in_distribution.jsonl",
    "facts.jsonl",
    "pairs.jsonl",
];

fn run_demo(out: &Path) -> serde_json::Value {
    let summary = run_into(out, &[]);
    assert!(summary.contains("status: Completed"), "{summary}");
    // Counts in words: one record, many records.
    assert!(
        summary.contains("in_distribution.jsonl (1 record),"),
        "{summary}"
    );
    assert!(summary.contains("facts.jsonl (14 records)"), "{summary}");
    serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap()
}

#[test]
fn demo_outputs_match_the_golden_files_and_are_reproducible() {
    let first = tempfile::tempdir().unwrap();
    let run = run_demo(first.path());
    assert_eq!(run["status"], "completed");

    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::create_dir_all(GOLDEN).unwrap();
        for name in OUTPUTS {
            std::fs::copy(first.path().join(name), Path::new(GOLDEN).join(name)).unwrap();
        }
        return;
    }
    for name in OUTPUTS {
        let got = std::fs::read_to_string(first.path().join(name)).unwrap();
        let want = std::fs::read_to_string(Path::new(GOLDEN).join(name)).unwrap();
        assert!(
            got == want,
            "{name} differs from tests/fixtures/demo-golden/{name}:\n{got}"
        );
    }

    let second = tempfile::tempdir().unwrap();
    run_demo(second.path());
    // The order of every output is a total order on the records, whatever order
    // the stages' work interleaved in: Parquet and the rejections too.
    let more = [
        "future.parquet",
        "in_distribution.parquet",
        "rejected.jsonl",
    ];
    for name in OUTPUTS.into_iter().chain(more) {
        assert_eq!(
            std::fs::read(first.path().join(name)).unwrap(),
            std::fs::read(second.path().join(name)).unwrap(),
            "{name} differs between two runs of the same input"
        );
    }
}

#[test]
fn demo_parquet_holds_the_jsonl_records_and_every_record_is_accounted_for() {
    let out = tempfile::tempdir().unwrap();
    let run = run_demo(out.path());
    for split in ["future", "in_distribution"] {
        let file = std::fs::File::open(out.path().join(format!("{split}.parquet"))).unwrap();
        let parquet = tempora_sink::parquet::read_json_lines(file).unwrap();
        let from_parquet: Vec<serde_json::Value> = String::from_utf8(parquet)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let from_jsonl: Vec<serde_json::Value> =
            std::fs::read_to_string(out.path().join(format!("{split}.jsonl")))
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
        assert!(!from_jsonl.is_empty(), "the demo keeps {split} articles");
        let ids = |rows: &[serde_json::Value]| -> Vec<String> {
            rows.iter()
                .map(|r| r["id"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(ids(&from_parquet), ids(&from_jsonl));
        assert_eq!(from_parquet[0]["summary"], from_jsonl[0]["summary"]);
        assert_eq!(from_parquet[0]["published"], from_jsonl[0]["published"]);
    }

    // Nothing is dropped silently: every page is an article downstream or a rejection.
    let stages = run["stages"].as_array().unwrap();
    let stage = |name: &str| stages.iter().find(|s| s["name"] == name).unwrap();
    let pages = stage("pages")["records_out"].as_u64().unwrap();
    let rejected: u64 = ["articles", "unseen", "conflicts"]
        .iter()
        .map(|n| stage(n)["rejected"].as_u64().unwrap())
        .sum();
    // The split stage's output counts every port, `unassigned` included.
    let kept = stage("split")["records_out"].as_u64().unwrap();
    assert_eq!(kept + rejected, pages, "{run:#}");
    // Every pair comes from a future article, and the sink wrote every pair made.
    let future = std::fs::read_to_string(out.path().join("future.jsonl")).unwrap();
    let pairs = std::fs::read_to_string(out.path().join("pairs.jsonl")).unwrap();
    assert!(!pairs.is_empty(), "the demo's future articles give pairs");
    for line in pairs.lines() {
        let pair: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = pair["article_id"].as_str().unwrap();
        assert!(
            future.contains(&format!("\"id\":{}", serde_json::json!(id))),
            "{id}"
        );
        assert_eq!(pair["split"], "future");
    }
    assert_eq!(
        stage("pairs")["records_out"].as_u64().unwrap(),
        pairs.lines().count() as u64
    );
    // The novelty stage scores every kept article and tables each set's bins; the
    // partitions are files of their own.
    assert_eq!(stage("novelty")["records_out"].as_u64().unwrap(), kept);
    let bins = &stage("novelty")["metrics"]["bins"];
    let binned: u64 = ["future", "in_distribution"]
        .iter()
        .flat_map(|set| bins[set].as_array().unwrap())
        .map(|bin| bin["count"].as_u64().unwrap())
        .sum();
    assert_eq!(binned, kept, "{bins:#}");
    assert_eq!(bins["future"][0]["tag"], "T_nov");
    for partition in ["future.T_nov.jsonl", "future.T_sim.jsonl"] {
        let path = out.path().join("novelty").join(partition);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 1, "{partition}");
    }
    let lines = std::fs::read_to_string(out.path().join("rejected.jsonl")).unwrap();
    assert_eq!(
        lines.lines().count() as u64,
        run["rejected"].as_u64().unwrap()
    );
}

/// Every file of an output folder (its hidden files and `run.json` aside), by path.
fn published(out: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, files: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                walk(root, &path, files);
            } else if !name.starts_with('.') && name != "run.json" {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut files = std::collections::BTreeMap::new();
    walk(out, out, &mut files);
    files
}

/// `cmd` (the binary, or a shell that runs it: the binary is added as `$0`)
/// running the demo into `out` with `--set set`.
fn demo(cmd: &mut Command, out: &Path, set: &str) -> std::process::Output {
    if cmd.get_program() != env!("CARGO_BIN_EXE_tempora") {
        cmd.arg(env!("CARGO_BIN_EXE_tempora"));
    }
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "pipelines/demo.toml", "--progress", "off"])
        .args(["--set", set, "--set"])
        .arg(format!("pipeline.out=\"{}\"", out.display()))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[test]
fn a_rerun_that_cannot_write_every_file_publishes_none() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    run_demo(&out);
    let before = published(&out);
    // Another configuration (no future article left), run with a file-size limit
    // that lets the small files be written and not the larger ones: the run
    // fails, and not one file of the folder changes.
    let other = "pipeline.sets.future.to=2020-12-31";
    let script = "trap '' XFSZ; ulimit -f 16; exec \"$0\" \"$@\"";
    let o = demo(Command::new("sh").args(["-c", script]), &out, other);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("File too large"), "{text}");
    assert!(
        published(&out) == before,
        "a failed run changed the outputs"
    );
    let leftovers: Vec<String> = published(&out)
        .into_keys()
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // With room again, the same command publishes the new configuration's files,
    // all of them: those of a fresh run of it.
    let o = demo(
        &mut Command::new(env!("CARGO_BIN_EXE_tempora")),
        &out,
        other,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fresh = tempfile::tempdir().unwrap();
    let o = demo(
        &mut Command::new(env!("CARGO_BIN_EXE_tempora")),
        fresh.path(),
        other,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let strip_release = |mut files: std::collections::BTreeMap<String, Vec<u8>>| {
        files.remove("README.md");
        files
    };
    let (now, fresh) = (
        strip_release(published(&out)),
        strip_release(published(fresh.path())),
    );
    assert_eq!(
        now.keys().collect::<Vec<_>>(),
        fresh.keys().collect::<Vec<_>>()
    );
    assert!(
        now == fresh,
        "the rerun's outputs differ from a fresh run's"
    );
    // The new window holds no article: the old set's records are gone, and
    // the set is published empty.
    assert_eq!(
        now.get("future.jsonl").map(Vec::as_slice),
        Some(&b""[..]),
        "the future set is published empty"
    );
}
