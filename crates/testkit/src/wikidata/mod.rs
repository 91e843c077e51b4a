//! A mock of Wikidata's live services on 127.0.0.1: the Wikidata Query
//! Service (`/sparql`, SPARQL evaluated for real by Oxigraph on the entities'
//! RDF as WDQS has it, see [`rdf`]) and the Wikibase API (`/w/api.php`,
//! `action=wbgetentities`, see [`api`]), over one set of entities that tests
//! can change between runs ([`MockWikidata::set_entity`]).
//!
//! Promises: every entity has a `lastrevid` and `modified` (assigned when
//! absent); `set_entity` gives a revision greater than any before, seen by
//! both services at once; a request without a `User-Agent`, or with a library's
//! generic one alone (`python-requests/2.31`, `curl/8.5`), gets a 403 as
//! Wikimedia's User-Agent policy has it; faults ([`FaultRule`] with
//! [`Target::Sparql`](crate::Target::Sparql) / [`Target::Api`](crate::Target::Api))
//! fire exactly as often as asked; every request is logged with its arrival time.

pub mod api;
pub mod rdf;
pub mod sparql;

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::cdx::Answer;
use crate::faults::{self, FaultGate, FaultPages, FaultRule, RequestKind};
use crate::log::{Outcome, RequestLog, RequestRecord};
use crate::server::{accept_loop, respond_as, Body};

struct State {
    entities: BTreeMap<String, Value>,
    store: sparql::SparqlStore,
    clock: Option<DateTime<Utc>>,
    /// Greatest `lastrevid` so far.
    last_rev: u64,
    /// Greatest `pageid` so far.
    last_page: u64,
    /// Replication lag (seconds) and how many more API requests see it.
    lag: (f64, u32),
    limit: Option<usize>,
}

impl State {
    fn now(&self) -> DateTime<Utc> {
        self.clock.unwrap_or_else(Utc::now)
    }

    /// Fills in what the model promises every entity has; `bump` gives it a new revision.
    fn normalize(&mut self, mut entity: Value, bump: bool) -> Option<(String, Value)> {
        let now = self.now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let map = entity.as_object_mut()?;
        let id = map.get("id")?.as_str()?.to_ascii_uppercase();
        map.insert("id".into(), Value::from(id.clone()));
        let kind = match id.as_bytes().first() {
            Some(b'P') => "property",
            Some(b'L') => "lexeme",
            _ => "item",
        };
        map.entry("type").or_insert_with(|| Value::from(kind));
        let rev = match map.get("lastrevid").and_then(Value::as_u64) {
            Some(rev) if !bump => rev,
            _ => self.last_rev + 1,
        };
        self.last_rev = self.last_rev.max(rev);
        map.insert("lastrevid".into(), Value::from(rev));
        if bump || !map.get("modified").is_some_and(Value::is_string) {
            map.insert("modified".into(), Value::from(now));
        }
        if !map.get("pageid").is_some_and(Value::is_u64) {
            self.last_page += 1;
            map.insert("pageid".into(), Value::from(self.last_page));
        }
        let (ns, title) = match kind {
            "property" => (120, format!("Property:{id}")),
            "lexeme" => (146, format!("Lexeme:{id}")),
            _ => (0, id.clone()),
        };
        map.entry("ns").or_insert_with(|| Value::from(ns));
        map.entry("title").or_insert_with(|| Value::from(title));
        Some((id, entity))
    }

    fn put(&mut self, entity: Value, bump: bool) -> Option<u64> {
        let (id, entity) = self.normalize(entity, bump)?;
        self.store.put(&entity, self.entities.get(&id));
        let rev = entity.get("lastrevid").and_then(Value::as_u64);
        self.entities.insert(id, entity);
        rev
    }
}

struct Shared {
    state: Mutex<State>,
    faults: FaultGate,
    log: RequestLog,
    base: String,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A mock Wikidata (Query Service and Wikibase API) on 127.0.0.1. Stops when dropped.
pub struct MockWikidata {
    addr: SocketAddr,
    shared: Arc<Shared>,
    cancel: CancellationToken,
}

impl MockWikidata {
    /// Starts a server for `entities` (each the JSON of one dump line) on a free loopback port.
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub async fn start(entities: Vec<Value>) -> io::Result<Self> {
        Self::start_on(0, entities).await
    }

