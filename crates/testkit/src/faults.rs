//! Fault injection: rules that make the mocks misbehave the way the real
//! Wayback Machine and Wikidata (or the network in front of them) do.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use hyper::Response;

use crate::cdx::Answer;
use crate::log::Outcome;
use crate::server::{respond_as, Body};

/// Which requests a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// CDX queries (`/cdx/search/cdx`).
    Cdx,
    /// Replays (`/web/...`).
    Replay,
    /// Wikidata Query Service queries (`/sparql`, [`crate::MockWikidata`]).
    Sparql,
    /// Wikibase API requests (`/w/api.php`, [`crate::MockWikidata`]).
    Api,
    /// Every request.
    Any,
    /// Requests whose path and query contain this text.
    UrlContains(String),
}

impl Target {
    pub(crate) fn matches(&self, kind: RequestKind, target: &str) -> bool {
        match self {
            Self::Cdx => kind == RequestKind::Cdx,
            Self::Replay => kind == RequestKind::Replay,
            Self::Sparql => kind == RequestKind::Sparql,
            Self::Api => kind == RequestKind::Api,
            Self::Any => true,
            Self::UrlContains(text) => target.contains(text.as_str()),
        }
    }
}

/// What goes wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The Archive's own rate limit: `429 Too Many Requests` with `Retry-After` (seconds).
    RateLimit {
        /// Seconds in `Retry-After`.
        retry_after: u64,
    },
    /// `503 Service Unavailable` (overload, maintenance).
    Unavailable,
    /// The answer comes after this delay.
    Slow(Duration),
    /// The connection is reset (TCP RST) without an answer.
    Reset,
    /// Headers announce the whole body, half of it is sent, then the connection closes.
    Truncate,
    /// `Content-Encoding: gzip` on a body that is not compressed.
    WrongEncoding,
    /// The Wayback's own HTML error page, served with status 200 and no `Memento-Datetime`.
    ErrorPage200,
    /// An IP block: every connection is reset for this long, starting now.
    Block(Duration),
}

/// A fault applied to matching requests: skip the first `after`, then fire `times` times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultRule {
    /// Which requests.
    pub target: Target,
    /// What happens.
    pub fault: Fault,
    /// Matching requests to let through first.
    pub after: u32,
    /// How many matching requests get the fault.
    pub times: u32,
}

impl FaultRule {
    /// `fault` on the next `times` requests matching `target`.
    pub fn new(target: Target, fault: Fault, times: u32) -> Self {
        Self {
            target,
            fault,
            after: 0,
            times,
        }
    }

    /// The same rule, starting after `n` matching requests went through.
    pub fn after(mut self, n: u32) -> Self {
        self.after = n;
        self
    }
}

/// The kind of a request, for targeting and the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// A CDX query.
    Cdx,
    /// An `id_` (or plain) replay.
    Replay,
    /// A SPARQL query to the mock Wikidata Query Service.
    Sparql,
    /// A request to the mock Wikibase API (`/w/api.php`).
    Api,
    /// Anything else (404).
    Other,
}

/// A mock's fault rules and the pauses and blocks they set off: one per mock,
/// shared by its connections.
#[derive(Debug, Default)]
pub(crate) struct FaultGate {
    inner: Mutex<GateState>,
}

#[derive(Debug, Default)]
struct GateState {
    rules: Vec<FaultRule>,
    /// The end of the `Retry-After` pause last asked for.
    pause_until: Option<Instant>,
    /// Every connection is reset until then.
    block_until: Option<Instant>,
}

/// What the gate decided for a request on its arrival.
pub(crate) struct Admission {
    /// The fault it meets, if any (a reset while the mock blocks).
    pub(crate) fault: Option<Fault>,
    /// It arrived during a `Retry-After` pause the mock had asked for.
    pub(crate) during_pause: bool,
    /// It arrived while the mock blocks every connection.
    pub(crate) blocked: bool,
}

impl FaultGate {
    fn lock(&self) -> MutexGuard<'_, GateState> {
        // A panic while holding the lock only happens in a failing test; keep serving.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a rule; rules fire in the order they were added.
    pub(crate) fn add(&self, rule: FaultRule) {
        self.lock().rules.push(rule);
    }

    /// Whether every connection is reset at `now`.
    pub(crate) fn blocked(&self, now: Instant) -> bool {
        self.lock().block_until.is_some_and(|t| now < t)
    }

    /// Resets every connection until `until`.
    pub(crate) fn block_until(&self, until: Instant) {
        self.lock().block_until = Some(until);
    }

