//! Discovery from archived feeds and sitemaps: a second way in besides a prefix
//! scan (which lists millions of URLs under `bbc.co.uk/news/`, most of them not
//! articles).
//!
//! The captures of each feed are listed with the CDX (one per day by default,
//! `collapse=timestamp:8`), each feed capture is fetched and parsed (RSS, Atom,
//! news sitemaps; a sitemap index adds its sitemaps, fetched at the index's
//! time), every new article link is kept with its publication time, and one CDX
//! lookup per article finds its first capture at or after publication (within
//! `lookup_within`). `lookup = "redirect"` skips those lookups: the capture is
//! requested at the publication time and the Archive's redirect to the nearest
//! capture is followed by the fetcher (within its `max_redirect_distance`).
//! Everything is recorded in the state, so a rerun resumes and a nightly run
//! only handles feed captures and articles it has not seen.

use chrono::Duration;
use rusqlite::OptionalExtension as _;
use tempora_records::{Capture, Timestamp};
use tempora_wayback_format::timestamp;
use tempora_wayback_format::urlkey::urlkey_of;

use crate::cdx::{CdxClient, CdxPage, CdxQuery, PageAnswer};
use crate::error::WaybackError;
use crate::feeds::{parse_feed, FeedKind};
use crate::fetch::{Fetched, Fetcher};
use crate::state::{self, State};

/// How an article's capture is found.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Lookup {
    /// One CDX request per article: its first capture after publication.
    #[default]
    Cdx,
    /// No CDX request: ask for the capture at publication time and follow the redirect.
    Redirect,
    /// No capture at all: the feed items alone are the output (the `items` port),
    /// for a listing that finds the captures another way.
    None,
}

/// What discovery does.
#[derive(Debug, Clone)]
pub struct DiscoveryConfig {
    /// Feed or sitemap URLs (exact).
    pub feeds: Vec<String>,
    /// Windows of feed captures, `(from, to)` (4-14 digits, `None` open), listed
    /// one after the other, every feed of a window before the next.
    pub windows: Vec<(Option<String>, Option<String>)>,
    /// CDX `collapse` of feed captures (`timestamp:8` = one a day).
    pub feed_collapse: Vec<String>,
    /// How article captures are found.
    pub lookup: Lookup,
    /// Article captures are looked for up to this long after publication (seconds).
    pub lookup_within: i64,
    /// Only feed captures newer than the last completed listing.
    pub incremental: bool,
    /// Stage name, stamped on captures.
    pub source: String,
}

/// One step of discovery.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Article captures to fetch.
    pub captures: Vec<Capture>,
    /// Things that failed: (record, reason, location).
    pub rejected: Vec<(serde_json::Value, String, String)>,
    /// CDX requests made in this step.
    pub cdx_requests: u64,
    /// Feed captures fetched in this step.
    pub feeds_fetched: u64,
    /// New articles found in this step.
    pub articles: u64,
}

/// A feed item as the state keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredItem {
    /// The article link as the feed gave it.
    pub url: String,
    /// The item's description.
    pub description: String,
    /// The item's title.
    pub title: Option<String>,
    /// Publication time, 14 digits (the feed capture's day before when the item had none).
    pub published: String,
    /// The first feed capture that listed it with this description.
    pub feed_timestamp: Timestamp,
}

/// Where a feed's listing stands before its next page.
enum FeedListing {
    /// Listed to the end: nothing to ask.
    Complete,
    /// A page to ask for, from this resume key (`None`: the first page).
    Page { resume: Option<String> },
}

/// Feed discovery, one request per step.
pub struct FeedDiscovery {
    cdx: CdxClient,
    fetcher: Fetcher,
    state: State,
    cfg: DiscoveryConfig,
    handed_back: bool,
    next_feed: usize,
}

impl FeedDiscovery {
    /// Discovery with these clients, recording in `state`.
    pub fn new(cdx: CdxClient, fetcher: Fetcher, state: State, cfg: DiscoveryConfig) -> Self {
        Self {
            cdx,
            fetcher,
            state,
            cfg,
            handed_back: false,
            next_feed: 0,
        }
    }

