//! A folder a lab can publish (`tempora publish OUT --to DIR`): the files of an
//! output folder that hold none of the publishers' text, and a card of its own.
//!
//! In: a Tempora output folder. Out: `DIR`, with `run.json`, the manifest
//! (`manifest.jsonl`, `manifest.parquet`, `manifest.inputs.json`), the facts
//! (the files of its sinks whose records are facts, `manifest.facts.jsonl`
//! among them), `withheld.json` (the commitment, not `withheld/`), `release.json`
//! when there is one, the scores' files that hold no text, and `README.md`, the
//! card of `DIR` ([`crate::card`]), whose configs point at those files alone and
//! which says how to rebuild the sets. Never the sets, the pairs, the pages,
//! `rejected.jsonl`, `runs/`, `withheld/` or the run's bookkeeping.
//!
//! Promised: no file of `DIR` holds the publishers' text as the card judges it
//! (every file is checked before it is copied, so a record kind added later
//! cannot slip through); `DIR` appears whole or not at all (it is made under a
//! hidden name beside it and renamed into place once its card is written); a
//! `DIR` that exists with files in it is never written to.

use std::collections::BTreeSet;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tempora_engine::stats::FileWritten;
use tempora_records::{Record, RecordKind};
use tempora_sink::parquet::read_footer;
use tempora_sink::release::{relative_files, Commitment, COMMITMENT, DIR as WITHHELD};
use tempora_sink::schema::arrow_schema;

use crate::card::layout::RunJson;
use crate::card::releases::{release_folders, write_collection_card, CollectionCard, REVEALS_DIR};
use crate::card::{Card, CardError};

/// The files an output folder's run derives that a published folder keeps,
/// when they are there: its record, the manifest's inputs (the pinned pipeline
/// and its input files' digests), the withheld part's commitment and a
/// release's record.
const KEPT: [&str; 4] = [
    "run.json",
    "manifest.inputs.json",
    COMMITMENT,
    "release.json",
];

/// The record kinds whose files a published folder keeps: the manifest and the
/// facts (no publisher's text in either).
const KINDS_KEPT: [RecordKind; 2] = [RecordKind::Manifest, RecordKind::Fact];

/// What `tempora publish` wrote.
#[derive(Debug, Clone)]
pub struct Published {
    /// The files copied, relative to the folder and sorted (the card apart).
    pub files: Vec<String>,
    /// Their size in bytes, the card apart.
    pub bytes: u64,
    /// The size of the output folder's files (hidden ones apart), for comparison.
    pub source_bytes: u64,
    /// The card written in the published folder.
    pub card: Card,
}

/// What can stop a publication; nothing is written then.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The folder to publish is not a Tempora output folder, or its card cannot be made.
    #[error(transparent)]
    Card(#[from] CardError),
    /// The folder to write exists and holds files.
    #[error(
        "{}: not empty: `tempora publish` writes a new folder (give another, or remove this one)",
        path.display()
    )]
    NotEmpty {
        /// The folder.
        path: PathBuf,
    },
    /// The folder to write is inside the output folder (whose card would then
    /// describe it).
    #[error(
        "{}: inside the output folder {}: give a folder outside it",
        path.display(),
        out.display()
    )]
    Inside {
        /// The folder to write.
        path: PathBuf,
        /// The output folder.
        out: PathBuf,
    },
    /// A file that would be published holds the publishers' text.
    #[error(
        "{}: holds the publishers' text, so it is not published (a record kind with text where \
         none was expected)",
        path.display()
    )]
    HoldsText {
        /// The file, in the output folder.
        path: PathBuf,
    },
    /// A file cannot be read, copied or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PublishError + '_ {
    move |source| PublishError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `dst`, the publishable folder of the output folder `src`: the files
/// that hold no publisher's text, then its card.
///
/// # Errors
/// See [`PublishError`]: `src` is no output folder (no completed run's
/// `run.json`), `dst` exists and is not empty, a file to copy holds text or
/// cannot be read, the card cannot be made (it names the file).
pub fn publish_folder(src: &Path, dst: &Path) -> Result<Published, PublishError> {
    let run = RunJson::read(src)?;
    refuse_filled(dst)?;
    if within(dst, src) {
        return Err(PublishError::Inside {
            path: dst.to_path_buf(),
            out: src.to_path_buf(),
        });
    }
    let files = files_to_publish(src, &run)?;
    for relative in &files {
        let path = src.join(relative);
        if crate::card::text::holds_text(&path, relative)? {
            return Err(PublishError::HoldsText { path });
        }
    }
    let staged = staging_folder(dst)?;
    let published = copy_and_card(src, &staged, &files).and_then(|(bytes, card)| {
        if dst.exists() {
            std::fs::remove_dir(dst).map_err(io(dst))?;
        }
        std::fs::rename(&staged, dst).map_err(io(dst))?;
        Ok((bytes, card))
    });
    let (bytes, card) = match published {
        Ok(done) => done,
        Err(e) => {
            // Best effort: the staged folder is ours, named so none mistakes it for DIR.
            let _ = std::fs::remove_dir_all(&staged);
            return Err(e);
        }
    };
    Ok(Published {
        files,
        bytes,
        source_bytes: folder_bytes(src)?,
        card,
    })
}

