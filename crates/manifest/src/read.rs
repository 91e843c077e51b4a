//! Reading a manifest back: every row checked, every problem named by file,
//! line and field.

use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use tempora_records::ManifestEntry;

/// Why a file is not a manifest Tempora can rebuild from.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A line that is not a manifest row.
    #[error("{}:{line}: {message}", path.display())]
    Row {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A manifest without rows.
    #[error("{}: no rows: a manifest lists at least one article", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// Reads every row of the manifest at `path`.
///
/// # Errors
/// The first line that is not a row (unknown or missing field, a capture time
/// that is not 14 digits, an empty capture URL or digest), or an empty file.
pub fn read_manifest(path: &Path) -> Result<Vec<ManifestEntry>, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut rows = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io)?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| ReadError::Row {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let entry: ManifestEntry =
            serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(&line))
                .map_err(|e| match e.path().to_string().as_str() {
                    "." => bad(e.inner().to_string()),
                    field => bad(format!("field `{field}`: {}", e.inner())),
                })?;
        check(&entry).map_err(bad)?;
        rows.push(entry);
    }
    if rows.is_empty() {
        return Err(ReadError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(rows)
}

/// The fields a rebuild needs, present and well formed.
fn check(e: &ManifestEntry) -> Result<(), String> {
    // The timestamp is checked as it is read (a `Timestamp`).
    for (field, value) in [
        ("archived_url", &e.archived_url),
        ("payload_sha1", &e.payload_sha1),
        ("text_sha256", &e.text_sha256),
        ("source", &e.source),
        ("id", &e.id),
    ] {
        if value.trim().is_empty() {
            return Err(format!("field `{field}` is empty"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> serde_json::Value {
        serde_json::json!({
            "source": "bbc", "id": "50000001", "section": "news", "split": "future",
            "novelty": null, "url": "https://www.bbc.co.uk/news/uk-50000001",
            "published": "2020-03-01", "published_source": "page", "summary_source": "intro",
            "timestamp": "20200302101010",
            "archived_url": "http://www.bbc.co.uk/news/uk-50000001",
            "digest": "AAAA", "payload_sha1": "BBBB", "text_sha256": "cc", "facts": []
        })
    }

    fn read(lines: &[String]) -> Result<Vec<ManifestEntry>, ReadError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.jsonl");
        std::fs::write(&path, lines.join("\n")).unwrap();
        read_manifest(&path)
    }

    #[test]
    fn rows_are_read_and_a_bad_row_is_named_by_line_and_field() {
        assert_eq!(read(&[row().to_string()]).unwrap().len(), 1);
        let mut unknown = row();
        unknown["title"] = "A headline".into();
        let err = read(&[row().to_string(), unknown.to_string()]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("manifest.jsonl:2:"), "{text}");
        assert!(text.contains("unknown field `title`"), "{text}");
        let mut missing = row();
        missing.as_object_mut().unwrap().remove("payload_sha1");
        let text = read(&[missing.to_string()]).unwrap_err().to_string();
        assert!(
            text.contains(":1:") && text.contains("`payload_sha1`"),
            "{text}"
        );
        let mut time = row();
        time["timestamp"] = "2020-03-02".into();
        let text = read(&[time.to_string()]).unwrap_err().to_string();
        assert!(text.contains("field `timestamp`"), "{text}");
        assert!(matches!(read(&[]), Err(ReadError::Empty { .. })));
    }
}
