//! The `tempora` binary end to end: exit codes, error messages, signals.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn tempora() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd.env("RUST_LOG", "warn");
    cmd
}

/// The binary with the engine's test stage kinds (`test-generate`, `test-fail`...).
fn tempora_with_test_kinds() -> Command {
    let mut cmd = tempora();
    cmd.env("TEMPORA_TEST_KINDS", "1");
    cmd
}

fn run(args: &[&str]) -> Output {
    tempora().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The standard error of a run that must have exited with `code`.
fn failed(o: &Output, code: i32) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    err
}

/// The 1-based line of `text` that holds `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    1 + text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} is not in the fixture"))
}

fn write_pipeline(dir: &Path, body: &str) -> String {
    let path = dir.join("p.toml");
    let text = format!(
        "[pipeline]\nname = \"t\"\ncutoff = 2019-12-31\nout = \"{}\"\n{body}",
        dir.join("out").display()
    );
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn validate_lists_every_problem_and_exits_2() {
    let o = run(&["validate", "tests/fixtures/pipelines/broken.toml"]);
    let err = failed(&o, 2);
    for expected in [
        "broken.toml: 5 errors",
        "stages.saved.paths: input file not found: tests/fixtures/pipelines/no-such-file.jsonl",
        "stages.typo.kind: unknown kind `jsonl-sorce` (known kinds: ",
        "stages.extra.colour: unknown field `colour`",
        "stages.orphan.inputs: unknown stage `nowhere`",
        "stages.twin2.path: stage `twin` writes to `{split}.parquet` too",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in:\n{err}");
    }
}

#[test]
fn bad_sets_and_decisions_are_all_reported_at_once_with_key_path_and_line() {
    let fixture = "tests/fixtures/pipelines/bad-sets.toml";
    let text = std::fs::read_to_string(fixture).unwrap();
    let line_of = |needle: &str| line_of(&text, needle);
    let o = tempora().args(["validate", fixture]).output().unwrap();
    let err = failed(&o, 2);
    let expected = [
        ("recent = ", "pipeline.sets.recent: `recent` (2015-06-01 to 2017-12-31) overlaps `old` (2010-01-01 to 2015-12-31)"),
        ("upside_down = ", "pipeline.sets.upside_down.to: set `upside_down` ends on 2019-01-01, before its start 2019-12-31"),
        ("cutoff = ", "pipeline.cutoff: the cutoff 2023-12-31 is past the end of every set"),
        ("decides_for", "stages.wanted.decides_for: unknown stage `nowhere`"),
    ];
    for (needle, message) in expected {
        let wanted = format!("line {}: {message}", line_of(needle));
        assert!(err.contains(&wanted), "missing {wanted:?} in:\n{err}");
    }
    assert!(
        err.contains(&format!("bad-sets.toml: {} errors", expected.len())),
        "{err}"
    );
}

#[test]
fn a_bad_option_is_reported_once_at_its_key_not_again_by_the_stages_that_name_its_stage() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_pipeline(
        dir.path(),
        r#"
[stages.captures]
kind = "wayback-cdx"
urls = ["example.org/news/*"]
from = 2020-01-01
to = 2020-01-31
archive = { min_pause = "soon" }

[stages.pages]
kind = "wayback-fetch"
inputs = ["captures"]
archive = "captures"

[stages.write]
kind = "jsonl"
inputs = ["pages"]
path = "pages.jsonl"
"#,
    );
    let o = run(&["validate", &path]);
    let err = failed(&o, 2);
    assert!(
        err.contains("stages.captures.archive.min_pause: `soon` is not a duration like 60s"),
        "{err}"
    );
    assert!(err.contains("p.toml: 1 error"), "{err}");
    assert!(!err.contains("stages.pages"), "{err}");
}

