//! Errors of the novelty crate: each names the file, and the line where there is one.

use std::path::{Path, PathBuf};

/// What went wrong reading summaries or writing subsets.
#[derive(Debug, thiserror::Error)]
pub enum NoveltyError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// One record of a line file is not usable.
    #[error("{}, line {line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong, naming the field.
        message: String,
    },
    /// One test record is not usable.
    #[error("{location}: {message}")]
    Record {
        /// Where it was read: `FILE, line N` or `FILE, row N`.
        location: String,
        /// What is wrong.
        message: String,
    },
    /// A whole file is not usable.
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The options do not fit together.
    #[error("{0}")]
    Usage(String),
}

impl NoveltyError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn line(path: &Path, line: usize, message: String) -> Self {
        Self::Line {
            path: path.to_path_buf(),
            line,
            message,
        }
    }

    pub(crate) fn file(path: &Path, message: String) -> Self {
        Self::File {
            path: path.to_path_buf(),
            message,
        }
    }
}
