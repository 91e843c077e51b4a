//! The Internet Archive's per-IP limits, as it enforces them: 30 CDX search and
//! timemap requests a minute (one pool) and 600 playback requests a minute
//! (every `/web/` request: pages, feeds, redirect hops and retries). Above a
//! limit it answers 429 *without* `Retry-After`; a client that keeps sending
//! into 429s for more than a minute is firewalled (every connection refused)
//! for an hour, then two, doubling. Every request counts, the refused ones too:
//! a client that does not pause never gets through again.
//!
//! Sources: the Archive's staff in the `wayback` Python client (edgi-govdata-
//! archiving/wayback, issues 137, 153 and 206; `DEFAULT_MEMENTO_RATE_LIMIT =
//! 0.8 * 600 / 60`). Answers also take time: [`ArchiveLimits::latency`] delays
//! each one, as the real Archive's 0.5-3 s do.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::faults::RequestKind;

/// The limits a [`crate::MockWayback`] enforces once
/// [`crate::MockWayback::enforce`] is called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// CDX requests allowed per `window`.
    pub cdx: usize,
    /// Playback (`/web/`) requests allowed per `window`.
    pub playback: usize,
    /// The sliding window the limits count over (a minute on the real Archive).
    pub window: Duration,
    /// Sending into 429s for longer than this gets the client firewalled.
    pub firewall_after: Duration,
    /// The first firewall's length; each next one is twice the last.
    pub firewall: Duration,
    /// Every answer comes this long after its request.
    pub latency: Duration,
}

impl ArchiveLimits {
    /// The real Archive's limits and a typical answer time (0.7 s).
    pub fn real() -> Self {
        Self {
            cdx: 30,
            playback: 600,
            window: Duration::from_secs(60),
            firewall_after: Duration::from_secs(60),
            firewall: Duration::from_secs(3600),
            latency: Duration::from_millis(700),
        }
    }

    /// The same limits with time running `factor` times faster: windows, pauses
    /// and answers `factor` times shorter, so a test sees minutes in seconds. A
    /// client keeps to them by running its rates `factor` times faster too.
    pub fn faster(self, factor: u32) -> Self {
        let factor = factor.max(1);
        Self {
            window: self.window / factor,
            firewall_after: self.firewall_after / factor,
            firewall: self.firewall / factor,
            latency: self.latency / factor,
            ..self
        }
    }
}

/// What the limits say about one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Served.
    Pass,
    /// 429, no `Retry-After`.
    TooMany,
    /// The client is firewalled from now on, for a while.
    Firewall(Duration),
}

/// The counting behind [`ArchiveLimits`].
#[derive(Debug)]
pub(crate) struct Enforcer {
    limits: ArchiveLimits,
    cdx: VecDeque<Instant>,
    playback: VecDeque<Instant>,
    /// The first and the last 429 of the run of them the client is sending into.
    refused: Option<(Instant, Instant)>,
    /// Firewalls so far.
    firewalls: u32,
}

impl Enforcer {
    pub(crate) fn new(limits: ArchiveLimits) -> Self {
        Self {
            limits,
            cdx: VecDeque::new(),
            playback: VecDeque::new(),
            refused: None,
            firewalls: 0,
        }
    }

    pub(crate) fn latency(&self) -> Duration {
        self.limits.latency
    }

    /// Counts a request of `kind` arriving at `now` and says what it gets.
    pub(crate) fn admit(&mut self, kind: RequestKind, now: Instant) -> Verdict {
        let (pool, limit) = match kind {
            RequestKind::Cdx => (&mut self.cdx, self.limits.cdx),
            RequestKind::Replay => (&mut self.playback, self.limits.playback),
            RequestKind::Sparql | RequestKind::Api | RequestKind::Other => return Verdict::Pass,
        };
        while pool
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.limits.window)
        {
            pool.pop_front();
        }
        pool.push_back(now);
        if pool.len() <= limit {
            self.refused = None;
            return Verdict::Pass;
        }
        // A client that paused a window's length after its last 429 starts a new
        // run of them.
        let since = match self.refused {
            Some((since, last)) if now.duration_since(last) < self.limits.window => since,
            _ => now,
        };
        self.refused = Some((since, now));
        if now.duration_since(since) > self.limits.firewall_after {
            let length = self.limits.firewall * 2u32.saturating_pow(self.firewalls.min(16));
            self.firewalls += 1;
            self.refused = None;
            self.cdx.clear();
            self.playback.clear();
            return Verdict::Firewall(length);
        }
        Verdict::TooMany
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ArchiveLimits {
        ArchiveLimits {
            cdx: 2,
            playback: 3,
            window: Duration::from_secs(60),
            firewall_after: Duration::from_secs(60),
            firewall: Duration::from_secs(3600),
            latency: Duration::ZERO,
        }
    }

    #[test]
    fn pools_are_counted_apart_over_a_sliding_window() {
        let mut e = Enforcer::new(limits());
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(e.admit(RequestKind::Replay, t0), Verdict::Pass);
        }
        assert_eq!(e.admit(RequestKind::Replay, t0), Verdict::TooMany);
        // The CDX pool is its own.
        assert_eq!(e.admit(RequestKind::Cdx, t0), Verdict::Pass);
        assert_eq!(e.admit(RequestKind::Cdx, t0), Verdict::Pass);
        assert_eq!(e.admit(RequestKind::Cdx, t0), Verdict::TooMany);
        // A minute after the first four, they no longer count.
        let later = t0 + Duration::from_secs(60);
        assert_eq!(e.admit(RequestKind::Replay, later), Verdict::Pass);
    }

    #[test]
    fn sending_into_429s_for_over_a_minute_is_firewalled_doubling() {
        let mut e = Enforcer::new(limits());
        let t0 = Instant::now();
        let mut firewalls = Vec::new();
        // One request a second, far above three a minute, never pausing.
        for s in 0..200u64 {
            if let Verdict::Firewall(d) = e.admit(RequestKind::Replay, t0 + Duration::from_secs(s))
            {
                firewalls.push((s, d));
            }
        }
        assert_eq!(firewalls[0].1, Duration::from_secs(3600));
        assert!(firewalls[0].0 > 60 && firewalls[0].0 < 70, "{firewalls:?}");
        assert_eq!(firewalls[1].1, Duration::from_secs(7200));
    }

    #[test]
    fn a_client_that_pauses_after_each_429_is_not_firewalled() {
        let mut e = Enforcer::new(limits());
        let mut now = Instant::now();
        for _ in 0..50 {
            match e.admit(RequestKind::Replay, now) {
                Verdict::Pass => now += Duration::from_secs(1),
                Verdict::TooMany => now += Duration::from_secs(60),
                Verdict::Firewall(_) => panic!("firewalled"),
            }
        }
    }

    #[test]
    fn faster_scales_time_not_counts() {
        let l = ArchiveLimits::real().faster(60);
        assert_eq!((l.cdx, l.playback), (30, 600));
        assert_eq!(l.window, Duration::from_secs(1));
        assert_eq!(l.firewall, Duration::from_secs(60));
    }
}
