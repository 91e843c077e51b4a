//! One HTTP GET to the Archive, politely: the host's gate and the class's rate
//! limiter before every attempt; a 429 (that is the Archive's own, not an
//! archived one) closes the gate for `Retry-After` and the request is sent again
//! only after the pause; 5xx answers, timeouts and cut bodies are retried with
//! exponential backoff and jitter up to a limit; a refused or reset connection
//! is a block. Bodies are capped, and `Content-Encoding` is decoded by us so a
//! wrong one (plain bytes labelled gzip) is tolerated.

use std::io::Read as _;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, ACCEPT, ACCEPT_ENCODING, CONTENT_ENCODING, RETRY_AFTER};

use tempora_engine::{cost, RequestKind, StageStats};

use crate::error::HttpError;
use crate::politeness::{self, Closed, HostPoliteness, Politeness, RateLimiter, RequestClass};

/// The `User-Agent`: ours plus the operator's contact, as the Archive asks of crawlers.
pub fn user_agent(contact: Option<&str>, custom: Option<&str>) -> String {
    match (custom, contact) {
        (Some(ua), _) => ua.to_string(),
        (None, Some(c)) => format!("tempora/{} (+{c})", env!("CARGO_PKG_VERSION")),
        (None, None) => format!(
            "tempora/{} (+https://github.com/tempora)",
            env!("CARGO_PKG_VERSION")
        ),
    }
}

/// An HTTP answer with its body read (and decoded from its transfer compression).
#[derive(Debug, Clone)]
pub struct Answer {
    /// The URL requested.
    pub url: String,
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: HeaderMap,
    /// The body, without `Content-Encoding`.
    pub body: Vec<u8>,
    /// The body was labelled compressed but was not; it is kept as sent.
    pub wrong_encoding: bool,
}

impl Answer {
    /// A header's value, when it is text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The answer is an archived one (it has `Memento-Datetime`): its status is the
    /// site's, not the Archive's.
    pub fn is_archived(&self) -> bool {
        self.headers.contains_key("memento-datetime")
    }
}

/// What an attempt came to, for the retry loop of `Client::request`.
enum Verdict {
    /// The answer, or an error that ends the request.
    Done(Result<Answer, GetError>),
    /// Every worker pauses; the request goes again after, not counted as an attempt.
    Paused,
    /// A failure to retry after backoff, with its reason.
    Failed(String),
}

/// Why one attempt failed.
enum Attempt {
    /// Worth another try after a backoff.
    Transient(String),
    /// Refused or reset: the host may be blocking us.
    Block(String),
    /// The body is over the cap.
    TooLarge,
}

/// A polite client of one host for one class of requests.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    host: Arc<HostPoliteness>,
    limiter: Arc<RateLimiter>,
    politeness: Politeness,
    counter: Option<(Arc<StageStats>, String)>,
    accept: Option<&'static str>,
    answered: &'static [u16],
}

/// The outcome of [`Client::get`] when no answer came.
#[derive(Debug)]
pub enum GetError {
    /// The body is larger than the cap.
    TooLarge,
    /// Every attempt failed, or the host blocks us.
    Failed(HttpError),
}

impl From<HttpError> for GetError {
    fn from(e: HttpError) -> Self {
        Self::Failed(e)
    }
}

impl Client {
    /// A client of `endpoint`'s host.
    ///
    /// # Errors
    /// An endpoint that is not an `http(s)` URL, or a TLS setup failure.
    pub fn new(
        endpoint: &str,
        user_agent: &str,
        class: RequestClass,
        politeness: Politeness,
    ) -> Result<Self, HttpError> {
        let parsed = url::Url::parse(endpoint)
            .map_err(|e| HttpError::Config(format!("endpoint `{endpoint}` is not a URL: {e}")))?;
        let host = match (parsed.host_str(), parsed.port_or_known_default()) {
            (Some(h), Some(p)) if matches!(parsed.scheme(), "http" | "https") => format!("{h}:{p}"),
            _ => {
                return Err(HttpError::Config(format!(
                    "endpoint `{endpoint}` must be an http:// or https:// URL"
                )))
            }
        };
        let http = reqwest::Client::builder()
            .user_agent(user_agent)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(politeness.timeout)
            .connect_timeout(Duration::from_secs(30))
            .tcp_nodelay(true)
            .build()
            .map_err(|e| HttpError::Config(format!("cannot build the HTTP client: {e}")))?;
        let host = politeness::for_host(&host);
        let limiter = host.limiter(class, politeness.rate_per_minute);
        Ok(Self {
            http,
            host,
            limiter,
            politeness,
            counter: None,
            accept: None,
            answered: &[],
        })
    }

    /// The same client, counting every request it sends in `stats` as a request
    /// of `kind`, and every retry
    /// under [`cost::REQUESTS_RETRIED`]: `run.json`'s cost of the crawl.
    pub fn counting(mut self, stats: Arc<StageStats>, kind: RequestKind) -> Self {
        self.counter = Some((stats, kind.counter()));
        self
    }

