//! Finding the sets of an output directory and reading their article records.
//!
//! A *set* is one file of `DIR` (not its subdirectories), named by its stem
//! (`future.jsonl` is the set `future`, `future.T_nov.jsonl` the set `future.T_nov`):
//! a JSON lines file (`.jsonl`) or Parquet file (`.parquet`) whose first record has
//! the string fields `summary` and `document`, the names of the Hugging Face
//! XSum/TempoSum loaders. Skipped, and listed in the report with the reason:
//! `rejected.*` (records a stage could not use), files whose records have no
//! `summary`/`document` (other records), empty files, and a Parquet
//! file whose stem a JSONL file already names (the pipelines write Parquet copies
//! of their JSONL outputs; the JSONL file is read). Files of evolving facts (their
//! records have `relation` and `rank`) are not sets either: their facts are
//! counted per relation.
//!
//! Every line of a set must be an article: a line that is not JSON, or lacks a
//! string `summary` or `document`, stops the report with an error naming the file,
//! the line and the field. Nothing is skipped silently; blank lines are allowed.
//! Parquet files are read through polars and turned into JSON lines, so both formats
//! go through one parser; their errors name the row as the line.
//!
//! Other fields are read when present and ignored when their shape differs (the
//! report must work on any summarization dataset): `source` (string), `published`
//! (a date string whose first four characters are the year), `facts` (Tempora's
//! matched facts), `relations` (their property ids; in records written before
//! it, taken from `facts`) and `novelty` (`{overlap, bin, tag}` or null).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::error::ReportError;

/// How a set is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON lines.
    Jsonl,
    /// Parquet.
    Parquet,
}

/// One set: a file of article records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetFile {
    /// The set's name: the file's stem.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
}

/// A file of the directory that is not read as a set, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkippedFile {
    /// The file's name.
    pub file: String,
    /// Why it is skipped.
    pub reason: String,
}

/// The sets of a directory and the files skipped, both sorted by file name.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// Files read as sets.
    pub sets: Vec<SetFile>,
    /// Files of minimal pairs (JSONL), counted apart from the sets.
    pub pairs: Vec<SetFile>,
    /// Files of evolving facts (JSONL, or Parquet without a JSONL copy),
    /// counted per relation; they are among the files not read as sets too.
    pub facts: Vec<SetFile>,
    /// Files not read.
    pub skipped: Vec<SkippedFile>,
}

impl Discovery {
    /// A file of facts (`file` its name): counted per relation and listed among
    /// the files not read as sets; a copy of one already found (its Parquet
    /// copy) is only listed.
    fn add_facts(&mut self, file: &str, facts: SetFile) {
        let reason = match self.facts.iter().find(|f| f.name == facts.name) {
            Some(copy) => format!(
                "evolving facts: counted per relation from {}",
                copy.path.file_name().unwrap_or_default().to_string_lossy()
            ),
            None => {
                self.facts.push(facts);
                "evolving facts: counted per relation, not a set".into()
            }
        };
        self.skipped.push(SkippedFile {
            file: file.to_string(),
            reason,
        });
    }
}

