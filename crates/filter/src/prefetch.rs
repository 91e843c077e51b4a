//! The `prefetch` stage: decides, before any page is fetched, what a capture
//! already tells, and passes on only the captures whose article the full
//! pipeline could keep: one capture per article.
//!
//! In: captures (from `wayback-cdx`), and as side inputs the evolving facts and
//! the items of archived feeds (articles without a document, from
//! `wayback-feeds`' `items` port). Out: captures to fetch. Each capture left out
//! is rejected with its reason and counted (`skipped_<reason>` in `run.json`):
//! - `not_article`: the site profile's URL `reject` rules (live, gallery, video,
//!   index pages) or no article id in the URL; no profile for the host;
//! - `duplicate`: another capture of the same article (same site and id, whatever
//!   host, port, scheme or query): the earliest capture is kept, the closest to
//!   publication, so the stage holds captures until its input ends;
//! - `excluded`: the article is in the training lists (`exclude`, the options
//!   of the `exclude` stage; BBC ids and CNN URLs are in the URL);
//! - `outside_windows`: the article cannot be published in any window of `sets`
//!   (the options of the `split` stage): it was published on or before the
//!   capture day, and after and before what its id tells (the profile's `id_dates`);
//! - `feed_summary`: an archived feed item of the article is known and its
//!   description (BBC's summary sentence) names no entity of any evolving fact,
//!   so the summary cannot meet the `conflicts` stage's criterion 2 (`conflicts`,
//!   the options of that stage).
//!
//! Each decision is one the full pipeline makes the same way after fetching, so
//! the articles kept are the same; the options copy the stages' own options, and
//! must stay equal to them. One assumption is the data's: a feed item's
//! description is the page's summary sentence (true of BBC's feeds; turn
//! `feed_items` off for a site whose feed writes its own descriptions).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use async_trait::async_trait;
use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    parse_options, Batch, Capture, DescribeContext, Emitted, Estimate, OptionError,
    PipelineContext, Port, Record, RecordKind, SideInput, SideInputs, Stage, StageConfig,
    StageError, StagePlan, Transform, TransformStage,
};
use tempora_extract::{ArticleKey, ExtractOptions, Extractor};
use tempora_split::{SetSpec, Windows};

use crate::conflicts::{facts, summary_could_qualify, ConflictsOptions, Dictionary};
use crate::exclude::{ExcludeOptions, Exclusions};

/// The side input key of the feed items.
const FEED_ITEMS: &str = "feed_items";

/// Options of the `prefetch` stage. Each decision is on when its option is given.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct PrefetchOptions {
    /// The `extract` stage's options (`sites`, `profiles`): the site profiles that
    /// tell articles from other pages and name each article by its URL.
    #[serde(default)]
    pub extract: ExtractOptions,
    /// The `exclude` stage's options: captures of listed articles are skipped.
    #[serde(default)]
    pub exclude: Option<ExcludeOptions>,
    /// The `split` stage's `sets`: captures whose article cannot fall in any
    /// window are skipped.
    #[serde(default)]
    #[schemars(with = "Option<Vec<SetSpec>>")]
    pub sets: Option<Vec<SetSpec>>,
    /// The `conflicts` stage's options (`facts = "facts"`, ...): with `feed_items`,
    /// articles whose feed description names no entity of an evolving fact are skipped.
    #[serde(default)]
    pub conflicts: Option<ConflictsOptions>,
    /// The stage (or `stage.port`) whose articles are archived feed items, e.g.
    /// `feeds.items` of a `wayback-feeds` stage, taken as a side input.
    #[serde(default)]
    pub feed_items: Option<String>,
}

/// The `prefetch` stage, configured.
#[derive(Debug)]
pub struct PrefetchConfig {
    options: PrefetchOptions,
    windows: Option<Windows>,
}

impl PrefetchConfig {
    /// Parses and checks the options.
    ///
    /// # Errors
    /// Unknown or mistyped keys; bad `sets` (as the `split` stage checks them);
    /// `feed_items` without `conflicts` or the other way round.
    pub fn configure(table: toml::Table, ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        let options: PrefetchOptions = parse_options(table)?;
        let mut errors = Vec::new();
        if let Err(e) = options.extract.extractor() {
            errors.push(OptionError {
                key: e.key.map(|k| format!("extract.{k}")),
                message: e.message,
            });
        }
        let windows = match &options.sets {
            None => None,
            Some(specs) => match Windows::resolve(specs, ctx.cutoff) {
                Ok(w) => Some(w),
                Err(problems) => {
                    errors.extend(problems.into_iter().map(|(key, message)| OptionError {
                        key: Some(key),
                        message,
                    }));
                    None
                }
            },
        };
        if options.feed_items.is_some() != options.conflicts.is_some() {
            errors.push(OptionError {
                key: Some(FEED_ITEMS.into()),
                message: "give `feed_items` and `conflicts` together: the feed's descriptions are checked against the evolving facts".into(),
            });
        }
        if let Some(c) = &options.conflicts {
            errors.extend(origin(c).check().into_iter().map(|e| OptionError {
                key: e.key.map(|k| format!("conflicts.{k}")),
                message: e.message,
            }));
        }
        if errors.is_empty() {
            Ok(Self { options, windows })
        } else {
            Err(errors)
        }
    }
}

