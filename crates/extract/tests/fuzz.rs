//! The extractor, fuzzed: our fixture pages of every layout (BBC News and
//! Sport, CNN; UTF-8 and cp1252) broken the ways archived pages break (cut
//! short, bytes flipped, tags inserted or dropped, spans repeated, invalid
//! UTF-8) and arbitrary bytes, under their own URLs. No panic, nothing lost:
//! each page is an article or a rejection with its reason and capture.
//! `PROPTEST_CASES=5000 cargo test -p tempora-extract --test fuzz` runs longer.

mod common;

use proptest::prelude::*;
use tempora_testkit::fuzz::{broken, config};

/// Every fixture page: (file, URL, capture time, bytes).
fn fixtures() -> Vec<(String, String, String, Vec<u8>)> {
    common::manifest()
        .into_iter()
        .filter(|(file, _)| file.ends_with(".html"))
        .map(|(file, entry)| {
            let bytes = std::fs::read(common::fixtures().join(&file)).unwrap();
            (file, entry.url, entry.timestamp, bytes)
        })
        .collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn broken_pages_are_articles_or_rejections_with_a_reason(
        (file, url, timestamp, body) in prop::sample::select(fixtures()).prop_flat_map(
            |(file, url, timestamp, bytes)| (Just(file), Just(url), Just(timestamp), broken(vec![bytes]))
        )
    ) {
        let page = common::page(body, &url, &timestamp, None);
        let out = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(common::run("", vec![page]));
        prop_assert_eq!(out.out().len() + out.rejected.len(), 1, "{} lost", file);
        for r in &out.rejected {
            prop_assert!(!r.reason.is_empty(), "{}", file);
            prop_assert_eq!(&r.record["timestamp"], &serde_json::json!(timestamp));
        }
    }
}
