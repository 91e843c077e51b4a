//! Time to write the Parquet file of 100,000 generated articles: the old route
//! (each record to a JSON line, polars infers a schema and writes) against the
//! declared schema (`serde_arrow` and arrow-rs), in one run.
//!
//! Run: `cargo run --release -p tempora-sink --example parquet_speed [ARTICLES]`

use std::time::Instant;

use chrono::{NaiveDate, TimeZone, Utc};
use tempora_records::{
    Article, EntityRef, Fact, FactMatch, Mention, Novelty, Record, RecordKind, SummarySource,
    TextField, Timestamp,
};

fn entity(id: u64, name: &str) -> EntityRef {
    EntityRef {
        id: format!("Q{id}"),
        label: Some(name.into()),
        aliases: vec![format!("{name} (alias)")],
    }
}

/// Article `i`: a 2 KB body, a summary, two facts with a mention each, novelty
/// set on every other article, dates spread over ten years.
fn article(i: u64) -> Record {
    let day = NaiveDate::from_ymd_opt(2014, 1, 1).unwrap() + chrono::Days::new(i % 3650);
    let sentence = format!("Sentence {i} of an article about the news of the day, with names. ");
    let fact = |k: u64| FactMatch {
        fact: Fact {
            subject: entity(1000 + k, "President of Somewhere"),
            relation: "P1308".into(),
            object: entity(2000 + i % 97, "Some Person"),
            start: Some("2021-01-20".into()),
            end: (k == 1).then(|| "2023-05".into()),
            replaces: None,
            replaced_by: None,
            rank: "normal".into(),
            valid_at_cutoff: k == 0,
            pair_changed: Some("2021-01-20".into()),
        },
        mentions: vec![Mention {
            entity: format!("Q{}", 2000 + i % 97),
            name: "Some Person".into(),
            field: TextField::Document,
        }],
        after_change: k == 1,
    };
    Record::Article(Box::new(Article {
        id: format!("{}", 10_000_000 + i),
        url: format!("https://www.bbc.co.uk/news/world-{}", 10_000_000 + i),
        source: "bbc".into(),
        section: "news".into(),
        published: day,
        published_at: Some(Utc.with_ymd_and_hms(2014, 1, 1, 12, 0, 0).unwrap()),
        published_source: None,
        captured: day.and_hms_opt(9, 30, 12).map(Timestamp::of),
        title: format!("Headline number {i}"),
        summary: sentence.clone(),
        summary_source: Some(SummarySource::Intro),
        document: sentence.repeat(30),
        dateline: None,
        facts: vec![fact(0), fact(1)],
        relations: vec!["P1308".into()],
        split: Some("future".into()),
        novelty: i.is_multiple_of(2).then(|| Novelty {
            overlap: (i % 100) as f64,
            bin: "0-15".into(),
            tag: Some("T_nov".into()),
        }),
        archived_url: None,
        digest: None,
        payload_sha1: None,
    }))
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let records: Vec<Record> = (0..n).map(article).collect();
    let dir = tempfile::tempdir().expect("a temporary directory");

    let old_path = dir.path().join("old.parquet");
    let start = Instant::now();
    // What the sink did: a JSON line per record as it arrived, then polars.
    let lines: Vec<Vec<u8>> = records
        .iter()
        .map(|r| {
            let mut line = Vec::with_capacity(4096);
            r.write_json(&mut line).expect("JSON");
            line
        })
        .collect();
    let file = std::fs::File::create(&old_path).expect("old.parquet");
    tempora_sink::parquet::write_json_lines(lines.iter().map(Vec::as_slice), &file)
        .expect("old write");
    let old = start.elapsed();

    let new_path = dir.path().join("new.parquet");
    let start = Instant::now();
    let file = std::fs::File::create(&new_path).expect("new.parquet");
    tempora_sink::parquet::write_records(RecordKind::Article, &records, &file).expect("new write");
    let new = start.elapsed();

    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    println!(
        "{n} articles: JSON via polars {:.2} s ({} bytes), declared schema {:.2} s ({} bytes): new/old = {:.2}",
        old.as_secs_f64(),
        size(&old_path),
        new.as_secs_f64(),
        size(&new_path),
        new.as_secs_f64() / old.as_secs_f64()
    );
}
