//! lm-evaluation-harness's samples files (`--log_samples`:
//! `samples_<task>_<date>.jsonl`) read as a system's predictions.
//!
//! A file is samples by its content, whatever its name: its first line is an
//! object with a `doc` object, `doc_id`, and `filtered_resps` or `resps`. Each
//! line is one document the harness ran: `doc` is the set's row as the harness
//! read it, so the prediction's id is `doc.id` (a number is written as text),
//! and its summary the first filtered response (`filtered_resps[0]`, the first
//! of a list there; `resps[0][0]` in a line without `filtered_resps`). A missing,
//! null or empty response is an empty summary, scored like any other.
//!
//! The harness logs a document once per filter of its task, grouped by filter
//! in the task's order (a line's `filter`; before v0.4.7 there is none, taken
//! as `none`): the first line of a document in the file is the one scored, and
//! the file's [`HarnessFile`] says how many documents were logged again.
//!
//! The model: the harness writes one results file per run beside the samples
//! of each of its tasks, `results_<date>.json` for `samples_<task>_<date>.jsonl`;
//! its `model_name` (else the model in `config.model_args`) names the system.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::predictions::{line_error, parse_date, Dates, Prediction};
use crate::ScoreError;

/// Which line and which response of a document is scored.
pub const RULE: &str = "the first line of each document (the first filter), its first response";

/// The filter of a line that names none (the harness before v0.4.7).
const NO_FILTER: &str = "none";

/// A samples file as `summary.json` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HarnessFile {
    /// The task, when the file is named `samples_<task>_<date>.jsonl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The model, as the harness's results file names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The harness's results file beside the samples, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<String>,
    /// The filters of the lines, in the file's order.
    pub filters: Vec<String>,
    /// Documents logged more than once (several filters, or repeats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logged_again: Option<LoggedAgain>,
    /// Which line and response of a document is scored ([`RULE`]).
    pub rule: String,
    /// The responses scored: how many are empty, and where the task stopped
    /// them (for [`HarnessFile::stop_warning`]; not in `summary.json`).
    #[serde(skip)]
    pub responses: Responses,
}

/// The responses of a samples file that are scored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Responses {
    /// How many (one per document).
    pub documents: u64,
    /// How many of them are empty.
    pub empty: u64,
    /// The task's stop strings, as the first line's generation arguments
    /// (`arguments.gen_args_0.arg_1.until`) give them.
    pub until: Vec<String>,
}

/// The documents a samples file logs more than once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedAgain {
    /// How many documents.
    pub documents: u64,
    /// The fewest times one of them is logged.
    pub min_times: u64,
    /// The most times one of them is logged.
    pub max_times: u64,
    /// The filters of the lines scored, in the file's order.
    pub scored_filters: Vec<String>,
}

impl HarnessFile {
    /// What a user is told about the documents logged more than once in `file`,
    /// if any: how many, the filters, and which line and response were scored.
    pub fn note(&self, file: &str) -> Option<String> {
        let again = self.logged_again.as_ref()?;
        let times = if again.min_times == again.max_times {
            format!("{} times", again.max_times)
        } else {
            format!("{} to {} times", again.min_times, again.max_times)
        };
        Some(format!(
            "{file}: {} logged {times} ({}): scored the first line of each ({}), its first response",
            counted(again.documents as usize, "document"),
            quoted("filter", &self.filters),
            quoted("filter", &again.scored_filters),
        ))
    }

    /// What a user is told when responses of `file` are empty and the task had
    /// stop strings: the harness cut each response at the first of them, so an
    /// instruction-tuned model's answer that opens with a blank line is cut to
    /// nothing; its tasks are exported with `tempora harness --no-until`.
    pub fn stop_warning(&self, file: &str) -> Option<String> {
        let responses = &self.responses;
        if responses.empty == 0 || responses.until.is_empty() {
            return None;
        }
        let stops: Vec<String> = responses
            .until
            .iter()
            .map(|u| crate::harness::task::quote(u))
            .collect();
        Some(format!(
            "{file}: {} of {} responses empty, scored as summaries with no claim; the task stops at {}, where the harness cut each response: an instruction-tuned model (--apply_chat_template) whose answer opens with a blank line loses it whole; for such a model export the tasks with `tempora harness --no-until` and run them again",
            responses.empty,
            responses.documents,
            stops.join(", ")
        ))
    }
}

