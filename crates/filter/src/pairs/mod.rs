//! The `minimal-pairs` stage: unfaithful copies of future articles' summaries,
//! each with exactly one fact error, for judging faithfulness metrics the way
//! BUMP (Ma et al., 2023) does.
//!
//! In: articles with `facts` (placed after `conflicts`), and the evolving facts
//! (side input `facts` or `facts_file`, read by the same code as `conflicts`).
//! Out: [`MinimalPair`](tempora_records::MinimalPair) records. For an article published after the cutoff whose
//! summary names the value an evolving (subject, relation) pair held on the
//! publication day, two edits of the summary, each replacing that one mention:
//! - `outdated`: the value the pair held at the cutoff, or failing that the latest
//!   before it ("President Joe Biden" -> "President Donald Trump" for the
//!   presidency's holder; -> "Vice President Joe Biden" for Biden's position; the
//!   manager before for a club's manager, the club before for a player's club);
//! - `non_verifiable`, the control: a value the pair never held, of the same kind
//!   where there is one (a holder of another US office, a position the person never
//!   held, another club's manager, a club the player never played for), chosen by
//!   a fixed hash of article and fact.
//!
//! Which side of a fact is the person, and the words that tie a club to its
//! player in a summary, come from the relation catalogue (`tempora-relations`,
//! with the `catalogue` option's folder): see [`timeline::Reading`].
//!
//! No pair when the value at the cutoff is the value on the publication day, or
//! when the summary names the value nowhere it can be replaced (see
//! [`PairMaker::pairs`]). Edits keep the rest of the summary byte for byte; a
//! bare possessive apostrophe and an "a"/"an" before the mention change with it,
//! inside the one span ([`edit::Edit::agreeing`]).

pub mod build;
pub mod edit;
pub mod timeline;

use std::path::PathBuf;

use chrono::NaiveDate;
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_engine::{
    parse_options, Batch, Emitted, OptionError, PipelineContext, Port, SideInput, SideInputs,
    Stage, StageConfig, StageError, Transform, TransformStage,
};
use tempora_records::{FactError, Record, RecordKind};
pub use tempora_relations::Catalogue;

pub use build::{Outcome, PairMaker, EXTRINSIC, INTRINSIC};
pub use timeline::Timelines;

use crate::conflicts::facts::{evolving_facts, FactsOrigin, SourcedFact};
use crate::error::FilterError;

/// The edits `minimal-pairs` writes unless `fact_errors` says otherwise, and the
/// ones `tempora pairs` writes: both kinds.
pub fn default_fact_errors() -> Vec<FactError> {
    vec![FactError::Outdated, FactError::NonVerifiable]
}

/// Options of the `minimal-pairs` stage.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct MinimalPairsOptions {
    /// The stage whose whole output is the evolving facts (a `wikidata` stage), taken
    /// as a side input. Give exactly one of `facts` and `facts_file`.
    #[serde(default)]
    pub facts: Option<String>,
    /// A facts JSONL file (one fact per line, as written by a `jsonl` sink or
    /// `tempora facts -o FILE.jsonl`), computed for the same cutoff as the pipeline.
    /// Give exactly one of `facts` and `facts_file`.
    #[serde(default)]
    pub facts_file: Option<PathBuf>,
    /// The kinds of edit to write: `outdated` (the value at the cutoff) and
    /// `non_verifiable` (a value the pair never held, the control).
    #[serde(default = "default_fact_errors")]
    #[schemars(default = "default_fact_errors")]
    pub fact_errors: Vec<FactError>,
    /// A folder of more relation catalogue entries (`*.toml`, the format of
    /// `config/relations/`), beside the shipped ones: which side of a fact is the
    /// person, and the role words that tie a club to its player in a summary. A
    /// relation in no entry still gets pairs: its value (the object) is replaced
    /// where the summary names it.
    #[serde(default)]
    pub catalogue: Option<PathBuf>,
}

impl MinimalPairsOptions {
    fn origin(&self) -> FactsOrigin<'_> {
        FactsOrigin {
            stage: self.facts.as_deref(),
            file: self.facts_file.as_deref(),
        }
    }
}

/// The `minimal-pairs` stage, configured.
#[derive(Debug)]
pub struct MinimalPairsConfig {
    options: MinimalPairsOptions,
    catalogue: Catalogue,
}

