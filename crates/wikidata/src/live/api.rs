//! The Wikibase API side of a live reading: entities read whole, as dump lines.
//!
//! `wbgetentities` answers an entity in the JSON of a dump line (with the page
//! metadata a dump also writes: `lastrevid`, `modified`). A reading asks for
//! `info|claims|labels|aliases` in the configured languages (descriptions and
//! sitelinks are not used), 50 ids at a time (the API's limit for a client
//! without the bot right), with `maxlag`: while the database replicas lag more
//! than that, the API answers an error (HTTP 200, code `maxlag`) with
//! `Retry-After`, and the request is sent again after the pause. `redirects=no`:
//! a redirected id reads as missing, as it is absent from a dump.

use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::LiveError;
use crate::lines::line_id;

/// The most ids one request may name (the API's limit without `apihighlimits`).
pub const MAX_IDS: usize = 50;

/// One entity as read: its id, revision and dump line (compact JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadEntity {
    /// `Q42`.
    pub id: String,
    /// Its `lastrevid` (0 when absent).
    pub revision: u64,
    /// The entity's JSON, one line, without a trailing comma: see [`ReadEntity::line`].
    line: Stored,
}

/// A line as a reading holds it until the reading is written: deflated (a
/// reading of the real `P54` holds some 225,000 entities of 8.5 KB, which
/// deflate to about a fifth), or as it is when deflating does not make it
/// smaller. Deflate is lossless, so the line is not inflated again to check it:
/// that would double the work on every entity read and every one of a pinned
/// reading parsed for a refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stored {
    Plain(Vec<u8>),
    Deflated(Vec<u8>),
}

impl Stored {
    fn of(line: Vec<u8>) -> Self {
        match deflate(&line) {
            Some(bytes) if bytes.len() < line.len() => Self::Deflated(bytes),
            _ => Self::Plain(line),
        }
    }
}

fn deflate(line: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write as _;
    let mut encoder = flate2::write::DeflateEncoder::new(
        Vec::with_capacity(line.len() / 4),
        flate2::Compression::fast(),
    );
    encoder.write_all(line).ok()?;
    encoder.finish().ok()
}

fn inflate(bytes: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read as _;
    let mut line = Vec::with_capacity(bytes.len() * 5);
    flate2::read::DeflateDecoder::new(bytes)
        .read_to_end(&mut line)
        .ok()?;
    Some(line)
}

impl ReadEntity {
    /// The entity of one dump line (its trailing `,` already removed).
    ///
    /// # Errors
    /// The line is not an entity whose id the dump reader finds by bytes (a string
    /// `id` among its top-level keys, written without escapes).
    pub fn from_line(line: Vec<u8>) -> Result<Self, String> {
        #[derive(Deserialize)]
        struct Head {
            id: String,
            #[serde(default)]
            lastrevid: u64,
        }
        let head: Head = serde_json::from_slice(&line).map_err(|e| e.to_string())?;
        if line_id(&line) != Some(head.id.as_bytes()) {
            return Err(format!(
                "entity {}: its id is written with escapes, which a dump line's is not",
                head.id
            ));
        }
        Ok(Self {
            id: head.id,
            revision: head.lastrevid,
            line: Stored::of(line),
        })
    }

    /// The entity's JSON, one line, without a trailing comma, as it was read.
    pub fn line(&self) -> Vec<u8> {
        match &self.line {
            Stored::Plain(line) => line.clone(),
            // Bytes deflated here from the line (`Stored::of`) inflate back to it.
            Stored::Deflated(bytes) => inflate(bytes).unwrap_or_default(),
        }
    }
}

/// The request for `ids` with `props` in `languages`.
pub fn request(endpoint: &str, ids: &[String], languages: &[String], maxlag: u32) -> String {
    format!(
        "{endpoint}?action=wbgetentities&format=json&ids={}&props=info%7Cclaims%7Clabels%7Caliases\
         &languages={}&redirects=no&maxlag={maxlag}",
        ids.join("%7C"),
        languages.join("%7C"),
    )
}

#[derive(Deserialize)]
struct Answer<'a> {
    #[serde(borrow, default)]
    entities: Option<std::collections::BTreeMap<String, &'a RawValue>>,
    #[serde(default)]
    error: Option<ApiError>,
}

#[derive(Deserialize)]
struct ApiError {
    code: String,
    #[serde(default)]
    info: String,
}

/// What an answer says.
#[derive(Debug)]
pub enum Read {
    /// The entities that exist (missing ones are left out).
    Entities(Vec<ReadEntity>),
    /// The replicas lag: send again after the pause.
    Lagged(Duration),
}

