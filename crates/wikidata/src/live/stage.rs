//! The `wikidata-live` stage: the evolving facts from a reading of Wikidata's
//! live services, pinned in a file that reruns read instead of the services.
//!
//! A run reads the services when there is no reading yet, when the reading was
//! made for other relations, languages or cutoff, or when it is older than
//! `refresh_after`; otherwise it reads the pinned file only. A refresh whose
//! services cannot be read ends with the facts of the last reading and a
//! warning (the run completes with problems), never with no facts.

use std::path::PathBuf;

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{NaiveDate, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    parse_options, DescribeContext, Estimate, OnError, OptionError, PipelineContext, Port, Query,
    RequestKind, Requests, Stage, StageConfig, StageError, StageIo, StagePlan, StageStats,
    WrittenDuration,
};
use tempora_http::{user_agent, Client, Politeness, RequestClass};
use tempora_records::RecordKind;
use tokio_util::sync::CancellationToken;

use super::reading::{self, ReadingMeta};
use super::{LiveError, Services};
use crate::dump::FactsQuery;
use crate::relations::AskedFacts;
use crate::stage::{default_languages, default_relations, emit, read_dump};

/// Queries to the Wikidata Query Service (`run.json`'s cost).
pub const QUERY: RequestKind = RequestKind {
    key: "wikidata_query",
    label: "Wikidata query",
    per_kept_article: false,
};

/// Reads of the Wikibase API (`wbgetentities`, 50 entities each).
pub const API: RequestKind = RequestKind {
    key: "wikidata_api",
    label: "Wikidata API",
    per_kept_article: false,
};

fn default_query_endpoint() -> String {
    "https://query.wikidata.org/sparql".into()
}
fn default_api_endpoint() -> String {
    "https://www.wikidata.org/w/api.php".into()
}
fn default_query_rate() -> f64 {
    tempora_http::politeness::WIKIDATA_QUERY_RATE
}
fn default_api_rate() -> f64 {
    tempora_http::politeness::WIKIDATA_API_RATE
}
fn default_maxlag() -> u32 {
    5
}

/// Options of the `wikidata-live` stage.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct LiveOptions {
    /// The pinned reading: every entity read, in a gzip file of the dump's line
    /// format (`state/wikidata.json.gz`), with a `.meta.json` beside it (when,
    /// from where, SHA-256). Reruns read it instead of the services.
    pub reading: PathBuf,
    /// Your contact (an email address or a URL), sent in the `User-Agent` as
    /// Wikimedia's User-Agent policy requires of every client.
    #[serde(default)]
    pub contact: Option<String>,
    /// A whole `User-Agent` instead of ours with `contact`.
    #[serde(default)]
    pub user_agent: Option<String>,
    /// Read the services again when the reading is older than this (`20h`): a
    /// nightly pipeline's setting. Unset: a reading, once made, is used as it
    /// is, and a rerun gives the same facts.
    #[serde(default)]
    pub refresh_after: Option<WrittenDuration>,
    /// The Wikidata Query Service's SPARQL endpoint.
    #[serde(default = "default_query_endpoint")]
    #[schemars(default = "default_query_endpoint")]
    pub query_endpoint: String,
    /// The Wikibase API's endpoint.
    #[serde(default = "default_api_endpoint")]
    #[schemars(default = "default_api_endpoint")]
    pub api_endpoint: String,
    /// Queries a minute, sent one at a time.
    #[serde(default = "default_query_rate")]
    #[schemars(default = "default_query_rate")]
    pub query_rate: f64,
    /// API reads a minute (50 entities each), sent one at a time.
    #[serde(default = "default_api_rate")]
    #[schemars(default = "default_api_rate")]
    pub api_rate: f64,
    /// The API's `maxlag`, seconds: while the database replicas lag more, the API
    /// asks us to pause, and we do.
    #[serde(default = "default_maxlag")]
    #[schemars(default = "default_maxlag")]
    pub maxlag: u32,
    /// Relations whose statements make evolving pairs: property ids (`P39`,
    /// position held; `P1308`, officeholder) or the relation catalogue's names
    /// (`member-of-sports-team`, `head-coach`, ...). A name the catalogue lacks
    /// is refused.
    #[serde(default = "default_relations")]
    #[schemars(default = "default_relations")]
    pub relations: Vec<String>,
    /// A folder of more relation catalogue entries (`*.toml`, the format of
    /// `config/relations/`), whose names `relations` may use beside the shipped ones.
    #[serde(default)]
    pub catalogue: Option<PathBuf>,
    /// Languages of labels and aliases, in order of preference.
    #[serde(default = "default_languages")]
    #[schemars(default = "default_languages")]
    pub languages: Vec<String>,
    /// Knowledge cutoff for the evolving rule; defaults to `pipeline.cutoff`.
    #[serde(default)]
    pub cutoff: Option<NaiveDate>,
    /// A malformed entity in the reading: `skip` rejects it, `fail` stops the run.
    #[serde(default)]
    pub on_error: OnError,
}