/// Refuses a `dst` that exists and is not an empty folder.
fn refuse_filled(dst: &Path) -> Result<(), PublishError> {
    match std::fs::read_dir(dst) {
        Ok(mut entries) => match entries.next() {
            None => Ok(()),
            Some(_) => Err(PublishError::NotEmpty {
                path: dst.to_path_buf(),
            }),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if dst.exists() => Err(PublishError::NotEmpty {
            path: dst.to_path_buf(),
        }),
        Err(e) => Err(io(dst)(e)),
    }
}

/// Whether `dst`, which need not exist yet, is `src` or a folder inside it.
fn within(dst: &Path, src: &Path) -> bool {
    let Ok(src) = src.canonicalize() else {
        return false;
    };
    let mut existing = dst;
    let mut below = Vec::new();
    loop {
        if let Ok(path) = existing.canonicalize() {
            let path = below.iter().rev().fold(path, |p, name| p.join(name));
            return path.starts_with(&src);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                below.push(name.to_os_string());
                existing = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
            }
            _ => return false,
        }
    }
}

/// A new hidden folder beside `dst`, where the published folder is made.
fn staging_folder(dst: &Path) -> Result<PathBuf, PublishError> {
    let name = dst
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "published".into());
    let parent = dst.parent().filter(|p| !p.as_os_str().is_empty());
    let parent = parent.unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let staged = parent.join(format!(".{name}.tempora-publish-{}", std::process::id()));
    if staged.exists() {
        std::fs::remove_dir_all(&staged).map_err(io(&staged))?;
    }
    std::fs::create_dir(&staged).map_err(io(&staged))?;
    Ok(staged)
}

/// Copies `files` of `src` into `staged` and writes its card there.
fn copy_and_card(src: &Path, staged: &Path, files: &[String]) -> Result<(u64, Card), PublishError> {
    let mut bytes = 0;
    for relative in files {
        let to = staged.join(relative);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        bytes += std::fs::copy(src.join(relative), &to).map_err(io(&to))?;
    }
    let card = crate::card::write_card(staged)?;
    Ok((bytes, card))
}

/// The files of `src` to publish, relative and sorted: [`KEPT`], the files its
/// run's sinks wrote whose records are of [`KINDS_KEPT`] (under `withheld/` only
/// once the withheld part is revealed), and the scores' files that hold no text.
fn files_to_publish(src: &Path, run: &RunJson) -> Result<Vec<String>, PublishError> {
    let mut files: BTreeSet<String> = KEPT
        .iter()
        .filter(|name| src.join(name).is_file())
        .map(|name| name.to_string())
        .collect();
    let revealed = revealed(src);
    for relative in written_files(run, revealed) {
        let path = src.join(&relative);
        if !path.is_file() {
            continue;
        }
        for kind in KINDS_KEPT {
            if is_of_kind(&path, kind)? {
                files.insert(relative);
                break;
            }
        }
    }
    let scores = Path::new(tempora_score::job::SCORES_DIR);
    for relative in relative_files(src, scores).map_err(io(&src.join(scores)))? {
        if !crate::card::text::holds_text(&src.join(&relative), &relative)? {
            files.insert(relative);
        }
    }
    Ok(files.into_iter().collect())
}

/// Whether the withheld part of the output folder `src` is revealed: in its own
/// commitment (`tempora reveal`), or, for a release of a collection, whose
/// files never change, in the collection's record (`reveals/<release>.json`).
fn revealed(src: &Path) -> bool {
    let own = Commitment::read(src)
        .ok()
        .flatten()
        .is_some_and(|c| c.revealed.is_some());
    let in_collection = || {
        let (Some(collection), Some(name)) = (src.parent(), src.file_name()) else {
            return false;
        };
        let record = format!("{}.json", name.to_string_lossy());
        collection.join(REVEALS_DIR).join(record).is_file()
    };
    own || in_collection()
}

