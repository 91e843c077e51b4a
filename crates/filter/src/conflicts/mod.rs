//! The `conflicts` stage: keeps the articles that state an evolving fact, the
//! TempoSum selection of knowledge-conflict samples.
//!
//! Names are the labels and aliases of each fact's subject and object (and, for
//! positions, the unqualified head with its qualifiers: see [`PositionNames`]),
//! matched on word boundaries in one pass per text over a trie of every name
//! whose alphabet is words (see [`matcher`]). A kept article
//! gets `facts`: every evolving fact its document names in full, with each name
//! found and where, and `after_change` = published on or after the day the pair
//! changed (the article states what a model with this cutoff cannot know).

pub mod dictionary;
pub mod facts;
pub mod matcher;
pub mod options;
pub mod positions;
pub mod select;
pub mod words;

use std::path::PathBuf;
use std::time::Instant;

use chrono::NaiveDate;
use rayon::prelude::*;
use tempora_engine::{
    parse_options, Batch, Emitted, OptionError, PipelineContext, Port, SideInput, SideInputs,
    Stage, StageConfig, StageError, Transform, TransformStage,
};
use tempora_records::counters::RelationArticles;
use tempora_records::{FactMatch, Record, RecordKind};

pub use dictionary::Dictionary;
pub use options::{ConflictsOptions, PositionNames};
pub use select::{select, Criterion, Verdict};

/// The `conflicts` stage, configured.
#[derive(Debug)]
pub struct ConflictsConfig {
    options: ConflictsOptions,
}

impl ConflictsConfig {
    /// Parses and checks the options.
    ///
    /// # Errors
    /// Unknown or mistyped keys; both or neither of `facts` and `facts_file`;
    /// `min_name_chars = 0`.
    pub fn configure(table: toml::Table, _ctx: &PipelineContext) -> Result<Self, Vec<OptionError>> {
        let options: ConflictsOptions = parse_options(table)?;
        let mut errors = Vec::new();
        errors.extend(facts_origin(&options).check());
        if options.min_name_chars == 0 {
            errors.push(OptionError {
                key: Some("min_name_chars".into()),
                message: "must be at least 1".into(),
            });
        }
        if errors.is_empty() {
            Ok(Self { options })
        } else {
            Err(errors)
        }
    }
}

impl StageConfig for ConflictsConfig {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Article)]
    }

    fn side_inputs(&self) -> Vec<SideInput> {
        facts_origin(&self.options).side_inputs()
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        facts_origin(&self.options).reads()
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(TransformStage(Conflicts {
            options: self.options.clone(),
            cutoff: ctx.cutoff,
            dictionary: None,
        })))
    }
}

/// The running `conflicts` stage.
struct Conflicts {
    options: ConflictsOptions,
    cutoff: NaiveDate,
    dictionary: Option<Dictionary>,
}

/// Where the options say the facts come from.
fn facts_origin(options: &ConflictsOptions) -> facts::FactsOrigin<'_> {
    facts::FactsOrigin {
        stage: options.facts.as_deref(),
        file: options.facts_file.as_deref(),
    }
}

impl Transform for Conflicts {
    fn prepare(&mut self, side: &mut SideInputs) -> Result<(), StageError> {
        let started = Instant::now();
        let all = facts_origin(&self.options).load(side)?;
        let read = all.len();
        let evolving = facts::evolving_facts(all, self.cutoff)?;
        let dictionary = Dictionary::build(evolving, &self.options)?;
        let stats = dictionary.stats();
        if stats.facts == 0 {
            tracing::warn!(
                facts_read = read,
                "no evolving facts: every article will fail criterion 1"
            );
        }
        tracing::info!(
            facts_read = read,
            evolving = stats.facts,
            entities = stats.entities,
            names = stats.patterns,
            matcher_bytes = stats.matcher_bytes,
            skipped_names = stats.skipped_names,
            ms = started.elapsed().as_millis() as u64,
            "conflict matcher built"
        );
        self.dictionary = Some(dictionary);
        Ok(())
    }

    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        let dict = self
            .dictionary
            .as_ref()
            .ok_or_else(|| StageError::internal("conflicts: process before prepare"))?;
        let same_fact = self.options.summary_same_fact;
        let verdicts: Vec<Option<Verdict>> = batch
            .par_iter()
            .map(|record| match record {
                Record::Article(a) => Some(select(dict, a, same_fact)),
                _ => None,
            })
            .collect();
        for (record, verdict) in batch.into_iter().zip(verdicts) {
            match (record, verdict) {
                (Record::Article(mut article), Some(Verdict::Keep(matches))) => {
                    out.count("kept", 1);
                    if matches.iter().any(|m| m.after_change) {
                        out.count("kept_after_change", 1);
                    }
                    article.relations = FactMatch::relations_of(&matches);
                    for relation in &article.relations {
                        out.count(&RelationArticles(relation).name(), 1);
                    }
                    article.facts = matches;
                    out.push(Record::Article(article));
                }
                (record, Some(Verdict::Reject(criterion, reason))) => {
                    out.count(criterion.counter(), 1);
                    out.reject(&record, reason);
                }
                (record, _) => {
                    let reason = format!("conflicts takes articles, got a {}", record.kind());
                    out.reject(&record, reason);
                }
            }
        }
        Ok(())
    }
}
