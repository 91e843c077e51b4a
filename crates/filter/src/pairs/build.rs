//! From one article to its minimal pairs: which facts the summary states, which
//! span names the stated value, and what replaces it.

use std::collections::BTreeSet;

use chrono::NaiveDate;
use tempora_records::{Article, EditedFact, EntityRef, Fact, FactError, MinimalPair, TextField};
use tempora_relations::{Case, RoleWord};

use super::edit::{
    name_form, occurrences, occurs_in, person_form, position_form, Edit, Occurrence,
};
use super::timeline::{Reading, Timelines};

/// BUMP's label when the replacement occurs in the article.
pub const INTRINSIC: &str = "Intrinsic Entity Error";
/// BUMP's label when it does not.
pub const EXTRINSIC: &str = "Extrinsic Entity Error";

/// What became of one article.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Published on or before the cutoff: what it states was knowable then.
    BeforeCutoff,
    /// No evolving fact from `conflicts` (the stage ran without it upstream, or
    /// the article names none).
    NoFacts,
    /// Facts, but none gave a pair (no conflict at the cutoff, nothing replaceable).
    NoPair,
    /// At least one pair.
    Pairs,
}

impl Outcome {
    /// The counter in `run.json`.
    pub fn counter(self) -> &'static str {
        match self {
            Self::BeforeCutoff => "articles_before_cutoff",
            Self::NoFacts => "articles_without_facts",
            Self::NoPair => "articles_without_pairs",
            Self::Pairs => "articles_with_pairs",
        }
    }
}

/// Makes the pairs of articles against one set of facts and one cutoff.
#[derive(Debug)]
pub struct PairMaker {
    timelines: Timelines,
    cutoff: NaiveDate,
    errors: Vec<FactError>,
}

impl PairMaker {
    /// A maker over `timelines` for `cutoff`, writing the kinds of error in `errors`.
    pub fn new(timelines: Timelines, cutoff: NaiveDate, errors: Vec<FactError>) -> Self {
        Self {
            timelines,
            cutoff,
            errors,
        }
    }

    /// The pairs of `article`, at most one per evolving pair and kind of error, in
    /// the order of `article.facts`.
    ///
    /// A fact gives pairs when (1) the article was published after the cutoff,
    /// (2) it is a value its pair held on the publication day and the document
    /// names it (it is among `article.facts`; of several, the latest that gives
    /// pairs), (3) that value differs from the pair's values at the cutoff, and
    /// (4) the summary names it where it can be replaced (see `replaceable`): the
    /// person's name where the value is the person ("Joe Biden", a club's
    /// manager), the other side where the text ties it to the person ("President
    /// Joe Biden", "Kestrel Vale striker Tomas Reyna"). The first such place in
    /// the summary is the one edited.
    pub fn pairs(&self, article: &Article) -> (Outcome, Vec<MinimalPair>) {
        if article.published <= self.cutoff {
            return (Outcome::BeforeCutoff, Vec::new());
        }
        if article.facts.is_empty() {
            return (Outcome::NoFacts, Vec::new());
        }
        let mut names: Vec<(String, String)> = article
            .facts
            .iter()
            .flat_map(|m| &m.mentions)
            .filter(|m| m.field == TextField::Summary)
            .map(|m| (m.entity.clone(), m.name.clone()))
            .collect();
        names.sort();
        names.dedup();
        let found = occurrences(&article.summary, &names);
        let mut done: BTreeSet<(&str, &str)> = BTreeSet::new();
        let mut pairs = Vec::new();
        for fact in article.facts.iter().map(|m| &m.fact) {
            let key = (fact.subject.id.as_str(), fact.relation.as_str());
            if done.contains(&key) {
                continue;
            }
            done.insert(key);
            // Of the values the pair held that day and the document names, the
            // latest the summary names where it can be replaced (a player's new
            // club, not the national team he also joined).
            let named = |f: &&Fact| article.facts.iter().any(|m| same_statement(&m.fact, f));
            let held = self.timelines.values_on(key.0, key.1, article.published);
            let made = held
                .into_iter()
                .filter(named)
                .map(|stated| self.pairs_of_fact(article, stated, &found))
                .find(|made| !made.is_empty());
            pairs.extend(made.into_iter().flatten());
        }
        let outcome = if pairs.is_empty() {
            Outcome::NoPair
        } else {
            Outcome::Pairs
        };
        (outcome, pairs)
    }

