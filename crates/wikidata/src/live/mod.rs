//! Facts from Wikidata's live services, without the dump: a reading finds the
//! entities the dump path would keep through the Wikidata Query Service
//! ([`query`]), reads them whole through the Wikibase API ([`api`]), and pins
//! them in a file of the dump's own format ([`reading`]), from which the dump's
//! own code reads the facts: one code path decides what a fact is.
//!
//! A reading after the first asks the query service again (the entities and
//! their revisions, a few queries) and reads through the API only the entities
//! whose revision is newer than the pinned one, or that are new; entities no
//! longer found are dropped, so the reading equals a first reading of the same
//! services. The objects of the facts (the positions of `P39`, the holders of
//! `P1308`) are read too, for their names: their revisions are asked by name.

pub mod api;
pub mod query;
pub mod reading;
pub mod stage;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDate;
use tempora_engine::StageStats;
use tempora_http::{Client, GetError, HttpError};

use crate::dump::FactsQuery;
use crate::lines::{entity_key, LineClassifier, LineKind};
use api::{ReadEntity, MAX_IDS};
use query::Window;
use reading::Entities;

/// Largest answer read from either service.
const MAX_ANSWER: u64 = 512 * 1024 * 1024;

/// Entities named in one revision query (a `VALUES` list, sent by POST).
pub const REVISION_BATCH: usize = 400;

