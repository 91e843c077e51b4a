//! `wayback-feeds`: article captures found through archived feeds and news
//! sitemaps (source; `out: capture`), and the feed items themselves (`items:
//! article`, articles without a document: what the feeds say of each article
//! before it is fetched, for `prefetch`).

use std::path::PathBuf;

use crate::archive;
use async_trait::async_trait;
use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    parse_options, DescribeContext, Estimate, OptionError, Peers, PipelineContext, Port, Query,
    Requests, Stage, StageConfig, StageError, StageIo, StagePlan,
};
use tempora_records::{Article, Record, RecordKind, SummarySource};
use tempora_wayback_format::timestamp;

use super::describe::{
    cdx_rate, days_of, hours_at, options_of, playback_rate, politeness, window,
    ASSUMED_ARTICLES_PER_FEED_DAY,
};
use super::options::{ArchiveOptions, ArchiveSetting};
use super::windows::{listing_windows, uncovered_sets, Span};
use crate::discover::{DiscoveryConfig, FeedDiscovery, Lookup, StoredItem};
use crate::fetch::FetchConfig;
use tempora_engine::WrittenDuration;

/// The port of the feed items.
pub const ITEMS: &str = "items";

/// Options of `wayback-feeds`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct FeedsOptions {
    /// Feed or news-sitemap URLs, e.g. `feeds.bbci.co.uk/news/rss.xml`, `edition.cnn.com/sitemaps/news.xml`.
    pub feeds: Vec<String>,
    /// Earliest feed capture day. With neither `from` nor `to`, the feeds are read
    /// over the pipeline's sets (`[pipeline.sets]`), not the gaps between them; a
    /// window set by hand must cover every set.
    #[serde(default)]
    pub from: Option<NaiveDate>,
    /// Latest feed capture day (see `from`).
    #[serde(default)]
    pub to: Option<NaiveDate>,
    /// CDX collapse of feed captures: `timestamp:8` reads one capture a day, `timestamp:10` one an hour (busy feeds).
    #[serde(default = "default_feed_collapse")]
    #[schemars(default = "default_feed_collapse")]
    pub feed_collapse: Vec<String>,
    /// How each article's capture is found: `cdx` (one CDX request per article), `redirect` (none; the fetcher follows the Archive's redirect) or `none` (no capture: only the feed items, on the `items` port).
    #[serde(default)]
    pub lookup: Lookup,
    /// Look for an article's first capture up to this long after its publication.
    #[serde(default = "default_within")]
    #[schemars(default = "default_within")]
    pub lookup_within: WrittenDuration,
    /// SQLite crawl state (feed captures read, articles found): an incremental
    /// run continues from it; any other discovers again each run.
    #[serde(default)]
    pub state: Option<PathBuf>,
    /// Read only feed captures newer than the last completed listing (needs `state`).
    #[serde(default)]
    pub incremental: bool,
    /// Largest feed accepted, in bytes.
    #[serde(default = "default_max_body")]
    #[schemars(default = "default_max_body")]
    pub max_body_bytes: u64,
    /// The Wayback Machine and its politeness: a table, or the name of the wayback
    /// stage whose table this one shares (`archive = "captures"`); see `wayback-cdx`.
    /// Feed captures count against the playback pool, article lookups against CDX.
    #[serde(default)]
    #[schemars(with = "Option<ArchiveOptions>")]
    pub archive: ArchiveSetting,
    /// The feed capture windows listed: `from`/`to` when given, else the pipeline's sets.
    #[serde(skip)]
    pub windows: Vec<Span>,
}

fn default_feed_collapse() -> Vec<String> {
    vec!["timestamp:8".into()]
}
fn default_within() -> WrittenDuration {
    WrittenDuration::days(30)
}
const fn default_max_body() -> u64 {
    16 * 1024 * 1024
}

/// Parses the options of `wayback-feeds`.
///
/// # Errors
/// Unknown, missing or mistyped options.
pub fn configure(
    table: toml::Table,
    ctx: &PipelineContext,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    let mut options = parse_options::<FeedsOptions>(table)?;
    options.windows = listing_windows(options.from, options.to, ctx);
    Ok(Box::new(options))
}

