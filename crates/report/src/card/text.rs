//! The card's "The publishers' text" section: which files of the folder, as
//! written, hold text the publishers own (titles, summaries and bodies of
//! articles, minimal pairs made from them, archived pages), so that whoever
//! shares the folder knows what they hand over; or that no file holds any.
//!
//! A file holds text when a record in it does: an article, a minimal pair or a
//! page (Parquet files by their schema, JSON lines by their fields, a rejected
//! record by the record it carries), a scored summary of the `reference` system
//! (a set's own summaries), or WARC files. The manifest, the facts, the
//! captures, models' scored summaries and `run.json` hold none.
//!
//! The runs' own records (`rejected.jsonl`: the pages and articles a run could
//! not use) are named in the release section instead, as the run's: a rebuild of
//! the same sets rejects nothing and makes the same section here.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::BufRead as _;
use std::path::Path;

use serde_json::Value;
use tempora_sink::parquet::{read_footer, read_text_column};

use super::CardError;
use crate::markdown::code;

/// The fields of a JSON record that hold the publishers' text: an article's
/// `title`, `summary` and `document`, a pair's `article` and
/// `reference_summary`, a page's `body`.
const TEXT_FIELDS: [&str; 6] = [
    "document",
    "summary",
    "title",
    "article",
    "reference_summary",
    "body",
];

/// The system whose scored summaries are a set's own (reference) summaries.
const REFERENCE: &str = tempora_score::job::REFERENCE;

/// The files of a folder that hold the publishers' text, relative, sorted.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct TextFiles {
    /// The outputs: sets, pairs, pages, scores, ... (what a rebuild makes again).
    pub outputs: Vec<String>,
    /// The runs' own records (`rejected.jsonl`, `runs/*/rejected.jsonl`): what a
    /// run rejected, which another run of the same sets (a rebuild) need not.
    pub records: Vec<String>,
}

impl TextFiles {
    /// Whether no file holds the publishers' text, outputs or records.
    pub(crate) fn is_empty(&self) -> bool {
        self.outputs.is_empty() && self.records.is_empty()
    }
}

/// The run's own records among the files: they are the run's, not the sets'.
const RUN_RECORDS: [&str; 1] = ["rejected.jsonl"];

/// Writes the section: which outputs of the folder hold the publishers' text;
/// `manifest` says whether the folder has the manifest config (the articles
/// without their text). The runs' own records are the release's (see
/// [`records_line`]): a rebuild of the same sets says the same here.
pub(super) fn render(md: &mut String, files: &TextFiles, manifest: bool) {
    let mut text = statement(&files.outputs, manifest);
    if files.is_empty() {
        // Not even the runs' own records: the folder holds none of it at all.
        text = text.replacen("No output file of this folder", "No file of this folder", 1);
    }
    md.push_str(&text);
}

/// The release's line on the runs' own records that hold the publishers' text,
/// if any do.
pub(super) fn records_line(files: &TextFiles) -> Option<String> {
    if files.records.is_empty() {
        return None;
    }
    let names: Vec<String> = files.records.iter().map(|f| code(f)).collect();
    Some(format!(
        "The records of what the runs rejected, {}, hold the publishers' text too (the pages \
         and articles they could not use, with their text): share them only where the terms \
         allow.\n",
        names.join(", ")
    ))
}

/// The section's text for a folder whose outputs holding text are `files`.
fn statement(files: &[String], manifest: bool) -> String {
    let mut md = String::from("## The publishers' text\n\n");
    if files.is_empty() {
        md.push_str("No output file of this folder holds the publishers' text");
        if manifest {
            md.push_str(
                ": the `manifest` config names each article by its capture in the Internet \
                 Archive, without its text. Whoever wants the sets makes them from it (see \
                 Rebuilding the sets below; `PATH` is this folder):\n\n\
                 ```sh\ntempora rebuild PATH/manifest.jsonl --out sets --contact you@example.org\n```\n\n",
            );
            return md;
        }
        md.push_str(".\n\n");
        return md;
    }
    let names: Vec<String> = files.iter().map(|f| code(f)).collect();
    let _ = write!(
        md,
        "This folder holds the publishers' text (the articles' titles, summaries and bodies, \
         or the pages they were read from) in {}. Their terms apply to these files (see \
         Licence): share them only where the terms allow.",
        names.join(", ")
    );
    if manifest {
        md.push_str(
            " The manifest files alone (`manifest.jsonl` or `manifest.parquet`, with \
             `manifest.inputs.json` and `manifest.facts.jsonl`) hold none of it, and the \
             sets are rebuilt from them (below): `tempora publish PATH --to DIR` copies them, \
             with the facts and a card of their own, to a folder `DIR` that holds no text, to \
             share where these files may not be.",
        );
    }
    md.push_str("\n\n");
    md
}