#[test]
fn validate_reports_one_of_each_problem_with_key_path_and_line() {
    let fixture = "tests/fixtures/pipelines/every-problem.toml";
    let text = std::fs::read_to_string(fixture).unwrap();
    let line_of = |needle: &str| line_of(&text, needle);
    let o = tempora()
        .args(["validate", fixture])
        .env_remove("TEMPORA_EVERY_PROBLEM_UNSET")
        .output()
        .unwrap();
    let err = failed(&o, 2);
    let expected = [
        ("[pipeline]", "pipeline.cutoff: missing field `cutoff`"),
        (
            "${TEMPORA_EVERY_PROBLEM_UNSET}",
            "stages.saved.paths[0]: environment variable `TEMPORA_EVERY_PROBLEM_UNSET` is not set",
        ),
        (
            "record = \"facts\"",
            "stages.saved.record: unknown variant `facts`",
        ),
        (
            "jsonl-sorce",
            "stages.typo.kind: unknown kind `jsonl-sorce`",
        ),
        (
            "[\"nowhere\"]",
            "stages.extract.inputs: unknown stage `nowhere`",
        ),
        ("colour", "stages.extract.colour: unknown field `colour`"),
        (
            "2020-02-30",
            "pipeline.sets.future.from: `2020-02-30` is not a valid date",
        ),
        (
            "facts_in.nope",
            "stages.write.inputs: stage `facts_in` has no port `nope`",
        ),
        (
            "path = 42",
            "stages.write.path: invalid type: integer `42`, expected a string",
        ),
    ];
    for (needle, message) in expected {
        let wanted = format!("line {}: {message}", line_of(needle));
        assert!(err.contains(&wanted), "missing {wanted:?} in:\n{err}");
    }
    assert!(
        err.contains(&format!("every-problem.toml: {} errors", expected.len())),
        "{err}"
    );
}

