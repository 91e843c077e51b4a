//! What the crawler's examples share: clients of a (mock) Wayback at a chosen
//! request rate, and a page fetcher with the fetch stage's usual limits.

use tempora_wayback::fetch::{FetchConfig, Fetcher};
use tempora_wayback::http::Client;
use tempora_wayback::politeness::{Politeness, RequestClass};

/// A client for `class` requests at `rate_per_minute` (0: as fast as the
/// server answers), with the class's other politeness defaults.
pub fn client(
    endpoint: &str,
    agent: &str,
    class: RequestClass,
    rate_per_minute: f64,
) -> anyhow::Result<Client> {
    let politeness = Politeness {
        rate_per_minute,
        ..Politeness::default_for(class)
    };
    Ok(Client::new(endpoint, agent, class, politeness)?)
}

/// A page fetcher: redirects up to a day from the capture asked for, ten at
/// most, bodies up to 16 MiB.
pub fn page_fetcher(endpoint: &str, agent: &str, rate_per_minute: f64) -> anyhow::Result<Fetcher> {
    Ok(Fetcher::new(
        client(endpoint, agent, RequestClass::Page, rate_per_minute)?,
        FetchConfig {
            endpoint: endpoint.to_string(),
            max_redirect_distance: 86_400,
            max_redirects: 10,
            max_body: 16 << 20,
        },
    ))
}