/// The `wikidata-live` stage, configured.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    options: LiveOptions,
    query: FactsQuery,
    user_agent: String,
}

impl LiveConfig {
    /// Parses the options.
    ///
    /// # Errors
    /// Every problem with the options, each naming its key.
    pub fn configure(table: toml::Table, ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        Self::new(parse_options(table)?, ctx.cutoff)
    }

    /// The stage of `options`, its cutoff `cutoff` unless the options give one.
    ///
    /// # Errors
    /// Every problem with the options, each naming its key.
    pub fn new(options: LiveOptions, cutoff: NaiveDate) -> Result<Self, Vec<OptionError>> {
        let (query, mut errors) = AskedFacts {
            relations: &options.relations,
            catalogue: options.catalogue.as_deref(),
            languages: &options.languages,
            cutoff: options.cutoff.unwrap_or(cutoff),
            on_error: options.on_error,
        }
        .query();
        if options.contact.is_none() && options.user_agent.is_none() {
            errors.push(OptionError::at(
                "contact",
                "set `contact` (an email address or URL): Wikimedia's User-Agent policy requires \
                 every client to say who runs it"
                    .into(),
            ));
        }
        for (key, rate) in [
            ("query_rate", options.query_rate),
            ("api_rate", options.api_rate),
        ] {
            if !(rate > 0.0 && rate.is_finite()) {
                errors.push(OptionError::at(
                    key,
                    format!("must be more than 0 a minute, not {rate}"),
                ));
            }
        }
        for (key, endpoint) in [
            ("query_endpoint", &options.query_endpoint),
            ("api_endpoint", &options.api_endpoint),
        ] {
            if !(endpoint.starts_with("https://") || endpoint.starts_with("http://")) {
                errors.push(OptionError::at(
                    key,
                    format!("`{endpoint}` is not an http(s) URL"),
                ));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let user_agent = user_agent(options.contact.as_deref(), options.user_agent.as_deref());
        Ok(Self {
            options,
            query,
            user_agent,
        })
    }

    fn services(&self, stats: &Arc<StageStats>) -> Result<Services, LiveError> {
        let client = |endpoint: &str, class, rate: f64, kind| -> Result<Client, LiveError> {
            let politeness = Politeness::default_for(class).at_rate(rate)?;
            Ok(Client::new(endpoint, &self.user_agent, class, politeness)?
                .counting(stats.clone(), kind))
        };
        let o = &self.options;
        Ok(Services {
            query: client(&o.query_endpoint, RequestClass::Query, o.query_rate, QUERY)?
                .accepting("application/sparql-results+json")
                .answering(&[500]),
            query_endpoint: o.query_endpoint.clone(),
            api: client(&o.api_endpoint, RequestClass::Api, o.api_rate, API)?,
            api_endpoint: o.api_endpoint.clone(),
            maxlag: o.maxlag,
            max_lag_waits: 20,
        })
    }

    /// The query the facts answer.
    pub fn query(&self) -> &FactsQuery {
        &self.query
    }

    /// The pinned reading's path.
    pub fn reading(&self) -> &std::path::Path {
        &self.options.reading
    }

    /// Whether a reading made with `meta` answers this stage's query.
    fn answers(&self, meta: &ReadingMeta) -> bool {
        meta.relations == self.query.relations
            && meta.languages == self.query.languages
            && meta.cutoff == self.query.cutoff
    }
}

#[async_trait(?Send)]
impl StageConfig for LiveConfig {
    fn gives_fields(&self) -> &'static [&'static str] {
        &["relation"]
    }

    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Fact)]
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        self.options
            .catalogue
            .iter()
            .map(|c| ("catalogue".into(), c.clone()))
            .collect()
    }

    fn operational(&self) -> &'static [&'static str] {
        &[
            "contact",
            "user_agent",
            "query_rate",
            "api_rate",
            "maxlag",
            "refresh_after",
        ]
    }

    async fn describe(&self, _ctx: &DescribeContext<'_>) -> StagePlan {
        describe(self)
    }

    fn build(&self, _ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(LiveStage {
            config: self.clone(),
        }))
    }
}