#[test]
fn graph_and_run_exit_2_on_a_bad_pipeline_file() {
    for args in [
        &["graph", "tests/fixtures/pipelines/every-problem.toml"][..],
        &[
            "run",
            "tests/fixtures/pipelines/every-problem.toml",
            "--progress",
            "off",
        ],
        &[
            "run",
            "tests/fixtures/pipelines/every-problem.toml",
            "--dry-run",
        ],
        &["run", "tests/fixtures/pipelines/no-such-pipeline.toml"],
    ] {
        let o = run(args);
        let err = failed(&o, 2);
        assert!(
            err.contains("error: tests/fixtures/pipelines/"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn graph_draws_a_shipped_pipeline_without_its_data() {
    // No dump, no lists, no variables set: the graph is the file's.
    for (pipeline, stages) in [
        (
            "pipelines/temposum-bbc.toml",
            ["captures", "articles", "split"],
        ),
        (
            "pipelines/nightly-bbc.toml",
            ["captures", "wanted", "pages"],
        ),
    ] {
        let o = tempora()
            .env_remove("WIKIDATA_DUMP")
            .env_remove("XSUM_SPLIT")
            .env_remove("XSUM_TRAIN_SUMMARIES")
            .env_remove("TEMPORA_CONTACT")
            .args(["graph", pipeline])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{pipeline}: {}", stderr(&o));
        let dot = String::from_utf8_lossy(&o.stdout);
        assert!(dot.starts_with("digraph"), "{pipeline}: {dot}");
        for stage in stages {
            assert!(
                dot.contains(&format!("\"{stage}\"")),
                "{pipeline}: {stage} not in {dot}"
            );
        }
    }
}

#[test]
fn every_subcommand_exits_2_on_bad_usage_and_names_the_argument() {
    let cases: [(&[&str], &str); 8] = [
        (
            &[
                "novelty",
                "--train",
                "a.jsonl",
                "--test",
                "b.jsonl",
                "--min-bin",
                "0",
            ],
            "--min-bin",
        ),
        (
            &[
                "diversify",
                "--train",
                "a.jsonl",
                "--max-repeats",
                "0",
                "-o",
                "d",
            ],
            "--max-repeats 0",
        ),
        (&["cdx", "example.org/*", "--limit", "0"], "--limit"),
        // Refused before any request (the endpoint would answer nothing).
        (
            &[
                "cdx",
                "example.org/*",
                "--from",
                "2021-01-01",
                "--to",
                "2020-01-01",
                "--endpoint",
                "http://127.0.0.1:9",
            ],
            "--from 2021-01-01 is after --to 2020-01-01",
        ),
        (
            &["card", "no/such/folder"],
            "no such folder: no/such/folder",
        ),
        (
            &["cdx", "example.org/*", "--keep", "newest"],
            "--keep `newest`",
        ),
        (
            &["facts", "dump.json.gz", "-o", "facts.parquet"],
            "writes JSONL only",
        ),
        (
            &["extract", "--url", "http://x/", "a.html", "b.html"],
            "--url and --captured",
        ),
    ];
    for (args, named) in cases {
        let o = run(args);
        let err = failed(&o, 2);
        assert!(err.contains(named), "{args:?}: {err}");
    }
    // clap's own argument errors.
    failed(&run(&["run"]), 2);
    failed(&run(&["run", "p.toml", "--estimate"]), 2);
}

#[test]
fn every_command_reading_an_output_folder_exits_2_naming_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-out");
    let missing = missing.to_str().unwrap();
    for args in [
        &["reveal", missing][..],
        &["card", missing],
        &["report", missing],
        &["score", missing, "--predictions", "model.jsonl"],
    ] {
        let err = failed(&run(args), 2);
        assert!(
            err.contains(&format!("no such folder: {missing}")),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn malformed_toml_names_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_pipeline(
        dir.path(),
        "[stages.a]\nkind = \"jsonl\"\ninputs = [\"x\"\n",
    );
    let o = run(&["validate", &path]);
    let err = failed(&o, 2);
    assert!(
        err.contains("p.toml: 1 error") && err.contains("line 7, column 14"),
        "{err}"
    );
}

#[test]
fn unset_variables_and_bad_dates_are_reported_together() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_pipeline(
        dir.path(),
        "[stages.a]\nkind = \"jsonl-source\"\npaths = [\"${TEMPORA_CLI_TEST_UNSET}\"]\nrecord = \"article\"\n",
    );
    let o = tempora()
        .args(["validate", &path, "--set", "pipeline.cutoff=2019-13-45"])
        .env_remove("TEMPORA_CLI_TEST_UNSET")
        .output()
        .unwrap();
    let err = failed(&o, 2);
    assert!(
        err.contains("stages.a.paths[0]: environment variable `TEMPORA_CLI_TEST_UNSET` is not set"),
        "{err}"
    );
    // Set to nothing (`VAR=`) is named as such, before any work; not a file
    // "not found: " with nothing after the colon.
    let o = tempora()
        .args(["validate", &path])
        .env("TEMPORA_CLI_TEST_UNSET", "")
        .output()
        .unwrap();
    let err = failed(&o, 2);
    assert!(
        err.contains(
            "stages.a.paths[0]: environment variable `TEMPORA_CLI_TEST_UNSET` is set but empty"
        ),
        "{err}"
    );
}

#[test]
fn a_set_misspelt_in_set_is_named_with_the_known_ones() {
    let o = tempora()
        .args([
            "validate",
            "pipelines/demo.toml",
            "--set",
            "pipeline.sets.futur.to=2021-12-31",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = failed(&o, 2);
    assert!(
        err.contains("--set pipeline.sets.futur.to=2021-12-31: the file has no set `futur` (its sets: `in_distribution`, `future`)"),
        "{err}"
    );
    assert!(!err.contains("overlap"), "{err}");
}

/// A set that no stage reads is refused before the run, at its key, naming the
/// stages that read the other sets; once a stage reads it, the run takes it.
#[test]
fn a_set_no_stage_reads_is_refused_naming_the_set_and_its_readers() {
    let dir = tempfile::tempdir().unwrap();
    let out = format!(
        "pipeline.out={:?}",
        dir.path().join("out").display().to_string()
    );
    let set = [
        "--set",
        "pipeline.sets.future.to=2020-12-31",
        "--set",
        "pipeline.sets.jan2021={from=2021-01-01,to=2021-01-31}",
        "--set",
        &out,
    ];
    for command in ["validate", "run"] {
        let o = run(&[&[command, "pipelines/demo.toml"][..], &set[..]].concat());
        let err = failed(&o, 2);
        for said in [
            "pipeline.sets.jan2021",
            "no stage reads set `jan2021` (port `split.jan2021`)",
            "the other sets are read by `novelty`, `pairs`",
        ] {
            assert!(err.contains(said), "{command}: no {said:?} in:\n{err}");
        }
    }
    assert!(!dir.path().join("out/future.jsonl").exists(), "nothing ran");
    // Read by the stage that reads the other sets, the set is written.
    let read =
        "stages.novelty.inputs=[\"split.in_distribution\",\"split.future\",\"split.jan2021\"]";
    let o = run(&[
        &[
            "run",
            "pipelines/demo.toml",
            "--progress",
            "off",
            "--set",
            read,
        ][..],
        &set[..],
    ]
    .concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let jan = std::fs::read_to_string(dir.path().join("out/jan2021.jsonl")).unwrap();
    assert_eq!(jan.lines().count(), 1, "{jan}");
}

/// Without `[pipeline.sets]`, the sets are the default ones: an unread one is
/// refused at `pipeline.sets`, with the way out that the file can take.
#[test]
fn an_unread_default_set_is_refused_with_the_table_to_write() {
    let dir = tempfile::tempdir().unwrap();
    let demo = std::fs::read_to_string("pipelines/demo.toml").unwrap();
    let start = demo.find("[pipeline.sets]").unwrap();
    let end = start + demo[start..].find("\n\n").unwrap();
    let text = format!("{}{}", &demo[..start], &demo[end..])
        .replace(
            "\"pipelines/",
            &format!("\"{}/pipelines/", env!("CARGO_MANIFEST_DIR")),
        )
        .replace(
            "inputs = [\"split.in_distribution\", \"split.future\"]",
            "inputs = [\"split.future\"]",
        );
    let path = dir.path().join("demo.toml");
    std::fs::write(&path, text).unwrap();
    let err = failed(&run(&["validate", path.to_str().unwrap()]), 2);
    for said in [
        "pipeline.sets: no stage reads set `in_distribution`",
        "write `[pipeline.sets]` with only the sets the pipeline reads",
    ] {
        assert!(err.contains(said), "no {said:?} in:\n{err}");
    }
    assert!(!err.contains("remove the set"), "{err}");
}

#[test]
fn a_bad_cutoff_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_pipeline(
        dir.path(),
        "[stages.a]\nkind = \"test-generate\"\ncount = 1\n",
    );
    let o = tempora_with_test_kinds()
        .args(["validate", &path, "--set", "pipeline.cutoff=\"2019-13-45\""])
        .output()
        .unwrap();
    let err = failed(&o, 2);
    assert!(
        err.contains("pipeline.cutoff: `2019-13-45` is not a valid date"),
        "{err}"
    );
}

#[test]
fn an_unwritable_output_directory_stops_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("out"),
        "a file where the directory should be",
    )
    .unwrap();
    let path = write_pipeline(
        dir.path(),
        "[stages.gen]\nkind = \"test-generate\"\ncount = 5\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"gen\"]\npath = \"x.jsonl\"\n",
    );
    let o = tempora_with_test_kinds()
        .args(["run", &path, "--progress", "off"])
        .output()
        .unwrap();
    let err = failed(&o, 2);
    assert!(err.contains("pipeline.out:"), "{err}");
    assert!(err.contains("is a file, not a folder"), "{err}");
    // `validate` says so too, instead of ok.
    let o = tempora_with_test_kinds()
        .args(["validate", &path])
        .output()
        .unwrap();
    let err = failed(&o, 2);
    assert!(err.contains("is a file, not a folder"), "{err}");
}

#[test]
fn a_warc_pattern_that_matches_no_file_is_named_by_validate() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = dir.path().join("crawl/*.warc.gz");
    let path = write_pipeline(
        dir.path(),
        &format!(
            "[stages.pages]\nkind = \"warc\"\npaths = [\"{}\"]\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"pages\"]\npath = \"pages.jsonl\"\n",
            pattern.display()
        ),
    );
    let o = tempora().args(["validate", &path]).output().unwrap();
    let err = failed(&o, 2);
    assert!(
        err.contains(&format!(
            "stages.pages.paths: no file matches the pattern {}",
            pattern.display()
        )),
        "{err}"
    );
}

#[test]
fn a_failing_stage_exits_1_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_pipeline(
        dir.path(),
        "[stages.gen]\nkind = \"test-generate\"\ncount = 100000\n[stages.bad]\nkind = \"test-fail\"\ninputs = [\"gen\"]\nfail_after = 10\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"bad\"]\npath = \"x.jsonl\"\n",
    );
    let o = tempora_with_test_kinds()
        .args(["run", &path, "--progress", "off"])
        .output()
        .unwrap();
    failed(&o, 1);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("failed stage: bad (input)"), "{stdout}");
    let out = dir.path().join("out");
    assert!(
        !out.join("x.jsonl").exists(),
        "a failed run must not publish outputs"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["status"], "failed");
}

#[cfg(unix)]
#[test]
fn sigint_leaves_the_published_outputs_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_pipeline(
        dir.path(),
        "[stages.gen]\nkind = \"test-generate\"\ncount = 1000\n[stages.pass]\nkind = \"test-pass\"\ninputs = [\"gen\"]\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"pass\"]\npath = \"{kind}.jsonl\"\nsort = false\n[stages.p]\nkind = \"parquet\"\ninputs = [\"pass\"]\npath = \"all.parquet\"\n",
    );
    // A completed run publishes its sets.
    let first = tempora_with_test_kinds()
        .args(["run", &path, "--progress", "off"])
        .output()
        .unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let out = dir.path().join("out");
    let published = |name: &str| std::fs::read(out.join(name)).unwrap();
    let (jsonl, parquet) = (published("capture.jsonl"), published("all.parquet"));
    assert_eq!(String::from_utf8_lossy(&jsonl).lines().count(), 1000);

    // A longer run of the same pipeline, stopped with Ctrl-C well under way.
    let child = tempora_with_test_kinds()
        .args(["run", &path, "--progress", "off"])
        .args([
            "--set",
            "stages.gen.count=100000000",
            "--set",
            "stages.gen.interval_us=50",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the run is under way (its temporary output exists), then interrupt.
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let started = std::fs::read_dir(&out)
            .map(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            })
            .unwrap_or(false);
        if started {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    failed(&o, 130);

    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["status"], "interrupted");
    assert_eq!(run["completed"], false);
    let sink_in = run["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "w")
        .unwrap()["records_in"]
        .as_u64()
        .unwrap();
    assert!(sink_in > 0, "the stopped run was under way");
    // What the stopped run drained is not published: the sets stay those of the
    // completed run, every file, byte for byte.
    assert_eq!(published("capture.jsonl"), jsonl);
    assert_eq!(published("all.parquet"), parquet);
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn pairs_on_files_gives_what_the_demo_pipeline_gives() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pairs.jsonl");
    let o = tempora()
        .args([
            "pairs",
            "--articles",
            "tests/fixtures/demo-golden/future.jsonl",
            "--facts",
            "tests/fixtures/demo-golden/facts.jsonl",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string("tests/fixtures/demo-golden/pairs.jsonl").unwrap()
    );
}

#[test]
fn pairs_names_the_file_and_line_of_a_broken_article() {
    let dir = tempfile::tempdir().unwrap();
    let articles = dir.path().join("a.jsonl");
    std::fs::write(&articles, "\n{\"id\": 5}\n").unwrap();
    let o = tempora()
        .args([
            "pairs",
            "--facts",
            "tests/fixtures/demo-golden/facts.jsonl",
            "--articles",
        ])
        .arg(&articles)
        .arg("-o")
        .arg(dir.path().join("p.jsonl"))
        .output()
        .unwrap();
    let err = failed(&o, 1);
    assert!(err.contains("a.jsonl:2: not an article"), "{err}");
    assert!(!dir.path().join("p.jsonl").exists());
}

#[test]
fn report_writes_markdown_json_and_charts_of_the_demo_outputs() {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "future.jsonl",
        "in_distribution.jsonl",
        "facts.jsonl",
        "pairs.jsonl",
    ] {
        std::fs::copy(
            Path::new("tests/fixtures/demo-golden").join(file),
            dir.path().join(file),
        )
        .unwrap();
    }
    let o = run(&["report", &dir.path().display().to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("future: 2 articles"), "{out}");
    for file in [
        "report.md",
        "report.json",
        "charts/coverage.svg",
        "charts/coverage.png",
    ] {
        assert!(dir.path().join(file).is_file(), "{file} missing");
    }
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("Joe Biden"), "{md}");
    // Minimal pairs are counted per set, fact error and error type.
    let pairs = std::fs::read_to_string("tests/fixtures/demo-golden/pairs.jsonl").unwrap();
    for (fact_error, error_type) in [
        ("outdated", "Intrinsic Entity Error"),
        ("non_verifiable", "Extrinsic Entity Error"),
    ] {
        let n = pairs
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|p| p["fact_error"] == fact_error && p["error_type"] == error_type)
            .count();
        assert!(n > 0, "the demo has {fact_error} / {error_type} pairs");
        let row = format!("| future | {fact_error} | {error_type} | {n} |");
        assert!(md.contains(&row), "missing {row:?} in:\n{md}");
    }

    let empty = tempfile::tempdir().unwrap();
    let o = run(&["report", &empty.path().display().to_string()]);
    let err = failed(&o, 1);
    assert!(err.contains("no article outputs"), "{err}");
}

#[test]
fn facts_makes_the_output_folder_before_reading_and_is_quiet_with_q() {
    let dir = tempfile::tempdir().unwrap();
    let dump = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/pipelines/demo/wikidata.json.gz"
    );
    // As the guide shows it: `-o state/facts.jsonl` where `state/` does not exist.
    let out = dir.path().join("state/facts.jsonl");
    let o = tempora()
        .args(["facts", dump, "--cutoff", "2019-12-31", "-q", "-o"])
        .arg(&out)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "-q prints nothing but problems");
    assert!(std::fs::read_to_string(&out).unwrap().lines().count() > 0);

    // A folder that cannot be made is named before the dump is read.
    let blocked = dir.path().join("a-file");
    std::fs::write(&blocked, "").unwrap();
    let o = tempora()
        .args(["facts", "no-such-dump.json.gz", "-o"])
        .arg(blocked.join("facts.jsonl"))
        .output()
        .unwrap();
    let err = failed(&o, 2);
    assert!(err.contains("cannot make its folder"), "{err}");
    assert!(
        !err.contains("no-such-dump"),
        "refused before the dump: {err}"
    );
}

