//! Facts files: the facts as JSONL (one [`Fact`] per line, as `tempora facts -o` and
//! the jsonl sink write them) with a sidecar `<file>.meta.json` that says what they
//! were read with: cutoff, relations, languages and the dump's size and mtime.
//!
//! Nightly pipelines must not re-read a 130 GB dump: the `wikidata` stage with
//! `facts_file` emits the file's facts when its sidecar matches the stage's options
//! (and, when `dump` is also set, the dump's size and mtime); otherwise it reads the
//! dump and rewrites the file, so the file works as a cache keyed by dump and options.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use tempora_engine::atomic_file::AtomicFile;
use tempora_records::Fact;

use crate::dump::FactsQuery;
use crate::error::WikidataError;

/// The dump a facts file was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpFingerprint {
    /// Path as given.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, seconds since the Unix epoch.
    pub modified: u64,
}

impl DumpFingerprint {
    /// Size and mtime of the file at `path`; `None` for stdin or an unreadable file.
    pub fn of(path: &str) -> Option<Self> {
        if path == "-" {
            return None;
        }
        let meta = fs::metadata(path).ok()?;
        let modified = meta
            .modified()
            .ok()?
            .duration_since(UNIX_EPOCH)
            .ok()?
            .as_secs();
        Some(Self {
            path: path.to_string(),
            size: meta.len(),
            modified,
        })
    }

    fn same_file(&self, other: &Self) -> bool {
        self.size == other.size && self.modified == other.modified
    }
}

/// The sidecar of a facts file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactsMeta {
    /// Cutoff the facts were decided for.
    pub cutoff: NaiveDate,
    /// Relations read.
    pub relations: Vec<String>,
    /// Languages of the names.
    pub languages: Vec<String>,
    /// The dump, when it was a file.
    pub dump: Option<DumpFingerprint>,
    /// Number of facts in the file.
    pub facts: usize,
    /// Number of facts of each relation read (0 for a relation the dump gave
    /// none of); empty in sidecars written before it was recorded.
    #[serde(default)]
    pub facts_per_relation: BTreeMap<String, usize>,
    /// Version of the tool that wrote it.
    pub version: String,
}

impl FactsMeta {
    /// The sidecar of `facts` read from `dump` (a path, `-` or none: stdin)
    /// with `query`, stamped with this crate's version: what the `wikidata` stage
    /// and `tempora facts` write, and what a facts file must match to be reused.
    pub fn new(query: &FactsQuery, dump: Option<&str>, facts: &[Fact]) -> Self {
        let mut facts_per_relation: BTreeMap<String, usize> =
            query.relations.iter().map(|r| (r.clone(), 0)).collect();
        for fact in facts {
            *facts_per_relation.entry(fact.relation.clone()).or_default() += 1;
        }
        Self {
            cutoff: query.cutoff,
            relations: query.relations.clone(),
            languages: query.languages.clone(),
            dump: dump.and_then(DumpFingerprint::of),
            facts: facts.len(),
            facts_per_relation,
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }

    /// Why this file cannot stand for a read of `dump` with these options; `None` when it can.
    pub fn mismatch(&self, wanted: &FactsMeta) -> Option<String> {
        if self.cutoff != wanted.cutoff {
            return Some(format!(
                "written for cutoff {}, not {}",
                self.cutoff, wanted.cutoff
            ));
        }
        if self.relations != wanted.relations || self.languages != wanted.languages {
            return Some(format!(
                "written for relations {:?} and languages {:?}, not {:?} and {:?}",
                self.relations, self.languages, wanted.relations, wanted.languages
            ));
        }
        match (&self.dump, &wanted.dump) {
            (Some(had), Some(now)) if !had.same_file(now) => Some(format!(
                "written from a dump of {} bytes modified at {}, the dump is now {} bytes modified at {}",
                had.size, had.modified, now.size, now.modified
            )),
            (None, Some(_)) => Some("written from stdin, not from the dump".into()),
            _ => None,
        }
    }
}

/// The sidecar's path: `<file>.meta.json`.
pub fn meta_path(facts: &Path) -> PathBuf {
    let mut name = facts.as_os_str().to_owned();
    name.push(".meta.json");
    PathBuf::from(name)
}

/// Reads the sidecar of `facts`, if there is one.
///
/// # Errors
/// A sidecar that exists but is not valid.
pub fn read_meta(facts: &Path) -> Result<Option<FactsMeta>, WikidataError> {
    let path = meta_path(facts);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(file_error(&path, None, e.to_string())),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| file_error(&path, None, format!("not a facts sidecar: {e}")))
}

