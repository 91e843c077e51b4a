//! Reading the evolving facts of a dump: the first pass finds them, a second pass
//! (only when needed) finds the names of their objects.
//!
//! Object names: the object of a fact (a position for `P39`, a person for `P1308`)
//! has its names on its own entity line, which may come before or after the line
//! that refers to it. The first pass keeps the names of every candidate line (most
//! objects are candidates themselves: positions have `P1308`, holders `P39`) and of
//! any other line whose id was referred to by an earlier fact. What is still missing
//! afterwards and whose id the first pass saw in the dump (a bitmap of item ids,
//! 16 MB for 130 million items) is looked up by a second pass, which only reads ids
//! at the start of lines and stops as soon as the last name is found. Objects that
//! are not in the dump at all never cause a second pass. On the synthetic
//! benchmark dump every object with a line is a candidate, so no second pass runs;
//! on the real dump the second pass costs up to one more read of the file. Input
//! from stdin cannot be read twice: objects named neither way keep `label: null`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use chrono::NaiveDate;
use tempora_engine::{OnError, StageStats};
use tempora_records::Fact;

use crate::collect::{Collector, Rejection};
use crate::error::WikidataError;
use crate::input::DumpInput;
use crate::lines::LineClassifier;
use crate::scan::scan_pass;

/// What to read from a dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactsQuery {
    /// Properties whose statements can make evolving pairs (`P39`, `P1308`).
    pub relations: Vec<String>,
    /// Languages of labels and aliases, in order of preference.
    pub languages: Vec<String>,
    /// The knowledge cutoff.
    pub cutoff: NaiveDate,
    /// What a malformed entity line does.
    pub on_error: OnError,
}

impl FactsQuery {
    /// What makes this query unusable, each problem with the option it concerns
    /// (`relations`, `languages`): an empty list, or a relation that is not a
    /// property id like `P39`. The `wikidata` stage and `tempora facts` refuse such
    /// a query alike, before reading anything.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        for (option, list) in [
            ("relations", &self.relations),
            ("languages", &self.languages),
        ] {
            if list.is_empty() {
                problems.push((option, "must list at least one".to_string()));
            }
        }
        if let Some(bad) = self
            .relations
            .iter()
            .find(|r| !tempora_relations::is_property(r))
        {
            problems.push((
                "relations",
                format!("`{bad}` is not a property id like `P39`"),
            ));
        }
        problems
    }
}

/// The outcome of reading a dump.
#[derive(Debug, Default)]
pub struct FactsRead {
    /// Facts of every evolving pair, in the canonical order
    /// ([`Fact::canonical_cmp`]), whatever the dump's order.
    pub facts: Vec<Fact>,
    /// Entity lines read (first pass).
    pub entities: u64,
    /// Lines that passed the byte pre-filter and were parsed.
    pub candidates: u64,
    /// Whether a second pass for object names ran.
    pub second_pass: bool,
    /// SHA-256 (hex) of the dump file as read (the first pass), when read to its end.
    pub sha256: Option<String>,
    /// What the dump held of each relation, in the query's order.
    pub relations: Vec<RelationTally>,
}

/// What a dump held of one relation, and the facts it gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelationTally {
    /// The property (`P54`).
    pub relation: String,
    /// Entities with a statement of it.
    pub subjects: u64,
    /// Their statements of it (deprecated and unusable ones included).
    pub statements: u64,
    /// Evolving (subject, relation) pairs.
    pub pairs: u64,
    /// Facts: the statements of those pairs.
    pub facts: u64,
}

