//! Politeness towards one host, shared by every worker and stage of the process.
//!
//! Per host there is one [`RateLimiter`] per class of request (CDX queries and
//! page fetches are limited separately, as the Archive limits them) and one
//! [`Gate`]: when any worker gets a 429 the gate closes for `Retry-After` (at
//! least the configured minimum) and no request of either class is sent until it
//! opens; a refused or reset connection closes it for the block pause. The
//! limiter hands out send slots spaced exactly `60 s / rate`, so the achieved
//! rate is the configured one whenever work is waiting. It is a few lines on
//! purpose: a generic limiter crate cannot hold a slot back while the gate is
//! closed, and the slot and the gate must be checked together.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::time::Instant;

use crate::error::HttpError;

/// The Archive's published limit on CDX search and timemap requests, per IP and
/// minute (one pool); above it the Archive answers 429 without `Retry-After`.
pub const ARCHIVE_CDX_LIMIT: f64 = 30.0;

/// The Archive's published limit on playback requests (archived pages and feeds,
/// redirects and retries included), per IP and minute.
pub const ARCHIVE_PLAYBACK_LIMIT: f64 = 600.0;

/// The share of the Archive's limits a client uses by default: its staff asked
/// client libraries to default to 80% (the `wayback` Python client's
/// `DEFAULT_MEMENTO_RATE_LIMIT = 0.8 * 600 / 60`, CDX 24 a minute).
pub const CLIENT_SHARE: f64 = 0.8;

/// The pool a request counts against, each with its own limiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestClass {
    /// CDX search and timemaps (default 24 a minute).
    Cdx,
    /// Playback: archived pages and feeds (default 480 a minute).
    Page,
    /// Wikidata Query Service (SPARQL) queries, sent one at a time (default
    /// [`WIKIDATA_QUERY_RATE`] a minute).
    Query,
    /// Wikibase API reads (`wbgetentities`), sent one at a time with `maxlag`
    /// (default [`WIKIDATA_API_RATE`] a minute).
    Api,
}

/// Queries a minute sent to the Wikidata Query Service by default. Its limits
/// are on time, not on count: 60 seconds of query time a minute per client, 5
/// queries at once. One query at a time at this rate keeps well inside both
/// for queries of a few seconds.
pub const WIKIDATA_QUERY_RATE: f64 = 30.0;

/// Reads a minute sent to the Wikibase API by default: one a second, serially,
/// as its etiquette asks of a client that reads many entities.
pub const WIKIDATA_API_RATE: f64 = 60.0;

/// How polite to be; every duration configurable so tests can use short ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Politeness {
    /// Requests a minute for this class; 0 = no limit (benchmarks only).
    pub rate_per_minute: f64,
    /// Shortest pause after a 429, whatever `Retry-After` says.
    pub min_pause: Duration,
    /// Attempts per request for 5xx answers, timeouts and cut bodies.
    pub max_attempts: u32,
    /// First backoff delay; doubles each attempt, with jitter.
    pub backoff: Duration,
    /// Longest backoff delay.
    pub max_backoff: Duration,
    /// Pause after a refused or reset connection.
    pub block_pause: Duration,
    /// Consecutive blocks after which the run stops.
    pub max_blocks: u32,
    /// Consecutive 429s after which the run stops.
    pub max_rate_limits: u32,
    /// Timeout of one request.
    pub timeout: Duration,
}

impl Politeness {
    /// The defaults for a class: 80% of the Archive's limit, 24 a minute for CDX,
    /// 480 for playback; Wikidata's rates above. After a 429 the Archive's
    /// pause is a minute at least; Wikimedia's services say how long in
    /// `Retry-After`, and a pause of at least 5 seconds follows it. Refused
    /// connections pause the Archive's classes 5 minutes, Wikidata's 20 seconds.
    pub fn default_for(class: RequestClass) -> Self {
        // The Archive blocks an IP by refusing its connections, for an hour at
        // least; Wikimedia's services refuse with 403 or 429: a refused
        // connection there is a service down, waited out for less.
        let (rate_per_minute, min_pause, block_pause) = match class {
            RequestClass::Cdx => (CLIENT_SHARE * ARCHIVE_CDX_LIMIT, 60, 300),
            RequestClass::Page => (CLIENT_SHARE * ARCHIVE_PLAYBACK_LIMIT, 60, 300),
            RequestClass::Query => (WIKIDATA_QUERY_RATE, 5, 20),
            RequestClass::Api => (WIKIDATA_API_RATE, 5, 20),
        };
        Self {
            rate_per_minute,
            min_pause: Duration::from_secs(min_pause),
            max_attempts: 5,
            backoff: Duration::from_secs(2),
            max_backoff: Duration::from_secs(300),
            block_pause: Duration::from_secs(block_pause),
            max_blocks: 3,
            max_rate_limits: 10,
            timeout: Duration::from_secs(120),
        }
    }

