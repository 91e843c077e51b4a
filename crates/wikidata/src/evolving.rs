//! The evolving rule: which (subject, relation) pairs changed
//! their object across the cutoff, and the facts they yield.
//!
//! A pair is evolving when it has two different objects, one whose start is on or
//! before the cutoff and another whose start is after it. Statements without a known
//! start (absent or `somevalue`) do not decide; deprecated statements were dropped on
//! reading. A start less precise than a day counts as its earliest possible day. Every
//! statement of an evolving pair becomes a fact, undecided ones included.

use chrono::NaiveDate;
use tempora_records::{EntityRef, Fact};

use crate::entity::{Bound, HeldStatement, ParsedEntity};
use crate::time::WikiTime;

/// The facts of every evolving pair of `entity`, in statement order; object names are
/// left empty for the caller to fill.
pub fn evolving_facts(entity: &ParsedEntity, cutoff: NaiveDate) -> Vec<Fact> {
    let mut facts = Vec::new();
    let mut relations: Vec<&str> = Vec::new();
    for s in &entity.statements {
        if !relations.contains(&s.relation.as_str()) {
            relations.push(&s.relation);
        }
    }
    for relation in relations {
        let pair: Vec<&HeldStatement> = entity
            .statements
            .iter()
            .filter(|s| s.relation == relation)
            .collect();
        let Some(changed) = pair_changed(&pair, cutoff) else {
            continue;
        };
        let subject = EntityRef {
            id: entity.id.clone(),
            label: entity.names.label.clone(),
            aliases: entity.names.aliases.clone(),
        };
        facts.extend(pair.iter().map(|s| Fact {
            subject: subject.clone(),
            relation: relation.to_string(),
            object: EntityRef {
                id: s.object.clone(),
                label: None,
                aliases: Vec::new(),
            },
            start: known(&s.start).map(WikiTime::to_iso),
            end: known(&s.end).map(WikiTime::to_iso),
            replaces: s.replaces.clone(),
            replaced_by: s.replaced_by.clone(),
            rank: s.rank.clone(),
            valid_at_cutoff: valid_at(s, cutoff),
            pair_changed: Some(changed.to_iso()),
        }));
    }
    facts
}

fn known(bound: &Bound) -> Option<&WikiTime> {
    match bound {
        Bound::Known(t) => Some(t),
        Bound::Absent | Bound::Unknown => None,
    }
}

/// The earliest start after the cutoff of an object that differs from an object
/// started on or before it: `None` when the pair is not evolving.
fn pair_changed(pair: &[&HeldStatement], cutoff: NaiveDate) -> Option<WikiTime> {
    let before: Vec<&str> = pair
        .iter()
        .filter(|s| known(&s.start).is_some_and(|t| t.earliest <= cutoff))
        .map(|s| s.object.as_str())
        .collect();
    pair.iter()
        .filter_map(|s| known(&s.start).map(|t| (s, t)))
        .filter(|(s, t)| t.earliest > cutoff && before.iter().any(|b| *b != s.object))
        .map(|(_, t)| *t)
        .min_by_key(|t| t.earliest)
}

