//! What can go wrong while reporting, each naming the file, line and field.

use std::path::PathBuf;

/// An error of `tempora report`.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file or directory cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A JSON line is not a usable article record.
    #[error("{}:{line}: {message}", path.display())]
    BadRecord {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong (the field, or the JSON syntax error and its column).
        message: String,
    },
    /// A Parquet file cannot be read.
    #[error("{}: cannot read Parquet: {message}", path.display())]
    Parquet {
        /// The file.
        path: PathBuf,
        /// polars' message.
        message: String,
    },
    /// `run.json` is not JSON.
    #[error("{}: not a run report: {message}", path.display())]
    RunJson {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The directory holds no article output.
    #[error(
        "{}: no article outputs: no JSONL or Parquet file whose records have `summary` and `document`",
        dir.display()
    )]
    NoSets {
        /// The directory.
        dir: PathBuf,
    },
    /// Aggregating the statistics failed (a bug: the frame is built here).
    #[error("aggregating the statistics: {0}")]
    Aggregate(#[from] polars::prelude::PolarsError),
    /// A chart cannot be drawn or written.
    #[error("{}: cannot draw the chart: {message}", path.display())]
    Chart {
        /// The chart file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl ReportError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}
