//! The evolving facts indexed for matching: every entity once, every name of every
//! entity in one [`Matcher`], and each fact reachable from its subject.

use std::collections::HashMap;

use tempora_records::EntityRef;

use crate::error::FilterError;

use super::facts::EvolvingFact;
use super::matcher::{prefetch, Matcher, MatcherBuilder, NameUse};
use super::options::{ConflictsOptions, PositionNames};
use super::positions::{is_head, unqualified_forms};

/// Shortest qualifier matched: two letters ("US", "UK"); qualifiers always match
/// with their exact case, so they make little noise.
const MIN_QUALIFIER_CHARS: usize = 2;

/// Everything the selection needs, built once before the first article.
#[derive(Debug)]
pub struct Dictionary {
    /// The evolving facts, in the canonical order (`tempora_records::order`): every
    /// number below (facts, entities, names) follows from the facts' content, never
    /// from the order they came in.
    pub facts: Vec<EvolvingFact>,
    /// Subject and object entity index of each fact.
    pub ends: Vec<(u32, u32)>,
    /// "Joe Biden (Q6279)" for each entity, one after another: rejection reasons
    /// name entities, and most articles are rejected, so these are written once.
    descriptions: String,
    /// Where each entity's description ends in `descriptions` (one per entity).
    description_ends: Vec<usize>,
    /// (object, fact) by subject, sorted.
    by_subject: Grouped<(u32, u32)>,
    /// The entities each entity is linked to by a fact, either way round (for
    /// the holder rule), sorted, each once.
    links: Grouped<u32>,
    /// Every name.
    pub matcher: Matcher,
    /// What each qualifier ([`NameUse::Qualifier`]) licenses: (head variant,
    /// position) pairs, sorted.
    licensing: Grouped<(u32, u32)>,
    /// Every position each head variant stands for, qualifiers or not (sorted).
    pub head_entities: HashMap<u32, Vec<u32>>,
    /// Whether a position's head needs context: a qualifier named in the article
    /// or a holder's name right after it.
    pub head_needs_context: bool,
}

/// Summary numbers of a built dictionary, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DictionaryStats {
    /// Evolving facts.
    pub facts: usize,
    /// Distinct entities.
    pub entities: usize,
    /// Distinct name patterns in the matcher.
    pub patterns: usize,
    /// Heap bytes of the matcher.
    pub matcher_bytes: usize,
    /// Names left out because they do not start with a letter or digit.
    pub skipped_names: usize,
}

impl Dictionary {
    /// Indexes `facts` and builds the matcher over their names under `options`.
    ///
    /// # Errors
    /// When the names are too many to index.
    pub fn build(
        mut facts: Vec<EvolvingFact>,
        options: &ConflictsOptions,
    ) -> Result<Self, FilterError> {
        facts.sort_by(|a, b| a.fact.canonical_cmp(&b.fact));
        let Entities {
            entities,
            is_position,
            ends,
        } = Entities::index(&facts);
        let by_subject = group_by_subject(entities.len(), &ends);
        let links = group_links(entities.len(), &ends);
        let (descriptions, description_ends) = describe_entities(&facts, &entities);
        let mut names = NameIndex::new(options);
        for (i, &(f, as_subject)) in entities.iter().enumerate() {
            let entity = entity_ref(&facts, f, as_subject);
            names.add_entity(i as u32, entity, is_position[i], options);
        }
        let BuiltNames {
            matcher,
            licensing,
            head_entities,
        } = names.build()?;
        Ok(Self {
            facts,
            ends,
            descriptions,
            description_ends,
            by_subject,
            links,
            matcher,
            licensing,
            head_entities,
            head_needs_context: options.position_names == PositionNames::HeadInContext,
        })
    }

    /// Sizes, for the log.
    pub fn stats(&self) -> DictionaryStats {
        DictionaryStats {
            facts: self.facts.len(),
            entities: self.description_ends.len(),
            patterns: self.matcher.patterns(),
            matcher_bytes: self.matcher.memory_usage(),
            skipped_names: self.matcher.skipped(),
        }
    }

    /// The facts with this subject: (object, fact), sorted.
    pub fn facts_of_subject(&self, subject: u32) -> &[(u32, u32)] {
        self.by_subject.get(subject)
    }

    /// Where the facts of `subject` start, fetched ahead of [`Self::facts_of_subject`].
    pub fn prefetch_facts_of_subject(&self, subject: u32) {
        if let Some(start) = self.by_subject.starts.get(subject as usize) {
            prefetch(start);
        }
    }

    /// What naming the qualifier `qualifier` ([`NameUse::Qualifier`]) licenses:
    /// (head variant, position) pairs, sorted: the head then stands for the
    /// position.
    pub fn licensed_by(&self, qualifier: u32) -> &[(u32, u32)] {
        self.licensing.get(qualifier)
    }

