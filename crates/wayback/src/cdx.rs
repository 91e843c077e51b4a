//! The CDX query API: building queries, reading answers, one polite page at a time.
//!
//! Queries always ask for `output=json` with an explicit `fl` and page with
//! `showResumeKey`/`resumeKey` (the `page=` API is wrong under filters). Answers
//! are read by their header row; the text format is read too, for servers that
//! ignore `output=json`. A blocked site (403 with `X-Archive-Wayback-Runtime-Error`)
//! is reported as such, and an HTML page served with 200 (the Wayback's error page)
//! is retried like a 5xx, never parsed as data.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_records::{Capture, Timestamp};

use crate::error::WaybackError;
use tempora_http::{Client, GetError};

/// How `url` is matched (the CDX `matchType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchType {
    /// Only this URL.
    Exact,
    /// Every URL under this path (`bbc.co.uk/news/*` implies it).
    Prefix,
    /// Every URL of this host.
    Host,
    /// Every URL of this host and its subdomains.
    Domain,
}

impl MatchType {
    /// The CDX parameter value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Prefix => "prefix",
            Self::Host => "host",
            Self::Domain => "domain",
        }
    }
}

/// The fields we ask for, in order.
pub const FIELDS: &str = "urlkey,timestamp,original,mimetype,statuscode,digest,length";

/// The CDX filters a listing uses unless told otherwise: pages that were
/// served (status 200) as HTML.
pub fn default_filters() -> Vec<String> {
    vec!["statuscode:200".into(), "mimetype:text/html".into()]
}

/// One CDX query (without paging state).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdxQuery {
    /// URL or pattern (`bbc.co.uk/news/*`).
    pub url: String,
    /// `matchType`, when not implied by the pattern.
    pub match_type: Option<MatchType>,
    /// Earliest capture (`from`), 4-14 digits.
    pub from: Option<String>,
    /// Latest capture (`to`), 4-14 digits.
    pub to: Option<String>,
    /// `filter` values, e.g. `statuscode:200`.
    pub filters: Vec<String>,
    /// `collapse` values, e.g. `urlkey`.
    pub collapse: Vec<String>,
    /// Rows per page (`limit`).
    pub page_size: usize,
}

impl CdxQuery {
    /// The request URL at `endpoint`, resuming after `resume_key` when given.
    pub fn request_url(&self, endpoint: &str, resume_key: Option<&str>) -> String {
        let base = format!("{}/cdx/search/cdx", endpoint.trim_end_matches('/'));
        let mut url = match url::Url::parse(&base) {
            Ok(u) => u,
            Err(_) => return base,
        };
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("url", &self.url);
            if let Some(m) = self.match_type {
                q.append_pair("matchType", m.as_str());
            }
            if let Some(from) = &self.from {
                q.append_pair("from", from);
            }
            if let Some(to) = &self.to {
                q.append_pair("to", to);
            }
            q.append_pair("output", "json");
            q.append_pair("fl", FIELDS);
            for f in &self.filters {
                q.append_pair("filter", f);
            }
            for c in &self.collapse {
                q.append_pair("collapse", c);
            }
            q.append_pair("limit", &self.page_size.to_string());
            q.append_pair("showResumeKey", "true");
            if let Some(key) = resume_key {
                q.append_pair("resumeKey", key);
            }
        }
        url.into()
    }

    /// The request that asks how many index blocks the query's URL range spans
    /// (`showNumPages=true&pageSize=1`; a block holds up to [`INDEX_LINES_PER_BLOCK`]
    /// lines). The server counts by URL key only: the window, filters and collapse
    /// do not narrow it.
    pub fn count_url(&self, endpoint: &str) -> String {
        let base = format!("{}/cdx/search/cdx", endpoint.trim_end_matches('/'));
        let Ok(mut url) = url::Url::parse(&base) else {
            return base;
        };
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("url", &self.url);
            if let Some(m) = self.match_type {
                q.append_pair("matchType", m.as_str());
            }
            q.append_pair("showNumPages", "true");
            q.append_pair("pageSize", "1");
        }
        url.into()
    }

    /// A stable identity of the query (its state key): every parameter but paging.
    pub fn id(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| self.url.clone())
    }
}

/// One row of a CDX answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdxRow {
    /// SURT key.
    pub urlkey: String,
    /// The capture time.
    pub timestamp: Timestamp,
    /// Original URL.
    pub original: String,
    /// MIME type (`warc/revisit` for revisits).
    pub mime: String,
    /// Status; `None` for `-` (revisits).
    pub status: Option<u16>,
    /// Payload digest.
    pub digest: String,
    /// Record length.
    pub length: Option<u64>,
}

