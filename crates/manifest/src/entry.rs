//! An article as its manifest row: everything but the publisher's text.

use serde::Serialize;
use tempora_records::{Article, ManifestEntry, NotATimestamp};

/// SHA-256 (hex) of what the extractor read from the article's page: its id,
/// URL, site, section, dates, title, summary, document and dateline (not what
/// later stages add, nor where the page came from).
pub fn text_sha256(a: &Article) -> String {
    #[derive(Serialize)]
    struct Read<'a> {
        id: &'a str,
        url: &'a str,
        source: &'a str,
        section: &'a str,
        published: chrono::NaiveDate,
        published_at: Option<chrono::DateTime<chrono::Utc>>,
        published_source: Option<tempora_records::PublishedSource>,
        title: &'a str,
        summary: &'a str,
        summary_source: Option<tempora_records::SummarySource>,
        document: &'a str,
        dateline: Option<&'a str>,
    }
    let read = Read {
        id: &a.id,
        url: &a.url,
        source: &a.source,
        section: &a.section,
        published: a.published,
        published_at: a.published_at,
        published_source: a.published_source,
        title: &a.title,
        summary: &a.summary,
        summary_source: a.summary_source,
        document: &a.document,
        dateline: a.dateline.as_deref(),
    };
    // Plain structs of strings and dates: serializing cannot fail.
    let bytes = serde_json::to_vec(&read).unwrap_or_default();
    tempora_engine::fingerprint::digest(&bytes)
}

/// The manifest row of a published article.
///
/// # Errors
/// An article with no capture time (not read from a capture) has no address in
/// the Archive.
pub fn entry_of(a: &Article) -> Result<ManifestEntry, NotATimestamp> {
    Ok(ManifestEntry {
        source: a.source.clone(),
        id: a.id.clone(),
        section: a.section.clone(),
        split: a.split.clone(),
        novelty: a.novelty.clone(),
        url: a.url.clone(),
        published: a.published,
        published_source: a.published_source,
        summary_source: a.summary_source,
        // None reads as the empty text did: no capture time.
        timestamp: a.captured.ok_or_else(|| NotATimestamp(String::new()))?,
        archived_url: a.archived_url.clone().unwrap_or_default(),
        digest: a.digest.clone().unwrap_or_default(),
        payload_sha1: a.payload_sha1.clone().unwrap_or_default(),
        text_sha256: text_sha256(a),
        facts: a.facts.clone(),
    })
}

/// The address of a capture, as manifest rows and articles both give it.
pub fn capture_key(timestamp: &str, archived_url: &str) -> String {
    format!("{timestamp} {archived_url}")
}
