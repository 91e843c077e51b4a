//! WARC writing and reading: our records round-trip, the Archive's style is read,
//! cut and foreign files are errors with a place, and the `warc` stage rebuilds pages.

mod common;

use common::sample_page as sample;

use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use tempora_engine::testing::{context, run_stage};
use tempora_records::{Page, Record};
use tempora_wayback::makewarc::warc_from_dir;
use tempora_wayback::stages::warc_stage;
use tempora_wayback::warc::{
    page_from_record, read_at, response_record, WarcFileReader, WarcWriter,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn write(dir: &Path, pages: &[Page]) -> Vec<(PathBuf, u64)> {
    let mut w = WarcWriter::new(dir, "pages", 1 << 30).unwrap();
    let mut places = Vec::new();
    for p in pages {
        if w.needs_roll() {
            w.roll().unwrap();
        }
        places.push(w.append(&response_record(p)).unwrap());
    }
    w.sync().unwrap();
    places
}

#[test]
fn our_records_round_trip_in_order_and_by_offset() {
    let dir = tempfile::tempdir().unwrap();
    let pages: Vec<Page> = (0..5).map(sample).collect();
    let places = write(dir.path(), &pages);
    let file = &places[0].0;
    let read: Vec<Page> = WarcFileReader::open(file, 1 << 20)
        .unwrap()
        .filter_map(|r| page_from_record(&r.unwrap(), "warc", 1 << 20).unwrap())
        .collect();
    assert_eq!(read, pages);
    let (path, offset) = &places[3];
    let record = read_at(path, *offset, 1 << 20).unwrap();
    assert_eq!(record.header("WARC-Type"), Some("response"));
    assert_eq!(
        page_from_record(&record, "warc", 1 << 20).unwrap(),
        Some(pages[3].clone())
    );
    // Each record is its own gzip member: a plain gzip reader sees them all.
    let mut all = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(file).unwrap())
        .read_to_string(&mut all)
        .unwrap();
    assert_eq!(
        all.matches("WARC/1.1\r\n").count(),
        6,
        "warcinfo + 5 responses"
    );
}

#[test]
fn archive_style_records_are_read_and_others_skipped_or_refused() {
    let records: Vec<_> = WarcFileReader::open(&fixture("archive-style.warc.gz"), 1 << 20)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let kinds: Vec<&str> = records.iter().map(|r| r.kind()).collect();
    assert_eq!(
        kinds,
        ["warcinfo", "request", "response", "revisit", "response"]
    );
    let results: Vec<_> = records
        .iter()
        .map(|r| page_from_record(r, "offline", 1 << 20))
        .collect();
    assert!(
        matches!(results[0], Ok(None))
            && matches!(results[1], Ok(None))
            && matches!(results[3], Ok(None))
    );
    let page = results[2].clone().unwrap().unwrap();
    assert_eq!(page.capture.url, "http://www.bbc.co.uk/news/uk-9");
    assert_eq!(page.capture.timestamp, "20150601083000");
    assert_eq!(page.capture.source, "offline");
    assert_eq!(page.capture.digest, "AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH");
    let body = String::from_utf8_lossy(&page.body);
    assert!(
        body.contains("<p>Story text.</p>"),
        "chunks and gzip undone: {body}"
    );
    assert_eq!(
        page.memento_datetime.as_deref(),
        Some("Mon, 01 Jun 2015 08:30:00 GMT")
    );
    let err = results[4].clone().unwrap_err();
    assert!(err.contains("HTTP 302"), "{err}");
}

#[test]
fn plain_warc_files_are_read_too() {
    let dir = tempfile::tempdir().unwrap();
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(
        std::fs::File::open(fixture("archive-style.warc.gz")).unwrap(),
    )
    .read_to_end(&mut plain)
    .unwrap();
    let path = dir.path().join("plain.warc");
    std::fs::write(&path, &plain).unwrap();
    let records: Vec<_> = WarcFileReader::open(&path, 1 << 20)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(records.len(), 5);
    assert!(records[1].offset > 0);
    assert_eq!(
        read_at(&path, records[2].offset, 1 << 20).unwrap().kind(),
        "response"
    );
}

#[test]
fn cut_foreign_and_oversize_inputs_are_errors_with_a_place() {
    let dir = tempfile::tempdir().unwrap();
    let places = write(dir.path(), &[sample(1), sample(2)]);
    let file = &places[0].0;
    let len = std::fs::metadata(file).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    f.set_len(len - 30).unwrap();
    let results: Vec<_> = WarcFileReader::open(file, 1 << 20).unwrap().collect();
    assert_eq!(results.len(), 3, "warcinfo, the first page, then the error");
    let err = results[2].as_ref().unwrap_err().to_string();
    assert!(
        err.contains(&format!("record at byte {}", places[1].1)),
        "{err}"
    );

    let html = dir.path().join("page.html");
    std::fs::write(&html, "<html><body>no</body></html>").unwrap();
    let err = WarcFileReader::open(&html, 1 << 20)
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("not a WARC record") && err.contains("page.html"),
        "{err}"
    );

    let big = write(dir.path(), &[sample(3)]);
    let record = read_at(&big[0].0, big[0].1, 10).unwrap();
    assert!(record.oversize.is_some());
    let err = page_from_record(&record, "warc", 10).unwrap_err();
    assert!(err.contains("over max_body_bytes"), "{err}");
}