impl FeedsOptions {
    fn problems(&self) -> Vec<OptionError> {
        let mut out = Vec::new();
        if self.feeds.is_empty() {
            out.push(OptionError::at(
                "feeds",
                "give at least one feed or sitemap URL".into(),
            ));
        }
        if let (Some(from), Some(to)) = (self.from, self.to) {
            if from > to {
                out.push(OptionError::at(
                    "from",
                    format!("`from` ({from}) is after `to` ({to})"),
                ));
            }
        }
        if self.incremental && self.state.is_none() {
            out.push(OptionError::at("incremental", "needs `state`".into()));
        }
        out.extend(self.archive.problems());
        out
    }
}

#[async_trait(?Send)]
impl StageConfig for FeedsOptions {
    fn outputs(&self) -> Vec<Port> {
        vec![
            Port::out(RecordKind::Capture),
            Port::named(ITEMS, RecordKind::Article),
        ]
    }

    fn check(&self, ctx: &PipelineContext) -> Vec<OptionError> {
        let mut problems = self.problems();
        problems.extend(uncovered_sets(self.from, self.to, ctx));
        problems
    }

    fn shared(&self) -> Option<&dyn std::any::Any> {
        Some(&self.archive)
    }

    fn link(&mut self, peers: &Peers<'_>) -> Vec<OptionError> {
        self.archive.link(peers)
    }

    async fn describe(&self, ctx: &DescribeContext<'_>) -> StagePlan {
        plan(self, ctx)
    }

    fn operational(&self) -> &'static [&'static str] {
        &["archive", "state"]
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        if let Some(problem) = self.problems().into_iter().next() {
            return Err(StageError::input(problem.message));
        }
        Ok(Box::new(FeedsStage {
            options: self.clone(),
            keeps_history: (ctx.mode == tempora_engine::RunMode::Incremental),
        }))
    }
}

struct FeedsStage {
    options: FeedsOptions,
    /// The discovery's history (feed captures read, articles found) decides
    /// what a run hands on: only an incremental pipeline, whose outputs hold what
    /// earlier nights found, keeps it in the state file. Any other discovers
    /// again from the Archive each run (in a private state), so its sets do not
    /// depend on the runs before; its pages still come from the crawl state.
    keeps_history: bool,
}

#[async_trait]
impl Stage for FeedsStage {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let o = self.options;
        let options = o.archive.options()?;
        let archive = options.archive(o.state.as_deref())?;
        let limits = FetchConfig {
            max_body: o.max_body_bytes,
            ..FetchConfig::default()
        };
        let within = o.lookup_within.get().as_secs();
        let mut discovery = FeedDiscovery::new(
            archive
                .cdx(options.cdx_rate)?
                .counting(io.stats().clone(), archive::CDX),
            archive
                .fetcher(options.playback_rate, limits)?
                .counting(io.stats().clone(), archive::FEED),
            if self.keeps_history {
                archive.state()?
            } else {
                crate::state::State::in_memory()?
            },
            DiscoveryConfig {
                feeds: o.feeds.clone(),
                windows: o
                    .windows
                    .iter()
                    .map(|(from, to)| (from.map(timestamp::day_start), to.map(timestamp::day_end)))
                    .collect(),
                feed_collapse: o.feed_collapse.clone(),
                lookup: o.lookup,
                lookup_within: i64::try_from(within).unwrap_or(i64::MAX),
                incremental: o.incremental,
                source: io.name().to_string(),
            },
        );
        let port = io.port(Port::DEFAULT)?;
        loop {
            let step = tokio::select! {
                biased;
                () = io.shutdown().cancelled() => break,
                step = discovery.next() => step?,
            };
            let Some(found) = step else { break };
            let stats = io.stats().clone();
            stats.count("feed_captures_read", found.feeds_fetched);
            stats.count("articles", found.articles);
            for (record, reason, location) in found.rejected {
                io.reject(record, reason, Some(location)).await?;
            }
            for capture in found.captures {
                io.emit(port, Record::Capture(Box::new(capture))).await?;
            }
            io.flush().await?;
        }
        if !io.shutdown().is_cancelled() {
            let items = io.port(ITEMS)?;
            let stored = discovery.items().await?;
            io.stats().count("feed_items", stored.len() as u64);
            for item in stored {
                io.emit(items, Record::Article(Box::new(item_article(item))))
                    .await?;
            }
        }
        io.flush().await
    }
}

