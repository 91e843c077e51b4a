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

/// The facts, entity and candidate counts of `path` with `cutoff`, read with no
/// rejection.
fn read_whole(path: &std::path::Path, cutoff: &str) -> (Vec<tempora_records::Fact>, u64, u64) {
    let read = common::read_clean(path, &["P39", "P1308"], cutoff);
    (read.facts, read.entities, read.candidates)
}

#[test]
#[ignore = "needs ../shared/fixtures/wikidata beside the project"]
fn real_lines_rewritten_by_pythons_json_dumps_are_read_the_same() {
    // Python's default `json.dumps` writes `": "` and `", "`: Washington's line so
    // rewritten among the compact ones, then every line, then each line in every
    // test layout (keys reversed too).
    let path = fixture("dump-head-49-entities.json");
    let text = std::fs::read_to_string(&path).unwrap();
    // With a cutoff in 1790 the dump head's 18th-century offices make evolving
    // pairs (Washington's among them).
    let compact = read_whole(&path, "1790-01-01");
    assert!(compact.0.iter().any(|f| f.subject.id == "Q23"));
    assert_eq!((compact.1, compact.2), (49, 6));
    let washington = text
        .lines()
        .position(|l| l.starts_with(r#"{"type":"item","id":"Q23","#))
        .expect("Q23 in the dump head");
    let dir = tempfile::tempdir().unwrap();
    let python = common::LAYOUTS[0];
    let mut rewritten = vec![
        common::relaid_dump(&text, python, |n| n == washington),
        common::relaid_dump(&text, python, |_| true),
    ];
    rewritten.extend(
        common::LAYOUTS
            .iter()
            .map(|layout| common::relaid_dump(&text, *layout, |_| true)),
    );
    for (i, text) in rewritten.iter().enumerate() {
        let path = common::write(dir.path(), &format!("head-{i}.json"), text.as_bytes());
        assert_eq!(read_whole(&path, "1790-01-01"), compact, "rewriting {i}");
    }
    // Putin's entity alone (the one the issue found dropped), rewritten so.
    let path = fixture("Q7747-putin-api-entity.json");
    let putin = read_whole(&path, "2019-12-31");
    assert_eq!(putin.0.len(), 21);
    let text = std::fs::read_to_string(&path).unwrap();
    for layout in common::LAYOUTS {
        let relaid = common::relaid_dump(&text, layout, |_| true);
        let path = common::write(dir.path(), "putin.json", relaid.as_bytes());
        assert_eq!(read_whole(&path, "2019-12-31"), putin, "{layout:?}");
    }
}
