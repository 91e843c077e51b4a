//! Real dump lines from `../shared/fixtures/wikidata/`, beside the project on
//! developer machines but not in a user's clone. So these tests are ignored by
//! `cargo test` and run with `cargo test -p tempora-wikidata --test reality --
//! --ignored` (`.ci/run` does when the fixtures are there); run so, a missing
//! fixture fails the test. They are read, not copied: our own fixtures are
//! written by us.

mod common;

use std::path::PathBuf;

use common::read;
use tempora_engine::OnError;

fn fixture(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/wikidata")
        .join(name);
    assert!(path.exists(), "{} not found", path.display());
    path
}

#[test]
#[ignore = "needs ../shared/fixtures/wikidata beside the project"]
fn the_real_dump_head_parses_with_washington_and_pinera() {
    let path = fixture("dump-head-49-entities.json");
    let (result, rejected) = read(&path, OnError::Fail);
    let read = result.unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    assert_eq!(read.entities, 49, "no closing `]`: still read to the end");
    assert!(read.candidates >= 2, "Q23 and Q306 have P39");
}

#[test]
#[ignore = "needs ../shared/fixtures/wikidata beside the project"]
fn a_622_kb_line_in_bzip2_parses() {
    let path = fixture("Q31-dump-line.json.bz2");
    let (result, rejected) = read(&path, OnError::Fail);
    let read = result.unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    assert_eq!((read.entities, read.candidates), (1, 1));
}

#[test]
#[ignore = "needs ../shared/fixtures/wikidata beside the project"]
fn putins_22_statements_give_21_facts() {
    let path = fixture("Q7747-putin-api-entity.json");
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
