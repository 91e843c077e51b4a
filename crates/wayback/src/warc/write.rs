//! Appending records to `.warc.gz` files: one gzip member per record, files
//! rolled at a size, `fsync` on demand so the caller knows what is durable.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::WaybackError;

/// Files are rolled over past this size.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Writes records into `<dir>/<prefix>-<start>-<n>.warc.gz`.
pub struct WarcWriter {
    dir: PathBuf,
    prefix: String,
    started: String,
    seq: u32,
    current: Option<(PathBuf, File)>,
    len: u64,
    max_file_bytes: u64,
}

impl WarcWriter {
    /// A writer into `dir` (created if missing); files start when the first record comes.
    ///
    /// # Errors
    /// When `dir` cannot be created.
    pub fn new(dir: &Path, prefix: &str, max_file_bytes: u64) -> Result<Self, WaybackError> {
        std::fs::create_dir_all(dir).map_err(|e| WaybackError::io(dir, e))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            prefix: prefix.to_string(),
            started: chrono::Utc::now().format("%Y%m%d%H%M%S").to_string(),
            seq: 0,
            current: None,
            len: 0,
            max_file_bytes,
        })
    }

    /// Whether the next record goes into a new file (none yet, or the current one is full).
    pub fn needs_roll(&self) -> bool {
        self.current.is_none() || self.len >= self.max_file_bytes
    }

    /// Starts the next file with its `warcinfo` record, made durable. Returns the
    /// new file and its length, and the finished file (if any) with its final length.
    ///
    /// # Errors
    /// I/O errors, naming the file.
    #[allow(clippy::type_complexity)]
    pub fn roll(&mut self) -> Result<((PathBuf, u64), Option<(PathBuf, u64)>), WaybackError> {
        let finished = self.sync()?;
        loop {
            self.seq += 1;
            let name = format!("{}-{}-{:05}.warc.gz", self.prefix, self.started, self.seq);
            let path = self.dir.join(&name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    self.current = Some((path, file));
                    self.len = 0;
                    self.append(&warcinfo(&name))?;
                    let new = self
                        .sync()?
                        .ok_or_else(|| WaybackError::Config("WARC writer lost its file".into()))?;
                    // The directory entry of a new file must be durable too.
                    if let Ok(dir) = File::open(&self.dir) {
                        let _ = dir.sync_all();
                    }
                    return Ok((new, finished));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(WaybackError::io(path, e)),
            }
        }
    }

    /// Appends one uncompressed record as its own gzip member to the current file
    /// (call [`WarcWriter::roll`] first when [`WarcWriter::needs_roll`]); returns the
    /// file and the member's offset.
    ///
    /// # Errors
    /// I/O errors, naming the file; no file started yet.
    pub fn append(&mut self, record: &[u8]) -> Result<(PathBuf, u64), WaybackError> {
        self.append_member(&gzip(record))
    }

    /// Appends a record already compressed with [`gzip`] (compress many in parallel,
    /// then append them in order).
    ///
    /// # Errors
    /// I/O errors, naming the file; no file started yet.
    pub fn append_member(&mut self, member: &[u8]) -> Result<(PathBuf, u64), WaybackError> {
        let Some((path, file)) = self.current.as_mut() else {
            return Err(WaybackError::Config(
                "WARC writer has no file: roll first".into(),
            ));
        };
        let offset = self.len;
        file.write_all(member)
            .map_err(|e| WaybackError::io(path.as_path(), e))?;
        self.len += member.len() as u64;
        Ok((path.clone(), offset))
    }

    /// Makes everything appended so far durable; returns the file and its length.
    ///
    /// # Errors
    /// When `fsync` fails.
    pub fn sync(&mut self) -> Result<Option<(PathBuf, u64)>, WaybackError> {
        let Some((path, file)) = self.current.as_mut() else {
            return Ok(None);
        };
        file.sync_data()
            .map_err(|e| WaybackError::io(path.as_path(), e))?;
        Ok(Some((path.clone(), self.len)))
    }
}

/// A `warcinfo` record naming the software.
fn warcinfo(filename: &str) -> Vec<u8> {
    let body = format!(
        "software: tempora/{}\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n",
        env!("CARGO_PKG_VERSION")
    );
    let id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, filename.as_bytes());
    let mut out = format!(
        "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:{id}>\r\nWARC-Date: {}\r\nWARC-Filename: {filename}\r\nContent-Type: application/warc-fields\r\nContent-Length: {}\r\n\r\n",
        chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ"),
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body.as_bytes());
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// One gzip member holding `data`.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(data.len() / 3),
        flate2::Compression::fast(),
    );
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}
