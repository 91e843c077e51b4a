//! Who held which role when: the facts as (person, role) holdings with their
//! dates, and the verdict on a claim at a date.
//!
//! A role is an office (P39, P1308: the office is the role) or a role on an
//! entity the catalogue names ("manager of Chelsea F.C.": the `head-coach`
//! relation on the club, a role of its own numbered like an office). A P39 fact
//! (a person's position held) and a P1308 fact (an office's holder) state the
//! same holding from two sides; both are read, and a holding stated both ways
//! is one statement. Dates are as precise as the facts make them: a start of
//! `2019` may be any day of 2019, so a claim is `current` whenever the role may
//! have been held that day, and `outdated` or `not_yet` only when it certainly
//! was not. Absence is evidence only where a list is whole: the facts of a
//! pipeline hold every fact of each evolving (subject, relation) pair, so a role
//! whose other side is the subject (an office of P1308 facts, a club of P286
//! facts) comes with every holder, and a person who is the subject (of P39, of
//! P54) with every role of that relation; `never` needs one of the two.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use chrono::{Datelike, NaiveDate};
use tempora_records::{ClaimEntity, EntityRef, Evidence, Fact, Tense, Verdict};
use tempora_relations::{Catalogue, Relation, Side};

/// An index of the facts by person and by office. Every entity has a number, in
/// the order of its id, so that every order derived from numbers is the ids'
/// order, never the facts' order.
#[derive(Debug, Default)]
pub struct Holdings {
    /// Every entity's id, by number (sorted).
    ids: Vec<Arc<str>>,
    numbers: HashMap<Arc<str>, u32>,
    /// Every entity's label (the smallest the facts give), by number.
    labels: Vec<Option<String>>,
    /// Every entity as a claim names it, by number: built once, shared by every
    /// claim that names it.
    entities: Vec<ClaimEntity>,
    /// Every entity's names as the facts give them (label, then aliases).
    names: Vec<Vec<String>>,
    /// Statements of each (person, office), sorted, each once.
    statements: HashMap<(u32, u32), Vec<Term>>,
    /// Every holder of each office, sorted.
    holders: BTreeMap<u32, Vec<u32>>,
    /// Each office's statements with their holder, by holder: who held it when,
    /// read without a lookup per holder.
    terms_of_office: HashMap<u32, Vec<(u32, Term)>>,
    /// Every office of each person, sorted.
    offices: BTreeMap<u32, Vec<u32>>,
    /// Offices whose every holder the facts list (subjects of P1308 facts).
    whole_holders: HashSet<u32>,
    /// People whose every role of a relation the facts list (subjects of P39
    /// facts, of P54 facts), with that relation.
    whole_offices: HashSet<(u32, u32)>,
    /// Every relation the facts and their roles name, each once (claims and
    /// statements share these strings), with its catalogue label.
    relations: Vec<(Arc<str>, String)>,
    /// The relation of each role, as the catalogue's role names it (`P39` for
    /// offices), by its place in `relations`.
    relation_of: HashMap<u32, u32>,
    /// The roles on an entity ("manager of Chelsea F.C."): the entity they are
    /// on, by number.
    role_on: HashMap<u32, u32>,
    /// Roles whose holders share them (a club's players).
    shared: HashSet<u32>,
}

/// A holding as one fact states it, read through the catalogue.
struct Held<'a> {
    person: &'a EntityRef,
    /// The office, or the entity the role is on.
    other: &'a EntityRef,
    /// The id of the role: the office's, or `P286:Q9616` for a role on an
    /// entity.
    role: Arc<str>,
    /// The relation that states the role (`P39` for `P1308` too).
    relation: &'a Relation,
    /// The person is the subject: their every role of the relation is listed.
    person_is_subject: bool,
    fact: &'a Fact,
}

impl<'a> Held<'a> {
    fn of(fact: &'a Fact, catalogue: &'a Catalogue) -> Option<Self> {
        let relation = catalogue.role_of(&fact.relation)?;
        let (person, other) = catalogue.sides(fact)?;
        let role = if relation.words.is_empty() {
            Arc::from(other.id.as_str())
        } else {
            Arc::from(format!("{}:{}", relation.property, other.id))
        };
        Some(Self {
            person,
            other,
            role,
            relation,
            person_is_subject: catalogue.get(&fact.relation)?.person == Side::Subject,
            fact,
        })
    }

