//! The offline demo pipeline: run as shipped into a folder of the test's, or
//! written elsewhere with tables added, for tests that run it in a folder of
//! their own.

#![allow(dead_code)]

use std::path::Path;

use super::bin::{succeeded, tempora};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `tempora run pipelines/demo.toml` from the repository's root into `out`, with
/// `extra` arguments (`--set`s), which must succeed: its stdout, the summary.
pub fn run_into(out: &Path, extra: &[&str]) -> String {
    succeeded(&run_demo(out, extra))
}

/// `tempora run pipelines/demo.toml` from the repository's root into `out`, with
/// `extra` arguments, however it ends.
pub fn run_demo(out: &Path, extra: &[&str]) -> std::process::Output {
    let set = format!("pipeline.out=\"{}\"", out.display());
    let args = [
        "run",
        "pipelines/demo.toml",
        "--progress",
        "off",
        "--set",
        &set,
    ];
    tempora(&[&args[..], extra].concat())
}

/// The demo with `extra` (tables) appended, written in `dir` as `demo.toml`, its
/// output in `dir/out` and its inputs the repository's; the file's path.
pub fn demo_with(dir: &Path, extra: &str) -> String {
    let text = std::fs::read_to_string(Path::new(ROOT).join("pipelines/demo.toml")).unwrap();
    let text = text.replace(
        "out = \"out/demo\"",
        &format!("out = {:?}", dir.join("out").display().to_string()),
    );
    let text = text.replace("\"pipelines/", &format!("\"{ROOT}/pipelines/"));
    let text = format!("{text}\n{extra}");
    let path = dir.join("demo.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}
