//! The test records of `tempora novelty`, read whole, each with where it was
//! read: the location its rejection names. The formats are those of
//! [`crate::training`], told apart by [`Format::of`].

use std::fs::File;
use std::path::Path;

use crate::error::NoveltyError;
use crate::training::Format;

/// A test record as read, and where: `FILE, line N` or `FILE, row N`.
pub type LocatedRecord = (String, serde_json::Map<String, serde_json::Value>);

/// The test records of one file, each with its location, in file order: every row
/// of a Parquet file, every line of a JSON lines file (an object), and every line of
/// a text file as a record holding the line in `field`. Blank lines are skipped.
///
/// # Errors
/// A file that cannot be read; a row or line that is not a JSON object (naming
/// where).
pub fn read_records(path: &Path, field: &str) -> Result<Vec<LocatedRecord>, NoveltyError> {
    let shown = path.display();
    let unreadable = |e: &dyn std::fmt::Display| NoveltyError::file(path, e.to_string());
    let mut records = Vec::new();
    match Format::of(path) {
        Format::Parquet => {
            let file = File::open(path).map_err(|e| unreadable(&e))?;
            let lines = tempora_sink::parquet::read_json_lines(file).map_err(|e| unreadable(&e))?;
            for (i, line) in lines
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .enumerate()
            {
                let location = format!("{shown}, row {}", i + 1);
                match serde_json::from_slice(line) {
                    Ok(record) => records.push((location, record)),
                    Err(e) => {
                        return Err(NoveltyError::Record {
                            location,
                            message: e.to_string(),
                        })
                    }
                }
            }
        }
        format => {
            let text = std::fs::read_to_string(path).map_err(|e| unreadable(&e))?;
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let location = format!("{shown}, line {}", i + 1);
                let record = if format == Format::Jsonl {
                    match serde_json::from_str(line) {
                        Ok(record) => record,
                        Err(e) => {
                            return Err(NoveltyError::Record {
                                location,
                                message: format!("not a JSON object: {e}"),
                            })
                        }
                    }
                } else {
                    let mut record = serde_json::Map::new();
                    record.insert(field.to_string(), line.into());
                    record
                };
                records.push((location, record));
            }
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_test_records_with_their_locations() {
        let dir = tempfile::tempdir().unwrap();
        let jsonl = dir.path().join("t.jsonl");
        std::fs::write(&jsonl, "{\"id\": 1}\n\n{\"id\": 2}\n").unwrap();
        let read = read_records(&jsonl, "summary").unwrap();
        let shown = jsonl.display();
        assert_eq!(read[1].0, format!("{shown}, line 3"));
        assert_eq!(read[1].1["id"], 2);
        let text = dir.path().join("t.txt");
        std::fs::write(&text, "It rained.\n").unwrap();
        assert_eq!(
            read_records(&text, "summary").unwrap()[0].1["summary"],
            "It rained."
        );
        let parquet = dir.path().join("t.parquet");
        let rows: [&[u8]; 2] = [
            br#"{"id": "a", "summary": "x"}"#,
            br#"{"id": "b", "summary": "y"}"#,
        ];
        tempora_sink::parquet::write_json_lines(rows.into_iter(), &File::create(&parquet).unwrap())
            .unwrap();
        let read = read_records(&parquet, "summary").unwrap();
        assert_eq!(read[1].0, format!("{}, row 2", parquet.display()));
        assert_eq!(read[1].1["id"], "b");
        std::fs::write(&jsonl, "{\"id\": 1}\n[1]\n").unwrap();
        let err = read_records(&jsonl, "summary").unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{shown}, line 2: not a JSON object: ")),
            "{err}"
        );
    }
}