/// Finds the sets of `dir`.
///
/// # Errors
/// `dir` cannot be listed, a candidate file cannot be read, its first line is not
/// JSON, or no set is found.
pub fn discover(dir: &Path) -> Result<Discovery, ReportError> {
    let mut found = Discovery::default();
    for (file, path) in files_of(dir)? {
        let (stem, format) = if let Some(stem) = file.strip_suffix(".jsonl") {
            (stem, Format::Jsonl)
        } else if let Some(stem) = file.strip_suffix(".parquet") {
            (stem, Format::Parquet)
        } else {
            continue;
        };
        let skip = |reason: String| SkippedFile {
            file: file.clone(),
            reason,
        };
        if stem == "rejected" {
            found
                .skipped
                .push(skip("rejected records, not a set".into()));
            continue;
        }
        if let Some(other) = found.sets.iter().find(|s| s.name == stem) {
            let other = other.path.file_name().unwrap_or_default().to_string_lossy();
            found
                .skipped
                .push(skip(format!("the set `{stem}` is read from {other}")));
            continue;
        }
        let columns = match format {
            Format::Jsonl => first_record_fields(&path)?,
            Format::Parquet => parquet_columns(&path)?,
        };
        match columns {
            None => found.skipped.push(skip("empty".into())),
            Some(c) if c.iter().any(|f| f == "summary") && c.iter().any(|f| f == "document") => {
                found.sets.push(SetFile {
                    name: stem.to_string(),
                    path,
                    format,
                });
            }
            Some(c) if is_pair_file(&c) && format == Format::Jsonl => {
                found.pairs.push(SetFile {
                    name: stem.to_string(),
                    path,
                    format,
                });
            }
            Some(c) if is_pair_file(&c) => found.skipped.push(skip(
                "minimal pairs in Parquet: their JSONL copy is counted".into(),
            )),
            Some(c) if is_facts_file(&c) => found.add_facts(
                &file,
                SetFile {
                    name: stem.to_string(),
                    path,
                    format,
                },
            ),
            Some(_) => found
                .skipped
                .push(skip("records have no `summary` and `document`".into())),
        }
    }
    if found.sets.is_empty() {
        return Err(ReportError::NoSets {
            dir: dir.to_path_buf(),
        });
    }
    Ok(found)
}

/// The files of `dir` (not its folders), by name, sorted.
fn files_of(dir: &Path) -> Result<Vec<(String, PathBuf)>, ReportError> {
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(ReportError::io(dir))? {
        let entry = entry.map_err(ReportError::io(dir))?;
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        files.push((name.to_string(), path));
    }
    files.sort();
    Ok(files)
}

/// The string fields of a JSONL file's first record; `None` for a file of blank lines.
fn first_record_fields(path: &Path) -> Result<Option<Vec<String>>, ReportError> {
    let reader = BufReader::new(File::open(path).map_err(ReportError::io(path))?);
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(ReportError::io(path))?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value: Value = serde_json::from_slice(&line).map_err(|e| ReportError::BadRecord {
            path: path.to_path_buf(),
            line: i + 1,
            message: format!("not JSON: {e}"),
        })?;
        let fields = match value {
            Value::Object(map) => map
                .into_iter()
                .filter(|(_, v)| v.is_string())
                .map(|(k, _)| k)
                .collect(),
            _ => Vec::new(),
        };
        return Ok(Some(fields));
    }
    Ok(None)
}

/// The column names of a Parquet file, with or without rows (a set with no
/// article is published as a file of its columns and no rows).
fn parquet_columns(path: &Path) -> Result<Option<Vec<String>>, ReportError> {
    let file = File::open(path).map_err(ReportError::io(path))?;
    let mut reader =
        tempora_sink::parquet::checked_reader(file).map_err(|e| parquet_error(path, &e))?;
    let schema = reader.schema().map_err(|e| parquet_error(path, &e))?;
    Ok(Some(schema.iter_names().map(|n| n.to_string()).collect()))
}