    /// The pairs (one per kind of error) that replace the summary's mention of
    /// `stated`'s value.
    fn pairs_of_fact(
        &self,
        article: &Article,
        stated: &Fact,
        found: &[Occurrence],
    ) -> Vec<MinimalPair> {
        let (subject, relation) = (stated.subject.id.as_str(), stated.relation.as_str());
        let at_cutoff = self
            .timelines
            .values_at_cutoff(subject, relation, self.cutoff);
        if at_cutoff.is_empty() || at_cutoff.iter().any(|f| f.object.id == stated.object.id) {
            return Vec::new();
        }
        let Some(reading) = self.timelines.reading(relation) else {
            return Vec::new();
        };
        let Some(place) = replaceable(&article.summary, stated, reading, found) else {
            return Vec::new();
        };
        let mention = &article.summary[place.start..place.end];
        let stated_entity = self
            .timelines
            .entity(&stated.object.id)
            .unwrap_or(&stated.object);
        let render = |new: &EntityRef| match (reading.person_is_subject, reading.words.is_empty()) {
            (false, _) => person_form(mention, stated_entity, new),
            (true, true) => position_form(mention, stated_entity, new),
            (true, false) => name_form(mention, stated_entity, new),
        };
        let mut pairs = Vec::new();
        for &error in &self.errors {
            let chosen = self
                .candidates(error, article, stated, &at_cutoff)
                .into_iter()
                .find_map(|new| {
                    let name = render(new).filter(|n| n != mention)?;
                    Some((new, name))
                });
            let Some((new, name)) = chosen else {
                continue;
            };
            pairs.push(minimal_pair(article, stated, error, place, new, &name));
        }
        pairs
    }

    /// The entities that may replace `stated`'s value for `error`, best first:
    /// the values at the cutoff for an outdated fact; for a non-verifiable one,
    /// those the pair never held, in a fixed rotation per article and fact.
    fn candidates<'t>(
        &'t self,
        error: FactError,
        article: &Article,
        stated: &Fact,
        at_cutoff: &[&'t Fact],
    ) -> Vec<&'t EntityRef> {
        let (subject, relation) = (stated.subject.id.as_str(), stated.relation.as_str());
        match error {
            // A value of the cutoff the pair still held on the publication day
            // (a player's national team beside his new club) is no error.
            FactError::Outdated => at_cutoff
                .iter()
                .filter(|f| {
                    !self
                        .timelines
                        .holds_past(subject, relation, &f.object.id, article.published)
                })
                .map(|f| self.timelines.entity(&f.object.id).unwrap_or(&f.object))
                .collect(),
            FactError::NonVerifiable => {
                let mut never = self
                    .timelines
                    .never_held(subject, relation, &stated.object.id);
                // A fixed rotation per article and fact: deterministic, and not
                // always the same stand-in across articles.
                if !never.is_empty() {
                    let turn = stable_hash(&[&article.id, subject, relation]) % never.len() as u64;
                    never.rotate_left(turn as usize);
                }
                never
            }
        }
    }
}

/// The pair that writes `name` (naming `new`) over the summary's mention of
/// `stated`'s value at `place`; intrinsic when the article names the replacement.
fn minimal_pair(
    article: &Article,
    stated: &Fact,
    error: FactError,
    place: &Occurrence,
    new: &EntityRef,
    name: &str,
) -> MinimalPair {
    let (subject, relation) = (stated.subject.id.as_str(), stated.relation.as_str());
    let summary = &article.summary;
    let edit = Edit::agreeing(summary, place.start, place.end, name);
    let intrinsic = occurs_in(&article.document, name)
        || new
            .names()
            .any(|n| n.chars().count() >= 4 && occurs_in(&article.document, n));
    MinimalPair {
        id: format!("{}#{subject}.{relation}.{}", article.id, error.as_str()),
        article_id: article.id.clone(),
        article: article.document.clone(),
        reference_summary: summary.clone(),
        edited_summary: edit.apply(summary),
        error_type: if intrinsic { INTRINSIC } else { EXTRINSIC }.to_string(),
        fact_error: error,
        span: edit.span(summary),
        published: article.published,
        source: article.source.clone(),
        split: article.split.clone(),
        fact: EditedFact {
            subject: subject.to_string(),
            relation: relation.to_string(),
            stated: stated.object.id.clone(),
            substituted: new.id.clone(),
        },
    }
}

