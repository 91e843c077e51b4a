//! Each (subject, relation) pair's values over time, and what every entity held:
//! the value a pair had on a day, at the cutoff, and the values it never had.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDate;
use tempora_records::{EntityRef, Fact};

use crate::conflicts::facts::first_day;
use crate::conflicts::positions::unqualified_forms;

/// The facts indexed by pair and by entity.
#[derive(Debug, Default)]
pub struct Timelines {
    /// The facts of each (subject id, relation) pair, in input order.
    pairs: HashMap<(String, String), Vec<Fact>>,
    /// Every entity by id, with its names (the first reference with a label).
    entities: HashMap<String, EntityRef>,
    /// For each position, everyone who held it (P1308 objects, P39 subjects).
    holders: HashMap<String, BTreeSet<String>>,
    /// For each person, every position they held.
    held: HashMap<String, BTreeSet<String>>,
    /// Every position, sorted by id.
    positions: BTreeSet<String>,
}

impl Timelines {
    /// Indexes `facts` (all of them, not only those of evolving pairs: a value a
    /// pair "never held" must not be one a fact outside the evolving set shows).
    pub fn new(facts: impl IntoIterator<Item = Fact>) -> Self {
        let mut t = Self::default();
        for fact in facts {
            let (person, position) = match fact.relation.as_str() {
                "P39" => (&fact.subject, &fact.object),
                "P1308" => (&fact.object, &fact.subject),
                _ => continue,
            };
            for entity in [person, position] {
                let known = t.entities.get(&entity.id);
                if known.is_none_or(|k| k.label.is_none() && entity.label.is_some()) {
                    t.entities.insert(entity.id.clone(), entity.clone());
                }
            }
            t.holders
                .entry(position.id.clone())
                .or_default()
                .insert(person.id.clone());
            t.held
                .entry(person.id.clone())
                .or_default()
                .insert(position.id.clone());
            t.positions.insert(position.id.clone());
            t.pairs
                .entry((fact.subject.id.clone(), fact.relation.clone()))
                .or_default()
                .push(fact);
        }
        t
    }

    /// The entity with this id and its names.
    pub fn entity(&self, id: &str) -> Option<&EntityRef> {
        self.entities.get(id)
    }

    /// The fact of the pair that held on `day`: started on or before it and not
    /// ended before it (the rule of `valid_at_cutoff`; a date less precise than a
    /// day counts as its first day). Of several, the latest started (on a handover
    /// day the new holder).
    pub fn value_on(&self, subject: &str, relation: &str, day: NaiveDate) -> Option<&Fact> {
        self.facts_of(subject, relation)
            .iter()
            .filter_map(|f| Some((f, first_day(f.start.as_deref()?)?)))
            .filter(|(f, start)| {
                *start <= day
                    && f.end
                        .as_deref()
                        .is_none_or(|e| first_day(e).is_none_or(|end| end >= day))
            })
            .max_by(|(a, sa), (b, sb)| sa.cmp(sb).then_with(|| b.object.id.cmp(&a.object.id)))
            .map(|(f, _)| f)
    }

    /// The values the pair held at the cutoff (`valid_at_cutoff`), or failing that
    /// the latest started before it: latest start first, then by id.
    pub fn values_at_cutoff(&self, subject: &str, relation: &str, cutoff: NaiveDate) -> Vec<&Fact> {
        let mut dated: Vec<(&Fact, NaiveDate)> = self
            .facts_of(subject, relation)
            .iter()
            .filter_map(|f| Some((f, first_day(f.start.as_deref()?)?)))
            .filter(|(_, start)| *start <= cutoff)
            .collect();
        dated.sort_by(|(a, sa), (b, sb)| sb.cmp(sa).then_with(|| a.object.id.cmp(&b.object.id)));
        let valid: Vec<&Fact> = dated
            .iter()
            .map(|(f, _)| *f)
            .filter(|f| f.valid_at_cutoff)
            .collect();
        if valid.is_empty() {
            dated.first().map(|(f, _)| *f).into_iter().collect()
        } else {
            valid
        }
    }

    /// Values the pair never held, those of the same kind as `stated` first, each
    /// group sorted by id. For `P1308` (a position's holder): people who held
    /// another position but never this one; for `P39` (a person's position):
    /// positions the person never held. Same kind: positions sharing a head or a
    /// qualifier ("President", "United States"); for people, holders of such a
    /// position.
    pub fn never_held(&self, subject: &str, relation: &str, stated: &str) -> Vec<&EntityRef> {
        let (position, excluded): (&str, Option<&BTreeSet<String>>) = match relation {
            "P1308" => (subject, self.holders.get(subject)),
            "P39" => (stated, self.held.get(subject)),
            _ => return Vec::new(),
        };
        let kind = self.kind_words(position);
        let (mut same, mut other) = (Vec::new(), Vec::new());
        let mut seen = BTreeSet::new();
        for p in &self.positions {
            if relation == "P1308" && p == subject {
                continue;
            }
            let alike = self.kind_words(p).iter().any(|w| kind.contains(w));
            let values: Vec<&String> = match relation {
                "P1308" => self.holders.get(p).into_iter().flatten().collect(),
                _ => vec![p],
            };
            for v in values {
                if excluded.is_some_and(|e| e.contains(v)) || v == stated {
                    continue;
                }
                let Some(entity) = self.entities.get(v) else {
                    continue;
                };
                match (alike, seen.insert(v.as_str())) {
                    (_, false) => {}
                    (true, true) => same.push(entity),
                    (false, true) => other.push(entity),
                }
            }
        }
        // A value found first as "other" and later as "same" stays "other": rare,
        // and the order stays deterministic.
        same.sort_by(|a, b| a.id.cmp(&b.id));
        other.sort_by(|a, b| a.id.cmp(&b.id));
        same.extend(other);
        same
    }

