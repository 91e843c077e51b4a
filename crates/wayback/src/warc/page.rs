//! Pages as WARC `response` records and back.
//!
//! Our records carry the listed capture as JSON in a `Tempora-Capture` field so a
//! crawl rebuilt from WARC files gives the very same `Page` records. Records of
//! other crawlers (the Archive's) are read by the standard fields: the target
//! URI, the date, the payload digest and the HTTP status and headers; chunked
//! transfer coding and gzip content coding of the stored HTTP payload are undone.

use std::io::Read as _;

use tempora_records::{Capture, Page, Timestamp};
use tempora_wayback_format::digest::sha1_base32;
use tempora_wayback_format::timestamp;

use super::WarcRecord;

/// The WARC `response` record of a page (uncompressed, with the trailing CRLF CRLF).
pub fn response_record(page: &Page) -> Vec<u8> {
    // A page is always the served 200 answer; the listed status stays in `Tempora-Capture`.
    let mut http = String::from("HTTP/1.1 200 OK\r\n");
    if let Some(ct) = &page.content_type {
        http.push_str(&format!("Content-Type: {}\r\n", one_line(ct)));
    }
    http.push_str(&format!("Content-Length: {}\r\n", page.body.len()));
    if let Some(m) = &page.memento_datetime {
        http.push_str(&format!("Memento-Datetime: {}\r\n", one_line(m)));
    }
    http.push_str("\r\n");
    let mut block = http.into_bytes();
    block.extend_from_slice(&page.body);

    let served = page
        .memento_datetime
        .as_deref()
        .and_then(timestamp::from_memento)
        .unwrap_or_else(|| page.capture.timestamp.to_string());
    let date = timestamp::to_warc_date(&served).unwrap_or_else(|| "1970-01-01T00:00:00Z".into());
    let id = uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_URL,
        format!("{} {}", page.capture.url, page.capture.timestamp).as_bytes(),
    );
    let capture = serde_json::to_string(&page.capture).unwrap_or_default();
    let mut out = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{id}>\r\nWARC-Date: {date}\r\nWARC-Target-URI: {}\r\nWARC-Payload-Digest: sha1:{}\r\nContent-Type: application/http; msgtype=response\r\nTempora-Capture: {capture}\r\nContent-Length: {}\r\n\r\n",
        one_line(&page.final_url),
        sha1_base32(&page.body),
        block.len()
    )
    .into_bytes();
    out.extend_from_slice(&block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// The page in a `response` record; `Ok(None)` for other record types (warcinfo,
/// request, metadata, revisit), `Err` with a reason for a response we cannot use.
///
/// # Errors
/// The reason, in words: not HTTP, oversize, not status 200, bad chunking.
pub fn page_from_record(
    record: &WarcRecord,
    source: &str,
    max_body: u64,
) -> Result<Option<Page>, String> {
    match ArchivedResponse::read(record, source)? {
        Some(response) => response.into_page(max_body).map(Some),
        None => Ok(None),
    }
}

/// A `response` record read as far as the capture it stands for, its payload
/// not yet decoded: a reader may leave the capture out before paying for the
/// page.
pub struct ArchivedResponse<'a> {
    record: &'a WarcRecord,
    head: HttpHead,
    target: String,
    capture: Capture,
}

impl<'a> ArchivedResponse<'a> {
    /// The capture of a `response` record; `Ok(None)` for other record types.
    ///
    /// # Errors
    /// The reason, in words: oversize, not HTTP, no usable capture.
    pub fn read(record: &'a WarcRecord, source: &str) -> Result<Option<Self>, String> {
        if !record.kind().eq_ignore_ascii_case("response") {
            return Ok(None);
        }
        if let Some(n) = record.oversize {
            return Err(format!("record block of {n} bytes is over max_body_bytes"));
        }
        let head = HttpHead::parse(&record.block)?;
        let target = record
            .header("WARC-Target-URI")
            .unwrap_or("")
            .trim_matches(['<', '>'])
            .to_string();
        let capture = capture_of(record, source, &target, &head)?;
        Ok(Some(Self {
            record,
            head,
            target,
            capture,
        }))
    }

    /// The capture the record stands for.
    pub fn capture(&self) -> &Capture {
        &self.capture
    }