fn parquet_error(path: &Path, e: &polars::prelude::PolarsError) -> ReportError {
    ReportError::Parquet {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// The columns of a Parquet set the report reads.
const PARQUET_COLUMNS: [&str; 7] = [
    "summary",
    "document",
    "source",
    "published",
    "facts",
    "relations",
    "novelty",
];

/// Calls `chunk` with the set's lines, `chunk_lines` at a time, each with its
/// 1-based line number (row number for Parquet); blank lines are left out.
///
/// # Errors
/// The file cannot be read, or `chunk`'s error.
pub fn for_each_chunk(
    set: &SetFile,
    chunk_lines: usize,
    mut chunk: impl FnMut(&[(usize, Vec<u8>)]) -> Result<(), ReportError>,
) -> Result<(), ReportError> {
    let path = &set.path;
    let mut lines: Vec<(usize, Vec<u8>)> = Vec::with_capacity(chunk_lines);
    let mut push = |number: usize, line: Vec<u8>, lines: &mut Vec<(usize, Vec<u8>)>| {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        lines.push((number, line));
        if lines.len() >= chunk_lines {
            chunk(lines)?;
            lines.clear();
        }
        Ok::<(), ReportError>(())
    };
    match set.format {
        Format::Jsonl => {
            let reader =
                BufReader::with_capacity(1 << 20, File::open(path).map_err(ReportError::io(path))?);
            for (i, line) in reader.split(b'\n').enumerate() {
                push(i + 1, line.map_err(ReportError::io(path))?, &mut lines)?;
            }
        }
        Format::Parquet => {
            let json = parquet_as_json_lines(path)?;
            for (i, line) in json.split(|&b| b == b'\n').enumerate() {
                push(i + 1, line.to_vec(), &mut lines)?;
            }
        }
    }
    if !lines.is_empty() {
        chunk(&lines)?;
    }
    Ok(())
}

/// A Parquet file's report columns as JSON lines.
fn parquet_as_json_lines(path: &Path) -> Result<Vec<u8>, ReportError> {
    use polars::prelude::*;
    let file = File::open(path).map_err(ReportError::io(path))?;
    let mut reader =
        tempora_sink::parquet::checked_reader(file).map_err(|e| parquet_error(path, &e))?;
    let schema =
        tempora_sink::parquet::guarded(|| reader.schema()).map_err(|e| parquet_error(path, &e))?;
    let columns: Vec<String> = PARQUET_COLUMNS
        .iter()
        .filter(|c| schema.contains(c))
        .map(|c| (*c).to_string())
        .collect();
    let mut frame = tempora_sink::parquet::guarded(|| reader.with_columns(Some(columns)).finish())
        .map_err(|e| parquet_error(path, &e))?;
    let mut buffer = Vec::new();
    JsonWriter::new(&mut buffer)
        .with_json_format(JsonFormat::JsonLines)
        .finish(&mut frame)
        .map_err(|e| parquet_error(path, &e))?;
    Ok(buffer)
}

/// Which side of an evolving fact an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// The other side of a person's role: an office (P39's object, P1308's
    /// subject), a club, a company or an organization.
    Position,
    /// A person (P39's subject, P1308's object).
    Person,
}

impl Role {
    /// `position` or `person`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Position => "position",
            Self::Person => "person",
        }
    }
}

/// An entity of an evolving fact behind an article.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FactEntity {
    /// Position or person.
    pub role: Role,
    /// Wikidata id.
    pub id: String,
    /// English label (the id when the record has none).
    pub label: String,
}

/// An article's `novelty` field.
#[derive(Debug, Clone, PartialEq)]
pub struct NoveltyField {
    /// Percent of the summary's n-grams found in the training summaries.
    pub overlap: f64,
    /// The bin's label, `0-15`.
    pub bin: Option<String>,
    /// `T_nov`, `T_sim` or none.
    pub tag: Option<String>,
}

/// What the report reads of one article record.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticleRecord {
    /// Reference summary.
    pub summary: String,
    /// Article body.
    pub document: String,
    /// News source (`bbc`), when the record names one.
    pub source: Option<String>,
    /// Year of publication, when the record has a `published` date.
    pub year: Option<i32>,
    /// The entities of its evolving facts, sorted, each once.
    pub entities: Vec<FactEntity>,
    /// The relations of its evolving facts (`relations`, or, in records
    /// written before that field, its facts' relations), sorted, each once.
    pub relations: Vec<String>,
    /// Its novelty, when scored.
    pub novelty: Option<NoveltyField>,
}

