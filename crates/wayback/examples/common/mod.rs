//! What the crawler's examples share: a (mock) Wayback at a chosen request
//! rate, and a page fetcher with its usual limits.

use tempora_http::politeness::{Politeness, RequestClass};
use tempora_wayback::archive::Archive;
use tempora_wayback::cdx::CdxClient;
use tempora_wayback::fetch::{FetchConfig, Fetcher};

/// The Wayback at `endpoint`, asked as `agent`, with the default politeness.
pub fn archive(endpoint: &str, agent: &str) -> Archive {
    Archive::new(
        endpoint,
        None,
        Some(agent),
        Politeness::default_for(RequestClass::Cdx),
    )
}

/// A CDX client at `rate_per_minute` (0: as fast as the server answers).
pub fn cdx_client(endpoint: &str, agent: &str, rate_per_minute: f64) -> anyhow::Result<CdxClient> {
    Ok(archive(endpoint, agent).cdx(rate_per_minute)?)
}

/// A page fetcher: redirects up to a day from the capture asked for, ten at
/// most, bodies up to 16 MiB.
pub fn page_fetcher(endpoint: &str, agent: &str, rate_per_minute: f64) -> anyhow::Result<Fetcher> {
    let limits = FetchConfig {
        max_redirect_distance: 86_400,
        ..FetchConfig::default()
    };
    Ok(archive(endpoint, agent).fetcher(rate_per_minute, limits)?)
}
