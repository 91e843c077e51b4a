//! README.md's stage reference is the output of `tempora stages`.
//! Run with `UPDATE_README=1` to rewrite it.

use std::process::Command;

const BEGIN: &str = "<!-- stages:begin -->\n";
const END: &str = "<!-- stages:end -->";

#[test]
fn readme_stage_reference_is_in_step_with_the_registry() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO_BIN_EXE_tempora"))
        .arg("stages")
        .output()
        .unwrap();
    assert!(out.status.success());
    let reference = String::from_utf8(out.stdout).unwrap();
    let readme_path = format!("{root}/README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let start = readme.find(BEGIN).expect("README has the begin marker") + BEGIN.len();
    let end = readme.find(END).expect("README has the end marker");
    if std::env::var("UPDATE_README").is_ok() {
        let updated = format!("{}{}{}", &readme[..start], reference, &readme[end..]);
        std::fs::write(&readme_path, updated).unwrap();
        return;
    }
    assert!(
        readme[start..end] == reference,
        "README.md's stage reference is stale: run `UPDATE_README=1 cargo test --test readme`"
    );
}

#[test]
fn readme_opens_with_the_two_set_up_commands() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let first_screen: String = readme.lines().take(30).collect::<Vec<_>>().join("\n");
    assert!(first_screen.contains("cargo run --release -- run pipelines/demo.toml"));
    assert!(first_screen.contains("cargo test --workspace"));
}
