//! Real entity lines of players, clubs and companies, kept outside the project: the
//! directory named by `TEMPORA_WIKIDATA_REAL` holds one entity per `*.json` file,
//! each a dump line. So the test is ignored by `cargo test` and runs with
//! `TEMPORA_WIKIDATA_REAL=DIR cargo test -p tempora-wikidata --test sport_reality
//! -- --ignored`; run so, an unset variable or a missing line fails it. The lines
//! are read, not copied: our own lines of the same shape are in
//! `tests/fixtures/sport-dump.json` (`tests/sport.rs`).

mod common;

use std::path::{Path, PathBuf};

use tempora_records::Fact;
use tempora_wikidata::FactsRead;

const RELATIONS: [&str; 4] = ["P54", "P286", "P169", "P488"];

/// The directory of real lines, or a clear failure.
fn real_dir() -> PathBuf {
    let dir = std::env::var_os("TEMPORA_WIKIDATA_REAL").unwrap_or_else(|| {
        panic!("TEMPORA_WIKIDATA_REAL is not set: name the directory of real entity lines")
    });
    let dir = PathBuf::from(dir);
    assert!(dir.is_dir(), "{} is not a directory", dir.display());
    dir
}

/// Every `*.json` line of `dir`, by file name.
fn real_lines(dir: &Path) -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, text.trim().trim_end_matches(',').to_string())
        })
        .collect();
    lines.sort();
    lines
}

/// `lines` as a dump (`[`, one entity a line, `]`) read with the four relations at
/// `cutoff`; every rejection fails.
fn read_lines(lines: &[&str], cutoff: &str) -> FactsRead {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("[\n{}\n]\n", lines.join(",\n"));
    let path = common::write(dir.path(), "real.json", text.as_bytes());
    common::read_clean(&path, &RELATIONS, cutoff)
}

/// The statements of each relation in `line`, counted with serde_json.
fn statements_in(line: &str) -> Vec<u64> {
    let entity: serde_json::Value = serde_json::from_str(line).unwrap();
    RELATIONS
        .iter()
        .map(|r| entity["claims"][r].as_array().map_or(0, |a| a.len() as u64))
        .collect()
}

/// (start, end, rank, valid at cutoff) of the fact of `subject` with `object`.
fn spell(facts: &[Fact], subject: &str, object: &str) -> (String, String, String, bool) {
    let found: Vec<&Fact> = facts
        .iter()
        .filter(|f| f.subject.id == subject && f.object.id == object)
        .collect();
    assert_eq!(found.len(), 1, "{subject} -> {object}: {found:?}");
    let f = found[0];
    (
        f.start.clone().unwrap_or_default(),
        f.end.clone().unwrap_or_default(),
        f.rank.clone(),
        f.valid_at_cutoff,
    )
}

#[test]
#[ignore = "needs TEMPORA_WIKIDATA_REAL=DIR of real entity lines"]
fn every_real_line_is_read_whole_with_no_rejection() {
    let lines = real_lines(&real_dir());
    assert!(!lines.is_empty(), "no *.json line in the directory");
    for (name, line) in &lines {
        let read = read_lines(&[line], "2019-12-31");
        assert_eq!(read.entities, 1, "{name}");
        let tallied: Vec<u64> = read.relations.iter().map(|t| t.statements).collect();
        assert_eq!(
            tallied,
            statements_in(line),
            "{name}: statements per relation"
        );
        // Each line again in every other layout: the same facts.
        for layout in common::LAYOUTS {
            let relaid = common::relaid(line, layout);
            assert_eq!(
                read_lines(&[&relaid], "2019-12-31").facts,
                read.facts,
                "{name} in {layout:?}"
            );
        }
    }
}

#[test]
#[ignore = "needs TEMPORA_WIKIDATA_REAL=DIR of real entity lines"]
fn the_real_players_three_clubs_give_three_facts_with_their_dates() {
    // Q11571 as the API gave it in August 2015: three P54 statements with P580,
    // P582 (years, precision 9, written `+2003-00-00`), P1350 and P1351 qualifiers,
    // references, `qualifiers-order`, values with `numeric-id` and no `id`.
    let dir = real_dir();
    let name = "Q11571-player-2015-excerpt.json";
    let line = std::fs::read_to_string(dir.join(name))
        .unwrap_or_else(|e| panic!("{name} in {}: {e}", dir.display()));
    let read = read_lines(&[line.trim()], "2008-12-31");
    assert_eq!(statements_in(line.trim()), [3, 0, 0, 0]);
    let p54 = &read.relations[0];
    assert_eq!(
        (p54.subjects, p54.statements, p54.pairs, p54.facts),
        (1, 3, 1, 3)
    );
    let facts = &read.facts;
    assert!(facts.iter().all(|f| f.relation == "P54"));
    assert!(facts
        .iter()
        .all(|f| f.subject.label.as_deref() == Some("Cristiano Ronaldo")));
    assert_eq!(
        facts[0].subject.aliases,
        ["Ronaldo", "Cristiano Ronaldo dos Santos Aveiro"]
    );
    assert!(facts
        .iter()
        .all(|f| f.pair_changed.as_deref() == Some("2009-07-01")));
    let y = |s: &str| s.to_string();
    assert_eq!(
        spell(facts, "Q11571", "Q75729"),
        (y("2002"), y("2003"), y("normal"), false)
    );
    assert_eq!(
        spell(facts, "Q11571", "Q18656"),
        (y("2003"), y("2009"), y("normal"), true)
    );
    assert_eq!(
        spell(facts, "Q11571", "Q8682"),
        (y("2009-07-01"), y(""), y("preferred"), false)
    );
    // Matches played and goals are no facts and move no date.
    assert!(facts
        .iter()
        .all(|f| f.replaces.is_none() && f.replaced_by.is_none()));
    // After the last move the pair no longer changes across the cutoff.
    assert!(read_lines(&[line.trim()], "2019-12-31").facts.is_empty());
}