/// What stops a live reading.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The service could not be reached, or kept refusing.
    #[error(transparent)]
    Http(#[from] HttpError),
    /// An answer that is not the format asked for.
    #[error("{request}: the answer is not valid JSON at byte {byte}: {message}")]
    Answer {
        /// The request (the query, or the API call).
        request: String,
        /// Byte offset in the answer where it stops being valid.
        byte: u64,
        /// The parser's message.
        message: String,
    },
    /// The service answered with an error.
    #[error("{request}: {message}")]
    Service {
        /// The request.
        request: String,
        /// The service's words.
        message: String,
    },
    /// The pinned reading cannot be read or written.
    #[error("reading {path}: {message}")]
    Reading {
        /// The reading file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The run was asked to stop.
    #[error("cancelled")]
    Cancelled,
}

impl LiveError {
    /// The answer `body` to `request` failed to parse with `error`: names the byte.
    pub fn answer(request: &str, body: &[u8], error: &serde_json::Error) -> Self {
        let byte = byte_of(body, error.line(), error.column());
        Self::Answer {
            request: request.to_string(),
            byte,
            message: error.to_string(),
        }
    }

    /// The service asks us to wait (a block, rate limits, lag that does not end).
    pub fn asks_to_wait(&self) -> bool {
        matches!(
            self,
            Self::Http(HttpError::Blocked { .. } | HttpError::RateLimited { .. })
        )
    }
}

/// The byte offset of 1-based `line` and `column` in `text`.
fn byte_of(text: &[u8], line: usize, column: usize) -> u64 {
    let start: usize = text
        .split(|b| *b == b'\n')
        .take(line.saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum();
    (start + column) as u64
}

/// The two services and how to ask them.
#[derive(Clone)]
pub struct Services {
    /// The query service's client (class `Query`).
    pub query: Client,
    /// The query service's endpoint (`https://query.wikidata.org/sparql`).
    pub query_endpoint: String,
    /// The API's client (class `Api`).
    pub api: Client,
    /// The API's endpoint (`https://www.wikidata.org/w/api.php`).
    pub api_endpoint: String,
    /// `maxlag` of every API request, seconds.
    pub maxlag: u32,
    /// Lag answers in a row after which the reading stops.
    pub max_lag_waits: u32,
}

pub use tempora_records::counters::Refresh;

/// Reads the entities of `query` from `services` on `today`, taking from
/// `last` (a previous reading's entities, in the same languages) every entity
/// whose revision has not changed.
///
/// # Errors
/// A service that cannot be read after every retry, an answer that is not its
/// format, a stop.
pub async fn read(
    services: &Services,
    query: &FactsQuery,
    today: NaiveDate,
    last: Option<&Entities>,
    stats: &Arc<StageStats>,
    stop: &tokio_util::sync::CancellationToken,
) -> Result<(Entities, Refresh), LiveError> {
    let mut refresh = Refresh::default();
    let found = discover_all(services, query, today, &mut refresh, stop).await?;
    refresh.found = found.len();
    // An answer with nothing in it is no reading of Wikidata, whose positions
    // change every day: the last reading stands.
    if let Some(last) = last.filter(|l| found.is_empty() && !l.is_empty()) {
        return Err(LiveError::Service {
            request: "the discovery queries".into(),
            message: format!(
                "found no entity at all, where the last reading had {}: not taken for a reading",
                last.len()
            ),
        });
    }
    tracing::info!(
        entities = found.len(),
        queries = refresh.queries,
        "found the entities to read"
    );
    let mut entities = Entities::new();
    let wanted: Vec<(u64, String, u64)> =
        found.into_iter().map(|(k, (id, v))| (k, id, v)).collect();
    let taking = Taking {
        services,
        query,
        last,
        stats,
        stop,
    };
    taking.take(&wanted, &mut entities, &mut refresh).await?;
    // The objects of the facts, for their names.
    let classifier = LineClassifier::new(&query.relations, &query.languages, query.cutoff);
    let objects = objects_to_read(&classifier, &entities);
    refresh.objects = objects.len();
    let versions = object_versions(services, &objects, &mut refresh, stop).await?;
    taking.take(&versions, &mut entities, &mut refresh).await?;
    if let Some(last) = last {
        refresh.dropped = last.keys().filter(|k| !entities.contains_key(k)).count();
        let (before, now) = (
            fact_keys(&classifier, last),
            fact_keys(&classifier, &entities),
        );
        refresh.facts_changed = before.symmetric_difference(&now).count();
    }
    Ok((entities, refresh))
}

/// Every entity with a statement of a relation of `query` starting from the
/// cutoff's year to `today`, by key, with the newest revision the service gave.
async fn discover_all(
    services: &Services,
    query: &FactsQuery,
    today: NaiveDate,
    refresh: &mut Refresh,
    stop: &tokio_util::sync::CancellationToken,
) -> Result<BTreeMap<u64, (String, u64)>, LiveError> {
    let mut found: BTreeMap<u64, (String, u64)> = BTreeMap::new();
    for relation in &query.relations {
        for window in Window::years(query.cutoff, today) {
            for (id, version) in discover(services, relation, window, refresh, stop).await? {
                if let Some(key) = entity_key(id.as_bytes()) {
                    let known = found.entry(key).or_insert((id, version));
                    known.1 = known.1.max(version);
                }
            }
        }
    }
    Ok(found)
}

/// The items the facts of `entities` name as objects that are not read yet.
fn objects_to_read(classifier: &LineClassifier, entities: &Entities) -> Vec<String> {
    let mut objects: BTreeSet<String> = BTreeSet::new();
    for entity in entities.values() {
        if let LineKind::Candidate(candidate) = classifier.classify(&entity.line()) {
            objects.extend(candidate.facts.into_iter().map(|f| f.object.id));
        }
    }
    objects
        .into_iter()
        .filter(|id| entity_key(id.as_bytes()).is_some_and(|k| !entities.contains_key(&k)))
        .filter(|id| id.starts_with('Q'))
        .collect()
}

/// The revisions of `objects` (key, id, revision), asked by name in batches,
/// in key order, each key once.
async fn object_versions(
    services: &Services,
    objects: &[String],
    refresh: &mut Refresh,
    stop: &tokio_util::sync::CancellationToken,
) -> Result<Vec<(u64, String, u64)>, LiveError> {
    let mut versions: Vec<(u64, String, u64)> = Vec::new();
    for batch in objects.chunks(REVISION_BATCH) {
        for (id, version) in revisions(services, batch, refresh, stop).await? {
            if let Some(key) = entity_key(id.as_bytes()) {
                versions.push((key, id, version));
            }
        }
    }
    versions.sort();
    versions.dedup_by_key(|v| v.0);
    Ok(versions)
}

/// Each fact of `entities` as it tells one fact from another (subject,
/// relation, object, dates, rank, whether held at the cutoff, when the pair
/// changed): names aside, which come from other lines.
fn fact_keys(classifier: &LineClassifier, entities: &Entities) -> BTreeSet<String> {
    entities
        .values()
        .filter_map(|e| match classifier.classify(&e.line()) {
            LineKind::Candidate(candidate) => Some(candidate.facts),
            _ => None,
        })
        .flatten()
        .map(|f| {
            format!(
                "{} {} {} {:?} {:?} {:?} {:?} {} {} {:?}",
                f.subject.id,
                f.relation,
                f.object.id,
                f.start,
                f.end,
                f.replaces,
                f.replaced_by,
                f.rank,
                f.valid_at_cutoff,
                f.pair_changed
            )
        })
        .collect()
}

/// What [`Taking::take`] needs besides what it fills.
struct Taking<'a> {
    services: &'a Services,
    query: &'a FactsQuery,
    last: Option<&'a Entities>,
    stats: &'a Arc<StageStats>,
    stop: &'a tokio_util::sync::CancellationToken,
}

impl Taking<'_> {
    /// Puts each of `wanted` (key, id, revision) into `entities`: from the last
    /// reading when its revision there is at least the wanted one, else read
    /// through the API.
    async fn take(
        &self,
        wanted: &[(u64, String, u64)],
        entities: &mut Entities,
        refresh: &mut Refresh,
    ) -> Result<(), LiveError> {
        let mut to_read = Vec::new();
        for (key, id, version) in wanted {
            match self.last.and_then(|l| l.get(key)) {
                Some(known) if known.revision >= *version && *version > 0 => {
                    entities.insert(*key, known.clone());
                    refresh.unchanged += 1;
                }
                _ => to_read.push(id.clone()),
            }
        }
        for batch in to_read.chunks(MAX_IDS) {
            let languages = &self.query.languages;
            for entity in get_entities(self.services, batch, languages, refresh, self.stop).await? {
                if let Some(key) = entity_key(entity.id.as_bytes()) {
                    entities.insert(key, entity);
                    refresh.changed += 1;
                }
            }
            self.stats.count("entities_read", batch.len() as u64);
        }
        Ok(())
    }
}