    /// The same politeness at `rate` requests a minute (0: no limit).
    ///
    /// # Errors
    /// A rate that is negative or not a number.
    pub fn at_rate(self, rate: f64) -> Result<Self, HttpError> {
        if !(rate >= 0.0 && rate.is_finite()) {
            return Err(HttpError::Config(format!(
                "`rate` must be 0 or more requests a minute, not {rate}"
            )));
        }
        Ok(Self {
            rate_per_minute: rate,
            ..self
        })
    }

    /// The delay before retry number `attempt` (1-based): exponential, capped,
    /// with "equal jitter" (between half and all of it) so workers spread out.
    pub fn backoff_delay(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(30));
        let full = self.backoff.saturating_mul(factor).min(self.max_backoff);
        full.mul_f64(0.5 + fastrand::f64() * 0.5)
    }
}

/// Why the gate is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Closed {
    /// After a 429.
    RateLimit,
    /// After a refused or reset connection.
    Block,
}

#[derive(Debug, Default)]
struct GateState {
    until: Option<Instant>,
    /// When the gate last closed, per reason: answers to requests sent before it
    /// belong to the episode that closed it.
    closed_at: HashMap<Closed, Instant>,
    blocks: u32,
    rate_limits: u32,
}

/// The host-wide pause: closed after a 429 or a block, for every worker.
#[derive(Debug, Default)]
pub struct Gate {
    state: Mutex<GateState>,
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// When the gate opens again, if it is closed now.
    pub fn closed_until(&self) -> Option<Instant> {
        self.lock().until.filter(|t| *t > Instant::now())
    }

    /// Closes the gate for `pause` from now (never shortens a longer pause), for the
    /// request sent at `sent`. Returns how many episodes of this kind came in a
    /// row: the requests that were in flight when the gate closed (sent before
    /// it) get the same answer, and belong to the episode that closed it.
    pub fn close(&self, pause: Duration, why: Closed, sent: Instant) -> u32 {
        let mut s = self.lock();
        let now = Instant::now();
        let until = now + pause;
        if s.until.is_none_or(|t| t < until) {
            s.until = Some(until);
        }
        let same_episode = s.closed_at.get(&why).is_some_and(|at| sent <= *at);
        let count = match why {
            Closed::RateLimit => &mut s.rate_limits,
            Closed::Block => &mut s.blocks,
        };
        if !same_episode {
            *count += 1;
        }
        let times = *count;
        if !same_episode {
            s.closed_at.insert(why, now);
        }
        times
    }

    /// An answer to the request sent at `sent` came through: the host is reachable
    /// and, unless the answer was a 429, not limiting us. Answers to requests
    /// sent before the gate last closed say nothing about whether it should have.
    pub fn answered(&self, rate_limited: bool, sent: Instant) {
        let mut s = self.lock();
        if s.closed_at.get(&Closed::Block).is_none_or(|at| sent > *at) {
            s.blocks = 0;
        }
        if !rate_limited
            && s.closed_at
                .get(&Closed::RateLimit)
                .is_none_or(|at| sent > *at)
        {
            s.rate_limits = 0;
        }
    }

    /// Waits until the gate is open.
    pub async fn wait_open(&self) {
        while let Some(until) = self.closed_until() {
            tokio::time::sleep_until(until).await;
        }
    }
}

/// Send slots spaced `60 s / rate` apart, shared by every worker of a class.
#[derive(Debug)]
pub struct RateLimiter {
    interval: Mutex<Option<Duration>>,
    next: Mutex<Option<Instant>>,
}

impl RateLimiter {
    /// A limiter for `rate_per_minute` (0 or less: unlimited).
    pub fn new(rate_per_minute: f64) -> Self {
        Self {
            interval: Mutex::new(interval_of(rate_per_minute)),
            next: Mutex::new(None),
        }
    }

    /// Keeps the slower of the current rate and `rate_per_minute`: two stages
    /// sharing a host never make it faster than either asked.
    pub fn slow_to(&self, rate_per_minute: f64) {
        let new = interval_of(rate_per_minute);
        let mut interval = self.interval.lock().unwrap_or_else(|p| p.into_inner());
        *interval = match (*interval, new) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }

    /// Waits for the gate to be open and for this worker's slot; a slot that comes
    /// up while the gate closed again is given up and a new one taken after it.
    pub async fn acquire(&self, gate: &Gate) {
        loop {
            gate.wait_open().await;
            let interval = *self.interval.lock().unwrap_or_else(|p| p.into_inner());
            let Some(interval) = interval else {
                return;
            };
            let slot = {
                let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
                let now = Instant::now();
                let slot = next.map_or(now, |n| n.max(now));
                *next = Some(slot + interval);
                slot
            };
            tokio::time::sleep_until(slot).await;
            if gate.closed_until().is_none() {
                return;
            }
        }
    }
}

