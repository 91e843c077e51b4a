//! Reading a system's summaries: JSON lines, CSV or Parquet, with the columns
//! `id` and `summary` (names settable) and, for summaries of any data set,
//! `published` (`YYYY-MM-DD`); optionally `document` (the article, for surnames)
//! and `set`. JSON lines that are lm-evaluation-harness samples, by their first
//! line, are read by [`crate::harness::samples`].
//!
//! Every line is read or named in an error with its file, line (row for Parquet)
//! and field: a missing column, an id given twice (with the line that gave it
//! first), a date that is no date. A null or empty summary is a summary with no
//! claim, not an error. Ids may be strings or integers (XSum's ids are numbers in
//! some exports).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde_json::Value;

use crate::harness::samples::{self, HarnessFile};
use crate::ScoreError;

/// The column names to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// The id column (`id`).
    pub id: String,
    /// The summary column (`summary`).
    pub summary: String,
    /// The publication date column (`published`).
    pub published: String,
    /// The document column (`document`), read when present.
    pub document: String,
}

impl Default for Columns {
    fn default() -> Self {
        Self {
            id: "id".into(),
            summary: "summary".into(),
            published: "published".into(),
            document: "document".into(),
        }
    }
}

/// One prediction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    /// Line (or row) of the file, from 1 (a CSV file's header is line 1).
    pub line: usize,
    /// The id.
    pub id: String,
    /// The summary; empty for a null.
    pub summary: String,
    /// The publication date, when the file has the column.
    pub published: Option<NaiveDate>,
    /// The article's text, when the file has the column.
    pub document: Option<String>,
    /// The set, when the file has a `set` column.
    pub set: Option<String>,
}

/// Whether `published` must be in every line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dates {
    /// Every line carries its date (summaries of any data set).
    Required,
    /// Dates come from the set's articles; a `published` column is ignored.
    FromSet,
}

/// The predictions of one file, read.
#[derive(Debug, Clone)]
pub struct ReadFile {
    /// The file, as given.
    pub path: PathBuf,
    /// Its predictions, in the file's order (one per id).
    pub rows: Vec<Prediction>,
    /// What the file is when it is lm-evaluation-harness samples.
    pub harness: Option<HarnessFile>,
    /// What a user is told about it (a harness results file that names no model).
    pub warnings: Vec<String>,
}

/// Reads every prediction of `path`, by its extension: `.csv`, `.tsv`, `.parquet`,
/// else JSON lines; JSON lines that are lm-evaluation-harness samples (by their
/// first line, [`samples::is_samples`]) as such, with the model their results
/// file names.
///
/// # Errors
/// [`ScoreError`] naming the file and line: unreadable, not JSON, no such column,
/// an id twice, a date that is not `YYYY-MM-DD`; for samples, a document
/// without an `id`.
pub fn read_file(path: &Path, columns: &Columns, dates: Dates) -> Result<ReadFile, ScoreError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let rows = match extension.as_str() {
        "csv" => read_delimited(path, b',', columns, dates)?,
        "tsv" => read_delimited(path, b'\t', columns, dates)?,
        _ => {
            let lines = crate::inputs::read_lines(path)?;
            let first = lines.iter().find(|l| !l.trim().is_empty());
            if first.is_some_and(|l| samples::is_samples(l)) {
                return read_samples(path, &lines, dates);
            }
            if samples::is_results(path, &lines) {
                return Err(ScoreError::File {
                    path: path.to_path_buf(),
                    message: "a results file of lm-evaluation-harness, not samples: give the samples files (`samples_*.jsonl`)".into(),
                });
            }
            read_json_lines(path, &lines, columns, dates)?
        }
    };
    check_unique(path, &rows)?;
    Ok(ReadFile {
        path: path.to_path_buf(),
        rows,
        harness: None,
        warnings: Vec::new(),
    })
}

