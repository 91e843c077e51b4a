//! Monthly releases when something goes wrong, through the real binary on the
//! demo: an attempt that published nothing is no release (the card and
//! `tempora publish` leave it out, and the next month's run names it with the
//! command that makes it); a release that cannot be revealed (another key)
//! keeps neither the later releases' reveals nor the collection's card from
//! being done; `tempora reveal .` inside a release records the reveal in the
//! collection and leaves the release's folder as it was.

mod common;

use std::path::Path;

use common::bin::{succeeded, tempora, tempora_in};
use common::demo::run_demo;
use common::said::said;
use common::tree::tree;

/// The demo as a monthly release into the collection `out`, the month's
/// articles its future set, with `extra` arguments.
fn release(out: &Path, extra: &[&str]) -> std::process::Output {
    let month = "pipeline.sets.future={from=\"release_start\",to=\"release_end\"}";
    run_demo(out, &[&["--set", month][..], extra].concat())
}

/// A key file under `dir`, of `byte`s.
fn key(dir: &Path, name: &str, byte: u8) -> String {
    let path = dir.join(name);
    std::fs::write(&path, [byte; 32]).unwrap();
    format!("pipeline.release.key=\"{}\"", path.display())
}

#[test]
fn an_attempt_that_published_nothing_is_no_release_and_the_next_month_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("releases");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{").unwrap();
    let month = ["--set", "pipeline.release.month=\"run_month - 1 month\""];
    let xsum = format!("stages.unseen.xsum_split=\"{}\"", bad.display());
    let failed = release(
        &out,
        &[&month[..], &["--as-of", "2021-02-03", "--set", &xsum]].concat(),
    );
    assert_eq!(failed.status.code(), Some(1), "{}", said(&failed));
    assert!(out.join("2021-01/run.json").is_file());
    // A month later the cron line makes the next month's release, and names
    // the one left unmade with the command that makes it.
    let next = release(&out, &[&month[..], &["--as-of", "2021-03-02"]].concat());
    let next = said(&next);
    assert!(
        next.contains("warning: release 2021-01 was attempted and never published")
            && next.contains("`--set pipeline.release.month=2021-01`"),
        "{next}"
    );
    assert!(out.join("2021-02/release.json").is_file(), "{next}");
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        card.contains("`2021-02`") && !card.contains("`2021-01`"),
        "{card}"
    );
    // Published without the text: the release, not the attempt.
    let to = dir.path().join("published");
    let printed = succeeded(&tempora(&[
        "publish",
        out.to_str().unwrap(),
        "--to",
        to.to_str().unwrap(),
    ]));
    assert!(to.join("2021-02/release.json").is_file(), "{printed}");
    assert!(!to.join("2021-01").exists(), "{printed}");
    // Named, it is made, on the day its attempt resolved its dates.
    let made = release(&out, &["--set", "pipeline.release.month=\"2021-01\""]);
    assert!(made.status.success(), "{}", said(&made));
    let record = std::fs::read_to_string(out.join("2021-01/release.json")).unwrap();
    assert!(record.contains("\"run_day\": \"2021-02-03\""), "{record}");
}

#[test]
fn a_release_that_cannot_be_revealed_keeps_neither_the_others_nor_the_card_from_being_done() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("releases");
    let (first, second) = (key(dir.path(), "a.key", 7), key(dir.path(), "b.key", 9));
    let made = |month: &str, key: &str| {
        let month = format!("pipeline.release.month=\"{month}\"");
        let withhold = "pipeline.release.withhold=1";
        release(&out, &["--set", &month, "--set", withhold, "--set", key])
    };
    assert!(made("2021-01", &first).status.success());
    let january = tree(&out.join("2021-01"));
    // The key changed: January cannot be revealed with it; February is made all
    // the same, and so is March, which reveals February.
    let february = made("2021-02", &second);
    assert_eq!(february.status.code(), Some(1), "{}", said(&february));
    assert!(
        said(&february).contains("cannot reveal release 2021-01: the key"),
        "{}",
        said(&february)
    );
    let march = made("2021-03", &second);
    assert!(
        said(&march).contains("revealed release 2021-02"),
        "{}",
        said(&march)
    );
    assert!(out.join("reveals/2021-02.json").is_file());
    assert!(!out.join("reveals/2021-01.json").exists());
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        card.contains("`2021-03`"),
        "the card of the last run: {card}"
    );
    // With its own key, from inside the release: the reveal goes to the
    // collection, the release's folder stays as it was.
    let key_file = dir.path().join("a.key");
    let inside = tempora_in(
        &out.join("2021-01"),
        &["reveal", ".", "--key", key_file.to_str().unwrap()],
    );
    assert!(inside.status.success(), "{}", said(&inside));
    assert!(
        out.join("reveals/2021-01.json").is_file(),
        "{}",
        said(&inside)
    );
    assert_eq!(tree(&out.join("2021-01")), january, "the release changed");
    // The collection itself is no release to reveal.
    let whole = tempora(&["reveal", out.to_str().unwrap()]);
    assert!(
        said(&whole).contains("is a collection of releases: reveal one of them"),
        "{}",
        said(&whole)
    );
}
