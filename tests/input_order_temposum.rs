//! Every published byte is a function of the inputs' content, never of their
//! order, on the shipped TempoSum pipelines too: `temposum-bbc` and
//! `temposum-cnn` crawling the testkit's models publish the same files, byte for
//! byte, whatever the order of their inputs and of the Archive's answers. The
//! orders are those another source would give: the facts file's lines, the
//! exclusion lists' ids and URLs and the training summaries in another order;
//! the Archive's captures held in another order; each page's replay delayed by
//! an amount of its own, so concurrent fetches finish (and are written to the
//! WARC files and the crawl state) in another order; and the rows of each CDX
//! page out of index order, as a server that does not sort within a page sends;
//! and, on small CDX pages, the rows of each listing in another order across
//! its pages, as an index merged from shards may give them.

mod common;

use std::time::Duration;

use common::order::{published_content, same_files, INPUT_RECORDS};
use common::temposum::{bbc, bbc_lab, cnn, run_shipped, run_shipped_listing, Lab};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};
use tempora_testkit::{MockWayback, Reorder, RequestKind};

/// The longest delay of a page's replay: enough to reorder fetches four at a
/// time, little against a run.
const MOST_REPLAY_DELAY: Duration = Duration::from_millis(4);

/// Runs `lab` against a mock serving its model in the orders `seed` draws, in a
/// fresh folder; its published files.
fn run(
    runtime: &tokio::runtime::Runtime,
    lab: &Lab,
    seed: Option<u64>,
) -> std::collections::BTreeMap<String, Vec<u8>> {
    let server = runtime
        .block_on(MockWayback::start(lab.corpus.clone()))
        .unwrap();
    if let Some(seed) = seed {
        server.reorder(Reorder::Captures { seed });
        server.reorder(Reorder::ReplayDelays {
            seed,
            max: MOST_REPLAY_DELAY,
        });
        server.reorder(Reorder::PageRows { seed });
    }
    let dir = tempfile::tempdir().unwrap();
    run_shipped(lab, &server.endpoint(), dir.path());
    published_content(&dir.path().join("out"), &INPUT_RECORDS)
}

