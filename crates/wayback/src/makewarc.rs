//! A WARC file from a directory of HTML files and a manifest, so an offline demo
//! can ship a small `.warc.gz` that the `warc` stage reads like a crawl.
//!
//! The manifest is JSON lines, one per page:
//! `{"file": "uk-30000000.html", "url": "http://www.bbc.co.uk/news/uk-30000000", "timestamp": "20150601083000"}`
//! with an optional `"content_type"` (default `text/html; charset=utf-8`; give the
//! real charset of old pages, e.g. `text/html; charset=iso-8859-1`). Files are
//! read relative to the directory; none may leave it.
//!
//! Tooling, not crawling: built only with the crate's `testing` feature (its
//! tests, the `make_warc` example), never into the release binary.

use std::io::Write as _;
use std::path::{Component, Path};

use serde::Deserialize;
use tempora_engine::atomic_file::AtomicFile;
use tempora_records::{Capture, Page, Timestamp};
use tempora_wayback_format::timestamp;

use crate::error::WaybackError;
use crate::warc::{gzip, response_record, sha1_base32};

/// One manifest line.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    /// HTML file, relative to the directory.
    pub file: String,
    /// Original URL of the page.
    pub url: String,
    /// Capture time, 14 digits.
    pub timestamp: String,
    /// `Content-Type` with charset.
    #[serde(default)]
    pub content_type: Option<String>,
}

/// Writes `out` (one gzip member per record) from `dir` and its manifest; returns the
/// page count. The file is written under a temporary name and renamed when complete.
///
/// # Errors
/// A manifest line that is not an entry (naming the line and field), a file
/// outside `dir` or missing, a bad timestamp, or a write error.
pub fn warc_from_dir(dir: &Path, manifest: &Path, out: &Path) -> Result<usize, WaybackError> {
    let warc = AtomicFile::create(out).map_err(|e| WaybackError::io(out, e))?;
    let count = write_pages(dir, manifest, &warc)?;
    warc.commit().map_err(|e| WaybackError::io(out, e))?;
    Ok(count)
}

fn write_pages(dir: &Path, manifest: &Path, warc: &AtomicFile) -> Result<usize, WaybackError> {
    let text = std::fs::read_to_string(manifest).map_err(|e| WaybackError::io(manifest, e))?;
    let (out, mut file) = (warc.path(), warc.as_file());
    let mut count = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |message: String| {
            WaybackError::Config(format!("{}:{}: {message}", manifest.display(), i + 1))
        };
        let entry: ManifestEntry = serde_json::from_str(line).map_err(|e| at(e.to_string()))?;
        let relative = Path::new(&entry.file);
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(at(format!(
                "`file` {:?} must be a plain path inside the directory",
                entry.file
            )));
        }
        let captured =
            Timestamp::parse(&entry.timestamp).map_err(|e| at(format!("`timestamp`: {e}")))?;
        let path = dir.join(relative);
        let body = std::fs::read(&path).map_err(|e| WaybackError::io(&path, e))?;
        let page = Page {
            capture: Capture {
                url: entry.url.clone(),
                timestamp: captured,
                status: Some(200),
                mime: "text/html".into(),
                digest: sha1_base32(&body),
                length: Some(body.len() as u64),
                source: "warc".into(),
            },
            content_type: Some(
                entry
                    .content_type
                    .unwrap_or_else(|| "text/html; charset=utf-8".into()),
            ),
            final_url: entry.url,
            memento_datetime: timestamp::to_memento(&entry.timestamp),
            body,
        };
        file.write_all(&gzip(&response_record(&page)))
            .map_err(|e| WaybackError::io(out, e))?;
        count += 1;
    }
    Ok(count)
}