    /// Whether the role is an entity of its own (an office), not one on an entity.
    fn is_office(&self) -> bool {
        self.relation.words.is_empty()
    }
}

/// A statement with its dates read once: the first day it may have started, and
/// the first day it is certainly over.
#[derive(Debug, Clone)]
struct Term {
    evidence: Evidence,
    from: Option<NaiveDate>,
    over: Option<NaiveDate>,
}

impl Term {
    fn new(evidence: Evidence) -> Self {
        let from = evidence.start.as_deref().and_then(first_day);
        // An end as precise as a day is the successor's first day, as Wikidata
        // writes a handover (Trump's term ends 2021-01-20, Biden's starts then): on
        // it the office is the successor's, as the `minimal-pairs` stage has it. A
        // less precise end may be its last day.
        let over = evidence.end.as_deref().and_then(|end| {
            if is_day(end) {
                first_day(end)
            } else {
                last_day(end).and_then(|last| last.succ_opt())
            }
        });
        Self {
            evidence,
            from,
            over,
        }
    }

    fn dated(&self) -> bool {
        self.evidence.start.is_some() || self.evidence.end.is_some()
    }

    /// The office may have been held on `day`: started on or before it (any day of
    /// an imprecise start) and not over by it.
    fn may_hold(&self, day: NaiveDate) -> bool {
        self.from.is_none_or(|from| from <= day) && !self.ended_by(day)
    }

    /// The term was certainly over by `day`.
    fn ended_by(&self, day: NaiveDate) -> bool {
        self.over.is_some_and(|over| over <= day)
    }

    /// The term certainly began after `day`.
    fn starts_after(&self, day: NaiveDate) -> bool {
        self.from.is_some_and(|from| from > day)
    }
}

/// The verdict on one claim, with what it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// The verdict.
    pub verdict: Verdict,
    /// The verdict in words.
    pub reason: String,
    /// The statements joining person and office.
    pub evidence: Vec<Evidence>,
}

