//! The file formats the sinks write and the sources read: one implementation of
//! [`FileFormat`] each, [`Jsonl`] and [`Parquet`]. The sink and source code
//! (placing records in files, sorting, appending, staging for publication,
//! rejecting bad lines) is the same for every format.
//!
//! Adding a format: a type implementing [`FileFormat`], and a sink and a source
//! [`StageKind`](tempora_engine::StageKind) for it in [`crate::kinds`]; if its
//! files hold one record kind each, its columns follow [`crate::schema`].

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use tempora_engine::StageError;

use tempora_records::{Record, RecordKind};

use crate::parquet;

/// The records of one file, as JSON lines in the order to write them.
pub type Lines<'a> = &'a mut dyn Iterator<Item = std::io::Result<Vec<u8>>>;

/// How records are written to and read from the files of one format.
pub trait FileFormat: std::fmt::Debug + Send + Sync {
    /// What one record is in its files, for error messages (`line`, `row`).
    fn unit(&self) -> &'static str;

    /// Why a sink cannot add to an existing file of this format
    /// (`mode = "append"`), when it cannot.
    fn append_refused(&self) -> Option<&'static str> {
        None
    }

    /// Whether a file may be written as its records come (unsorted and
    /// replaced), with nothing left to do once the input ends.
    fn streams(&self) -> bool {
        false
    }

    /// Whether every record of a file must be of one kind (the file has a schema).
    fn one_kind(&self) -> bool {
        false
    }

    /// Writes `lines`, records of `kind` (`None` when no record came and the
    /// sink's inputs carry records of several kinds), to `file`,
    /// the temporary file of `path`. Returns whether there is a file to publish.
    ///
    /// # Errors
    /// A record that cannot be read back or written, naming `path`.
    fn write(
        &self,
        path: &Path,
        kind: Option<RecordKind>,
        lines: Lines<'_>,
        file: &File,
    ) -> Result<bool, StageError>;

    /// The records of `file` (at `path`) as JSON lines, for the sources.
    ///
    /// # Errors
    /// A file that is not of this format, naming `path`.
    fn read(&self, path: &Path, file: File) -> Result<Box<dyn Read>, StageError>;
}

/// One JSON record per line.
#[derive(Debug, Clone, Copy)]
pub struct Jsonl;

impl FileFormat for Jsonl {
    fn unit(&self) -> &'static str {
        "line"
    }

    fn streams(&self) -> bool {
        true
    }

    fn write(
        &self,
        path: &Path,
        _kind: Option<RecordKind>,
        lines: Lines<'_>,
        file: &File,
    ) -> Result<bool, StageError> {
        let io_err = |e| StageError::io(path, e);
        let mut w = BufWriter::with_capacity(1 << 16, file);
        for line in lines {
            w.write_all(&line.map_err(io_err)?).map_err(io_err)?;
            w.write_all(b"\n").map_err(io_err)?;
        }
        w.flush().map_err(io_err)?;
        Ok(true)
    }

    fn read(&self, _path: &Path, file: File) -> Result<Box<dyn Read>, StageError> {
        Ok(Box::new(file))
    }
}

/// Apache Parquet, columns named as the JSON fields (nested records as structs),
/// one record kind's declared schema a file.
#[derive(Debug, Clone, Copy)]
pub struct Parquet;

impl FileFormat for Parquet {
    fn unit(&self) -> &'static str {
        "row"
    }

    fn append_refused(&self) -> Option<&'static str> {
        // Appending to Parquet means rewriting every row group; a {run} path keeps
        // each run's rows in a file of its own instead.
        Some(
            "`append` is for JSONL files; for Parquet put `{run}` (or `{date}`) in the \
             path to write each run's records to a file of its own",
        )
    }

    fn one_kind(&self) -> bool {
        true
    }

    fn write(
        &self,
        path: &Path,
        kind: Option<RecordKind>,
        lines: Lines<'_>,
        file: &File,
    ) -> Result<bool, StageError> {
        let Some(kind) = kind else {
            // Inputs of several kinds and no record: no schema to write, so no
            // file (nor a count in run.json that would name one). Inputs of one
            // kind give it, and an empty file with its schema.
            tracing::info!(path = %path.display(), "no records of a known kind: no Parquet file written");
            return Ok(false);
        };
        let mut read_error = None;
        let records = lines.map_while(|line| {
            let record = line.and_then(|line| {
                let text = std::str::from_utf8(&line).map_err(std::io::Error::other)?;
                Record::from_json(kind, text).map_err(std::io::Error::other)
            });
            record.map_err(|e| read_error = Some(e)).ok()
        });
        let written = parquet::write_records(kind, records, file);
        if let Some(e) = read_error {
            return Err(StageError::io(path, e));
        }
        written.map_err(|e| StageError::external(format!("{}: {e}", path.display())))?;
        Ok(true)
    }

    fn read(&self, path: &Path, file: File) -> Result<Box<dyn Read>, StageError> {
        let lines = parquet::read_json_lines(file).map_err(|e| {
            StageError::input(format!(
                "{}: not a readable Parquet file: {e}",
                path.display()
            ))
        })?;
        Ok(Box::new(std::io::Cursor::new(lines)))
    }
}
