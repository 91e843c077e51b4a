//! Every published byte is a function of the inputs' content, never of their
//! order, on the shipped TempoSum pipelines too: `temposum-bbc` and
//! `temposum-cnn` crawling the testkit's models publish the same files, byte for
//! byte, whatever the order of their inputs and of the Archive's answers. The
//! orders are those another source would give: the facts file's lines, the
//! exclusion lists' ids and URLs and the training summaries in another order;
//! the Archive's captures held in another order; each page's replay delayed by
//! an amount of its own, so concurrent fetches finish (and are written to the
//! WARC files and the crawl state) in another order; and the rows of each CDX
//! page out of index order, as a server that does not sort within a page sends.

mod common;

use std::time::Duration;

use common::order::{published_content, same_files, INPUT_RECORDS};
use common::temposum::{bbc, cnn, run_shipped, Lab};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tempora_testkit::{MockWayback, Reorder};

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
