//! Helpers shared by the integration tests: fast politeness, clients of a mock.
#![allow(dead_code)]

pub mod one_by_one;

use std::time::Duration;

use tempora_http::politeness::{Politeness, RequestClass};
use tempora_wayback::archive::Archive;
use tempora_wayback::cdx::CdxClient;
use tempora_wayback::fetch::{FetchConfig, Fetcher};

const AGENT: &str = "tempora-test (+test@example.org)";

/// Politeness with short pauses, so tests run fast; `rate` 0 = unlimited.
pub fn quick(class: RequestClass, rate: f64) -> Politeness {
    Politeness {
        rate_per_minute: rate,
        min_pause: Duration::from_millis(300),
        max_attempts: 4,
        backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(200),
        block_pause: Duration::from_millis(100),
        max_blocks: 3,
        timeout: Duration::from_secs(10),
        ..Politeness::default_for(class)
    }
}

/// The mock at `endpoint` as the crawler sees it, with politeness `p`.
pub fn archive(endpoint: &str, p: &Politeness) -> Archive {
    Archive::new(endpoint, None, Some(AGENT), p.clone())
}

pub fn cdx_client(endpoint: &str, p: Politeness) -> CdxClient {
    archive(endpoint, &p).cdx(p.rate_per_minute).unwrap()
}

pub fn fetcher(endpoint: &str, p: Politeness) -> Fetcher {
    let limits = FetchConfig {
        max_redirect_distance: 86_400,
        max_redirects: 10,
        max_body: 1 << 20,
    };
    archive(endpoint, &p)
        .fetcher(p.rate_per_minute, limits)
        .unwrap()
}

/// A fetched BBC page, the `i`th of a run (non-ASCII body, charset, memento time).
pub fn sample_page(i: u32) -> tempora_records::Page {
    tempora_records::Page {
        capture: tempora_records::Capture {
            url: format!("http://www.bbc.co.uk/news/uk-{i}"),
            timestamp: "20150601083000".parse().unwrap(),
            status: Some(200),
            mime: "text/html".into(),
            digest: "ABCD".into(),
            length: Some(1234),
            source: "captures".into(),
        },
        body: format!("<html><body>caf\u{e9} {i}</body></html>").into_bytes(),
        content_type: Some("text/html; charset=utf-8".into()),
        final_url: format!("http://www.bbc.co.uk/news/uk-{i}"),
        memento_datetime: Some("Mon, 01 Jun 2015 08:30:00 GMT".into()),
    }
}
