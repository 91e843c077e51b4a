//! The one order of the collections records hold, so that no published byte
//! depends on the order in which a run met its inputs (a dump's entities, a
//! listing's rows, concurrent fetches).
//!
//! - Facts (a facts file's lines, an article's or a manifest row's `facts`): by
//!   subject id, relation, start and object id (a fact's sort key), then by every
//!   other field ([`Fact::canonical_cmp`]).
//! - An article's fact matches: by their fact, then the rest
//!   ([`sort_fact_matches`]).
//! - A match's `mentions`: the subject's names first, then the object's; each
//!   side's in the document before the summary; then by the name
//!   ([`FactMatch::sort_mentions`]).
//!
//! Stages that build such a list put it in this order; the output schema
//! (docs/reference.md) says so for each field.

use std::cmp::Ordering;

use crate::article::{FactMatch, Mention};
use crate::fact::{EntityRef, Fact};

impl Fact {
    /// The canonical order of facts: subject id, relation, start (a missing start
    /// first), object id, end, then the remaining fields, so that two facts that
    /// differ anywhere are ordered and equal facts compare equal.
    pub fn canonical_cmp(&self, other: &Self) -> Ordering {
        fact_key(self)
            .cmp(&fact_key(other))
            .then_with(|| names(&self.subject).cmp(&names(&other.subject)))
            .then_with(|| names(&self.object).cmp(&names(&other.object)))
    }
}

/// A fact's fields but its entities' names, in the order they are compared.
type FactKey<'a> = (
    (&'a str, &'a str),
    (Option<&'a str>, &'a str, Option<&'a str>),
    (&'a str, bool, Option<&'a str>),
    (Option<&'a str>, Option<&'a str>),
);

fn fact_key(f: &Fact) -> FactKey<'_> {
    (
        (f.subject.id.as_str(), f.relation.as_str()),
        (f.start.as_deref(), f.object.id.as_str(), f.end.as_deref()),
        (
            f.rank.as_str(),
            f.valid_at_cutoff,
            f.pair_changed.as_deref(),
        ),
        (f.replaces.as_deref(), f.replaced_by.as_deref()),
    )
}

/// An entity's names, for the last tie of two facts.
fn names(e: &EntityRef) -> (Option<&str>, &[String]) {
    (e.label.as_deref(), &e.aliases)
}

impl FactMatch {
    /// Puts `mentions` in the canonical order: the subject's names first, then the
    /// object's; each side's in the document before those in the summary; then by
    /// the name.
    pub fn sort_mentions(&mut self) {
        let subject = self.fact.subject.id.as_str();
        let key = |m: &Mention| {
            (
                m.entity != subject,
                m.field,
                m.name.clone(),
                m.entity.clone(),
            )
        };
        self.mentions.sort_by_cached_key(key);
    }

    /// The canonical order of matches: by fact, then whether the article is after
    /// the change, then by the (sorted) mentions.
    pub fn canonical_cmp(&self, other: &Self) -> Ordering {
        self.fact
            .canonical_cmp(&other.fact)
            .then_with(|| self.after_change.cmp(&other.after_change))
            .then_with(|| mention_keys(self).cmp(mention_keys(other)))
    }
}

fn mention_keys(m: &FactMatch) -> impl Iterator<Item = (&str, crate::TextField, &str)> {
    m.mentions
        .iter()
        .map(|m| (m.entity.as_str(), m.field, m.name.as_str()))
}

/// Puts an article's (or a manifest row's) facts in the canonical order, each
/// match's mentions too.
pub fn sort_fact_matches(facts: &mut [FactMatch]) {
    for m in facts.iter_mut() {
        m.sort_mentions();
    }
    facts.sort_by(FactMatch::canonical_cmp);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TextField;

    fn entity(id: &str) -> EntityRef {
        EntityRef {
            id: id.into(),
            label: Some(format!("label of {id}")),
            aliases: Vec::new(),
        }
    }

    fn fact(s: &str, rel: &str, o: &str, start: Option<&str>) -> Fact {
        Fact {
            subject: entity(s),
            relation: rel.into(),
            object: entity(o),
            start: start.map(str::to_string),
            end: None,
            replaces: None,
            replaced_by: None,
            rank: "normal".into(),
            valid_at_cutoff: false,
            pair_changed: None,
        }
    }

    fn mention(entity: &str, name: &str, field: TextField) -> Mention {
        Mention {
            entity: entity.into(),
            name: name.into(),
            field,
        }
    }

    /// Every permutation of `items`.
    fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut all = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(i);
            for mut tail in permutations(&rest) {
                tail.insert(0, first.clone());
                all.push(tail);
            }
        }
        all
    }

    #[test]
    fn facts_in_any_order_sort_to_one_order() {
        let mut other_label = fact("Q1", "P39", "Q9", Some("2021"));
        other_label.subject.label = Some("another label".into());
        let facts = vec![
            fact("Q6279", "P39", "Q11696", Some("2021-01-20")),
            fact("Q11696", "P1308", "Q6279", Some("2021-01-20")),
            fact("Q6279", "P39", "Q11699", Some("2009-01-20")),
            fact("Q6279", "P39", "Q11699", None),
            fact("Q1", "P39", "Q9", Some("2021")),
            other_label,
        ];
        let mut first = facts.clone();
        first.sort_by(Fact::canonical_cmp);
        assert_eq!(first[0].subject.id, "Q1");
        assert_eq!(first[2].subject.id, "Q11696");
        // A fact without a start comes before the same fact with one.
        assert_eq!(first[3].start, None);
        assert_eq!(first[4].start.as_deref(), Some("2009-01-20"));
        for mut order in permutations(&facts) {
            order.sort_by(Fact::canonical_cmp);
            assert_eq!(order, first);
        }
    }

    #[test]
    fn mentions_go_subject_then_object_document_then_summary() {
        let mut m = FactMatch {
            fact: fact("Q11696", "P1308", "Q6279", Some("2021-01-20")),
            mentions: vec![
                mention("Q6279", "Joe Biden", TextField::Summary),
                mention("Q11696", "President", TextField::Summary),
                mention("Q6279", "Biden", TextField::Document),
                mention("Q11696", "US President", TextField::Document),
                mention("Q6279", "Joe Biden", TextField::Document),
            ],
            after_change: true,
        };
        let expected = [
            ("Q11696", "US President", TextField::Document),
            ("Q11696", "President", TextField::Summary),
            ("Q6279", "Biden", TextField::Document),
            ("Q6279", "Joe Biden", TextField::Document),
            ("Q6279", "Joe Biden", TextField::Summary),
        ];
        for mentions in permutations(&m.mentions.clone()) {
            m.mentions = mentions;
            let mut matches = [m.clone()];
            sort_fact_matches(&mut matches);
            let got: Vec<(&str, &str, TextField)> = matches[0]
                .mentions
                .iter()
                .map(|m| (m.entity.as_str(), m.name.as_str(), m.field))
                .collect();
            assert_eq!(got, expected);
        }
    }
}
