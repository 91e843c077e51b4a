//! Fetching one capture: `/web/<timestamp>id_/<url>` (the raw archived bytes),
//! redirects followed by hand and only from capture to capture within a
//! distance of the requested time, loops detected, the served capture's
//! `Memento-Datetime`, final URL and archived `Content-Type` kept.

use std::collections::HashSet;

use tempora_records::{Capture, Page, Timestamp};
use tempora_wayback_format::timestamp;
use tempora_wayback_format::wayback_url::ReplayPath;

use crate::error::WaybackError;
use tempora_http::{Answer, Client, GetError};

/// How far a fetch may go: redirects and body size.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// Furthest a redirect may lead from the requested capture time (seconds).
    pub max_redirect_distance: u64,
    /// Most redirects followed for one capture.
    pub max_redirects: usize,
    /// Largest body accepted (bytes, after decompression).
    pub max_body: u64,
}

impl Default for FetchConfig {
    /// The `wayback-fetch` stage's defaults: redirects up to 7 days from the
    /// capture asked for, 10 at most, bodies up to 16 MiB.
    fn default() -> Self {
        Self {
            max_redirect_distance: 7 * 86_400,
            max_redirects: 10,
            max_body: 16 * 1024 * 1024,
        }
    }
}

/// What fetching a capture gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Fetched {
    /// The page.
    Page(Box<Page>),
    /// No page, and why.
    Failed {
        /// In words a user can act on.
        reason: String,
        /// Trying again cannot help (not archived, blocked, too large, loop).
        permanent: bool,
    },
}

fn failed(reason: impl Into<String>, permanent: bool) -> Fetched {
    Fetched::Failed {
        reason: reason.into(),
        permanent,
    }
}

/// Fetches captures through a polite [`Client`].
#[derive(Clone)]
pub struct Fetcher {
    client: Client,
    endpoint: String,
    cfg: FetchConfig,
}

impl Fetcher {
    /// The same fetcher, counting its requests in a stage's counters (see
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

    /// A fetcher of `endpoint` (`https://web.archive.org` or a mock) using
    /// `client` (which carries the page rate limiter).
    pub fn new(client: Client, endpoint: &str, cfg: FetchConfig) -> Self {
        Self {
            client,
            endpoint: endpoint.trim_end_matches('/').to_string(),
            cfg,
        }
    }

    /// Fetches `capture`.
    ///
    /// # Errors
    /// Only what stops the run: the Archive blocks us or keeps rate-limiting.
    /// Everything else is a [`Fetched::Failed`] with its reason.
    pub async fn fetch(&self, capture: &Capture) -> Result<Fetched, WaybackError> {
        let mut timestamp = capture.timestamp;
        let mut url = capture.url.clone();
        let mut seen = HashSet::new();
        loop {
            if let Some(failure) = self.redirect_chain_failure(&mut seen, &timestamp, &url) {
                return Ok(failure);
            }
            let request = format!("{}/web/{timestamp}id_/{url}", self.endpoint);
            let answer = match self.client.get(&request, self.cfg.max_body).await {
                Ok(a) => a,
                Err(e) => return self.get_failure(e),
            };
            match self.attempt(answer, capture, url) {
                Attempt::Done(fetched) => return Ok(fetched),
                Attempt::Redirect {
                    timestamp: next_ts,
                    url: next_url,
                } => {
                    timestamp = next_ts;
                    url = next_url;
                }
            }
        }
    }

    /// Records the capture about to be asked for in `seen`; the failure when it
    /// was asked for before (a loop) or the chain has more than `max_redirects`.
    fn redirect_chain_failure(
        &self,
        seen: &mut HashSet<(String, String)>,
        timestamp: &str,
        url: &str,
    ) -> Option<Fetched> {
        if !seen.insert((timestamp.to_string(), url.to_string())) {
            return Some(failed(
                format!("redirect loop back to {timestamp} {url}"),
                true,
            ));
        }
        if seen.len() > self.cfg.max_redirects + 1 {
            return Some(failed(
                format!("more than {} redirects", self.cfg.max_redirects),
                true,
            ));
        }
        None
    }

    /// What a request that got no answer means: a failure of this capture, or an
    /// error that stops the run (the Archive blocks us or keeps rate-limiting).
    fn get_failure(&self, error: GetError) -> Result<Fetched, WaybackError> {
        match error {
            GetError::TooLarge => Ok(failed(
                format!(
                    "body larger than max_body_bytes ({} bytes)",
                    self.cfg.max_body
                ),
                true,
            )),
            GetError::Failed(
                e @ (tempora_http::HttpError::Blocked { .. }
                | tempora_http::HttpError::RateLimited { .. }),
            ) => Err(e.into()),
            GetError::Failed(e) => Ok(failed(e.to_string(), false)),
        }
    }