#[test]
fn a_source_whose_file_holds_another_kind_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let articles = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/demo-golden/future.jsonl"
    );
    let path = write_pipeline(
        dir.path(),
        &format!(
            "[stages.a]\nkind = \"jsonl-source\"\npaths = [\"{articles}\"]\nrecord = \"fact\"\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"a\"]\npath = \"x.jsonl\"\n"
        ),
    );
    for command in ["validate", "run"] {
        let o = tempora().args([command, &path]).output().unwrap();
        let err = failed(&o, 2);
        assert!(
            err.contains(&format!(
                "stages.a.record: the first record of {articles} is an article, not a fact"
            )),
            "{command}: {err}"
        );
    }
    assert!(
        !dir.path().join("out/run.json").exists() || {
            let run = std::fs::read_to_string(dir.path().join("out/run.json")).unwrap();
            !run.contains("\"status\": \"completed\"")
        }
    );
}

/// The summary of a run of `path` that must have exited 23.
fn completed_with_problems(path: &str) -> String {
    let o = run(&["run", path, "--progress", "off"]);
    assert_eq!(o.status.code(), Some(23), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_run_that_makes_nothing_useful_says_so_and_exits_23() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    // A source that gives nothing.
    let path = write_pipeline(
        dir.path(),
        &format!(
            "[stages.a]\nkind = \"jsonl-source\"\npaths = [\"{}\"]\nrecord = \"article\"\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"a\"]\npath = \"x.jsonl\"\n",
            empty.display()
        ),
    );
    let said = completed_with_problems(&path);
    assert!(said.contains("status: Completed"), "{said}");
    assert!(said.contains("warning: stage `a` gave no record"), "{said}");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/run.json")).unwrap())
            .unwrap();
    assert_eq!(run["warnings"][0]["stage"], "a", "{run}");

    // Novelty against a training file with no summary: every overlap would be 0.
    let articles = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/demo-golden/future.jsonl"
    );
    let path = write_pipeline(
        dir.path(),
        &format!(
            "[stages.a]\nkind = \"jsonl-source\"\npaths = [\"{articles}\"]\nrecord = \"article\"\n[stages.novelty]\nkind = \"novelty\"\ninputs = [\"a\"]\ntrain = \"{}\"\nmin_bin = 1\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"novelty\"]\npath = \"x.jsonl\"\n",
            empty.display()
        ),
    );
    let said = completed_with_problems(&path);
    assert!(
        said.contains("warning: stage `novelty` its training set holds no summary"),
        "{said}"
    );
}