impl MinimalPairsConfig {
    /// Parses and checks the options.
    ///
    /// # Errors
    /// Unknown or mistyped keys; both or neither of `facts` and `facts_file`; an
    /// empty `fact_errors`; a `catalogue` folder that cannot be read or holds a
    /// wrong entry.
    pub fn configure(table: toml::Table, _ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        let options: MinimalPairsOptions = parse_options(table)?;
        let mut errors: Vec<OptionError> = options.origin().check().into_iter().collect();
        if options.fact_errors.is_empty() {
            errors.push(OptionError {
                key: Some("fact_errors".into()),
                message: "name at least one kind: `outdated`, `non_verifiable`".into(),
            });
        }
        let catalogue = match Catalogue::load(options.catalogue.as_deref()) {
            Ok(catalogue) => Some(catalogue),
            Err(e) => {
                errors.push(OptionError::at("catalogue", e.to_string()));
                None
            }
        };
        match catalogue {
            Some(catalogue) if errors.is_empty() => Ok(Self { options, catalogue }),
            _ => Err(errors),
        }
    }
}

impl StageConfig for MinimalPairsConfig {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Pair)]
    }

    fn side_inputs(&self) -> Vec<SideInput> {
        self.options.origin().side_inputs()
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        let mut reads = self.options.origin().reads();
        reads.extend(
            self.options
                .catalogue
                .iter()
                .map(|dir| ("catalogue".to_string(), dir.clone())),
        );
        reads
    }

    /// The shipped relation entries (a catalogue folder is an input file,
    /// fingerprinted as one): a release that reads a relation otherwise changes
    /// the pairs.
    fn fingerprint(&self) -> Vec<(String, String)> {
        if self.options.catalogue.is_some() {
            return Vec::new();
        }
        tempora_relations::SHIPPED
            .iter()
            .map(|(file, text)| {
                (
                    format!("shipped relation {file}"),
                    format!(
                        "sha256 {}",
                        tempora_engine::fingerprint::digest(text.as_bytes())
                    ),
                )
            })
            .collect()
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(TransformStage(MinimalPairs {
            options: self.options.clone(),
            catalogue: self.catalogue.clone(),
            cutoff: ctx.cutoff,
            maker: None,
        })))
    }
}

/// The facts checked against the cutoff (as `conflicts` checks them) and indexed,
/// each relation read as `catalogue` says.
///
/// # Errors
/// A fact whose pair changed on or before the cutoff, or an unreadable date.
pub fn timelines(
    facts: Vec<SourcedFact>,
    cutoff: NaiveDate,
    catalogue: &Catalogue,
) -> Result<Timelines, FilterError> {
    let all: Vec<_> = facts.iter().map(|(_, f)| f.clone()).collect();
    evolving_facts(facts, cutoff)?;
    Ok(Timelines::new(all, catalogue))
}

/// The pair maker of the `minimal-pairs` stage and of `tempora pairs`: `facts`
/// checked against the cutoff and indexed ([`timelines`]), making the
/// `fact_errors` edits of articles published after `cutoff`.
///
/// # Errors
/// See [`timelines`].
pub fn pair_maker(
    facts: Vec<SourcedFact>,
    cutoff: NaiveDate,
    fact_errors: Vec<FactError>,
    catalogue: &Catalogue,
) -> Result<PairMaker, FilterError> {
    Ok(PairMaker::new(
        timelines(facts, cutoff, catalogue)?,
        cutoff,
        fact_errors,
    ))
}

/// The running `minimal-pairs` stage.
struct MinimalPairs {
    options: MinimalPairsOptions,
    catalogue: Catalogue,
    cutoff: NaiveDate,
    maker: Option<PairMaker>,
}

impl Transform for MinimalPairs {
    fn prepare(&mut self, side: &mut SideInputs) -> Result<(), StageError> {
        let facts = self.options.origin().load(side)?;
        let read = facts.len();
        let errors = self.options.fact_errors.clone();
        let maker = pair_maker(facts, self.cutoff, errors, &self.catalogue)?;
        tracing::info!(facts_read = read, "minimal-pairs facts indexed");
        self.maker = Some(maker);
        Ok(())
    }

    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        let maker = self
            .maker
            .as_ref()
            .ok_or_else(|| StageError::internal("minimal-pairs: process before prepare"))?;
        let made: Vec<Option<_>> = batch
            .par_iter()
            .map(|record| match record {
                Record::Article(a) => Some(maker.pairs(a)),
                _ => None,
            })
            .collect();
        for (record, made) in batch.iter().zip(made) {
            let Some((outcome, pairs)) = made else {
                let reason = format!("minimal-pairs takes articles, got a {}", record.kind());
                out.reject(record, reason);
                continue;
            };
            out.count(outcome.counter(), 1);
            for pair in pairs {
                out.count(&format!("pairs_{}", pair.fact_error.as_str()), 1);
                out.push(Record::Pair(Box::new(pair)));
            }
        }
        Ok(())
    }
}
