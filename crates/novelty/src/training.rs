//! Reading summary files: the training summaries of `novelty` and `diversify`
//! (the test records of `tempora novelty` are read by [`crate::test_records`]).
//!
//! Three formats, told apart by the file name: `.parquet` (a Hugging Face export of
//! XSum or CNN/DailyMail loads as it is; a list-of-strings column is joined with
//! newlines), `.jsonl`, `.json` or `.ndjson` (one JSON object per line; the summary
//! is the string in field `field`), and anything else as text with one summary per
//! line. Blank lines are not records in either line format. Each file is one
//! sequence of *samples*, numbered from 0 across all files in order; every reader
//! here numbers them the same way, so a later pass can find a sample's line again.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};

use crate::error::NoveltyError;

/// Input bytes read per chunk: enough to keep every core busy, small beside the index.
const CHUNK_BYTES: usize = 8 << 20;

/// The format of a summary file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON lines: one object per line.
    Jsonl,
    /// Plain text: one summary per line.
    Text,
    /// Parquet: one row per record.
    Parquet,
}

impl Format {
    /// The format of `path`, by its extension.
    pub fn of(path: &Path) -> Self {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("parquet") => Self::Parquet,
            Some("jsonl" | "json" | "ndjson") => Self::Jsonl,
            _ => Self::Text,
        }
    }

    /// The usual extension of files of this format.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Text => "txt",
            Self::Parquet => "parquet",
        }
    }
}

/// Reads the summaries of every sample of `paths`, in order, handing them to `chunk`
/// a few megabytes at a time (JSON is parsed on every core).
///
/// # Errors
/// A file that cannot be read; a line that is not a JSON object, or has no string
/// `field` (the error names the file, line and field); a Parquet file without a text
/// column `field`; or `chunk`'s own error.
pub fn read_summaries(
    paths: &[PathBuf],
    field: &str,
    mut chunk: impl FnMut(Vec<String>) -> Result<(), NoveltyError>,
) -> Result<(), NoveltyError> {
    for path in paths {
        match Format::of(path) {
            Format::Parquet => {
                let values = tempora_sink::parquet::read_text_column(open(path)?, field)
                    .map_err(|e| NoveltyError::file(path, format!("field `{field}`: {e}")))?;
                let mut values = values.into_iter().map(Option::unwrap_or_default);
                loop {
                    let part: Vec<String> = values.by_ref().take(1 << 16).collect();
                    if part.is_empty() {
                        break;
                    }
                    chunk(part)?;
                }
            }
            format => {
                let json = format == Format::Jsonl;
                for_each_line_chunk(path, |first_line, lines| {
                    let summaries = lines
                        .par_iter()
                        .map(|(offset, line)| {
                            if json {
                                summary_of_json(line, field).map_err(|message| {
                                    NoveltyError::line(path, first_line + offset, message)
                                })
                            } else {
                                Ok(String::from_utf8_lossy(line).into_owned())
                            }
                        })
                        .collect::<Vec<Result<String, NoveltyError>>>()
                        // The first bad line in file order, whichever thread met it.
                        .into_iter()
                        .collect::<Result<Vec<String>, NoveltyError>>()?;
                    chunk(summaries)
                })?;
            }
        }
    }
    Ok(())
}

/// Calls `f` with chunks of a line file's records: `(line number of the chunk's
/// first line, [(lines after it, record line without its end)])`, blank lines left out.
fn for_each_line_chunk(
    path: &Path,
    mut f: impl FnMut(usize, &[(usize, &[u8])]) -> Result<(), NoveltyError>,
) -> Result<(), NoveltyError> {
    let mut reader = BufReader::with_capacity(1 << 20, open(path)?);
    let mut buffer = Vec::with_capacity(CHUNK_BYTES + (1 << 16));
    let mut line_no = 1;
    loop {
        buffer.clear();
        while buffer.len() < CHUNK_BYTES {
            let n = reader
                .read_until(b'\n', &mut buffer)
                .map_err(|e| NoveltyError::io(path, e))?;
            if n == 0 {
                break;
            }
        }
        if buffer.is_empty() {
            return Ok(());
        }
        let mut lines = Vec::new();
        let mut count = 0;
        for (offset, line) in buffer.split_inclusive(|b| *b == b'\n').enumerate() {
            count += 1;
            let line = trim_end(line);
            if !line.iter().all(u8::is_ascii_whitespace) {
                lines.push((offset, line));
            }
        }
        f(line_no, &lines)?;
        line_no += count;
    }
}

fn trim_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

fn open(path: &Path) -> Result<File, NoveltyError> {
    File::open(path).map_err(|e| NoveltyError::io(path, e))
}

/// The summary in `field` of one JSON line: a string, a list of strings (joined with
/// newlines) or null (an empty summary).
///
/// # Errors
/// When the line is not a JSON object or the field is missing or of another type.
pub fn summary_of_json(line: &[u8], field: &str) -> Result<String, String> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let found = FieldSeed(field)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| format!("not a JSON object: {e}"))?;
    match found {
        Some(summary) => Ok(summary),
        None => Err(format!(
            "no field `{field}` (choose the field with --field)"
        )),
    }
}

/// The summary in `field` of a parsed JSON record, by the rules of [`summary_of_json`].
///
/// # Errors
/// When the field is missing or of another type.
pub fn summary_of_record(
    record: &serde_json::Map<String, serde_json::Value>,
    field: &str,
) -> Result<String, String> {
    use serde::Deserialize as _;
    let value = record
        .get(field)
        .ok_or_else(|| format!("no field `{field}` (choose the field with --field)"))?;
    Option::<Text>::deserialize(value)
        .map(|t| t.map(|t| t.0).unwrap_or_default())
        .map_err(|e| e.to_string())
}

