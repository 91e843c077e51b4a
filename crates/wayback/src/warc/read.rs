//! Reading WARC files record by record, with offsets, whatever the compression:
//! one gzip member per record (ours, the Archive's), one gzip stream for the
//! whole file, or none.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use flate2::bufread::GzDecoder;

use super::WarcRecord;
use crate::error::WaybackError;

/// Longest header block accepted.
const MAX_HEADER_BYTES: usize = 1 << 20;

/// A `BufRead` that counts what was consumed: the offset of the next gzip member.
struct Counting<R> {
    inner: R,
    consumed: u64,
}

impl<R: Read> Read for Counting<R>
where
    R: BufRead,
{
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.consumed += amt as u64;
        self.inner.consume(amt);
    }
}

type Source = Counting<BufReader<File>>;

enum Position {
    /// Between gzip members (or anywhere in a plain file).
    Between(Source),
    /// Inside a gzip member that started at this offset (boxed: the decoder is large).
    InMember(Box<BufReader<GzDecoder<Source>>>, u64),
    Done,
}

/// The records of one WARC file, in order.
pub struct WarcFileReader {
    path: PathBuf,
    gzip: bool,
    max_block: u64,
    position: Position,
}

impl WarcFileReader {
    /// Opens `path`; blocks longer than `max_block` are skipped (reported as oversize).
    ///
    /// # Errors
    /// When the file cannot be opened.
    pub fn open(path: &Path, max_block: u64) -> Result<Self, WaybackError> {
        let file = File::open(path).map_err(|e| WaybackError::io(path, e))?;
        let mut reader = Counting {
            inner: BufReader::with_capacity(1 << 16, file),
            consumed: 0,
        };
        let gzip = reader
            .fill_buf()
            .map_err(|e| WaybackError::io(path, e))?
            .starts_with(&[0x1f, 0x8b]);
        Ok(Self {
            path: path.to_path_buf(),
            gzip,
            max_block,
            position: Position::Between(reader),
        })
    }

    fn error(&self, offset: u64, message: impl Into<String>) -> WaybackError {
        WaybackError::Warc {
            path: self.path.clone(),
            offset,
            message: message.into(),
        }
    }

    fn step(&mut self) -> Result<Option<WarcRecord>, WaybackError> {
        loop {
            match std::mem::replace(&mut self.position, Position::Done) {
                Position::Done => return Ok(None),
                Position::Between(mut source) => {
                    let offset = source.consumed;
                    let at_end = source
                        .fill_buf()
                        .map_err(|e| self.error(offset, e.to_string()))?
                        .is_empty();
                    if at_end {
                        return Ok(None);
                    }
                    if !self.gzip {
                        let record = parse_record(&mut source, offset, self.max_block)
                            .map_err(|m| self.error(offset, m))?;
                        self.position = Position::Between(source);
                        return Ok(record);
                    }
                    self.position = Position::InMember(
                        Box::new(BufReader::new(GzDecoder::new(source))),
                        offset,
                    );
                }
                Position::InMember(mut member, offset) => {
                    let record = parse_record(&mut member, offset, self.max_block)
                        .map_err(|m| self.error(offset, m))?;
                    match record {
                        Some(r) => {
                            self.position = Position::InMember(member, offset);
                            return Ok(Some(r));
                        }
                        None => self.position = Position::Between(member.into_inner().into_inner()),
                    }
                }
            }
        }
    }
}

impl Iterator for WarcFileReader {
    type Item = Result<WarcRecord, WaybackError>;

    /// The next record; after an error (a cut or corrupt file) the reader stops.
    fn next(&mut self) -> Option<Self::Item> {
        match self.step() {
            Ok(r) => r.map(Ok),
            Err(e) => {
                self.position = Position::Done;
                Some(Err(e))
            }
        }
    }
}

/// Reads the record whose gzip member (or plain record) starts at `offset`.
///
/// # Errors
/// When the file cannot be read or holds no record there.
pub fn read_at(path: &Path, offset: u64, max_block: u64) -> Result<WarcRecord, WaybackError> {
    let mut file = File::open(path).map_err(|e| WaybackError::io(path, e))?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| WaybackError::io(path, e))?;
    let mut reader = WarcFileReader {
        path: path.to_path_buf(),
        gzip: false,
        max_block,
        position: Position::Done,
    };
    let mut source = Counting {
        inner: BufReader::new(file),
        consumed: offset,
    };
    reader.gzip = source
        .fill_buf()
        .map_err(|e| WaybackError::io(path, e))?
        .starts_with(&[0x1f, 0x8b]);
    reader.position = Position::Between(source);
    match reader.next() {
        Some(r) => r,
        None => Err(WaybackError::Warc {
            path: path.to_path_buf(),
            offset,
            message: "no record at this offset".into(),
        }),
    }
}

