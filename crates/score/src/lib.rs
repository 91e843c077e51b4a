//! `tempora score`: a model's summaries judged claim by claim against the facts at
//! each article's date, so that outdated hallucinations ("Vice President Joe Biden"
//! in a 2021 article) are counted without annotators.
//!
//! In: facts (P39 / P1308, as the `wikidata` stage writes them: every holder of
//! each office and every office of each person, with dates), summaries with their
//! article's publication date (a set's articles joined by `id`, or any data set's
//! lines carrying `published`), optionally the article's document and facts.
//! Out: one [`ScoredSummary`](tempora_records::ScoredSummary) per summary, each
//! claim (a person linked to an office) with its [`Verdict`](tempora_records::Verdict),
//! the statements it rests on and the office's holders on that date; and per system
//! and set the rates TempoSum reports ([`tables`]).
//!
//! Promises: a claim is judged only from the facts (an office or person they do not
//! hold is `unknown`, never guessed); the same facts and summaries give the same
//! bytes, whatever their order; no input can make it panic (every bad line is an
//! error naming file, line and field).
//!
//! How: [`Judge`] holds the facts as holdings ([`holdings`]) and one matcher over
//! every name, title and place ([`lexicon`]); a summary is scanned once, its titles
//! grown into phrases and joined to the person next to them ([`claims`]), and each
//! claim's person and office resolved and judged ([`judge`]).

pub mod bootstrap;
pub mod claims;
pub mod compare;
pub mod harness;
pub mod holdings;
pub mod inputs;
pub mod job;
pub mod judge;
pub mod lexicon;
pub mod markdown;
pub mod predictions;
pub mod tables;
pub mod words;

#[cfg(test)]
mod testing;

pub use judge::{Context, Judge, JudgeStats};

use std::path::PathBuf;

/// What can go wrong when scoring.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    /// The names are too many for the matcher.
    #[error("cannot index the facts' names: {0}")]
    Names(Box<tempora_filter::FilterError>),
    /// A file cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line or row of a file is not what it must be.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// Line (JSONL, CSV: the header is line 1) or row (Parquet, from 1).
        line: usize,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A file as a whole is not what it must be (no such column, not Parquet).
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl From<tempora_filter::FilterError> for ScoreError {
    fn from(e: tempora_filter::FilterError) -> Self {
        Self::Names(Box::new(e))
    }
}