#[derive(Deserialize)]
struct RawArticle {
    #[serde(default)]
    summary: Value,
    #[serde(default)]
    document: Value,
    #[serde(default)]
    source: Value,
    #[serde(default)]
    published: Value,
    #[serde(default)]
    facts: Value,
    #[serde(default)]
    relations: Value,
    #[serde(default)]
    novelty: Value,
}

/// Parses one JSON line into an article record.
///
/// # Errors
/// A message naming what is wrong: not a JSON object, or `summary`/`document`
/// missing or not a string.
pub fn parse_record(line: &[u8]) -> Result<ArticleRecord, String> {
    let raw: RawArticle =
        serde_json::from_slice(line).map_err(|e| format!("not an article record: {e}"))?;
    let text = |value: Value, field: &str| match value {
        Value::String(s) => Ok(s),
        Value::Null => Err(format!("field `{field}` is missing or null")),
        _ => Err(format!("field `{field}` is not a string")),
    };
    let summary = text(raw.summary, "summary")?;
    let document = text(raw.document, "document")?;
    let source = match raw.source {
        Value::String(s) if !s.is_empty() => Some(s),
        _ => None,
    };
    let year = match &raw.published {
        Value::String(s) => s.get(..4).and_then(|y| y.parse::<i32>().ok()),
        _ => None,
    };
    Ok(ArticleRecord {
        summary,
        document,
        source,
        year,
        entities: fact_entities(&raw.facts),
        relations: relations(&raw.relations, &raw.facts),
        novelty: novelty_field(&raw.novelty),
    })
}

/// The positions and people of an article's matched facts (`[{fact: {subject,
/// relation, object}}]`), the person's side as the shipped relation catalogue
/// says: P39's subject is a person and its object a position, P1308's subject
/// a position and its object the holder, P286's subject a club (the position)
/// and its object the manager. A relation the catalogue lacks is left out.
fn fact_entities(facts: &Value) -> Vec<FactEntity> {
    let Value::Array(facts) = facts else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for matched in facts {
        let fact = matched.get("fact").unwrap_or(matched);
        let relation = fact.get("relation").and_then(Value::as_str);
        let roles = match relation.and_then(crate::relations::person_side) {
            Some(tempora_relations::Side::Subject) => [Role::Person, Role::Position],
            Some(tempora_relations::Side::Object) => [Role::Position, Role::Person],
            None => continue,
        };
        for (side, role) in ["subject", "object"].into_iter().zip(roles) {
            let Some(entity) = fact.get(side) else {
                continue;
            };
            let Some(id) = entity.get("id").and_then(Value::as_str) else {
                continue;
            };
            let label = entity.get("label").and_then(Value::as_str).unwrap_or(id);
            out.push(FactEntity {
                role,
                id: id.to_string(),
                label: label.to_string(),
            });
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.role == b.role && a.id == b.id);
    out
}

/// An article's `relations` where it is a list of texts, else the relations of
/// its `facts`: sorted, each once.
fn relations(relations: &Value, facts: &Value) -> Vec<String> {
    let listed: Option<Vec<&str>> = relations
        .as_array()
        .and_then(|items| items.iter().map(Value::as_str).collect());
    let mut out: Vec<String> = match listed {
        Some(listed) => listed.into_iter().map(str::to_string).collect(),
        None => facts
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m.get("fact").unwrap_or(m).get("relation")?.as_str())
            .map(str::to_string)
            .collect(),
    };
    out.sort();
    out.dedup();
    out
}

/// An article's `novelty {overlap, bin, tag}`; `None` when null or shaped otherwise.
fn novelty_field(novelty: &Value) -> Option<NoveltyField> {
    let overlap = novelty.get("overlap")?.as_f64()?;
    let text = |k: &str| novelty.get(k).and_then(Value::as_str).map(str::to_string);
    Some(NoveltyField {
        overlap,
        bin: text("bin"),
        tag: text("tag"),
    })
}