    /// The next step; `None` when every feed is listed, fetched and every article looked up.
    ///
    /// # Errors
    /// CDX, fetch or state errors that stop the run.
    pub async fn next(&mut self) -> Result<Option<Discovered>, WaybackError> {
        if !self.handed_back {
            self.handed_back = true;
            let source = self.cfg.source.clone();
            let captures = self
                .state
                .call(move |c| state::captures::pending(c, &source))
                .await?;
            if !captures.is_empty() {
                return Ok(Some(Discovered {
                    captures,
                    ..Discovered::default()
                }));
            }
        }
        let article = self
            .state
            .call(|c| {
                c.query_row(
                    "SELECT url, published FROM articles WHERE state = 'new' ORDER BY rowid LIMIT 1",
                    [],
                    |r| Ok((r.get::<_, String>(0)?, r.get::<_, Timestamp>(1)?)),
                )
                .optional()
            })
            .await?;
        if let Some((url, published)) = article {
            return self.look_up(url, published).await.map(Some);
        }
        let feed = self
            .state
            .call(|c| {
                c.query_row(
                    "SELECT url, timestamp FROM feed_captures WHERE state = 'listed' ORDER BY rowid LIMIT 1",
                    [],
                    |r| Ok((r.get::<_, String>(0)?, r.get::<_, Timestamp>(1)?)),
                )
                .optional()
            })
            .await?;
        if let Some((url, ts)) = feed {
            return self.read_feed(url, ts).await.map(Some);
        }
        let feeds = self.cfg.feeds.len().max(1);
        loop {
            let i = self.next_feed;
            let (Some(feed), Some(window)) = (
                self.cfg.feeds.get(i % feeds).cloned(),
                self.cfg.windows.get(i / feeds).cloned(),
            ) else {
                return Ok(None);
            };
            if let Some(step) = self.list_feed(&feed, window).await? {
                return Ok(Some(step));
            }
            self.next_feed += 1;
        }
    }

    /// Every feed item with a description read so far (by this run or earlier
    /// ones), by URL: what the feeds say about each article before it is fetched.
    ///
    /// # Errors
    /// State errors.
    pub async fn items(&self) -> Result<Vec<StoredItem>, WaybackError> {
        self.state
            .call(|c| {
                let mut stmt = c.prepare(
                    "SELECT url, description, title, published, feed_timestamp FROM feed_items ORDER BY url, description",
                )?;
                let rows = stmt.query_map([], |r| {
                    Ok(StoredItem {
                        url: r.get(0)?,
                        description: r.get(1)?,
                        title: r.get(2)?,
                        published: r.get(3)?,
                        feed_timestamp: r.get(4)?,
                    })
                })?;
                rows.collect()
            })
            .await
    }

    /// Lists one page of a feed's captures; `None` when the feed's listing is complete.
    async fn list_feed(
        &mut self,
        feed: &str,
        (from, to): (Option<String>, Option<String>),
    ) -> Result<Option<Discovered>, WaybackError> {
        let mut query = CdxQuery {
            url: feed.to_string(),
            match_type: None,
            from,
            to,
            filters: vec!["statuscode:200".into()],
            collapse: self.cfg.feed_collapse.clone(),
            page_size: 5000,
        };
        let id = format!("feed:{}", query.id());
        let FeedListing::Page { resume } = self.start_listing(&id, &mut query).await? else {
            return Ok(None);
        };
        let mut step = Discovered {
            cdx_requests: 1,
            ..Discovered::default()
        };
        let page = match self.cdx.page(&query, resume.as_deref()).await? {
            PageAnswer::Page(p) => p,
            PageAnswer::Blocked(message) => {
                step.rejected.push((
                    serde_json::json!({ "feed": feed }),
                    format!("blocked site: {message}"),
                    feed.to_string(),
                ));
                let key = id.clone();
                self.state
                    .call(move |c| state::queries::complete(c, &key))
                    .await?;
                self.next_feed += 1;
                return Ok(Some(step));
            }
        };
        let last = page.resume_key.is_none() || page.rows.is_empty();
        if last {
            self.next_feed += 1;
        }
        self.save_feed_page(id, page, last).await?;
        Ok(Some(step))
    }

