//! Each (subject, relation) pair's values over time, and what every entity held:
//! the value a pair had on a day, at the cutoff, and the values it never had.
//!
//! Which side of a fact is the person comes from the relation catalogue
//! ([`Reading`]): a pair's value is the person where the person is the fact's
//! object (an office's holder, a club's manager, a company's chief executive),
//! and the other side where the person is the subject (a person's office, a
//! player's club). A relation the catalogue lacks is read like an office's
//! holders: its value is the object.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDate;
use tempora_records::{EntityRef, Fact};
use tempora_relations::{Catalogue, RoleWord, Side};

use crate::conflicts::facts::first_day;
use crate::conflicts::positions::unqualified_forms;

/// How the pairs read one relation, from its catalogue entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The relation whose role this one states (itself, or the entry it is the
    /// inverse of: `P1308` is `P39` seen from the office): the holdings of one
    /// family are one table of who held what.
    pub family: String,
    /// The person is the fact's subject, so the pair's value is the other side
    /// (a position, a club); otherwise the value is the person.
    pub person_is_subject: bool,
    /// What the other side is (`office`, `sports club`): the values a person
    /// never held are drawn from the other sides of this kind. A relation the
    /// catalogue lacks: its property.
    pub kind: String,
    /// The words a summary writes the role with ("striker", "manager"); none
    /// where the other side names itself (an office).
    pub words: Vec<RoleWord>,
}

impl Reading {
    /// The reading of `relation` in `catalogue`.
    pub fn of(catalogue: &Catalogue, relation: &str) -> Self {
        let role = catalogue.role_of(relation);
        match (catalogue.get(relation), role) {
            (Some(own), Some(role)) => Self {
                family: role.property.clone(),
                person_is_subject: own.person == Side::Subject,
                kind: role.other.to_lowercase(),
                words: role.words.clone(),
            },
            _ => Self {
                family: relation.to_string(),
                person_is_subject: false,
                kind: relation.to_string(),
                words: Vec::new(),
            },
        }
    }
}

/// The facts indexed by pair and by entity.
#[derive(Debug, Default)]
pub struct Timelines {
    /// The facts of each (subject id, relation) pair, in input order.
    pairs: HashMap<(String, String), Vec<Fact>>,
    /// How each relation of the facts is read.
    readings: HashMap<String, Reading>,
    /// Every entity by id, with its names (the first reference with a label).
    entities: HashMap<String, EntityRef>,
    /// For each family and other side (a position, a club), everyone who held it.
    holders: HashMap<String, HashMap<String, BTreeSet<String>>>,
    /// For each family and person, every other side they held.
    held: HashMap<String, HashMap<String, BTreeSet<String>>>,
    /// Each family's other sides, sorted by id.
    others: HashMap<String, BTreeSet<String>>,
    /// The other sides of each kind, over every family of that kind (a club
    /// known from its manager is one a player may never have played for).
    of_kind: HashMap<String, BTreeSet<String>>,
    /// The kind words of every other side (`kind_words`), found once when the
    /// facts are indexed rather than for every article.
    kind_words: HashMap<String, Vec<String>>,
}

