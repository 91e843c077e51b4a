//! The mock's archive: captures we write ourselves, served by the CDX API and
//! by `id_` replay.

use chrono::NaiveDateTime;

use tempora_wayback_format::digest::sha1_base32;
use tempora_wayback_format::urlkey::urlkey_of;

/// One archived capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockCapture {
    /// Original URL as archived, e.g. `http://www.bbc.co.uk/news/uk-1`.
    pub url: String,
    /// Capture time, 14 digits.
    pub timestamp: String,
    /// Archived HTTP status; `None` for a revisit record (`-` in the CDX).
    pub status: Option<u16>,
    /// MIME type in the CDX (`text/html`, `warc/revisit`, `unk`).
    pub mime: String,
    /// `Content-Type` served on replay, charset included.
    pub content_type: String,
    /// Archived payload (a revisit serves the payload of the capture with its digest).
    pub body: Vec<u8>,
    /// For an archived redirect: the original URL it points to.
    pub location: Option<String>,
    /// SHA-1 of the payload, base32, as the CDX lists it.
    pub digest: String,
    /// Serve the payload gzip-compressed (`Content-Encoding: gzip`) when the client accepts it.
    pub gzip: bool,
}

impl MockCapture {
    /// An archived `200 text/html` page (UTF-8).
    pub fn html(url: &str, timestamp: &str, body: impl Into<Vec<u8>>) -> Self {
        let body = body.into();
        Self {
            url: url.to_string(),
            timestamp: timestamp.to_string(),
            status: Some(200),
            mime: "text/html".into(),
            content_type: "text/html; charset=utf-8".into(),
            digest: sha1_base32(&body),
            body,
            location: None,
            gzip: true,
        }
    }

    /// An archived redirect of the site itself (`301`/`302` with a `Location`).
    pub fn redirect(url: &str, timestamp: &str, status: u16, target: &str) -> Self {
        let body = format!("<html><body>Moved to <a href=\"{target}\">here</a></body></html>");
        let mut capture = Self::html(url, timestamp, body);
        capture.status = Some(status);
        capture.location = Some(target.to_string());
        capture
    }

    /// A revisit record: same payload as an earlier capture with `digest`.
    pub fn revisit(url: &str, timestamp: &str, digest: &str) -> Self {
        let mut capture = Self::html(url, timestamp, Vec::new());
        capture.status = None;
        capture.mime = "warc/revisit".into();
        capture.digest = digest.to_string();
        capture
    }

    /// The same capture with another served `Content-Type`.
    pub fn with_content_type(mut self, content_type: &str) -> Self {
        self.content_type = content_type.to_string();
        self
    }

    /// The same capture with an archived status other than 200 (e.g. a 429 the site gave).
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// The same capture, never gzip-compressed in transit.
    pub fn plain(mut self) -> Self {
        self.gzip = false;
        self
    }

    /// Its CDX urlkey.
    pub fn urlkey(&self) -> String {
        urlkey_of(&self.url)
    }

    /// Its time.
    pub fn time(&self) -> Option<NaiveDateTime> {
        NaiveDateTime::parse_from_str(&self.timestamp, "%Y%m%d%H%M%S").ok()
    }

    /// `Memento-Datetime` as the Wayback sends it (RFC 1123).
    pub fn memento_datetime(&self) -> String {
        self.time()
            .map(|t| t.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
            .unwrap_or_default()
    }
}

/// A row's place in CDX order: urlkey, timestamp, then the rest of its line
/// (URL, MIME type, status, digest, length), as the real index sorts whole lines:
/// captures added in any order are listed in one order.
fn cdx_order(
    (key, capture): &(String, MockCapture),
) -> (&str, &str, &str, &str, Option<u16>, &str, usize) {
    (
        key,
        &capture.timestamp,
        &capture.url,
        &capture.mime,
        capture.status,
        &capture.digest,
        capture.body.len(),
    )
}

/// How many captures [`Corpus::reinserted`] adds one by one (each an insert).
const ADDED_ONE_BY_ONE: usize = 200;

/// The archive: captures in CDX order (urlkey, timestamp).
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    captures: Vec<(String, MockCapture)>,
}

impl Corpus {
    /// An archive of these captures.
    pub fn new(captures: impl IntoIterator<Item = MockCapture>) -> Self {
        let mut captures: Vec<(String, MockCapture)> =
            captures.into_iter().map(|c| (c.urlkey(), c)).collect();
        // Stable: captures whose lines are equal stay in the order given, as `add`
        // would leave them, in one sort rather than an insert each (a dense model
        // holds hundreds of thousands of captures).
        captures.sort_by(|a, b| cdx_order(a).cmp(&cdx_order(b)));
        Self { captures }
    }

    /// Adds a capture, keeping CDX order.
    pub fn add(&mut self, capture: MockCapture) {
        let row = (capture.urlkey(), capture);
        let at = self
            .captures
            .partition_point(|other| cdx_order(other) <= cdx_order(&row));
        self.captures.insert(at, row);
    }

    /// The same archive, its captures given in the order `seed` draws: held in
    /// another order, listed in the same one.
    pub fn reinserted(&self, seed: u64) -> Self {
        let mut captures: Vec<MockCapture> = self.captures.iter().map(|(_, c)| c.clone()).collect();
        crate::order::shuffle(&mut captures, seed);
        // Most in one sort, the last ones added one by one, as a server that
        // archives more while it answers does.
        let added = captures.split_off(captures.len().saturating_sub(ADDED_ONE_BY_ONE));
        let mut corpus = Self::new(captures);
        for capture in added {
            corpus.add(capture);
        }
        corpus
    }

    /// Every capture with its urlkey, in CDX order.
    pub fn rows(&self) -> &[(String, MockCapture)] {
        &self.captures
    }

    /// The captures of one urlkey.
    pub fn of_key(&self, key: &str) -> &[(String, MockCapture)] {
        let start = self.captures.partition_point(|(k, _)| k.as_str() < key);
        let end = self.captures.partition_point(|(k, _)| k.as_str() <= key);
        &self.captures[start..end]
    }

    /// Number of captures.
    pub fn len(&self) -> usize {
        self.captures.len()
    }

    /// Whether the archive is empty.
    pub fn is_empty(&self) -> bool {
        self.captures.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_cdx_order_and_finds_by_key() {
        let corpus = Corpus::new([
            MockCapture::html("http://www.bbc.co.uk/news/b", "20200101000000", "b"),
            MockCapture::html("http://www.bbc.co.uk/news/a", "20200102000000", "a2"),
            MockCapture::html("http://www.bbc.co.uk/news/a", "20200101000000", "a1"),
        ]);
        let order: Vec<&str> = corpus
            .rows()
            .iter()
            .map(|(_, c)| c.timestamp.as_str())
            .collect();
        assert_eq!(
            order,
            ["20200101000000", "20200102000000", "20200101000000"]
        );
        assert_eq!(corpus.of_key("uk,co,bbc)/news/a").len(), 2);
        assert_eq!(corpus.of_key("uk,co,bbc)/news/c").len(), 0);
    }

    #[test]
    fn digest_is_base32_sha1_and_memento_is_rfc1123() {
        let c = MockCapture::html("http://x.com/", "20171124151315", "hello");
        assert_eq!(c.digest.len(), 32);
        assert_eq!(c.memento_datetime(), "Fri, 24 Nov 2017 15:13:15 GMT");
    }
}