/// Harness samples, with the model the run's results file names.
fn read_samples(path: &Path, lines: &[String], dates: Dates) -> Result<ReadFile, ScoreError> {
    let (rows, mut harness) = samples::read(path, lines, dates)?;
    let model = samples::model_of(path);
    harness.model = model.name;
    harness.results = model.results.map(|r| r.display().to_string());
    Ok(ReadFile {
        path: path.to_path_buf(),
        rows,
        harness: Some(harness),
        warnings: model.warning.into_iter().collect(),
    })
}

/// The error of `path` at `line`: `message`.
pub(crate) fn line_error(path: &Path, line: usize, message: String) -> ScoreError {
    ScoreError::Line {
        path: path.to_path_buf(),
        line,
        message,
    }
}

/// JSON lines, or a Parquet file read as JSON lines (one per row).
fn read_json_lines(
    path: &Path,
    lines: &[String],
    columns: &Columns,
    dates: Dates,
) -> Result<Vec<Prediction>, ScoreError> {
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.trim().is_empty() {
            rows.push(json_row(path, i + 1, line, columns, dates)?);
        }
    }
    Ok(rows)
}

fn json_row(
    path: &Path,
    line: usize,
    text: &str,
    columns: &Columns,
    dates: Dates,
) -> Result<Prediction, ScoreError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| line_error(path, line, format!("not JSON: {e}")))?;
    let Value::Object(object) = value else {
        return Err(line_error(path, line, "not a JSON object".into()));
    };
    let field = |name: &str| -> Result<Option<String>, ScoreError> {
        match object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            // Highlights kept as a list: one per line, as the sets write them.
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => Ok(Some(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
            )),
            Some(other) => Err(line_error(
                path,
                line,
                format!("`{name}` is {other}, not text"),
            )),
        }
    };
    let present = |name: &str| object.contains_key(name);
    let raw = Raw {
        id: field(&columns.id)?,
        has_id: present(&columns.id),
        summary: field(&columns.summary)?,
        has_summary: present(&columns.summary),
        published: field(&columns.published)?,
        document: field(&columns.document)?,
        set: field("set")?,
    };
    raw.prediction(path, line, columns, dates)
}

/// A row's fields as text, before they are checked.
struct Raw {
    id: Option<String>,
    has_id: bool,
    summary: Option<String>,
    has_summary: bool,
    published: Option<String>,
    document: Option<String>,
    set: Option<String>,
}

impl Raw {
    fn prediction(
        self,
        path: &Path,
        line: usize,
        columns: &Columns,
        dates: Dates,
    ) -> Result<Prediction, ScoreError> {
        if !self.has_id {
            return Err(line_error(path, line, format!("no `{}` field", columns.id)));
        }
        let Some(id) = self.id.filter(|id| !id.trim().is_empty()) else {
            return Err(line_error(path, line, format!("`{}` is empty", columns.id)));
        };
        if !self.has_summary {
            return Err(line_error(
                path,
                line,
                format!("no `{}` field", columns.summary),
            ));
        }
        let published = match dates {
            Dates::FromSet => None,
            Dates::Required => {
                let Some(text) = self.published.filter(|p| !p.trim().is_empty()) else {
                    return Err(line_error(
                        path,
                        line,
                        format!(
                            "no `{}` date (YYYY-MM-DD): summaries without a set need their article's date",
                            columns.published
                        ),
                    ));
                };
                Some(parse_date(&text).ok_or_else(|| {
                    line_error(
                        path,
                        line,
                        format!(
                            "`{}` is {text:?}, not a date (YYYY-MM-DD)",
                            columns.published
                        ),
                    )
                })?)
            }
        };
        Ok(Prediction {
            line,
            id,
            summary: self.summary.unwrap_or_default(),
            published,
            document: self.document,
            set: self.set,
        })
    }
}