/// Writes `facts` as JSONL to `path`, and its sidecar, each through a temporary
/// file renamed on success (an interrupted write leaves no file that looks
/// complete). `facts` come in the canonical order ([`Fact::canonical_cmp`]), as
/// [`read_facts`](crate::read_facts) gives them: the file's bytes do not depend on
/// the dump's order, and the facts are sorted once, by the reader.
///
/// # Errors
/// When a file cannot be written.
pub fn write_facts(path: &Path, facts: &[Fact], meta: &FactsMeta) -> Result<(), WikidataError> {
    let err = |e: std::io::Error| file_error(path, None, e.to_string());
    let file = AtomicFile::create(path).map_err(err)?;
    {
        let mut out = BufWriter::new(file.as_file());
        debug_assert!(facts.is_sorted_by(|a, b| a.canonical_cmp(b).is_le()));
        for fact in facts {
            serde_json::to_writer(&mut out, fact)
                .map_err(|e| file_error(path, None, e.to_string()))?;
            out.write_all(b"\n").map_err(err)?;
        }
        out.flush().map_err(err)?;
    }
    let text =
        serde_json::to_string_pretty(meta).map_err(|e| file_error(path, None, e.to_string()))?;
    let sidecar = AtomicFile::create(&meta_path(path)).map_err(err)?;
    (&mut sidecar.as_file())
        .write_all((text + "\n").as_bytes())
        .map_err(err)?;
    file.commit().map_err(err)?;
    sidecar.commit().map_err(err)
}

/// One line of a facts file: the fact, or why the line is not one.
pub type FactLine = (u64, Result<Fact, String>);

/// Reads every line of a facts file.
///
/// # Errors
/// When the file cannot be read (bad lines are returned as errors per line).
pub fn read_facts_file(path: &Path) -> Result<Vec<FactLine>, WikidataError> {
    let file = File::open(path).map_err(|e| file_error(path, None, e.to_string()))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| file_error(path, Some(i as u64 + 1), e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let fact = serde_json::from_str::<Fact>(&line).map_err(|e| format!("not a fact: {e}"));
        out.push((i as u64 + 1, fact));
    }
    Ok(out)
}

fn file_error(path: &Path, line: Option<u64>, message: String) -> WikidataError {
    WikidataError::FactsFile {
        path: path.display().to_string(),
        line,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempora_records::EntityRef;

    fn meta(cutoff: &str, dump: Option<DumpFingerprint>) -> FactsMeta {
        FactsMeta {
            cutoff: cutoff.parse().unwrap(),
            relations: vec!["P39".into()],
            languages: vec!["en".into()],
            dump,
            facts: 1,
            facts_per_relation: BTreeMap::from([("P39".into(), 1)]),
            version: "test".into(),
        }
    }

    #[test]
    fn facts_round_trip_with_their_sidecar() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("facts.jsonl");
        let fact = Fact {
            subject: EntityRef {
                id: "Q6279".into(),
                label: Some("Joe Biden".into()),
                aliases: vec![],
            },
            relation: "P39".into(),
            object: EntityRef {
                id: "Q11696".into(),
                ..EntityRef::default()
            },
            start: Some("2021-01-20".into()),
            end: None,
            replaces: None,
            replaced_by: None,
            rank: "normal".into(),
            valid_at_cutoff: false,
            pair_changed: Some("2021-01-20".into()),
        };
        let m = meta("2019-12-31", None);
        write_facts(&path, std::slice::from_ref(&fact), &m).unwrap();
        let lines = read_facts_file(&path).unwrap();
        assert_eq!(lines, vec![(1, Ok(fact))]);
        assert_eq!(read_meta(&path).unwrap(), Some(m));
        assert!(!dir
            .path()
            .join(format!("facts.jsonl.tmp-{}", std::process::id()))
            .exists());
    }

    #[test]
    fn a_sidecar_for_other_options_or_another_dump_does_not_match() {
        let dump = DumpFingerprint {
            path: "d".into(),
            size: 10,
            modified: 5,
        };
        let had = meta("2019-12-31", Some(dump.clone()));
        assert_eq!(had.mismatch(&meta("2019-12-31", Some(dump.clone()))), None);
        assert_eq!(had.mismatch(&meta("2019-12-31", None)), None);
        assert!(had
            .mismatch(&meta("2020-12-31", None))
            .unwrap()
            .contains("cutoff"));
        let newer = DumpFingerprint {
            modified: 6,
            ..dump
        };
        assert!(had
            .mismatch(&meta("2019-12-31", Some(newer)))
            .unwrap()
            .contains("modified"));
    }

    #[test]
    fn bad_lines_and_sidecars_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("facts.jsonl");
        fs::write(&path, "{\"subject\":1}\n\n").unwrap();
        let lines = read_facts_file(&path).unwrap();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].1.as_ref().unwrap_err().contains("not a fact"));
        fs::write(meta_path(&path), "[]").unwrap();
        let err = read_meta(&path).unwrap_err().to_string();
        assert!(
            err.contains("facts.jsonl.meta.json") && err.contains("not a facts sidecar"),
            "{err}"
        );
        let err = read_facts_file(&dir.path().join("none.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("none.jsonl"), "{err}");
    }
}