/// Reads an answer of `request`; `retry_after` is its header.
///
/// # Errors
/// An answer that is not the API's JSON ([`LiveError::Answer`], naming the
/// byte), an error other than `maxlag` ([`LiveError::Service`]), or an entity
/// that is not one.
pub fn parse(request: &str, body: &[u8], retry_after: Option<Duration>) -> Result<Read, LiveError> {
    let answer: Answer<'_> =
        serde_json::from_slice(body).map_err(|e| LiveError::answer(request, body, &e))?;
    if let Some(error) = answer.error {
        if error.code == "maxlag" {
            return Ok(Read::Lagged(retry_after.unwrap_or(Duration::from_secs(5))));
        }
        return Err(LiveError::Service {
            request: request.to_string(),
            message: format!("{}: {}", error.code, error.info),
        });
    }
    let Some(entities) = answer.entities else {
        return Err(LiveError::Service {
            request: request.to_string(),
            message: "the answer has neither `entities` nor `error`".into(),
        });
    };
    let mut read = Vec::new();
    for (key, raw) in entities {
        #[derive(Deserialize)]
        struct Presence {
            #[serde(default)]
            missing: Option<serde::de::IgnoredAny>,
        }
        let presence: Presence =
            serde_json::from_str(raw.get()).map_err(|e| LiveError::answer(request, body, &e))?;
        if presence.missing.is_some() {
            continue;
        }
        let entity = ReadEntity::from_line(compact(raw.get().as_bytes())).map_err(|why| {
            LiveError::Service {
                request: request.to_string(),
                message: format!("entity {key}: {why}"),
            }
        })?;
        read.push(entity);
    }
    Ok(Read::Entities(read))
}

/// `json` without whitespace outside its strings: one dump line, with its keys
/// in their order and its escapes as they were.
pub fn compact(json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        if in_string {
            out.push(b);
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if !b.is_ascii_whitespace() {
            in_string = b == b'"';
            out.push(b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entity_is_held_deflated_and_gives_its_line_back_byte_for_byte() {
        let claims: Vec<String> = (0..200)
            .map(|n| format!(r#""P{n}":[{{"mainsnak":{{"snaktype":"value","property":"P{n}"}}}}]"#))
            .collect();
        let line = format!(
            r#"{{"lastrevid":9,"type":"item","id":"Q7","claims":{{{}}}}}"#,
            claims.join(",")
        );
        let entity = ReadEntity::from_line(line.clone().into_bytes()).unwrap();
        let Stored::Deflated(held) = &entity.line else {
            panic!("not deflated")
        };
        assert!(
            held.len() * 4 < line.len(),
            "{} of {}",
            held.len(),
            line.len()
        );
        assert_eq!(entity.line(), line.as_bytes());
    }

    #[test]
    fn entities_are_read_as_compact_dump_lines_and_missing_ones_left_out() {
        let body = br#"{"entities":{"Q2":{"pageid":2,"ns":0,"title":"Q2","lastrevid":77,"type":"item","id":"Q2",
            "labels":{"en":{"language":"en","value":"a \"b\" \\ c d"}}},"Q3":{"id":"Q3","missing":""}},"success":1}"#;
        let Read::Entities(read) = parse("r", body, None).unwrap() else {
            panic!("no entities")
        };
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].id, "Q2");
        assert_eq!(read[0].revision, 77);
        assert_eq!(
            String::from_utf8(read[0].line()).unwrap(),
            r#"{"pageid":2,"ns":0,"title":"Q2","lastrevid":77,"type":"item","id":"Q2","labels":{"en":{"language":"en","value":"a \"b\" \\ c d"}}}"#
        );
    }

    #[test]
    fn maxlag_asks_for_a_pause_and_other_errors_name_the_request() {
        let lag = br#"{"error":{"code":"maxlag","info":"Waiting for db1: 7 seconds lagged.","host":"db1","lag":7,"type":"db"},"servedby":"mw1"}"#;
        assert!(matches!(
            parse("r", lag, Some(Duration::from_secs(7))).unwrap(),
            Read::Lagged(d) if d == Duration::from_secs(7)
        ));
        let many = br#"{"error":{"code":"toomanyvalues","info":"Too many values supplied for parameter \"ids\". The limit is 50."}}"#;
        let err = parse("GET ids=Q1|...", many, None).unwrap_err().to_string();
        assert!(
            err.contains("GET ids=Q1|...") && err.contains("toomanyvalues"),
            "{err}"
        );
        let cut = &br#"{"entities":{"Q2":{"type":"item","id":"Q2","labels":{"#[..];
        let err = parse("r", cut, None).unwrap_err().to_string();
        assert!(err.contains(&format!("byte {}", cut.len())), "{err}");
    }

    #[test]
    fn an_entity_in_another_key_order_is_read_and_an_escaped_id_refused() {
        let claims = "x".repeat(2000);
        let body = format!(
            r#"{{"entities":{{"Q2":{{"claims":{{"P31":[{{"id":"Q2$1"}}]}},"note":"{claims}","type":"item","id":"Q2"}}}}}}"#
        );
        let Read::Entities(read) = parse("r", body.as_bytes(), None).unwrap() else {
            panic!("no entities")
        };
        assert_eq!((read.len(), read[0].id.as_str()), (1, "Q2"));
        let escaped = br#"{"entities":{"Q2":{"type":"item","id":"Q\u0032"}}}"#;
        let err = parse("r", escaped, None).unwrap_err().to_string();
        assert!(err.contains("escapes"), "{err}");
    }
}
