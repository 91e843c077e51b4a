//! README.md's stage reference is the output of `tempora stages`, and its output
//! schema the declared Arrow schema of the records. Run with `UPDATE_README=1` to
//! rewrite both.

use std::process::Command;

const BEGIN: &str = "<!-- stages:begin -->\n";
const END: &str = "<!-- stages:end -->";

/// Checks that README.md holds `generated` between `begin` and `end`, or, with
/// `UPDATE_README` set, writes it there.
fn check_section(begin: &str, end: &str, generated: &str, what: &str) {
    let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(readme_path).unwrap();
    let start = readme.find(begin).expect("README has the begin marker") + begin.len();
    let stop = readme.find(end).expect("README has the end marker");
    if std::env::var("UPDATE_README").is_ok() {
        let updated = format!("{}{}{}", &readme[..start], generated, &readme[stop..]);
        std::fs::write(readme_path, updated).unwrap();
        return;
    }
    assert!(
        readme[start..stop] == *generated,
        "README.md's {what} is stale: run `UPDATE_README=1 cargo test --test readme`"
    );
}

#[test]
fn readme_output_schema_is_the_declared_one() {
    check_section(
        "<!-- schema:begin -->\n",
        "<!-- schema:end -->",
        &tempora_sink::schema::markdown(),
        "output schema",
    );
}

#[test]
fn readme_stage_reference_is_in_step_with_the_registry() {
    let out = Command::new(env!("CARGO_BIN_EXE_tempora"))
        .arg("stages")
        .output()
        .unwrap();
    assert!(out.status.success());
    let reference = String::from_utf8(out.stdout).unwrap();
    check_section(BEGIN, END, &reference, "stage reference");
}

#[test]
fn readme_opens_with_the_two_set_up_commands() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let first_screen: String = readme.lines().take(30).collect::<Vec<_>>().join("\n");
    assert!(first_screen.contains("cargo run --release -- run pipelines/demo.toml"));
    assert!(first_screen.contains("cargo test --workspace"));
}
