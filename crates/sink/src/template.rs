//! Output path templates such as `{split}.jsonl`: a relative path with
//! placeholders filled from each record, or from the run (`{run}`, `{date}`).
//! Values from data are sanitized so a record can never place a file outside
//! `pipeline.out`.

use std::path::{Path, PathBuf};

use tempora_engine::RunId;

use tempora_records::Record;

/// A parsed path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    /// A field of each record.
    Field(String),
    /// A property of the run, filled by [`PathTemplate::for_run`].
    Run(RunField),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunField {
    /// The run's name: its start in UTC, `2026-11-23T023015Z`.
    Run,
    /// The day it started, `2026-11-23`.
    Date,
}

/// The record fields a template may use.
pub const FIELDS: [&str; 5] = ["split", "source", "kind", "relation", "novelty"];

/// The run's fields a template may use: `{run}` (its start in UTC, `2026-11-23T023015Z`)
/// and `{date}` (its day, `2026-11-23`).
pub const RUN_FIELDS: [&str; 2] = ["run", "date"];

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
            let part = match field {
                "run" => Part::Run(RunField::Run),
                "date" => Part::Run(RunField::Date),
                f if FIELDS.contains(&f) => Part::Field(f.to_string()),
                _ => {
                    let known: Vec<String> = FIELDS
                        .iter()
                        .chain(&RUN_FIELDS)
                        .map(|f| format!("{{{f}}}"))
                        .collect();
                    return Err(format!(
                        "`{template}`: unknown placeholder `{{{field}}}` (known: {})",
                        known.join(", ")
                    ));
                }
            };
            parts.push(part);
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

    /// The one path of a template without placeholders (one fixed file).
    pub fn fixed_path(&self) -> Option<PathBuf> {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect::<Option<String>>()
            .map(PathBuf::from)
    }

    /// The file of the set `set`, for a template (with `{run}` and `{date}` filled
    /// by [`PathTemplate::for_run`]) whose only record field is `{split}`: the file
    /// a sink writes empty when the set brings nothing. `None` for a template
    /// without `{split}` or with another field (`{source}`, `{novelty}`,
    /// `{relation}`, `{kind}`: their values come only with records).
    pub fn for_set(&self, set: &str) -> Option<PathBuf> {
        let mut path = String::new();
        let mut named = false;
        for part in &self.parts {
            match part {
                Part::Text(t) => path.push_str(t),
                Part::Field(f) if f == "split" => {
                    path.push_str(&sanitize(set));
                    named = true;
                }
                Part::Field(_) | Part::Run(_) => return None,
            }
        }
        named.then(|| PathBuf::from(path))
    }

    /// The template with `{run}` and `{date}` filled for `run`.
    pub fn for_run(&self, run: &RunId) -> Self {
        let parts = self
            .parts
            .iter()
            .map(|part| match part {
                Part::Run(RunField::Run) => Part::Text(run.label().to_string()),
                Part::Run(RunField::Date) => Part::Text(run.date()),
                other => other.clone(),
            })
            .collect();
        Self { parts }
    }

    /// Files under `dir` that this template can name (any value in each placeholder).
    pub fn existing_files(&self, dir: &Path) -> Vec<PathBuf> {
        let mut pattern = glob::Pattern::escape(&dir.to_string_lossy());
        pattern.push(std::path::MAIN_SEPARATOR);
        for part in &self.parts {
            match part {
                Part::Text(t) => pattern.push_str(&glob::Pattern::escape(t)),
                Part::Field(_) | Part::Run(_) => pattern.push('*'),
            }
        }
        let Ok(paths) = glob::glob(&pattern) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = paths
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        files
    }

    /// The placeholder values under which this template names `relative` (a path
    /// relative to the output directory, `/`-separated), in template order, as
    /// `(placeholder, value)`; `None` when the template cannot name it. A value
    /// never holds a `/` (sanitized values have none), and the first way to match
    /// wins when several do (`{split}.{novelty}` on `future.T_nov`: `future`,
    /// `T_nov`).
    pub fn captures(&self, relative: &str) -> Option<Vec<(&'static str, String)>> {
        let mut values = Vec::new();
        self.match_from(0, relative, &mut values).then_some(values)
    }

    fn match_from(
        &self,
        part: usize,
        rest: &str,
        values: &mut Vec<(&'static str, String)>,
    ) -> bool {
        let Some(current) = self.parts.get(part) else {
            return rest.is_empty();
        };
        match current {
            Part::Text(t) => rest
                .strip_prefix(t.as_str())
                .is_some_and(|rest| self.match_from(part + 1, rest, values)),
            Part::Field(_) | Part::Run(_) => {
                let name = placeholder_name(current);
                let longest = rest.find('/').unwrap_or(rest.len());
                // Each placeholder takes at least one character (sanitizing never
                // gives an empty value).
                for end in 1..=longest {
                    if !rest.is_char_boundary(end) {
                        continue;
                    }
                    values.push((name, rest[..end].to_string()));
                    if self.match_from(part + 1, &rest[end..], values) {
                        return true;
                    }
                    values.pop();
                }
                false
            }
        }
    }

    /// How many characters of the template are literal text: of two templates
    /// that name one file, the one with more literal text names it on purpose.
    pub fn literal_chars(&self) -> usize {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.chars().count(),
                _ => 0,
            })
            .sum()
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
                // Sinks fill the run's fields when they are built.
                Part::Run(_) => return Err("the path's run is not known yet".into()),
            }
        }
        Ok(PathBuf::from(path))
    }
}

