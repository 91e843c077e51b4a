//! Fault injection: rules that make the mocks misbehave the way the real
//! Wayback Machine and Wikidata (or the network in front of them) do.

use std::time::Duration;

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