/// The files under `dir` that hold the publishers' text, relative and sorted,
/// outputs apart from the runs' own records; files of the runs' own folders
/// (`runs/<run>/rejected.jsonl`) are named once, as `runs/*/rejected.jsonl`.
///
/// # Errors
/// A file cannot be read, or a Parquet file's footer or column cannot.
pub(crate) fn files_with_text(dir: &Path) -> Result<TextFiles, CardError> {
    let files =
        tempora_sink::release::relative_files(dir, Path::new("")).map_err(CardError::io(dir))?;
    let (mut outputs, mut records) = (BTreeSet::new(), BTreeSet::new());
    for relative in files {
        if holds_text(&dir.join(&relative), &relative)? {
            let name = relative.rsplit('/').next().unwrap_or(&relative);
            let run_record = RUN_RECORDS.contains(&name);
            let list = if run_record {
                &mut records
            } else {
                &mut outputs
            };
            list.insert(per_run_pattern(&relative));
        }
    }
    Ok(TextFiles {
        outputs: outputs.into_iter().collect(),
        records: records.into_iter().collect(),
    })
}

/// `runs/<run>/NAME` as `runs/*/NAME`; other paths as they are.
fn per_run_pattern(relative: &str) -> String {
    match relative
        .strip_prefix("runs/")
        .and_then(|r| r.split_once('/'))
    {
        Some((_, rest)) => format!("runs/*/{rest}"),
        None => relative.to_string(),
    }
}

