//! Reading our own dumps in every format: the same facts, names for subjects and
//! objects, and the evolving rule on real-world politics.

mod common;

use common::*;
use tempora_engine::OnError;
use tempora_records::Fact;

fn facts_of(path: &std::path::Path) -> Vec<Fact> {
    let (result, rejected) = read(path, OnError::Skip);
    assert!(rejected.is_empty(), "{rejected:?}");
    result.unwrap().facts
}

fn find<'a>(facts: &'a [Fact], subject: &str, object: &str) -> Vec<&'a Fact> {
    facts
        .iter()
        .filter(|f| f.subject.id == subject && f.object.id == object)
        .collect()
}

#[test]
fn every_format_gives_the_same_facts() {
    let dir = tempfile::tempdir().unwrap();
    let text = demo_text();
    let parts = split_lines(&text, 5);
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let plain = facts_of(&demo_dump());
    assert!(!plain.is_empty());
    let inputs = [
        write(dir.path(), "members.gz", &gzip_members(&parts)),
        write(dir.path(), "single.gz", &gzip_members(&[&text])),
        write(dir.path(), "dump.bz2", &bzip2(&text)),
        write(dir.path(), "dump.zst", &zstd(&text)),
        // The name says nothing: the first bytes do.
        write(dir.path(), "misnamed.json", &gzip_members(&parts)),
    ];
    for input in inputs {
        assert_eq!(facts_of(&input), plain, "{}", input.display());
    }
    let committed = demo_dump().with_extension("json.gz");
    assert_eq!(facts_of(&committed), plain);
}

/// What a read gives: the facts, the entities and candidates counted, and the
/// rejections (none expected).
fn read_whole(path: &std::path::Path) -> (Vec<Fact>, u64, u64) {
    let (result, rejected) = read(path, OnError::Fail);
    assert!(rejected.is_empty(), "{rejected:?}");
    let read = result.unwrap();
    (read.facts, read.entities, read.candidates)
}

#[test]
fn an_entity_line_in_another_layout_is_read_like_a_compact_one() {
    // One entity at a time, rewritten among compact lines (as Python's `json.dumps`
    // rewrites one: blanks after `:` and `,`), and with blanks and tabs, and keys in
    // reverse order: each gives the same facts, names, and entity count.
    let dir = tempfile::tempdir().unwrap();
    let text = demo_text();
    let compact = read_whole(&demo_dump());
    assert_eq!((compact.1, compact.2), (17, 13));
    let lines = text.lines().count();
    for (l, layout) in LAYOUTS.iter().enumerate() {
        for n in 0..lines {
            let relaid = relaid_dump(&text, *layout, |i| i == n);
            let path = write(dir.path(), &format!("one-{l}-{n}.json"), relaid.as_bytes());
            assert_eq!(read_whole(&path), compact, "line {} in {layout:?}", n + 1);
        }
        let every = relaid_dump(&text, *layout, |_| true);
        let path = write(dir.path(), &format!("every-{l}.json"), every.as_bytes());
        assert_eq!(read_whole(&path), compact, "every line in {layout:?}");
        let parts = split_lines(&every, 3);
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        let gz = write(
            dir.path(),
            &format!("every-{l}.json.gz"),
            &gzip_members(&parts),
        );
        assert_eq!(read_whole(&gz), compact, "every line in {layout:?}, gzip");
    }
}

#[test]
fn an_object_line_without_an_id_is_rejected_not_counted() {
    let text = demo_text().replacen(r#""id":"Q4416090","#, "", 1);
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "no-id.json", text.as_bytes());
    let (result, rejected) = read(&path, OnError::Skip);
    assert_eq!(result.unwrap().entities, 16);
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0].location, "line 3");
    assert!(rejected[0].reason.contains("no entity id"), "{rejected:?}");
}

#[test]
fn members_cut_inside_lines_are_stitched() {
    let dir = tempfile::tempdir().unwrap();
    let text = demo_text();
    // Cut every 997 bytes: members end in the middle of lines and of UTF-8-free JSON.
    let parts: Vec<&str> = text
        .as_bytes()
        .chunks(997)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let path = write(dir.path(), "cut.gz", &gzip_members(&parts));
    assert_eq!(facts_of(&path), facts_of(&demo_dump()));
}