    /// Where the listing `id` of a feed picks up, from its row in the state: a
    /// listing a stopped run began goes on from its resume key; a completed one
    /// is done, unless incremental (then a new listing starts after its
    /// high-water mark, recorded as begun). Sets `query`'s start to match.
    async fn start_listing(
        &self,
        id: &str,
        query: &mut CdxQuery,
    ) -> Result<FeedListing, WaybackError> {
        let key = id.to_string();
        let row = self
            .state
            .call(move |c| state::queries::load(c, &key))
            .await?;
        let mut resume = None;
        match &row {
            Some(r) if r.in_progress && r.pages > 0 && r.resume_key.is_none() => {
                // Killed between its last page and its completion.
                let key = id.to_string();
                self.state
                    .call(move |c| state::queries::complete(c, &key))
                    .await?;
                return Ok(FeedListing::Complete);
            }
            Some(r) if r.in_progress => {
                query.from.clone_from(&r.effective_from);
                resume.clone_from(&r.resume_key);
            }
            Some(r) if r.completed_at.is_some() && !self.cfg.incremental => {
                return Ok(FeedListing::Complete)
            }
            _ => {
                let high_water = row.as_ref().and_then(|r| r.done_high_water.as_deref());
                if let Some(from) = high_water.and_then(|hw| timestamp::shift(hw, 1)) {
                    query.from = Some(from);
                }
                let (key, source, from) =
                    (id.to_string(), self.cfg.source.clone(), query.from.clone());
                self.state
                    .call(move |c| state::queries::begin(c, &key, &source, from.as_deref(), false))
                    .await?;
            }
        }
        Ok(FeedListing::Page { resume })
    }

    /// Records one page of the feed listing `id` in one transaction: its feed
    /// captures (to fetch), where the listing goes on, and its completion when
    /// `last`.
    async fn save_feed_page(
        &self,
        id: String,
        page: CdxPage,
        last: bool,
    ) -> Result<(), WaybackError> {
        self.state
            .call(move |c| {
                let tx = c.transaction()?;
                let mut high_water: Option<Timestamp> = None;
                for row in &page.rows {
                    tx.execute(
                        "INSERT OR IGNORE INTO feed_captures(url, timestamp, state) VALUES (?1, ?2, 'listed')",
                        (&row.original, &row.timestamp),
                    )?;
                    if high_water.as_ref().is_none_or(|h| *h < row.timestamp) {
                        high_water = Some(row.timestamp);
                    }
                }
                state::queries::save_page(&tx, &id, page.resume_key.as_deref(), high_water.as_deref(), None)?;
                if last {
                    state::queries::complete(&tx, &id)?;
                }
                tx.commit()
            })
            .await
    }