/// The entities with a `relation` statement starting in `window`, halving a
/// window whose query runs into the service's time limit.
async fn discover(
    services: &Services,
    relation: &str,
    window: Window,
    refresh: &mut Refresh,
    stop: &tokio_util::sync::CancellationToken,
) -> Result<Vec<(String, u64)>, LiveError> {
    let mut rows = Vec::new();
    let mut windows = vec![window];
    while let Some(window) = windows.pop() {
        let sparql = query::discovery(relation, window);
        let name = format!("the query for {relation} statements starting {window}");
        match ask(services, &name, &sparql, refresh, stop).await? {
            Asked::Rows(found) => rows.extend(found),
            Asked::TimedOut(why) => match window.halves() {
                Some((a, b)) => {
                    tracing::info!(relation, %window, "query over the time limit: asking for each half");
                    windows.push(b);
                    windows.push(a);
                }
                None => {
                    return Err(LiveError::Service {
                        request: name,
                        message: format!("over the service's time limit even for one day: {why}"),
                    })
                }
            },
        }
    }
    Ok(rows)
}

/// The revisions of `ids`, halving a batch whose query runs into the time limit.
async fn revisions(
    services: &Services,
    ids: &[String],
    refresh: &mut Refresh,
    stop: &tokio_util::sync::CancellationToken,
) -> Result<Vec<(String, u64)>, LiveError> {
    let name = format!("the revisions of {} entities from {}", ids.len(), ids[0]);
    match ask(services, &name, &query::revisions(ids), refresh, stop).await? {
        Asked::Rows(rows) => Ok(rows),
        Asked::TimedOut(why) if ids.len() < 2 => Err(LiveError::Service {
            request: name,
            message: why,
        }),
        Asked::TimedOut(_) => {
            let (a, b) = ids.split_at(ids.len() / 2);
            let mut rows = Box::pin(revisions(services, a, refresh, stop)).await?;
            rows.extend(Box::pin(revisions(services, b, refresh, stop)).await?);
            Ok(rows)
        }
    }
}

