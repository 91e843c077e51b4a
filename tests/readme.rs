//! docs/reference.md's stage reference is the output of `tempora stages`, and its
//! output schema the declared Arrow schema of the records; the README's first
//! screen holds the two set-up commands, and every file the docs link to exists.
//! Run with `UPDATE_README=1` to rewrite the generated sections.

use std::process::Command;

const BEGIN: &str = "<!-- stages:begin -->\n";
const END: &str = "<!-- stages:end -->";

/// Checks that docs/reference.md holds `generated` between `begin` and `end`, or,
/// with `UPDATE_README` set, writes it there.
fn check_section(begin: &str, end: &str, generated: &str, what: &str) {
    let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference.md");
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
        "docs/reference.md's {what} is stale: run `UPDATE_README=1 cargo test --test readme`"
    );
}

#[test]
fn readme_output_schema_is_the_declared_one() {
    check_section(
        "<!-- schema:begin -->\n",
        "<!-- schema:end -->",
        &tempora_sink::schema_doc::markdown(),
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

#[test]
fn every_file_the_docs_link_to_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let link = regex_lite_links;
    for doc in [
        "README.md",
        "ARCHITECTURE.md",
        "docs/guide.md",
        "docs/reference.md",
        "benches/README.md",
    ] {
        let path = root.join(doc);
        let text = std::fs::read_to_string(&path).unwrap();
        for target in link(&text) {
            let file = target.split('#').next().unwrap_or_default();
            if file.is_empty() || file.contains("://") {
                continue;
            }
            let resolved = path.parent().unwrap().join(file);
            assert!(
                resolved.exists(),
                "{doc} links to {target}, which does not exist"
            );
        }
    }
}

/// The targets of the Markdown links `[text](target)` in `text`.
fn regex_lite_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].to_string());
        }
    }
    out
}
