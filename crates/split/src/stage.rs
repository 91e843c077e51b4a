//! The `split` stage: options, validation, and the running stage that routes each
//! article to its set's port and keeps the per-set and per-year tallies.

use std::collections::BTreeMap;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    parse_options, OptionError, PipelineContext, Port, PortId, Stage, StageConfig, StageError,
    StageIo, StageStats,
};
use tempora_records::{Record, RecordKind};

use tempora_engine::windows::{SetSpec, Windows, UNASSIGNED};

/// Options of the `split` stage: none of its own; the sets are the pipeline's.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct SplitOptions {
    /// Not here: the sets are written once, in `[pipeline.sets]` (`name = { from,
    /// to }`), so that every stage that needs dates follows the same windows.
    /// Each set is an output port `split.<name>`, which some stage must read.
    #[serde(default)]
    #[schemars(with = "Option<Vec<SetSpec>>")]
    pub sets: Option<toml::Value>,
}

/// The `split` stage, configured.
#[derive(Debug)]
pub struct SplitConfig {
    windows: Windows,
}

impl SplitConfig {
    /// Parses the options and takes the pipeline's windows.
    ///
    /// # Errors
    /// Unknown options, and `sets` given here instead of in `[pipeline.sets]`.
    pub fn configure(table: toml::Table, ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        let options: SplitOptions = parse_options(table)?;
        if options.sets.is_some() {
            return Err(vec![OptionError {
                key: Some("sets".into()),
                message: "the sets are written once, for every stage that needs dates: move them \
                          to [pipeline.sets] as `NAME = { from = ..., to = ... }`"
                    .into(),
            }]);
        }
        Ok(Self {
            windows: ctx.windows.clone(),
        })
    }

    /// The resolved windows.
    pub fn windows(&self) -> &Windows {
        &self.windows
    }
}

#[async_trait(?Send)]
impl StageConfig for SplitConfig {
    fn gives_fields(&self) -> &'static [&'static str] {
        &["split"]
    }

    fn outputs(&self) -> Vec<Port> {
        self.windows
            .windows()
            .iter()
            .map(|w| Port::set(w.name.as_str(), RecordKind::Article))
            .chain([Port::named(UNASSIGNED, RecordKind::Article)])
            .collect()
    }

    fn build(&self, _ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(SplitStage {
            windows: self.windows.clone(),
        }))
    }
}

/// The running `split` stage. Assigning a date is a few comparisons, so it runs on
/// the I/O task itself; there is no CPU work to move to a blocking thread.
struct SplitStage {
    windows: Windows,
}

/// Counts per set (and `unassigned`) and per publication year, for `run.json`.
#[derive(Debug, Default)]
struct Tally {
    sets: BTreeMap<String, u64>,
    years: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Tally {
    fn add(&mut self, set: &str, year: i32) {
        *self.sets.entry(set.to_string()).or_default() += 1;
        *self
            .years
            .entry(year.to_string())
            .or_default()
            .entry(set.to_string())
            .or_default() += 1;
    }

    fn publish(&self, stats: &StageStats) {
        stats.set_metric("sets", serde_json::json!(self.sets));
        stats.set_metric("years", serde_json::json!(self.years));
    }
}

#[async_trait]
impl Stage for SplitStage {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let ports = self
            .windows
            .windows()
            .iter()
            .map(|w| io.port(&w.name))
            .collect::<Result<Vec<PortId>, _>>()?;
        let unassigned = io.port(UNASSIGNED)?;
        let mut tally = Tally::default();
        // Every set shows in run.json, with 0 when nothing landed in it.
        for name in self
            .windows
            .windows()
            .iter()
            .map(|w| w.name.as_str())
            .chain([UNASSIGNED])
        {
            tally.sets.insert(name.to_string(), 0);
        }
        while let Some(batch) = io.recv().await? {
            for record in batch {
                let Record::Article(mut article) = record else {
                    let reason = format!("split takes articles, got a {}", record.kind());
                    io.reject(record.to_json(), reason, None).await?;
                    continue;
                };
                let year = chrono::Datelike::year(&article.published);
                let (port, set) = match self.windows.assign(article.published) {
                    Some(i) => (ports[i], self.windows.windows()[i].name.as_str()),
                    None => (unassigned, UNASSIGNED),
                };
                tally.add(set, year);
                article.split = (port != unassigned).then(|| set.to_string());
                io.emit(port, Record::Article(article)).await?;
            }
            tally.publish(io.stats());
        }
        io.stats()
            .count(UNASSIGNED, tally.sets.get(UNASSIGNED).copied().unwrap_or(0));
        tally.publish(io.stats());
        io.flush().await
    }
}