fn interval_of(rate_per_minute: f64) -> Option<Duration> {
    (rate_per_minute > 0.0).then(|| Duration::from_secs_f64(60.0 / rate_per_minute))
}

/// Everything shared for one host.
#[derive(Debug)]
pub struct HostPoliteness {
    /// `host:port`.
    pub host: String,
    /// The pause after 429s and blocks.
    pub gate: Gate,
    limiters: Mutex<HashMap<RequestClass, Arc<RateLimiter>>>,
}

impl HostPoliteness {
    /// The limiter of `class`, created at `rate` or slowed to it.
    pub fn limiter(&self, class: RequestClass, rate_per_minute: f64) -> Arc<RateLimiter> {
        let mut limiters = self.limiters.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = limiters.get(&class) {
            l.slow_to(rate_per_minute);
            return l.clone();
        }
        let limiter = Arc::new(RateLimiter::new(rate_per_minute));
        limiters.insert(class, limiter.clone());
        limiter
    }
}

/// The process-wide politeness of `host`: every stage talking to the same host shares it.
pub fn for_host(host: &str) -> Arc<HostPoliteness> {
    static HOSTS: OnceLock<Mutex<HashMap<String, Arc<HostPoliteness>>>> = OnceLock::new();
    let hosts = HOSTS.get_or_init(Mutex::default);
    let mut hosts = hosts.lock().unwrap_or_else(|p| p.into_inner());
    hosts
        .entry(host.to_string())
        .or_insert_with(|| {
            Arc::new(HostPoliteness {
                host: host.to_string(),
                gate: Gate::default(),
                limiters: Mutex::new(HashMap::new()),
            })
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn slots_are_spaced_by_the_rate() {
        let gate = Gate::default();
        let limiter = RateLimiter::new(120.0);
        let start = Instant::now();
        for _ in 0..5 {
            limiter.acquire(&gate).await;
        }
        assert_eq!(Instant::now() - start, Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_gate_holds_every_slot_back() {
        let gate = Gate::default();
        let limiter = RateLimiter::new(600.0);
        limiter.acquire(&gate).await;
        let start = Instant::now();
        assert_eq!(
            gate.close(Duration::from_secs(60), Closed::RateLimit, start),
            1
        );
        limiter.acquire(&gate).await;
        assert!(Instant::now() - start >= Duration::from_secs(60));
        let sent = Instant::now();
        assert_eq!(
            gate.close(Duration::from_secs(1), Closed::RateLimit, sent),
            2
        );
        tokio::time::advance(Duration::from_secs(2)).await;
        gate.answered(false, Instant::now());
        assert_eq!(
            gate.close(Duration::from_secs(1), Closed::Block, Instant::now()),
            1
        );
    }

    #[tokio::test(start_paused = true)]
    async fn answers_to_requests_in_flight_when_the_gate_closed_are_one_episode() {
        let gate = Gate::default();
        let sent = Instant::now();
        tokio::time::advance(Duration::from_millis(500)).await;
        // 32 requests were in flight; all 32 come back 429.
        for _ in 0..32 {
            assert_eq!(
                gate.close(Duration::from_secs(60), Closed::RateLimit, sent),
                1
            );
        }
        // An answer sent before the closing does not end the episode either.
        gate.answered(false, sent);
        tokio::time::advance(Duration::from_secs(60)).await;
        // The first request sent after the pause is 429 again: a second episode.
        let after = Instant::now();
        tokio::time::advance(Duration::from_millis(500)).await;
        assert_eq!(
            gate.close(Duration::from_secs(60), Closed::RateLimit, after),
            2
        );
        // Resets work the same way.
        for _ in 0..8 {
            assert_eq!(gate.close(Duration::from_secs(1), Closed::Block, sent), 1);
        }
        // An answer to a request sent after the last 429 ends the run of them.
        tokio::time::advance(Duration::from_secs(61)).await;
        gate.answered(false, Instant::now());
        let later = Instant::now();
        tokio::time::advance(Duration::from_millis(10)).await;
        assert_eq!(
            gate.close(Duration::from_secs(60), Closed::RateLimit, later),
            1
        );
    }

    #[test]
    fn backoff_doubles_with_jitter_and_caps() {
        let p = Politeness::default_for(RequestClass::Page);
        for attempt in 1..=4u32 {
            let full = Duration::from_secs(2 * 2u64.pow(attempt - 1));
            let d = p.backoff_delay(attempt);
            assert!(d >= full / 2 && d <= full, "{attempt}: {d:?}");
        }
        assert!(p.backoff_delay(40) <= p.max_backoff);
    }

    #[test]
    fn hosts_share_one_limiter_at_the_slower_rate() {
        let host = for_host("shared.test:1");
        let a = host.limiter(RequestClass::Cdx, 30.0);
        let b = for_host("shared.test:1").limiter(RequestClass::Cdx, 10.0);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(*a.interval.lock().unwrap(), Some(Duration::from_secs(6)));
    }
}
