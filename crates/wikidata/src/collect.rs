//! What the reading thread keeps while lines go by, in dump order: line numbers,
//! counts, the facts found, names of candidates and of the facts' objects, and
//! which items exist at all (for deciding whether a second pass can find more names).

use std::collections::{HashMap, HashSet};

use serde_json::json;
use tempora_engine::OnError;
use tempora_records::{EntityRef, Fact};

use crate::entity::{parse_names, Names};
use crate::error::WikidataError;
use crate::lines::{entity_text, line_id, preview, LineClassifier, LineKind};

/// A line or statement that could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    /// `line N`.
    pub location: String,
    /// Why.
    pub reason: String,
    /// The entity id and statement, or the start of the raw line.
    pub record: serde_json::Value,
}

/// Whether the scan should go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read on.
    Continue,
    /// Everything wanted was found: stop reading.
    Done,
}

/// The state kept by the reading thread across lines (and across both passes).
pub struct Collector<'a> {
    dump: String,
    on_error: OnError,
    languages: Vec<String>,
    reject: &'a mut dyn FnMut(Rejection),
    /// Lines completed so far (the current line's number once incremented).
    pub line: u64,
    /// Entity lines seen.
    pub entities: u64,
    /// Lines that passed the pre-filter.
    pub candidates: u64,
    seen_entity: bool,
    /// The second pass only looks for names: lines it cannot use were reported by the first.
    names_only: bool,
    facts: Vec<Fact>,
    candidate_names: HashMap<u64, Names>,
    /// Names of the facts' objects; `None` until the object's line is read.
    objects: HashMap<u64, Option<Names>>,
    unresolved: usize,
    exists: Vec<u64>,
    /// Per relation, in the classifier's order: the entities holding a statement
    /// of it, and those statements.
    held: Vec<(u64, u64)>,
}

impl<'a> Collector<'a> {
    /// A collector for `dump`; rejections go to `reject`.
    pub fn new(
        dump: &str,
        on_error: OnError,
        languages: &[String],
        reject: &'a mut dyn FnMut(Rejection),
    ) -> Self {
        Self {
            dump: dump.to_string(),
            on_error,
            languages: languages.to_vec(),
            reject,
            line: 0,
            entities: 0,
            candidates: 0,
            seen_entity: false,
            names_only: false,
            facts: Vec::new(),
            candidate_names: HashMap::new(),
            objects: HashMap::new(),
            unresolved: 0,
            exists: Vec::new(),
            held: Vec::new(),
        }
    }

    /// Starts the second pass (names only): line numbers count from 1 again.
    pub fn restart(&mut self) {
        self.line = 0;
        self.seen_entity = false;
        self.names_only = true;
    }

    /// Facts found so far.
    pub fn facts(&self) -> usize {
        self.facts.len()
    }

    /// Per relation, in the classifier's order: the entities that hold a
    /// statement of it and how many statements they hold (a relation no line
    /// held may be missing at the end).
    pub fn held(&self) -> &[(u64, u64)] {
        &self.held
    }

    fn tally(&mut self, held: &[u32]) {
        if self.held.len() < held.len() {
            self.held.resize(held.len(), (0, 0));
        }
        for (tally, &n) in self.held.iter_mut().zip(held) {
            if n > 0 {
                tally.0 += 1;
                tally.1 += u64::from(n);
            }
        }
    }

    /// Classifies and takes a line that was completed from several blocks.
    ///
    /// # Errors
    /// See [`Collector::take`].
    pub fn take_raw(
        &mut self,
        line: &[u8],
        classifier: &LineClassifier,
    ) -> Result<Flow, WikidataError> {
        let kind = classifier.classify(line);
        self.take(line, kind)
    }

    /// Takes the next line of the dump and what it is.
    ///
    /// # Errors
    /// A malformed line with `on_error = "fail"`, or a first entity line that is
    /// malformed (the input is not a dump).
    pub fn take(&mut self, line: &[u8], kind: LineKind) -> Result<Flow, WikidataError> {
        self.line += 1;
        match kind {
            LineKind::Bracket => {}
            LineKind::Entity(key) => {
                self.seen_entity = true;
                self.entities += 1;
                if let Some(key) = key {
                    self.mark_exists(key);
                    if matches!(self.objects.get(&key), Some(None)) {
                        return self.resolve(key, line);
                    }
                }
            }
            LineKind::Candidate(c) => {
                self.seen_entity = true;
                self.entities += 1;
                self.candidates += 1;
                self.tally(&c.held);
                for bad in c.bad {
                    (self.reject)(Rejection {
                        location: format!("line {}", self.line),
                        reason: format!(
                            "{} statement of {} rejected: {}",
                            bad.relation, c.id, bad.reason
                        ),
                        record: json!({"subject": c.id, "relation": bad.relation, "statement": bad.statement}),
                    });
                }
                for fact in &c.facts {
                    if let Some(key) = crate::lines::entity_key(fact.object.id.as_bytes()) {
                        self.objects.entry(key).or_insert_with(|| {
                            self.unresolved += 1;
                            None
                        });
                    }
                }
                self.facts.extend(c.facts);
                if let Some(key) = c.key {
                    self.mark_exists(key);
                    if let Some(slot @ None) = self.objects.get_mut(&key) {
                        *slot = Some(c.names.clone());
                        self.unresolved -= 1;
                    }
                    self.candidate_names.insert(key, c.names);
                }
            }
            LineKind::Malformed(reason) => return self.malformed(line, reason),
        }
        Ok(Flow::Continue)
    }