/// A date `YYYY-MM-DD`, also with a time after it (`2021-01-21T10:00:00Z`, as
/// pandas writes dates).
pub(crate) fn parse_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    let day = text.get(..10).unwrap_or(text);
    NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()
}

fn read_delimited(
    path: &Path,
    delimiter: u8,
    columns: &Columns,
    dates: Dates,
) -> Result<Vec<Prediction>, ScoreError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(false)
        .from_path(path)
        .map_err(|e| csv_error(path, e))?;
    let headers = reader.headers().map_err(|e| csv_error(path, e))?.clone();
    let index = |name: &str| headers.iter().position(|h| h == name);
    let names: Vec<&str> = headers.iter().collect();
    for required in [&columns.id, &columns.summary] {
        if index(required).is_none() {
            return Err(ScoreError::Line {
                path: path.to_path_buf(),
                line: 1,
                message: format!(
                    "no column `{required}` (the header has: {})",
                    names.join(", ")
                ),
            });
        }
    }
    let (id, summary) = (index(&columns.id), index(&columns.summary));
    let (published, document, set) = (
        index(&columns.published),
        index(&columns.document),
        index("set"),
    );
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, e))?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        let get = |i: Option<usize>| i.and_then(|i| record.get(i)).map(str::to_string);
        let raw = Raw {
            id: get(id),
            has_id: true,
            summary: get(summary),
            has_summary: true,
            published: get(published),
            document: get(document).filter(|d| !d.is_empty()),
            set: get(set).filter(|s| !s.is_empty()),
        };
        rows.push(raw.prediction(path, line, columns, dates)?);
    }
    Ok(rows)
}

fn csv_error(path: &Path, error: csv::Error) -> ScoreError {
    match error.position() {
        Some(position) => ScoreError::Line {
            path: path.to_path_buf(),
            line: position.line() as usize,
            message: format!("not CSV: {error}"),
        },
        None => ScoreError::File {
            path: path.to_path_buf(),
            message: format!("not CSV: {error}"),
        },
    }
}

/// A duplicate id is refused, naming both lines.
fn check_unique(path: &Path, rows: &[Prediction]) -> Result<(), ScoreError> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(rows.len());
    for row in rows {
        if let Some(first) = seen.insert(&row.id, row.line) {
            return Err(line_error(
                path,
                row.line,
                format!(
                    "id {:?} again (first on line {first}): one summary per id and system",
                    row.id
                ),
            ));
        }
    }
    Ok(())
}

/// The system name of a predictions file: its stem (`bart.jsonl` is `bart`).
pub fn system_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "system".into())
}

