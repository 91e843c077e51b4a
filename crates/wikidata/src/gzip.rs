//! Multi-member gzip: finding where members start, and decoding a run of whole members.
//!
//! Wikimedia writes `latest-all.json.gz` as many concatenated gzip members. Each member
//! can be inflated on its own, so the reader cuts the compressed file at member starts
//! and the cores inflate the pieces in parallel. A member start is only recognised by
//! its header bytes (`1f 8b 08`, flags, XFL, OS), which compressed data can contain by
//! chance; such a false start shows up as a piece whose last member does not end, and
//! the reader of the pieces then joins it with the next one (see `scan`).

use flate2::{Crc, Decompress, FlushDecompress, Status};
use libdeflater::Decompressor;
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

/// A member's text is taken to be at most this many times its compressed size when it
/// is inflated in one call: the size comes from the member's last bytes, which are
/// random when a false member start was taken for the member's end, and must not
/// make us allocate gigabytes. Larger members are inflated streaming.
const MAX_RATIO: usize = 32;

/// Inflates the whole members that make up `piece`; `out` becomes their text.
///
/// `out`'s old contents are overwritten, not appended to: a pooled buffer comes back
/// with its bytes still initialised, and a member is inflated in one libdeflate call
/// straight into them (no zero-filling). Each member is first inflated that way, its
/// size known from its trailer (ISIZE) and its end from the next member start;
/// when that does not check out (a false member start, a member that does not end,
/// corrupt data, a size beyond `MAX_RATIO` times the compressed) it is inflated again with the
/// streaming [`Decompress`], which tells which of these it is.
///
/// # Errors
/// [`PieceError::Incomplete`] when the last member does not end inside the piece,
/// [`PieceError::Corrupt`] for bad data (header, deflate stream, CRC or length). `out`
/// then holds the text of the members before and what the bad one gave.
pub fn inflate_members(piece: &[u8], out: &mut Vec<u8>) -> Result<(), PieceError> {
    let (mut at, mut len) = (0, 0);
    let mut whole = Decompressor::new();
    let mut streaming = None;
    while at < piece.len() {
        if let Some((next, text)) = inflate_whole(piece, at, out, len, &mut whole) {
            (at, len) = (next, len + text);
            continue;
        }
        out.truncate(len);
        let inflater = streaming.get_or_insert_with(|| Decompress::new(false));
        at = inflate_member(piece, at, out, inflater)?;
        len = out.len();
    }
    out.truncate(len);
    Ok(())
}

/// Inflates the member at `start` in one libdeflate call into `out[len..]` (grown if
/// needed); returns where the next member starts and the text's length, or `None`
/// when the member's end, size, data or CRC do not check out.
///
/// The member is taken to end where the next likely member start is (or at the end
/// of the piece). A member that really ends earlier (a next member whose header we do
/// not recognise) stops the deflate stream early: its text is then shorter than the
/// size read at the supposed end, or its CRC differs (a 2^-64 chance that both match).
fn inflate_whole(
    piece: &[u8],
    start: usize,
    out: &mut Vec<u8>,
    len: usize,
    whole: &mut Decompressor,
) -> Option<(usize, usize)> {
    let body = start + header_len(&piece[start..]).ok()?;
    let end = next_member_start(piece, body).unwrap_or(piece.len());
    let data_end = end.checked_sub(8).filter(|&e| e >= body)?;
    let trailer = &piece[data_end..end];
    let want_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]) as usize;
    if size > (data_end - body).saturating_mul(MAX_RATIO).max(1 << 20) {
        return None;
    }
    if out.len() < len + size {
        out.resize(len + size, 0);
    }
    let text = &mut out[len..len + size];
    let n = whole
        .deflate_decompress(&piece[body..data_end], text)
        .ok()?;
    (n == size && libdeflater::crc32(text) == want_crc).then_some((end, size))
}