/// `n` and `word`, plural unless `n` is 1: `1 document`, `2 documents`.
fn counted(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `word` (plural for more than one) and the `names` quoted: ``filters `a`, `b` ``.
fn quoted(word: &str, names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let word = if names.len() == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    };
    format!("{word} {}", names.join(", "))
}

/// Whether `line` (a file's first line that is not empty) is a line of harness
/// samples: an object with a `doc` object, `doc_id`, and `filtered_resps` or
/// `resps`.
pub fn is_samples(line: &str) -> bool {
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    object.get("doc").is_some_and(Value::is_object)
        && object.contains_key("doc_id")
        && (object.contains_key("filtered_resps") || object.contains_key("resps"))
}

/// Whether the file `path` of `lines` is the harness's results file of a run
/// (`results_<date>.json`), not samples: one JSON object, over one line or
/// several, with `results` and `configs`; or a file named `results_*.json`
/// whose first line is not JSON.
pub fn is_results(path: &Path, lines: &[String]) -> bool {
    let Some(first) = lines.iter().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    let of_results = |value: &Value| {
        value
            .as_object()
            .is_some_and(|o| o.contains_key("results") && o.contains_key("configs"))
    };
    if let Ok(value) = serde_json::from_str::<Value>(first) {
        return of_results(&value);
    }
    if serde_json::from_str::<Value>(&lines.join("\n")).is_ok_and(|v| of_results(&v)) {
        return true;
    }
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("results_") && n.ends_with(".json"))
}

/// One line of samples, read.
struct Sample {
    prediction: Prediction,
    filter: String,
    until: Vec<String>,
}

/// Reads the samples `lines` of `path` (a file [`is_samples`] accepts): one
/// prediction per document, from its first line; with the file's description
/// (no model yet: see [`model_of`]).
///
/// # Errors
/// [`ScoreError::Line`] naming the file and line: not JSON, no `doc`, a `doc`
/// without an `id` (samples of another task), a response that is no text,
/// without a set a missing or bad `doc.published`.
pub fn read(
    path: &Path,
    lines: &[String],
    dates: Dates,
) -> Result<(Vec<Prediction>, HarnessFile), ScoreError> {
    let mut rows: Vec<Prediction> = Vec::new();
    let mut scored_filter: Vec<String> = Vec::new();
    let mut times: HashMap<String, (usize, u64)> = HashMap::new();
    let mut filters: Vec<String> = Vec::new();
    let mut until: Option<Vec<String>> = None;
    for (i, text) in lines.iter().enumerate() {
        if text.trim().is_empty() {
            continue;
        }
        let sample = sample(path, i + 1, text, dates)?;
        until.get_or_insert(sample.until);
        if !filters.contains(&sample.filter) {
            filters.push(sample.filter.clone());
        }
        let entry = times
            .entry(sample.prediction.id.clone())
            .or_insert((rows.len(), 0));
        entry.1 += 1;
        if entry.1 == 1 {
            rows.push(sample.prediction);
            scored_filter.push(sample.filter);
        }
    }
    let logged_again = logged_again(&times, &scored_filter);
    let responses = Responses {
        documents: rows.len() as u64,
        empty: rows.iter().filter(|r| r.summary.trim().is_empty()).count() as u64,
        until: until.unwrap_or_default(),
    };
    let file = HarnessFile {
        task: task_and_date(path).map(|(task, _)| task),
        model: None,
        results: None,
        filters,
        logged_again,
        rule: RULE.to_string(),
        responses,
    };
    Ok((rows, file))
}