    fn facts_of(&self, subject: &str, relation: &str) -> &[Fact] {
        self.pairs
            .get(&(subject.to_string(), relation.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// The heads and qualifiers of a position, lower case: what makes two
    /// positions the same kind.
    fn kind_words(&self, position: &str) -> Vec<String> {
        let Some(entity) = self.entities.get(position) else {
            return Vec::new();
        };
        let names: Vec<&str> = entity.names().collect();
        unqualified_forms(&names)
            .into_iter()
            .flat_map(|f| std::iter::once(f.head).chain(f.qualifiers))
            .map(|w| w.to_lowercase())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: &str, label: &str) -> EntityRef {
        EntityRef {
            id: id.into(),
            label: Some(label.into()),
            aliases: Vec::new(),
        }
    }

    fn fact(s: (&str, &str), rel: &str, o: (&str, &str), span: (&str, Option<&str>)) -> Fact {
        let cutoff = NaiveDate::from_ymd_opt(2019, 12, 31).unwrap();
        let start = first_day(span.0).unwrap();
        Fact {
            subject: entity(s.0, s.1),
            relation: rel.into(),
            object: entity(o.0, o.1),
            start: Some(span.0.into()),
            end: span.1.map(str::to_string),
            replaces: None,
            replaced_by: None,
            rank: "normal".into(),
            valid_at_cutoff: start <= cutoff
                && span.1.is_none_or(|e| first_day(e).unwrap() >= cutoff),
            pair_changed: Some("2021-01-20".into()),
        }
    }

    const POTUS: (&str, &str) = ("Q11696", "President of the United States");
    const VPOTUS: (&str, &str) = ("Q11699", "Vice President of the United States");
    const CHANCELLOR: (&str, &str) = ("Q4970706", "Chancellor of Germany");

    fn timelines() -> Timelines {
        let biden = ("Q6279", "Joe Biden");
        let trump = ("Q22686", "Donald Trump");
        Timelines::new([
            fact(POTUS, "P1308", trump, ("2017-01-20", Some("2021-01-20"))),
            fact(POTUS, "P1308", biden, ("2021-01-20", None)),
            fact(biden, "P39", VPOTUS, ("2009-01-20", Some("2017-01-20"))),
            fact(biden, "P39", POTUS, ("2021-01-20", None)),
            fact(
                VPOTUS,
                "P1308",
                ("Q24313", "Mike Pence"),
                ("2017-01-20", Some("2021-01-20")),
            ),
            fact(
                CHANCELLOR,
                "P1308",
                ("Q567", "Angela Merkel"),
                ("2005-11-22", Some("2021-12-08")),
            ),
        ])
    }

    fn day(s: &str) -> NaiveDate {
        first_day(s).unwrap()
    }

    #[test]
    fn the_value_on_a_day_is_the_latest_started_that_had_not_ended() {
        let t = timelines();
        let on = |d| {
            t.value_on("Q11696", "P1308", day(d))
                .map(|f| f.object.id.as_str())
        };
        assert_eq!(on("2020-06-01"), Some("Q22686"));
        assert_eq!(
            on("2021-01-20"),
            Some("Q6279"),
            "handover day: the new holder"
        );
        assert_eq!(on("2021-01-21"), Some("Q6279"));
        assert_eq!(on("2010-01-01"), None);
    }

    #[test]
    fn the_cutoff_value_or_else_the_latest_before() {
        let t = timelines();
        let at = |s, r| -> Vec<&str> {
            t.values_at_cutoff(s, r, day("2019-12-31"))
                .iter()
                .map(|f| f.object.id.as_str())
                .collect()
        };
        assert_eq!(at("Q11696", "P1308"), ["Q22686"]);
        assert_eq!(
            at("Q6279", "P39"),
            ["Q11699"],
            "VP ended 2017: the latest before"
        );
    }

    #[test]
    fn never_held_lists_the_same_kind_first_and_never_a_held_value() {
        let t = timelines();
        let holders: Vec<&str> = t
            .never_held("Q11696", "P1308", "Q6279")
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        // Pence held a US office (same qualifier), Merkel another kind; Biden and
        // Trump held this one.
        assert_eq!(holders, ["Q24313", "Q567"]);
        let positions: Vec<&str> = t
            .never_held("Q6279", "P39", "Q11696")
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(positions, ["Q4970706"]);
    }
}