/// Whether a file with these record fields holds evolving facts.
pub fn is_facts_file(fields: &[String]) -> bool {
    ["relation", "rank"]
        .iter()
        .all(|f| fields.iter().any(|g| g == f))
}

/// Whether a file with these record fields holds minimal pairs.
pub fn is_pair_file(fields: &[String]) -> bool {
    ["edited_summary", "fact_error"]
        .iter()
        .all(|f| fields.iter().any(|g| g == f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tempora_article_gives_its_fields() {
        let line = br#"{"id":"1","source":"bbc","published":"2021-01-21","summary":"S.","document":"D.",
            "facts":[{"fact":{"subject":{"id":"Q11696","label":"President of the United States"},
            "relation":"P1308","object":{"id":"Q6279","label":"Joe Biden"}},"mentions":[],"after_change":true},
            {"fact":{"subject":{"id":"Q6279","label":"Joe Biden"},"relation":"P39",
            "object":{"id":"Q11696","label":"President of the United States"}}}],
            "novelty":{"overlap":12.5,"bin":"10-15","tag":"T_nov"}}"#;
        let r = parse_record(line).unwrap();
        assert_eq!(r.source.as_deref(), Some("bbc"));
        assert_eq!(r.year, Some(2021));
        assert_eq!(r.entities.len(), 2);
        assert_eq!(r.entities[0].role, Role::Position);
        assert_eq!(r.entities[1].label, "Joe Biden");
        let n = r.novelty.unwrap();
        assert_eq!((n.overlap, n.tag.as_deref()), (12.5, Some("T_nov")));
    }

    #[test]
    fn a_club_s_manager_is_a_person_and_the_club_a_position_and_relations_are_read() {
        let line = br#"{"summary":"S.","document":"D.","relations":["P286"],
            "facts":[{"fact":{"subject":{"id":"Q9","label":"Harwick Rovers F.C."},"relation":"P286",
            "object":{"id":"Q8","label":"Edwin Mallory"}}},
            {"fact":{"subject":{"id":"Q7"},"relation":"P102","object":{"id":"Q6"}}}]}"#;
        let r = parse_record(line).unwrap();
        let roles: Vec<(Role, &str)> = r
            .entities
            .iter()
            .map(|e| (e.role, e.label.as_str()))
            .collect();
        // P102 is no shipped relation: left out.
        assert_eq!(
            roles,
            [
                (Role::Position, "Harwick Rovers F.C."),
                (Role::Person, "Edwin Mallory")
            ]
        );
        assert_eq!(r.relations, ["P286"]);
        // A record written before `relations`: its facts' relations.
        let older = br#"{"summary":"S.","document":"D.","facts":[{"fact":{"relation":"P39"}},
            {"fact":{"relation":"P1308"}},{"fact":{"relation":"P39"}}]}"#;
        assert_eq!(parse_record(older).unwrap().relations, ["P1308", "P39"]);
    }

    #[test]
    fn other_datasets_need_only_summary_and_document() {
        let r = parse_record(
            br#"{"id":"x","summary":"s","document":"d","published":7,"novelty":null}"#,
        )
        .unwrap();
        assert_eq!((r.source, r.year, r.novelty), (None, None, None));
        assert!(r.entities.is_empty());
    }

    #[test]
    fn bad_records_name_the_field() {
        let e = parse_record(br#"{"summary":"s"}"#).unwrap_err();
        assert!(e.contains("`document` is missing or null"), "{e}");
        let e = parse_record(br#"{"summary":null,"document":"d"}"#).unwrap_err();
        assert!(e.contains("`summary` is missing or null"), "{e}");
        let e = parse_record(br#"{"summary":3,"document":"d"}"#).unwrap_err();
        assert!(e.contains("`summary` is not a string"), "{e}");
        let e = parse_record(br#"{"summary":"s","docu"#).unwrap_err();
        assert!(e.contains("not an article record"), "{e}");
    }
}
