//! The pinned reading: every entity a live reading used, in a gzip file of the
//! JSON dump's own line format (`[`, one entity a line ending in `,` but the
//! last, `]`), ordered by id, with a `.meta.json` sidecar saying when it was
//! read, from where, for which query, and the file's SHA-256. The facts are
//! read from this file by the dump's own code; a rerun or a refused refresh
//! reads it again. It is written whole to a temporary file and renamed into
//! place: a reading cut short leaves the one before.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tempora_engine::input_files::lower_hex;

use super::api::ReadEntity;
use super::LiveError;
use crate::lines::{entity_key, entity_text};

/// What a reading was, beside it (`<reading>.meta.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadingMeta {
    /// When the services were read (the end of the reading).
    pub read_at: DateTime<Utc>,
    /// The query service's endpoint.
    pub query_endpoint: String,
    /// The API's endpoint.
    pub api_endpoint: String,
    /// The cutoff the entities were found for.
    pub cutoff: NaiveDate,
    /// The relations.
    pub relations: Vec<String>,
    /// The languages of the names read.
    pub languages: Vec<String>,
    /// Entities in the file.
    pub entities: usize,
    /// SHA-256 of the file, lowercase hex.
    pub sha256: String,
}

/// The `.meta.json` beside `reading`.
pub fn meta_path(reading: &Path) -> PathBuf {
    let mut name = reading.as_os_str().to_owned();
    name.push(".meta.json");
    PathBuf::from(name)
}

/// The entities of a reading, by id key (`Q42` is 42).
pub type Entities = BTreeMap<u64, ReadEntity>;

/// Reads the pinned reading at `path` and its sidecar; `None` when there is no
/// reading yet (neither file).
///
/// # Errors
/// See [`checked`] and [`entities_of`]: a reading is used whole or not at all.
pub fn load(path: &Path) -> Result<Option<(ReadingMeta, Entities)>, LiveError> {
    let Some((meta, bytes)) = checked(path)? else {
        return Ok(None);
    };
    Ok(Some((meta, entities_of(path, &bytes)?)))
}

/// The sidecar of the reading at `path` alone (what a plan shows); `None`
/// when there is none.
pub fn meta(path: &Path) -> Option<ReadingMeta> {
    let bytes = std::fs::read(meta_path(path)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The reading's sidecar and its file's bytes, once their SHA-256 agree: what
/// a run that reads the pin needs, without parsing a line. `None` when there is
/// no reading yet (neither file).
///
/// # Errors
/// A reading that cannot be read, whose sidecar is missing or unreadable, or
/// whose SHA-256 is not the sidecar's.
pub fn checked(path: &Path) -> Result<Option<(ReadingMeta, Vec<u8>)>, LiveError> {
    let meta_file = meta_path(path);
    let bad = |message: String| LiveError::Reading {
        path: path.display().to_string(),
        message,
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !meta_file.exists() => {
            return Ok(None)
        }
        Err(e) => return Err(bad(e.to_string())),
    };
    let meta: ReadingMeta = std::fs::read(&meta_file)
        .map_err(|e| bad(format!("{}: {e}", meta_file.display())))
        .and_then(|m| {
            serde_json::from_slice(&m).map_err(|e| bad(format!("{}: {e}", meta_file.display())))
        })?;
    let sha256 = lower_hex(&Sha256::digest(&bytes));
    if sha256 != meta.sha256 {
        return Err(bad(format!(
            "its SHA-256 is {sha256}, not the {} its {} records: it was changed after it was read",
            meta.sha256,
            meta_file.display()
        )));
    }
    Ok(Some((meta, bytes)))
}

/// The entities of a reading's `bytes` (the file at `path`, for messages).
///
/// # Errors
/// A line that is not an entity as a dump writes it.
pub fn entities_of(path: &Path, bytes: &[u8]) -> Result<Entities, LiveError> {
    let bad = |message: String| LiveError::Reading {
        path: path.display().to_string(),
        message,
    };
    let mut entities = Entities::new();
    let reader = BufReader::new(flate2::read::MultiGzDecoder::new(bytes));
    for (n, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(|e| bad(e.to_string()))?;
        let text = entity_text(&line);
        if text.len() <= 1 {
            continue;
        }
        let entity = ReadEntity::from_line(text.to_vec())
            .map_err(|why| bad(format!("line {}: {why}", n + 1)))?;
        let key = entity_key(entity.id.as_bytes()).ok_or_else(|| {
            bad(format!(
                "line {}: `{}` is not an entity id",
                n + 1,
                entity.id
            ))
        })?;
        entities.insert(key, entity);
    }
    Ok(entities)
}

/// Writes `entities` as the reading at `path` with `meta` (its `entities` and
/// `sha256` filled here), each whole before it is renamed into place; returns
/// the meta as written.
///
/// # Errors
/// The file system failed.
pub fn store(
    path: &Path,
    entities: &Entities,
    mut meta: ReadingMeta,
) -> Result<ReadingMeta, LiveError> {
    let bad = |e: std::io::Error| LiveError::Reading {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(bad)?;
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"[\n").map_err(bad)?;
    let last = entities.len().saturating_sub(1);
    for (i, entity) in entities.values().enumerate() {
        gz.write_all(&entity.line()).map_err(bad)?;
        gz.write_all(if i == last { b"\n" } else { b",\n" })
            .map_err(bad)?;
    }
    gz.write_all(b"]\n").map_err(bad)?;
    let bytes = gz.finish().map_err(bad)?;
    meta.entities = entities.len();
    meta.sha256 = lower_hex(&Sha256::digest(&bytes));
    let meta_json = serde_json::to_vec_pretty(&meta).map_err(|e| bad(e.into()))?;
    replace(path, &bytes).map_err(bad)?;
    replace(&meta_path(path), &meta_json).map_err(bad)?;
    Ok(meta)
}

/// Writes `bytes` to a temporary file beside `path`, synced, then renames it.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: &str, rev: u64) -> ReadEntity {
        ReadEntity::from_line(
            format!(r#"{{"lastrevid":{rev},"type":"item","id":"{id}","labels":{{}}}}"#)
                .into_bytes(),
        )
        .unwrap()
    }

    fn meta() -> ReadingMeta {
        ReadingMeta {
            read_at: "2024-01-01T00:00:00Z".parse().unwrap(),
            query_endpoint: "q".into(),
            api_endpoint: "a".into(),
            cutoff: "2019-12-31".parse().unwrap(),
            relations: vec!["P39".into()],
            languages: vec!["en".into()],
            entities: 0,
            sha256: String::new(),
        }
    }

    #[test]
    fn a_reading_is_a_dump_in_id_order_and_reads_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/reading.json.gz");
        assert!(load(&path).unwrap().is_none());
        let entities: Entities = [entity("Q10", 3), entity("Q9", 2)]
            .into_iter()
            .map(|e| (entity_key(e.id.as_bytes()).unwrap(), e))
            .collect();
        let written = store(&path, &entities, meta()).unwrap();
        assert_eq!(written.entities, 2);
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).unwrap()),
            &mut text,
        )
        .unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "[");
        assert!(lines[1].contains("\"Q9\"") && lines[1].ends_with(','));
        assert!(lines[2].contains("\"Q10\"") && !lines[2].ends_with(','));
        assert_eq!(lines[3], "]");
        let (read_meta, read) = load(&path).unwrap().unwrap();
        assert_eq!(read_meta, written);
        assert_eq!(read, entities);
        // A reading changed after it was read is refused, not half used.
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 5;
        bytes[at] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(err.contains("SHA-256"), "{err}");
    }
}