/// `lab` in `cases` other orders of its files and its Archive publishes what it
/// does in the shipped order.
fn publishes_the_same_bytes_whatever_the_order(lab: &'static Lab, cases: u32) {
    // The mock's server tasks run on this runtime's workers while a run blocks
    // the test's thread.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let expected = run(&runtime, lab, None);
    for set in ["future.jsonl", "facts.jsonl", "manifest.jsonl", "README.md"] {
        assert!(expected.contains_key(set), "{set} published");
    }
    // Each case runs the whole pipeline and crawl: a few reach many orders.
    // A failing case shrinks a little, not for as long as it would take.
    let mut runner = TestRunner::new(Config {
        cases,
        max_shrink_iters: 8,
        ..Config::default()
    });
    runner
        .run(
            &(prop::collection::vec(any::<u64>(), 1..8), any::<u64>()),
            |(keys, seed)| {
                let got = run(&runtime, &lab.permuted(&keys), Some(seed));
                same_files(&got, &expected).map_err(TestCaseError::fail)?;
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn temposum_bbc_publishes_the_same_bytes_whatever_the_order_of_its_inputs_and_the_archive() {
    publishes_the_same_bytes_whatever_the_order(bbc(), 3);
}

#[test]
fn temposum_cnn_publishes_the_same_bytes_whatever_the_order_of_its_inputs_and_the_archive() {
    publishes_the_same_bytes_whatever_the_order(cnn(), 2);
}

/// Rows a CDX request asks for in the runs whose listings come in another
/// order: few, so most listings take several pages (the model lists a few
/// articles a month per URL pattern).
const SMALL_PAGE: usize = 3;

/// Runs `lab` against a mock serving each CDX listing's rows in the order
/// `seed` draws across its pages (none: index order), with CDX pages of
/// [`SMALL_PAGE`] rows; its published files, and how many CDX requests went on
/// from a resume key.
fn run_listing(
    runtime: &tokio::runtime::Runtime,
    lab: &Lab,
    seed: Option<u64>,
) -> (std::collections::BTreeMap<String, Vec<u8>>, usize) {
    let server = runtime
        .block_on(MockWayback::start(lab.corpus.clone()))
        .unwrap();
    if let Some(seed) = seed {
        server.reorder(Reorder::ListingRows { seed });
    }
    let dir = tempfile::tempdir().unwrap();
    run_shipped_listing(lab, &server.endpoint(), dir.path(), Some(SMALL_PAGE));
    let resumed = server
        .log()
        .requests()
        .iter()
        .filter(|r| r.kind == RequestKind::Cdx && r.target.contains("resumeKey="))
        .count();
    (
        published_content(&dir.path().join("out"), &INPUT_RECORDS),
        resumed,
    )
}

/// `lab` with the rows of every CDX listing in the orders `seeds` draw, within
/// each answer and across the pages of a listing (each chunk of days a listing
/// of its own), publishes what it does with them in index order; on small
/// pages as on the default ones.
fn publishes_the_same_bytes_whatever_the_order_of_the_listings(lab: &'static Lab, seeds: &[u64]) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (expected, resumed) = run_listing(&runtime, lab, None);
    assert!(
        expected.contains_key("future.jsonl"),
        "future.jsonl published"
    );
    assert!(
        resumed > 10,
        "listings take several pages: {resumed} went on"
    );
    let server = runtime
        .block_on(MockWayback::start(lab.corpus.clone()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_shipped(lab, &server.endpoint(), dir.path());
    let default_pages = published_content(&dir.path().join("out"), &INPUT_RECORDS);
    if let Err(e) = same_files(&expected, &default_pages) {
        panic!("small CDX pages publish other bytes than the default ones: {e}");
    }
    for &seed in seeds {
        let (got, _) = run_listing(&runtime, lab, Some(seed));
        if let Err(e) = same_files(&got, &expected) {
            panic!("listings' rows in the order of seed {seed}: {e}");
        }
    }
}

#[test]
fn temposum_bbc_publishes_the_same_bytes_whatever_the_order_of_its_listings_rows() {
    publishes_the_same_bytes_whatever_the_order_of_the_listings(bbc(), &[1, 0x5eed_2026]);
}

#[test]
fn temposum_cnn_publishes_the_same_bytes_whatever_the_order_of_its_listings_rows() {
    publishes_the_same_bytes_whatever_the_order_of_the_listings(cnn(), &[7]);
}

/// The BBC model with its sport and business stories: clubs' managers, players'
/// clubs and companies' chiefs beside the offices.
fn sport() -> &'static Lab {
    static LAB: std::sync::OnceLock<Lab> = std::sync::OnceLock::new();
    LAB.get_or_init(|| {
        let spec = NewsSiteSpec {
            first_year: 2016,
            ..NewsSiteSpec::default()
        };
        bbc_lab(NewsSite::with_sport_and_business(&spec))
    })
}

#[test]
fn sport_and_business_sets_publish_the_same_bytes_whatever_the_order() {
    publishes_the_same_bytes_whatever_the_order(sport(), 2);
}

/// The second run people make on the same folder (the same command again, as
/// after a failure) publishes what one fresh run does, relations and their
/// counts included.
#[test]
fn a_second_run_on_the_same_state_publishes_what_a_fresh_run_does() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let lab = sport();
    let fresh = run(&runtime, lab, None);
    let server = runtime
        .block_on(MockWayback::start(lab.corpus.clone()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_shipped(lab, &server.endpoint(), dir.path());
    run_shipped(lab, &server.endpoint(), dir.path());
    let again = published_content(&dir.path().join("out"), &INPUT_RECORDS);
    if let Err(e) = same_files(&again, &fresh) {
        panic!("a second run on the same state: {e}");
    }
    let future = String::from_utf8_lossy(&fresh["future.jsonl"]).to_string();
    assert!(future.contains("\"P286\""), "the sport part is published");
}