impl RelationTally {
    /// The tallies of `relations` from the collector's counts (`held`, in the
    /// same order) and the facts read.
    pub fn of(relations: &[String], held: &[(u64, u64)], facts: &[Fact]) -> Vec<Self> {
        relations
            .iter()
            .enumerate()
            .map(|(i, relation)| {
                let (subjects, statements) = held.get(i).copied().unwrap_or_default();
                let mut tally = Self {
                    relation: relation.clone(),
                    subjects,
                    statements,
                    ..Self::default()
                };
                let mut last = None;
                for fact in facts.iter().filter(|f| f.relation == *relation) {
                    tally.facts += 1;
                    if last != Some(&fact.subject.id) {
                        tally.pairs += 1;
                        last = Some(&fact.subject.id);
                    }
                }
                tally
            })
            .collect()
    }

    /// One line for the user: `P54: 3021 statements on 1102 entities, 412
    /// evolving pairs, 1310 facts`, or, for a relation the input lacks, `P286:
    /// the dump holds no statement of it, 0 facts` (`input` names it: `dump`,
    /// `reading`).
    pub fn line(&self, input: &str) -> String {
        if self.statements == 0 {
            return format!(
                "{}: the {input} holds no statement of it, 0 facts",
                self.relation
            );
        }
        format!(
            "{}: {} statements on {} entities, {} evolving pairs, {} facts",
            self.relation, self.statements, self.subjects, self.pairs, self.facts
        )
    }
}

/// Reads the evolving facts of `dump` (a path, or `-` for stdin).
///
/// Progress goes to `stats` (compressed bytes of the file as the total; counters
/// `entities`, `candidates`, `facts`); rejected lines and statements go to `reject`.
/// Setting `cancel` stops the read at the next piece.
///
/// # Errors
/// A dump that cannot be opened, is not a dump, is truncated or corrupt; a malformed
/// line with `on_error = "fail"`; [`WikidataError::Cancelled`].
pub fn read_facts(
    dump: &str,
    query: &FactsQuery,
    stats: &StageStats,
    cancel: &Arc<AtomicBool>,
    reject: &mut dyn FnMut(Rejection),
) -> Result<FactsRead, WikidataError> {
    let input = DumpInput::open(dump)?;
    let digest = input.sha256.clone();
    let size = input.size.unwrap_or(0);
    stats.set_progress_total(size, true);
    let mut collector = Collector::new(&input.name, query.on_error, &query.languages, reject);
    let classifier = Arc::new(LineClassifier::new(
        &query.relations,
        &query.languages,
        query.cutoff,
    ));
    let mut shown = (0u64, 0u64, 0usize);
    let mut report = |base: u64, bytes: u64, c: &Collector<'_>| {
        stats.set_progress(base + bytes);
        stats.count("entities", c.entities - shown.0);
        stats.count("candidates", c.candidates - shown.1);
        stats.count("facts", (c.facts() - shown.2) as u64);
        shown = (c.entities, c.candidates, c.facts());
    };
    scan_pass(input, classifier, &mut collector, cancel, &mut |b, c| {
        report(0, b, c)
    })?;
    let (entities, candidates) = (collector.entities, collector.candidates);
    let missing = collector.unresolved_in_dump();
    let second_pass = missing > 0 && dump != "-";
    if second_pass {
        tracing::info!(
            dump,
            missing,
            "second pass for the names of objects read before they were referred to"
        );
        stats.set_progress_total(2 * size, true);
        let input = DumpInput::open(dump)?.without_digest();
        let names_only = Arc::new(LineClassifier::new(&[], &query.languages, query.cutoff));
        collector.restart();
        scan_pass(input, names_only, &mut collector, cancel, &mut |b, c| {
            stats.set_progress(size + b);
            let _ = c;
        })?;
    }
    stats.set_progress(if second_pass { 2 * size } else { size });
    // The one sort of a reading's facts: the stage emits them and `write_facts`
    // writes them in this order.
    let held = collector.held().to_vec();
    let mut facts = collector.into_facts();
    facts.sort_by(Fact::canonical_cmp);
    Ok(FactsRead {
        relations: RelationTally::of(&query.relations, &held, &facts),
        facts,
        entities,
        candidates,
        second_pass,
        sha256: digest.get().cloned(),
    })
}