impl CdxRow {
    /// The row as a [`Capture`] listed by stage `source`.
    pub fn to_capture(&self, source: &str) -> Capture {
        Capture {
            url: self.original.clone(),
            timestamp: self.timestamp,
            status: self.status,
            mime: self.mime.clone(),
            digest: self.digest.clone(),
            length: self.length,
            source: source.to_string(),
        }
    }
}

/// One page of a CDX answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CdxPage {
    /// Rows in index order.
    pub rows: Vec<CdxRow>,
    /// Where the next page starts; `None` on the last page.
    pub resume_key: Option<String>,
    /// Rows left out: their timestamp is not a time (4 to 14 digits, padded).
    pub unreadable: u64,
}

/// Reads a CDX answer (JSON with a header row, or the plain text format).
///
/// # Errors
/// [`WaybackError::BadCdx`] naming the row that is not CDX.
pub fn parse_page(body: &[u8], url: &str) -> Result<CdxPage, WaybackError> {
    let bad = |message: String| WaybackError::BadCdx {
        url: url.to_string(),
        message,
    };
    let text = std::str::from_utf8(body).map_err(|e| bad(format!("not UTF-8: {e}")))?;
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Ok(CdxPage::default());
    }
    if !trimmed.starts_with('[') {
        return parse_text(text, url);
    }
    let table: Vec<Vec<String>> = serde_json::from_str(text).map_err(|e| bad(format!("{e}")))?;
    let mut rows = table.into_iter();
    let Some(header) = rows.next() else {
        return Ok(CdxPage::default());
    };
    let column = |name: &str| header.iter().position(|h| h == name);
    let (Some(ts), Some(original)) = (column("timestamp"), column("original")) else {
        return Err(bad(format!(
            "header row {header:?} lacks `timestamp` or `original`"
        )));
    };
    let columns = [
        column("urlkey"),
        column("mimetype"),
        column("statuscode"),
        column("digest"),
        column("length"),
    ];
    let mut page = CdxPage::default();
    let mut after_rows = false;
    for (i, row) in rows.enumerate() {
        if row.is_empty() {
            after_rows = true;
            continue;
        }
        if after_rows {
            page.resume_key = row.into_iter().next();
            break;
        }
        if row.len() != header.len() {
            return Err(bad(format!(
                "row {} has {} fields, the header {}",
                i + 1,
                row.len(),
                header.len()
            )));
        }
        let get = |c: Option<usize>| c.and_then(|c| row.get(c)).cloned().unwrap_or_default();
        let Some(timestamp) = tempora_wayback_format::timestamp::padded(&row[ts]) else {
            page.unreadable += 1;
            continue;
        };
        page.rows.push(make_row(
            get(columns[0]),
            timestamp,
            row[original].clone(),
            get(columns[1]),
            &get(columns[2]),
            get(columns[3]),
            &get(columns[4]),
        ));
    }
    Ok(page)
}

fn make_row(
    urlkey: String,
    timestamp: Timestamp,
    original: String,
    mime: String,
    status: &str,
    digest: String,
    length: &str,
) -> CdxRow {
    CdxRow {
        urlkey,
        timestamp,
        original,
        mime,
        status: status.parse().ok(),
        digest,
        length: length.parse().ok(),
    }
}

/// The space-separated format: `urlkey timestamp original mimetype statuscode digest length`,
/// then an empty line and the resume key.
fn parse_text(text: &str, url: &str) -> Result<CdxPage, WaybackError> {
    let mut page = CdxPage::default();
    let mut lines = text.lines().enumerate();
    for (i, line) in lines.by_ref() {
        if line.trim().is_empty() {
            break;
        }
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 7 {
            return Err(WaybackError::BadCdx {
                url: url.to_string(),
                message: format!(
                    "line {} has {} fields, expected 7: {line:?}",
                    i + 1,
                    f.len()
                ),
            });
        }
        let Some(timestamp) = tempora_wayback_format::timestamp::padded(f[1]) else {
            page.unreadable += 1;
            continue;
        };
        page.rows.push(make_row(
            f[0].into(),
            timestamp,
            f[2].into(),
            f[3].into(),
            f[4],
            f[5].into(),
            f[6],
        ));
    }
    page.resume_key = lines
        .map(|(_, l)| l.trim())
        .find(|l| !l.is_empty())
        .map(str::to_string);
    Ok(page)
}

/// What one page request gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageAnswer {
    /// Rows and maybe a resume key.
    Page(CdxPage),
    /// The site is excluded from the Wayback Machine (the Archive's message).
    Blocked(String),
}