    /// The page, its payload decoded.
    ///
    /// # Errors
    /// The reason, in words: oversize, not status 200, bad chunking.
    pub fn into_page(self, max_body: u64) -> Result<Page, String> {
        let Self {
            record,
            head,
            target,
            capture,
        } = self;
        let body = head.payload(&record.block[head.len..], max_body)?;
        if head.status != 200 {
            return Err(format!(
                "the archived response is HTTP {}, not 200",
                head.status
            ));
        }
        if target.is_empty() {
            return Err("record without WARC-Target-URI".into());
        }
        let memento_datetime = head
            .memento
            .or_else(|| timestamp::to_memento(&capture.timestamp));
        Ok(Page {
            capture,
            body,
            content_type: head.content_type,
            final_url: target,
            memento_datetime,
        })
    }
}

/// What a page needs of the HTTP response head stored in a `response` record.
struct HttpHead {
    /// Bytes of the status line and headers: the payload starts after them.
    len: usize,
    /// The archived status (0 when the status line has none).
    status: u16,
    content_type: Option<String>,
    memento: Option<String>,
    /// `Transfer-Encoding` says `chunked`.
    chunked: bool,
    /// `Content-Encoding` says `gzip`.
    gzip: bool,
}

impl HttpHead {
    /// Parses the HTTP status line and headers at the start of `block`.
    fn parse(block: &[u8]) -> Result<Self, String> {
        let mut storage = [httparse::EMPTY_HEADER; 128];
        let mut response = httparse::Response::new(&mut storage);
        let len = match response.parse(block) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => {
                return Err("the HTTP headers in the record are cut".into())
            }
            Err(e) => return Err(format!("the record does not hold an HTTP response: {e}")),
        };
        let header = |name: &str| {
            response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
        };
        let says = |name: &str, coding: &str| {
            header(name).is_some_and(|v| v.to_ascii_lowercase().contains(coding))
        };
        Ok(Self {
            len,
            status: response.code.unwrap_or(0),
            content_type: header("Content-Type"),
            memento: header("Memento-Datetime"),
            chunked: says("Transfer-Encoding", "chunked"),
            gzip: says("Content-Encoding", "gzip"),
        })
    }

    /// The payload as served: `raw` (what follows the head) with its chunked
    /// transfer coding and gzip content coding undone, at most `max_body` bytes.
    fn payload(&self, raw: &[u8], max_body: u64) -> Result<Vec<u8>, String> {
        let mut body = raw.to_vec();
        if self.chunked {
            body = dechunk(&body).ok_or("the chunked HTTP payload is malformed")?;
        }
        if self.gzip && body.starts_with(&[0x1f, 0x8b]) {
            let mut plain = Vec::new();
            flate2::read::MultiGzDecoder::new(body.as_slice())
                .take(max_body + 1)
                .read_to_end(&mut plain)
                .map_err(|e| format!("the gzip HTTP payload is corrupt: {e}"))?;
            body = plain;
        }
        if body.len() as u64 > max_body {
            return Err(format!(
                "payload of {} bytes is over max_body_bytes",
                body.len()
            ));
        }
        Ok(body)
    }
}

/// The capture a record stands for: the one our records carry in
/// `Tempora-Capture`, or else one made of the standard WARC fields (another
/// crawler's record), listed by `source`.
fn capture_of(
    record: &WarcRecord,
    source: &str,
    target: &str,
    head: &HttpHead,
) -> Result<Capture, String> {
    match record
        .header("Tempora-Capture")
        .map(serde_json::from_str::<Capture>)
    {
        Some(Ok(c)) => Ok(c),
        Some(Err(e)) => Err(format!("Tempora-Capture field is not a capture: {e}")),
        None => {
            let ts = record
                .header("WARC-Date")
                .and_then(timestamp::from_warc_date)
                .and_then(|t| Timestamp::parse(&t).ok())
                .ok_or("record without a usable WARC-Date")?;
            Ok(Capture {
                url: target.to_string(),
                timestamp: ts,
                status: Some(head.status),
                mime: head
                    .content_type
                    .as_deref()
                    .and_then(|c| c.split(';').next())
                    .unwrap_or("unk")
                    .trim()
                    .to_string(),
                digest: record
                    .header("WARC-Payload-Digest")
                    .map(|d| d.trim_start_matches("sha1:").to_string())
                    .unwrap_or_default(),
                length: Some(record.block.len() as u64),
                source: source.to_string(),
            })
        }
    }
}

/// Undoes HTTP/1.1 chunked transfer coding.
fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len());
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size..)?;
        data = data.strip_prefix(b"\r\n").unwrap_or(data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dechunks_and_rejects_bad_chunks() {
        assert_eq!(
            dechunk(b"5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n").as_deref(),
            Some(&b"hello world"[..])
        );
        assert_eq!(dechunk(b"zz\r\nhello"), None);
        assert_eq!(dechunk(b"50\r\nshort"), None);
    }
}