/// The placeholder's name as written in the template (`split`, `run`).
fn placeholder_name(part: &Part) -> &'static str {
    match part {
        Part::Field(f) => FIELDS
            .iter()
            .find(|name| **name == f)
            .copied()
            .unwrap_or("field"),
        Part::Run(RunField::Run) => "run",
        Part::Run(RunField::Date) => "date",
        Part::Text(_) => "",
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
        assert!(t.fixed_path().is_none());
        assert_eq!(
            t.render(&small_record(1)).unwrap(),
            PathBuf::from("by-kind/capture.jsonl")
        );
        assert_eq!(
            PathTemplate::parse("all.jsonl").unwrap().fixed_path(),
            Some(PathBuf::from("all.jsonl"))
        );
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
    fn captures_read_the_values_back_from_a_path() {
        let t = PathTemplate::parse("novelty/{split}.{novelty}.parquet").unwrap();
        assert_eq!(
            t.captures("novelty/future.T_nov.parquet"),
            Some(vec![
                ("split", "future".to_string()),
                ("novelty", "T_nov".to_string())
            ])
        );
        assert_eq!(
            t.captures("novelty/in_distribution.0-100.parquet").unwrap()[1].1,
            "0-100"
        );
        assert_eq!(t.captures("future.T_nov.parquet"), None);
        assert_eq!(t.captures("novelty/x/y.z.parquet"), None);
        let run = PathTemplate::parse("runs/{run}/articles.parquet").unwrap();
        assert_eq!(
            run.captures("runs/2026-11-23T023015Z/articles.parquet"),
            Some(vec![("run", "2026-11-23T023015Z".to_string())])
        );
        let fixed = PathTemplate::parse("facts.parquet").unwrap();
        assert_eq!(fixed.captures("facts.parquet"), Some(vec![]));
        assert_eq!(fixed.captures("facts.parquet.x"), None);
        assert!(
            fixed.literal_chars()
                > PathTemplate::parse("{split}.parquet")
                    .unwrap()
                    .literal_chars()
        );
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
    fn run_and_date_are_filled_from_the_run() {
        use chrono::TimeZone;
        let run = RunId::new(
            chrono::Utc
                .with_ymd_and_hms(2026, 11, 23, 2, 30, 15)
                .unwrap(),
        );
        let t = PathTemplate::parse("runs/{run}/articles-{date}.jsonl").unwrap();
        assert!(t.fixed_path().is_none());
        let bound = t.for_run(&run);
        assert_eq!(
            bound.fixed_path(),
            Some(PathBuf::from(
                "runs/2026-11-23T023015Z/articles-2026-11-23.jsonl"
            ))
        );
        assert_eq!(t.fixed_path(), None);
        assert_eq!(
            bound.render(&small_record(1)).unwrap(),
            PathBuf::from("runs/2026-11-23T023015Z/articles-2026-11-23.jsonl")
        );
        assert!(t.render(&small_record(1)).is_err());
        let err = PathTemplate::parse("{day}.jsonl").unwrap_err();
        assert!(err.contains("{run}, {date}"), "{err}");
    }

    #[test]
    fn existing_files_are_those_a_placeholder_can_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("by-kind")).unwrap();
        for name in [
            "by-kind/article.jsonl",
            "by-kind/fact.jsonl",
            "by-kind/notes.txt",
            "top.jsonl",
            "[odd].jsonl",
            "o.jsonl",
        ] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let t = PathTemplate::parse("by-kind/{kind}.jsonl").unwrap();
        assert_eq!(
            t.existing_files(dir.path()),
            [
                dir.path().join("by-kind/article.jsonl"),
                dir.path().join("by-kind/fact.jsonl")
            ]
        );
        let fixed = PathTemplate::parse("top.jsonl").unwrap();
        assert_eq!(
            fixed.existing_files(dir.path()),
            [dir.path().join("top.jsonl")]
        );
        // Glob characters in the path are literal.
        let odd = PathTemplate::parse("[odd].jsonl").unwrap();
        assert_eq!(
            odd.existing_files(dir.path()),
            [dir.path().join("[odd].jsonl")]
        );
        let missing = PathTemplate::parse("{split}/x.jsonl").unwrap();
        assert!(missing.existing_files(dir.path()).is_empty());
    }

    #[test]
    fn only_a_template_named_by_the_set_alone_has_a_file_per_set() {
        use chrono::TimeZone;
        let run = RunId::new(
            chrono::Utc
                .with_ymd_and_hms(2026, 11, 23, 2, 30, 15)
                .unwrap(),
        );
        let set = |t: &str| {
            PathTemplate::parse(t)
                .unwrap()
                .for_run(&run)
                .for_set("future")
        };
        assert_eq!(
            set("{split}.parquet"),
            Some(PathBuf::from("future.parquet"))
        );
        assert_eq!(
            set("runs/{date}/{split}/{split}.jsonl"),
            Some(PathBuf::from("runs/2026-11-23/future/future.jsonl"))
        );
        assert_eq!(set("novelty/{split}.{novelty}.parquet"), None);
        assert_eq!(set("{source}/{split}.jsonl"), None);
        assert_eq!(set("{kind}.jsonl"), None);
        assert_eq!(set("facts.parquet"), None);
        // Not bound to a run: the run's fields are unknown yet.
        let unbound = PathTemplate::parse("{run}/{split}.jsonl").unwrap();
        assert_eq!(unbound.for_set("future"), None);
    }

    #[test]
    fn a_missing_field_is_an_error_for_that_record() {
        let t = PathTemplate::parse("{split}.jsonl").unwrap();
        assert!(t.render(&small_record(1)).unwrap_err().contains("`split`"));
    }
}