struct LiveStage {
    config: LiveConfig,
}

#[async_trait]
impl Stage for LiveStage {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let config = self.config;
        let stop = io.shutdown().clone();
        let Some(pinned) = config.pinned_reading(io.stats(), &stop, false).await? else {
            return Ok(()); // Stopped.
        };
        if let Some(said) = &pinned.problem {
            io.stats().warn(said);
        }
        let meta = &pinned.meta;
        io.stats().set_metric(
            "reading",
            serde_json::json!({
                "read_at": meta.read_at,
                "entities": meta.entities,
                "sha256": meta.sha256,
                "refreshed": pinned.refreshed,
            }),
        );
        if let Some(refresh) = &pinned.refresh {
            io.stats().set_metric(
                super::Refresh::METRIC,
                serde_json::to_value(refresh).unwrap_or_default(),
            );
        }
        let path = config.options.reading.clone();
        io.stats().pin("reading", &path);
        let read = read_dump(
            &config.query,
            path.display().to_string(),
            "reading",
            &mut io,
        )
        .await?;
        match read {
            Some(read) => emit(read.facts, &mut io).await,
            None => Ok(()),
        }
    }
}

/// The reading a run reads its facts from, pinned.
#[derive(Debug)]
pub struct Pinned {
    /// The reading's sidecar.
    pub meta: ReadingMeta,
    /// Whether the services were read now.
    pub refreshed: bool,
    /// What the reading did, when it read the services.
    pub refresh: Option<super::Refresh>,
    /// Why the facts are those of the last reading though a refresh was due
    /// (the services could not be read), or why the pinned reading was set
    /// aside: the run completes with problems.
    pub problem: Option<String>,
}

impl LiveConfig {
    /// The reading to read the facts from: the pinned one, or a new one read
    /// from the services when there is none, when it answers another query, when
    /// it is older than `refresh_after`, or `always`. A refresh that fails
    /// falls back on the pinned reading, said in [`Pinned::problem`]; `None` when
    /// stopped.
    ///
    /// # Errors
    /// The services cannot be read and there is no reading for this query to
    /// fall back on (a temporary error when a service asks us to wait).
    pub async fn pinned_reading(
        &self,
        stats: &Arc<StageStats>,
        stop: &CancellationToken,
        always: bool,
    ) -> Result<Option<Pinned>, StageError> {
        // A run that reads the pin checks its SHA-256 and parses no line; the
        // entities are read only for a refresh, which takes the unchanged ones.
        let path = self.options.reading.clone();
        let checked = tokio::task::spawn_blocking(move || reading::checked(&path))
            .await
            .map_err(|e| StageError::internal(e.to_string()))?;
        let (pinned, mut problem) = match checked {
            Ok(pinned) => (pinned, None),
            Err(e) => (None, Some(set_aside(&e))),
        };
        let usable = pinned.as_ref().filter(|(meta, _)| self.answers(meta));
        if let (false, Some((meta, _))) = (self.due(usable.map(|(m, _)| m), always), usable) {
            tracing::info!(read_at = %meta.read_at, "using the pinned reading of Wikidata");
            return Ok(Some(Pinned {
                meta: meta.clone(),
                refreshed: false,
                refresh: None,
                problem,
            }));
        }
        let last = match pinned {
            Some((meta, bytes)) => self.parsed(meta, bytes, &mut problem).await?,
            None => None,
        };
        match self.refresh(last.as_ref(), stats, stop).await {
            Ok(Some((meta, refresh))) => Ok(Some(Pinned {
                meta,
                refreshed: true,
                refresh: Some(refresh),
                problem,
            })),
            Ok(None) => Ok(None),
            Err(e) => {
                let usable = last.as_ref().map(|(meta, _)| meta);
                self.fall_back(e, usable.filter(|meta| self.answers(meta)))
                    .map(Some)
            }
        }
    }

