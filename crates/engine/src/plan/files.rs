//! Checking the files stages name: every input file exists, every output path
//! stays inside `pipeline.out`, and no two stages write to one path.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use crate::error::ConfigError;

use super::PlannedStage;

pub(super) fn check_files(stages: &[PlannedStage], errors: &mut Vec<ConfigError>) {
    let mut written: BTreeMap<String, &str> = BTreeMap::new();
    for stage in stages {
        let config = &stage.config;
        for (key, path) in config.reads() {
            if path.as_os_str() != "-" && !path.exists() {
                let shown = path.display();
                let message = if shown.to_string().contains(['*', '?', '[']) {
                    format!("no file matches the pattern {shown}")
                } else {
                    format!("input file not found: {shown}")
                };
                errors
                    .push(ConfigError::stage(&stage.name, Some(&key), message).about_environment());
            }
        }
        for (key, template) in config.writes() {
            if let Err(e) = check_relative(&template) {
                errors.push(ConfigError::stage(&stage.name, Some(&key), e));
                continue;
            }
            if let Some(other) = written.insert(template.clone(), &stage.name) {
                errors.push(ConfigError::stage(
                    &stage.name,
                    Some(&key),
                    format!("stage `{other}` writes to `{template}` too"),
                ));
            }
        }
    }
}

/// Output paths stay inside `pipeline.out`: relative, without `..`.
pub fn check_relative(path: &str) -> Result<(), String> {
    let p = Path::new(path);
    if p.is_absolute()
        || p.components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "`{path}` must be a relative path inside pipeline.out (no `..`, not absolute)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::plan::tests::{messages, validate};

    #[test]
    fn sinks_may_not_share_a_path_or_leave_the_output_directory() {
        let err = validate(
            r#"
[stages.gen]
kind = "test-generate"
count = 1
[stages.one]
kind = "test-count"
inputs = ["gen"]
path = "{split}.jsonl"
[stages.two]
kind = "test-count"
inputs = ["gen"]
path = "{split}.jsonl"
[stages.three]
kind = "test-count"
inputs = ["gen"]
path = "../escape.jsonl"
[stages.four]
kind = "test-count"
inputs = ["gen"]
path = "/etc/passwd"
"#,
        )
        .err()
        .unwrap();
        let all = messages(&err).join("\n");
        assert!(
            all.contains("stages.two.path: stage `one` writes to `{split}.jsonl` too"),
            "{all}"
        );
        assert!(
            all.contains("stages.three.path: `../escape.jsonl` must be a relative path"),
            "{all}"
        );
        assert!(
            all.contains("stages.four.path: `/etc/passwd` must be a relative path"),
            "{all}"
        );
    }
}
