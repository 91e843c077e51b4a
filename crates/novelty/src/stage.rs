//! The `novelty` stage: scores each article's summary against the training
//! summaries, then, when its input has ended, bins each set and emits every article
//! with its `novelty {overlap, bin, tag}`, in input order.
//!
//! It is a barrier: bins need the whole set, so the stage holds every article until
//! its input ends: on disk, as JSON lines in a [`Spill`] in the output folder,
//! with only the overlaps in memory; at the end they are read back and handed on
//! a part at a time.

use std::path::PathBuf;

use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use tempora_engine::spill::{InOrder, Line, Spill};
use tempora_engine::{
    parse_options, Batch, Emitted, Finish, OptionError, PipelineContext, Port, SideInputs, Stage,
    StageConfig, StageError, Transform, TransformStage,
};
use tempora_records::{Article, Record, RecordKind};

use crate::bins::{SetBins, DEFAULT_MIN_BIN};
use crate::overlap::{TooShort, TrainingIndex, DEFAULT_N};

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
    fn gives_fields(&self) -> &'static [&'static str] {
        &["novelty"]
    }

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

    fn check(&self, _ctx: &PipelineContext) -> Vec<OptionError> {
        let mut problems = Vec::new();
        if self.options.train.is_empty() {
            problems.push(OptionError::at("train", "list at least one file".into()));
        }
        if self.options.n == 0 {
            problems.push(OptionError::at("n", "must be at least 1".into()));
        }
        if self.options.min_bin == 0 {
            problems.push(OptionError::at("min_bin", "must be at least 1".into()));
        }
        problems
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(TransformStage(NoveltyStage {
            options: self.options.clone(),
            index: None,
            dir: ctx.out.clone(),
            held: None,
            overlaps: Vec::new(),
            release: None,
            no_training: false,
        })))
    }
}

/// Held articles handed on per call of `finish`.
const RELEASE_CHUNK: usize = 1024;

/// The running stage: the index, and the articles held until the input ends.
struct NoveltyStage {
    options: NoveltyOptions,
    index: Option<TrainingIndex>,
    /// Where the held articles wait (the output folder).
    dir: PathBuf,
    /// The held articles' JSON lines, in input order (from `prepare` until the
    /// input ends).
    held: Option<Spill<Line>>,
    /// Each held article's set and overlap, in input order.
    overlaps: Vec<(String, f64)>,
    /// Once the input has ended: the bins, and the held articles being handed on.
    release: Option<Release>,
    /// The training files hold no summary: every overlap is 0, which the run
    /// warns of.
    no_training: bool,
}

/// The end of the stage: each set's bins and the articles read back in order.
struct Release {
    bins: SetBins,
    articles: InOrder<Line>,
    overlaps: std::vec::IntoIter<(String, f64)>,
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
        self.no_training = index.summaries() == 0;
        self.index = Some(index);
        self.held = Some(Spill::new(&self.dir).map_err(|e| StageError::io(&self.dir, e))?);
        Ok(())
    }

    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        let index = self
            .index
            .as_ref()
            .ok_or_else(|| StageError::internal("novelty: no index before the first batch"))?;
        let scored: Vec<(Record, Option<Result<f64, TooShort>>)> = batch
            .into_par_iter()
            .map(|record| {
                let overlap = match &record {
                    Record::Article(a) => Some(index.score(&a.summary)),
                    _ => None,
                };
                (record, overlap)
            })
            .collect();
        for (record, overlap) in scored {
            match (record, overlap) {
                (Record::Article(article), Some(Ok(overlap))) => self.hold(&article, overlap)?,
                (record, Some(Err(too_short))) => out.reject(&record, too_short.to_string()),
                (record, _) => {
                    let reason = format!("novelty takes articles, got a {}", record.kind());
                    out.reject(&record, reason);
                }
            }
        }
        Ok(())
    }

    /// The first call draws the bins; each call hands on up to [`RELEASE_CHUNK`]
    /// held articles with their novelty, in input order.
    fn finish(&mut self, out: &mut Emitted) -> Result<Finish, StageError> {
        if self.release.is_none() {
            self.release = Some(self.bins(out)?);
        }
        let release = self
            .release
            .as_mut()
            .ok_or_else(|| StageError::internal("novelty: no bins"))?;
        for _ in 0..RELEASE_CHUNK {
            let (Some(line), Some((set, overlap))) =
                (release.articles.next(), release.overlaps.next())
            else {
                return Ok(Finish::Done);
            };
            let mut article = read_back(line)?;
            let novelty = release
                .bins
                .novelty(&set, overlap)
                .ok_or_else(|| StageError::internal("novelty: an article outside every bin"))?;
            article.novelty = Some(novelty);
            out.push(Record::Article(article));
        }
        Ok(Finish::More)
    }
}

impl NoveltyStage {
    /// Holds a scored article until the input ends.
    fn hold(&mut self, article: &Article, overlap: f64) -> Result<(), StageError> {
        let spill = self
            .held
            .as_mut()
            .ok_or_else(|| StageError::internal("novelty: an article before prepare"))?;
        let line = serde_json::to_vec(article)
            .map_err(|e| StageError::internal(format!("novelty: an article as JSON: {e}")))?;
        spill
            .push(&Line(line))
            .map_err(|e| StageError::io(&self.dir, e))?;
        self.overlaps.push((set_of(article), overlap));
        Ok(())
    }

    /// Draws each set's bins over its held articles' overlaps (in the run's
    /// metrics) and starts reading the articles back.
    fn bins(&mut self, out: &mut Emitted) -> Result<Release, StageError> {
        // Every article is scored: the training n-grams go before the release.
        self.index = None;
        if self.no_training {
            let files: Vec<String> = self
                .options
                .train
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            out.warn(format!(
                "its training set holds no summary ({}; field `{}`): every overlap is 0",
                files.join(", "),
                self.options.field
            ));
        }
        let overlaps = std::mem::take(&mut self.overlaps);
        let bins = SetBins::draw(
            overlaps
                .iter()
                .map(|(set, overlap)| (set.as_str(), *overlap)),
            self.options.min_bin,
        );
        out.metric(
            tempora_records::counters::NOVELTY_BINS,
            serde_json::json!(bins.counts()),
        );
        let held = self
            .held
            .take()
            .ok_or_else(|| StageError::internal("novelty: finished before prepare"))?;
        Ok(Release {
            bins,
            articles: held.in_order().map_err(|e| StageError::io(&self.dir, e))?,
            overlaps: overlaps.into_iter(),
        })
    }
}

/// A held article, read back from the spill.
fn read_back(line: std::io::Result<Line>) -> Result<Box<Article>, StageError> {
    let line = line
        .map_err(|e| StageError::external(format!("novelty: reading held articles back: {e}")))?;
    serde_json::from_slice(&line.0)
        .map_err(|e| StageError::internal(format!("novelty: a held article: {e}")))
}

/// The set an article's bins are drawn in: its split, or `""` before `split`.
fn set_of(article: &Article) -> String {
    article.split.clone().unwrap_or_default()
}