    /// The entities an evolving fact links `entity` to, either way round (the
    /// positions a holder held, the holders of a position), sorted.
    pub fn linked(&self, entity: u32) -> &[u32] {
        self.links.get(entity)
    }

    /// Appends "Joe Biden (Q6279)" (the id alone for an entity without a label),
    /// for rejection reasons.
    pub fn describe(&self, entity: u32, out: &mut String) {
        let e = entity as usize;
        let from = if e == 0 {
            0
        } else {
            self.description_ends.get(e - 1).copied().unwrap_or(0)
        };
        match self
            .description_ends
            .get(e)
            .and_then(|&to| self.descriptions.get(from..to))
        {
            Some(description) => out.push_str(description),
            None => out.push_str(&format!("#{entity}")),
        }
    }
}

/// Every entity of the facts once, numbered in order of first appearance.
struct Entities {
    /// Where each entity first appears: (fact, whether as its subject).
    entities: Vec<(u32, bool)>,
    /// Whether each entity is a position (the object of a `P39` fact or the
    /// subject of a `P1308` one, anywhere).
    is_position: Vec<bool>,
    /// Subject and object entity index of each fact.
    ends: Vec<(u32, u32)>,
}

impl Entities {
    /// Numbers the subjects and objects of `facts` by entity id.
    fn index(facts: &[EvolvingFact]) -> Self {
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut entities: Vec<(u32, bool)> = Vec::new();
        let mut is_position: Vec<bool> = Vec::new();
        let mut ends: Vec<(u32, u32)> = Vec::with_capacity(facts.len());
        for (f, evolving) in facts.iter().enumerate() {
            let fact = &evolving.fact;
            // P39: person holds position; P1308: position has holder.
            let (subject_is_position, object_is_position) = match fact.relation.as_str() {
                "P39" => (false, true),
                "P1308" => (true, false),
                _ => (false, false),
            };
            let mut ids = [0u32; 2];
            let sides = [
                (&fact.subject, true, subject_is_position),
                (&fact.object, false, object_is_position),
            ];
            for (slot, (entity, as_subject, position)) in ids.iter_mut().zip(sides) {
                let next = entities.len() as u32;
                let i = *index.entry(entity.id.as_str()).or_insert(next);
                if i == next {
                    entities.push((f as u32, as_subject));
                    is_position.push(false);
                }
                is_position[i as usize] |= position;
                *slot = i;
            }
            let [subject, object] = ids;
            ends.push((subject, object));
        }
        Self {
            entities,
            is_position,
            ends,
        }
    }
}

/// (object, fact) by subject, sorted, over `entities` entities.
fn group_by_subject(entities: usize, ends: &[(u32, u32)]) -> Grouped<(u32, u32)> {
    let mut by_pair: Vec<(u32, u32, u32)> = ends
        .iter()
        .enumerate()
        .map(|(i, &(subject, object))| (subject, object, i as u32))
        .collect();
    by_pair.sort_unstable();
    Grouped::new(entities, by_pair.iter().map(|&(s, o, f)| (s, (o, f))))
}

/// The entities each entity is linked to by a fact, either way round, sorted,
/// each once.
fn group_links(entities: usize, ends: &[(u32, u32)]) -> Grouped<u32> {
    let mut links: Vec<(u32, u32)> = ends.iter().flat_map(|&(s, o)| [(s, o), (o, s)]).collect();
    links.sort_unstable();
    links.dedup();
    Grouped::new(entities, links.into_iter())
}

/// "Joe Biden (Q6279)" (the id alone without a label) for each entity, one after
/// another, and where each ends.
fn describe_entities(facts: &[EvolvingFact], entities: &[(u32, bool)]) -> (String, Vec<usize>) {
    let mut descriptions = String::new();
    let mut description_ends = Vec::with_capacity(entities.len());
    for &(f, as_subject) in entities {
        let entity = entity_ref(facts, f, as_subject);
        if let Some(label) = &entity.label {
            descriptions.push_str(label);
            descriptions.push_str(" (");
            descriptions.push_str(&entity.id);
            descriptions.push(')');
        } else {
            descriptions.push_str(&entity.id);
        }
        description_ends.push(descriptions.len());
    }
    (descriptions, description_ends)
}

/// The names of every entity on their way into the matcher, with the heads of
/// position names and the qualifiers that license them.
struct NameIndex {
    builder: MatcherBuilder,
    /// (head variant, position).
    heads: Vec<(u32, u32)>,
    /// (qualifier, head variant, position).
    qualified: Vec<(u32, u32, u32)>,
    /// Qualifiers by spelling (always matched exactly).
    qualifier_ids: HashMap<String, u32>,
}

impl NameIndex {
    /// An empty index matching as `options` say.
    fn new(options: &ConflictsOptions) -> Self {
        Self {
            builder: MatcherBuilder::new(!options.case_sensitive).whole_words(options.whole_words),
            heads: Vec::new(),
            qualified: Vec::new(),
            qualifier_ids: HashMap::new(),
        }
    }

