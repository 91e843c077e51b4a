//! The offline demo pipeline written elsewhere, with tables added: for tests
//! that run it in a folder of their own.

#![allow(dead_code)]

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

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
