//! The manifest's record: one published article as an address in the Archive and
//! the decisions that put it in its set, without the publisher's text. A lab that
//! holds the manifest fetches the same captures and rebuilds the same set
//! (`tempora rebuild`); the records' serde field names are the manifest's public
//! schema.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::article::{FactMatch, Novelty, PublishedSource, SummarySource};
use crate::timestamp::Timestamp;

/// One published article of a set, as its manifest lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    /// Site: `bbc`, `cnn`, ... (the article's `source`).
    pub source: String,
    /// The article's id (as in the sets).
    pub id: String,
    /// Section of the site.
    pub section: String,
    /// The set it was published in.
    pub split: Option<String>,
    /// Its training-overlap score, bin and tag, when the run had a `novelty` stage.
    pub novelty: Option<Novelty>,
    /// Canonical original URL (not the Wayback URL).
    pub url: String,
    /// Publication date.
    pub published: NaiveDate,
    /// Where the publication date came from.
    pub published_source: Option<PublishedSource>,
    /// Where the reference summary came from.
    pub summary_source: Option<SummarySource>,
    /// The capture's time, 14 digits: with `archived_url`, its address in the Archive.
    pub timestamp: Timestamp,
    /// The URL the Archive filed the capture under, as listed.
    pub archived_url: String,
    /// The capture's `digest` as the CDX index lists it (empty where none was listed).
    pub digest: String,
    /// SHA-1 (base32) of the page's bytes as the run received them.
    pub payload_sha1: String,
    /// SHA-256 (hex) of what the extractor read from the page (id, URL, dates,
    /// title, summary, document, dateline): a rebuild that reads the page otherwise
    /// names the article.
    pub text_sha256: String,
    /// The evolving facts the article names, with the names found (Wikidata, CC0),
    /// in the article's order (by subject id, relation, start and object id).
    pub facts: Vec<FactMatch>,
}
