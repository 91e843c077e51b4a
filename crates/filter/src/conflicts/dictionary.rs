//! The evolving facts indexed for matching: every entity once, every name of every
//! entity in one [`Matcher`], and each fact reachable from its subject.

use std::collections::HashMap;

use tempora_engine::EntityRef;

use super::facts::EvolvingFact;
use super::matcher::{Matcher, MatcherBuilder, UseKind};
use super::options::{ConflictsOptions, PositionNames};
use super::positions::{is_head, unqualified_forms};

/// Shortest qualifier matched: two letters ("US", "UK"); qualifiers always match
/// with their exact case, so they make little noise.
const MIN_QUALIFIER_CHARS: usize = 2;

/// Everything the selection needs, built once before the first article.
#[derive(Debug)]
pub struct Dictionary {
    /// The evolving facts, in input order.
    pub facts: Vec<EvolvingFact>,
    /// Subject and object entity index of each fact.
    pub ends: Vec<(u32, u32)>,
    /// Entity ids and labels, by entity index.
    pub entities: Vec<EntityRef>,
    /// Facts by subject entity index.
    pub by_subject: Vec<Vec<u32>>,
    /// Every name.
    pub matcher: Matcher,
    /// Whether a position's head needs one of its qualifiers in the article.
    pub require_qualifier: bool,
}

/// Summary numbers of a built dictionary, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DictionaryStats {
    /// Evolving facts.
    pub facts: usize,
    /// Distinct entities.
    pub entities: usize,
    /// Distinct name patterns in the automaton.
    pub patterns: usize,
    /// Heap bytes of the automaton.
    pub automaton_bytes: usize,
}

impl Dictionary {
    /// Indexes `facts` and builds the automaton over their names under `options`.
    ///
    /// # Errors
    /// When the automaton would exceed the library's size limits.
    pub fn build(
        facts: Vec<EvolvingFact>,
        options: &ConflictsOptions,
    ) -> Result<Self, aho_corasick::BuildError> {
        let mut index: HashMap<String, u32> = HashMap::new();
        let mut entities: Vec<EntityRef> = Vec::new();
        let mut is_position: Vec<bool> = Vec::new();
        let mut intern = |e: &EntityRef, position: bool| -> u32 {
            let i = *index.entry(e.id.clone()).or_insert_with(|| {
                entities.push(e.clone());
                is_position.push(false);
                (entities.len() - 1) as u32
            });
            is_position[i as usize] |= position;
            i
        };
        let ends: Vec<(u32, u32)> = facts
            .iter()
            .map(|f| {
                // P39: person holds position; P1308: position has holder.
                let (subject_is_position, object_is_position) = match f.fact.relation.as_str() {
                    "P39" => (false, true),
                    "P1308" => (true, false),
                    _ => (false, false),
                };
                (
                    intern(&f.fact.subject, subject_is_position),
                    intern(&f.fact.object, object_is_position),
                )
            })
            .collect();
        let mut by_subject = vec![Vec::new(); entities.len()];
        for (i, (subject, _)) in ends.iter().enumerate() {
            by_subject[*subject as usize].push(i as u32);
        }

        let mut builder = MatcherBuilder::new(!options.case_sensitive);
        let mut groups = 0u32;
        for (i, entity) in entities.iter().enumerate() {
            let names: Vec<&str> = if options.use_aliases {
                entity.names().collect()
            } else {
                entity.label.as_deref().into_iter().collect()
            };
            let long_enough = |n: &str| n.trim().chars().count() >= options.min_name_chars;
            let forms = if is_position[i] {
                unqualified_forms(&names)
            } else {
                Vec::new()
            };
            for name in names.iter().filter(|n| long_enough(n)) {
                if !is_head(name, &forms) {
                    builder.add(name, UseKind::Name, i as u32, is_acronym(name));
                }
            }
            if options.position_names == PositionNames::Full {
                continue;
            }
            for form in &forms {
                let group = groups;
                groups += 1;
                if form.head.chars().count() >= options.min_name_chars {
                    builder.add(&form.head, UseKind::Head { group }, i as u32, false);
                }
                if options.position_names == PositionNames::HeadWithQualifier {
                    for q in &form.qualifiers {
                        if q.chars().count() >= MIN_QUALIFIER_CHARS {
                            builder.add(q, UseKind::Qualifier, group, true);
                        }
                    }
                }
            }
        }
        Ok(Self {
            facts,
            ends,
            entities,
            by_subject,
            matcher: builder.build()?,
            require_qualifier: options.position_names == PositionNames::HeadWithQualifier,
        })
    }

    /// Sizes, for the log.
    pub fn stats(&self) -> DictionaryStats {
        DictionaryStats {
            facts: self.facts.len(),
            entities: self.entities.len(),
            patterns: self.matcher.patterns(),
            automaton_bytes: self.matcher.memory_usage(),
        }
    }

    /// "Joe Biden (Q6279)", for rejection reasons.
    pub fn describe(&self, entity: u32) -> String {
        match self.entities.get(entity as usize) {
            Some(EntityRef {
                id,
                label: Some(label),
                ..
            }) => format!("{label} ({id})"),
            Some(e) => e.id.clone(),
            None => format!("#{entity}"),
        }
    }
}

/// Names written in capitals only ("POTUS", "U.S.") are acronyms: matched with
/// their exact case even when folding, so "Potus" or "us" do not count.
fn is_acronym(name: &str) -> bool {
    let mut letters = name.chars().filter(|c| c.is_alphabetic()).peekable();
    letters.peek().is_some() && letters.all(char::is_uppercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acronyms_are_capitals_only() {
        assert!(is_acronym("POTUS"));
        assert!(is_acronym("U.S."));
        assert!(!is_acronym("Joe Biden"));
        assert!(!is_acronym("1999"));
    }
}