#[test]
fn biden_is_an_evolving_pair_with_names_on_both_sides() {
    let facts = facts_of(&demo_dump());
    let president = find(&facts, "Q6279", "Q11696");
    assert_eq!(president.len(), 1);
    let f = president[0];
    assert_eq!(f.relation, "P39");
    assert_eq!(f.subject.label.as_deref(), Some("Joe Biden"));
    assert!(f.subject.aliases.iter().any(|a| a == "President Biden"));
    assert_eq!(
        f.object.label.as_deref(),
        Some("President of the United States")
    );
    assert!(f.object.aliases.iter().any(|a| a == "the US president"));
    assert_eq!(
        (f.start.as_deref(), f.end.as_deref()),
        (Some("2021-01-20"), Some("2025-01-20"))
    );
    assert_eq!(f.replaces.as_deref(), Some("Q22686"));
    assert!(!f.valid_at_cutoff);
    assert_eq!(f.pair_changed.as_deref(), Some("2021-01-20"));
    let vp = find(&facts, "Q6279", "Q11699");
    assert_eq!(vp[0].end.as_deref(), Some("2017-01-20"));
    assert_eq!(vp[0].replaced_by.as_deref(), Some("Q24313"));
    // The senate seat's line comes before Biden's and is no candidate: the second
    // pass names it.
    let senate = find(&facts, "Q6279", "Q4416090");
    assert_eq!(
        senate[0].object.label.as_deref(),
        Some("United States senator")
    );
}

#[test]
fn only_pairs_that_change_across_the_cutoff_are_emitted() {
    let facts = facts_of(&demo_dump());
    let mut pairs: Vec<(String, String)> = facts
        .iter()
        .map(|f| (f.subject.id.clone(), f.relation.clone()))
        .collect();
    pairs.dedup();
    // In the canonical order (subject id, relation, ...), not the dump's.
    assert_eq!(
        pairs,
        [
            ("Q10853588", "P39"),
            ("Q11696", "P1308"),
            ("Q11699", "P1308"),
            ("Q4970706", "P1308"),
            ("Q6279", "P39"),
        ]
        .map(|(s, r)| (s.to_string(), r.to_string()))
    );
    // Trump held one office twice (same object), May and Johnson changed before the cutoff.
    assert!(find(&facts, "Q22686", "Q11696").is_empty());
    assert!(facts.iter().all(|f| f.subject.id != "Q14211"));
    // Held on the cutoff day: Trump as president, Pence as vice president, Merkel.
    let valid: Vec<(&str, &str)> = facts
        .iter()
        .filter(|f| f.valid_at_cutoff)
        .map(|f| (f.subject.id.as_str(), f.object.id.as_str()))
        .collect();
    assert_eq!(
        valid,
        [
            ("Q10853588", "Q4416090"),
            ("Q11696", "Q22686"),
            ("Q11699", "Q24313"),
            ("Q4970706", "Q567")
        ]
    );
}

#[test]
fn a_stream_without_a_size_is_sniffed_by_its_first_bytes() {
    // stdin (`-`) is such a stream: no size for the progress total, format from the bytes.
    let gz = gzip_members(&[&demo_text()]);
    let input = tempora_wikidata::input::DumpInput::from_reader(
        "stdin".into(),
        None,
        Box::new(std::io::Cursor::new(gz)),
    )
    .unwrap();
    assert_eq!(input.format, tempora_wikidata::input::Format::Gzip);
    assert_eq!((input.name.as_str(), input.size), ("stdin", None));
}

/// The first pass reads the whole dump though every object named so far has
/// been found: a line after that point may hold more facts.
#[test]
fn the_dump_is_read_past_the_point_where_every_object_so_far_is_named() {
    let changed = |person: &str, before: &str, after: &str| {
        person_line(
            person,
            person,
            &[
                (
                    before,
                    ("+2015-01-01T00:00:00Z", 11),
                    Some(("+2020-06-01T00:00:00Z", 11)),
                ),
                (after, ("+2020-06-01T00:00:00Z", 11), None),
            ],
        )
    };
    // An object line without the relations' claim keys: read for its names only.
    let named = |id: &str, label: &str| {
        format!(
            r#"{{"type":"item","id":"{id}","labels":{{"en":{{"language":"en","value":"{label}"}}}},"descriptions":{{}},"aliases":{{}},"claims":{{}},"sitelinks":{{}}}}"#
        )
    };
    let lines = [
        changed("Q9300001", "Q9300011", "Q9300012"),
        named("Q9300011", "First office"),
        named("Q9300012", "Second office"),
        // Here every object of the facts so far is named.
        changed("Q9300002", "Q9300021", "Q9300022"),
        named("Q9300021", "Third office"),
        named("Q9300022", "Fourth office"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let dump = write(
        dir.path(),
        "dump.json",
        format!("[\n{}\n]\n", lines.join(",\n")).as_bytes(),
    );
    let facts = facts_of(&dump);
    let subjects: Vec<&str> = facts.iter().map(|f| f.subject.id.as_str()).collect();
    assert_eq!(subjects, ["Q9300001", "Q9300001", "Q9300002", "Q9300002"]);
    assert!(facts.iter().all(|f| f.object.label.is_some()), "{facts:?}");
}