#[tokio::test]
async fn a_demo_warc_from_a_directory_feeds_the_warc_stage() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo.warc.gz");
    let n = warc_from_dir(&fixture("demo"), &fixture("demo/manifest.jsonl"), &out).unwrap();
    assert_eq!(n, 2);
    let err = warc_from_dir(
        &fixture("demo"),
        &fixture("bad-manifest.jsonl"),
        &dir.path().join("bad.warc.gz"),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("bad-manifest.jsonl:2") && err.to_string().contains("`file`"),
        "{err}"
    );

    let ctx = context(dir.path());
    let pattern = format!("{}/*.warc.gz", dir.path().display());
    let table: toml::Table = toml::from_str(&format!("paths = [\"{pattern}\"]\n")).unwrap();
    let cfg = warc_stage::configure(table, &ctx).unwrap();
    assert!(cfg.check(&ctx).is_empty());
    let output = run_stage(cfg, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    let pages: Vec<&Page> = output
        .out()
        .iter()
        .map(|r| match r {
            Record::Page(p) => p.as_ref(),
            other => panic!("{other:?}"),
        })
        .collect();
    // The bad manifest left no file behind.
    assert_eq!(pages.len(), 2);
    let old = pages
        .iter()
        .find(|p| p.capture.url.ends_with("2.stm"))
        .unwrap();
    // The bytes as saved (ISO-8859-1) and the manifest's charset, which the
    // extract stage decodes them by (tempora_extract::charset).
    let saved: &[u8] = b"The caf\xe9 won";
    assert!(
        old.body.windows(saved.len()).any(|w| w == saved),
        "{}",
        String::from_utf8_lossy(&old.body)
    );
    assert_eq!(
        old.content_type.as_deref(),
        Some("text/html; charset=iso-8859-1")
    );
    assert_eq!(old.capture.timestamp, "20090301120000");

    let table: toml::Table = toml::from_str("paths = [\"/nonexistent/*.warc.gz\"]\n").unwrap();
    let cfg = warc_stage::configure(table, &ctx).unwrap();
    let err = run_stage(cfg, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("matches no file"), "{err}");
}

/// The `warc` stage over one file of `pages`, with the sets `sets` (a
/// `[pipeline.sets]` table; `None`: the default sets).
async fn run_warc(pages: &[Page], sets: Option<&str>) -> tempora_engine::testing::StageOutput {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), pages);
    let mut ctx = context(dir.path());
    if let Some(sets) = sets {
        ctx.windows =
            tempora_engine::Windows::from_table(&toml::from_str(sets).unwrap(), ctx.cutoff)
                .unwrap();
    }
    let pattern = format!("{}/*.warc.gz", dir.path().display());
    let table: toml::Table = toml::from_str(&format!("paths = [\"{pattern}\"]\n")).unwrap();
    let cfg = warc_stage::configure(table, &ctx).unwrap();
    run_stage(cfg, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap()
}

/// The URLs of the pages a run of the stage gave, in order.
fn page_urls(output: &tempora_engine::testing::StageOutput) -> Vec<&str> {
    output
        .out()
        .iter()
        .map(|r| match r {
            Record::Page(p) => p.capture.url.as_str(),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn a_page_captured_before_every_set_is_rejected_as_its_capture_without_its_text() {
    let captured = |i: u32, at: &str| {
        let mut page = sample(i);
        page.capture.timestamp = at.parse().unwrap();
        page
    };
    let pages = [
        captured(1, "20150531235959"), // the last second before the first set
        captured(2, "20150601000000"), // the first set's first second
        captured(3, "20100101120000"), // years before
        captured(4, "20150815083000"), // between the sets
        captured(5, "20170101083000"), // in the last set, which has no end
    ];
    let sets = "june = { from = 2015-06-01, to = 2015-06-30 }\n\
                later = { from = 2016-01-01 }";
    let output = run_warc(&pages, Some(sets)).await;
    let kept: Vec<&str> = [&pages[1], &pages[3], &pages[4]]
        .iter()
        .map(|p| p.capture.url.as_str())
        .collect();
    assert_eq!(page_urls(&output), kept);
    // Each left out as its capture: its URL and time, not its text.
    let rejected: Vec<_> = output
        .rejected
        .iter()
        .map(|r| {
            (
                r.record.clone(),
                r.reason.as_str(),
                r.location.as_deref().unwrap(),
            )
        })
        .collect();
    let skipped = |page: &Page, day: &str| {
        (
            serde_json::to_value(&page.capture).unwrap(),
            format!(
                "published between open and {day} (capture time): in no window of [pipeline.sets]"
            ),
            format!("{} {}", page.capture.timestamp, page.capture.url),
        )
    };
    let want = [
        skipped(&pages[0], "2015-05-31"),
        skipped(&pages[2], "2010-01-01"),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(record, reason, at)| (record.clone(), reason.as_str(), at.as_str()))
        .collect();
    assert_eq!(rejected, want);
    for r in &output.rejected {
        assert!(!r.record.to_string().contains("caf"), "{}", r.record);
    }
    // Counted as prefetch counts it, so run.json's cost adds them up together.
    let counters = output.stats.counters();
    assert_eq!(counters["skipped_outside_windows"], 2, "{counters:?}");

    // A set with an open start may hold any page; so may the default sets.
    let open = "early = { to = 2015-06-30 }\nlater = { from = 2016-01-01 }";
    for sets in [Some(open), None] {
        let output = run_warc(&pages, sets).await;
        assert_eq!(page_urls(&output).len(), pages.len(), "{sets:?}");
        assert!(output.rejected.is_empty(), "{sets:?}");
        let counters = output.stats.counters();
        assert!(
            !counters.contains_key("skipped_outside_windows"),
            "{sets:?}"
        );
    }
}