impl Timelines {
    /// Indexes `facts` (all of them, not only those of evolving pairs: a value a
    /// pair "never held" must not be one a fact outside the evolving set shows),
    /// each relation read as `catalogue` says.
    pub fn new(facts: impl IntoIterator<Item = Fact>, catalogue: &Catalogue) -> Self {
        let mut t = Self::default();
        for fact in facts {
            let reading = t
                .readings
                .entry(fact.relation.clone())
                .or_insert_with(|| Reading::of(catalogue, &fact.relation));
            let (family, kind) = (reading.family.clone(), reading.kind.clone());
            // A relation the catalogue lacks: its value (the object) is the person.
            let (person, other) = catalogue
                .sides(&fact)
                .unwrap_or((&fact.object, &fact.subject));
            for entity in [person, other] {
                let known = t.entities.get(&entity.id);
                if known.is_none_or(|k| k.label.is_none() && entity.label.is_some()) {
                    t.entities.insert(entity.id.clone(), entity.clone());
                }
            }
            let (person, other) = (&person.id, &other.id);
            let holders = t.holders.entry(family.clone()).or_default();
            holders
                .entry(other.clone())
                .or_default()
                .insert(person.clone());
            let held = t.held.entry(family.clone()).or_default();
            held.entry(person.clone())
                .or_default()
                .insert(other.clone());
            t.others.entry(family).or_default().insert(other.clone());
            t.of_kind.entry(kind).or_default().insert(other.clone());
            t.pairs
                .entry((fact.subject.id.clone(), fact.relation.clone()))
                .or_default()
                .push(fact);
        }
        let others = t.others.values().flatten();
        let kind_words = others.map(|id| (id.clone(), kind_words(&t.entities, id)));
        t.kind_words = kind_words.collect();
        t
    }

    /// How `relation` is read (`None` when no fact is of it).
    pub fn reading(&self, relation: &str) -> Option<&Reading> {
        self.readings.get(relation)
    }

    /// The entity with this id and its names.
    pub fn entity(&self, id: &str) -> Option<&EntityRef> {
        self.entities.get(id)
    }

    /// The facts of the pair that held on `day`: started on or before it and not
    /// ended before it (the rule of `valid_at_cutoff`; a date less precise than a
    /// day counts as its first day).
    fn held_on(
        &self,
        subject: &str,
        relation: &str,
        day: NaiveDate,
    ) -> impl Iterator<Item = (&Fact, NaiveDate)> {
        self.facts_of(subject, relation)
            .iter()
            .filter_map(|f| Some((f, first_day(f.start.as_deref()?)?)))
            .filter(move |(f, start)| *start <= day && holds_until(f, day))
    }

    /// The fact of the pair that held on `day` (see `held_on`). Of several, the
    /// latest started (on a handover day the new holder).
    pub fn value_on(&self, subject: &str, relation: &str, day: NaiveDate) -> Option<&Fact> {
        self.values_on(subject, relation, day).into_iter().next()
    }

    /// Every fact of the pair that held on `day`, the latest started first, then
    /// by id: a pair may hold several at once (a player's club and national team).
    pub fn values_on(&self, subject: &str, relation: &str, day: NaiveDate) -> Vec<&Fact> {
        let mut held: Vec<(&Fact, NaiveDate)> = self.held_on(subject, relation, day).collect();
        held.sort_by(|(a, sa), (b, sb)| sb.cmp(sa).then_with(|| a.object.id.cmp(&b.object.id)));
        held.into_iter().map(|(f, _)| f).collect()
    }

    /// Whether the pair held `value` on `day` and went on holding it (a holding
    /// that ends that day is the old one of a handover).
    pub fn holds_past(&self, subject: &str, relation: &str, value: &str, day: NaiveDate) -> bool {
        self.held_on(subject, relation, day).any(|(f, _)| {
            f.object.id == value
                && f.end
                    .as_deref()
                    .and_then(first_day)
                    .is_none_or(|end| end > day)
        })
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
    /// group sorted by id. Where the value is the person (`P1308`, `P286`): people
    /// who held another of the family's other sides but never this one (another
    /// office's holder, another club's manager); where it is the other side (`P39`,
    /// `P54`): other sides of the kind the person never held (a position, a club
    /// the player never played for). Same kind: positions sharing a head or a
    /// qualifier ("President", "United States"); for people, holders of such a
    /// position.
    pub fn never_held(&self, subject: &str, relation: &str, stated: &str) -> Vec<&EntityRef> {
        let Some(reading) = self.readings.get(relation) else {
            return Vec::new();
        };
        let holders = self.holders.get(&reading.family);
        let (other, excluded, pool) = if reading.person_is_subject {
            let held = self.held.get(&reading.family);
            (
                stated,
                held.and_then(|h| h.get(subject)),
                self.of_kind.get(&reading.kind),
            )
        } else {
            (
                subject,
                holders.and_then(|h| h.get(subject)),
                self.others.get(&reading.family),
            )
        };
        let kind = self.kind_words(other);
        let (mut same, mut rest) = (Vec::new(), Vec::new());
        let mut seen = BTreeSet::new();
        for p in pool.into_iter().flatten() {
            if !reading.person_is_subject && p == subject {
                continue;
            }
            let alike = self.kind_words(p).iter().any(|w| kind.contains(w));
            let values: Vec<&String> = if reading.person_is_subject {
                vec![p]
            } else {
                holders
                    .and_then(|h| h.get(p))
                    .into_iter()
                    .flatten()
                    .collect()
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
                    (false, true) => rest.push(entity),
                }
            }
        }
        // A value found first as "other" and later as "same" stays "other": rare,
        // and the order stays deterministic.
        same.sort_by(|a, b| a.id.cmp(&b.id));
        rest.sort_by(|a, b| a.id.cmp(&b.id));
        same.extend(rest);
        same
    }

