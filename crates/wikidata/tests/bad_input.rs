//! Bad input: truncated and corrupt compression, malformed lines, files that are not
//! dumps, and dates that cannot be used. Each is an error naming where, or a
//! rejection with a reason; never a panic.

mod common;

use common::*;
use tempora_engine::OnError;
use tempora_wikidata::WikidataError;

/// A dump big enough that truncation falls well inside the data.
fn big_text() -> String {
    let mut lines = vec!["[".to_string()];
    for i in 0..1000 {
        lines.push(person_line(
            &format!("Q{}", 1000 + i),
            &format!("Person {i}"),
            &[(
                "Q11699",
                ("+2009-01-20T00:00:00Z", 11),
                Some(("+2017-01-20T00:00:00Z", 11)),
            )],
        ));
    }
    let body = lines[1..].join(",\n");
    format!("[\n{body}\n]\n")
}

#[test]
fn truncated_gzip_names_the_offset_and_the_entities_read() {
    let dir = tempfile::tempdir().unwrap();
    let text = big_text();
    let parts = split_lines(&text, 4);
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let full = gzip_members(&parts);
    let cut = &full[..full.len() * 7 / 8];
    let path = write(dir.path(), "cut.json.gz", cut);
    let (result, _) = read(&path, OnError::Skip);
    let err = result.unwrap_err();
    match &err {
        WikidataError::Truncated {
            offset,
            entities,
            format,
            ..
        } => {
            assert_eq!(*offset, cut.len() as u64);
            assert_eq!(*format, "gzip");
            assert!(*entities >= 500 && *entities < 1000, "{entities}");
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("cut.json.gz") && message.contains(&format!("byte {}", cut.len())),
        "{message}"
    );
    assert!(message.contains("entities were read"), "{message}");
}

#[test]
fn truncated_bzip2_names_the_offset_and_the_entities_read() {
    let dir = tempfile::tempdir().unwrap();
    let full = bzip2(&big_text());
    let cut = &full[..full.len() / 2];
    let path = write(dir.path(), "cut.json.bz2", cut);
    let (result, _) = read(&path, OnError::Skip);
    let message = result.unwrap_err().to_string();
    assert!(
        message.contains("cut.json.bz2") && message.contains("bzip2"),
        "{message}"
    );
    assert!(
        message.contains(&format!("byte {}", cut.len())),
        "{message}"
    );
    assert!(message.contains("entities were read"), "{message}");
}

#[test]
fn corrupt_gzip_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = gzip_members(&[&big_text()]);
    let mid = data.len() / 2;
    for b in &mut data[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let path = write(dir.path(), "corrupt.json.gz", &data);
    let (result, _) = read(&path, OnError::Skip);
    let message = result.unwrap_err().to_string();
    assert!(message.contains("corrupt.json.gz"), "{message}");
}

fn with_bad_line() -> String {
    let text = demo_text();
    let mut lines: Vec<&str> = text.lines().collect();
    // Line 5 (Biden) loses its end: a truncated JSON line that passes the pre-filter.
    let cut = &lines[4][..lines[4].len() / 2];
    lines[4] = cut;
    lines.insert(6, "this is not json,");
    lines.join("\n") + "\n"
}

#[test]
fn malformed_lines_are_rejected_with_their_line_number_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "bad.json", with_bad_line().as_bytes());
    let (result, rejected) = read(&path, OnError::Skip);
    let read = result.unwrap();
    let locations: Vec<&str> = rejected.iter().map(|r| r.location.as_str()).collect();
    assert_eq!(locations, ["line 5", "line 7"]);
    assert!(
        rejected[0].reason.contains("invalid entity JSON"),
        "{}",
        rejected[0].reason
    );
    assert_eq!(rejected[0].record["id"], "Q6279");
    assert!(
        rejected[1].reason.contains("not an entity line"),
        "{}",
        rejected[1].reason
    );
    // Biden's facts are gone; the others are still read.
    assert!(read.facts.iter().all(|f| f.subject.id != "Q6279"));
    assert!(read.facts.iter().any(|f| f.subject.id == "Q10853588"));
}

