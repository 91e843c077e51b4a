//! Our own dump lines of a club, its managers, a player and a company
//! (`tests/fixtures/sport-dump.json`, made-up entities in the shape of real lines:
//! qualifiers with hashes and `qualifiers-order`, references, `\u00e9` and `\/`
//! escapes, year and month precision, a `somevalue` end and value, deprecated
//! statements, alias lists) read with P54, P286, P169 and P488.

mod common;

use std::path::PathBuf;

use tempora_records::Fact;
use tempora_wikidata::{FactsRead, RelationTally};

const RELATIONS: [&str; 4] = ["P54", "P286", "P169", "P488"];

fn sport_dump() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sport-dump.json")
}

/// `path` read with the four relations at `cutoff`; every rejection fails.
fn read_sport(path: &std::path::Path, cutoff: &str) -> FactsRead {
    common::read_clean(path, &RELATIONS, cutoff)
}

/// What a fact says, in short: (object, start, end, rank, valid at the cutoff).
type Said = (String, Option<String>, Option<String>, String, bool);

/// What the facts of `subject` and `relation` say, in the canonical order (by
/// start, a missing start first).
fn said(facts: &[Fact], subject: &str, relation: &str) -> Vec<Said> {
    facts
        .iter()
        .filter(|f| f.subject.id == subject && f.relation == relation)
        .map(|f| {
            (
                f.object.id.clone(),
                f.start.clone(),
                f.end.clone(),
                f.rank.clone(),
                f.valid_at_cutoff,
            )
        })
        .collect()
}

fn s(text: &str) -> Option<String> {
    Some(text.to_string())
}

fn fact(object: &str, start: Option<&str>, end: Option<&str>, rank: &str, valid: bool) -> Said {
    (
        object.to_string(),
        start.map(str::to_string),
        end.map(str::to_string),
        rank.to_string(),
        valid,
    )
}

#[test]
fn the_sport_and_business_lines_give_their_facts_per_relation() {
    let read = read_sport(&sport_dump(), "2016-01-01");
    assert_eq!((read.entities, read.candidates), (7, 3));
    let tally = |r: &RelationTally| {
        (
            r.relation.clone(),
            r.subjects,
            r.statements,
            r.pairs,
            r.facts,
        )
    };
    let tallies: Vec<_> = read.relations.iter().map(tally).collect();
    // Deprecated and `somevalue` statements are counted, never facts; the
    // chairperson pair changes only by a deprecated statement, so it is not evolving.
    assert_eq!(
        tallies,
        [
            ("P54".to_string(), 1, 4, 1, 4),
            ("P286".to_string(), 1, 4, 1, 3),
            ("P169".to_string(), 1, 3, 1, 2),
            ("P488".to_string(), 1, 2, 0, 0),
        ]
    );
    let facts = &read.facts;
    // The player: years, a day, a spell with no qualifier at all; matches played,
    // goals and the transfer qualifier (P1350, P1351, P1642) change nothing.
    assert_eq!(
        said(facts, "Q990201", "P54"),
        [
            fact("Q990013", None, None, "normal", false),
            fact("Q990011", Some("2008"), Some("2012"), "normal", false),
            fact(
                "Q990001",
                Some("2012-08-31"),
                Some("2016-06-30"),
                "normal",
                true
            ),
            fact("Q990012", Some("2016-07-01"), None, "preferred", false),
        ]
    );
    // The club's managers: a `somevalue` end is no end date and not held at the
    // cutoff; a month-precision start; the deprecated manager is dropped.
    assert_eq!(
        said(facts, "Q990001", "P286"),
        [
            fact(
                "Q990101",
                Some("2015-07-01"),
                Some("2018-05-31"),
                "normal",
                true
            ),
            fact("Q990102", Some("2018-06-01"), None, "normal", false),
            fact("Q990103", Some("2019-11"), None, "preferred", false),
        ]
    );
    // The company's chief executives: the `somevalue` one is no fact.
    assert_eq!(
        said(facts, "Q990401", "P169"),
        [
            fact(
                "Q990501",
                Some("2010-03-01"),
                Some("2017-02-14"),
                "normal",
                true
            ),
            fact("Q990502", Some("2017-02-15"), None, "preferred", false),
        ]
    );
    let changed = |subject: &str| {
        let f = facts.iter().find(|f| f.subject.id == subject).unwrap();
        f.pair_changed.clone()
    };
    assert_eq!(changed("Q990201"), s("2016-07-01"));
    assert_eq!(changed("Q990001"), s("2018-06-01"));
    assert_eq!(changed("Q990401"), s("2017-02-15"));
}

#[test]
fn the_sport_lines_give_names_unescaped_with_aliases_and_successions() {
    let read = read_sport(&sport_dump(), "2016-01-01");
    let facts = &read.facts;
    let by = |subject: &str, object: &str| {
        facts
            .iter()
            .find(|f| f.subject.id == subject && f.object.id == object)
            .unwrap()
    };
    let rovers = by("Q990001", "Q990101");
    assert_eq!(rovers.subject.label, s("Harbourside Rovers F.C."));
    assert_eq!(rovers.subject.aliases, ["Rovers", "Harbourside", "HRFC"]);
    // `\u00e9` in the manager's line, `\/` in the club's.
    assert_eq!(rovers.object.label, s("René Okafor"));
    assert_eq!(by("Q990001", "Q990103").object.label, s("Sandro Mellé"));
    assert_eq!(by("Q990201", "Q990012").object.label, s("Northgate A/C"));
    assert_eq!(by("Q990201", "Q990001").subject.label, s("Tomás Brennagh"));
    assert_eq!(
        by("Q990201", "Q990001").object.label,
        s("Harbourside Rovers F.C.")
    );
    assert_eq!(by("Q990401", "Q990502").object.label, s("Owen Takács"));
    // An object with no line of its own keeps its id only.
    assert_eq!(by("Q990001", "Q990102").object.label, None);
    // P1365/P1366 on the managers' statements; the transfer item is no successor.
    assert_eq!(rovers.replaced_by, s("Q990102"));
    assert_eq!(by("Q990001", "Q990102").replaces, s("Q990101"));
    assert!(facts
        .iter()
        .filter(|f| f.relation == "P54")
        .all(|f| f.replaces.is_none() && f.replaced_by.is_none()));
}

#[test]
fn the_sport_lines_are_read_alike_in_every_layout_and_after_the_last_change_give_nothing() {
    let text = std::fs::read_to_string(sport_dump()).unwrap();
    let compact = read_sport(&sport_dump(), "2016-01-01");
    let dir = tempfile::tempdir().unwrap();
    for layout in common::LAYOUTS {
        let relaid = common::relaid_dump(&text, layout, |_| true);
        let path = common::write(dir.path(), "sport.json", relaid.as_bytes());
        let read = read_sport(&path, "2016-01-01");
        assert_eq!(read.facts, compact.facts, "{layout:?}");
        assert_eq!(read.relations, compact.relations, "{layout:?}");
    }
    // By 2020 every pair has made its last change: no fact.
    assert!(read_sport(&sport_dump(), "2020-01-01").facts.is_empty());
}
