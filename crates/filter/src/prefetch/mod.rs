//! The `prefetch` stage: decides, before any page is fetched, what a capture
//! already states for certain, and passes on only the captures whose article the
//! stages after the fetch could keep: one capture per article.
//!
//! It names the stages it decides for (`decides_for = ["articles", "unseen",
//! "split"]`) and takes their resolved, validated options from the plan, so its
//! decisions cannot drift from theirs:
//! - an `extract` stage (required): its site profiles tell articles from other
//!   pages and name each article by its URL. `not_article`: the profile's URL
//!   `reject` rules (live, gallery, video, index pages), no article id in the URL,
//!   no profile for the host; also counted per kind of page (`not_article:
//!   live_page`, `not_article: no_article_id`, ...), with the keys `extract` uses. `duplicate`: another capture of the same article
//!   (same site and id, whatever host, port, scheme or query): the earliest
//!   capture is kept, the closest to publication (ties: the smaller URL); each
//!   other is rejected once its article is decided, naming the capture chosen
//!   (so the words do not depend on which capture came first). The
//!   stage holds one capture per article until its input ends, in SQLite (see
//!   the `choices` module), not in memory; in an incremental pipeline with a
//!   `state` file the choice outlives the run: a killed run's rerun, or a later
//!   night, holds to the capture chosen first and fetches no other capture of
//!   the article (any other pipeline decides again each run from the cached
//!   listing, which gives the same choice);
//! - `exclude` stages: `excluded`, the article is in a training list (BBC ids and
//!   CNN URLs are in the URL);
//! - a `split` stage: `outside_windows`, the article cannot be published in any
//!   of the pipeline's windows (`[pipeline.sets]`): it was published on or before
//!   the capture day (or the day of its first capture any run listed, which
//!   the `state` file keeps: see the `first_seen` module), and after and before
//!   what its id tells (the profile's `id_dates`).
//!
//! The choice is exact whatever the order of the input: an article is decided
//! once no capture still to come can be earlier than the one it holds, that is
//! when the input's watermark passes it (`wayback-cdx` lists a chunk of days at
//! a time, every pattern, and sends one after each chunk), or when the input
//! ends. Fetching starts after the first chunk is listed, not after the whole
//! listing.
//!
//! Each capture left out is rejected with its reason and counted
//! (`skipped_<reason>` in `run.json`). Nothing is skipped on a guess: an archived
//! feed's description is BBC's promo line, not the page's summary (they agreed on
//! 12% of 321 real pages), so what `conflicts` decides is left to `conflicts`.

mod choices;
mod first_seen;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::cost::skipped_counter;
use tempora_engine::{
    parse_options, Batch, DescribeContext, Emitted, Estimate, Finish, OptionError, Peers,
    PipelineContext, Port, Query, SideInputs, Stage, StageConfig, StageError, StagePlan, Transform,
    TransformStage, Watermark, Windows,
};
use tempora_extract::{ArticleKey, ExtractConfig, Extractor};
use tempora_records::{Capture, Record, RecordKind};

use crate::exclude::{ExcludeConfig, ExcludeOptions, Exclusions};
use choices::{Choices, Offer};
use first_seen::FirstSeen;

/// Options of the `prefetch` stage.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct PrefetchOptions {
    /// The stages after the fetch whose decisions are taken here, before it, from
    /// what a capture states for certain: the `extract` stage that reads the fetched
    /// pages (required: it names articles; one capture per article), `exclude`
    /// stages (training lists) and the `split` stage (the pipeline's windows). Each
    /// must read, directly or through others, what this stage passes on.
    pub decides_for: Vec<String>,
    /// SQLite file that keeps the capture chosen for each article, so that an
    /// incremental pipeline's rerun or later night holds to it (the crawl's state
    /// file will do: the table is its own). Any other pipeline, and a run without
    /// it, decides every article again each run, in a temporary file. Every
    /// pipeline keeps there each article's first capture any run listed (the
    /// story was published by then), which a run with other sets reads.
    #[serde(default)]
    pub state: Option<PathBuf>,
}

