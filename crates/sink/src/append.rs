//! `mode = "append"`: a run's records added to the records earlier runs left in a
//! JSONL file, each record once.
//!
//! The file is rewritten under a temporary name in its directory (its old lines as
//! they were, then this run's new records) and published over the old one with
//! the run's other outputs, so a run that is killed, stopped or fails adds
//! nothing: the file stays as the last complete run left it. A record whose identity ([`Record::identity`]: articles by site and
//! id) is in the file already is left out; the first one written stays.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use tempora_engine::atomic_file::AtomicFile;
use tempora_engine::StageError;
use tempora_records::{Record, RecordKind};

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Appended {
    /// Records added to the file.
    pub(crate) added: u64,
    /// Records left out because the file (or this run) had them already.
    pub(crate) present: u64,
}

/// Adds the JSON lines `new` (records of `kind`, as the sink reads them back from
/// its spill) to the file at `path` through `tmp`, a temporary file in the same
/// directory; `tmp`, written, when the file changes, to be published in its place
/// (`None`: the file stays as it is). A file that does not exist is made, empty
/// when nothing is added.
///
/// # Errors
/// A line of the file that is not a record of `kind` (named by file and line), and
/// I/O errors; the file is unchanged then.
pub(crate) fn append_jsonl(
    path: &Path,
    kind: Option<RecordKind>,
    new: impl IntoIterator<Item = std::io::Result<Vec<u8>>>,
    tmp: AtomicFile,
) -> Result<(Appended, Option<AtomicFile>), StageError> {
    let io_err = |e| StageError::io(path, e);
    let mut appended = Appended::default();
    let mut new = new.into_iter().peekable();
    let exists = path.exists();
    let (Some(kind), true) = (kind, new.peek().is_some()) else {
        return Ok((appended, (!exists).then_some(tmp)));
    };
    let mut seen = HashSet::new();
    let mut w = BufWriter::with_capacity(1 << 16, tmp.as_file());
    if exists {
        copy_records(path, kind, &mut seen, &mut w)?;
    }
    for line in new {
        let line = line.map_err(io_err)?;
        let record = std::str::from_utf8(&line)
            .map_err(|e| e.to_string())
            .and_then(|text| Record::from_json(kind, text).map_err(|e| e.to_string()))
            .map_err(|e| StageError::internal(format!("a record this sink wrote: {e}")))?;
        if seen.insert(record.identity()) {
            w.write_all(&line).map_err(io_err)?;
            w.write_all(b"\n").map_err(io_err)?;
            appended.added += 1;
        } else {
            appended.present += 1;
        }
    }
    w.flush().map_err(io_err)?;
    drop(w);
    if appended.added == 0 && exists {
        return Ok((appended, None));
    }
    Ok((appended, Some(tmp)))
}

/// Copies every line of `path` to `w` as it is (a last line without its newline gets
/// one), noting each record's identity in `seen`.
fn copy_records(
    path: &Path,
    kind: RecordKind,
    seen: &mut HashSet<String>,
    w: &mut impl Write,
) -> Result<(), StageError> {
    let io_err = |e| StageError::io(path, e);
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).map_err(io_err)?);
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(io_err)? == 0 {
            return Ok(());
        }
        number += 1;
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        let record = Record::from_json(kind, text.trim_end()).map_err(|e| {
            StageError::input(format!(
                "{}: line {number}: not {} record ({e}); `mode = \"append\"` adds to a file of \
                 this sink's records only: move the file away or mend the line",
                path.display(),
                kind_with_article(kind)
            ))
        })?;
        seen.insert(record.identity());
        w.write_all(&line).map_err(io_err)?;
        if line.last() != Some(&b'\n') {
            w.write_all(b"\n").map_err(io_err)?;
        }
    }
}

fn kind_with_article(kind: RecordKind) -> String {
    match kind {
        RecordKind::Article => "an article".into(),
        other => format!("a {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article(id: u32, title: &str) -> Vec<u8> {
        format!(
            r#"{{"id":"{id}","url":"http://www.bbc.co.uk/news/uk-{id}","source":"bbc","published":"2020-03-0{}","captured":"20200301000000","title":"{title}","summary":"s","document":"d"}}"#,
            id % 9 + 1
        )
        .into_bytes()
    }

    /// Appends and publishes at once, as a completed run does.
    fn append(path: &Path, lines: &[Vec<u8>]) -> Result<Appended, StageError> {
        let tmp = AtomicFile::create(path).unwrap();
        let (appended, changed) = append_jsonl(
            path,
            Some(RecordKind::Article),
            lines.iter().map(|l| Ok(l.clone())),
            tmp,
        )?;
        if let Some(file) = changed {
            file.commit().unwrap();
        }
        Ok(appended)
    }

    fn temp_files(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".tmp")
            })
            .count()
    }

    #[test]
    fn new_records_follow_the_old_ones_and_known_ones_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("articles.jsonl");
        let night1 = [article(1, "one"), article(2, "two")];
        assert_eq!(
            append(&path, &night1).unwrap(),
            Appended {
                added: 2,
                present: 0
            }
        );
        // Night two: article 2 again (a later capture, another title) and twice article 3.
        let night2 = [
            article(2, "two again"),
            article(3, "three"),
            article(3, "three"),
        ];
        assert_eq!(
            append(&path, &night2).unwrap(),
            Appended {
                added: 1,
                present: 2
            }
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = [&night1[0], &night1[1], &night2[1]]
            .map(|l| String::from_utf8(l.clone()).unwrap() + "\n")
            .concat();
        assert_eq!(text, expected);
        assert_eq!(temp_files(dir.path()), 0);
    }

    #[test]
    fn nothing_new_leaves_the_file_untouched_and_nothing_at_all_creates_it_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("articles.jsonl");
        append(&path, &[]).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"");
        // An old file without a final newline, edited by hand: kept byte for byte.
        std::fs::write(&path, article(1, "one")).unwrap();
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        append(&path, &[article(1, "one")]).unwrap();
        append(&path, &[]).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), article(1, "one"));
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            before
        );
        // The next record starts on a line of its own.
        append(&path, &[article(2, "two")]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert_eq!(temp_files(dir.path()), 0);
    }

    #[test]
    fn a_broken_line_is_named_and_the_file_stays_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("articles.jsonl");
        let old = [article(1, "one"), b"{\"id\": \"2\", \"title\": ".to_vec()];
        let text = old
            .iter()
            .map(|l| String::from_utf8(l.clone()).unwrap() + "\n")
            .collect::<String>();
        std::fs::write(&path, &text).unwrap();
        let err = append(&path, &[article(3, "three")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("articles.jsonl: line 2: not an article record"),
            "{err}"
        );
        assert!(err.contains("mode = \"append\""), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(temp_files(dir.path()), 0);
    }
}