/// The documents logged more than once (`times`: by id, the row and the count),
/// with the filters of their lines scored (`scored_filter`, by row).
fn logged_again(
    times: &HashMap<String, (usize, u64)>,
    scored_filter: &[String],
) -> Option<LoggedAgain> {
    let mut again: Vec<(usize, u64)> = times.values().filter(|(_, n)| *n > 1).copied().collect();
    again.sort_unstable();
    let min_times = again.iter().map(|(_, n)| *n).min()?;
    let max_times = again.iter().map(|(_, n)| *n).max()?;
    let mut scored_filters: Vec<String> = Vec::new();
    for (row, _) in &again {
        if let Some(filter) = scored_filter.get(*row) {
            if !scored_filters.contains(filter) {
                scored_filters.push(filter.clone());
            }
        }
    }
    Some(LoggedAgain {
        documents: again.len() as u64,
        min_times,
        max_times,
        scored_filters,
    })
}

/// One line: the document's id, its first response and, without a set, its
/// date and text; and the line's filter.
fn sample(path: &Path, line: usize, text: &str, dates: Dates) -> Result<Sample, ScoreError> {
    let error = |message: String| line_error(path, line, message);
    let value: Value = serde_json::from_str(text).map_err(|e| error(format!("not JSON: {e}")))?;
    let Value::Object(object) = value else {
        return Err(error("not a JSON object".into()));
    };
    let Some(Value::Object(doc)) = object.get("doc") else {
        return Err(error(
            "no `doc` object: not a line of lm-evaluation-harness samples, as the file's first line is".into(),
        ));
    };
    let id = match doc.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(Value::Number(id)) => id.to_string(),
        None | Some(Value::Null) => {
            return Err(error(
                "the document (`doc`) has no `id`: samples of another task? Tempora's sets give every article an `id`".into(),
            ))
        }
        Some(other) => return Err(error(format!("`doc.id` is {other}, not an id"))),
    };
    if id.trim().is_empty() {
        return Err(error("`doc.id` is empty".into()));
    }
    let summary = response(&object).map_err(error)?;
    let published = match dates {
        Dates::FromSet => None,
        Dates::Required => Some(published(doc).map_err(error)?),
    };
    let document = doc
        .get("document")
        .and_then(Value::as_str)
        .map(str::to_string);
    let filter = match object.get("filter") {
        None | Some(Value::Null) => NO_FILTER.to_string(),
        Some(Value::String(name)) => name.clone(),
        Some(other) => other.to_string(),
    };
    let prediction = Prediction {
        line,
        id,
        summary,
        published,
        document,
        set: None,
    };
    Ok(Sample {
        prediction,
        filter,
        until: stop_strings(&object),
    })
}