/// What the stages named in `decides_for` decide, read from their configuration.
#[derive(Debug, Clone)]
struct Linked {
    stage: String,
    extractor: Arc<Extractor>,
    exclude: Vec<ExcludeOptions>,
    windows: bool,
}

/// The `prefetch` stage, configured.
#[derive(Debug)]
pub struct PrefetchConfig {
    options: PrefetchOptions,
    linked: Option<Linked>,
}

/// Stage kinds whose decisions `prefetch` can take before fetching.
const KINDS: [&str; 3] = ["extract", "exclude", "split"];

impl PrefetchConfig {
    /// Parses the options; the named stages are read when the plan links the stages.
    ///
    /// # Errors
    /// Unknown or mistyped keys, an empty `decides_for`.
    pub fn configure(table: toml::Table, _ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        let options: PrefetchOptions = parse_options(table)?;
        if options.decides_for.is_empty() {
            return Err(vec![OptionError {
                key: Some("decides_for".into()),
                message: "name the stages this stage decides for: at least the `extract` stage \
                          that reads the fetched pages"
                    .into(),
            }]);
        }
        Ok(Self {
            options,
            linked: None,
        })
    }

    /// Reads the stages of `decides_for` from `peers`, each problem with its message.
    fn read_peers(&self, peers: &Peers<'_>) -> Result<Linked, Vec<String>> {
        let mut problems = Vec::new();
        let mut extractor = None;
        let mut exclude = Vec::new();
        let mut windows = false;
        // A named stage whose own options have problems (reported at its keys):
        // what it would decide is unknown, and nothing more is said here.
        let mut unread = false;
        for name in &self.options.decides_for {
            let Some(peer) = peers.get(name) else {
                match peers.missing(name) {
                    Some(problem) => problems.push(problem),
                    None => unread = true,
                }
                continue;
            };
            if !KINDS.contains(&peer.kind) {
                problems.push(format!(
                    "`{name}` is a `{}` stage: prefetch decides for `extract`, `exclude` and \
                     `split` stages only (nothing else is known for certain before fetching)",
                    peer.kind
                ));
                continue;
            }
            if !peers.is_downstream(peers.me(), name) {
                problems.push(format!(
                    "`{name}` does not read what this stage passes on: it decides only for \
                     stages after it"
                ));
            }
            if let Some(c) = peer.config::<ExtractConfig>() {
                if extractor.replace(c.extractor().clone()).is_some() {
                    problems.push("name one `extract` stage only".into());
                }
            } else if let Some(c) = peer.config::<ExcludeConfig>() {
                exclude.push(c.options().clone());
            } else {
                windows = true;
            }
        }
        match extractor {
            _ if unread => Err(problems),
            Some(extractor) if problems.is_empty() => Ok(Linked {
                stage: peers.me().to_string(),
                extractor,
                exclude,
                windows,
            }),
            None => {
                problems.push("name the `extract` stage that reads the fetched pages".into());
                Err(problems)
            }
            Some(_) => Err(problems),
        }
    }
}

/// The share of listed captures `prefetch` passes on to fetch, assumed by the dry
/// run: what it passed on the testkit's model of BBC News in the Archive (1,707 of
/// 7,047 listed captures, `cargo bench --bench crawl_cost`; it decides only what
/// a capture states for certain). A run's `run.json` (`cost`) has the real share.
const ASSUMED_SHARE_PASSED: f64 = 1707.0 / 7047.0;

