//! The built `tempora` binary, run as a user runs it: from the repository's
//! root, or from a folder of the test's own.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use super::said::said;

/// The built binary, to run in `dir`, logging warnings only: a test adds its
/// arguments (and any variables of its own) and runs it.
pub fn command(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(dir).env("RUST_LOG", "warn");
    cmd
}

/// `tempora ARGS` in `dir`, logging warnings only.
pub fn tempora_in(dir: &Path, args: &[&str]) -> Output {
    command(dir).args(args).output().unwrap()
}

/// `tempora ARGS` from the repository's root, logging warnings only.
pub fn tempora(args: &[&str]) -> Output {
    tempora_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// The stdout of a command that must have succeeded (else what it said, its
/// stdout and stderr, failing).
pub fn succeeded(out: &Output) -> String {
    assert!(out.status.success(), "{}", said(out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