enum Asked {
    Rows(Vec<(String, u64)>),
    /// The service's time limit (HTTP 500 naming a timeout, or an answer cut in
    /// the middle of its JSON, which is how a timeout ends a streamed answer).
    TimedOut(String),
}

async fn ask(
    services: &Services,
    name: &str,
    sparql: &str,
    refresh: &mut Refresh,
    stop: &tokio_util::sync::CancellationToken,
) -> Result<Asked, LiveError> {
    if stop.is_cancelled() {
        return Err(LiveError::Cancelled);
    }
    refresh.queries += 1;
    let answer = services
        .query
        .post_form(
            &services.query_endpoint,
            &[("query", sparql), ("format", "json")],
            MAX_ANSWER,
        )
        .await
        .map_err(|e| http_error(name, e))?;
    let body = String::from_utf8_lossy(&answer.body);
    match answer.status {
        200 => match query::parse_rows(name, &answer.body) {
            Ok(rows) => Ok(Asked::Rows(rows)),
            Err(LiveError::Answer { byte, .. })
                if byte as usize >= answer.body.len().saturating_sub(1)
                    && !answer.body.is_empty() =>
            {
                Ok(Asked::TimedOut(format!(
                    "the answer ends at byte {byte}, in the middle of its JSON"
                )))
            }
            Err(e) => Err(e),
        },
        500 if body.contains("TimeoutException") => {
            Ok(Asked::TimedOut("HTTP 500, TimeoutException".into()))
        }
        status => Err(LiveError::Service {
            request: name.to_string(),
            message: format!("HTTP {status}: {}", first_line(&body)),
        }),
    }
}

async fn get_entities(
    services: &Services,
    ids: &[String],
    languages: &[String],
    refresh: &mut Refresh,
    stop: &tokio_util::sync::CancellationToken,
) -> Result<Vec<ReadEntity>, LiveError> {
    let url = api::request(&services.api_endpoint, ids, languages, services.maxlag);
    let name = format!("wbgetentities of {} ids from {}", ids.len(), ids[0]);
    let mut waits = 0;
    loop {
        if stop.is_cancelled() {
            return Err(LiveError::Cancelled);
        }
        refresh.reads += 1;
        let answer = services
            .api
            .get(&url, MAX_ANSWER)
            .await
            .map_err(|e| http_error(&name, e))?;
        if answer.status != 200 {
            return Err(LiveError::Service {
                request: name,
                message: format!(
                    "HTTP {}: {}",
                    answer.status,
                    first_line(&String::from_utf8_lossy(&answer.body))
                ),
            });
        }
        let retry_after = answer
            .header("retry-after")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        match api::parse(&name, &answer.body, retry_after)? {
            api::Read::Entities(read) => return Ok(read),
            api::Read::Lagged(pause) => {
                waits += 1;
                refresh.lag_pauses += 1;
                if waits > services.max_lag_waits {
                    return Err(LiveError::Service {
                        request: name,
                        message: format!("the database replicas lagged more than maxlag={}s {waits} times in a row", services.maxlag),
                    });
                }
                let pause = pause.max(Duration::from_secs(1));
                tracing::info!(
                    pause_s = pause.as_secs(),
                    "Wikidata's replicas lag (maxlag): pausing"
                );
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = stop.cancelled() => return Err(LiveError::Cancelled),
                }
            }
        }
    }
}

fn http_error(request: &str, e: GetError) -> LiveError {
    match e {
        GetError::TooLarge => LiveError::Service {
            request: request.to_string(),
            message: format!("the answer is larger than {MAX_ANSWER} bytes"),
        },
        GetError::Failed(e) => LiveError::Http(e),
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(200)
        .collect()
}
