//! Errors of the filter stages: input files the user gave that cannot be used.
//! Each names the file, and the line or key where that helps.

use std::path::PathBuf;

use tempora_engine::StageError;

/// A list or facts file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FilterError {
    /// The file cannot be read (missing, unreadable).
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not the JSON it should be.
    #[error("{}: {what}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What the file should hold.
        what: &'static str,
        /// The parser's message, with line and column.
        source: serde_json::Error,
    },
    /// The XSum split file lacks a subset the options ask for.
    #[error("{}: no `{subset}` list (the file has: {found}); check `xsum_subsets`", path.display())]
    MissingSubset {
        /// The file.
        path: PathBuf,
        /// The subset asked for.
        subset: String,
        /// The keys the file has.
        found: String,
    },
    /// One line of a facts file is not a fact.
    #[error("{}:{line}: not a fact: {source}", path.display())]
    FactLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The parser's message, naming the field.
        source: serde_json::Error,
    },
    /// A fact contradicts the pipeline's cutoff: the facts were computed for another one.
    #[error(
        "{origin}: fact {subject} {relation} {object} changed on {changed}, on or before the \
         pipeline cutoff {cutoff}: these facts were computed for an earlier cutoff; recompute \
         them with the pipeline's cutoff (`tempora facts --cutoff {cutoff}`)"
    )]
    StaleFacts {
        /// Where the fact came from: `file:line` or the side input's stage.
        origin: String,
        /// Subject id.
        subject: String,
        /// Relation.
        relation: String,
        /// Object id.
        object: String,
        /// The fact's `pair_changed`.
        changed: String,
        /// The pipeline cutoff.
        cutoff: chrono::NaiveDate,
    },
    /// The names are too many to index (billions of words or 4 GiB of text).
    #[error("the names of the evolving facts are too many to index: {0}")]
    TooManyNames(String),
    /// A fact's `pair_changed` is not an ISO date.
    #[error("{origin}: `pair_changed` `{value}` is not a date (YYYY, YYYY-MM or YYYY-MM-DD)")]
    BadDate {
        /// Where the fact came from.
        origin: String,
        /// The value.
        value: String,
    },
}

impl From<FilterError> for StageError {
    fn from(e: FilterError) -> Self {
        // Every one of them is a file or setting the user can fix.
        StageError::input(e.to_string()).caused_by(e)
    }
}
