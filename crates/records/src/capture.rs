//! The Archive's records: a listed capture and a fetched page.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::timestamp::Timestamp;

/// One capture listed by the Wayback CDX API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Capture {
    /// Original URL as archived.
    pub url: String,
    /// Capture time, 14 digits `YYYYMMDDhhmmss` (UTC).
    pub timestamp: Timestamp,
    /// HTTP status of the capture (null for revisit records, listed as `-`).
    pub status: Option<u16>,
    /// MIME type as archived.
    pub mime: String,
    /// SHA-1 digest of the payload (base32), as listed by the CDX API.
    pub digest: String,
    /// Compressed record length in the archive, when listed.
    pub length: Option<u64>,
    /// Name of the stage that listed it.
    pub source: String,
}

/// A fetched capture: the raw archived bytes and where they really came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Page {
    /// The capture that was requested.
    #[serde(flatten)]
    pub capture: Capture,
    /// The payload as archived (not decoded), base64 (in JSONL and Parquet alike).
    #[serde(with = "base64_bytes")]
    #[schemars(with = "String")]
    pub body: Vec<u8>,
    /// The archived `Content-Type` header, charset included, when known.
    #[serde(default)]
    pub content_type: Option<String>,
    /// The URL the capture was finally served for, after capture-to-capture redirects.
    pub final_url: String,
    /// `Memento-Datetime` of the served capture (RFC 1123), when known.
    pub memento_datetime: Option<String>,
}

mod base64_bytes {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}