    /// Whether the services are to be read: no reading answers this query
    /// (`usable` is `None`), a refresh is asked for (`always`), or the reading is
    /// older than `refresh_after`.
    fn due(&self, usable: Option<&ReadingMeta>, always: bool) -> bool {
        match usable {
            None => true,
            Some(_) if always => true,
            Some(meta) => self.options.refresh_after.as_ref().is_some_and(|after| {
                (Utc::now() - meta.read_at)
                    .to_std()
                    .is_ok_and(|age| age >= after.get())
            }),
        }
    }

    /// The entities of the pinned reading (`bytes`, made with `meta`), for a
    /// refresh to take the unchanged ones from; `None`, said in `problem`, when
    /// they cannot be parsed.
    async fn parsed(
        &self,
        meta: ReadingMeta,
        bytes: Vec<u8>,
        problem: &mut Option<String>,
    ) -> Result<Option<(ReadingMeta, reading::Entities)>, StageError> {
        let path = self.options.reading.clone();
        let parsed = tokio::task::spawn_blocking(move || reading::entities_of(&path, &bytes))
            .await
            .map_err(|e| StageError::internal(e.to_string()))?;
        Ok(match parsed {
            Ok(entities) => Some((meta, entities)),
            Err(e) => {
                *problem = Some(set_aside(&e));
                None
            }
        })
    }

    /// After a refresh failed with `e`: the pinned reading `usable` (one that
    /// answers this query), said as a problem, or an error when there is none (a
    /// temporary one when a service asks us to wait).
    fn fall_back(&self, e: LiveError, usable: Option<&ReadingMeta>) -> Result<Pinned, StageError> {
        let Some(meta) = usable else {
            let message = format!(
                "Wikidata's services could not be read, and there is no earlier reading for \
                 this query to use: {e}"
            );
            return Err(if e.asks_to_wait() {
                StageError::temporary(message)
            } else {
                StageError::external(message)
            });
        };
        let said = format!(
            "Wikidata's services could not be read ({e}): the facts are those of the reading of {}",
            meta.read_at.format("%Y-%m-%d %H:%M UTC")
        );
        tracing::warn!("{said}");
        Ok(Pinned {
            meta: meta.clone(),
            refreshed: false,
            refresh: None,
            problem: Some(said),
        })
    }