#[async_trait(?Send)]
impl StageConfig for PrefetchConfig {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Capture)]
    }

    fn link(&mut self, peers: &Peers<'_>) -> Vec<OptionError> {
        match self.read_peers(peers) {
            Ok(linked) => {
                self.linked = Some(linked);
                Vec::new()
            }
            Err(problems) => problems
                .into_iter()
                .map(|p| OptionError::at("decides_for", p))
                .collect(),
        }
    }

    async fn describe(&self, ctx: &DescribeContext<'_>) -> StagePlan {
        let basis = format!(
            "assumed: {:.1}% of the captures listed upstream are passed on to fetch, the share \
             measured on the testkit's model of BBC News (`cargo bench --bench crawl_cost`); \
             run.json's `cost` gives a run's real share",
            ASSUMED_SHARE_PASSED * 100.0
        );
        let mut decides = vec![
            (
                "decides for".to_string(),
                self.options.decides_for.join(", "),
            ),
            (
                "decides".to_string(),
                "each article once the listing is past its earliest capture (a watermark of \
                 the stage before), the rest when its input ends"
                    .to_string(),
            ),
            (
                "holds".to_string(),
                format!(
                    "per article the capture held or chosen, in SQLite ({}); nothing per \
                     article in memory",
                    self.options.state.as_ref().map_or_else(
                        || "a temporary file: the choices last one run".to_string(),
                        |p| format!("{}: the choices outlive the run", p.display())
                    )
                ),
            ),
        ];
        if let Some(linked) = &self.linked {
            if linked.windows {
                let sets: Vec<String> = ctx
                    .pipeline
                    .windows
                    .windows()
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                decides.push(("skips what no set can hold".into(), sets.join(", ")));
            }
            if !linked.exclude.is_empty() {
                decides.push(("skips".into(), "what the training lists hold".into()));
            }
        }
        StagePlan {
            queries: vec![Query {
                what: "before fetching".into(),
                settings: decides,
            }],
            estimate: Some(Estimate {
                // Local work: no request of its own.
                records_out: ctx
                    .records_in
                    .map(|n| (n as f64 * ASSUMED_SHARE_PASSED).round() as u64),
                records_name: "captures to fetch".into(),
                basis: vec![basis],
                ..Estimate::default()
            }),
            ..StagePlan::default()
        }
    }

    fn operational(&self) -> &'static [&'static str] {
        &["state"]
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        let linked = self.linked.clone().ok_or_else(|| {
            StageError::internal("prefetch was built before the plan linked its stages")
        })?;
        Ok(Box::new(TransformStage(Prefetch {
            windows: linked.windows.then(|| ctx.windows.clone()),
            extractor: linked.extractor,
            exclude: linked.exclude,
            exclusions: Vec::new(),
            stage: linked.stage,
            // The choices outlive the run only where the outputs do: an incremental
            // pipeline's later nights hold to them. A pipeline that makes its outputs
            // anew decides every article again from what it lists (the same listing
            // gives the same choice), whatever earlier runs with other sets chose.
            state: self
                .options
                .state
                .clone()
                .filter(|_| ctx.mode == tempora_engine::RunMode::Incremental),
            crawl_state: self.options.state.clone(),
            choices: None,
            first_seen: None,
        })))
    }
}

/// The running `prefetch` stage.
struct Prefetch {
    windows: Option<Windows>,
    extractor: Arc<Extractor>,
    exclude: Vec<ExcludeOptions>,
    exclusions: Vec<Exclusions>,
    stage: String,
    state: Option<PathBuf>,
    /// The crawl state, where the earliest capture of each article any run
    /// offered is kept (every pipeline: a fact, not a choice).
    crawl_state: Option<PathBuf>,
    /// The earliest capture offered per article (opened by `prepare`).
    first_seen: Option<FirstSeen>,
    /// The capture held or chosen for each article seen (opened by `prepare`).
    choices: Option<Choices>,
}

/// Held articles decided per transaction when the input ends.
const RELEASE_CHUNK: usize = 10_000;

/// Why a capture is not fetched: the key of its counter
/// ([`skipped_counter`]: `skipped_<key>` in `run.json`) and its words.
struct Skip {
    key: &'static str,
    reason: String,
}

impl Prefetch {
    fn skip(out: &mut Emitted, capture: &Capture, skip: Skip) {
        out.count(&skipped_counter(skip.key), 1);
        out.reject_at(
            serde_json::to_value(capture).unwrap_or_default(),
            skip.reason,
            Some(format!("{} {}", capture.timestamp, capture.url)),
        );
    }