/// Whether the file at `path` (`relative` in the folder) holds the publishers' text.
pub(crate) fn holds_text(path: &Path, relative: &str) -> Result<bool, CardError> {
    if relative.ends_with(".warc") || relative.ends_with(".warc.gz") {
        return Ok(true);
    }
    if relative.ends_with(".parquet") {
        return parquet_holds_text(path);
    }
    if !relative.ends_with(".jsonl") {
        return Ok(false);
    }
    let file = std::fs::File::open(path).map_err(CardError::io(path))?;
    let keys: Vec<String> = TEXT_FIELDS.iter().map(|f| format!("\"{f}\"")).collect();
    for line in std::io::BufReader::new(file).lines() {
        let line = line.map_err(CardError::io(path))?;
        // Only a line that names a text field is parsed (a large file of captures
        // or facts is read, not parsed); one that is not JSON is no record of ours.
        let names_one = keys.iter().any(|k| line.contains(k.as_str()));
        if names_one && serde_json::from_str::<Value>(&line).is_ok_and(|v| record_holds_text(&v)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether a Parquet file has rows and a column of the publishers' text (scores:
/// only with reference summaries).
fn parquet_holds_text(path: &Path) -> Result<bool, CardError> {
    let unreadable = |e: String| CardError::NotOutput {
        path: path.to_path_buf(),
        reason: e,
    };
    let open = || std::fs::File::open(path).map_err(CardError::io(path));
    let footer =
        read_footer(open()?).map_err(|e| unreadable(format!("not a Parquet file: {e}")))?;
    if footer.rows == 0 {
        return Ok(false);
    }
    // By its columns, not its whole schema: a file written before a field was
    // added holds the text all the same.
    let columns: Vec<&str> = footer
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    if !columns.contains(&"system") {
        return Ok(TEXT_FIELDS.iter().any(|f| columns.contains(f)));
    }
    let systems = read_text_column(open()?, "system")
        .map_err(|e| unreadable(format!("cannot read column `system`: {e}")))?;
    Ok(systems.iter().flatten().any(|s| s == REFERENCE))
}

/// Whether a JSON line holds the publishers' text: a record with a text field
/// that is not empty (a scored summary only when it is the reference's), or a
/// rejected line whose record does.
fn record_holds_text(line: &Value) -> bool {
    if let Some(record) = line.get("record").filter(|_| line.get("stage").is_some()) {
        return record_holds_text(record);
    }
    let Some(fields) = line.as_object() else {
        return false;
    };
    if let Some(system) = fields.get("system") {
        return system.as_str() == Some(REFERENCE) && fields.get("summary").is_some_and(not_empty);
    }
    TEXT_FIELDS
        .iter()
        .any(|f| fields.get(*f).is_some_and(not_empty))
}

fn not_empty(value: &Value) -> bool {
    match value {
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn write_lines(dir: &Path, relative: &str, lines: &[Value]) {
        let path = dir.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path, text).unwrap();
    }

    /// A folder of the manifest files (and a run's record) alone.
    fn manifest_only() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write_lines(
            d,
            "manifest.jsonl",
            &[
                json!({ "source": "bbc", "id": "1", "url": "https://www.bbc.co.uk/news/1",
                      "summary_source": "intro", "timestamp": "20210121000000",
                      "archived_url": "https://www.bbc.co.uk/news/1", "text_sha256": "ab" }),
            ],
        );
        write_lines(
            d,
            "manifest.facts.jsonl",
            &[json!({ "subject": { "id": "Q1", "label": "A" }, "relation": "P39" })],
        );
        std::fs::write(d.join("manifest.inputs.json"), "{}").unwrap();
        std::fs::write(d.join("run.json"), "{\"run\": \"x\"}").unwrap();
        // Rejected records without text: a fact and a capture.
        write_lines(
            d,
            "rejected.jsonl",
            &[
                json!({ "stage": "facts", "reason": "no label", "record": { "subject": { "id": "Q2" } } }),
                json!({ "stage": "pages", "reason": "404", "record": { "url": "u", "timestamp": "t" } }),
            ],
        );
        // Scored summaries of a model only.
        write_lines(
            d,
            "scores/scores.jsonl",
            &[json!({ "id": "1", "system": "stale", "summary": "A model's words.", "claims": [] })],
        );
        dir
    }

    #[test]
    fn a_folder_of_manifest_files_holds_no_text_and_says_so() {
        let dir = manifest_only();
        let files = files_with_text(dir.path()).unwrap();
        assert_eq!(files, TextFiles::default());
        assert_eq!(records_line(&files), None);
        let mut md = String::new();
        render(&mut md, &files, true);
        assert!(
            md.contains("No file of this folder holds the publishers' text: the `manifest` config"),
            "{md}"
        );
        assert!(!md.contains("This folder holds"), "{md}");
        assert!(
            md.contains(
                "```sh\ntempora rebuild PATH/manifest.jsonl --out sets --contact you@example.org\n```"
            ),
            "{md}"
        );
        assert!(files.is_empty());
    }

    #[test]
    fn the_files_that_hold_text_are_named_and_those_that_do_not_are_not() {
        let dir = manifest_only();
        let d = dir.path();
        let article = json!({ "id": "1", "source": "bbc", "title": "A headline",
                              "summary": "Our own summary.", "document": "Our own body." });
        write_lines(d, "future.jsonl", std::slice::from_ref(&article));
        write_lines(d, "in_distribution.jsonl", &[]);
        write_lines(
            d,
            "pairs.jsonl",
            &[json!({ "id": "1#x", "article": "Our own body.", "reference_summary": "Ours." })],
        );
        for run in ["2026-01-01T000000Z", "2026-01-02T000000Z"] {
            write_lines(
                d,
                &format!("runs/{run}/rejected.jsonl"),
                &[json!({ "stage": "unseen", "reason": "listed", "record": article })],
            );
        }
        write_lines(
            d,
            "scores/scores.jsonl",
            &[
                json!({ "id": "1", "system": "stale", "summary": "A model's words." }),
                json!({ "id": "1", "system": "reference", "summary": "Our own summary." }),
            ],
        );
        let files = files_with_text(d).unwrap();
        assert_eq!(
            files.outputs,
            ["future.jsonl", "pairs.jsonl", "scores/scores.jsonl"]
        );
        assert_eq!(files.records, ["runs/*/rejected.jsonl"]);
        let mut md = String::new();
        render(&mut md, &files, true);
        assert!(
            md.contains(
                "holds the publishers' text (the articles' titles, summaries and bodies, or the \
                 pages they were read from) in `future.jsonl`, `pairs.jsonl`, \
                 `scores/scores.jsonl`."
            ),
            "{md}"
        );
        assert!(!md.contains("rejected"), "{md}");
        let line = records_line(&files).unwrap();
        assert!(
            line.starts_with(
                "The records of what the runs rejected, `runs/*/rejected.jsonl`, hold"
            ),
            "{line}"
        );
        assert!(md.contains("The manifest files alone"), "{md}");
        assert!(md.contains("`tempora publish PATH --to DIR`"), "{md}");
        assert!(!files.is_empty());
        assert!(!md.contains("not redistributed"), "{md}");
    }

    #[test]
    fn a_folder_whose_runs_records_alone_hold_text_says_no_output_file_does() {
        let files = TextFiles {
            outputs: Vec::new(),
            records: vec!["rejected.jsonl".into()],
        };
        let mut md = String::new();
        render(&mut md, &files, true);
        assert!(
            md.contains("No output file of this folder holds the publishers' text"),
            "{md}"
        );
        assert!(records_line(&files).is_some());
    }

    #[test]
    fn without_a_manifest_the_statement_does_not_speak_of_one() {
        let none = statement(&[], false);
        assert_eq!(
            none,
            "## The publishers' text\n\nNo output file of this folder holds the publishers' \
             text.\n\n"
        );
        let some = statement(&["future.jsonl".into()], false);
        assert!(!some.contains("manifest"), "{some}");
    }
}