/// Reads one line (through `\n`), at most `max` bytes.
fn read_line(r: &mut impl BufRead, max: usize) -> Result<Vec<u8>, String> {
    let mut line = Vec::new();
    let n = r
        .take(max as u64 + 1)
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("cannot read: {e}"))?;
    if n > max {
        return Err(format!("header line longer than {max} bytes"));
    }
    Ok(line)
}

/// Parses one record; `None` at a clean end of input.
fn parse_record(
    r: &mut impl BufRead,
    offset: u64,
    max_block: u64,
) -> Result<Option<WarcRecord>, String> {
    let Some(version) = read_version(r)? else {
        return Ok(None);
    };
    let headers = read_headers(r)?;
    let length: u64 = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Content-Length"))
        .ok_or("record without Content-Length")?
        .1
        .parse()
        .map_err(|_| "Content-Length is not a number".to_string())?;
    let mut record = WarcRecord {
        offset,
        version,
        headers,
        block: Vec::new(),
        oversize: None,
    };
    if length > max_block {
        skip_block(r, length)?;
        record.oversize = Some(length);
    } else {
        record.block = read_block(r, length)?;
    }
    skip_record_end(r)?;
    Ok(Some(record))
}

/// The record's version line (`WARC/1.1`), after any blank lines between
/// records; `None` at a clean end of input.
fn read_version(r: &mut impl BufRead) -> Result<Option<String>, String> {
    // Tolerate extra blank lines between records.
    let version = loop {
        let line = read_line(r, MAX_HEADER_BYTES)?;
        if line.is_empty() {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line).trim().to_string();
        if !text.is_empty() {
            break text;
        }
    };
    if !version.starts_with("WARC/") {
        let shown: String = version.chars().take(40).collect();
        return Err(format!("not a WARC record: it starts with {shown:?}"));
    }
    Ok(Some(version))
}

/// The record's header block, through the blank line that ends it; a folded
/// line (starting with a space or tab) continues the header before it.
fn read_headers(r: &mut impl BufRead) -> Result<Vec<(String, String)>, String> {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut total = 0;
    loop {
        let line = read_line(r, MAX_HEADER_BYTES)?;
        total += line.len();
        if line.is_empty() {
            return Err("the file ends inside the record's headers".into());
        }
        if total > MAX_HEADER_BYTES {
            return Err(format!("headers longer than {MAX_HEADER_BYTES} bytes"));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            return Ok(headers);
        }
        if text.starts_with([' ', '\t']) {
            if let Some(last) = headers.last_mut() {
                last.1.push(' ');
                last.1.push_str(text.trim());
            }
            continue;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(format!(
                "header line without a colon: {:?}",
                text.chars().take(60).collect::<String>()
            ));
        };
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
}

/// Reads past a block of `length` bytes too long to keep.
fn skip_block(r: &mut impl BufRead, length: u64) -> Result<(), String> {
    let skipped = std::io::copy(&mut r.take(length), &mut std::io::sink())
        .map_err(|e| format!("cannot read: {e}"))?;
    if skipped < length {
        return Err(format!("record is cut: {skipped} of {length} bytes"));
    }
    Ok(())
}

/// Reads a block of `length` bytes.
fn read_block(r: &mut impl BufRead, length: u64) -> Result<Vec<u8>, String> {
    let mut block = Vec::with_capacity(length as usize);
    r.take(length)
        .read_to_end(&mut block)
        .map_err(|e| format!("cannot read the block: {e}"))?;
    if (block.len() as u64) < length {
        return Err(format!("record is cut: {} of {length} bytes", block.len()));
    }
    Ok(block)
}

/// Reads past the CRLF CRLF that follows the block; missing at the very end is tolerated.
fn skip_record_end(r: &mut impl BufRead) -> Result<(), String> {
    for _ in 0..4 {
        let buf = r.fill_buf().map_err(|e| format!("cannot read: {e}"))?;
        if buf.is_empty() || !matches!(buf[0], b'\r' | b'\n') {
            break;
        }
        r.consume(1);
    }
    Ok(())
}