    /// Adds the names of entity `i` that are long enough (its label, with its
    /// aliases under `use_aliases`), leaving out a position's names that are a
    /// bare head; then, unless `position_names` is `full`, a position's heads
    /// and, for `head_in_context`, the qualifiers of each head.
    fn add_entity(
        &mut self,
        i: u32,
        entity: &EntityRef,
        is_position: bool,
        options: &ConflictsOptions,
    ) {
        let names: Vec<&str> = if options.use_aliases {
            entity.names().collect()
        } else {
            entity.label.as_deref().into_iter().collect()
        };
        let long_enough = |n: &str| n.trim().chars().count() >= options.min_name_chars;
        let forms = if is_position {
            unqualified_forms(&names)
        } else {
            Vec::new()
        };
        for name in names.iter().filter(|n| long_enough(n)) {
            if !is_head(name, &forms) {
                self.builder.add(name, NameUse::Name(i), is_acronym(name));
            }
        }
        if options.position_names == PositionNames::Full {
            return;
        }
        for form in forms.iter().filter(|f| long_enough(&f.head)) {
            let Some(head) = self.builder.add(&form.head, NameUse::Head, false) else {
                continue;
            };
            self.heads.push((head, i));
            if options.position_names == PositionNames::HeadInContext {
                self.add_qualifiers(&form.qualifiers, head, i);
            }
        }
    }

    /// Adds the qualifiers of a head variant of position `position` (those of
    /// at least [`MIN_QUALIFIER_CHARS`]), each licensing that head.
    fn add_qualifiers(&mut self, qualifiers: &[String], head: u32, position: u32) {
        for q in qualifiers {
            if q.chars().count() < MIN_QUALIFIER_CHARS {
                continue;
            }
            let next = self.qualifier_ids.len() as u32;
            let id = *self
                .qualifier_ids
                .entry(q.trim().to_string())
                .or_insert(next);
            if self.builder.add(q, NameUse::Qualifier(id), true).is_some() {
                self.qualified.push((id, head, position));
            }
        }
    }

    /// Builds the matcher, and indexes the heads and qualifiers added.
    ///
    /// # Errors
    /// When the names are too many to index.
    fn build(self) -> Result<BuiltNames, FilterError> {
        let mut heads = self.heads;
        heads.sort_unstable();
        heads.dedup();
        let mut head_entities: HashMap<u32, Vec<u32>> = HashMap::new();
        for &(head, position) in &heads {
            head_entities.entry(head).or_default().push(position);
        }
        let mut qualified = self.qualified;
        qualified.sort_unstable();
        qualified.dedup();
        let licensing = Grouped::new(
            self.qualifier_ids.len(),
            qualified.into_iter().map(|(q, h, p)| (q, (h, p))),
        );
        Ok(BuiltNames {
            matcher: self.builder.build()?,
            licensing,
            head_entities,
        })
    }
}

/// The names indexed: the matcher and what heads and qualifiers stand for.
struct BuiltNames {
    /// Every name.
    matcher: Matcher,
    /// What each qualifier licenses: (head variant, position) pairs, sorted.
    licensing: Grouped<(u32, u32)>,
    /// Every position each head variant stands for (sorted).
    head_entities: HashMap<u32, Vec<u32>>,
}

/// The items of `sorted` (sorted by `key`) whose key is `wanted`.
pub fn equal_range<T, K: Ord>(sorted: &[T], wanted: K, key: impl Fn(&T) -> K) -> &[T] {
    let from = sorted.partition_point(|item| key(item) < wanted);
    let to = from + sorted[from..].partition_point(|item| key(item) == wanted);
    &sorted[from..to]
}

/// Items grouped by a key from 0 to n, all in one list: those of key `k` are
/// `items[starts[k]..starts[k + 1]]` (two adjacent numbers and one slice, where a
/// `Vec` per key would be a pointer to chase and an allocation each).
#[derive(Debug, Clone)]
struct Grouped<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Grouped<T> {
    /// Groups `items` (sorted by key, keys below `keys`).
    fn new(keys: usize, items: impl Iterator<Item = (u32, T)>) -> Self {
        let mut starts = vec![0u32; keys + 1];
        let items: Vec<T> = items
            .map(|(key, item)| {
                starts[key as usize + 1] += 1;
                item
            })
            .collect();
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        Self { starts, items }
    }

    fn get(&self, key: u32) -> &[T] {
        let k = key as usize;
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&from), Some(&to)) => self.items.get(from as usize..to as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

fn entity_ref(facts: &[EvolvingFact], f: u32, as_subject: bool) -> &EntityRef {
    let fact = &facts[f as usize].fact;
    if as_subject {
        &fact.subject
    } else {
        &fact.object
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
