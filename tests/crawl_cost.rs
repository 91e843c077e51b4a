//! Decide before fetching, checked on the testkit's model of BBC News in the
//! Archive: the shipped `temposum-bbc` pipeline keeps exactly the articles a
//! naive full crawl keeps (which fetches every listed capture and decides
//! afterwards), once each, with fewer page requests, and says in `run.json`
//! why it skipped each capture it did not fetch. The figures are the
//! `crawl_cost` example's (`cargo run --release --example crawl_cost`).

mod common;

use common::crawl_model::{counter, first_rejections, run_both, summary};
use tempora_testkit::newssite::NewsSiteSpec;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_crawl_keeps_what_a_full_crawl_keeps_for_fewer_pages() {
    let (site, naive, shipped) = run_both(&NewsSiteSpec::default()).await;

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
    assert!(shipped.feed_requests > 0 && naive.feed_requests == 0);

    // Every skip reason fires on the model, and every listed capture is accounted for.
    let listed = counter(&shipped.run, "captures", "cdx_rows")
        - counter(&shipped.run, "captures", "duplicates");
    let mut skipped = 0;
    for reason in [
        "skipped_not_article",
        "skipped_duplicate",
        "skipped_excluded",
        "skipped_outside_windows",
        "skipped_feed_summary",
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