/// A feed item as an article without a document: URL, title, publication day,
/// and the description as its summary (`summary_source = "description"`);
/// `captured` is the feed capture that listed it. Site and id are left empty:
/// the site profiles tell them from the URL.
fn item_article(item: StoredItem) -> Article {
    let at = timestamp::parse(&item.published);
    Article {
        id: String::new(),
        url: item.url,
        source: String::new(),
        section: String::new(),
        published: at.map(|t| t.date()).unwrap_or_default(),
        published_at: at.map(|t| t.and_utc()),
        published_source: at.map(|_| tempora_records::PublishedSource::Feed),
        captured: Some(item.feed_timestamp),
        title: item.title.unwrap_or_default(),
        summary: item.description,
        summary_source: Some(SummarySource::Description),
        document: String::new(),
        dateline: None,
        facts: Vec::new(),
        relations: Vec::new(),
        split: None,
        novelty: None,
        archived_url: None,
        digest: None,
        payload_sha1: None,
    }
}

/// `wayback-feeds`: the feed listings, the feed fetches and the article lookups.
fn plan(o: &FeedsOptions, _ctx: &DescribeContext<'_>) -> StagePlan {
    let archive = options_of(&o.archive);
    let days = days_of(&o.windows);
    let per_day = feed_captures_a_day(&o.feed_collapse);
    let feed_fetches = days * per_day * o.feeds.len() as u64;
    let articles = days * ASSUMED_ARTICLES_PER_FEED_DAY * o.feeds.len() as u64;
    let lookups = match o.lookup {
        Lookup::Cdx => articles,
        Lookup::Redirect | Lookup::None => 0,
    };
    let cdx = (o.feeds.len() * o.windows.len()) as u64 + lookups;
    let queries = o
        .windows
        .iter()
        .flat_map(|w| o.feeds.iter().map(move |feed| (*w, feed)))
        .map(|((from, to), feed)| Query {
            what: format!("CDX {feed}"),
            settings: vec![
                ("window".into(), window(from, to)),
                ("collapse".into(), o.feed_collapse.join(", ")),
                (
                    "articles found by".into(),
                    match o.lookup {
                        Lookup::Cdx => format!("one CDX lookup each, within {}", o.lookup_within),
                        Lookup::Redirect => "the Archive's redirect (no CDX request)".into(),
                        Lookup::None => "not looked up: feed items only (the `items` port)".into(),
                    },
                ),
            ],
        })
        .collect();
    StagePlan {
        queries,
        politeness: politeness(
            &o.archive,
            &[
                ("CDX rate", cdx_rate(archive.cdx_rate)),
                ("feed rate", playback_rate(archive.playback_rate)),
            ],
        ),
        estimate: Some(Estimate {
            requests: {
                let mut r = Requests::of(archive::CDX, cdx);
                r.add(archive::FEED, feed_fetches);
                r
            },
            records_out: Some(articles),
            records_name: "captures".into(),
            hours: hours_at(cdx, archive.cdx_rate) + hours_at(feed_fetches, archive.playback_rate),
            basis: vec![
                format!(
                    "{per_day} feed capture{} a day per feed (collapse {}) over {days} days",
                    if per_day == 1 { "" } else { "s" },
                    o.feed_collapse.join(", ")
                ),
                format!("assumed {ASSUMED_ARTICLES_PER_FEED_DAY} new articles a day per feed"),
            ],
        }),
    }
}

/// Feed captures a day that `collapse = ["timestamp:N"]` lets through.
fn feed_captures_a_day(collapse: &[String]) -> u64 {
    let digits = collapse
        .iter()
        .find_map(|c| c.strip_prefix("timestamp:")?.parse::<u32>().ok());
    match digits {
        Some(n) if n <= 8 => 1,
        Some(9) => 10,
        Some(10) => 24,
        Some(11) => 144,
        Some(12) => 1440,
        // Uncollapsed or finer: a busy feed is captured about hourly.
        _ => 24,
    }
}
