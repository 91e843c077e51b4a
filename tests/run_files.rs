//! What a run leaves behind, through the real binary: outputs with the umask's
//! mode, a `run.json` that says what ran (command line, overrides, commit, input
//! files with their SHA-256) also when the run could not start, and log lines
//! without colour codes when stderr is not a terminal.

use std::path::Path;
use std::process::{Command, Output};

use sha2::{Digest as _, Sha256};

/// The binary with the engine's test kinds, logging at `info`.
fn tempora() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TEMPORA_TEST_KINDS", "1")
        .env("RUST_LOG", "info");
    cmd
}

/// A pipeline in `dir` writing to `dir/out`.
fn write_pipeline(dir: &Path, stages: &str) -> String {
    let path = dir.join("p.toml");
    let text = format!(
        "[pipeline]\nname = \"t\"\ncutoff = 2019-12-31\nout = \"{}\"\n{stages}",
        dir.join("out").display()
    );
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A source reading `from_file` (as a test-generate option), and a JSONL sink.
fn stages(from_file: &Path, sink_path: &str) -> String {
    format!(
        "[stages.gen]\nkind = \"test-generate\"\ncount = 3\nfrom_file = \"{}\"\n\
         [stages.w]\nkind = \"jsonl\"\ninputs = [\"gen\"]\npath = \"{sink_path}\"\n",
        from_file.display()
    )
}

/// An input file of a few hashing blocks, different in every block.
fn write_input(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("input.txt");
    let text: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn run_json(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap()
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

/// The commit `git` reports for this checkout, as the build script reads it.
fn expected_commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let top = git(&["rev-parse", "--show-toplevel"]).map(|t| Path::new(&t).canonicalize());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).canonicalize();
    match (top, root) {
        (Some(Ok(top)), Ok(root)) if top == root => {
            git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into())
        }
        _ => "unknown".into(),
    }
}

#[cfg(unix)]
#[test]
fn outputs_take_the_umask_and_run_json_says_what_ran() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(dir.path());
    let path = write_pipeline(dir.path(), &stages(&input, "captures.jsonl"));
    // A umask of 027: files rw-r----- (not the 0600 of a private temporary file).
    let o = Command::new("sh")
        .args(["-c", "umask 027 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_tempora"))
        .args(["run", &path, "--progress", "off"])
        .args([
            "--set",
            "stages.gen.count=7",
            "--set",
            "pipeline.name=renamed",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TEMPORA_TEST_KINDS", "1")
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.path().join("out");
    for name in ["captures.jsonl", "run.json", "rejected.jsonl"] {
        let mode = out.join(name).metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(format!("{mode:o}"), "640", "mode of {name}");
    }

    let run = run_json(&out);
    let args: Vec<&str> = run["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(args[0].ends_with("tempora"), "{args:?}");
    assert_eq!(
        &args[1..],
        [
            "run",
            path.as_str(),
            "--progress",
            "off",
            "--set",
            "stages.gen.count=7",
            "--set",
            "pipeline.name=renamed"
        ]
    );
    assert_eq!(
        run["overrides"],
        serde_json::json!([
            {"given": "stages.gen.count=7", "key": "stages.gen.count", "value": 7},
            {"given": "pipeline.name=renamed", "key": "pipeline.name", "value": "renamed"},
        ])
    );
    assert_eq!(run["pipeline"], "renamed");
    assert_eq!(
        run["stages"][0]["records_out"], 7,
        "the override was applied"
    );
    assert_eq!(run["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(run["commit"], expected_commit().as_str());
    assert!(run["dirty"].is_boolean() || run["commit"] == "unknown");

    let bytes = std::fs::read(&input).unwrap();
    let hash: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let inputs = run["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 1, "{inputs:?}");
    assert_eq!(inputs[0]["stage"], "gen");
    assert_eq!(inputs[0]["option"], "from_file");
    assert_eq!(inputs[0]["path"], input.display().to_string());
    assert_eq!(inputs[0]["bytes"], bytes.len());
    assert_eq!(inputs[0]["sha256"], hash.as_str());
    let modified: chrono::DateTime<chrono::Utc> =
        input.metadata().unwrap().modified().unwrap().into();
    let recorded: chrono::DateTime<chrono::Utc> =
        inputs[0]["modified"].as_str().unwrap().parse().unwrap();
    assert_eq!(recorded, modified);
}

/// `run.json`'s cost names every kind of request the stage kinds declare, none
/// sent, whether the run started or not.
fn assert_no_request_sent(run: &serde_json::Value) {
    assert_eq!(
        run["cost"]["requests"],
        serde_json::json!({"cdx": 0, "feed": 0, "page": 0, "wikidata_api": 0,
                           "wikidata_query": 0, "retried": 0}),
        "{run}"
    );
    let cost = run["cost"].as_object().unwrap();
    assert!(cost["page_requests_per_kept_article"].is_null(), "{run}");
}

#[test]
fn a_stage_that_fails_to_build_still_leaves_run_json_with_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(dir.path());
    // The sink cannot create its folder: a file stands where it should be.
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join("out/blocked"), "a file").unwrap();
    let path = write_pipeline(dir.path(), &stages(&input, "blocked/x.jsonl"));
    let o = tempora()
        .args(["run", &path, "--progress", "off"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(code(&o), Some(1), "{err}");
    assert!(err.contains("stage `w`"), "{err}");
    let run = run_json(&dir.path().join("out"));
    assert_eq!(run["status"], "failed");
    assert_eq!(run["error"]["stage"], "w");
    assert_eq!(run["error"]["domain"], "external");
    assert_no_request_sent(&run);
    assert!(
        run["error"]["message"]
            .as_str()
            .unwrap()
            .contains("blocked"),
        "{run}"
    );
    assert_eq!(run["commit"], expected_commit().as_str());
    assert_eq!(run["inputs"][0]["bytes"], input.metadata().unwrap().len());
    assert!(run["inputs"][0]["sha256"].is_string(), "{run}");
}

#[test]
fn a_run_refused_for_a_missing_input_leaves_run_json_with_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-input.txt");
    let path = write_pipeline(dir.path(), &stages(&missing, "x.jsonl"));
    let o = tempora()
        .args(["run", &path, "--set", "stages.gen.count=5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(code(&o), Some(2), "{err}");
    let run = run_json(&dir.path().join("out"));
    assert_eq!(run["status"], "failed");
    assert!(run["error"]["stage"].is_null(), "{run}");
    let message = run["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("stages.gen.from_file: input file not found")
            && message.contains("no-such-input.txt"),
        "{message}"
    );
    assert_eq!(run["overrides"][0]["value"], 5);
    assert_no_request_sent(&run);
    assert_eq!(run["command_line"][1], "run");
    assert_eq!(run["commit"], expected_commit().as_str());
    assert!(!dir.path().join("out/x.jsonl").exists());
}

#[test]
fn log_lines_carry_no_colour_codes_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_pipeline(
        dir.path(),
        "[stages.gen]\nkind = \"test-generate\"\ncount = 3\n\
         [stages.w]\nkind = \"jsonl\"\ninputs = [\"gen\"]\npath = \"x.jsonl\"\n",
    );
    // `output()` pipes stderr; progress `auto` then logs plain lines.
    let o = tempora()
        .args(["run", &path])
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("INFO") && err.contains("starting"), "{err}");
    assert!(!o.stderr.contains(&0x1b), "an escape byte in:\n{err:?}");
}