/// The system name of a file read, when `--system` gives none, and the warning
/// that says how it was taken when no results file named the model: harness
/// samples are named by the model of their run's results file, else by their
/// folder (the harness writes them to a folder named after the model), else by
/// the file's stem; any other file by its stem.
pub fn default_system(file: &ReadFile) -> (String, Option<String>) {
    let Some(harness) = &file.harness else {
        return (system_of(&file.path), None);
    };
    if let Some(model) = &harness.model {
        return (model.clone(), None);
    }
    let (name, after) = match samples::folder_name(&file.path) {
        Some(folder) => (folder, "the samples file's folder"),
        None => (system_of(&file.path), "the file's name"),
    };
    let why = if file.warnings.is_empty() {
        format!(
            "{}: no results file of the harness beside it (`results_<date>.json` of the run) names the model",
            file.path.display()
        )
    } else {
        file.warnings.join("; ")
    };
    let warning =
        format!("{why}; the system is named `{name}`, after {after} (`--system NAME` names it)");
    (name, Some(warning))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path, columns: &Columns, dates: Dates) -> Result<Vec<Prediction>, ScoreError> {
        Ok(read_file(path, columns, dates)?.rows)
    }

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn message(result: Result<Vec<Prediction>, ScoreError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn json_lines_with_numbers_lists_and_nulls() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            &dir,
            "p.jsonl",
            "{\"id\": 7, \"summary\": [\"a\", \"b\"], \"published\": \"2021-01-21T00:00:00Z\"}\n\n{\"id\": \"x\", \"summary\": null, \"published\": \"2021-02-01\"}\n",
        );
        let rows = read(&path, &Columns::default(), Dates::Required).unwrap();
        assert_eq!(rows[0].id, "7");
        assert_eq!(rows[0].summary, "a\nb");
        assert_eq!(rows[0].published, NaiveDate::from_ymd_opt(2021, 1, 21));
        assert_eq!((rows[1].line, rows[1].summary.as_str()), (3, ""));
    }

    #[test]
    fn bad_lines_name_file_line_and_field() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(&dir, "a.jsonl", "{\"id\": \"1\", \"summary\": \"s\"}\n");
        let m = message(read(&p, &Columns::default(), Dates::Required));
        assert!(m.ends_with("a.jsonl:1: no `published` date (YYYY-MM-DD): summaries without a set need their article's date"), "{m}");
        let p = write(&dir, "b.jsonl", "{\"id\": \"1\", \"text\": \"s\"}\n");
        let m = message(read(&p, &Columns::default(), Dates::FromSet));
        assert!(m.ends_with("b.jsonl:1: no `summary` field"), "{m}");
        let p = write(
            &dir,
            "c.jsonl",
            "{\"id\": \"1\", \"summary\": \"s\", \"published\": \"21/01/2021\"}\n",
        );
        let m = message(read(&p, &Columns::default(), Dates::Required));
        assert!(
            m.ends_with("c.jsonl:1: `published` is \"21/01/2021\", not a date (YYYY-MM-DD)"),
            "{m}"
        );
        let p = write(
            &dir,
            "d.jsonl",
            "{\"id\": \"1\", \"summary\": \"s\"}\n{\"id\": \"1\", \"summary\": \"t\"}\n",
        );
        let m = message(read(&p, &Columns::default(), Dates::FromSet));
        assert!(
            m.ends_with(
                "d.jsonl:2: id \"1\" again (first on line 1): one summary per id and system"
            ),
            "{m}"
        );
        let p = write(&dir, "e.jsonl", "{\"id\": \"1\", \"summary\": \n");
        let m = message(read(&p, &Columns::default(), Dates::FromSet));
        assert!(m.contains("e.jsonl:1: not JSON"), "{m}");
        let p = write(
            &dir,
            "f.jsonl",
            "{\"id\": \"1\", \"summary\": {\"a\": 1}}\n",
        );
        let m = message(read(&p, &Columns::default(), Dates::FromSet));
        assert!(
            m.ends_with("f.jsonl:1: `summary` is {\"a\":1}, not text"),
            "{m}"
        );
    }

    #[test]
    fn csv_with_settable_columns_and_quoted_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            &dir,
            "p.csv",
            "doc_id,output,date\n1,\"President Joe Biden, the 46th president, \"\"signed\"\"\",2021-01-21\n2,,2021-01-22\n",
        );
        let columns = Columns {
            id: "doc_id".into(),
            summary: "output".into(),
            published: "date".into(),
            ..Columns::default()
        };
        let rows = read(&path, &columns, Dates::Required).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0].summary,
            "President Joe Biden, the 46th president, \"signed\""
        );
        assert_eq!((rows[0].line, rows[1].line), (2, 3));
        assert_eq!(rows[1].summary, "");
        let m = message(read(&path, &Columns::default(), Dates::FromSet));
        assert!(
            m.ends_with("p.csv:1: no column `id` (the header has: doc_id, output, date)"),
            "{m}"
        );
        let bad = write(&dir, "q.csv", "id,summary\n1,a\n2,b,c\n");
        let m = message(read(&bad, &Columns::default(), Dates::FromSet));
        assert!(m.contains("q.csv:3: not CSV"), "{m}");
    }
}
