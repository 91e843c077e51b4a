//! What decide-before-fetching saves, on the testkit's model of BBC News in the
//! Archive (2009-2022): the naive full crawl and the shipped
//! `pipelines/temposum-bbc.toml`, side by side, with the share of the naive
//! crawl's page requests each saving removes. A benchmark of requests, not of
//! time: `cargo bench --bench crawl_cost` (`-- 30` for 30 articles a month; 25 by
//! default).

#[path = "../tests/common/crawl_model.rs"]
mod crawl_model;

use crawl_model::{counter, first_rejections, run_both};
use tempora_testkit::newssite::NewsSiteSpec;

fn main() {
    let per_month = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(25);
    let spec = NewsSiteSpec {
        articles_per_month: per_month,
        ..NewsSiteSpec::default()
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let (site, naive, shipped) = runtime.block_on(run_both(&spec, &[]));
    assert_eq!(
        shipped.kept, naive.kept,
        "the shipped crawl kept other articles"
    );

    println!(
        "model: {} articles, {} captures ({} not articles), {} years",
        site.articles.len(),
        site.corpus.len(),
        site.non_articles,
        spec.last_year - spec.first_year + 1
    );
    println!(
        "{:<10} {:>6} {:>6} {:>7} {:>6} {:>13} {:>22}",
        "crawl", "kept", "cdx", "feed", "page", "page/kept", "(page+feed)/kept"
    );
    for (name, run) in [("naive", &naive), ("shipped", &shipped)] {
        let kept = run.kept.len().max(1) as f64;
        println!(
            "{:<10} {:>6} {:>6} {:>7} {:>6} {:>13.1} {:>22.1}",
            name,
            run.kept.len(),
            run.cdx_requests,
            run.feed_requests,
            run.page_requests,
            run.page_requests as f64 / kept,
            (run.page_requests + run.feed_requests) as f64 / kept
        );
    }
    let base = naive.page_requests.max(1) as f64;
    println!(
        "shipped/naive page requests: {:.3} (feeds included: {:.3})",
        shipped.page_requests as f64 / base,
        (shipped.page_requests + shipped.feed_requests) as f64 / base
    );
    println!("share of the naive page requests each saving removes:");
    for reason in ["not_article", "duplicate", "excluded", "outside_windows"] {
        let n = counter(&shipped.run, "wanted", &format!("skipped_{reason}"));
        println!("  {reason:<16} {n:>6}  {:>5.1}%", 100.0 * n as f64 / base);
    }
    println!("run.json cost (shipped): {}", shipped.run["cost"]);
    if std::env::var_os("CRAWL_COST_DEBUG").is_some() {
        for stage in ["articles", "conflicts"] {
            println!("{}", first_rejections(&shipped, stage, 8));
        }
    }
}
