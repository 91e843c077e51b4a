//! The `novelty` stage: scores each article's summary against the training
//! summaries, then, when its input has ended, bins each set and emits every article
//! with its `novelty {overlap, bin, tag}`, in input order.
//!
//! It is a barrier: bins need the whole set, so the stage holds every article until
//! its input ends (test sets are thousands of articles, not millions).

use std::collections::BTreeMap;
use std::path::PathBuf;

use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use tempora_engine::{
    parse_options, Article, Batch, Emitted, Novelty, OptionError, PipelineContext, Port, Record,
    RecordKind, SideInputs, Stage, StageConfig, StageError, Transform, TransformStage,
};

use crate::bins::{Bins, DEFAULT_MIN_BIN};
use crate::overlap::{TrainingIndex, DEFAULT_N};

/// Options of the `novelty` stage.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct NoveltyOptions {
    /// Training summaries: one file or a list, each JSONL (the summary in `field`),
    /// Parquet (a Hugging Face export of XSum or CNN/DailyMail as it is) or text with
    /// one summary per line, told apart by extension (`.jsonl`, `.parquet`, else text).
    #[serde(deserialize_with = "one_or_many")]
    #[schemars(with = "Vec<PathBuf>")]
    pub train: Vec<PathBuf>,
    /// The field holding the summary in JSONL and Parquet training files: `summary`
    /// for XSum, `highlights` for CNN/DailyMail.
    #[serde(default = "default_field")]
    #[schemars(default = "default_field")]
    pub field: String,
    /// N-gram size, in word tokens.
    #[serde(default = "default_n")]
    #[schemars(default = "default_n")]
    pub n: usize,
    /// Least number of articles per bin: 5-point bins merge upwards until each holds
    /// this many (a set smaller than this is one bin, untagged).
    #[serde(default = "default_min_bin")]
    #[schemars(default = "default_min_bin")]
    pub min_bin: usize,
}

fn default_field() -> String {
    "summary".into()
}

const fn default_n() -> usize {
    DEFAULT_N
}

const fn default_min_bin() -> usize {
    DEFAULT_MIN_BIN
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(PathBuf),
        Many(Vec<PathBuf>),
    }
    match OneOrMany::deserialize(d) {
        Ok(OneOrMany::One(p)) => Ok(vec![p]),
        Ok(OneOrMany::Many(v)) => Ok(v),
        Err(_) => Err(serde::de::Error::custom(
            "`train` takes a file path or a list of file paths",
        )),
    }
}

/// The `novelty` stage, configured.
#[derive(Debug)]
pub struct NoveltyConfig {
    options: NoveltyOptions,
}

impl NoveltyConfig {
    /// Parses the options.
    ///
    /// # Errors
    /// Unknown or mistyped options, each naming its key.
    pub fn configure(table: toml::Table, _ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        Ok(Self {
            options: parse_options(table)?,
        })
    }
}

impl StageConfig for NoveltyConfig {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Article)]
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        self.options
            .train
            .iter()
            .map(|p| ("train".to_string(), p.clone()))
            .collect()
    }

    fn check(&self, _ctx: &PipelineContext) -> Vec<(Option<String>, String)> {
        let mut problems = Vec::new();
        if self.options.train.is_empty() {
            problems.push((Some("train".into()), "list at least one file".into()));
        }
        if self.options.n == 0 {
            problems.push((Some("n".into()), "must be at least 1".into()));
        }
        if self.options.min_bin == 0 {
            problems.push((Some("min_bin".into()), "must be at least 1".into()));
        }
        problems
    }

    fn build(self: Box<Self>, _ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(TransformStage(NoveltyStage {
            options: self.options,
            index: None,
            held: Vec::new(),
        })))
    }
}

/// The running stage: the index, and the articles held until the input ends.
struct NoveltyStage {
    options: NoveltyOptions,
    index: Option<TrainingIndex>,
    held: Vec<(Box<Article>, f64)>,
}

impl Transform for NoveltyStage {
    fn prepare(&mut self, _side: &mut SideInputs) -> Result<(), StageError> {
        let o = &self.options;
        let index = TrainingIndex::build(&o.train, &o.field, o.n)
            .map_err(|e| StageError::input(format!("training summaries: {e}")))?;
        tracing::info!(
            summaries = index.summaries(),
            distinct_ngrams = index.set().len(),
            n = index.n(),
            "training summaries indexed"
        );
        self.index = Some(index);
        Ok(())
    }

    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        let index = self
            .index
            .as_ref()
            .ok_or_else(|| StageError::internal("novelty: no index before the first batch"))?;
        let scored: Vec<(Record, Option<f64>)> = batch
            .into_par_iter()
            .map(|record| {
                let overlap = match &record {
                    Record::Article(a) => index.overlap(&a.summary).map(|o| round(o.percent())),
                    _ => None,
                };
                (record, overlap)
            })
            .collect();
        for (record, overlap) in scored {
            match (record, overlap) {
                (Record::Article(article), Some(overlap)) => self.held.push((article, overlap)),
                (record @ Record::Article(_), None) => {
                    let reason = format!(
                        "the summary has fewer than {} word tokens: no {}-gram to score",
                        index.n(),
                        index.n()
                    );
                    out.reject(&record, reason);
                }
                (record, _) => {
                    let reason = format!("novelty takes articles, got a {}", record.kind());
                    out.reject(&record, reason);
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Emitted) -> Result<(), StageError> {
        let held = std::mem::take(&mut self.held);
        let mut sets: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for (article, overlap) in &held {
            sets.entry(set_of(article)).or_default().push(*overlap);
        }
        let bins: BTreeMap<String, Bins> = sets
            .into_iter()
            .map(|(set, overlaps)| (set, Bins::of(&overlaps, self.options.min_bin)))
            .collect();
        for (mut article, overlap) in held {
            let bin = bins
                .get(&set_of(&article))
                .and_then(|b| b.find(overlap))
                .ok_or_else(|| StageError::internal("novelty: an article outside every bin"))?;
            article.novelty = Some(Novelty {
                overlap,
                bin: bin.range.clone(),
                tag: bin.tag.map(str::to_string),
            });
            out.push(Record::Article(article));
        }
        out.metric("bins", serde_json::json!(bins));
        Ok(())
    }
}

/// The set an article's bins are drawn in: its split, or `""` before `split`.
fn set_of(article: &Article) -> String {
    article.split.clone().unwrap_or_default()
}

/// Overlaps are written with 4 decimals: enough to tell every fraction of a summary's
/// positions apart, and the same bytes on every platform.
pub(crate) fn round(overlap: f64) -> f64 {
    (overlap * 1e4).round() / 1e4
}
