//! Real dump lines from `../shared/fixtures/wikidata/` (beside the project on developer
//! machines and in CI, not on a user's machine: skipped when absent). They are read,
//! not copied: our own fixtures are written by us.

mod common;

use std::path::PathBuf;

use common::read;
use tempora_wikidata::OnError;

fn fixture(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/wikidata")
        .join(name);
    path.exists().then_some(path)
}

#[test]
fn the_real_dump_head_parses_with_washington_and_pinera() {
    let Some(path) = fixture("dump-head-49-entities.json") else {
        return eprintln!("shared fixtures not found; skipped");
    };
    let (result, rejected) = read(&path, OnError::Fail);
    let read = result.unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    assert_eq!(read.entities, 49, "no closing `]`: still read to the end");
    assert!(read.candidates >= 2, "Q23 and Q306 have P39");
}

#[test]
fn a_622_kb_line_in_bzip2_parses() {
    let Some(path) = fixture("Q31-dump-line.json.bz2") else {
        return eprintln!("shared fixtures not found; skipped");
    };
    let (result, rejected) = read(&path, OnError::Fail);
    let read = result.unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    assert_eq!((read.entities, read.candidates), (1, 1));
}

#[test]
fn putins_22_statements_give_21_facts() {
    let Some(path) = fixture("Q7747-putin-api-entity.json") else {
        return eprintln!("shared fixtures not found; skipped");
    };
    let (result, rejected) = read(&path, OnError::Fail);
    let read = result.unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    // One of the 22 P39 statements is deprecated; the pair is evolving, so all others are facts.
    assert_eq!(read.facts.len(), 21);
    assert!(read
        .facts
        .iter()
        .all(|f| f.subject.label.as_deref() == Some("Vladimir Putin")));
    let preferred: Vec<_> = read
        .facts
        .iter()
        .filter(|f| f.rank == "preferred")
        .collect();
    assert_eq!(preferred.len(), 1);
    assert!(preferred[0].valid_at_cutoff);
}
