//! WARC/1.1: a writer of `response` records (one gzip member per record, so a
//! record can be read back from its offset alone) and a reader of WARC files,
//! ours and the Archive's (`.warc.gz` member by member, whole-file gzip, or
//! plain `.warc`), with every length capped.
//!
//! We do not use the `warc` crate: it writes a whole file as one gzip stream,
//! does not report record offsets, reads bodies without a cap, and would add a
//! second deflate implementation; the format itself is a header block and a
//! length-prefixed payload.

mod page;
mod read;
pub(crate) mod write;

pub use page::{page_from_record, response_record, ArchivedResponse};
pub use read::{read_at, WarcFileReader};
pub use tempora_wayback_format::digest::sha1_base32;
pub use write::{gzip, WarcWriter, MAX_FILE_BYTES};

/// One WARC record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarcRecord {
    /// Offset of the record, or of the gzip member holding it.
    pub offset: u64,
    /// `WARC/1.1`, `WARC/1.0`.
    pub version: String,
    /// Header fields in order.
    pub headers: Vec<(String, String)>,
    /// The content block (empty when it was over the cap, see `oversize`).
    pub block: Vec<u8>,
    /// The block's declared length was over the cap; it was skipped.
    pub oversize: Option<u64>,
}

impl WarcRecord {
    /// A header's value (names are case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// `WARC-Type`.
    pub fn kind(&self) -> &str {
        self.header("WARC-Type").unwrap_or("")
    }
}