    /// The host's shared politeness (its gate).
    pub fn host(&self) -> &Arc<HostPoliteness> {
        &self.host
    }

    /// The same client, asking for `media_type` (`Accept`) in every request.
    pub fn accepting(mut self, media_type: &'static str) -> Self {
        self.accept = Some(media_type);
        self
    }

    /// The same client, handing answers of these server-error statuses to the
    /// caller instead of retrying them: a status whose body says what happened
    /// (the query service's 500 for a query over its time limit, which the same
    /// query again would only repeat).
    pub fn answering(mut self, statuses: &'static [u16]) -> Self {
        self.answered = statuses;
        self
    }

    /// GETs `url` politely, retrying what is worth retrying.
    ///
    /// # Errors
    /// [`GetError::TooLarge`] when the body passes `max_body`; otherwise a
    /// [`HttpError`]: `Blocked`, `RateLimited` (both stop a run) or `Exhausted`.
    pub async fn get(&self, url: &str, max_body: u64) -> Result<Answer, GetError> {
        self.request(url, None, max_body).await
    }

    /// POSTs `form` (`application/x-www-form-urlencoded`) to `url` politely, as
    /// [`Client::get`] GETs: for a request too long for a URL (a SPARQL query).
    ///
    /// # Errors
    /// As [`Client::get`].
    pub async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        max_body: u64,
    ) -> Result<Answer, GetError> {
        self.request(url, Some(form), max_body).await
    }

    async fn request(
        &self,
        url: &str,
        form: Option<&[(&str, &str)]>,
        max_body: u64,
    ) -> Result<Answer, GetError> {
        let p = &self.politeness;
        let gate = &self.host.gate;
        let mut attempt = 0;
        let mut sent = 0u32;
        loop {
            self.limiter.acquire(gate).await;
            let sent_at = tokio::time::Instant::now();
            attempt += 1;
            sent += 1;
            if let Some((stats, name)) = &self.counter {
                stats.count(name, 1);
                if sent > 1 {
                    stats.count(cost::REQUESTS_RETRIED, 1);
                }
            }
            let sent = self.send(url, form, max_body).await;
            let failure = match self.judge(url, sent, sent_at) {
                Verdict::Done(result) => return result,
                // A pause is not a failed attempt: the request goes again after it.
                Verdict::Paused => {
                    attempt -= 1;
                    continue;
                }
                Verdict::Failed(reason) => reason,
            };
            if attempt >= p.max_attempts {
                return Err(HttpError::Exhausted {
                    url: url.to_string(),
                    reason: failure,
                    attempts: attempt,
                }
                .into());
            }
            let delay = p.backoff_delay(attempt);
            tracing::info!(url, reason = %failure, attempt, delay_s = delay.as_secs_f64(), "retrying after backoff");
            tokio::time::sleep(delay).await;
        }
    }

    /// What one attempt sent at `sent_at` came to: an answer or a final error,
    /// a pause of every worker (429, a refused connection), or a failure to retry
    /// after backoff. Tells the host's gate what the server did.
    fn judge(
        &self,
        url: &str,
        sent: Result<Answer, Attempt>,
        sent_at: tokio::time::Instant,
    ) -> Verdict {
        let (p, gate) = (&self.politeness, &self.host.gate);
        match sent {
            Ok(answer) if answer.status == 429 && !answer.is_archived() => {
                let pause = retry_after(&answer.headers)
                    .unwrap_or(p.min_pause)
                    .max(p.min_pause);
                let times = gate.close(pause, Closed::RateLimit, sent_at);
                gate.answered(true, sent_at);
                tracing::warn!(host = %self.host.host, url, pause_s = pause.as_secs_f64(), times, "429 Too Many Requests: every worker pauses");
                if times >= p.max_rate_limits {
                    return Verdict::Done(Err(HttpError::RateLimited {
                        host: self.host.host.clone(),
                        pauses: times,
                    }
                    .into()));
                }
                Verdict::Paused
            }
            Ok(answer) => {
                gate.answered(false, sent_at);
                if answer.status >= 500
                    && !answer.is_archived()
                    && !self.answered.contains(&answer.status)
                {
                    Verdict::Failed(format!("HTTP {}", answer.status))
                } else {
                    Verdict::Done(Ok(answer))
                }
            }
            Err(Attempt::TooLarge) => {
                gate.answered(false, sent_at);
                Verdict::Done(Err(GetError::TooLarge))
            }
            Err(Attempt::Block(reason)) => {
                let blocks = gate.close(p.block_pause, Closed::Block, sent_at);
                tracing::warn!(host = %self.host.host, url, %reason, blocks, pause_s = p.block_pause.as_secs_f64(), "connection refused or reset: backing off");
                if blocks >= p.max_blocks {
                    return Verdict::Done(Err(HttpError::Blocked {
                        host: self.host.host.clone(),
                        blocks,
                    }
                    .into()));
                }
                Verdict::Paused
            }
            Err(Attempt::Transient(reason)) => Verdict::Failed(reason),
        }
    }

    async fn send(
        &self,
        url: &str,
        form: Option<&[(&str, &str)]>,
        max_body: u64,
    ) -> Result<Answer, Attempt> {
        let mut request = match form {
            None => self.http.get(url),
            Some(form) => self.http.post(url).form(form),
        };
        request = request.header(ACCEPT_ENCODING, "gzip");
        if let Some(accept) = self.accept {
            request = request.header(ACCEPT, accept);
        }
        let mut response = request.send().await.map_err(classify)?;
        let status = response.status().as_u16();
        if response.content_length().is_some_and(|n| n > max_body) {
            return Err(Attempt::TooLarge);
        }
        let mut raw = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(classify)? {
            if (raw.len() + chunk.len()) as u64 > max_body {
                return Err(Attempt::TooLarge);
            }
            raw.extend_from_slice(&chunk);
        }
        let headers = response.headers().clone();
        let encoding = headers
            .get(CONTENT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_ascii_lowercase());
        let (body, wrong_encoding) = match encoding.as_deref() {
            Some("gzip" | "x-gzip") => decode_gzip(raw, max_body)?,
            Some("deflate") => decode_deflate(raw, max_body)?,
            _ => (raw, false),
        };
        Ok(Answer {
            url: url.to_string(),
            status,
            headers,
            body,
            wrong_encoding,
        })
    }
}