#[test]
fn a_bare_impossible_date_is_named_by_key_beside_the_files_other_problems() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.toml");
    std::fs::write(
        &path,
        "[pipeline]\nname = \"t\"\ncutoff = 2020-02-30\n\n[stages.a]\nkind = \"nope\"\n",
    )
    .unwrap();
    let o = tempora()
        .args(["validate", path.to_str().unwrap()])
        .output()
        .unwrap();
    let err = failed(&o, 2);
    assert!(
        err.contains("line 3: pipeline.cutoff: `2020-02-30` is not a valid date"),
        "{err}"
    );
    assert!(
        err.contains("stages.a.kind: unknown kind `nope`"),
        "the other problem too: {err}"
    );
}

#[test]
fn a_cutoff_that_is_not_a_date_names_the_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_pipeline(
        dir.path(),
        "[stages.a]\nkind = \"jsonl-source\"\npaths = [\"x\"]\nrecord = \"article\"\n",
    );
    for given in ["pipeline.cutoff=31/12/2023", "pipeline.cutoff=2019"] {
        let o = tempora()
            .args(["validate", &path, "--set", given])
            .output()
            .unwrap();
        let err = failed(&o, 2);
        let value = given.trim_start_matches("pipeline.cutoff=");
        assert!(
            err.contains(&format!("pipeline.cutoff: `{value}` is not a date")),
            "{given}: {err}"
        );
        assert!(err.contains("YYYY-MM-DD"), "{given}: {err}");
        // The forms relative to the run are named too.
        assert!(err.contains("`run - 365 days`"), "{given}: {err}");
    }
}