    /// Decides up to [`RELEASE_CHUNK`] held articles whose capture is earlier than
    /// `before` (any without it), and records the choices; whether there were any.
    fn release(&mut self, before: Option<&str>, out: &mut Emitted) -> Result<bool, StageError> {
        let held = self.choices()?.held(before, RELEASE_CHUNK)?;
        if held.is_empty() {
            return Ok(false);
        }
        let keys: Vec<ArticleKey> = held.iter().map(|(k, _)| k.clone()).collect();
        // Each article's earliest capture this run (the one it holds), against
        // the earliest any run listed.
        let earlier = match self.first_seen.as_mut() {
            Some(seen) => seen.earlier(&held)?,
            None => HashMap::new(),
        };
        let chosen: HashMap<ArticleKey, Capture> = held.iter().cloned().collect();
        for (key, capture) in held {
            let seen = earlier.get(&key).map(String::as_str);
            self.pass_or_skip(out, &key, capture, seen);
        }
        for (key, dropped) in self.choices()?.decided(&keys)? {
            if let Some(kept) = chosen.get(&key) {
                Self::duplicate(out, &key, kept, &dropped, false);
            }
        }
        Ok(true)
    }

    fn choices(&mut self) -> Result<&mut Choices, StageError> {
        self.choices
            .as_mut()
            .ok_or_else(|| StageError::internal("prefetch ran before it was prepared"))
    }

    /// `dropped` is left out: `kept` stands for the same article.
    fn duplicate(
        out: &mut Emitted,
        key: &ArticleKey,
        kept: &Capture,
        dropped: &Capture,
        earlier_run: bool,
    ) {
        let by = if earlier_run {
            " (chosen by an earlier run)"
        } else {
            ""
        };
        let skip = Skip {
            key: "duplicate",
            reason: format!(
                "duplicate: an earlier capture stands for {} article {}{by}: {} {}",
                key.site, key.id, kept.timestamp, kept.url
            ),
        };
        Self::skip(out, dropped, skip);
    }

    /// Passes the chosen capture of `key` on to fetch, or skips it with its
    /// reason; `seen`: an earlier capture of the story an earlier run listed.
    fn pass_or_skip(
        &self,
        out: &mut Emitted,
        key: &ArticleKey,
        capture: Capture,
        seen: Option<&str>,
    ) {
        match self.decide(key, &capture, seen) {
            Some(skip) => Self::skip(out, &capture, skip),
            None => {
                out.count("to_fetch", 1);
                out.push(Record::Capture(Box::new(capture)));
            }
        }
    }

    /// What the held capture of `key` tells about its article, once all captures
    /// are in (with `seen`, the earlier capture an earlier run listed).
    fn decide(&self, key: &ArticleKey, capture: &Capture, seen: Option<&str>) -> Option<Skip> {
        for lists in &self.exclusions {
            if let Some((why, _)) = lists.verdict(&key.id, &capture.url, &key.site) {
                return Some(Skip {
                    key: "excluded",
                    reason: format!("excluded before fetching: {why}"),
                });
            }
        }
        if let Some(windows) = &self.windows {
            let (from, until) = self
                .extractor
                .profile(&key.site)
                .map_or((None, None), |p| p.published_bounds(&key.id));
            let captured = capture_day(seen.unwrap_or(capture.timestamp.as_str()));
            let to = match (until, captured) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if !windows.could_hold(from, to) {
                let show =
                    |d: Option<NaiveDate>| d.map_or_else(|| "open".into(), |d| d.to_string());
                let by = match seen {
                    Some(t) => format!("its capture of {t}, which an earlier listing found,"),
                    None => "capture time".to_string(),
                };
                return Some(Skip {
                    key: "outside_windows",
                    reason: format!(
                        "published between {} and {} ({by} and article id): in no window of [pipeline.sets]",
                        show(from),
                        show(to)
                    ),
                });
            }
        }
        None
    }
}

/// The capture's day from its 14-digit timestamp.
fn capture_day(timestamp: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(timestamp.get(..8)?, "%Y%m%d").ok()
}

