//! The request log both mocks keep ([`crate::MockWayback::log`],
//! [`crate::MockWikidata::log`]): every request with its arrival time, what the
//! mock did with it, whether it came during a pause the mock had asked for, and
//! how many requests were being answered at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::faults::RequestKind;

/// How a mock dealt with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Answered with this status (the body may still have been cut, see `Truncated`).
    Status(u16),
    /// Answered with this status, then the body was cut short.
    Truncated(u16),
    /// The connection was reset without an answer.
    Reset,
}

/// One request as a mock saw it.
#[derive(Debug, Clone)]
pub struct RequestRecord {
    /// Arrival, since the server started.
    pub at: Duration,
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path and query.
    pub target: String,
    /// What the request is for (CDX, replay, SPARQL, API, other).
    pub kind: RequestKind,
    /// The SPARQL query, decoded (from the URL or the POST body); `None` for
    /// other requests.
    pub query: Option<String>,
    /// Every parameter, decoded: the URL's, then a form body's.
    pub params: Vec<(String, String)>,
    /// The `User-Agent` header.
    pub user_agent: Option<String>,
    /// What the server did.
    pub outcome: Outcome,
    /// It arrived while a `Retry-After` the server had sent was still running.
    pub during_pause: bool,
    /// Requests being answered when it arrived, itself included.
    pub in_flight: usize,
}

impl RequestRecord {
    /// The HTTP status answered, if any (none for a reset).
    pub fn status(&self) -> Option<u16> {
        match self.outcome {
            Outcome::Status(s) | Outcome::Truncated(s) => Some(s),
            Outcome::Reset => None,
        }
    }
}

/// A mock's requests, in arrival order.
#[derive(Debug)]
pub struct RequestLog {
    records: Mutex<Vec<RequestRecord>>,
    in_flight: AtomicUsize,
    started: Instant,
}

/// A request being answered: counted in flight until dropped.
pub(crate) struct Arrival<'a> {
    log: &'a RequestLog,
    /// Arrival, since the server started.
    pub(crate) at: Duration,
    /// Requests being answered at arrival, this one included.
    pub(crate) in_flight: usize,
}

impl Drop for Arrival<'_> {
    fn drop(&mut self) {
        self.log.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl RequestLog {
    /// An empty log whose times count from now.
    pub(crate) fn new() -> Self {
        Self {
            records: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            started: Instant::now(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<RequestRecord>> {
        // A panic while holding the lock only happens in a failing test; keep logging.
        self.records.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A request arrives at `now`.
    pub(crate) fn arrive(&self, now: Instant) -> Arrival<'_> {
        let in_flight = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        Arrival {
            log: self,
            at: now.saturating_duration_since(self.started),
            in_flight,
        }
    }

    /// Records a request the mock has dealt with.
    pub(crate) fn push(&self, record: RequestRecord) {
        self.lock().push(record);
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.lock().clone()
    }

    /// Forgets every request so far.
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// Requests that arrived during a `Retry-After` pause the server had asked for.
    pub fn pause_violations(&self) -> Vec<RequestRecord> {
        self.lock()
            .iter()
            .filter(|r| r.during_pause)
            .cloned()
            .collect()
    }

    /// The most requests that were being answered at once.
    pub fn most_in_flight(&self) -> usize {
        self.lock().iter().map(|r| r.in_flight).max().unwrap_or(0)
    }

    /// The most requests of `kind` that arrived within any `window` (a sliding
    /// one, as the Archive counts).
    pub fn busiest(&self, kind: RequestKind, window: Duration) -> usize {
        // Logged when answered: put back in arrival order.
        let mut at: Vec<Duration> = self
            .lock()
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.at)
            .collect();
        at.sort();
        let mut first = 0;
        let mut most = 0;
        for (last, t) in at.iter().enumerate() {
            while *t - at[first] >= window {
                first += 1;
            }
            most = most.max(last - first + 1);
        }
        most
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        kind: RequestKind,
        at_ms: u64,
        in_flight: usize,
        during_pause: bool,
    ) -> RequestRecord {
        RequestRecord {
            at: Duration::from_millis(at_ms),
            method: "GET".into(),
            target: "/".into(),
            kind,
            query: None,
            params: Vec::new(),
            user_agent: None,
            outcome: Outcome::Status(200),
            during_pause,
            in_flight,
        }
    }

    #[test]
    fn the_log_counts_windows_flights_and_pauses() {
        let log = RequestLog::new();
        for (at, in_flight) in [(0, 1), (500, 3), (900, 2), (2000, 1)] {
            log.push(record(RequestKind::Cdx, at, in_flight, at == 900));
        }
        log.push(record(RequestKind::Replay, 950, 1, false));
        assert_eq!(log.busiest(RequestKind::Cdx, Duration::from_secs(1)), 3);
        assert_eq!(log.busiest(RequestKind::Replay, Duration::from_secs(1)), 1);
        assert_eq!(log.most_in_flight(), 3);
        assert_eq!(log.pause_violations().len(), 1);
        assert_eq!(log.requests().len(), 5);
        {
            let first = log.arrive(Instant::now());
            let second = log.arrive(Instant::now());
            assert_eq!((first.in_flight, second.in_flight), (1, 2));
        }
        assert_eq!(
            log.arrive(Instant::now()).in_flight,
            1,
            "answered ones leave"
        );
        log.clear();
        assert!(log.requests().is_empty());
    }
}