fn origin(options: &ConflictsOptions) -> facts::FactsOrigin<'_> {
    facts::FactsOrigin {
        stage: options.facts.as_deref(),
        file: options.facts_file.as_deref(),
    }
}

/// The share of listed captures `prefetch` passes on to fetch, assumed by the dry
/// run: what it passed on the testkit's model of BBC News in the Archive (600 of
/// 8,232 listed captures, `cargo bench --bench crawl_cost`). A run's `run.json`
/// (`cost`) has the real share.
const ASSUMED_SHARE_PASSED: f64 = 600.0 / 8232.0;

#[async_trait(?Send)]
impl StageConfig for PrefetchConfig {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Capture)]
    }

    async fn describe(&self, ctx: &DescribeContext<'_>) -> StagePlan {
        let basis = format!(
            "assumed: {:.1}% of the captures listed upstream are passed on to fetch, the share \
             measured on the testkit's model of BBC News (`cargo bench --bench crawl_cost`); \
             run.json's `cost` gives a run's real share",
            ASSUMED_SHARE_PASSED * 100.0
        );
        StagePlan {
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

    fn side_inputs(&self) -> Vec<SideInput> {
        let mut side = self
            .options
            .conflicts
            .as_ref()
            .map(|c| origin(c).side_inputs())
            .unwrap_or_default();
        side.extend(self.options.feed_items.iter().map(|from| SideInput {
            key: FEED_ITEMS.into(),
            from: from.clone(),
            kind: RecordKind::Article,
        }));
        side
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        let mut reads: Vec<(String, PathBuf)> = Vec::new();
        if let Some(e) = &self.options.exclude {
            reads.extend(
                e.xsum_split
                    .iter()
                    .map(|p| ("exclude.xsum_split".to_string(), p.clone())),
            );
            reads.extend(
                e.cnndm_urls
                    .iter()
                    .map(|p| ("exclude.cnndm_urls".to_string(), p.clone())),
            );
        }
        if let Some(c) = &self.options.conflicts {
            reads.extend(
                origin(c)
                    .reads()
                    .into_iter()
                    .map(|(k, p)| (format!("conflicts.{k}"), p)),
            );
        }
        reads
    }

    fn build(self: Box<Self>, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        let extractor = self
            .options
            .extract
            .extractor()
            .map_err(|e| StageError::input(e.message))?;
        Ok(Box::new(TransformStage(Prefetch {
            options: self.options,
            windows: self.windows,
            cutoff: ctx.cutoff,
            extractor,
            exclusions: None,
            feed: HashMap::new(),
            held: BTreeMap::new(),
        })))
    }
}

/// The running `prefetch` stage.
struct Prefetch {
    options: PrefetchOptions,
    windows: Option<Windows>,
    cutoff: NaiveDate,
    extractor: Extractor,
    exclusions: Option<Exclusions>,
    /// Per article with a known feed item: whether its summary could meet criterion 2.
    feed: HashMap<ArticleKey, bool>,
    /// The earliest capture of each article seen so far.
    held: BTreeMap<ArticleKey, Capture>,
}

/// Why a capture is not fetched: its counter (`skipped_<reason>`) and its words.
struct Skip {
    counter: &'static str,
    reason: String,
}

impl Prefetch {
    fn skip(out: &mut Emitted, capture: &Capture, skip: Skip) {
        out.count(skip.counter, 1);
        out.reject_at(
            serde_json::to_value(capture).unwrap_or_default(),
            skip.reason,
            Some(format!("{} {}", capture.timestamp, capture.url)),
        );
    }

    /// What the held capture of `key` tells about its article, once all captures are in.
    fn decide(&self, key: &ArticleKey, capture: &Capture) -> Option<Skip> {
        if let Some(lists) = &self.exclusions {
            if let Some((why, _)) = lists.verdict(&key.id, &capture.url, &key.site) {
                return Some(Skip {
                    counter: "skipped_excluded",
                    reason: format!("excluded before fetching: {why}"),
                });
            }
        }
        if let Some(windows) = &self.windows {
            let (from, until) = self
                .extractor
                .profile(&key.site)
                .map_or((None, None), |p| p.published_bounds(&key.id));
            let captured = capture_day(&capture.timestamp);
            let to = match (until, captured) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if !windows.could_hold(from, to) {
                let show =
                    |d: Option<NaiveDate>| d.map_or_else(|| "open".into(), |d| d.to_string());
                return Some(Skip {
                    counter: "skipped_outside_windows",
                    reason: format!(
                        "published between {} and {} (capture time and article id): in no window of `sets`",
                        show(from),
                        show(to)
                    ),
                });
            }
        }
        if self.feed.get(key) == Some(&false) {
            return Some(Skip {
                counter: "skipped_feed_summary",
                reason: "its archived feed description names no subject or object of an evolving fact: criterion 2 cannot hold".into(),
            });
        }
        None
    }
}

/// The capture's day from its 14-digit timestamp.
fn capture_day(timestamp: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(timestamp.get(..8)?, "%Y%m%d").ok()
}

impl Transform for Prefetch {
    fn prepare(&mut self, side: &mut SideInputs) -> Result<(), StageError> {
        if let Some(options) = &self.options.exclude {
            self.exclusions = Some(Exclusions::load(options)?);
        }
        if let Some(options) = &self.options.conflicts {
            let evolving = facts::evolving_facts(origin(options).load(side)?, self.cutoff)?;
            let dictionary = Dictionary::build(evolving, options)?;
            for record in side.take(FEED_ITEMS)? {
                let Record::Article(item) = record else {
                    continue;
                };
                let Ok(key) = self.extractor.identify(&item.url) else {
                    continue;
                };
                let could = summary_could_qualify(&dictionary, &item.summary);
                // An article in several feed captures: one description that could qualify is enough.
                *self.feed.entry(key).or_insert(false) |= could;
            }
            tracing::info!(
                articles = self.feed.len(),
                "feed items known before fetching"
            );
        }
        Ok(())
    }

    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        for record in batch {
            let Record::Capture(capture) = record else {
                let reason = format!("prefetch takes captures, got a {}", record.kind());
                out.reject(&record, reason);
                continue;
            };
            let key = match self.extractor.identify(&capture.url) {
                Ok(key) => key,
                Err(why) => {
                    let skip = Skip {
                        counter: "skipped_not_article",
                        reason: format!("not an article: {why}"),
                    };
                    Self::skip(out, &capture, skip);
                    continue;
                }
            };
            let order = |c: &Capture| (c.timestamp.clone(), c.url.clone());
            let later = match self.held.get_mut(&key) {
                Some(held) if order(&capture) < order(held) => {
                    Some(std::mem::replace(held, *capture))
                }
                Some(_) => Some(*capture),
                None => {
                    self.held.insert(key.clone(), *capture);
                    None
                }
            };
            if let Some(later) = later {
                let kept = &self.held[&key];
                let skip = Skip {
                    counter: "skipped_duplicate",
                    reason: format!(
                        "duplicate: an earlier capture stands for {} article {}: {} {}",
                        key.site, key.id, kept.timestamp, kept.url
                    ),
                };
                Self::skip(out, &later, skip);
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Emitted) -> Result<(), StageError> {
        let held = std::mem::take(&mut self.held);
        for (key, capture) in held {
            match self.decide(&key, &capture) {
                Some(skip) => Self::skip(out, &capture, skip),
                None => {
                    out.count("to_fetch", 1);
                    out.push(Record::Capture(Box::new(capture)));
                }
            }
        }
        Ok(())
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
        PipelineContext {
            name: "p".into(),
            cutoff: NaiveDate::from_ymd_opt(2019, 12, 31).unwrap(),
            out: PathBuf::from("out/p"),
            channel_capacity: 256,
            run: tempora_engine::RunId::default(),
        }
    }

    fn describe(records_in: Option<u64>) -> StagePlan {
        let ctx = context();
        let config = PrefetchConfig::configure(toml::Table::new(), &ctx).unwrap();
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
        let estimate = describe(Some(8232)).estimate.unwrap();
        assert_eq!(estimate.records_out, Some(600));
        assert_eq!(estimate.requests.total(), 0);
        assert!(estimate.basis[0].contains("7.3%"), "{:?}", estimate.basis);
        // Nothing listed upstream that can be counted: nothing to say downstream.
        assert_eq!(describe(None).estimate.unwrap().records_out, None);
    }
}
