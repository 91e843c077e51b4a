//! Every fixture page through the `extract` stage, compared with its golden output
//! (`tests/fixtures/golden/<file>.json`: the article, or the rejection reason).
//! `TEMPORA_BLESS=1 cargo test -p tempora-extract --test golden` rewrites the
//! goldens; review the diff before committing.

mod common;

use std::path::PathBuf;

use serde_json::{json, Value};
use tempora_records::Record;

fn golden_path(file: &str) -> PathBuf {
    common::fixtures()
        .join("golden")
        .join(format!("{file}.json"))
}

#[tokio::test]
async fn every_fixture_page_matches_its_golden_output() {
    let manifest = common::manifest();
    let files: Vec<&String> = manifest.keys().collect();
    let input: Vec<Record> = files.iter().map(|f| common::fixture_page(f)).collect();
    let out = common::run("", input).await;

    // The stage keeps input order: articles come out in manifest order, and each
    // rejection names the page's URL in its location.
    let mut articles = common::articles(&out).into_iter();
    let bless = std::env::var_os("TEMPORA_BLESS").is_some();
    let mut failures = Vec::new();
    for file in files {
        let url = &manifest[file].url;
        let rejected = out.rejected.iter().find(|r| {
            r.location
                .as_deref()
                .is_some_and(|l| l.starts_with(&format!("{url} @")))
        });
        let actual = match rejected {
            Some(r) => json!({ "rejected": r.reason }),
            None => {
                let article = articles
                    .next()
                    .unwrap_or_else(|| panic!("{file}: neither article nor rejection"));
                json!({ "article": article })
            }
        };
        let path = golden_path(file);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
            continue;
        }
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (run with TEMPORA_BLESS=1 to create it)",
                    path.display()
                )
            }))
            .unwrap();
        if expected != actual {
            failures.push(format!(
                "{file}:\nexpected {}\nactual   {}",
                serde_json::to_string_pretty(&expected).unwrap(),
                serde_json::to_string_pretty(&actual).unwrap()
            ));
        }
    }
    assert!(articles.next().is_none(), "more articles than pages");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn counters_name_layouts_and_rejection_kinds() {
    let input = vec![
        common::fixture_page("pages/bbc/text-block-2020-johnson.html"),
        common::fixture_page("pages/bbc/live-2021.html"),
    ];
    let out = common::run("", input).await;
    let counters = out.stats.counters();
    assert_eq!(
        counters.get("layout bbc/text-block"),
        Some(&1),
        "{counters:?}"
    );
    assert_eq!(
        counters.get("rejected: live_page"),
        Some(&1),
        "{counters:?}"
    );
    assert_eq!(out.stats.rejected(), 1);
}