    /// The fault for a request of `kind` to `target` arriving at `now`: a
    /// reset while blocked, else the first rule that fires (`rules` false:
    /// none, and no rule counts it).
    pub(crate) fn admit(
        &self,
        kind: RequestKind,
        target: &str,
        now: Instant,
        rules: bool,
    ) -> Admission {
        let mut gate = self.lock();
        let during_pause = gate.pause_until.is_some_and(|t| now < t);
        let blocked = gate.block_until.is_some_and(|t| now < t);
        let fault = if blocked {
            Some(Fault::Reset)
        } else if rules {
            pick(&mut gate.rules, kind, target)
        } else {
            None
        };
        Admission {
            fault,
            during_pause,
            blocked,
        }
    }
}

/// The answers a mock gives, in its service's own words, for the faults that
/// answer in place of the service.
pub(crate) struct FaultPages {
    /// Its `Server` header.
    pub(crate) server: &'static str,
    /// A 429 asking for a pause of this many seconds (`Retry-After` is added).
    pub(crate) too_many: fn(u64) -> Answer,
    /// A 503.
    pub(crate) unavailable: fn() -> Answer,
    /// An error page served with status 200.
    pub(crate) error_page_200: fn() -> Answer,
}

/// How the answer goes out after the faults a request met.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Delivery {
    /// Falsely labelled gzip.
    pub(crate) wrong_encoding: bool,
    /// Cut in half after headers announcing it whole.
    pub(crate) truncate: bool,
}

/// What became of a request that met the fault rules.
pub(crate) enum Met {
    /// The service answers, delivered so.
    Go(Delivery),
    /// The mock answered in its place (or reset the connection).
    Answered(Result<Response<Body>, io::Error>),
}

/// What `fault` does to a request: the mock's answer in place of the service's
/// (a reset, a 429, a 503, an error page), logged with `log`; or, to go on, how
/// the service's answer goes out (after a `Slow` fault's delay). A `Block`
/// starts at the request's arrival `arrived`, a 429's pause now, in `gate`.
pub(crate) async fn meet(
    fault: Option<Fault>,
    arrived: Instant,
    gate: &FaultGate,
    pages: &FaultPages,
    kill: &AtomicBool,
    log: impl Fn(Outcome),
) -> Met {
    let reset = |why: &str| {
        log(Outcome::Reset);
        kill.store(true, Ordering::Relaxed);
        Met::Answered(Err(io::Error::new(
            io::ErrorKind::ConnectionReset,
            why.to_string(),
        )))
    };
    let answer = |answer: Answer| {
        log(Outcome::Status(answer.status));
        Met::Answered(Ok(respond_as(pages.server, answer, false, false, false)))
    };
    let mut delivery = Delivery::default();
    match fault {
        None => {}
        Some(Fault::Reset) => return reset("injected reset"),
        Some(Fault::Block(duration)) => {
            gate.block_until(arrived + duration);
            return reset("injected block");
        }
        Some(Fault::RateLimit { retry_after }) => {
            gate.lock().pause_until = Some(Instant::now() + Duration::from_secs(retry_after));
            let mut page = (pages.too_many)(retry_after);
            page.headers
                .push(("Retry-After".into(), retry_after.to_string()));
            return answer(page);
        }
        Some(Fault::Unavailable) => return answer((pages.unavailable)()),
        Some(Fault::ErrorPage200) => return answer((pages.error_page_200)()),
        Some(Fault::Slow(delay)) => tokio::time::sleep(delay).await,
        Some(Fault::WrongEncoding) => delivery.wrong_encoding = true,
        Some(Fault::Truncate) => delivery.truncate = true,
    }
    Met::Go(delivery)
}

/// Picks the fault for a request, if any, updating the rules' counters.
pub(crate) fn pick(rules: &mut Vec<FaultRule>, kind: RequestKind, target: &str) -> Option<Fault> {
    let mut fired = None;
    for rule in rules.iter_mut() {
        if !rule.target.matches(kind, target) || rule.times == 0 {
            continue;
        }
        if rule.after > 0 {
            rule.after -= 1;
            continue;
        }
        rule.times -= 1;
        fired = Some(rule.fault.clone());
        break;
    }
    rules.retain(|r| r.times > 0);
    fired
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_skip_then_fire_then_expire() {
        let mut rules = vec![FaultRule::new(Target::Replay, Fault::Unavailable, 2).after(1)];
        assert_eq!(pick(&mut rules, RequestKind::Cdx, "/cdx"), None);
        assert_eq!(pick(&mut rules, RequestKind::Replay, "/web/1"), None);
        assert_eq!(
            pick(&mut rules, RequestKind::Replay, "/web/1"),
            Some(Fault::Unavailable)
        );
        assert_eq!(
            pick(&mut rules, RequestKind::Replay, "/web/1"),
            Some(Fault::Unavailable)
        );
        assert_eq!(pick(&mut rules, RequestKind::Replay, "/web/1"), None);
        assert!(rules.is_empty());
    }
}