    /// Fetches and parses one feed capture; records its new articles.
    async fn read_feed(&mut self, url: String, ts: Timestamp) -> Result<Discovered, WaybackError> {
        let mut step = Discovered {
            feeds_fetched: 1,
            ..Discovered::default()
        };
        let capture = Capture {
            url: url.clone(),
            timestamp: ts,
            status: Some(200),
            mime: "text/xml".into(),
            digest: String::new(),
            length: None,
            source: self.cfg.source.clone(),
        };
        let (outcome, reason) = match self.fetcher.fetch(&capture).await? {
            Fetched::Failed { reason, .. } => ("failed", Some(reason)),
            Fetched::Page(page) => match parse_feed(&page.body, page.content_type.as_deref()) {
                Err(reason) => ("failed", Some(reason)),
                Ok(feed) => {
                    let fallback = timestamp::shift(&ts, -86_400).unwrap_or_else(|| ts.to_string());
                    let (items, sitemaps) = (feed.items, feed.sitemaps);
                    let is_index = feed.kind == FeedKind::SitemapIndex;
                    let (source_url, feed_ts) = (url.clone(), ts);
                    let article_state = if self.cfg.lookup == Lookup::None {
                        "item"
                    } else {
                        "new"
                    };
                    step.articles = self
                        .state
                        .call(move |c| {
                            let tx = c.transaction()?;
                            let mut new = 0;
                            for item in items {
                                let published = item.published.map(timestamp::format).unwrap_or_else(|| fallback.clone());
                                new += tx.execute(
                                    "INSERT OR IGNORE INTO articles(url, published, title, feed, state) VALUES (?1, ?2, ?3, ?4, ?5)",
                                    (&item.link, &published, &item.title, &source_url, article_state),
                                )? as u64;
                                if let Some(description) = &item.description {
                                    tx.execute(
                                        "INSERT OR IGNORE INTO feed_items(url, description, title, published, feed_timestamp) VALUES (?1, ?2, ?3, ?4, ?5)",
                                        (&item.link, description, &item.title, &published, &feed_ts),
                                    )?;
                                }
                            }
                            if is_index {
                                for sitemap in sitemaps {
                                    tx.execute(
                                        "INSERT OR IGNORE INTO feed_captures(url, timestamp, state) VALUES (?1, ?2, 'listed')",
                                        (&sitemap, &feed_ts),
                                    )?;
                                }
                            }
                            tx.commit()?;
                            Ok(new)
                        })
                        .await?;
                    ("done", None)
                }
            },
        };
        if let Some(reason) = &reason {
            step.rejected.push((
                serde_json::json!({ "feed": url, "timestamp": ts }),
                format!("feed capture unusable: {reason}"),
                format!("{ts} {url}"),
            ));
        }
        self.state
            .call(move |c| {
                c.execute(
                    "UPDATE feed_captures SET state = ?3 WHERE url = ?1 AND timestamp = ?2",
                    (&url, &ts, outcome),
                )
            })
            .await?;
        Ok(step)
    }

    /// Finds the first capture of an article at or after its publication.
    async fn look_up(
        &mut self,
        url: String,
        published: Timestamp,
    ) -> Result<Discovered, WaybackError> {
        let mut step = Discovered::default();
        let until = timestamp::parse(&published)
            .map(|t| timestamp::format(t + Duration::seconds(self.cfg.lookup_within)));
        let found = match self.cfg.lookup {
            Lookup::None => None,
            Lookup::Redirect => Some(Capture {
                url: url.clone(),
                timestamp: published,
                status: None,
                mime: "text/html".into(),
                digest: String::new(),
                length: None,
                source: self.cfg.source.clone(),
            }),
            Lookup::Cdx => {
                step.cdx_requests = 1;
                let query = CdxQuery {
                    url: url.clone(),
                    match_type: None,
                    from: Some(published.to_string()),
                    to: until,
                    filters: vec!["statuscode:200".into(), "mimetype:text/html".into()],
                    collapse: Vec::new(),
                    page_size: 1,
                };
                match self.cdx.page(&query, None).await? {
                    PageAnswer::Page(p) => p.rows.first().map(|r| r.to_capture(&self.cfg.source)),
                    PageAnswer::Blocked(_) => None,
                }
            }
        };
        let outcome = if found.is_some() { "found" } else { "none" };
        if found.is_none() {
            step.rejected.push((
                serde_json::json!({ "url": url, "published": published }),
                "no capture of the article within lookup_within after its publication".into(),
                url.clone(),
            ));
        }
        let capture = found.clone();
        let listed = self
            .state
            .call(move |c| {
                let tx = c.transaction()?;
                let listed = match &capture {
                    Some(cap) => state::captures::insert_listed(&tx, cap, &urlkey_of(&cap.url))?,
                    None => false,
                };
                tx.execute(
                    "UPDATE articles SET state = ?2 WHERE url = ?1",
                    (&url, outcome),
                )?;
                tx.commit()?;
                Ok(listed)
            })
            .await?;
        if let (Some(capture), true) = (found, listed) {
            step.captures.push(capture);
        }
        Ok(step)
    }
}