    /// Reads the services and pins the reading; `None` when stopped.
    async fn refresh(
        &self,
        last: Option<&(ReadingMeta, reading::Entities)>,
        stats: &Arc<StageStats>,
        stop: &CancellationToken,
    ) -> Result<Option<(ReadingMeta, super::Refresh)>, LiveError> {
        let services = self.services(stats)?;
        // Lines read in other languages cannot stand for these.
        let reusable = last
            .filter(|(meta, _)| meta.languages == self.query.languages)
            .map(|(_, entities)| entities);
        let today = Utc::now().date_naive();
        let (entities, refresh) =
            match super::read(&services, &self.query, today, reusable, stats, stop).await {
                Ok(read) => read,
                Err(LiveError::Cancelled) => return Ok(None),
                Err(e) => return Err(e),
            };
        tracing::info!(
            found = refresh.found,
            objects = refresh.objects,
            changed = refresh.changed,
            unchanged = refresh.unchanged,
            dropped = refresh.dropped,
            facts_changed = refresh.facts_changed,
            "read Wikidata's services"
        );
        let meta = ReadingMeta {
            read_at: Utc::now(),
            query_endpoint: self.options.query_endpoint.clone(),
            api_endpoint: self.options.api_endpoint.clone(),
            cutoff: self.query.cutoff,
            relations: self.query.relations.clone(),
            languages: self.query.languages.clone(),
            entities: 0,
            sha256: String::new(),
        };
        let path = self.options.reading.clone();
        let meta = tokio::task::spawn_blocking(move || reading::store(&path, &entities, meta))
            .await
            .map_err(|e| LiveError::Reading {
                path: self.options.reading.display().to_string(),
                message: e.to_string(),
            })??;
        Ok(Some((meta, refresh)))
    }
}

/// The pinned reading cannot be used (`e`): logged, and said as the run's
/// problem.
fn set_aside(e: &LiveError) -> String {
    tracing::warn!(error = %e, "the pinned reading cannot be used: reading the services anew");
    format!("{e}: the services were read anew")
}

/// Entities a first reading is assumed to find per relation and year of
/// starts, for the dry run (a refresh knows its last reading's count). An
/// assumption, said as one: about 915,000 items hold a position (`P39`), and
/// a few percent of their statements start in any one recent year; the
/// testkit's model of `P54` at real proportions (629,000 players, 1.7 million
/// statements) finds 19,600 a year once scaled to the real count of players.
pub const ASSUMED_ENTITIES_PER_RELATION_YEAR: u64 = 20_000;

/// The objects of the facts (clubs, positions) a reading reads for their
/// names, per entity found: 0.28 in the testkit's model of `P54` (7,900 clubs
/// for 28,595 players found; 48,773 clubs for some 176,000 players in the
/// real dump). Their revisions are asked by name, 400 a query, at every reading.
pub const ASSUMED_OBJECTS_SHARE: f64 = 0.28;

/// The share of entities read again by a refresh, for the dry run: those edited
/// since the last reading.
pub const ASSUMED_CHANGED_SHARE: f64 = 0.05;

/// The API reads and the revision queries a reading is expected to send, and
/// what the figures rest on: a first reading reads what the discovery finds
/// and its objects; a refresh reads the entities changed since the last
/// reading, and asks the revisions of all its objects again.
fn expected_reads(last: Option<&ReadingMeta>, discovery: u64) -> (u64, u64, String) {
    let (read, objects, basis) = match last {
        Some(meta) => {
            let entities = meta.entities as f64;
            let objects = entities * ASSUMED_OBJECTS_SHARE / (1.0 + ASSUMED_OBJECTS_SHARE);
            (
                (entities * ASSUMED_CHANGED_SHARE).ceil() as u64,
                objects.ceil() as u64,
                format!(
                    "the reading of {} holds {} entities; a refresh reads those changed since (assumed {:.0}%) and new ones, and asks the revisions of its objects again (assumed {:.2} for each entity found)",
                    meta.read_at.format("%Y-%m-%d %H:%M UTC"),
                    meta.entities,
                    ASSUMED_CHANGED_SHARE * 100.0,
                    ASSUMED_OBJECTS_SHARE
                ),
            )
        }
        None => {
            let found = ASSUMED_ENTITIES_PER_RELATION_YEAR * discovery;
            let objects = (found as f64 * ASSUMED_OBJECTS_SHARE).ceil() as u64;
            (
                found + objects,
                objects,
                format!(
                    "no reading yet: assumed {ASSUMED_ENTITIES_PER_RELATION_YEAR} entities found per relation and year of starts, and {ASSUMED_OBJECTS_SHARE:.2} objects for each"
                ),
            )
        }
    };
    (
        read.div_ceil(super::api::MAX_IDS as u64),
        objects.div_ceil(super::REVISION_BATCH as u64),
        basis,
    )
}