/// The stop strings of a line's request (`arguments.gen_args_0.arg_1.until`, a
/// list or one string); none when the line does not give them.
fn stop_strings(object: &Map<String, Value>) -> Vec<String> {
    let until = object
        .get("arguments")
        .and_then(|a| a.get("gen_args_0"))
        .and_then(|a| a.get("arg_1"))
        .and_then(|a| a.get("until"));
    match until {
        Some(Value::String(stop)) => vec![stop.clone()],
        Some(Value::Array(stops)) => stops
            .iter()
            .filter_map(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// The first filtered response of a line (`resps` when it has no
/// `filtered_resps`): empty when missing, null or an empty list.
fn response(object: &Map<String, Value>) -> Result<String, String> {
    let field = if object.contains_key("filtered_resps") {
        "filtered_resps"
    } else {
        "resps"
    };
    // Requests, then repeats: `["text"]`, `[["a", "b"]]`; `"text"` as some
    // forks write it.
    let mut value = object.get(field).unwrap_or(&Value::Null);
    for _ in 0..2 {
        if let Value::Array(items) = value {
            value = items.first().unwrap_or(&Value::Null);
        }
    }
    match value {
        Value::Null => Ok(String::new()),
        Value::String(text) => Ok(text.clone()),
        Value::Number(_) | Value::Bool(_) => Ok(value.to_string()),
        other => Err(format!("`{field}` holds {other}, not a response's text")),
    }
}

/// The document's publication date (`YYYY-MM-DD`, with a time after it as the
/// harness writes dates it read from JSON).
fn published(doc: &Map<String, Value>) -> Result<chrono::NaiveDate, String> {
    match doc.get("published") {
        Some(Value::String(text)) if !text.trim().is_empty() => parse_date(text)
            .ok_or_else(|| format!("`doc.published` is {text:?}, not a date (YYYY-MM-DD)")),
        Some(Value::String(_)) | Some(Value::Null) | None => Err(
            "no `doc.published` date (YYYY-MM-DD): summaries without a set need their article's date".into(),
        ),
        Some(other) => Err(format!("`doc.published` is {other}, not a date (YYYY-MM-DD)")),
    }
}

/// The task and the run's date of a file named `samples_<task>_<date>.jsonl`.
pub fn task_and_date(path: &Path) -> Option<(String, String)> {
    let name = path.file_name()?.to_str()?;
    let middle = name.strip_prefix("samples_")?.strip_suffix(".jsonl")?;
    let (task, date) = middle.rsplit_once('_')?;
    (!task.is_empty() && !date.is_empty()).then(|| (task.to_string(), date.to_string()))
}

/// The model of a samples file, as the harness's results file beside it names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// The model's name, when the results file names one.
    pub name: Option<String>,
    /// The results file, when there is one.
    pub results: Option<PathBuf>,
    /// Why a results file there names no model (it cannot be read, is not JSON,
    /// names none).
    pub warning: Option<String>,
}

/// The model of the samples file `path`: the harness's results file of the same
/// run in the same folder (`results_<date>.json` for `samples_<task>_<date>.jsonl`,
/// else the one other `<name>_<date>.json` there), its `model_name`, else the
/// model in its `config.model_args`. Never fails: a results file that cannot be
/// read names no model, and says why.
pub fn model_of(path: &Path) -> Model {
    let Some(results) = results_beside(path) else {
        return Model::default();
    };
    let found = std::fs::read(&results)
        .map_err(|e| format!("cannot read it: {e}"))
        .and_then(|bytes| {
            serde_json::from_slice::<Value>(&bytes).map_err(|e| format!("not JSON: {e}"))
        })
        .and_then(|value| {
            name_in_results(&value)
                .ok_or_else(|| "it names no model (`model_name`, `config.model_args`)".into())
        });
    match found {
        Ok(name) => Model {
            name: Some(name),
            results: Some(results),
            warning: None,
        },
        Err(why) => Model {
            warning: Some(format!(
                "{}: the harness's results file {}: {why}",
                path.display(),
                results.display()
            )),
            results: Some(results),
            name: None,
        },
    }
}

/// The name of the folder that holds the samples file `path` (canonical, so
/// that `.` is the folder's own name): the harness writes samples to
/// `<output_path>/<model, sanitized>/`, so it is the model's name (`dummy`,
/// `org__Model-7B`). None for a file at the root.
pub fn folder_name(path: &Path) -> Option<String> {
    let parent = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
    let name = parent.file_name()?.to_string_lossy().into_owned();
    (!name.is_empty()).then_some(name)
}

/// The results file of the run that wrote the samples file `path`.
fn results_beside(path: &Path) -> Option<PathBuf> {
    let (_, date) = task_and_date(path)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let results = dir.join(format!("results_{date}.json"));
    if results.is_file() {
        return Some(results);
    }
    // `--output_path NAME.json` names it `NAME_<date>.json`.
    let suffix = format!("_{date}.json");
    let mut others = std::fs::read_dir(dir).ok()?.filter_map(|entry| {
        let path = entry.ok()?.path();
        let name = path.file_name()?.to_str()?;
        (name.ends_with(&suffix) && !name.starts_with("samples_") && path.is_file()).then_some(path)
    });
    let first = others.next()?;
    others.next().is_none().then_some(first)
}

/// The arguments that name the model, in the order the harness looks for one.
const MODEL_ARGS: [&str; 6] = ["peft", "delta", "pretrained", "model", "path", "engine"];

/// The model a results file names: `model_name`, else the first of
/// [`MODEL_ARGS`] in `config.model_args` (a table, or `k=v,k=v` in older
/// versions).
fn name_in_results(results: &Value) -> Option<String> {
    let named = |text: &str| Some(text.trim().to_string()).filter(|t| !t.is_empty());
    if let Some(name) = results
        .get("model_name")
        .and_then(Value::as_str)
        .and_then(named)
    {
        return Some(name);
    }
    let args = results.get("config")?.get("model_args")?;
    MODEL_ARGS.iter().find_map(|key| match args {
        Value::Object(table) => table.get(*key).and_then(Value::as_str).and_then(named),
        Value::String(line) => line
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| k.trim() == *key)
            .and_then(|(_, v)| named(v)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line as the harness writes it (keys in its order), with `resps` and
    /// `filtered_resps` given as JSON text, and `filter` when given.
    fn line(doc_id: u32, doc: &str, resps: &str, filtered: &str, filter: Option<&str>) -> String {
        let filter = filter.map_or(String::new(), |f| format!(", \"filter\": \"{f}\""));
        format!(
            "{{\"doc_id\": {doc_id}, \"doc\": {doc}, \"target\": \"t\", \"arguments\": {{\"gen_args_0\": {{\"arg_0\": \"Summarize\", \"arg_1\": {{}}}}}}, \"resps\": {resps}, \"filtered_resps\": {filtered}{filter}, \"metrics\": [\"bypass\"], \"bypass\": null}}"
        )
    }

    fn doc(id: &str) -> String {
        format!("{{\"id\": {id}, \"published\": \"2021-01-21 00:00:00\", \"document\": \"Ann Hale spoke.\", \"summary\": \"s\"}}")
    }

    fn read_all(
        lines: &[String],
        dates: Dates,
    ) -> Result<(Vec<Prediction>, HarnessFile), ScoreError> {
        read(Path::new("samples_t_2026.jsonl"), lines, dates)
    }

    #[test]
    fn samples_are_known_by_their_first_line_not_their_name() {
        assert!(is_samples(&line(
            0,
            &doc("\"a\""),
            "[[\"x\"]]",
            "[\"x\"]",
            None
        )));
        let no_filtered = "{\"doc_id\": 0, \"doc\": {\"id\": \"a\"}, \"resps\": [[\"x\"]]}";
        assert!(is_samples(no_filtered));
        for other in [
            "{\"id\": \"a\", \"summary\": \"x\"}",
            "{\"doc_id\": 0, \"doc\": \"a\", \"resps\": [[\"x\"]]}",
            "{\"doc\": {\"id\": \"a\"}, \"resps\": [[\"x\"]]}",
            "{\"doc_id\": 0, \"doc\": {\"id\": \"a\"}, \"summary\": \"x\"}",
            "[1, 2]",
            "not json",
        ] {
            assert!(!is_samples(other), "{other}");
        }
    }

    /// Every shape of a response gives its first text; missing, null and empty
    /// ones an empty summary, never a dropped one.
    #[test]
    fn the_first_filtered_response_of_every_shape_and_empty_ones() {
        let lines = [
            line(
                0,
                &doc("\"a\""),
                "[[\"raw a\"]]",
                "[\"filtered a\"]",
                Some("none"),
            ),
            line(
                1,
                &doc("7"),
                "[[\"b1\", \"b2\"]]",
                "[[\"b1\", \"b2\"]]",
                None,
            ),
            line(2, &doc("\"c\""), "[[\"c\"]]", "\"flat c\"", None),
            line(3, &doc("\"d\""), "[[\"d\"]]", "null", None),
            line(4, &doc("\"e\""), "[[\"e\"]]", "[]", None),
            line(5, &doc("\"f\""), "[]", "[[]]", None),
            line(6, &doc("\"g\""), "[[\"\"]]", "[\"\"]", None),
            format!(
                "{{\"doc_id\": 7, \"doc\": {}, \"resps\": [[\"raw h\"]]}}",
                doc("\"h\"")
            ),
            format!(
                "{{\"doc_id\": 8, \"doc\": {}, \"resps\": null}}",
                doc("\"i\"")
            ),
            String::new(),
        ];
        let (rows, file) = read_all(&lines, Dates::FromSet).unwrap();
        let got: Vec<(usize, &str, &str)> = rows
            .iter()
            .map(|r| (r.line, r.id.as_str(), r.summary.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (1, "a", "filtered a"),
                (2, "7", "b1"),
                (3, "c", "flat c"),
                (4, "d", ""),
                (5, "e", ""),
                (6, "f", ""),
                (7, "g", ""),
                (8, "h", "raw h"),
                (9, "i", ""),
            ]
        );
        assert_eq!(file.task.as_deref(), Some("t"));
        assert_eq!(file.filters, ["none"]);
        assert_eq!(file.logged_again, None);
        assert_eq!(file.note("f.jsonl"), None);
        assert!(rows.iter().all(|r| r.published.is_none()));
    }

    /// Without a set, the date and text come from the document.
    #[test]
    fn without_a_set_the_document_gives_date_and_text() {
        let lines = [line(0, &doc("\"a\""), "[[\"x\"]]", "[\"x\"]", None)];
        let (rows, _) = read_all(&lines, Dates::Required).unwrap();
        assert_eq!(
            rows[0].published,
            chrono::NaiveDate::from_ymd_opt(2021, 1, 21)
        );
        assert_eq!(rows[0].document.as_deref(), Some("Ann Hale spoke."));
        let undated = [line(0, "{\"id\": \"a\"}", "[[\"x\"]]", "[\"x\"]", None)];
        let m = read_all(&undated, Dates::Required).unwrap_err().to_string();
        assert!(m.ends_with("samples_t_2026.jsonl:1: no `doc.published` date (YYYY-MM-DD): summaries without a set need their article's date"), "{m}");
    }

    /// Two filters: every document twice, grouped by filter; the first line of
    /// each is scored, and the file says so.
    #[test]
    fn a_document_logged_twice_is_scored_once_from_its_first_line() {
        let lines = [
            line(
                0,
                &doc("\"a\""),
                "[[\"A\", \"A2\"]]",
                "[\"A\"]",
                Some("none"),
            ),
            line(
                1,
                &doc("\"b\""),
                "[[\"B\", \"B2\"]]",
                "[\"B\"]",
                Some("none"),
            ),
            line(
                0,
                &doc("\"a\""),
                "[[\"A\", \"A2\"]]",
                "[[\"a\", \"a2\"]]",
                Some("lowercase"),
            ),
            line(
                1,
                &doc("\"b\""),
                "[[\"B\", \"B2\"]]",
                "[[\"b\", \"b2\"]]",
                Some("lowercase"),
            ),
            line(
                2,
                &doc("\"c\""),
                "[[\"C\"]]",
                "[[\"c\"]]",
                Some("lowercase"),
            ),
        ];
        let (rows, file) = read_all(&lines, Dates::FromSet).unwrap();
        let got: Vec<(usize, &str, &str)> = rows
            .iter()
            .map(|r| (r.line, r.id.as_str(), r.summary.as_str()))
            .collect();
        assert_eq!(got, [(1, "a", "A"), (2, "b", "B"), (5, "c", "c")]);
        assert_eq!(file.filters, ["none", "lowercase"]);
        assert_eq!(
            file.logged_again,
            Some(LoggedAgain {
                documents: 2,
                min_times: 2,
                max_times: 2,
                scored_filters: vec!["none".into()],
            })
        );
        assert_eq!(
            file.note("s.jsonl").as_deref(),
            Some("s.jsonl: 2 documents logged 2 times (filters `none`, `lowercase`): scored the first line of each (filter `none`), its first response")
        );
        assert_eq!(file.rule, RULE);
        // Repeats without a filter: one document three times, another twice.
        let repeats = [
            line(0, &doc("\"a\""), "[[\"1\"]]", "[\"1\"]", None),
            line(0, &doc("\"a\""), "[[\"2\"]]", "[\"2\"]", None),
            line(1, &doc("\"b\""), "[[\"3\"]]", "[\"3\"]", None),
            line(0, &doc("\"a\""), "[[\"4\"]]", "[\"4\"]", None),
            line(1, &doc("\"b\""), "[[\"5\"]]", "[\"5\"]", None),
        ];
        let (rows, file) = read_all(&repeats, Dates::FromSet).unwrap();
        assert_eq!(
            (rows[0].summary.as_str(), rows[1].summary.as_str()),
            ("1", "3")
        );
        assert!(
            file.note("r.jsonl")
                .unwrap()
                .starts_with("r.jsonl: 2 documents logged 2 to 3 times (filter `none`)"),
            "{:?}",
            file.note("r.jsonl")
        );
    }

    /// Empty responses of a task with stop strings are warned of, naming the
    /// stops and `--no-until`; none without empty responses or stops.
    #[test]
    fn empty_responses_cut_by_a_stop_string_are_warned_of() {
        let with_stops = |until: &str, responses: [&str; 2]| {
            let lines: Vec<String> = responses
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let filtered = serde_json::to_string(&[r]).unwrap();
                    let text = line(i as u32, &doc(&format!("\"{i}\"")), "[]", &filtered, None);
                    text.replace(
                        "\"arg_1\": {}",
                        &format!("\"arg_1\": {{\"until\": {until}}}"),
                    )
                })
                .collect();
            read_all(&lines, Dates::FromSet)
                .unwrap()
                .1
                .stop_warning("s.jsonl")
        };
        let warning = with_stops("[\"\\n\\n\", \"###\"]", ["", "Ann Hale spoke."]).unwrap();
        assert!(
            warning.starts_with("s.jsonl: 1 of 2 responses empty, scored as summaries with no claim; the task stops at \"\\n\\n\", \"###\", where"),
            "{warning}"
        );
        assert!(
            warning
                .ends_with("export the tasks with `tempora harness --no-until` and run them again"),
            "{warning}"
        );
        assert!(with_stops("\"\\n\\n\"", ["", " "])
            .unwrap()
            .contains("2 of 2 responses empty"));
        assert_eq!(with_stops("[\"\\n\\n\"]", ["a", "b"]), None);
        assert_eq!(with_stops("[]", ["", ""]), None);
    }

    /// One document logged again, under one filter: said in the singular.
    #[test]
    fn one_document_logged_again_is_said_in_the_singular() {
        let lines = [
            line(0, &doc("\"a\""), "[[\"1\"]]", "[\"1\"]", None),
            line(1, &doc("\"b\""), "[[\"2\"]]", "[\"2\"]", None),
            line(0, &doc("\"a\""), "[[\"3\"]]", "[\"3\"]", None),
        ];
        let (_, file) = read_all(&lines, Dates::FromSet).unwrap();
        assert_eq!(
            file.note("s.jsonl").as_deref(),
            Some("s.jsonl: 1 document logged 2 times (filter `none`): scored the first line of each (filter `none`), its first response")
        );
    }

    #[test]
    fn bad_lines_are_refused_naming_the_line() {
        let good = line(0, &doc("\"a\""), "[[\"x\"]]", "[\"x\"]", None);
        let cases = [
            (
                line(1, "{\"title\": \"no id\"}", "[[\"x\"]]", "[\"x\"]", None),
                ":2: the document (`doc`) has no `id`: samples of another task?",
            ),
            (
                line(1, &doc("\"  \""), "[[\"x\"]]", "[\"x\"]", None),
                ":2: `doc.id` is empty",
            ),
            (
                line(1, &doc("[1]"), "[[\"x\"]]", "[\"x\"]", None),
                ":2: `doc.id` is [1], not an id",
            ),
            (
                line(1, &doc("\"b\""), "[[\"x\"]]", "[{\"a\": 1}]", None),
                ":2: `filtered_resps` holds {\"a\":1}, not a response's text",
            ),
            (
                "{\"doc_id\": 1, \"resps\": [[\"x\"]]}".into(),
                ":2: no `doc` object",
            ),
            ("{\"doc_id\": 1, \"doc\": ".into(), ":2: not JSON"),
            ("[]".into(), ":2: not a JSON object"),
        ];
        for (bad, expected) in cases {
            let m = read_all(&[good.clone(), bad], Dates::FromSet)
                .unwrap_err()
                .to_string();
            assert!(
                m.contains(&format!("samples_t_2026.jsonl{expected}")),
                "{m}"
            );
        }
    }

    /// The folder's name, `.` by its own (canonical) name; none at the root.
    #[test]
    fn the_folder_of_samples_is_named_canonically() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("org__M-7B");
        std::fs::create_dir(&model).unwrap();
        let samples = model.join("samples_t_2026.jsonl");
        assert_eq!(folder_name(&samples).as_deref(), Some("org__M-7B"));
        let dotted = model.join(".").join("samples_t_2026.jsonl");
        assert_eq!(folder_name(&dotted).as_deref(), Some("org__M-7B"));
        assert_eq!(folder_name(Path::new("/samples_t_2026.jsonl")), None);
        let here = std::env::current_dir().unwrap();
        let name = here.file_name().map(|n| n.to_string_lossy().into_owned());
        assert_eq!(folder_name(Path::new("samples_t_2026.jsonl")), name);
    }

    #[test]
    fn the_task_and_date_come_from_the_harness_file_name() {
        let parts = |name: &str| task_and_date(Path::new(name));
        assert_eq!(
            parts("out/m/samples_tempora_demo_future_2026-11-29T10-14-36.472379.jsonl"),
            Some((
                "tempora_demo_future".into(),
                "2026-11-29T10-14-36.472379".into()
            ))
        );
        assert_eq!(parts("samples_future.jsonl"), None);
        assert_eq!(parts("preds.jsonl"), None);
        assert_eq!(parts("samples__2026.jsonl"), None);
    }

    /// The model: `model_name`, else the model argument (a table, or a line of
    /// `k=v` in older versions); a results file that cannot be read names none,
    /// and says why.
    #[test]
    fn the_results_file_of_the_same_run_names_the_model() {
        let dir = tempfile::tempdir().unwrap();
        let samples = dir.path().join("samples_t_2026-01-02T03-04-05.6.jsonl");
        let results = dir.path().join("results_2026-01-02T03-04-05.6.json");
        assert_eq!(model_of(&samples), Model::default());
        let model = |text: &str| {
            std::fs::write(&results, text).unwrap();
            model_of(&samples)
        };
        let named = model(
            "{\"model_name\": \"org/M-7B\", \"config\": {\"model_args\": {\"pretrained\": \"x\"}}}",
        );
        assert_eq!(named.name.as_deref(), Some("org/M-7B"));
        assert_eq!(named.results.as_deref(), Some(results.as_path()));
        let args = model("{\"model_name\": \"\", \"config\": {\"model\": \"hf\", \"model_args\": {\"pretrained\": \"org/P\", \"dtype\": \"auto\"}}}");
        assert_eq!(args.name.as_deref(), Some("org/P"));
        let line = model("{\"config\": {\"model_args\": \"dtype=float16, pretrained=org/Old ,trust_remote_code=True\"}}");
        assert_eq!(line.name.as_deref(), Some("org/Old"));
        let api =
            model("{\"config\": {\"model_args\": \"model=gpt-x,base_url=http://127.0.0.1\"}}");
        assert_eq!(api.name.as_deref(), Some("gpt-x"));
        let none = model("{\"config\": {\"model_args\": \"\"}}");
        assert_eq!(none.name, None);
        assert!(none
            .warning
            .unwrap()
            .ends_with("it names no model (`model_name`, `config.model_args`)"));
        let broken = model("{\"model_name\": ");
        assert_eq!(broken.name, None);
        let warning = broken.warning.unwrap();
        assert!(
            warning.contains("results_2026-01-02T03-04-05.6.json: not JSON"),
            "{warning}"
        );
        // `--output_path NAME.json`: the results file is `NAME_<date>.json`.
        std::fs::remove_file(&results).unwrap();
        let other = dir.path().join("run_2026-01-02T03-04-05.6.json");
        std::fs::write(&other, "{\"model_name\": \"org/N\"}").unwrap();
        assert_eq!(model_of(&samples).name.as_deref(), Some("org/N"));
    }
}
