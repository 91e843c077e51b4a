//! How a run reaches the Wayback Machine: its endpoint, our `User-Agent`, how
//! polite to be, and where the crawl state lives.
//!
//! The three wayback stages, `tempora cdx` and `wayback-crawl` each turn their
//! options into one [`Archive`] and take their CDX client, page fetcher and
//! state from it, so every front end sets the crawler up the same way: the
//! same `User-Agent` rule, the same retries and pauses, and a rate checked
//! before any request is sent. The kinds of request a run sends ([`CDX`],
//! [`FEED`], [`PAGE`]) are counted in `run.json`'s cost.

use std::path::{Path, PathBuf};

use tempora_engine::RequestKind;

use crate::cdx::CdxClient;
use crate::error::WaybackError;
use crate::fetch::{FetchConfig, Fetcher};
use crate::state::State;
use tempora_http::politeness::{Politeness, RequestClass};
use tempora_http::{user_agent, Client};

/// CDX queries: the listing (`wayback-cdx`, and `wayback-feeds` finding feeds).
pub const CDX: RequestKind = RequestKind {
    key: "cdx",
    label: "CDX",
    per_kept_article: false,
};

/// Feed and sitemap captures (`wayback-feeds`).
pub const FEED: RequestKind = RequestKind {
    key: "feed",
    label: "feed",
    per_kept_article: false,
};

/// Page captures (`wayback-fetch`): one per page, so `run.json` gives their
/// count per kept article.
pub const PAGE: RequestKind = RequestKind {
    key: "page",
    label: "page",
    per_kept_article: true,
};

/// The public Wayback Machine.
pub const DEFAULT_ENDPOINT: &str = "https://web.archive.org";

/// The Wayback Machine as one run uses it.
#[derive(Debug, Clone)]
pub struct Archive {
    endpoint: String,
    user_agent: String,
    politeness: Politeness,
    state: Option<PathBuf>,
}

impl Archive {
    /// The Archive at `endpoint`, asked with `custom_agent` as the whole
    /// `User-Agent`, else `tempora/<version> (+contact)`; `politeness` gives the
    /// pauses, retries and timeouts (its rate is replaced by each client's own).
    /// The state is in memory until [`Archive::with_state`] names a file.
    pub fn new(
        endpoint: &str,
        contact: Option<&str>,
        custom_agent: Option<&str>,
        politeness: Politeness,
    ) -> Self {
        Self {
            endpoint: endpoint.to_string(),
            user_agent: user_agent(contact, custom_agent),
            politeness,
            state: None,
        }
    }

    /// The same Archive with its crawl state in the SQLite file `path` (none: in memory).
    #[must_use]
    pub fn with_state(mut self, path: Option<&Path>) -> Self {
        self.state = path.map(Path::to_path_buf);
        self
    }

    /// The endpoint, as given.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The `User-Agent` every request sends.
    pub fn user_agent(&self) -> &str {
        &self.user_agent
    }

    /// The politeness at `rate` requests a minute (0: no limit).
    ///
    /// # Errors
    /// A rate that is negative or not a number.
    pub fn politeness(&self, rate: f64) -> Result<Politeness, WaybackError> {
        Ok(self.politeness.clone().at_rate(rate)?)
    }

    /// A CDX client sending `rate` queries a minute, shared with every other
    /// client of the same host.
    ///
    /// # Errors
    /// A bad rate, an endpoint that is not an `http(s)` URL, or a TLS setup failure.
    pub fn cdx(&self, rate: f64) -> Result<CdxClient, WaybackError> {
        let politeness = self.politeness(rate)?;
        let (attempts, backoff) = (politeness.max_attempts, politeness.backoff);
        let client = self.client(RequestClass::Cdx, politeness)?;
        Ok(CdxClient::new(client, &self.endpoint, attempts, backoff))
    }

    /// A page fetcher sending `rate` requests a minute, within `limits`.
    ///
    /// # Errors
    /// A bad rate, an endpoint that is not an `http(s)` URL, or a TLS setup failure.
    pub fn fetcher(&self, rate: f64, limits: FetchConfig) -> Result<Fetcher, WaybackError> {
        let client = self.client(RequestClass::Page, self.politeness(rate)?)?;
        Ok(Fetcher::new(client, &self.endpoint, limits))
    }

    /// The crawl state: the file given to [`Archive::with_state`], opened (and
    /// locked for this run), or a fresh one in memory.
    ///
    /// # Errors
    /// [`WaybackError::Locked`] when another run holds the file; database or I/O errors.
    pub fn state(&self) -> Result<State, WaybackError> {
        match &self.state {
            Some(path) => State::open(path),
            None => State::in_memory(),
        }
    }

    fn client(&self, class: RequestClass, politeness: Politeness) -> Result<Client, WaybackError> {
        Ok(Client::new(
            &self.endpoint,
            &self.user_agent,
            class,
            politeness,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn archive() -> Archive {
        let politeness = Politeness {
            backoff: Duration::from_millis(20),
            ..Politeness::default_for(RequestClass::Cdx)
        };
        Archive::new(
            "http://127.0.0.1:9",
            Some("ops@example.org"),
            None,
            politeness,
        )
    }

    #[test]
    fn each_client_gets_its_own_rate_and_the_shared_pauses() {
        let a = archive();
        let p = a.politeness(7.0).unwrap();
        assert_eq!(p.rate_per_minute, 7.0);
        assert_eq!(p.backoff, Duration::from_millis(20));
        assert!(a.user_agent().ends_with("(+ops@example.org)"));
        let custom = Archive::new(DEFAULT_ENDPOINT, Some("x"), Some("bot/1"), p);
        assert_eq!(custom.user_agent(), "bot/1");
    }

    #[test]
    fn a_bad_rate_or_endpoint_is_refused_before_any_request() {
        let err = archive().cdx(-1.0).err().unwrap().to_string();
        assert!(err.contains("`rate`"), "{err}");
        let err = archive().politeness(f64::NAN).unwrap_err().to_string();
        assert!(err.contains("`rate`"), "{err}");
        let p = Politeness::default_for(RequestClass::Page);
        let bad = Archive::new("ftp://example.org", None, None, p);
        let err = bad.fetcher(1.0, FetchConfig::default()).err().unwrap();
        assert!(err.to_string().contains("http://"), "{err}");
    }

    #[test]
    fn the_state_is_in_memory_unless_a_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl").join("state.sqlite");
        assert_eq!(archive().state().unwrap().path(), Path::new(":memory:"));
        let state = archive().with_state(Some(&path)).state().unwrap();
        assert_eq!(state.path(), path);
        assert!(path.exists());
    }
}