/// What the dry run says: the queries, the entity reads and the time they take
/// at the configured rates.
fn describe(config: &LiveConfig) -> StagePlan {
    let o = &config.options;
    let today = Utc::now().date_naive();
    let windows = super::query::Window::years(config.query.cutoff, today);
    let mut queries = Vec::new();
    for relation in &config.query.relations {
        queries.push(Query {
            what: format!(
                "Wikidata query: entities with a {relation} statement starting from {}",
                windows[0].from
            ),
            settings: vec![
                ("endpoint".into(), o.query_endpoint.clone()),
                (
                    "queries".into(),
                    format!(
                        "{} (one a year, halved when over the time limit)",
                        windows.len()
                    ),
                ),
            ],
        });
    }
    let discovery = (config.query.relations.len() * windows.len()) as u64;
    let last = reading::meta(&o.reading);
    let (reads, revision_queries, said) = expected_reads(last.as_ref(), discovery);
    let mut basis = vec![said];
    let query_count = discovery + revision_queries;
    if last.is_some() && o.refresh_after.is_none() {
        basis.insert(0, "the reading is used as it is (no `refresh_after`): no request unless the query changed".into());
    }
    let mut requests = Requests::of(QUERY, query_count);
    requests.add(API, reads);
    let minutes = query_count as f64 / o.query_rate + reads as f64 / o.api_rate;
    StagePlan {
        queries,
        politeness: vec![
            (
                "query rate".into(),
                format!("{} a minute, one at a time", o.query_rate),
            ),
            (
                "API rate".into(),
                format!(
                    "{} a minute, 50 entities each, maxlag {}s",
                    o.api_rate, o.maxlag
                ),
            ),
            ("User-Agent".into(), config.user_agent.clone()),
        ],
        estimate: Some(Estimate {
            requests,
            records_out: None,
            records_name: "facts".into(),
            hours: minutes / 60.0,
            basis,
        }),
    }
}

/// The facts stage's kind.
pub fn kind() -> tempora_engine::StageKind {
    tempora_engine::StageKind {
        name: "wikidata-live",
        about: "Reads the evolving facts of its relations (P39 position held and P1308 officeholder unless it names others: property ids or the relation catalogue's names) around the cutoff from Wikidata's live services (query service and API), pinned in a reading file that reruns read.",
        role: tempora_engine::Role::Source,
        accepts: &[],
        emits: "out: fact",
        requests: &[QUERY, API],
        in_rebuild: tempora_engine::InRebuild::ReadsFacts,
        incremental_option: None,
        options: || schemars::schema_for!(LiveOptions),
        configure: |table, ctx| {
            LiveConfig::configure(table, ctx).map(|c| Box::new(c) as Box<dyn StageConfig>)
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dry_run_expects_the_objects_revisions_at_every_reading() {
        // A first reading of one relation over 9 years of starts: what the
        // discovery finds and its objects are read, only the objects' revisions
        // are asked by name (the discovery gives the others').
        let (reads, revisions, basis) = expected_reads(None, 9);
        let found = 9 * ASSUMED_ENTITIES_PER_RELATION_YEAR;
        let objects = (found as f64 * ASSUMED_OBJECTS_SHARE).ceil() as u64;
        assert_eq!(reads, (found + objects).div_ceil(50));
        assert_eq!(revisions, objects.div_ceil(400));
        assert!(basis.starts_with("no reading yet"), "{basis}");
        // A refresh of a reading of 36,495 entities (the P54 model's): 5% read
        // again, and the revisions of its 7,984 objects asked again.
        let meta = ReadingMeta {
            read_at: Utc::now(),
            query_endpoint: String::new(),
            api_endpoint: String::new(),
            cutoff: NaiveDate::from_ymd_opt(2019, 12, 31).unwrap(),
            relations: vec!["P54".into()],
            languages: vec!["en".into()],
            entities: 36_495,
            sha256: String::new(),
        };
        let (reads, revisions, _) = expected_reads(Some(&meta), 9);
        assert_eq!((reads, revisions), (37, 20));
    }
}