#[test]
fn a_stage_made_by_set_is_not_reported_at_another_stages_line() {
    let o = tempora()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "validate",
            "pipelines/demo.toml",
            "--set",
            "stages.nope.kind=warc",
        ])
        .output()
        .unwrap();
    let err = failed(&o, 2);
    let about: Vec<&str> = err.lines().filter(|l| l.contains("stages.nope")).collect();
    assert!(!about.is_empty(), "{err}");
    for line in about {
        assert!(
            line.trim_start().starts_with("- stages.nope"),
            "no line of the file: {line}"
        );
        assert!(
            line.ends_with("(from --set stages.nope.kind=warc)"),
            "{line}"
        );
    }
}

#[test]
fn a_split_path_with_no_stage_giving_sets_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let dump = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/pipelines/demo/wikidata.json.gz"
    );
    let path = write_pipeline(
        dir.path(),
        &format!(
            "[stages.facts]\nkind = \"wikidata\"\ndump = \"{dump}\"\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"facts\"]\npath = \"{{split}}.jsonl\"\n"
        ),
    );
    let o = run(&["validate", &path]);
    let err = failed(&o, 2);
    assert!(
        err.contains(
            "stages.w.path: has `{split}`, but no stage before this sink puts records in sets"
        ),
        "{err}"
    );
    // The same for a novelty bin with no novelty stage before the sink.
    let pages = concat!(env!("CARGO_MANIFEST_DIR"), "/pipelines/demo/pages.warc.gz");
    let path = write_pipeline(
        dir.path(),
        &format!(
            "[stages.pages]\nkind = \"warc\"\npaths = [\"{pages}\"]\n[stages.articles]\nkind = \"extract\"\ninputs = [\"pages\"]\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"articles\"]\npath = \"{{novelty}}.jsonl\"\n"
        ),
    );
    let err = failed(&run(&["validate", &path]), 2);
    assert!(
        err.contains(
            "stages.w.path: has `{novelty}`, but no stage before this sink scores novelty"
        ),
        "{err}"
    );
}