/// Held on the cutoff day: started on or before it, and not ended before it. An end
/// that is stated but unknown (`somevalue`) cannot be shown to come after the cutoff,
/// so it does not count as held; an end less precise than a day counts as its
/// earliest day, like a start.
fn valid_at(s: &HeldStatement, cutoff: NaiveDate) -> bool {
    let started = known(&s.start).is_some_and(|t| t.earliest <= cutoff);
    let not_ended = match &s.end {
        Bound::Absent => true,
        Bound::Unknown => false,
        Bound::Known(t) => t.earliest >= cutoff,
    };
    started && not_ended
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::Names;
    use crate::time::Calendar;

    fn date(s: &str) -> Bound {
        let precision = match s.len() {
            4 => 9,
            7 => 10,
            _ => 11,
        };
        let full = match s.len() {
            4 => format!("+{s}-00-00T00:00:00Z"),
            7 => format!("+{s}-00T00:00:00Z"),
            _ => format!("+{s}T00:00:00Z"),
        };
        Bound::Known(WikiTime::parse(&full, precision, Calendar::Gregorian).unwrap())
    }

    fn held(object: &str, start: Bound, end: Bound) -> HeldStatement {
        HeldStatement {
            relation: "P39".into(),
            object: object.into(),
            start,
            end,
            replaces: None,
            replaced_by: None,
            rank: "normal".into(),
        }
    }

    fn person(statements: Vec<HeldStatement>) -> ParsedEntity {
        ParsedEntity {
            held: Vec::new(),
            id: "Q6279".into(),
            names: Names {
                label: Some("Joe Biden".into()),
                aliases: vec!["Biden".into()],
            },
            statements,
            bad: Vec::new(),
        }
    }

    fn cutoff() -> NaiveDate {
        NaiveDate::from_ymd_opt(2019, 12, 31).unwrap()
    }

    #[test]
    fn vice_president_then_president_is_evolving() {
        let e = person(vec![
            held("Q11699", date("2009-01-20"), date("2017-01-20")),
            held("Q11696", date("2021-01-20"), Bound::Absent),
            held("Q4", Bound::Absent, Bound::Absent),
        ]);
        let facts = evolving_facts(&e, cutoff());
        assert_eq!(
            facts.len(),
            3,
            "every statement of the pair, undecided ones too"
        );
        assert_eq!(facts[0].subject.label.as_deref(), Some("Joe Biden"));
        assert_eq!(facts[0].start.as_deref(), Some("2009-01-20"));
        assert!(facts
            .iter()
            .all(|f| f.pair_changed.as_deref() == Some("2021-01-20")));
        assert!(!facts[0].valid_at_cutoff, "ended 2017");
        assert!(!facts[1].valid_at_cutoff, "started 2021");
        assert!(!facts[2].valid_at_cutoff, "no start");
    }

    #[test]
    fn same_object_again_or_no_start_does_not_decide() {
        let again = person(vec![
            held("Q1", date("2015-05-01"), date("2020-05-01")),
            held("Q1", date("2020-05-01"), Bound::Absent),
        ]);
        assert!(evolving_facts(&again, cutoff()).is_empty());
        let undated = person(vec![
            held("Q1", date("2015-05-01"), Bound::Absent),
            held("Q2", Bound::Unknown, Bound::Absent),
            held("Q3", Bound::Absent, Bound::Absent),
        ]);
        assert!(evolving_facts(&undated, cutoff()).is_empty());
        let only_after = person(vec![
            held("Q1", date("2020-02-01"), Bound::Absent),
            held("Q2", date("2021-02-01"), Bound::Absent),
        ]);
        assert!(evolving_facts(&only_after, cutoff()).is_empty());
    }

    #[test]
    fn coarse_starts_compare_by_their_earliest_day() {
        // "2019" starts 2019-01-01 (before the cutoff); "2020-01" starts 2020-01-01 (after).
        let e = person(vec![
            held("Q1", date("2019"), Bound::Absent),
            held("Q2", date("2020-01"), Bound::Absent),
        ]);
        let facts = evolving_facts(&e, cutoff());
        assert_eq!(facts.len(), 2);
        assert_eq!(facts[0].pair_changed.as_deref(), Some("2020-01"));
        assert!(facts[0].valid_at_cutoff);
        // Exactly on the cutoff day counts as before.
        let e = person(vec![
            held("Q1", date("2019-12-31"), Bound::Absent),
            held("Q2", date("2020-01-01"), Bound::Absent),
        ]);
        assert_eq!(evolving_facts(&e, cutoff()).len(), 2);
    }

    #[test]
    fn valid_at_cutoff_follows_the_end() {
        let c = cutoff();
        assert!(valid_at(&held("Q1", date("2010"), date("2019-12-31")), c));
        assert!(valid_at(&held("Q1", date("2010"), date("2020-06")), c));
        assert!(!valid_at(&held("Q1", date("2010"), date("2019")), c));
        assert!(!valid_at(&held("Q1", date("2010"), Bound::Unknown), c));
        assert!(valid_at(&held("Q1", date("2010"), Bound::Absent), c));
    }

    #[test]
    fn relations_are_decided_apart() {
        let mut s = held("Q9", date("2010"), Bound::Absent);
        s.relation = "P1308".into();
        let e = person(vec![
            held("Q1", date("2010"), Bound::Absent),
            s,
            held("Q2", date("2021"), Bound::Absent),
        ]);
        let facts = evolving_facts(&e, cutoff());
        assert_eq!(facts.len(), 2);
        assert!(facts.iter().all(|f| f.relation == "P39"));
    }
}