#[test]
fn malformed_lines_fail_the_run_with_on_error_fail() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "bad.json", with_bad_line().as_bytes());
    let (result, _) = read(&path, OnError::Fail);
    match result.unwrap_err() {
        WikidataError::MalformedLine { line, dump, .. } => {
            assert_eq!(line, 5);
            assert!(dump.ends_with("bad.json"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn files_that_are_not_dumps_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 5] = [
        ("page.html", b"<!DOCTYPE html><html></html>", "XML or HTML"),
        ("archive.zip", b"PK\x03\x04\x14\x00\x00\x00", "zip archive"),
        (
            "config.json",
            b"{\"name\": \"tempora\", \"version\": 1}\n",
            "no entity id",
        ),
        ("list.json", b"[\n\"a\",\n\"b\"\n]\n", "not an entity line"),
        ("empty.json", b"", "empty"),
    ];
    for (name, bytes, why) in cases {
        let path = write(dir.path(), name, bytes);
        let (result, _) = read(&path, OnError::Skip);
        let err = result.unwrap_err();
        assert!(
            matches!(err, WikidataError::NotADump { .. }),
            "{name}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(name) && message.contains("not a Wikidata JSON dump"),
            "{message}"
        );
        assert!(message.contains(why), "{message}");
    }
    // A gzip of something else is caught after inflating.
    let path = write(dir.path(), "notes.txt.gz", &gzip_members(&["dear diary\n"]));
    let (result, _) = read(&path, OnError::Skip);
    assert!(matches!(
        result.unwrap_err(),
        WikidataError::NotADump { .. }
    ));
}

#[test]
fn bad_dates_reject_their_statement_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        person_line(
            "Q1",
            "Feb Thirtieth",
            &[
                ("Q10", ("+2015-02-30T00:00:00Z", 11), None),
                ("Q11", ("+2021-03-01T00:00:00Z", 11), None),
            ],
        ),
        person_line(
            "Q2",
            "Month Thirteen",
            &[
                ("Q10", ("+2015-13-00T00:00:00Z", 10), None),
                ("Q11", ("+2021-03-01T00:00:00Z", 11), None),
            ],
        ),
        person_line(
            "Q3",
            "Garbled",
            &[
                ("Q10", ("2015", 9), None),
                ("Q11", ("+99999999999-00-00T00:00:00Z", 9), None),
            ],
        ),
        person_line(
            "Q4",
            "Zero Parts",
            &[
                ("Q10", ("+2015-00-00T00:00:00Z", 11), None),
                ("Q11", ("+2021-00-00T00:00:00Z", 9), None),
            ],
        ),
    ];
    let text = format!("[\n{}\n]\n", lines.join(",\n"));
    let path = write(dir.path(), "dates.json", text.as_bytes());
    let (result, rejected) = read(&path, OnError::Fail);
    let read = result.unwrap();
    let reasons: Vec<(&str, &str)> = rejected
        .iter()
        .map(|r| (r.location.as_str(), r.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    assert_eq!(reasons[0].0, "line 2");
    assert!(
        reasons[0].1.contains("day 30 does not exist in 2015-02"),
        "{}",
        reasons[0].1
    );
    assert!(reasons[1].1.contains("month 13"), "{}", reasons[1].1);
    assert!(
        reasons[2].1.contains("malformed time `2015`"),
        "{}",
        reasons[2].1
    );
    assert!(
        reasons[3].1.contains("year 99999999999"),
        "{}",
        reasons[3].1
    );
    assert_eq!(rejected[0].record["statement"], "Q1$0");
    // Q1-Q3 lost their pre-cutoff statement, so nothing evolves; Q4's `00` parts are fine.
    let subjects: Vec<&str> = read.facts.iter().map(|f| f.subject.id.as_str()).collect();
    assert_eq!(subjects, ["Q4", "Q4"]);
    assert_eq!(read.facts[0].start.as_deref(), Some("2015"));
}