    /// Like [`MockWikidata::start`], on loopback port `port` (0: any free one).
    ///
    /// # Errors
    /// When the port cannot be bound.
    pub async fn start_on(port: u16, entities: Vec<Value>) -> io::Result<Self> {
        Self::start_with(port, entities, rdf::Rdf::Whole).await
    }

    /// Like [`MockWikidata::start_on`], the query service keeping the RDF
    /// `rdf` says ([`rdf::Rdf::Lean`]: a large model within memory).
    ///
    /// # Errors
    /// When the port cannot be bound.
    pub async fn start_with(port: u16, entities: Vec<Value>, rdf: rdf::Rdf) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let last_rev = entities
            .iter()
            .filter_map(|e| e.get("lastrevid").and_then(Value::as_u64))
            .max()
            .unwrap_or(0);
        let last_page = entities
            .iter()
            .filter_map(|e| e.get("pageid").and_then(Value::as_u64))
            .max()
            .unwrap_or(0);
        let mut state = State {
            entities: BTreeMap::new(),
            store: sparql::SparqlStore::new(rdf),
            clock: None,
            last_rev,
            last_page,
            lag: (0.0, 0),
            limit: None,
        };
        for entity in entities {
            state.put(entity, false);
        }
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            faults: FaultGate::default(),
            log: RequestLog::new(),
            base: format!("http://{addr}"),
        });
        let cancel = CancellationToken::new();
        let gate = shared.clone();
        let service = shared.clone();
        tokio::spawn(accept_loop(
            listener,
            cancel.clone(),
            "mock wikidata",
            move || gate.faults.blocked(Instant::now()),
            move |kill, req| handle(service.clone(), kill, req),
        ));
        Ok(Self {
            addr,
            shared,
            cancel,
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        self.shared.base.clone()
    }

    /// `http://127.0.0.1:<port>/sparql`: the Query Service.
    pub fn sparql_endpoint(&self) -> String {
        format!("{}/sparql", self.shared.base)
    }

    /// `http://127.0.0.1:<port>/w/api.php`: the Wikibase API.
    pub fn api_endpoint(&self) -> String {
        format!("{}/w/api.php", self.shared.base)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Adds or replaces an entity (an edit): its `lastrevid` becomes greater
    /// than any before and its `modified` the clock's time; both services see
    /// it from now on. Returns the new revision, `None` for JSON without an `id`.
    pub fn set_entity(&self, entity: Value) -> Option<u64> {
        self.shared.lock().put(entity, true)
    }

    /// Removes an entity (a deletion); false when there was none.
    pub fn remove_entity(&self, id: &str) -> bool {
        let id = id.to_ascii_uppercase();
        let mut state = self.shared.lock();
        let Some(old) = state.entities.remove(&id) else {
            return false;
        };
        state.store.remove(&old);
        true
    }

    /// The entity as the model holds it (with its `lastrevid`, `modified`, `pageid`).
    pub fn entity(&self, id: &str) -> Option<Value> {
        self.shared
            .lock()
            .entities
            .get(&id.to_ascii_uppercase())
            .cloned()
    }

    /// The time edits are made at from now on (the real clock until set).
    pub fn set_clock(&self, now: DateTime<Utc>) {
        self.shared.lock().clock = Some(now);
    }

    /// A replication lag of `seconds` for the next `times` API requests: those
    /// whose `maxlag` is below it get MediaWiki's `maxlag` error.
    pub fn set_lag(&self, seconds: impl Into<f64>, times: u32) {
        self.shared.lock().lag = (seconds.into(), times);
    }

    /// WDQS's 60-second timeout, as a result size: a query whose result has
    /// more than `rows` rows (or triples) answers WDQS's timeout (HTTP 500,
    /// `java.util.concurrent.TimeoutException`).
    pub fn limit_results(&self, rows: usize) {
        self.shared.lock().limit = Some(rows);
    }

    /// Adds a fault rule; rules fire in the order they were added.
    pub fn add_fault(&self, rule: FaultRule) {
        self.shared.faults.add(rule);
    }

    /// Every request so far, with its arrival time and what the mock did.
    pub fn log(&self) -> &RequestLog {
        &self.shared.log
    }
}

impl Drop for MockWikidata {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// Entities from the text of a file: JSON lines, a Wikidata JSON dump (an
/// array with one entity a line, each but the last followed by a comma), a
/// JSON array, or a `wbgetentities` answer (`{"entities":{...}}`). Lines that
/// are not entities are skipped.
pub fn read_entities(text: &str) -> Vec<Value> {
    let whole = text.trim();
    if let Ok(value) = serde_json::from_str::<Value>(whole) {
        return match value {
            Value::Array(list) => list,
            Value::Object(mut map) => match map.remove("entities") {
                Some(Value::Object(entities)) => entities.into_iter().map(|(_, v)| v).collect(),
                Some(_) => Vec::new(),
                None => vec![Value::Object(map)],
            },
            _ => Vec::new(),
        };
    }
    text.lines()
        .map(|line| line.trim().trim_end_matches(','))
        .filter(|line| line.starts_with('{'))
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|v| v.get("id").is_some_and(Value::is_string))
        .collect()
}

/// A `User-Agent` that Wikimedia refuses: none, or a library's default alone.
pub fn is_generic_user_agent(user_agent: Option<&str>) -> bool {
    const LIBRARIES: &[&str] = &[
        "python-requests",
        "python-urllib",
        "python-httpx",
        "aiohttp",
        "curl",
        "wget",
        "go-http-client",
        "java",
        "okhttp",
        "axios",
        "node-fetch",
        "undici",
        "reqwest",
        "hyper",
        "libwww-perl",
        "ruby",
        "guzzlehttp",
        "apache-httpclient",
        "mozilla/5.0",
    ];
    let Some(ua) = user_agent.map(str::trim).filter(|ua| !ua.is_empty()) else {
        return true;
    };
    let lower = ua.to_ascii_lowercase();
    let mut tokens = lower.split_whitespace();
    let first = tokens.next().unwrap_or("");
    let alone = tokens.next().is_none();
    let name = first.split('/').next().unwrap_or("");
    alone && (LIBRARIES.contains(&name) || LIBRARIES.contains(&first))
}

fn plain(status: u16, body: &str) -> Answer {
    Answer {
        status,
        headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
        body: body.as_bytes().to_vec(),
    }
}

fn wikimedia_error_page(status: u16, message: &str) -> Answer {
    Answer {
        status,
        headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
        body: format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<meta charset=\"utf-8\">\n<title>Wikimedia Error</title>\n<div class=\"content\" role=\"main\">\n<h1>Error</h1>\n<p>{message}</p>\n</div>\n</html>\n"
        )
        .into_bytes(),
    }
}

