//! Records the git commit the binary is built from, for `run.json`:
//! `TEMPORA_GIT_COMMIT` (the commit id, or `unknown`) and `TEMPORA_GIT_DIRTY`
//! (`true` when tracked files had uncommitted changes, `false`, or `unknown`).
//!
//! Outside a git checkout of this project (a tarball, a crate download, or a
//! tarball unpacked inside some other repository) both are `unknown`, and so
//! when `git` is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let (commit, dirty) = match git(&root, &["rev-parse", "--show-toplevel"]) {
        Some(top) if same_dir(Path::new(&top), &root) => {
            watch_git_state(&root);
            let commit = git(&root, &["rev-parse", "HEAD"]);
            // `--no-optional-locks`: no index refresh written back, which would make
            // the next build run this script again.
            let status = git(
                &root,
                &[
                    "--no-optional-locks",
                    "status",
                    "--porcelain",
                    "--untracked-files=no",
                ],
            );
            (commit, status.map(|s| (!s.is_empty()).to_string()))
        }
        _ => (None, None),
    };
    let unknown = || "unknown".to_string();
    println!(
        "cargo:rustc-env=TEMPORA_GIT_COMMIT={}",
        commit.unwrap_or_else(unknown)
    );
    println!(
        "cargo:rustc-env=TEMPORA_GIT_DIRTY={}",
        dirty.unwrap_or_else(unknown)
    );
    println!("cargo:rerun-if-changed=build.rs");
}

/// Runs git in `dir`; its trimmed output when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Runs this script again when the commit or the tree changes: HEAD, the branch it
/// points to, the index, and the sources (each a file cargo watches; a path that
/// does not exist would make it run on every build).
fn watch_git_state(root: &Path) {
    // `--git-path` answers relative to `root`, or absolutely (in a worktree).
    let git_path = |p: &str| git(root, &["rev-parse", "--git-path", p]).map(|p| root.join(p));
    let mut watched: Vec<PathBuf> = ["HEAD", "index", "packed-refs"]
        .iter()
        .filter_map(|p| git_path(p))
        .collect();
    if let Some(branch) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
        watched.extend(git_path(&branch));
    }
    watched.extend(["src", "crates", "Cargo.toml", "Cargo.lock"].map(|p| root.join(p)));
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
