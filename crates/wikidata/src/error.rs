//! Errors of reading a dump or a facts file. Each names the dump (or file) and, where
//! it has one, the byte offset or line and the number of entities read so far.

use std::io;

/// What stops a dump read.
#[derive(Debug, thiserror::Error)]
pub enum WikidataError {
    /// The file system or the stream failed.
    #[error("{dump}: {source}")]
    Io {
        /// The dump.
        dump: String,
        /// The I/O error.
        source: io::Error,
    },
    /// The input is not a Wikidata JSON dump at all.
    #[error("{dump} is not a Wikidata JSON dump: {why}")]
    NotADump {
        /// The dump.
        dump: String,
        /// What was found instead.
        why: String,
    },
    /// The compressed stream ends before its end.
    #[error(
        "{dump}: the {format} stream is truncated: it ends at byte {offset} in the middle of \
         compressed data; {entities} entities were read before that"
    )]
    Truncated {
        /// The dump.
        dump: String,
        /// `gzip`, `bzip2`, `zstd`.
        format: &'static str,
        /// Compressed byte offset where the data ends.
        offset: u64,
        /// Entities read before the error.
        entities: u64,
    },
    /// The compressed stream is damaged.
    #[error("{dump}: corrupt {format} data near byte {offset}: {message}; {entities} entities were read before that")]
    Corrupt {
        /// The dump.
        dump: String,
        /// `gzip`, `bzip2`, `zstd`.
        format: &'static str,
        /// Compressed byte offset near the damage.
        offset: u64,
        /// The decoder's message.
        message: String,
        /// Entities read before the error.
        entities: u64,
    },
    /// An entity line is not valid (with `on_error = "fail"`).
    #[error("{dump}, line {line}: {reason}")]
    MalformedLine {
        /// The dump.
        dump: String,
        /// 1-based line in the decompressed dump.
        line: u64,
        /// What is wrong.
        reason: String,
    },
    /// A facts file (`facts_file`) cannot be used.
    #[error("{path}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    FactsFile {
        /// The file.
        path: String,
        /// 1-based line, when the problem is one line.
        line: Option<u64>,
        /// What is wrong.
        message: String,
    },
    /// The run was asked to stop (Ctrl-C) before the dump was read.
    #[error("cancelled")]
    Cancelled,
}