/// A polite CDX client of one endpoint.
#[derive(Clone)]
pub struct CdxClient {
    client: Client,
    endpoint: String,
    max_attempts: u32,
    backoff: Duration,
}

/// Index lines in one block of the Archive's ZipNum CDX index (its documentation:
/// "usually 3,000 lines each"); a page count with `pageSize=1` counts blocks.
pub const INDEX_LINES_PER_BLOCK: u64 = 3000;

/// CDX answers are text; a page of 10,000 rows is about 1.5 MB.
const MAX_CDX_BODY: u64 = 512 * 1024 * 1024;

impl CdxClient {
    /// The same client, counting its requests in a stage's counters (see
    /// [`Client::counting`]).
    #[must_use]
    pub fn counting(
        mut self,
        stats: std::sync::Arc<tempora_engine::StageStats>,
        kind: tempora_engine::RequestKind,
    ) -> Self {
        self.client = self.client.counting(stats, kind);
        self
    }

    /// A client of `endpoint` using `client` (which carries the CDX rate limiter).
    pub fn new(client: Client, endpoint: &str, max_attempts: u32, backoff: Duration) -> Self {
        Self {
            client,
            endpoint: endpoint.trim_end_matches('/').to_string(),
            max_attempts,
            backoff,
        }
    }

    /// The endpoint.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Fetches one page of `query`.
    ///
    /// # Errors
    /// A rejected query, an answer that is not CDX, or the HTTP client's errors.
    pub async fn page(
        &self,
        query: &CdxQuery,
        resume_key: Option<&str>,
    ) -> Result<PageAnswer, WaybackError> {
        let url = query.request_url(&self.endpoint, resume_key);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let answer = match self.client.get(&url, MAX_CDX_BODY).await {
                Ok(a) => a,
                Err(GetError::TooLarge) => {
                    return Err(WaybackError::BadCdx {
                        url,
                        message: format!(
                            "answer larger than {MAX_CDX_BODY} bytes; lower the page size"
                        ),
                    })
                }
                Err(GetError::Failed(e)) => return Err(e.into()),
            };
            if let Some(message) = answer.header("x-archive-wayback-runtime-error") {
                if answer.status == 403
                    || message.contains("Blocked")
                    || message.contains("AccessControl")
                {
                    return Ok(PageAnswer::Blocked(message.to_string()));
                }
            }
            let first_line = || {
                String::from_utf8_lossy(&answer.body)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(200)
                    .collect::<String>()
            };
            match answer.status {
                200 if looks_like_html(&answer.body) => {
                    if attempt >= self.max_attempts {
                        return Err(WaybackError::Exhausted {
                            url,
                            reason: "the CDX server answered with an HTML page instead of data"
                                .into(),
                            attempts: attempt,
                        });
                    }
                    let delay = self.backoff.saturating_mul(1 << (attempt - 1).min(10));
                    tracing::info!(url = %url, attempt, "CDX answered an HTML page with 200; retrying");
                    tokio::time::sleep(delay).await;
                }
                200 => return parse_page(&answer.body, &url).map(PageAnswer::Page),
                status => {
                    return Err(WaybackError::BadQuery {
                        url,
                        status,
                        message: first_line(),
                    })
                }
            }
        }
    }
}

impl CdxClient {
    /// How many index blocks `query`'s URL range spans (one request; see
    /// [`CdxQuery::count_url`]).
    ///
    /// # Errors
    /// The HTTP client's errors, or an answer that is not a number.
    pub async fn count_blocks(&self, query: &CdxQuery) -> Result<u64, WaybackError> {
        let url = query.count_url(&self.endpoint);
        let answer = match self.client.get(&url, 1024).await {
            Ok(a) => a,
            Err(GetError::TooLarge) => {
                return Err(WaybackError::BadCdx {
                    url,
                    message: "a page count longer than 1 KB".into(),
                })
            }
            Err(GetError::Failed(e)) => return Err(e.into()),
        };
        let text = String::from_utf8_lossy(&answer.body);
        if answer.status != 200 {
            return Err(WaybackError::BadQuery {
                url,
                status: answer.status,
                message: text
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(200)
                    .collect(),
            });
        }
        text.trim().parse().map_err(|_| WaybackError::BadCdx {
            url,
            message: format!(
                "expected a page count, got {:?}",
                text.chars().take(80).collect::<String>()
            ),
        })
    }
}