/// What `tempora publish` wrote of a collection of releases.
#[derive(Debug, Clone)]
pub struct PublishedCollection {
    /// Each release's publishable folder, by name.
    pub releases: Vec<(String, Published)>,
    /// The reveals' records copied, relative.
    pub reveals: Vec<String>,
    /// Their size and the releases' in bytes, the cards apart.
    pub bytes: u64,
    /// The size of the collection's files (hidden ones apart), for comparison.
    pub source_bytes: u64,
    /// The index card written in the published collection.
    pub card: CollectionCard,
}

/// Writes `dst`, the publishable folder of the collection of releases `src`:
/// each release's publishable folder under its name ([`publish_folder`]; a
/// release whose withheld part is revealed keeps that part's manifest), the
/// reveals' records (`reveals/`: keys and digests, no text), and the index
/// card. Published again each month to a new folder, a release's files are the
/// same bytes as the month before.
///
/// # Errors
/// As [`publish_folder`], for the collection and for each release; the index
/// card cannot be made. Nothing is written then.
pub fn publish_collection(src: &Path, dst: &Path) -> Result<PublishedCollection, PublishError> {
    refuse_filled(dst)?;
    if within(dst, src) {
        return Err(PublishError::Inside {
            path: dst.to_path_buf(),
            out: src.to_path_buf(),
        });
    }
    let staged = staging_folder(dst)?;
    let made = publish_into(src, &staged).and_then(|made| {
        if dst.exists() {
            std::fs::remove_dir(dst).map_err(io(dst))?;
        }
        std::fs::rename(&staged, dst).map_err(io(dst))?;
        Ok(made)
    });
    if made.is_err() {
        // Best effort: the staged folder is ours, named so none mistakes it for DIR.
        let _ = std::fs::remove_dir_all(&staged);
    }
    made
}

/// [`publish_collection`] into the empty folder `staged`.
fn publish_into(src: &Path, staged: &Path) -> Result<PublishedCollection, PublishError> {
    let mut releases = Vec::new();
    let mut bytes = 0;
    for name in release_names(src).map_err(io(src))? {
        let published = publish_folder(&src.join(&name), &staged.join(&name))?;
        bytes += published.bytes;
        releases.push((name, published));
    }
    let reveals_dir = Path::new(REVEALS_DIR);
    let reveals = relative_files(src, reveals_dir).map_err(io(&src.join(reveals_dir)))?;
    for relative in &reveals {
        let to = staged.join(relative);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        bytes += std::fs::copy(src.join(relative), &to).map_err(io(&to))?;
    }
    let card = write_collection_card(staged)?;
    Ok(PublishedCollection {
        releases,
        reveals,
        bytes,
        source_bytes: folder_bytes(src)?,
        card,
    })
}

/// The names of the releases of the collection `dir` (its folders that hold a
/// release; an attempt that published nothing is no release), sorted.
fn release_names(dir: &Path) -> std::io::Result<Vec<String>> {
    let folders = release_folders(dir)?;
    Ok(folders
        .published
        .iter()
        .map(|(name, _)| name.to_string())
        .collect())
}