    /// Decides what the answer to the request of `url` (a capture of `capture`
    /// or one it redirected to) means: the page, a failure, or a redirect to follow.
    fn attempt(&self, answer: Answer, capture: &Capture, url: String) -> Attempt {
        match answer.status {
            200 if answer.is_archived() => Attempt::Done(Fetched::Page(Box::new(Page {
                capture: capture.clone(),
                content_type: answer.header("content-type").map(str::to_string),
                memento_datetime: answer.header("memento-datetime").map(str::to_string),
                final_url: url,
                body: answer.body,
            }))),
            200 => Attempt::Done(not_the_capture(&answer)),
            301 | 302 | 303 | 307 | 308 => self.redirect(&answer, capture),
            404 if !answer.is_archived() => Attempt::Done(failed("not archived (HTTP 404)", true)),
            403 if !answer.is_archived() => {
                let detail = answer
                    .header("x-archive-wayback-runtime-error")
                    .unwrap_or("HTTP 403");
                Attempt::Done(failed(format!("blocked site: {detail}"), true))
            }
            status if answer.is_archived() => Attempt::Done(failed(
                format!("the archived answer itself is HTTP {status}"),
                true,
            )),
            status => Attempt::Done(failed(
                format!("HTTP {status}"),
                (400..500).contains(&status),
            )),
        }
    }

    /// Where a redirect answer leads: the capture it names, when that is within
    /// `max_redirect_distance` of the capture asked for; a failure otherwise.
    fn redirect(&self, answer: &Answer, capture: &Capture) -> Attempt {
        let Some(location) = answer.header("location") else {
            return Attempt::Done(failed(
                format!("HTTP {} without a Location", answer.status),
                true,
            ));
        };
        let Some((next_ts, next_url)) = parse_wayback_location(location) else {
            return Attempt::Done(failed(
                format!("redirect to {location}, which is not a capture"),
                true,
            ));
        };
        let distance = timestamp::distance(&next_ts, &capture.timestamp).unwrap_or(u64::MAX);
        if distance > self.cfg.max_redirect_distance {
            return Attempt::Done(failed(
                format!(
                    "redirect to the capture at {next_ts}, {} from the requested {}; over max_redirect_distance",
                    humantime::format_duration(std::time::Duration::from_secs(distance)),
                    capture.timestamp
                ),
                true,
            ));
        }
        Attempt::Redirect {
            timestamp: next_ts,
            url: next_url,
        }
    }
}

/// What one request of a capture led to.
enum Attempt {
    /// The fetch is over: the page, or why there is none.
    Done(Fetched),
    /// A redirect to another capture within reach: ask for it next.
    Redirect {
        /// The capture's time.
        timestamp: Timestamp,
        /// The capture's URL.
        url: String,
    },
}

/// The failure of a 200 answer that is not archived: the Archive's own page
/// instead of the capture, its "excluded" page for a blocked site (permanent).
fn not_the_capture(answer: &Answer) -> Fetched {
    let excluded =
        String::from_utf8_lossy(&answer.body).contains("excluded from the Wayback Machine");
    let reason = if excluded {
        "blocked site: the Archive serves its \"excluded from the Wayback Machine\" page"
            .to_string()
    } else {
        "the Archive served its own HTML page (no Memento-Datetime) instead of the capture"
            .to_string()
    };
    failed(reason, excluded)
}

/// `https://web.archive.org/web/20200201023757id_/https://www.epa.gov/x` -> timestamp and URL.
pub fn parse_wayback_location(location: &str) -> Option<(Timestamp, String)> {
    let at = location.find("/web/")?;
    let replay = ReplayPath::parse(&location[at..])?;
    // 4 to 14 digits, padded to 14.
    let timestamp = timestamp::padded(replay.timestamp)?;
    Some((timestamp, replay.original.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_capture_locations_absolute_and_relative() {
        assert_eq!(
            parse_wayback_location(
                "https://web.archive.org/web/20200201023757id_/https://www.epa.gov/climatechange"
            ),
            Some((
                "20200201023757".parse().unwrap(),
                "https://www.epa.gov/climatechange".into()
            ))
        );
        assert_eq!(
            parse_wayback_location("/web/2015id_/http://x.org/a?b=1"),
            Some((
                "20150101000000".parse().unwrap(),
                "http://x.org/a?b=1".into()
            ))
        );
        assert_eq!(
            parse_wayback_location("https://www.epa.gov/climatechange"),
            None
        );
        assert_eq!(parse_wayback_location("/web/id_/http://x.org/"), None);
    }
}
