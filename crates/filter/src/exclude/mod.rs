//! The `exclude` stage: drops articles that a summarization model has already
//! seen in training, i.e. that are in XSum or in CNN/DailyMail.

pub mod lists;

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_engine::{
    parse_options, Batch, Emitted, OptionError, PipelineContext, Port, SideInputs, Stage,
    StageConfig, StageError, Transform, TransformStage,
};
use tempora_records::{Record, RecordKind};

pub use lists::{normalize_url, Editions, UrlLists, XsumIds, XsumSubset};

fn all_subsets() -> Vec<XsumSubset> {
    XsumSubset::ALL.to_vec()
}

/// Options of the `exclude` stage.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct ExcludeOptions {
    /// XSum's split file, `XSum-TRAINING-DEV-TEST-SPLIT-90-5-5.json` (an object of
    /// BBC id lists `train`, `validation`, `test`). Articles of a site whose profile
    /// says `exclude_ids = "xsum_split"` (BBC) are dropped when their id, or the id
    /// their URL gives, is listed.
    #[serde(default)]
    pub xsum_split: Option<PathBuf>,
    /// Which XSum subsets to drop articles of.
    #[serde(default = "all_subsets")]
    pub xsum_subsets: Vec<XsumSubset>,
    /// CNN/DailyMail URL list files (one URL per line, e.g. `url_lists/all_train.txt`,
    /// `all_val.txt`, `all_test.txt`). Articles are compared by normalized original
    /// URL: Wayback prefix, scheme, `www.`, query, fragment and a trailing
    /// `index.html` removed, a site's `editions` (CNN's `edition.` and `us.`) read
    /// as its host.
    #[serde(default)]
    pub cnndm_urls: Vec<PathBuf>,
    /// A folder of site profiles beside the shipped ones (as `extract`'s
    /// `profiles`): their `exclude_ids` and `editions` count too.
    #[serde(default)]
    pub profiles: Option<PathBuf>,
}

/// The `exclude` stage, configured.
#[derive(Debug)]
pub struct ExcludeConfig {
    options: ExcludeOptions,
}

impl ExcludeConfig {
    /// Parses and checks the options.
    ///
    /// # Errors
    /// Unknown or mistyped keys; no list given at all; an empty `xsum_subsets`.
    pub fn configure(table: toml::Table, _ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        let options: ExcludeOptions = parse_options(table)?;
        let mut errors = Vec::new();
        if options.xsum_split.is_none() && options.cnndm_urls.is_empty() {
            errors.push(OptionError {
                key: None,
                message: "nothing to exclude: give `xsum_split` and/or `cnndm_urls`".into(),
            });
        }
        if options.xsum_split.is_some() && options.xsum_subsets.is_empty() {
            errors.push(OptionError {
                key: Some("xsum_subsets".into()),
                message: "an empty list excludes nothing; leave it out to exclude every subset"
                    .into(),
            });
        }
        if errors.is_empty() {
            Ok(Self { options })
        } else {
            Err(errors)
        }
    }

    /// The options, checked.
    pub fn options(&self) -> &ExcludeOptions {
        &self.options
    }
}

impl StageConfig for ExcludeConfig {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Article)]
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        let xsum = self
            .options
            .xsum_split
            .iter()
            .map(|p| ("xsum_split".to_string(), p.clone()));
        let cnndm = self
            .options
            .cnndm_urls
            .iter()
            .map(|p| ("cnndm_urls".to_string(), p.clone()));
        xsum.chain(cnndm).collect()
    }

    fn build(&self, _ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(TransformStage(Exclude {
            options: self.options.clone(),
            lists: Exclusions::default(),
        })))
    }
}

/// The running `exclude` stage. The lists are loaded in `prepare`, on a blocking
/// thread, not while the pipeline is being built.
struct Exclude {
    options: ExcludeOptions,
    lists: Exclusions,
}

/// The loaded training-set lists: what the `exclude` stage drops, and what the
/// crawl skips before fetching (`prefetch`), with the same verdict.
#[derive(Debug, Default)]
pub struct Exclusions {
    xsum: XsumIds,
    cnndm: UrlLists,
    /// The sites whose articles XSum's list names by id.
    by_id: Vec<tempora_extract::SiteProfile>,
}

impl Exclusions {
    /// Loads the lists `options` name.
    ///
    /// # Errors
    /// A list that cannot be read or parsed, naming the file.
    pub fn load(options: &ExcludeOptions) -> Result<Self, StageError> {
        let profiles = tempora_extract::load_profiles(options.profiles.as_deref())
            .map_err(|e| StageError::input(e.to_string()))?;
        let editions: Editions = profiles
            .iter()
            .filter_map(|p| Some((p, p.hosts.first()?)))
            .flat_map(|(p, host)| p.editions.iter().map(move |e| (e.clone(), host.clone())))
            .collect();
        let mut lists = Self {
            by_id: profiles
                .into_iter()
                .filter(|p| p.exclude_ids.as_deref() == Some("xsum_split"))
                .collect(),
            ..Self::default()
        };
        if let Some(path) = &options.xsum_split {
            lists.xsum = XsumIds::load(path, &options.xsum_subsets)?;
            tracing::info!(file = %path.display(), ids = lists.xsum.len(), "XSum ids loaded");
        }
        if !options.cnndm_urls.is_empty() {
            lists.cnndm = UrlLists::load(&options.cnndm_urls, editions)?;
            tracing::info!(urls = lists.cnndm.len(), "CNN/DailyMail URLs loaded");
        }
        Ok(lists)
    }

    /// Why the article `id` at `url` of site `source` is excluded, with the counter
    /// it adds to; `None` keeps it. Works on a capture's URL as on an article.
    pub fn verdict(&self, id: &str, url: &str, source: &str) -> Option<(String, String)> {
        if let Some(site) = self.by_id.iter().find(|p| p.site == source) {
            let from_url = site.article_id(url);
            let ids: Vec<&str> = std::iter::once(id).chain(from_url.as_deref()).collect();
            if let Some((subset, key)) = self.xsum.find(&ids) {
                return Some((
                    format!("in XSum {} (id {key})", subset.key()),
                    format!("excluded_xsum_{}", subset.key()),
                ));
            }
        }
        let file = self.cnndm.find(url)?;
        Some((
            format!("in CNN/DailyMail {file}"),
            format!("excluded_cnndm_{file}"),
        ))
    }
}

impl Transform for Exclude {
    fn prepare(&mut self, _side: &mut SideInputs) -> Result<(), StageError> {
        self.lists = Exclusions::load(&self.options)?;
        Ok(())
    }

    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        for record in batch {
            let verdict = match &record {
                Record::Article(a) => self.lists.verdict(&a.id, &a.url, &a.source),
                other => Some((
                    format!("exclude takes articles, got a {}", other.kind()),
                    "not_article".into(),
                )),
            };
            match verdict {
                Some((reason, counter)) => {
                    out.count(&counter, 1);
                    out.reject(&record, reason);
                }
                None => out.push(record),
            }
        }
        Ok(())
    }
}