/// Inflates the member starting at `start` streaming, appending its text to `out`;
/// returns where the next one starts.
fn inflate_member(
    piece: &[u8],
    start: usize,
    out: &mut Vec<u8>,
    inflater: &mut Decompress,
) -> Result<usize, PieceError> {
    let incomplete = PieceError::Incomplete { member: start };
    let corrupt = |message: String| PieceError::Corrupt {
        member: start,
        message,
    };
    let body = header_len(&piece[start..]).map_err(|e| e.map_or(incomplete.clone(), corrupt))?;
    let mut at = start + body;
    let text_start = out.len();
    inflater.reset(false);
    loop {
        if out.capacity() - out.len() < 1 << 16 {
            out.reserve((piece.len() - at).max(1 << 16).saturating_mul(4));
        }
        let (in_before, out_before) = (inflater.total_in(), out.len());
        let status = inflater
            .decompress_vec(&piece[at..], out, FlushDecompress::None)
            .map_err(|e| corrupt(format!("bad deflate data: {e}")))?;
        at += (inflater.total_in() - in_before) as usize;
        let stuck = inflater.total_in() == in_before && out.len() == out_before;
        match status {
            Status::StreamEnd => break,
            _ if at == piece.len() && out.len() < out.capacity() => return Err(incomplete),
            _ if stuck && at == piece.len() => return Err(incomplete),
            _ if stuck => return Err(corrupt("the deflate stream makes no progress".into())),
            _ => {}
        }
    }
    let trailer = piece.get(at..at + 8).ok_or(incomplete)?;
    let text = &out[text_start..];
    let mut crc = Crc::new();
    crc.update(text);
    let want_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let want_len = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    if crc.sum() != want_crc || text.len() as u32 != want_len {
        return Err(corrupt("CRC or length mismatch".into()));
    }
    Ok(at + 8)
}

/// Length of the member header at the start of `b`: `Err(None)` when `b` ends inside
/// it, `Err(Some(why))` when it is not a gzip header.
fn header_len(b: &[u8]) -> Result<usize, Option<String>> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    if b.len() < HEADER {
        return Err(None);
    }
    if b[..3] != [0x1f, 0x8b, 0x08] || b[3] & 0xe0 != 0 {
        return Err(Some("not a gzip member header".into()));
    }
    let flags = b[3];
    let mut at = HEADER;
    if flags & FEXTRA != 0 {
        let len = b.get(at..at + 2).ok_or(None)?;
        at += 2 + usize::from(u16::from_le_bytes([len[0], len[1]]));
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            at += memchr::memchr(0, b.get(at..).ok_or(None)?).ok_or(None)? + 1;
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    if at > b.len() {
        return Err(None);
    }
    Ok(at)
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
    fn a_pooled_buffer_is_overwritten_and_false_starts_fall_back() {
        // A stored (uncompressed) member holding a gzip header in its text: the
        // header bytes appear in the compressed data, a false member start.
        let fake = [&[0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3][..], b"\n"].concat();
        let mut enc = GzEncoder::new(Vec::new(), Compression::none());
        enc.write_all(&[b"[\n".as_slice(), &fake].concat()).unwrap();
        let stored = enc.finish().unwrap();
        assert!(next_member_start(&stored, 1).is_some());
        // A member whose header we do not take for a start (OS byte 200).
        let mut odd = member("{\"id\":\"Q2\"}\n");
        odd[9] = 200;
        let all = [stored, member("{\"id\":\"Q1\"},\n"), odd, member("]\n")].concat();
        let mut out = b"old text that is longer than the new one, and must go".repeat(9);
        inflate_members(&all, &mut out).unwrap();
        let want = [
            b"[\n".as_slice(),
            &fake,
            b"{\"id\":\"Q1\"},\n{\"id\":\"Q2\"}\n]\n",
        ]
        .concat();
        assert_eq!(out, want);
    }

    #[test]
    fn headers_with_a_file_name_and_comment_are_read() {
        let mut enc = flate2::GzBuilder::new()
            .filename("latest-all.json")
            .comment("dump")
            .write(Vec::new(), Compression::fast());
        enc.write_all(b"[\n").unwrap();
        let named = enc.finish().unwrap();
        let both = [named.clone(), member("]\n")].concat();
        let mut out = Vec::new();
        inflate_members(&both, &mut out).unwrap();
        assert_eq!(out, b"[\n]\n");
        assert_eq!(
            inflate_members(&named[..12], &mut Vec::new()),
            Err(PieceError::Incomplete { member: 0 })
        );
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