/// Deserializes one field of a JSON object without building the rest.
struct FieldSeed<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Option<String>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed<'_> {
    type Value = Option<String>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.0 && found.is_none() {
                let value: Option<Text> = map.next_value()?;
                found = Some(value.map(|t| t.0).unwrap_or_default());
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// A string, or a list of strings joined with newlines.
struct Text(String);

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Either {
            One(String),
            Many(Vec<String>),
        }
        match Either::deserialize(d) {
            Ok(Either::One(s)) => Ok(Text(s)),
            Ok(Either::Many(v)) => Ok(Text(v.join("\n"))),
            Err(_) => Err(de::Error::custom(
                "the summary field holds neither a string nor a list of strings",
            )),
        }
    }
}

/// Writes, for each `(keep, out)` of `subsets`, the samples of `paths` whose entry
/// in `keep` is true to `out`, unchanged: the lines of JSONL and text files byte for
/// byte, each followed by `\n`. The inputs are read once for every subset.
///
/// # Errors
/// A file that cannot be read or written; a Parquet input (see
/// [`write_selected_parquet`]); a `keep` shorter than the samples.
pub fn write_selected_lines<W: Write>(
    paths: &[PathBuf],
    subsets: &mut [(&[bool], W)],
) -> Result<(), NoveltyError> {
    let mut sample = 0usize;
    for path in paths {
        if Format::of(path) == Format::Parquet {
            return Err(NoveltyError::file(
                path,
                "a Parquet file among line files: give inputs of one format".into(),
            ));
        }
        for_each_line_chunk(path, |_, lines| {
            for (_, line) in lines {
                for (keep, out) in subsets.iter_mut() {
                    let kept = *keep.get(sample).ok_or_else(|| {
                        NoveltyError::file(path, "more samples than when first read".into())
                    })?;
                    if kept {
                        out.write_all(line)
                            .and_then(|()| out.write_all(b"\n"))
                            .map_err(|e| NoveltyError::io(path, e))?;
                    }
                }
                sample += 1;
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Writes the rows of one Parquet input whose entry in `keep` is true to `out`, with
/// the input's schema.
///
/// # Errors
/// A file that cannot be read or written.
pub fn write_selected_parquet(path: &Path, keep: &[bool], out: &File) -> Result<(), NoveltyError> {
    tempora_sink::parquet::write_rows_where(open(path)?, keep, out)
        .map_err(|e| NoveltyError::file(path, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_one_field_and_skips_the_rest() {
        let line =
            br#"{"id": 1, "document": {"nested": [1, 2]}, "summary": "It rained.", "x": null}"#;
        assert_eq!(summary_of_json(line, "summary").unwrap(), "It rained.");
        let listed = br#"{"highlights": ["One.", "Two."]}"#;
        assert_eq!(summary_of_json(listed, "highlights").unwrap(), "One.\nTwo.");
        assert_eq!(
            summary_of_json(br#"{"summary": null}"#, "summary").unwrap(),
            ""
        );
    }

    #[test]
    fn names_what_is_wrong_with_a_line() {
        let missing = summary_of_json(br#"{"highlights": "x"}"#, "summary").unwrap_err();
        assert!(missing.contains("no field `summary`"), "{missing}");
        let broken = summary_of_json(br#"{"summary": "x""#, "summary").unwrap_err();
        assert!(broken.contains("not a JSON object"), "{broken}");
        let typed = summary_of_json(br#"{"summary": 3}"#, "summary").unwrap_err();
        assert!(typed.contains("neither a string"), "{typed}");
        let array = summary_of_json(br#"["summary"]"#, "summary").unwrap_err();
        assert!(array.contains("not a JSON object"), "{array}");
        let trailing = summary_of_json(br#"{"summary": "x"} {}"#, "summary").unwrap_err();
        assert!(trailing.contains("not a JSON object"), "{trailing}");
    }

    #[test]
    fn reads_line_files_in_order_and_reports_the_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let jsonl = dir.path().join("a.jsonl");
        std::fs::write(
            &jsonl,
            "{\"summary\": \"one\"}\n\n{\"summary\": \"two\"}\r\n",
        )
        .unwrap();
        let text = dir.path().join("b.txt");
        std::fs::write(&text, "three\nfour").unwrap();
        let mut all = Vec::new();
        read_summaries(&[jsonl.clone(), text], "summary", |chunk| {
            all.extend(chunk);
            Ok(())
        })
        .unwrap();
        assert_eq!(all, ["one", "two", "three", "four"]);

        std::fs::write(&jsonl, "{\"summary\": \"one\"}\n\n{\"summary\": 1}\n").unwrap();
        let err = read_summaries(&[jsonl], "summary", |_| Ok(())).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("a.jsonl") && message.contains("line 3"),
            "{message}"
        );
    }

    #[test]
    fn writes_the_kept_lines_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let jsonl = dir.path().join("a.jsonl");
        std::fs::write(
            &jsonl,
            "{\"summary\":\"one\", \"id\": 1}\n\n{\"summary\":\"two\"}\n",
        )
        .unwrap();
        let mut out = Vec::new();
        write_selected_lines(
            std::slice::from_ref(&jsonl),
            &mut [(&[false, true][..], &mut out)],
        )
        .unwrap();
        assert_eq!(out, b"{\"summary\":\"two\"}\n");
        assert!(write_selected_lines(&[jsonl], &mut [(&[true][..], &mut out)]).is_err());
    }
}