impl Holdings {
    /// Indexes `facts` by the shipped catalogue's relations.
    pub fn new<'a>(facts: impl IntoIterator<Item = &'a Fact>) -> Self {
        Self::with_catalogue(facts, &Catalogue::shipped())
    }

    /// Indexes `facts` of the catalogue's relations; facts of other relations
    /// are left out.
    pub fn with_catalogue<'a>(
        facts: impl IntoIterator<Item = &'a Fact>,
        catalogue: &Catalogue,
    ) -> Self {
        let held: Vec<Held<'_>> = facts
            .into_iter()
            .filter_map(|fact| Held::of(fact, catalogue))
            .collect();
        let mut h = Self::numbered(
            held.iter()
                .flat_map(|x| [x.person.id.as_str(), x.other.id.as_str(), &x.role]),
        );
        for x in held {
            let (p, o) = (h.numbers[x.person.id.as_str()], h.numbers[&x.role]);
            let relation = h.intern(x.relation);
            if x.person_is_subject {
                h.whole_offices.insert((p, relation));
            } else {
                h.whole_holders.insert(o);
            }
            h.add_names(p, x.person);
            let on = h.numbers[x.other.id.as_str()];
            h.add_names(on, x.other);
            if !x.is_office() {
                h.role_on.insert(o, on);
                if x.relation.shared {
                    h.shared.insert(o);
                }
            }
            h.relation_of.insert(o, relation);
            h.holders.entry(o).or_default().push(p);
            h.offices.entry(p).or_default().push(o);
            let stated = catalogue.get(&x.fact.relation).unwrap_or(x.relation);
            let stated = h.intern(stated);
            let statement = Evidence {
                relation: h.relations[stated as usize].0.clone(),
                person: h.ids[p as usize].clone(),
                position: h.ids[on as usize].clone(),
                start: x.fact.start.as_deref().map(Arc::from),
                end: x.fact.end.as_deref().map(Arc::from),
            };
            h.add_statement(p, o, statement);
        }
        h.finish(catalogue);
        h
    }

    /// An empty index of these entities, numbered in the order of their ids.
    fn numbered<'a>(ids: impl Iterator<Item = &'a str>) -> Self {
        let mut ids: Vec<&str> = ids.collect();
        ids.sort_unstable();
        ids.dedup();
        let ids: Vec<Arc<str>> = ids.iter().map(|&id| Arc::from(id)).collect();
        Self {
            numbers: ids
                .iter()
                .enumerate()
                .map(|(n, id)| (id.clone(), n as u32))
                .collect(),
            labels: vec![None; ids.len()],
            names: vec![Vec::new(); ids.len()],
            ids,
            ..Self::default()
        }
    }

    /// The label and names of entity `n` as one fact gives them.
    fn add_names(&mut self, n: u32, entity: &EntityRef) {
        let n = n as usize;
        // Of two labels (facts of other dumps), the smaller: a rule, not the order
        // the facts came in.
        if let Some(label) = &entity.label {
            if self.labels[n].as_ref().is_none_or(|known| label < known) {
                self.labels[n] = Some(label.clone());
            }
        }
        for name in entity.names() {
            if !self.names[n].iter().any(|known| known == name) {
                self.names[n].push(name.to_string());
            }
        }
    }

    /// A statement that `person` held `office`.
    fn add_statement(&mut self, person: u32, office: u32, statement: Evidence) {
        let list = self.statements.entry((person, office)).or_default();
        // The same holding from the other side is the same statement; which side
        // it keeps is a rule (the smaller relation id), not input order.
        match list
            .iter_mut()
            .find(|s| s.evidence.start == statement.start && s.evidence.end == statement.end)
        {
            Some(same) if statement.relation < same.evidence.relation => {
                same.evidence = statement;
            }
            Some(_) => {}
            None => list.push(Term::new(statement)),
        }
    }

    /// Once every fact is in: the entities claims name, and every list in an order
    /// of its own (never the facts' order).
    fn finish(&mut self, catalogue: &Catalogue) {
        // A role on an entity is labelled as the catalogue names it.
        for (&role, &on) in &self.role_on {
            let relation = catalogue.get(&self.relations[self.relation_of[&role] as usize].0);
            let other = self.labels[on as usize]
                .clone()
                .unwrap_or_else(|| self.ids[on as usize].to_string());
            self.labels[role as usize] = relation.map(|r| r.role_text(&other));
        }
        self.entities = (0..self.ids.len())
            .map(|n| ClaimEntity {
                id: Some(self.ids[n].clone()),
                label: match &self.labels[n] {
                    Some(label) => Arc::from(label.as_str()),
                    None => self.ids[n].clone(),
                },
            })
            .collect();
        // Names: the label, then the rest sorted.
        for (names, label) in self.names.iter_mut().zip(&self.labels) {
            names.sort_unstable_by_key(|name| (Some(name) != label.as_ref(), name.clone()));
        }
        for list in self.holders.values_mut().chain(self.offices.values_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        for (&(person, office), terms) in &self.statements {
            let list = self.terms_of_office.entry(office).or_default();
            list.extend(terms.iter().map(|t| (person, t.clone())));
        }
        for list in self.terms_of_office.values_mut() {
            list.sort_by_key(|(person, _)| *person);
        }
        for list in self.statements.values_mut() {
            list.sort_by(|a, b| {
                let (a, b) = (&a.evidence, &b.evidence);
                (sort_date(&a.start), &a.end, &a.relation).cmp(&(
                    sort_date(&b.start),
                    &b.end,
                    &b.relation,
                ))
            });
        }
    }

    /// "office", or the relation's label for a role on an entity ("member of
    /// sports team statement").
    fn role_word(&self, role: u32) -> String {
        match (
            self.role_on.contains_key(&role),
            self.relation_of.get(&role),
        ) {
            (true, Some(&r)) => format!("{} statement", self.relations[r as usize].1),
            _ => "office".into(),
        }
    }

    /// The relation a role is of (`P39` for offices, `P286` for a club's
    /// manager).
    pub fn relation_of(&self, role: u32) -> Option<&Arc<str>> {
        self.relation_of
            .get(&role)
            .map(|&r| &self.relations[r as usize].0)
    }

    /// The number of a catalogue relation, interned once: its id and label.
    fn intern(&mut self, relation: &Relation) -> u32 {
        match self.relation_number(&relation.property) {
            Some(n) => n,
            None => {
                let id = Arc::from(relation.property.as_str());
                self.relations.push((id, relation.label.clone()));
                (self.relations.len() - 1) as u32
            }
        }
    }

    /// The number of a relation the facts name (a handful: a scan).
    fn relation_number(&self, relation: &str) -> Option<u32> {
        self.relations
            .iter()
            .position(|(id, _)| **id == *relation)
            .map(|n| n as u32)
    }

    /// The entity a role is on, for a role on an entity (the club of "manager
    /// of Chelsea F.C.").
    pub fn role_on(&self, role: u32) -> Option<u32> {
        self.role_on.get(&role).copied()
    }

    /// Whether the facts list every role of `relation` that `person` held
    /// (the person is the subject of its facts).
    pub fn lists_every_role(&self, person: u32, relation: &str) -> bool {
        self.relation_number(relation)
            .is_some_and(|r| self.whole_offices.contains(&(person, r)))
    }

    /// Whether the facts list every holder of `role` (its other side is the
    /// subject of its facts: an office of P1308 facts, a club of P286 facts).
    pub fn lists_every_holder(&self, role: u32) -> bool {
        self.whole_holders.contains(&role)
    }

    /// Everyone who held `role` at any time, by number.
    pub fn holders_of(&self, role: u32) -> &[u32] {
        self.holders.get(&role).map_or(&[], Vec::as_slice)
    }

    /// Whether many hold the role at once (a club's players).
    pub fn is_shared(&self, role: u32) -> bool {
        self.shared.contains(&role)
    }

    /// Every role on an entity: (role, relation, the entity).
    pub fn roles_on_entities(&self) -> impl Iterator<Item = (u32, &str, u32)> + '_ {
        let mut roles: Vec<(u32, u32)> = self.role_on.iter().map(|(&r, &on)| (r, on)).collect();
        roles.sort_unstable();
        roles.into_iter().map(|(role, on)| {
            (
                role,
                &*self.relations[self.relation_of[&role] as usize].0,
                on,
            )
        })
    }

    /// The names of entity `n` (label first).
    pub fn names_of_entity(&self, n: u32) -> &[String] {
        self.names_of(n)
    }

    /// The role a fact states, by number, when the catalogue knows its
    /// relation and the fact is among those indexed.
    pub fn role_of_fact(&self, fact: &Fact, catalogue: &Catalogue) -> Option<u32> {
        Held::of(fact, catalogue).and_then(|x| self.number(&x.role))
    }

    /// The entity a claim names as the other side of a role: the office, or the
    /// entity the role is on.
    pub fn position(&self, role: u32) -> ClaimEntity {
        self.entity(self.role_on(role).unwrap_or(role))
    }

    /// The number of the entity with this id.
    pub fn number(&self, id: &str) -> Option<u32> {
        self.numbers.get(id).copied()
    }

    /// The id of entity number `n`.
    pub fn id(&self, n: u32) -> &str {
        self.ids.get(n as usize).map_or("", |id| id)
    }

    /// Every person, by number, with their names (label first).
    pub fn people(&self) -> impl Iterator<Item = (u32, &[String])> {
        self.offices.keys().map(|&n| (n, self.names_of(n)))
    }

    /// Every office, by number, with its names (label first).
    pub fn offices(&self) -> impl Iterator<Item = (u32, &[String])> {
        self.holders.keys().map(|&n| (n, self.names_of(n)))
    }

    fn names_of(&self, n: u32) -> &[String] {
        self.names.get(n as usize).map_or(&[], Vec::as_slice)
    }

    /// The offices `person` held, sorted.
    pub fn offices_of(&self, person: u32) -> &[u32] {
        self.offices.get(&person).map_or(&[], Vec::as_slice)
    }

    /// An entity as a claim names it: id and label (the id where the facts give no
    /// label).
    pub fn entity(&self, n: u32) -> ClaimEntity {
        self.entities
            .get(n as usize)
            .cloned()
            .unwrap_or(ClaimEntity {
                id: None,
                label: Arc::from(""),
            })
    }

    /// The label of an entity, or its id.
    pub fn label(&self, n: u32) -> &str {
        match self.labels.get(n as usize) {
            Some(Some(label)) => label,
            _ => self.id(n),
        }
    }

    /// Who may have held `office` on `day`, by number (so in id order).
    pub fn holder_numbers_on(&self, office: u32, day: NaiveDate) -> impl Iterator<Item = u32> + '_ {
        let terms = self
            .terms_of_office
            .get(&office)
            .map_or(&[][..], Vec::as_slice);
        let mut last = None;
        terms.iter().filter_map(move |(person, term)| {
            let new = last != Some(*person);
            (new && term.dated() && term.may_hold(day)).then(|| {
                last = Some(*person);
                *person
            })
        })
    }

    /// Who may have held `office` on `day`, in id order.
    pub fn holders_on(&self, office: u32, day: NaiveDate) -> Vec<ClaimEntity> {
        self.holder_numbers_on(office, day)
            .map(|person| self.entity(person))
            .collect()
    }

    /// Whether `person` may have held `office` on `day` by a dated statement.
    pub fn may_hold_on(&self, person: u32, office: u32, day: NaiveDate) -> bool {
        self.statements_of(person, office)
            .iter()
            .any(|s| s.dated() && s.may_hold(day))
    }

    fn statements_of(&self, person: u32, office: u32) -> &[Term] {
        self.statements
            .get(&(person, office))
            .map_or(&[], Vec::as_slice)
    }

    /// The verdict on "`person` holds (or held, `tense`) `office`" on `day`.
    pub fn judge(&self, person: u32, office: u32, tense: Tense, day: NaiveDate) -> Judged {
        let statements = self.statements_of(person, office);
        let evidence: Vec<Evidence> = statements.iter().map(|s| s.evidence.clone()).collect();
        let (who, what) = (self.label(person), self.label(office));
        if statements.is_empty() {
            let whole = if self.whole_holders.contains(&office) {
                Some(format!("every holder of {what} is known"))
            } else if self
                .relation_of
                .get(&office)
                .is_some_and(|&r| self.whole_offices.contains(&(person, r)))
            {
                Some(format!(
                    "every {} of {who} is known",
                    self.role_word(office)
                ))
            } else {
                None
            };
            return match whole {
                Some(whole) => Judged {
                    verdict: Verdict::Never,
                    reason: format!("{whole}; {who} never held {what}"),
                    evidence,
                },
                None => Judged {
                    verdict: Verdict::Unknown,
                    reason: format!(
                        "no statement joins {who} and {what}, and the facts list neither \
                         every holder of the role nor every such role of the person"
                    ),
                    evidence,
                },
            };
        }
        let mut dated = statements.iter().filter(|s| s.dated());
        let Some(first_dated) = dated.clone().next() else {
            return Judged {
                verdict: Verdict::Unknown,
                reason: format!("{who} held {what}, on dates the facts do not state"),
                evidence,
            };
        };
        let held_on_day = dated.clone().find(|s| s.may_hold(day));
        let ended_before = dated.clone().rev().find(|s| s.ended_by(day));
        let starts_after = dated.find(|s| s.starts_after(day));
        let (verdict, statement) = match (tense, held_on_day, ended_before) {
            (Tense::Present, Some(s), _) | (Tense::Past, Some(s), None) => (Verdict::Current, s),
            (Tense::Present, None, Some(s)) => (Verdict::Outdated, s),
            (Tense::Past, _, Some(s)) => (Verdict::Former, s),
            (_, None, None) => match starts_after {
                Some(s) => (Verdict::NotYet, s),
                // Every dated statement either may hold, ended or starts later.
                None => (Verdict::Unknown, first_dated),
            },
        };
        let span = span_words(&statement.evidence);
        let reason = match verdict {
            Verdict::Current => format!("{who} held {what} {span}, which covers {day}"),
            Verdict::Outdated | Verdict::Former => {
                format!("{who} held {what} {span}, ended before {day}")
            }
            Verdict::NotYet => format!("{who} held {what} {span}, after {day}"),
            _ => format!("{who} held {what} {span}"),
        };
        Judged {
            verdict,
            reason,
            evidence,
        }
    }
}

