//! The `prefetch` stage run alone: each capture it does not pass on is rejected
//! with its reason and counted; one capture per article, the earliest.

mod common;

use std::collections::HashMap;

use common::{article, as_article, ctx, fixture, fixture_facts, options};
use tempora_engine::testing::{run_stage, StageOutput};
use tempora_engine::{Capture, Record, StageConfig};
use tempora_filter::PrefetchConfig;

fn capture(url: &str, timestamp: &str) -> Record {
    Record::Capture(Box::new(Capture {
        url: url.into(),
        timestamp: timestamp.into(),
        status: Some(200),
        mime: "text/html".into(),
        digest: "D".into(),
        length: None,
        source: "captures".into(),
    }))
}

fn config(toml_text: &str) -> Box<dyn StageConfig> {
    Box::new(PrefetchConfig::configure(options(toml_text), &ctx("2019-12-31")).unwrap())
}

fn passed(out: &StageOutput) -> Vec<(String, String)> {
    out.out()
        .iter()
        .map(|r| match r {
            Record::Capture(c) => (c.timestamp.clone(), c.url.clone()),
            other => panic!("not a capture: {other:?}"),
        })
        .collect()
}

const ALL: &str = r#"
extract = { sites = ["bbc"] }
sets = [
  { name = "in_distribution", from = 2010-01-01, to = 2017-12-31 },
  { name = "future", from = "after_cutoff", to = 2022-12-31 },
]
conflicts = { facts = "facts" }
feed_items = "feeds.items"
"#;

#[tokio::test]
async fn one_capture_per_article_the_earliest_and_non_articles_are_skipped() {
    let input = vec![
        capture(
            "https://www.bbc.com/news/world-us-canada-55000001",
            "20201120000000",
        ),
        capture(
            "http://www.bbc.co.uk/news/world-us-canada-55000001?at_medium=RSS",
            "20201119000000",
        ),
        capture(
            "http://bbc.co.uk:80/news/world-us-canada-55000001",
            "20201121000000",
        ),
        capture(
            "https://www.bbc.co.uk/news/live/world-us-canada-55000002",
            "20201119000000",
        ),
        capture("https://www.bbc.co.uk/news/world/europe", "20201119000000"),
        capture(
            "https://www.cnn.com/2020/11/19/politics/story/index.html",
            "20201119000000",
        ),
    ];
    let out = run_stage(
        config(r#"extract = { sites = ["bbc"] }"#),
        &ctx("2019-12-31"),
        input,
        HashMap::new(),
    )
    .await
    .unwrap();
    assert_eq!(
        passed(&out),
        [(
            "20201119000000".to_string(),
            "http://www.bbc.co.uk/news/world-us-canada-55000001?at_medium=RSS".to_string()
        )]
    );
    let counters = out.stats.counters();
    assert_eq!(counters["skipped_duplicate"], 2);
    assert_eq!(counters["skipped_not_article"], 3);
    assert_eq!(counters["to_fetch"], 1);
    let reasons: Vec<&str> = out.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert!(
        reasons.contains(&"not an article: live page, not an article"),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("no site profile for `www.cnn.com`")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("no bbc article id")),
        "{reasons:?}"
    );
    assert!(out.rejected.iter().all(|r| r.location.is_some()));
}

#[tokio::test]
async fn exclusion_windows_and_feed_summaries_decide_before_fetching() {
    let text = format!(
        "{ALL}exclude = {{ xsum_split = {:?} }}\n",
        fixture("exclude/xsum-split.json")
    );
    let input = vec![
        // In XSum train.
        capture(
            "http://www.bbc.co.uk/news/uk-politics-35232142",
            "20160105000000",
        ),
        // Captured before 2010: published before every window.
        capture("http://www.bbc.co.uk/news/uk-8011268", "20090422000000"),
        // Its id says 2018-2019, captured in 2019: in no window.
        capture("http://www.bbc.co.uk/news/uk-46000001", "20190301000000"),
        // The same id captured in 2021: the id still says 2018-2019.
        capture("https://www.bbc.com/news/uk-46000002", "20210301000000"),
        // Its feed summary names no entity of an evolving fact.
        capture(
            "https://www.bbc.co.uk/news/world-us-canada-55000003",
            "20201201000000",
        ),
        // Its feed summary names one; and one with no feed item: both fetched.
        capture(
            "https://www.bbc.co.uk/news/world-us-canada-55000004",
            "20201201000000",
        ),
        capture(
            "https://www.bbc.co.uk/news/world-us-canada-55000005",
            "20201201000000",
        ),
    ];
    let item = |id: &str, summary: &str| {
        let mut a = as_article(&article(id, "2020-11-30", summary, "")).clone();
        a.url = format!(
            "https://www.bbc.co.uk/news/world-us-canada-{id}?at_medium=RSS&at_campaign=KARANGA"
        );
        a.id = String::new();
        Record::Article(Box::new(a))
    };
    let side = HashMap::from([
        ("facts".to_string(), fixture_facts()),
        (
            "feed_items".to_string(),
            vec![
                item("55000003", "A storm has closed roads across the north."),
                item("55000004", "Joe Biden has named his cabinet."),
            ],
        ),
    ]);
    let out = run_stage(config(&text), &ctx("2019-12-31"), input, side)
        .await
        .unwrap();
    let urls: Vec<String> = passed(&out).into_iter().map(|(_, u)| u).collect();
    assert_eq!(
        urls,
        [
            "https://www.bbc.co.uk/news/world-us-canada-55000004",
            "https://www.bbc.co.uk/news/world-us-canada-55000005"
        ]
    );
    let counters = out.stats.counters();
    assert_eq!(counters["skipped_excluded"], 1);
    assert_eq!(counters["skipped_outside_windows"], 3);
    assert_eq!(counters["skipped_feed_summary"], 1);
    let reasons: Vec<&str> = out.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("in XSum train (id 35232142)")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("in no window")),
        "{reasons:?}"
    );
}

#[test]
fn options_that_cannot_work_are_refused_with_their_key() {
    let errors =
        PrefetchConfig::configure(options(r#"feed_items = "feeds.items""#), &ctx("2019-12-31"))
            .unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("feed_items"));
    let errors = PrefetchConfig::configure(
        options(r#"sets = [{ name = "a", from = 2020-01-01, to = 2019-01-01 }]"#),
        &ctx("2019-12-31"),
    )
    .unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("sets[0].from"));
    let errors = PrefetchConfig::configure(
        options(r#"extract = { sites = ["nyt"] }"#),
        &ctx("2019-12-31"),
    )
    .unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("extract.sites"));
    let errors = PrefetchConfig::configure(
        options("conflicts = {}\nfeed_items = \"feeds.items\""),
        &ctx("2019-12-31"),
    )
    .unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("conflicts.facts"));
}
