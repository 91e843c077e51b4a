//! The built `tempora` binary, run from the repository's root as a user runs it.

#![allow(dead_code)]

use std::process::{Command, Output};

/// `tempora ARGS` from the repository's root, logging warnings only.
pub fn tempora(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tempora"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// The stdout of a command that must have succeeded (else its stderr, failing).
pub fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