/// The files `run.json` says its stages wrote (their `file X` counters).
fn written_files(run: &RunJson, revealed: bool) -> BTreeSet<String> {
    run.value
        .get("stages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|stage| stage.get("counters").and_then(Value::as_object))
        .flatten()
        .filter_map(|(counter, _)| FileWritten::parse(counter))
        // A path that leaves the folder is no file of it; the withheld part's files
        // (its manifest rows too) say what is withheld, until it is revealed.
        .filter(|file| !file.split('/').any(|part| part == ".." || part.is_empty()))
        .filter(|file| revealed || !file.starts_with(&format!("{WITHHELD}/")))
        .map(str::to_string)
        .collect()
}

/// Whether the output file at `path` holds records of `kind`: a Parquet file
/// by its schema, a JSON lines file when it has a line and every line reads as
/// one of that kind, or, with no line (a sink's empty result: the manifest of a
/// release whose articles are all held back), when its Parquet twin at the same
/// path is of that kind.
fn is_of_kind(path: &Path, kind: RecordKind) -> Result<bool, PublishError> {
    if is_of_kind_by_lines(path, kind)? {
        return Ok(true);
    }
    let twin = path.with_extension("parquet");
    let empty = || std::fs::metadata(path).is_ok_and(|m| m.len() == 0);
    let jsonl = path.extension().is_some_and(|x| x == "jsonl");
    Ok(jsonl && empty() && twin.is_file() && is_of_kind_by_lines(&twin, kind)?)
}

/// [`is_of_kind`] by the file's own content only.
fn is_of_kind_by_lines(path: &Path, kind: RecordKind) -> Result<bool, PublishError> {
    let name = path.to_string_lossy();
    let file = std::fs::File::open(path).map_err(io(path))?;
    if name.ends_with(".parquet") {
        return Ok(read_footer(file)
            .is_ok_and(|footer| arrow_schema(kind).fields() == footer.schema.fields()));
    }
    if !name.ends_with(".jsonl") {
        return Ok(false);
    }
    let mut any = false;
    for line in std::io::BufReader::new(file).lines() {
        let line = line.map_err(io(path))?;
        if line.trim().is_empty() {
            continue;
        }
        if Record::from_json(kind, &line).is_err() {
            return Ok(false);
        }
        any = true;
    }
    Ok(any)
}

/// The size of the files of `dir` (hidden ones apart).
fn folder_bytes(dir: &Path) -> Result<u64, PublishError> {
    let mut bytes = 0;
    for relative in relative_files(dir, Path::new("")).map_err(io(dir))? {
        let path = dir.join(&relative);
        bytes += std::fs::metadata(&path).map_err(io(&path))?.len();
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// An output folder whose run wrote `facts.jsonl` (lines `facts`), its
    /// withheld twin and `rejected.jsonl`, with no Parquet file.
    fn folder(facts: &[Value]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let run = json!({
            "run": "2026-11-01T000000Z", "status": "completed",
            "config": { "stages": { "write_facts": { "kind": "jsonl", "inputs": ["facts"],
                                                     "path": "facts.jsonl" } } },
            "stages": [{ "name": "write_facts", "kind": "jsonl",
                         "counters": { "file facts.jsonl": facts.len(),
                                       "file withheld/facts.jsonl": facts.len(),
                                       "file ../elsewhere.jsonl": 1 } }],
        });
        std::fs::write(dir.path().join("run.json"), run.to_string()).unwrap();
        let lines: String = facts.iter().map(|f| format!("{f}\n")).collect();
        std::fs::write(dir.path().join("facts.jsonl"), &lines).unwrap();
        std::fs::create_dir(dir.path().join("withheld")).unwrap();
        std::fs::write(dir.path().join("withheld/facts.jsonl"), lines).unwrap();
        std::fs::write(
            dir.path().join("rejected.jsonl"),
            "{\"stage\":\"x\",\"reason\":\"y\",\"record\":{\"title\":\"Our headline\"}}\n",
        )
        .unwrap();
        dir
    }

    fn fact() -> Value {
        json!({ "subject": { "id": "Q1", "label": "Ann Example" }, "relation": "P39",
                "object": { "id": "Q2", "label": "Mayor of Sample" }, "start": "2019",
                "end": null, "rank": "normal", "valid_at_cutoff": true, "pair_changed": null })
    }

    #[test]
    fn the_facts_are_found_by_their_sink_and_kind_and_nothing_else_is_nor_the_withheld_part() {
        let dir = folder(&[fact()]);
        let files = files_to_publish(dir.path(), &RunJson::read(dir.path()).unwrap()).unwrap();
        assert_eq!(files, ["facts.jsonl", "run.json"]);
    }

    #[test]
    fn a_file_of_a_kept_kind_that_carries_text_is_refused_and_nothing_is_written() {
        let mut with_text = fact();
        with_text["title"] = json!("A headline written by a publisher");
        let dir = folder(&[fact(), with_text]);
        let elsewhere = tempfile::tempdir().unwrap();
        let dst = elsewhere.path().join("published");
        let err = publish_folder(dir.path(), &dst).unwrap_err();
        assert!(
            matches!(&err, PublishError::HoldsText { path } if path.ends_with("facts.jsonl")),
            "{err}"
        );
        assert!(!dst.exists());
    }

    #[test]
    fn a_card_that_cannot_be_made_leaves_no_folder_behind() {
        let dir = folder(&[fact()]);
        let elsewhere = tempfile::tempdir().unwrap();
        let dst = elsewhere.path().join("published");
        let err = publish_folder(dir.path(), &dst).unwrap_err();
        assert!(err.to_string().contains("no Parquet files"), "{err}");
        assert!(!dst.exists());
        let left: Vec<String> = std::fs::read_dir(elsewhere.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