#[test]
fn a_missing_file_is_named_with_the_system_s_words_once() {
    let o = run(&[
        "novelty",
        "--train",
        "/nonexistent/train.jsonl",
        "--test",
        "/nonexistent/test.jsonl",
        "-o",
        "/tmp/never.jsonl",
    ]);
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    let os = std::fs::File::open("/nonexistent/train.jsonl")
        .unwrap_err()
        .to_string();
    let words = os.split(" (os error").next().unwrap();
    assert!(err.contains("/nonexistent/train.jsonl"), "{err}");
    assert_eq!(err.matches(words).count(), 1, "said once: {err}");
}

#[test]
fn an_empty_or_garbage_warc_file_does_not_end_as_a_plain_success() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("empty.warc", &b""[..]),
        ("garbage.warc", &b"not a WARC file\n"[..]),
    ] {
        let warc = dir.path().join(name);
        std::fs::write(&warc, bytes).unwrap();
        let path = write_pipeline(
            dir.path(),
            &format!(
                "[stages.pages]\nkind = \"warc\"\npaths = [\"{}\"]\n[stages.w]\nkind = \"jsonl\"\ninputs = [\"pages\"]\npath = \"pages.jsonl\"\n",
                warc.display()
            ),
        );
        let said = completed_with_problems(&path);
        assert!(
            said.contains("warning: stage `pages` gave no record"),
            "{name}: {said}"
        );
    }
}