    fn resolve(&mut self, key: u64, line: &[u8]) -> Result<Flow, WikidataError> {
        match parse_names(entity_text(line), &self.languages) {
            Ok((_, names)) => {
                self.objects.insert(key, Some(names));
                self.unresolved -= 1;
                // Only the second pass, which looks for names alone, may stop
                // once it has them: the first must read on for more facts.
                Ok(if self.names_only && self.unresolved == 0 {
                    Flow::Done
                } else {
                    Flow::Continue
                })
            }
            Err(e) => self.malformed(line, format!("invalid entity JSON: {e}")),
        }
    }

    fn malformed(&mut self, line: &[u8], reason: String) -> Result<Flow, WikidataError> {
        if self.names_only {
            return Ok(Flow::Continue);
        }
        if !self.seen_entity {
            return Err(WikidataError::NotADump {
                dump: self.dump.clone(),
                why: format!("line {} is not an entity line ({reason})", self.line),
            });
        }
        match self.on_error {
            OnError::Fail => Err(WikidataError::MalformedLine {
                dump: self.dump.clone(),
                line: self.line,
                reason,
            }),
            OnError::Skip => {
                let id = line_id(line).map(|id| String::from_utf8_lossy(id).into_owned());
                (self.reject)(Rejection {
                    location: format!("line {}", self.line),
                    reason: format!("malformed entity line: {reason}"),
                    record: json!({"id": id, "line": preview(line)}),
                });
                Ok(Flow::Continue)
            }
        }
    }

    /// Checks the end of a pass.
    ///
    /// # Errors
    /// When the input held no entity line at all.
    pub fn finish_pass(&self) -> Result<(), WikidataError> {
        if self.seen_entity {
            Ok(())
        } else {
            Err(WikidataError::NotADump {
                dump: self.dump.clone(),
                why: "it holds no entity line".into(),
            })
        }
    }

    fn mark_exists(&mut self, key: u64) {
        // Items only; Q-ids are dense and below a few hundred million.
        if let Ok(n) = usize::try_from(key) {
            if n < 1 << 32 {
                if self.exists.len() <= n / 64 {
                    self.exists.resize(n / 64 + 1, 0);
                }
                self.exists[n / 64] |= 1 << (n % 64);
            }
        }
    }

    fn exists(&self, key: u64) -> bool {
        usize::try_from(key)
            .ok()
            .and_then(|n| self.exists.get(n / 64).map(|w| w & (1 << (n % 64)) != 0))
            .unwrap_or(false)
    }

    /// After the first pass: names objects from candidate lines read before they were
    /// referenced, and tells how many objects still lack names though their line is
    /// in the dump (a second pass would find them).
    pub fn unresolved_in_dump(&mut self) -> usize {
        for (key, slot) in self.objects.iter_mut() {
            if slot.is_none() {
                if let Some(names) = self.candidate_names.get(key) {
                    *slot = Some(names.clone());
                }
            }
        }
        let missing: HashSet<u64> = self
            .objects
            .iter()
            .filter(|(k, v)| v.is_none() && self.exists(**k))
            .map(|(k, _)| *k)
            .collect();
        // Objects that never appear in the dump can never be named: forget them, so
        // a second pass stops as soon as the others are found.
        self.objects
            .retain(|k, v| v.is_some() || missing.contains(k));
        self.unresolved = missing.len();
        missing.len()
    }

    /// The facts, objects named where their lines were found, in dump order.
    pub fn into_facts(self) -> Vec<Fact> {
        let Self {
            mut facts, objects, ..
        } = self;
        for fact in &mut facts {
            let key = crate::lines::entity_key(fact.object.id.as_bytes());
            if let Some(Some(names)) = key.and_then(|k| objects.get(&k)) {
                fact.object = EntityRef {
                    id: std::mem::take(&mut fact.object.id),
                    label: names.label.clone(),
                    aliases: names.aliases.clone(),
                };
            }
        }
        facts
    }
}
