//! Opening a dump: a path or `-` for stdin, its compression told by its first bytes
//! (never by its name), and a count of the compressed bytes read for progress.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use sha2::Digest as _;

use crate::error::WikidataError;

/// How the dump is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// gzip, usually many members (Wikimedia's `latest-all.json.gz`).
    Gzip,
    /// bzip2 (`latest-all.json.bz2`), possibly several streams.
    Bzip2,
    /// Zstandard.
    Zstd,
    /// Uncompressed JSON.
    Plain,
}

impl Format {
    /// Tells the format from the first bytes of the file.
    ///
    /// # Errors
    /// [`WikidataError::NotADump`] for anything that is neither a supported compression
    /// nor JSON text starting with `[` or `{`.
    pub fn sniff(name: &str, head: &[u8]) -> Result<Self, WikidataError> {
        let first_text = head.iter().find(|b| !b.is_ascii_whitespace());
        match head {
            [0x1f, 0x8b, ..] => Ok(Self::Gzip),
            [b'B', b'Z', b'h', ..] => Ok(Self::Bzip2),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Ok(Self::Zstd),
            [0xef, 0xbb, 0xbf, ..] => Ok(Self::Plain),
            _ if matches!(first_text, Some(b'[' | b'{')) => Ok(Self::Plain),
            [] => Err(WikidataError::NotADump {
                dump: name.to_string(),
                why: "the file is empty".into(),
            }),
            _ => Err(WikidataError::NotADump {
                dump: name.to_string(),
                why: format!(
                    "it starts with bytes {} ({}); expected JSON text starting with `[` or gzip, bzip2 or zstd data",
                    head.iter().take(8).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" "),
                    guess(head)
                ),
            }),
        }
    }
}

fn guess(head: &[u8]) -> &'static str {
    match head {
        [0xfd, b'7', b'z', b'X', b'Z', ..] => {
            "xz data, not supported: recompress or pipe `xz -dc` into `-`"
        }
        [b'P', b'K', 3, 4, ..] => "a zip archive",
        [b'<', ..] => "looks like XML or HTML",
        _ => "not a Wikidata JSON dump",
    }
}

/// A dump opened for reading: its raw (compressed) bytes, counted as they are read.
pub struct DumpInput {
    /// The path as given, or `stdin`.
    pub name: String,
    /// The compression, from the first bytes.
    pub format: Format,
    /// Size of the file in bytes (`None` for stdin and other streams).
    pub size: Option<u64>,
    /// Raw bytes read so far, shared with the progress display.
    pub read: Arc<AtomicU64>,
    /// SHA-256 (hex) of the raw bytes, set once the last of them was read: a
    /// dump too large to hash apart is identified by the one read of it.
    pub sha256: Arc<OnceLock<String>>,
    raw: BufReader<Counting<Box<dyn Read + Send>>>,
}

impl DumpInput {
    /// Opens `dump` (`-` is stdin) and sniffs its format.
    ///
    /// # Errors
    /// When the file cannot be opened or read, or is not a dump.
    pub fn open(dump: &str) -> Result<Self, WikidataError> {
        let io_err = |e: io::Error| WikidataError::Io {
            dump: dump.to_string(),
            source: e,
        };
        let (name, size, reader): (String, Option<u64>, Box<dyn Read + Send>) = if dump == "-" {
            ("stdin".into(), None, Box::new(io::stdin()))
        } else {
            let file = File::open(Path::new(dump)).map_err(io_err)?;
            let size = file.metadata().map_err(io_err)?.len();
            (dump.to_string(), Some(size), Box::new(file))
        };
        Self::from_reader(name, size, reader)
    }

    /// Wraps any reader (tests, pipes) as a dump.
    ///
    /// # Errors
    /// When the reader fails or does not hold a dump.
    pub fn from_reader(
        name: String,
        size: Option<u64>,
        reader: Box<dyn Read + Send>,
    ) -> Result<Self, WikidataError> {
        let read = Arc::new(AtomicU64::new(0));
        let sha256 = Arc::new(OnceLock::new());
        let mut raw = BufReader::with_capacity(
            1 << 20,
            Counting {
                inner: reader,
                read: read.clone(),
                hasher: Some(sha2::Sha256::new()),
                sha256: sha256.clone(),
            },
        );
        let head = raw.fill_buf().map_err(|e| WikidataError::Io {
            dump: name.clone(),
            source: e,
        })?;
        let format = Format::sniff(&name, head)?;
        Ok(Self {
            name,
            format,
            size,
            read,
            sha256,
            raw,
        })
    }