/// The first place in the summary where `stated`'s value can be replaced. Where
/// the value is the person (`P1308`, `P286`, `P169`, `P488`, a relation the
/// catalogue lacks): a name of them anywhere. Where it is the other side, only
/// where the text ties it to the person, since a position or a club named
/// elsewhere may be someone else's: an office (no role words, `P39`) directly
/// before a name of the person ("President Joe Biden"); a club or company before
/// a role word and the person ("Dunmere Athletic striker Jo Brand", `P54`), or
/// after the person and "the" ("Jo Brand, the Dunmere striker").
fn replaceable<'a>(
    summary: &str,
    stated: &Fact,
    reading: &Reading,
    found: &'a [Occurrence],
) -> Option<&'a Occurrence> {
    let names = |o: &Occurrence, id: &str| o.entities.iter().any(|e| e == id);
    let (value, person) = (&stated.object.id, &stated.subject.id);
    if !reading.person_is_subject {
        return found.iter().find(|o| names(o, value));
    }
    found.iter().enumerate().find_map(|(i, o)| {
        if !names(o, value) {
            return None;
        }
        let next = found.get(i + 1).filter(|n| names(n, person));
        let before = i
            .checked_sub(1)
            .and_then(|p| found.get(p))
            .filter(|p| names(p, person));
        let tied = if reading.words.is_empty() {
            next.is_some_and(|n| summary.get(o.end..n.start) == Some(" "))
        } else {
            let word_before = |n: &Occurrence| {
                summary
                    .get(o.end..n.start)
                    .and_then(|gap| gap.strip_prefix(' ')?.strip_suffix(' '))
                    .is_some_and(|w| is_role_word(w, reading))
            };
            let apposition = |p: &Occurrence| {
                summary.get(p.end..o.start) == Some(", the ")
                    && role_word_at(&summary[o.end..], reading)
            };
            next.is_some_and(word_before) || before.is_some_and(apposition)
        };
        tied.then_some(o)
    })
}

/// Whether `text` is the role word `w` (singular), in its case.
fn is_word(text: &str, w: &RoleWord) -> bool {
    match w.case {
        Case::Any => w.word.eq_ignore_ascii_case(text),
        Case::Exact => w.word == text,
    }
}

/// Whether `text` is one of the relation's role words (singular), in its case.
fn is_role_word(text: &str, reading: &Reading) -> bool {
    reading.words.iter().any(|w| is_word(text, w))
}

/// Whether `rest` starts with a space and one of the relation's role words,
/// ending on a word boundary (" striker," " striker.").
fn role_word_at(rest: &str, reading: &Reading) -> bool {
    let Some(rest) = rest.strip_prefix(' ') else {
        return false;
    };
    reading.words.iter().any(|w| {
        let Some(head) = rest.get(..w.word.len()) else {
            return false;
        };
        is_word(head, w)
            && !rest[w.word.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '-')
    })
}

/// Whether two facts are the same statement (the `conflicts` stage copies facts,
/// so equal ids and dates are the same statement).
fn same_statement(a: &Fact, b: &Fact) -> bool {
    a.subject.id == b.subject.id
        && a.relation == b.relation
        && a.object.id == b.object.id
        && a.start == b.start
}

/// FNV-1a over the parts (with a separator): the same on every platform and Rust
/// version, unlike `std`'s hasher.
fn stable_hash(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.as_bytes().iter().chain(&[0xff]) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}