/// An HTML document where data was expected.
pub fn looks_like_html(body: &[u8]) -> bool {
    let start: Vec<u8> = body
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(15)
        .map(u8::to_ascii_lowercase)
        .collect();
    start.starts_with(b"<!doctype") || start.starts_with(b"<html") || start.starts_with(b"<head")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_json_with_header_row_and_resume_key() {
        let body =
            br#"[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],
["com,cnn)/","20010414005939","http://www.cnn.com:80/","text/html","200","JQZ3","13030"],
["com,dw)/","20191001012455","http://www.dw.com/","warc/revisit","-","3I42","432"],
[],
["com%2Ccnn%29%2F+2001041400593%3A"]]"#;
        let page = parse_page(body, "q").unwrap();
        assert_eq!(page.rows.len(), 2);
        assert_eq!(page.rows[0].status, Some(200));
        assert_eq!(page.rows[1].status, None);
        assert_eq!(page.rows[1].mime, "warc/revisit");
        assert_eq!(
            page.resume_key.as_deref(),
            Some("com%2Ccnn%29%2F+2001041400593%3A")
        );
    }

    #[test]
    fn reads_columns_by_name_and_empty_answers() {
        let body = br#"[["original","timestamp"],["http://x.com/","20200101000000"]]"#;
        let page = parse_page(body, "q").unwrap();
        assert_eq!(page.rows[0].original, "http://x.com/");
        assert_eq!(page.rows[0].digest, "");
        assert_eq!(parse_page(b"[]", "q").unwrap(), CdxPage::default());
        assert_eq!(parse_page(b"\n", "q").unwrap(), CdxPage::default());
    }

    #[test]
    fn a_short_timestamp_is_padded_and_one_that_is_not_a_time_is_left_out_and_counted() {
        let body = br#"[["original","timestamp"],["http://x.com/a","201501"],["http://x.com/b","2015-01-01"],["http://x.com/c","20151301000000"]]"#;
        let page = parse_page(body, "q").unwrap();
        assert_eq!(page.rows.len(), 1, "{page:?}");
        assert_eq!(page.rows[0].timestamp, "20150101000000");
        assert_eq!(page.unreadable, 2);
        let text = b"com,x)/a 2015 http://x.com/a text/html 200 D 1\ncom,x)/b x http://x.com/b text/html 200 D 1\n";
        let page = parse_page(text, "q").unwrap();
        assert_eq!(page.rows[0].timestamp, "20150101000000");
        assert_eq!(page.unreadable, 1);
    }

    #[test]
    fn reads_the_text_format_with_its_resume_key() {
        let body = b"com,cnn)/ 20010414005939 http://www.cnn.com:80/ text/html 200 JQZ3 13030\n\ncom%2Ccnn%29%2F+2001041400593%3A\n";
        let page = parse_page(body, "q").unwrap();
        assert_eq!(page.rows.len(), 1);
        assert_eq!(
            page.resume_key.as_deref(),
            Some("com%2Ccnn%29%2F+2001041400593%3A")
        );
    }

    #[test]
    fn malformed_answers_name_the_row() {
        let err = parse_page(br#"[["timestamp","original"],["1"]]"#, "q").unwrap_err();
        assert!(err.to_string().contains("row 1 has 1 fields"), "{err}");
        let err = parse_page(br#"[["a","b"]]"#, "q").unwrap_err();
        assert!(err.to_string().contains("lacks `timestamp`"), "{err}");
        let err = parse_page(b"[[\"timestamp\"", "q").unwrap_err();
        assert!(err.to_string().contains("not CDX JSON"), "{err}");
        let err = parse_page(b"only three fields\n", "q").unwrap_err();
        assert!(err.to_string().contains("line 1 has 3 fields"), "{err}");
        assert!(looks_like_html(b"  <!DOCTYPE html><html>"));
        assert!(!looks_like_html(b"[[\"urlkey\"]]"));
    }

    #[test]
    fn request_url_sends_every_parameter_and_reencodes_the_key() {
        let q = CdxQuery {
            url: "bbc.co.uk/news/*".into(),
            match_type: None,
            from: Some("2015".into()),
            to: None,
            filters: vec!["statuscode:200".into(), "mimetype:text/html".into()],
            collapse: vec!["urlkey".into()],
            page_size: 5000,
        };
        let url = q.request_url("https://web.archive.org/", Some("com%2Ccnn%29%2F+2001"));
        assert!(url.starts_with("https://web.archive.org/cdx/search/cdx?url=bbc.co.uk%2Fnews%2F*&from=2015&output=json"), "{url}");
        assert!(
            url.contains(
                "filter=statuscode%3A200&filter=mimetype%3Atext%2Fhtml&collapse=urlkey&limit=5000"
            ),
            "{url}"
        );
        assert!(
            url.ends_with("resumeKey=com%252Ccnn%2529%252F%2B2001"),
            "{url}"
        );
    }
}
