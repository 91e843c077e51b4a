//! One preparation for every command that reads a pipeline file: the stages
//! `graph` draws, `run --dry-run` lists and `run.json` records are the same
//! (the manifest's stages the binary adds among them), and a broken
//! `[pipeline.release]` or `[pipeline.health]` is reported by each command, with
//! its key path and line.

mod common;

use common::said::said;
use std::path::Path;
use std::process::Output;

use common::bin::command;
use common::demo::{demo_with, run_into};
use common::temposum::{bbc, cnn, pipeline, Lab};
use tempora_testkit::MockWayback;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `tempora ARGS` in `dir` with the variables `env` (a lab's files) and the
/// contact the Archive asks for.
fn tempora(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    command(dir)
        .args(args)
        .envs(env.iter().copied())
        .env("TEMPORA_CONTACT", "tests@example.org")
        .output()
        .unwrap()
}

/// The stages a dot graph draws, in its order (each node's line).
fn drawn(dot: &str) -> Vec<String> {
    dot.lines()
        .filter(|l| l.contains("[shape="))
        .map(|l| l.trim().split('"').nth(1).unwrap().to_string())
        .collect()
}

/// The stages a dry run lists, in its order.
fn listed(dry: &str) -> Vec<String> {
    dry.lines()
        .skip_while(|l| !l.starts_with("stages, in the order they start"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
        .collect()
}

/// The stages a run's `run.json` records, in its order.
fn recorded(out: &Path) -> Vec<String> {
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    run["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

/// What `graph` draws and `--dry-run` lists of the file at `file` (run in `dir`,
/// with `args` after the file), checked equal and returned.
fn drawn_and_listed(dir: &Path, file: &str, args: &[&str], env: &[(&str, &Path)]) -> Vec<String> {
    let graph = tempora(dir, &[&["graph", file][..], args].concat(), env);
    assert_eq!(graph.status.code(), Some(0), "{file}: {}", said(&graph));
    let dry = tempora(dir, &[&["run", file, "--dry-run"][..], args].concat(), env);
    let drawn = drawn(&String::from_utf8_lossy(&graph.stdout));
    let listed = listed(&String::from_utf8_lossy(&dry.stdout));
    assert!(!drawn.is_empty(), "{file}: {}", said(&graph));
    assert_eq!(drawn, listed, "{file}: graph and --dry-run\n{}", said(&dry));
    drawn
}

/// What every command plans of the lab's pipeline run against `server`, and
/// what the run records.
fn planned_and_ran(lab: &Lab, server: &MockWayback) -> (Vec<String>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pipeline.toml"),
        pipeline(lab, &server.endpoint()),
    )
    .unwrap();
    let env: Vec<(&str, &Path)> = lab.env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    let planned = drawn_and_listed(dir.path(), "pipeline.toml", &[], &env);
    let run = tempora(
        dir.path(),
        &["run", "pipeline.toml", "--progress", "off"],
        &env,
    );
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    (planned, recorded(&dir.path().join("out")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graph_dry_run_and_run_json_name_the_same_stages_for_every_shipped_pipeline() {
    let root = Path::new(ROOT);
    // Every shipped file, drawn and listed alike (unset variables do not stop either).
    let shipped: Vec<String> = std::fs::read_dir(root.join("pipelines"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert!(shipped.len() >= 5, "{shipped:?}");
    for file in &shipped {
        let stages = drawn_and_listed(root, file, &[], &[]);
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let incremental = text.lines().any(|l| l.trim() == "incremental = true");
        assert_eq!(
            stages.iter().any(|s| s == "manifest"),
            !incremental,
            "{file}: the manifest's stages are added to every pipeline that publishes \
             sets and is not incremental: {stages:?}"
        );
    }

    // The demo runs offline.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let set = format!("pipeline.out={:?}", out.display().to_string());
    let planned = drawn_and_listed(root, "pipelines/demo.toml", &["--set", &set], &[]);
    run_into(&out, &[]);
    assert_eq!(planned, recorded(&out), "demo");

    // The TempoSum pipelines against the testkit's models.
    for lab in [bbc(), cnn()] {
        let server = MockWayback::start(lab.corpus.clone()).await.unwrap();
        let (planned, ran) = tokio::task::block_in_place(|| planned_and_ran(lab, &server));
        assert_eq!(planned, ran, "{}", lab.shipped);
        assert!(ran.iter().any(|s| s == "write_manifest"), "{ran:?}");
    }
}

/// The line of the file at `path` that starts with `start`.
fn line_of(path: &str, start: &str) -> usize {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .position(|l| l.starts_with(start))
        .unwrap()
        + 1
}

#[test]
fn a_broken_release_or_health_table_is_reported_by_every_command_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo_with(
        dir.path(),
        "[pipeline.health]\nruns = \"many\"\n[pipeline.release]\nwithhold = 2\nkey = \"release.key\"\n",
    );
    let health = format!("line {}: pipeline.health.runs", line_of(&file, "runs ="));
    let release = format!(
        "line {}: pipeline.release.withhold",
        line_of(&file, "withhold =")
    );
    for args in [
        &["validate", &file][..],
        &["graph", &file],
        &["run", &file, "--dry-run"],
        &["run", &file, "--progress", "off"],
    ] {
        let out = tempora(dir.path(), args, &[]);
        let told = said(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {told}");
        assert!(told.contains(&health), "{args:?}: {told}");
        assert!(told.contains(&release), "{args:?}: {told}");
    }
    assert!(
        !dir.path().join("out/manifest.jsonl").exists(),
        "nothing ran"
    );
}

#[test]
fn a_missing_release_key_is_among_the_problems_a_dry_run_states_and_stops_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo_with(
        dir.path(),
        "[pipeline.release]\nwithhold = 0.2\nkey = \"no-such.key\"\n",
    );
    let dry = tempora(dir.path(), &["run", &file, "--dry-run"], &[]);
    let told = said(&dry);
    assert_eq!(dry.status.code(), Some(2), "{told}");
    // The plan is shown, with the problem after it.
    assert!(
        listed(&told).contains(&"write_manifest".to_string()),
        "{told}"
    );
    assert!(told.contains("pipeline.release.key"), "{told}");
    assert!(told.contains("no-such.key"), "{told}");
    for args in [
        &["validate", &file][..],
        &["run", &file, "--progress", "off"],
    ] {
        let out = tempora(dir.path(), args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", said(&out));
        assert!(
            said(&out).contains("pipeline.release.key"),
            "{}",
            said(&out)
        );
    }
    // With the key, the same file runs and holds part of each set back.
    std::fs::write(dir.path().join("no-such.key"), [9u8; 32]).unwrap();
    let run = tempora(dir.path(), &["run", &file, "--progress", "off"], &[]);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    assert!(dir.path().join("out/withheld.json").is_file());
}

/// A sink kind the release does not know (the engine's `test-count`, which
/// writes a file and cannot hold records back): a pipeline with
/// `[pipeline.release]` refuses to start, naming the stage; a `jsonl` sink in its
/// place takes the release.
#[test]
fn a_sink_kind_that_cannot_hold_records_back_refuses_a_release() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("release.key"), [7u8; 32]).unwrap();
    let write = |sink: &str| {
        let text = format!(
            "[pipeline]\ncutoff = 2019-12-31\nout = \"out\"\n\
             [pipeline.release]\nwithhold = 0.5\nkey = \"release.key\"\n\
             [stages.gen]\nkind = \"test-generate\"\ncount = 10\n\
             [stages.write]\n{sink}\ninputs = [\"gen\"]\npath = \"records.jsonl\"\n"
        );
        std::fs::write(dir.path().join("p.toml"), text).unwrap();
    };
    let run = |args: &[&str]| {
        command(dir.path())
            .args(args)
            .env("TEMPORA_TEST_KINDS", "1")
            .output()
            .unwrap()
    };
    write("kind = \"test-count\"");
    for args in [
        &["validate", "p.toml"][..],
        &["run", "p.toml", "--progress", "off"],
    ] {
        let out = run(args);
        let told = said(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {told}");
        assert!(
            told.contains(
                "stages.write.kind: kind `test-count` writes files but cannot hold records back"
            ),
            "{told}"
        );
    }
    assert!(!dir.path().join("out/records.jsonl").exists());
    write("kind = \"jsonl\"");
    let out = run(&["validate", "p.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuild_reports_a_broken_release_or_health_table_given_to_it_at_its_key() {
    let server = MockWayback::start(bbc().corpus.clone()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pipeline.toml"),
        pipeline(bbc(), &server.endpoint()),
    )
    .unwrap();
    let env: Vec<(&str, &Path)> = bbc().env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    let told = tokio::task::block_in_place(|| {
        let run = tempora(
            dir.path(),
            &["run", "pipeline.toml", "--progress", "off"],
            &env,
        );
        assert_eq!(run.status.code(), Some(0), "{}", said(&run));
        let rebuild = tempora(
            dir.path(),
            &[
                "rebuild",
                "out/manifest.jsonl",
                "--out",
                "rebuilt",
                "--progress",
                "off",
                "--set",
                "pipeline.release.withhold=2",
                "--set",
                "pipeline.release.key=\"release.key\"",
                "--set",
                "pipeline.health.runs=\"many\"",
            ],
            &env,
        );
        assert_eq!(rebuild.status.code(), Some(2), "{}", said(&rebuild));
        said(&rebuild)
    });
    for key in ["pipeline.release.withhold", "pipeline.health.runs"] {
        assert!(told.contains(key), "{key}: {told}");
    }
    assert!(
        told.contains("(from --set pipeline.release.withhold=2)"),
        "{told}"
    );
    assert!(!dir.path().join("rebuilt/manifest.jsonl").exists());
}