fn sort_date(date: &Option<Arc<str>>) -> (bool, &str) {
    (date.is_some(), date.as_deref().unwrap_or(""))
}

fn span_words(s: &Evidence) -> String {
    match (&s.start, &s.end) {
        (Some(a), Some(b)) => format!("from {a} to {b}"),
        (Some(a), None) => format!("from {a}"),
        (None, Some(b)) => format!("until {b}"),
        (None, None) => "at some time".into(),
    }
}

/// Whether a date of the facts names a day (`2021-01-20`, not `2021` or `2021-00-00`).
fn is_day(value: &str) -> bool {
    let parts: Vec<&str> = value.trim().splitn(3, '-').collect();
    matches!(parts.as_slice(), [_, m, d] if *m != "00" && *d != "00")
}

/// The first day a date of the facts may mean (`2019` is 2019-01-01).
pub fn first_day(value: &str) -> Option<NaiveDate> {
    tempora_filter::conflicts::facts::first_day(value)
}

/// The last day a date of the facts may mean (`2019` is 2019-12-31, `2019-06`
/// 2019-06-30); a `00` month or day is unknown, so the last of the year or month.
pub fn last_day(value: &str) -> Option<NaiveDate> {
    let mut parts = value.trim().splitn(3, '-');
    let year: i32 = parts.next()?.parse().ok()?;
    let month: Option<u32> = match parts.next() {
        Some(m) => Some(m.parse().ok()?).filter(|&m| m != 0),
        None => None,
    };
    let day: Option<u32> = match parts.next() {
        Some(d) => Some(d.parse().ok()?).filter(|&d| d != 0),
        None => None,
    };
    match (month, day) {
        (Some(m), Some(d)) => NaiveDate::from_ymd_opt(year, m, d),
        (Some(m), None) => {
            let next = if m == 12 {
                NaiveDate::from_ymd_opt(year + 1, 1, 1)
            } else {
                NaiveDate::from_ymd_opt(year, m + 1, 1)
            }?;
            next.pred_opt()
        }
        (None, _) => NaiveDate::from_ymd_opt(year, 12, 31),
    }
    .filter(|d| d.year() == year)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{self, entity};

    fn fact(s: (&str, &str), rel: &str, o: (&str, &str), start: &str, end: Option<&str>) -> Fact {
        testing::fact(
            &entity(s.0, s.1, &[]),
            rel,
            &entity(o.0, o.1, &[]),
            start,
            end,
        )
    }

    const POTUS: (&str, &str) = ("Q11696", "President of the United States");
    const VPOTUS: (&str, &str) = ("Q11699", "Vice President of the United States");
    const BIDEN: (&str, &str) = ("Q6279", "Joe Biden");
    const TRUMP: (&str, &str) = ("Q22686", "Donald Trump");
    const MERKEL: (&str, &str) = ("Q567", "Angela Merkel");

    fn holdings() -> Holdings {
        let facts = [
            fact(POTUS, "P1308", TRUMP, "2017-01-20", Some("2021-01-20")),
            fact(POTUS, "P1308", BIDEN, "2021-01-20", Some("2025-01-20")),
            fact(POTUS, "P1308", TRUMP, "2025-01-20", None),
            fact(BIDEN, "P39", VPOTUS, "2009-01-20", Some("2017-01-20")),
            fact(BIDEN, "P39", POTUS, "2021-01-20", Some("2025-01-20")),
            // Merkel's office is not whole: only her side is known, and not as P39.
            fact(
                ("Q4970706", "Chancellor of Germany"),
                "P1308",
                MERKEL,
                "2005",
                None,
            ),
        ];
        Holdings::new(facts.iter())
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    /// The verdict of `h` on two ids.
    fn of(h: &Holdings, person: &str, office: &str, tense: Tense, on: &str) -> Judged {
        let (p, o) = (h.number(person).unwrap(), h.number(office).unwrap());
        h.judge(p, o, tense, day(on))
    }

    fn verdict(person: &str, office: &str, tense: Tense, on: &str) -> Verdict {
        of(&holdings(), person, office, tense, on).verdict
    }

    #[test]
    fn present_claims_are_current_outdated_or_not_yet_by_the_dates() {
        use Tense::Present;
        assert_eq!(
            verdict("Q6279", "Q11696", Present, "2021-03-01"),
            Verdict::Current
        );
        assert_eq!(
            verdict("Q6279", "Q11699", Present, "2021-03-01"),
            Verdict::Outdated
        );
        assert_eq!(
            verdict("Q6279", "Q11696", Present, "2015-03-01"),
            Verdict::NotYet
        );
        // Held before and again later: between the terms, outdated.
        assert_eq!(
            verdict("Q22686", "Q11696", Present, "2023-06-01"),
            Verdict::Outdated
        );
        assert_eq!(
            verdict("Q22686", "Q11696", Present, "2025-06-01"),
            Verdict::Current
        );
        // The handover day is the successor's.
        assert_eq!(
            verdict("Q22686", "Q11696", Present, "2021-01-20"),
            Verdict::Outdated
        );
        assert_eq!(
            verdict("Q6279", "Q11696", Present, "2021-01-20"),
            Verdict::Current
        );
        assert_eq!(
            verdict("Q22686", "Q11696", Present, "2021-01-19"),
            Verdict::Current
        );
    }

    #[test]
    fn past_claims_are_former_when_true() {
        use Tense::Past;
        assert_eq!(
            verdict("Q6279", "Q11699", Past, "2021-03-01"),
            Verdict::Former
        );
        assert_eq!(
            verdict("Q6279", "Q11696", Past, "2015-03-01"),
            Verdict::NotYet
        );
        assert_eq!(
            verdict("Q6279", "Q11696", Past, "2022-03-01"),
            Verdict::Current
        );
    }

    #[test]
    fn never_needs_a_whole_list_and_unknown_says_why() {
        use Tense::Present;
        // Every holder of the presidency is known: Merkel never held it.
        assert_eq!(
            verdict("Q567", "Q11696", Present, "2021-03-01"),
            Verdict::Never
        );
        // Every office of Biden is known: he never was chancellor.
        assert_eq!(
            verdict("Q6279", "Q4970706", Present, "2021-03-01"),
            Verdict::Never
        );
        // Trump's offices are not all known (no P39 of his), nor the vice
        // presidency's holders (no P1308 of it): unknown.
        let h = Holdings::new(&[
            fact(POTUS, "P1308", TRUMP, "2017-01-20", None),
            fact(BIDEN, "P39", VPOTUS, "2009-01-20", None),
        ]);
        let judged = of(&h, "Q22686", "Q11699", Present, "2021-03-01");
        assert_eq!(judged.verdict, Verdict::Unknown, "{}", judged.reason);
    }

    #[test]
    fn imprecise_dates_judge_outdated_only_when_certain() {
        let facts = [fact(BIDEN, "P39", VPOTUS, "2009", Some("2017"))];
        let h = Holdings::new(facts.iter());
        let on = |d| of(&h, "Q6279", "Q11699", Tense::Present, d).verdict;
        assert_eq!(
            on("2017-12-31"),
            Verdict::Current,
            "any day of 2017 may be the end"
        );
        assert_eq!(on("2018-01-01"), Verdict::Outdated);
        assert_eq!(on("2009-01-01"), Verdict::Current);
        assert_eq!(on("2008-12-31"), Verdict::NotYet);
    }

    #[test]
    fn a_holding_stated_both_ways_is_one_statement() {
        let facts = [
            fact(BIDEN, "P39", VPOTUS, "2009-01-20", Some("2017-01-20")),
            fact(VPOTUS, "P1308", BIDEN, "2009-01-20", Some("2017-01-20")),
        ];
        let judged = of(
            &Holdings::new(&facts),
            "Q6279",
            "Q11699",
            Tense::Past,
            "2020-01-01",
        );
        assert_eq!(judged.evidence.len(), 1);
        assert_eq!(judged.verdict, Verdict::Former);
    }

    #[test]
    fn undated_statements_give_unknown() {
        let facts = [fact(BIDEN, "P39", VPOTUS, "", None)];
        let judged = of(
            &Holdings::new(&facts),
            "Q6279",
            "Q11699",
            Tense::Present,
            "2020-01-01",
        );
        assert_eq!(judged.verdict, Verdict::Unknown);
    }

    #[test]
    fn last_days_of_every_precision() {
        assert_eq!(last_day("2019"), Some(day("2019-12-31")));
        assert_eq!(last_day("2019-02"), Some(day("2019-02-28")));
        assert_eq!(last_day("2019-12"), Some(day("2019-12-31")));
        assert_eq!(last_day("2019-00-00"), Some(day("2019-12-31")));
        assert_eq!(last_day("2019-06-00"), Some(day("2019-06-30")));
        assert_eq!(last_day("2019-06-15"), Some(day("2019-06-15")));
        assert_eq!(last_day("2019-02-30"), None);
        assert_eq!(last_day("soon"), None);
    }
}
