//! Output path templates such as `{split}.jsonl`: a relative path with
//! placeholders filled from each record. Values from data are sanitized so a
//! record can never place a file outside `pipeline.out`.

use std::path::PathBuf;

use tempora_engine::Record;

/// A parsed path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Field(String),
}

/// The fields a template may use.
pub const FIELDS: [&str; 5] = ["split", "source", "kind", "relation", "novelty"];

impl PathTemplate {
    /// Parses `template`.
    ///
    /// # Errors
    /// Unknown placeholders, unclosed braces, absolute paths or `..`.
    pub fn parse(template: &str) -> Result<Self, String> {
        tempora_engine::plan::check_relative(template)?;
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_string()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("`{template}`: unclosed `{{`"))?;
            let field = &rest[open + 1..open + close];
            if !FIELDS.contains(&field) {
                return Err(format!(
                    "`{template}`: unknown placeholder `{{{field}}}` (known: {})",
                    FIELDS.map(|f| format!("{{{f}}}")).join(", ")
                ));
            }
            parts.push(Part::Field(field.to_string()));
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        if parts.is_empty() {
            return Err("the path is empty".into());
        }
        Ok(Self { parts })
    }

    /// Whether the template has no placeholders (one fixed file).
    pub fn is_fixed(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Text(_)))
    }

    /// The relative path for `record`.
    ///
    /// # Errors
    /// When the record has no value for a placeholder (e.g. `{split}` before `split`).
    pub fn render(&self, record: &Record) -> Result<PathBuf, String> {
        let mut path = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => path.push_str(t),
                Part::Field(f) => {
                    let value = record
                        .template_field(f)
                        .ok_or_else(|| format!("the record has no `{f}` for the path template"))?;
                    path.push_str(&sanitize(&value));
                }
            }
        }
        Ok(PathBuf::from(path))
    }
}

/// Keeps letters, digits, `-`, `_` and inner dots; anything else becomes `_`.
fn sanitize(value: &str) -> String {
    let cleaned: String = value
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let trimmed = cleaned.trim_matches('.');
    if trimmed.is_empty() {
        "_".to_string()
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempora_engine::builtin::small_record;

    #[test]
    fn placeholders_are_filled_and_checked() {
        let t = PathTemplate::parse("by-kind/{kind}.jsonl").unwrap();
        assert!(!t.is_fixed());
        assert_eq!(
            t.render(&small_record(1)).unwrap(),
            PathBuf::from("by-kind/capture.jsonl")
        );
        assert!(PathTemplate::parse("all.jsonl").unwrap().is_fixed());
        assert!(PathTemplate::parse("{nope}.jsonl")
            .unwrap_err()
            .contains("unknown placeholder"));
        assert!(PathTemplate::parse("{split.jsonl")
            .unwrap_err()
            .contains("unclosed"));
        assert!(PathTemplate::parse("../x.jsonl").is_err());
        assert!(PathTemplate::parse("/tmp/x.jsonl").is_err());
    }

    #[test]
    fn values_from_data_cannot_escape_the_output_directory() {
        assert_eq!(sanitize("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(sanitize(".."), "_");
        assert_eq!(sanitize("/abs"), "_abs");
        assert_eq!(sanitize("in_distribution"), "in_distribution");
        assert_eq!(sanitize(""), "_");
    }

    #[test]
    fn a_missing_field_is_an_error_for_that_record() {
        let t = PathTemplate::parse("{split}.jsonl").unwrap();
        assert!(t.render(&small_record(1)).unwrap_err().contains("`split`"));
    }
}
