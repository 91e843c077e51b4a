//! Helpers for the integration tests: our own dumps, written in the real layout, in
//! every compression; and a way to read facts with rejections collected.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tempora_engine::OnError;
use tempora_engine::StageStats;
use tempora_wikidata::{read_facts, FactsQuery, FactsRead, Rejection, WikidataError};

/// The demo dump (17 entities, plain JSON).
pub fn demo_dump() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo-dump.json")
}

/// The demo dump's text.
pub fn demo_text() -> String {
    std::fs::read_to_string(demo_dump()).unwrap()
}

/// The query of the demo pipeline: P39 and P1308, English, cutoff 2019-12-31.
pub fn query(on_error: OnError) -> FactsQuery {
    FactsQuery {
        relations: vec!["P39".into(), "P1308".into()],
        languages: vec!["en".into()],
        cutoff: "2019-12-31".parse().unwrap(),
        on_error,
    }
}

/// Reads `dump`, collecting rejections.
pub fn read(dump: &Path, on_error: OnError) -> (Result<FactsRead, WikidataError>, Vec<Rejection>) {
    read_with(dump, &query(on_error))
}

/// Reads `dump` with `query`, collecting rejections.
fn read_with(
    dump: &Path,
    query: &FactsQuery,
) -> (Result<FactsRead, WikidataError>, Vec<Rejection>) {
    let mut rejected = Vec::new();
    let stats = StageStats::default();
    let cancel = Arc::new(AtomicBool::new(false));
    let result = read_facts(dump.to_str().unwrap(), query, &stats, &cancel, &mut |r| {
        rejected.push(r)
    });
    (result, rejected)
}

/// Reads `dump` with `relations` at `cutoff` (English names, failing on a malformed
/// line); any rejection fails the test.
pub fn read_clean(dump: &Path, relations: &[&str], cutoff: &str) -> FactsRead {
    let query = FactsQuery {
        relations: relations.iter().map(|r| r.to_string()).collect(),
        cutoff: cutoff.parse().unwrap(),
        ..query(OnError::Fail)
    };
    let (read, rejected) = read_with(dump, &query);
    let read = read.unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    read
}

/// gzip members, one per part, like Wikimedia's dumps.
pub fn gzip_members(parts: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(part.as_bytes()).unwrap();
        out.extend(enc.finish().unwrap());
    }
    out
}

/// bzip2 of `text`.
pub fn bzip2(text: &str) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap()
}

/// zstd of `text`.
pub fn zstd(text: &str) -> Vec<u8> {
    zstd::encode_all(text.as_bytes(), 3).unwrap()
}

/// The dump text split into `n` parts at line ends (after the `,`).
pub fn split_lines(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let per = lines.len().div_ceil(n);
    lines.chunks(per).map(|c| c.concat()).collect()
}

/// Writes `bytes` to `name` in `dir`.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A Wikidata time string with its precision.
pub type Time<'a> = (&'a str, u8);

/// A P39 statement: position, start, end.
pub type Held<'a> = (&'a str, Time<'a>, Option<Time<'a>>);

/// A person entity line with P39 statements.
pub fn person_line(id: &str, label: &str, held: &[Held<'_>]) -> String {
    let statements: Vec<String> = held
        .iter()
        .enumerate()
        .map(|(i, (pos, start, end))| {
            let mut quals = vec![format!(r#""P580":[{}]"#, time_snak("P580", *start))];
            if let Some(end) = end {
                quals.push(format!(r#""P582":[{}]"#, time_snak("P582", *end)));
            }
            format!(
                r#"{{"mainsnak":{{"snaktype":"value","property":"P39","datavalue":{{"value":{{"entity-type":"item","numeric-id":{n},"id":"{pos}"}},"type":"wikibase-entityid"}},"datatype":"wikibase-item"}},"type":"statement","qualifiers":{{{q}}},"id":"{id}${i}","rank":"normal"}}"#,
                n = &pos[1..],
                q = quals.join(",")
            )
        })
        .collect();
    format!(
        r#"{{"type":"item","id":"{id}","labels":{{"en":{{"language":"en","value":"{label}"}}}},"descriptions":{{}},"aliases":{{}},"claims":{{"P39":[{}]}},"sitelinks":{{}}}}"#,
        statements.join(",")
    )
}

fn time_snak(property: &str, (time, precision): Time<'_>) -> String {
    format!(
        r#"{{"snaktype":"value","property":"{property}","datavalue":{{"value":{{"time":"{time}","timezone":0,"before":0,"after":0,"precision":{precision},"calendarmodel":"http:\/\/www.wikidata.org\/entity\/Q1985727"}},"type":"time"}},"datatype":"time"}}"#
    )
}

/// How [`relaid`] writes an entity line: the same JSON in another layout.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Written between a key and its value (`":"` in a dump, `": "` by Python's
    /// `json.dumps`).
    pub colon: &'static str,
    /// Written between members and elements (`","` in a dump, `", "` by Python).
    pub comma: &'static str,
    /// Every object's keys in reverse order (a dump writes `type`, `id` first).
    pub reversed: bool,
}

/// The layouts of the tests: Python's default `json.dumps`, blanks and tabs on
/// both sides, and each with its keys in reverse order.
pub const LAYOUTS: [Layout; 4] = [
    Layout {
        colon: ": ",
        comma: ", ",
        reversed: false,
    },
    Layout {
        colon: " :\t",
        comma: "\t, ",
        reversed: false,
    },
    Layout {
        colon: ": ",
        comma: ", ",
        reversed: true,
    },
    Layout {
        colon: ":",
        comma: ",",
        reversed: true,
    },
];

/// The entity of dump line `line` (with or without its `,`) written in `layout`,
/// as one line with the dump line's trailing `,` if it had one.
pub fn relaid(line: &str, layout: Layout) -> String {
    let body = line.trim_end().strip_suffix(',');
    let value: serde_json::Value = serde_json::from_str(body.unwrap_or(line)).unwrap();
    let mut out = String::new();
    write_json(&value, layout, &mut out);
    if body.is_some() {
        out.push(',');
    }
    out
}

fn write_json(value: &serde_json::Value, layout: Layout, out: &mut String) {
    match value {
        serde_json::Value::Object(map) => {
            let mut members: Vec<_> = map.iter().collect();
            if layout.reversed {
                members.reverse();
            }
            out.push('{');
            for (i, (key, value)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(layout.comma);
                }
                out.push_str(&serde_json::to_string(key).unwrap());
                out.push_str(layout.colon);
                write_json(value, layout, out);
            }
            out.push('}');
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(layout.comma);
                }
                write_json(item, layout, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// `text` (a dump) with the entity lines for which `pick(line number)` holds
/// written in `layout`; `[` and `]` stay.
pub fn relaid_dump(text: &str, layout: Layout, pick: impl Fn(usize) -> bool) -> String {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(n, line)| {
            if pick(n) && line.trim_start().starts_with('{') {
                relaid(line, layout) + "\n"
            } else {
                line.to_string()
            }
        })
        .collect()
}
