//! Pipeline files, fuzzed: the shipped pipelines broken the ways hand-edited
//! TOML breaks (cut short, characters flipped, inserted or dropped, lines
//! repeated) and arbitrary bytes, through `tempora validate` as a user runs it.
//! Every one is valid (exit 0) or a list of problems (exit 2) naming the file;
//! nothing panics. Fewer cases than the in-process fuzz tests: each is a process.

use std::process::Command;

use proptest::prelude::*;
use tempora_testkit::fuzz::broken;

fn samples() -> Vec<Vec<u8>> {
    ["demo.toml", "temposum-bbc.toml", "nightly-bbc.toml"]
        .iter()
        .map(|name| {
            std::fs::read(format!("{}/pipelines/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn broken_pipeline_files_are_valid_or_named_problems(text in broken(samples())) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("broken.toml");
        std::fs::write(&path, &text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_tempora"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("RUST_LOG", "error")
            .args(["validate", &path.display().to_string()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        prop_assert!(!stderr.contains("panicked"), "{stderr}");
        match out.status.code() {
            Some(0) => {}
            Some(2) => prop_assert!(stderr.contains("broken.toml"), "{stderr}"),
            other => prop_assert!(false, "exit {other:?}: {stderr}"),
        }
    }
}