    fn facts_of(&self, subject: &str, relation: &str) -> &[Fact] {
        self.pairs
            .get(&(subject.to_string(), relation.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// The kind words of an other side (see [`kind_words`]).
    fn kind_words(&self, other: &str) -> &[String] {
        self.kind_words.get(other).map_or(&[], Vec::as_slice)
    }
}

/// The heads and qualifiers of a position, lower case: what makes two
/// positions the same kind.
fn kind_words(entities: &HashMap<String, EntityRef>, position: &str) -> Vec<String> {
    let Some(entity) = entities.get(position) else {
        return Vec::new();
    };
    let names: Vec<&str> = entity.names().collect();
    unqualified_forms(&names)
        .into_iter()
        .flat_map(|f| std::iter::once(f.head).chain(f.qualifiers))
        .map(|w| w.to_lowercase())
        .collect()
}

/// Whether `fact` had not ended before `day` (an end that is not a date is no end).
fn holds_until(fact: &Fact, day: NaiveDate) -> bool {
    fact.end
        .as_deref()
        .is_none_or(|e| first_day(e).is_none_or(|end| end >= day))
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
        Timelines::new(
            [
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
            ],
            &Catalogue::shipped(),
        )
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

    #[test]
    fn a_players_clubs_are_read_from_the_player_and_never_held_are_clubs() {
        let player = ("Q91", "Tomas Reyna");
        let (old, new, national) = (
            ("Q81", "Pennock United F.C."),
            ("Q82", "Kestrel Vale F.C."),
            ("Q83", "Eastmarch national football team"),
        );
        let other = ("Q84", "Marlow Heath Athletic F.C.");
        let t = Timelines::new(
            [
                fact(player, "P54", old, ("2015-07-01", Some("2020-08-15"))),
                fact(player, "P54", new, ("2020-08-15", None)),
                fact(player, "P54", national, ("2020-10-01", None)),
                fact(other, "P286", ("Q92", "Greta Lind"), ("2014-07-01", None)),
            ],
            &Catalogue::shipped(),
        );
        let reading = t.reading("P54").unwrap();
        assert!(reading.person_is_subject);
        assert_eq!(reading.kind, "sports club");
        // Both held in 2021, the latest started first.
        let held: Vec<&str> = t
            .values_on("Q91", "P54", day("2021-02-01"))
            .iter()
            .map(|f| f.object.id.as_str())
            .collect();
        assert_eq!(held, ["Q83", "Q82"]);
        assert!(t.holds_past("Q91", "P54", "Q82", day("2021-02-01")));
        // The club left on the handover day is not held past it.
        assert!(!t.holds_past("Q91", "P54", "Q81", day("2020-08-15")));
        // A club known only from its manager is one he never played for.
        let never: Vec<&str> = t
            .never_held("Q91", "P54", "Q82")
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(never, ["Q84"]);
        // A club's manager: the value is the person; other clubs' managers.
        assert!(!t.reading("P286").unwrap().person_is_subject);
    }
}