    /// The same input without its digest (a second pass over a dump already hashed).
    pub fn without_digest(mut self) -> Self {
        self.raw.get_mut().hasher = None;
        self
    }

    /// The raw, still compressed bytes.
    pub fn into_raw(self) -> impl BufRead + Send {
        self.raw
    }

    /// The decompressed text, decoded on the calling thread (bz2, zst, plain, and gzip
    /// whose member boundaries cannot be used).
    ///
    /// # Errors
    /// When the zstd decoder cannot be set up.
    pub fn into_text(self) -> Result<Box<dyn Read + Send>, WikidataError> {
        let name = self.name.clone();
        Ok(match self.format {
            Format::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(self.raw)),
            Format::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(self.raw)),
            Format::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(self.raw).map_err(
                |e| WikidataError::Io {
                    dump: name,
                    source: e,
                },
            )?),
            Format::Plain => Box::new(self.raw),
        })
    }
}

/// Counts the bytes that pass through, and hashes them: the digest is set at
/// the end of the input.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
    hasher: Option<sha2::Sha256>,
    sha256: Arc<OnceLock<String>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        if n > 0 {
            if let Some(hasher) = &mut self.hasher {
                hasher.update(&buf[..n]);
            }
        } else if !buf.is_empty() {
            if let Some(hasher) = self.hasher.take() {
                let hex = tempora_engine::input_files::lower_hex(&hasher.finalize());
                let _ = self.sha256.set(hex);
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_of_every_raw_byte_and_set_at_the_end_only() {
        let data = b"[\n{\"id\":\"Q1\"},\n".repeat(100_000);
        let open = || {
            let reader = Box::new(io::Cursor::new(data.clone()));
            DumpInput::from_reader("dump".into(), None, reader).unwrap()
        };
        let input = open();
        let sha = input.sha256.clone();
        let mut raw = input.into_raw();
        let mut first = [0u8; 10];
        raw.read_exact(&mut first).unwrap();
        assert!(sha.get().is_none(), "a digest before the end");
        io::copy(&mut raw, &mut io::sink()).unwrap();
        let want = tempora_engine::input_files::lower_hex(&sha2::Sha256::digest(&data));
        assert_eq!(sha.get(), Some(&want));
        // A second pass leaves it unset.
        let input = open().without_digest();
        let sha = input.sha256.clone();
        io::copy(&mut input.into_raw(), &mut io::sink()).unwrap();
        assert!(sha.get().is_none());
    }

    #[test]
    fn sniffs_by_magic_bytes() {
        assert_eq!(
            Format::sniff("x", &[0x1f, 0x8b, 8, 0]).unwrap(),
            Format::Gzip
        );
        assert_eq!(Format::sniff("x", b"BZh91AY").unwrap(), Format::Bzip2);
        assert_eq!(
            Format::sniff("x", &[0x28, 0xb5, 0x2f, 0xfd]).unwrap(),
            Format::Zstd
        );
        assert_eq!(Format::sniff("x", b"[\n{\"id\"").unwrap(), Format::Plain);
        assert_eq!(Format::sniff("x", b"  \n[").unwrap(), Format::Plain);
    }

    #[test]
    fn refuses_what_is_not_a_dump() {
        let err = Format::sniff("dump.json.gz", b"PK\x03\x04rest")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("dump.json.gz") && err.contains("zip archive"),
            "{err}"
        );
        let err = Format::sniff("d.xz", b"\xfd7zXZ\0")
            .unwrap_err()
            .to_string();
        assert!(err.contains("xz"), "{err}");
        let err = Format::sniff("empty.json", b"").unwrap_err().to_string();
        assert!(err.contains("empty"), "{err}");
    }
}
