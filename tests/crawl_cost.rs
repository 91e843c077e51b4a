//! Decide before fetching, checked on the testkit's model of BBC News in the
//! Archive (its feeds described as on the real site, not by the summary): the
//! shipped `temposum-bbc` pipeline keeps exactly the articles a naive full crawl
//! with the same sets keeps (which fetches every listed capture and decides
//! afterwards), once each, with fewer page requests, and says in `run.json` why
//! it skipped each capture it did not fetch; with the cutoff and the future set
//! moved, the same holds and the listing asks for nothing outside the sets. The
//! figures are the `crawl_cost` benchmark's (`cargo bench --bench crawl_cost`).

mod common;

use common::crawl_model::{counter, first_rejections, run_both, summary, CrawlRun};
use tempora_testkit::newssite::NewsSiteSpec;

/// Every CDX request of `run` asked for a capture window inside one of `spans`
/// (14-digit bounds, inclusive).
fn listed_within(run: &CrawlRun, spans: &[(&str, &str)]) {
    assert!(!run.cdx_windows.is_empty());
    for (from, to) in &run.cdx_windows {
        let (Some(from), Some(to)) = (from, to) else {
            panic!("a CDX request without a window: {:?}", run.cdx_windows);
        };
        assert!(
            spans
                .iter()
                .any(|(a, b)| a <= &from.as_str() && to.as_str() <= *b),
            "CDX window {from} to {to} is outside the sets {spans:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_crawl_keeps_what_a_full_crawl_keeps_for_fewer_pages() {
    let (site, naive, shipped) = run_both(&NewsSiteSpec::default(), &[]).await;

    // The model makes both crawls work: articles are kept, and the full crawl
    // writes some of them more than once (host and URL variants).
    assert!(
        naive.kept.len() > 20,
        "{} kept\n{}{}",
        naive.kept.len(),
        summary(&naive.run),
        first_rejections(&naive, "articles", 10)
    );
    assert!(
        naive.records > naive.kept.len(),
        "no duplicates in the naive crawl"
    );
    assert_eq!(
        shipped.kept, naive.kept,
        "the shipped crawl kept other articles"
    );
    assert_eq!(
        shipped.records,
        shipped.kept.len(),
        "an article was written twice"
    );

    assert!(
        shipped.page_requests < naive.page_requests,
        "{} page requests shipped, {} naive",
        shipped.page_requests,
        naive.page_requests
    );
    // No skip on a guess: the feeds, whose descriptions are not the summaries,
    // are not read at all.
    assert_eq!(shipped.feed_requests, 0);
    listed_within(
        &shipped,
        &[
            ("20100101000000", "20171231235959"),
            ("20200101000000", "20221231235959"),
        ],
    );

    // Every skip reason fires on the model, and every listed capture is accounted for.
    let listed = counter(&shipped.run, "captures", "cdx_rows")
        - counter(&shipped.run, "captures", "duplicates");
    let mut skipped = 0;
    for reason in [
        "skipped_not_article",
        "skipped_duplicate",
        "skipped_excluded",
        "skipped_outside_windows",
    ] {
        let n = counter(&shipped.run, "wanted", reason);
        assert!(n > 0, "no capture was {reason}");
        skipped += n;
    }
    let fetched = counter(&shipped.run, "wanted", "to_fetch");
    assert_eq!(skipped + fetched, listed);
    assert_eq!(fetched as usize, shipped.page_requests);
    assert!(site.non_articles > 0);

    // run.json's cost counts what the server saw.
    for run in [&naive, &shipped] {
        let cost = &run.run["cost"];
        assert_eq!(cost["requests"]["page"], run.page_requests, "{cost}");
        assert_eq!(cost["requests"]["feed"], run.feed_requests, "{cost}");
        assert_eq!(cost["requests"]["cdx"], run.cdx_requests, "{cost}");
        assert_eq!(cost["kept_articles"], run.records, "{cost}");
    }
    assert_eq!(
        shipped.run["cost"]["skipped_before_fetching"]["duplicate"],
        counter(&shipped.run, "wanted", "skipped_duplicate")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_cutoff_is_two_overrides_and_keeps_what_a_full_crawl_keeps() {
    let moved = [
        "pipeline.cutoff=2019-06-30",
        "pipeline.sets.future.to=2021-06-30",
    ];
    let (_, naive, shipped) = run_both(&NewsSiteSpec::default(), &moved).await;
    assert!(
        shipped.kept.iter().any(|a| a.0 == "future"),
        "no future article\n{}",
        summary(&shipped.run)
    );
    for (split, _, _, _, published) in &shipped.kept {
        if split == "future" {
            assert!(
                ("2019-07-01".."2021-07-01").contains(&published.as_str()),
                "{published}"
            );
        }
    }
    assert_eq!(
        shipped.kept, naive.kept,
        "the shipped crawl kept other articles"
    );
    assert!(shipped.page_requests < naive.page_requests);
    // The listing covers the sets and not the year and a half between them.
    let spans = [
        ("20100101000000", "20171231235959"),
        ("20190701000000", "20210630235959"),
    ];
    listed_within(&shipped, &spans);
    listed_within(&naive, &spans);
}