impl Transform for Prefetch {
    fn prepare(&mut self, _side: &mut SideInputs) -> Result<(), StageError> {
        self.choices = Some(Choices::open(self.state.as_deref(), &self.stage)?);
        self.first_seen = self
            .crawl_state
            .as_deref()
            .map(FirstSeen::open)
            .transpose()?;
        self.exclusions = self
            .exclude
            .iter()
            .map(Exclusions::load)
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        let mut offered = Vec::with_capacity(batch.len());
        for record in batch {
            let Record::Capture(capture) = record else {
                let reason = format!("prefetch takes captures, got a {}", record.kind());
                out.reject(&record, reason);
                continue;
            };
            let key = match self.extractor.identify(&capture.url) {
                Ok(key) => key,
                Err(why) => {
                    // The total for `run.json`'s cost, and the kind of page, keyed as
                    // `extract` keys the page when it is fetched.
                    out.count(&format!("not_article: {}", why.kind), 1);
                    let skip = Skip {
                        key: "not_article",
                        reason: format!("not an article: {}", why.reason),
                    };
                    Self::skip(out, &capture, skip);
                    continue;
                }
            };
            offered.push((key, *capture));
        }
        let choices = self.choices()?;
        for (key, capture, offer) in choices.offer(offered)? {
            match offer {
                // Rejected once the article is decided, naming the capture chosen.
                Offer::Held | Offer::Dropped => {}
                Offer::Duplicate { kept, earlier_run } => {
                    Self::duplicate(out, &key, &kept, &capture, earlier_run);
                }
                Offer::Chosen => {
                    // Chosen by an earlier run: what the runs before it listed.
                    let seen = match &self.first_seen {
                        Some(s) => s.first(&key)?,
                        None => None,
                    }
                    .filter(|t| t.as_str() < capture.timestamp.as_str());
                    self.pass_or_skip(out, &key, capture, seen.as_deref());
                }
            }
        }
        Ok(())
    }

    /// Every capture before `value` is listed: an article held by an earlier
    /// capture has its earliest one, and is decided now.
    fn watermark(&mut self, value: Watermark, out: &mut Emitted) -> Result<(), StageError> {
        let before = tempora_wayback_format::timestamp::format(value.0.naive_utc());
        while self.release(Some(&before), out)? {}
        Ok(())
    }

    /// Every capture is listed: each held article is decided, a chunk at a time.
    fn finish(&mut self, out: &mut Emitted) -> Result<Finish, StageError> {
        Ok(if self.release(None, out)? {
            Finish::More
        } else {
            Finish::Done
        })
    }
}

/// Parses the options of `prefetch`.
///
/// # Errors
/// See [`PrefetchConfig::configure`].
pub fn configure(
    table: toml::Table,
    ctx: &PipelineContext,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    PrefetchConfig::configure(table, ctx).map(|c| Box::new(c) as Box<dyn StageConfig>)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> PipelineContext {
        PipelineContext::new(
            "p",
            NaiveDate::from_ymd_opt(2019, 12, 31).unwrap(),
            "out/p".into(),
        )
    }

    fn describe(records_in: Option<u64>) -> StagePlan {
        let ctx = context();
        let options: toml::Table = toml::from_str("decides_for = [\"articles\"]").unwrap();
        let config = PrefetchConfig::configure(options, &ctx).unwrap();
        let described = DescribeContext {
            pipeline: &ctx,
            records_in,
            online: false,
        };
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(config.describe(&described))
    }

    #[test]
    fn the_dry_run_passes_on_the_assumed_share_without_requests_of_its_own() {
        let estimate = describe(Some(7047)).estimate.unwrap();
        assert_eq!(estimate.records_out, Some(1707));
        assert_eq!(estimate.requests.total(), 0);
        assert!(estimate.basis[0].contains("24.2%"), "{:?}", estimate.basis);
        // Nothing listed upstream that can be counted: nothing to say downstream.
        assert_eq!(describe(None).estimate.unwrap().records_out, None);
    }

    #[test]
    fn a_capture_day_is_read_off_the_first_eight_digits_or_not_at_all() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d);
        assert_eq!(capture_day("20200131235959"), day(2020, 1, 31));
        // Only the day is read: a time that is no time does not matter.
        assert_eq!(capture_day("20200131999999"), day(2020, 1, 31));
        assert_eq!(capture_day("20200131"), day(2020, 1, 31));
        // No day: the capture bounds nothing, the article id alone decides.
        let malformed = [
            "",
            "2020",
            "2020013",
            "20201301000000",
            "20200230000000",
            "2020-01-31",
            "yyyymmddhhmmss",
            "2020013é000000",
        ];
        for timestamp in malformed {
            assert_eq!(capture_day(timestamp), None, "{timestamp:?}");
        }
    }
}