fn decode_pairs(text: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(text)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// Wikimedia's answers to the faults that answer in place of the Query
/// Service, in its words.
const SPARQL_PAGES: FaultPages = FaultPages {
    server: "nginx/1.18.0",
    too_many,
    unavailable,
    error_page_200,
};

/// The same for the Wikibase API, behind its own servers.
const API_PAGES: FaultPages = FaultPages {
    server: "mw-api-ext.mock",
    ..SPARQL_PAGES
};

fn too_many(retry_after: u64) -> Answer {
    plain(
        429,
        &format!("Too Many Requests - Please retry in {retry_after} seconds.\n"),
    )
}

fn unavailable() -> Answer {
    wikimedia_error_page(
        503,
        "Our servers are currently under maintenance or experiencing a technical problem. Please try again in a few minutes.",
    )
}

fn error_page_200() -> Answer {
    wikimedia_error_page(
        200,
        "Request from 127.0.0.1 via cp0000 frontend, Varnish XID 0",
    )
}

// Long on purpose, like the Wayback mock's `handle`: one request's path through
// the mock in the order the real services meet it (the CDN's User-Agent check,
// then the injected faults, then the service).
async fn handle(
    shared: Arc<Shared>,
    kill: Arc<AtomicBool>,
    req: Request<Incoming>,
) -> Result<Response<Body>, io::Error> {
    let target = req.uri().path_and_query().map_or_else(
        || req.uri().path().to_string(),
        |pq| pq.as_str().to_string(),
    );
    let path = req.uri().path().to_string();
    let kind = match path.as_str() {
        "/sparql" | "/bigdata/namespace/wdq/sparql" => RequestKind::Sparql,
        "/w/api.php" => RequestKind::Api,
        _ => RequestKind::Other,
    };
    let method = req.method().as_str().to_string();
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let user_agent = header("user-agent");
    let accept = header("accept");
    let content_type = header("content-type").unwrap_or_default();
    let now = Instant::now();
    let arrival = shared.log.arrive(now);

    let mut params = decode_pairs(req.uri().query().unwrap_or("").as_bytes());
    let body: Bytes = match req.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return Err(io::Error::other(e)),
    };
    let mut query = None;
    if method == "POST" {
        if content_type.starts_with("application/sparql-query") {
            query = Some(String::from_utf8_lossy(&body).into_owned());
        } else {
            params.extend(decode_pairs(&body));
        }
    }
    if kind == RequestKind::Sparql && query.is_none() {
        query = params
            .iter()
            .rev()
            .find(|(k, _)| k == "query")
            .map(|(_, v)| v.clone());
    }

    let refused_agent = kind != RequestKind::Other && is_generic_user_agent(user_agent.as_deref());
    // A refused User-Agent meets no fault rule (the CDN answers first), only a block.
    let admission = shared.faults.admit(kind, &target, now, !refused_agent);
    let log = |outcome: Outcome| {
        shared.log.push(RequestRecord {
            at: arrival.at,
            method: method.clone(),
            target: target.clone(),
            kind,
            query: query.clone(),
            params: params.clone(),
            user_agent: user_agent.clone(),
            outcome,
            during_pause: admission.during_pause,
            in_flight: arrival.in_flight,
        });
    };
    let pages = if kind == RequestKind::Sparql {
        &SPARQL_PAGES
    } else {
        &API_PAGES
    };

    if refused_agent && !admission.blocked {
        log(Outcome::Status(403));
        let answer = plain(
            403,
            "Please set a user-agent and respect our robot policy https://w.wiki/4wJS. See also https://phabricator.wikimedia.org/T400119.\n",
        );
        return Ok(respond_as(pages.server, answer, false, false, false));
    }
    let delivery =
        match faults::meet(admission.fault, now, &shared.faults, pages, &kill, &log).await {
            faults::Met::Go(delivery) => delivery,
            faults::Met::Answered(answered) => return answered,
        };

    let answer = match kind {
        RequestKind::Sparql => {
            let (store, limit) = {
                let state = shared.lock();
                (state.store.handle(), state.limit)
            };
            match query.clone() {
                None => plain(400, "SPARQL-QUERY: no query given\n"),
                Some(text) => {
                    let format = params
                        .iter()
                        .rev()
                        .find(|(k, _)| k == "format")
                        .map(|(_, v)| v.clone());
                    tokio::task::spawn_blocking(move || {
                        sparql::answer(&store, &text, format.as_deref(), accept.as_deref(), limit)
                    })
                    .await
                    .unwrap_or_else(|e| plain(500, &format!("query task failed: {e}\n")))
                }
            }
        }
        RequestKind::Api => {
            let mut state = shared.lock();
            let lag = if state.lag.1 > 0 {
                state.lag.1 -= 1;
                state.lag.0
            } else {
                0.0
            };
            let view = api::ApiView {
                entities: &state.entities,
                lag,
            };
            api::answer(&view, &params)
        }
        _ => wikimedia_error_page(404, "Not Found"),
    };
    let status = answer.status;
    log(if delivery.truncate {
        Outcome::Truncated(status)
    } else {
        Outcome::Status(status)
    });
    Ok(respond_as(
        pages.server,
        answer,
        false,
        delivery.wrong_encoding,
        delivery.truncate,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_read_from_dumps_lines_and_api_answers() {
        let dump = "[\n{\"type\":\"item\",\"id\":\"Q1\"},\n{\"type\":\"item\",\"id\":\"Q2\"}\n]\n";
        let ids = |v: Vec<Value>| -> Vec<String> {
            v.iter()
                .map(|e| e["id"].as_str().unwrap_or("").to_string())
                .collect()
        };
        assert_eq!(ids(read_entities(dump)), ["Q1", "Q2"]);
        // A dump cut short is still read line by line.
        assert_eq!(ids(read_entities(&dump[..dump.len() - 3])), ["Q1", "Q2"]);
        let lines = "{\"id\":\"Q3\"}\n{\"id\":\"Q4\"}\n";
        assert_eq!(ids(read_entities(lines)), ["Q3", "Q4"]);
        let api = "{\"entities\":{\"Q5\":{\"id\":\"Q5\"}},\"success\":1}";
        assert_eq!(ids(read_entities(api)), ["Q5"]);
    }

    #[test]
    fn generic_user_agents_are_recognized() {
        assert!(is_generic_user_agent(None));
        assert!(is_generic_user_agent(Some("")));
        assert!(is_generic_user_agent(Some("python-requests/2.31.0")));
        assert!(is_generic_user_agent(Some("curl/8.5.0")));
        assert!(!is_generic_user_agent(Some(
            "TemporaBot/0.1 (https://example.org; bot@example.org) python-requests/2.31.0"
        )));
    }
}