/// Reads a decoder to its end, at most `max` bytes.
fn read_capped(mut decoder: impl std::io::Read, max: u64) -> Result<Vec<u8>, Attempt> {
    let mut out = Vec::new();
    let read = (&mut decoder).take(max + 1).read_to_end(&mut out);
    match read {
        Ok(_) if out.len() as u64 > max => Err(Attempt::TooLarge),
        Ok(_) => Ok(out),
        Err(e) => Err(Attempt::Transient(format!(
            "compressed body is cut or corrupt: {e}"
        ))),
    }
}

fn decode_gzip(raw: Vec<u8>, max: u64) -> Result<(Vec<u8>, bool), Attempt> {
    if !raw.starts_with(&[0x1f, 0x8b]) {
        let wrong = !raw.is_empty();
        return Ok((raw, wrong));
    }
    read_capped(flate2::read::MultiGzDecoder::new(raw.as_slice()), max).map(|b| (b, false))
}

fn decode_deflate(raw: Vec<u8>, max: u64) -> Result<(Vec<u8>, bool), Attempt> {
    // "deflate" is zlib-wrapped by the standard and raw by many servers: try both.
    if let Ok(body) = read_capped(flate2::read::ZlibDecoder::new(raw.as_slice()), max) {
        return Ok((body, false));
    }
    match read_capped(flate2::read::DeflateDecoder::new(raw.as_slice()), max) {
        Ok(body) => Ok((body, false)),
        Err(Attempt::TooLarge) => Err(Attempt::TooLarge),
        Err(_) => Ok((raw, true)),
    }
}

/// `Retry-After` in seconds or as an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let seconds = (at.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_seconds();
    Some(Duration::from_secs(seconds.max(0).unsigned_abs()))
}

/// Refused or reset connections are blocks; everything else is worth a retry.
fn classify(e: reqwest::Error) -> Attempt {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(err) = source {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
            if matches!(
                io.kind(),
                ConnectionRefused | ConnectionReset | ConnectionAborted
            ) {
                return Attempt::Block(chain(&e));
            }
        }
        source = err.source();
    }
    if e.is_timeout() {
        Attempt::Transient(format!("timed out: {}", chain(&e)))
    } else {
        Attempt::Transient(chain(&e))
    }
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_encoding_keeps_the_plain_body() {
        let (body, wrong) = decode_gzip(b"<html>plain</html>".to_vec(), 1000)
            .ok()
            .unwrap();
        assert_eq!(body, b"<html>plain</html>");
        assert!(wrong);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, b"hello").unwrap();
        let (body, wrong) = decode_gzip(gz.finish().unwrap(), 1000).ok().unwrap();
        assert_eq!(body, b"hello");
        assert!(!wrong);
    }

    #[test]
    fn decompression_is_capped() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &vec![b'a'; 10_000]).unwrap();
        assert!(matches!(
            decode_gzip(gz.finish().unwrap(), 100),
            Err(Attempt::TooLarge)
        ));
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, "120".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(120)));
        h.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert(RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn user_agent_carries_the_contact() {
        assert!(user_agent(Some("ops@example.org"), None).ends_with("(+ops@example.org)"));
        assert_eq!(user_agent(Some("x"), Some("custom/1")), "custom/1");
    }
}
