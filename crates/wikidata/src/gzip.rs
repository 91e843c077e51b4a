//! Multi-member gzip: finding where members start, and decoding a run of whole members.
//!
//! Wikimedia writes `latest-all.json.gz` as many concatenated gzip members. Each member
//! can be inflated on its own, so the reader cuts the compressed file at member starts
//! and the cores inflate the pieces in parallel. A member start is only recognised by
//! its header bytes (`1f 8b 08`, flags, XFL, OS), which compressed data can contain by
//! chance; such a false start shows up as a piece whose last member does not end, and
//! the reader of the pieces then joins it with the next one (see `scan`).

use std::io::{ErrorKind, Read};

use memchr::memmem;

/// Pieces are at least this long (compressed), so that per-piece costs stay small.
pub const MIN_PIECE: usize = 2 << 20;
/// A piece with no member start after this many bytes means the file has no usable
/// member boundaries (e.g. a single-member gzip): it is then inflated on one thread.
pub const MAX_PIECE: usize = 64 << 20;
/// Length of a gzip member header without optional fields.
const HEADER: usize = 10;

/// Whether `b` (at least [`HEADER`] bytes) looks like the start of a gzip member.
fn looks_like_member_start(b: &[u8]) -> bool {
    b.len() >= HEADER
        && b[..3] == [0x1f, 0x8b, 0x08]
        && b[3] & 0xe0 == 0
        && matches!(b[8], 0 | 2 | 4)
        && (b[9] <= 13 || b[9] == 255)
}

/// The first likely member start in `buf` at or after `from`, or `None`. A start too
/// close to the end to check is not reported; search again when more bytes are in.
pub fn next_member_start(buf: &[u8], from: usize) -> Option<usize> {
    if from >= buf.len() {
        return None;
    }
    memmem::find_iter(&buf[from..], &[0x1f, 0x8b, 0x08])
        .map(|i| i + from)
        .take_while(|&i| i + HEADER <= buf.len())
        .find(|&i| looks_like_member_start(&buf[i..]))
}

/// Why a piece did not inflate to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PieceError {
    /// The member starting at this offset (within the piece) runs past the piece's end.
    Incomplete {
        /// Offset of the unfinished member in the piece.
        member: usize,
    },
    /// The data is not valid gzip (bad header, bad deflate data, CRC mismatch).
    Corrupt {
        /// Offset of the bad member in the piece.
        member: usize,
        /// The decoder's message.
        message: String,
    },
}

/// Inflates the whole members that make up `piece`, appending the text to `out`.
///
/// # Errors
/// [`PieceError::Incomplete`] when the last member does not end inside the piece,
/// [`PieceError::Corrupt`] for bad data.
pub fn inflate_members(piece: &[u8], out: &mut Vec<u8>) -> Result<(), PieceError> {
    out.reserve(piece.len().saturating_mul(6));
    let mut rest = piece;
    while !rest.is_empty() {
        let member = piece.len() - rest.len();
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        match decoder.read_to_end(out) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                return Err(PieceError::Incomplete { member })
            }
            Err(e) => {
                return Err(PieceError::Corrupt {
                    member,
                    message: e.to_string(),
                })
            }
        }
        let after = decoder.into_inner();
        if after.len() == rest.len() {
            // Nothing consumed: not a gzip member at all.
            return Err(PieceError::Corrupt {
                member,
                message: "no gzip member here".into(),
            });
        }
        rest = after;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;

    fn member(text: &str) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(text.as_bytes()).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn finds_member_starts_and_inflates_runs_of_members() {
        let a = member("[\n{\"id\":\"Q1\"},\n");
        let b = member("{\"id\":\"Q2\"}\n]\n");
        let both = [a.clone(), b.clone()].concat();
        assert_eq!(next_member_start(&both, 0), Some(0));
        assert_eq!(next_member_start(&both, 1), Some(a.len()));
        assert_eq!(next_member_start(&both, a.len() + 1), None);
        let mut out = Vec::new();
        inflate_members(&both, &mut out).unwrap();
        assert_eq!(out, b"[\n{\"id\":\"Q1\"},\n{\"id\":\"Q2\"}\n]\n");
    }

    #[test]
    fn a_cut_member_is_incomplete_and_garbage_is_corrupt() {
        let a = member("[\n{\"id\":\"Q1\"},\n");
        let b = member(&"{\"id\":\"Q2\"},\n".repeat(1000));
        let cut = [a.clone(), b[..b.len() / 2].to_vec()].concat();
        let mut out = Vec::new();
        assert_eq!(
            inflate_members(&cut, &mut out),
            Err(PieceError::Incomplete { member: a.len() })
        );
        let no_trailer = [a.clone(), b[..b.len() - 4].to_vec()].concat();
        assert_eq!(
            inflate_members(&no_trailer, &mut Vec::new()),
            Err(PieceError::Incomplete { member: a.len() })
        );
        let garbage = [a.clone(), b"not gzip at all".to_vec()].concat();
        assert!(matches!(
            inflate_members(&garbage, &mut Vec::new()),
            Err(PieceError::Corrupt { member, .. }) if member == a.len()
        ));
        let mut flipped = b.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0xff;
        assert!(inflate_members(&flipped, &mut Vec::new()).is_err());
    }
}
