//! A crawl at the Archive's size: the shipped `pipelines/temposum-bbc.toml`
//! against the testkit's model of BBC News made denser and denser (no latency,
//! no rate limit), streaming (the listing a chunk of days at a time, articles
//! decided as the listing passes them) beside all at once (`chunk_days = 0`:
//! every window listed whole, then decided), in the same run. Prints articles
//! listed, page requests, wall time, peak memory and the seconds from the first
//! CDX request to the first article page.
//!
//! `cargo bench --bench crawl_scale` (densities 1, 16 and 64 of 20 articles a
//! month); `-- 1 16` for others; `-- --streaming 64` for the streaming crawl only;
//! `-- --baseline <binary>` runs each crawl with another build of `tempora` too
//! (e.g. one built from an earlier commit), just before this build's, for a
//! comparison in the same run.

#[path = "../tests/common/crawl_model.rs"]
mod crawl_model;

use std::path::{Path, PathBuf};

use crawl_model::{counter, run_binary, CrawlRun, Shape};
use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};

/// Articles a month at density 1 (2009-2022: about 3,300 articles).
const BASE_PER_MONTH: u32 = 20;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let streaming_only = args.iter().any(|a| a == "--streaming");
    let baseline: Option<PathBuf> = args
        .iter()
        .position(|a| a == "--baseline")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let this_build = Path::new(env!("CARGO_BIN_EXE_tempora"));
    let mut densities: Vec<u32> = args
        .iter()
        .filter(|a| Some(Path::new(a.as_str())) != baseline.as_deref())
        .filter_map(|a| a.parse().ok())
        .collect();
    if densities.is_empty() {
        densities = vec![1, 16, 64];
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    println!(
        "{:<8} {:<22} {:>8} {:>9} {:>7} {:>6} {:>8} {:>8} {:>11} {:>9} {:>10} {:>10}",
        "density",
        "crawl",
        "articles",
        "listed",
        "pages",
        "kept",
        "wall s",
        "peak MB",
        "1st page s",
        "listing s",
        "pages/art",
        "ms/page"
    );
    for density in densities {
        let spec = NewsSiteSpec {
            articles_per_month: BASE_PER_MONTH * density,
            ..NewsSiteSpec::default()
        };
        let site = NewsSite::build(&spec);
        let mut modes = vec![("streaming", Vec::new())];
        if !streaming_only {
            modes.push(("all at once", vec!["stages.captures.chunk_days=0"]));
        }
        let mut kept = None;
        for (name, overrides) in modes {
            let mut builds = vec![(name.to_string(), this_build)];
            if let Some(b) = &baseline {
                builds.insert(0, (format!("{name} (baseline)"), b.as_path()));
            }
            for (label, binary) in builds {
                let crawl = runtime.block_on(run_binary(binary, &site, Shape::Shipped, &overrides));
                if let Some(k) = &kept {
                    assert_eq!(&crawl.kept, k, "two crawls kept other articles");
                }
                row(density, &label, &site, &crawl);
                kept = Some(crawl.kept);
            }
        }
    }
}

fn row(density: u32, name: &str, site: &NewsSite, c: &CrawlRun) {
    let listed = counter(&c.run, "captures", "records_out").max(records_out(&c.run, "captures"));
    let secs = |d: Option<std::time::Duration>| {
        d.map_or("-".into(), |d| format!("{:.1}", d.as_secs_f64()))
    };
    println!(
        "{:<8} {:<22} {:>8} {:>9} {:>7} {:>6} {:>8.1} {:>8.0} {:>11} {:>9} {:>10.3} {:>10.2}",
        format!("{density}x"),
        name,
        site.articles.len(),
        listed,
        c.page_requests,
        c.kept.len(),
        c.wall.as_secs_f64(),
        c.peak_kb as f64 / 1024.0,
        secs(c.first_page_after),
        secs(c.listing),
        c.page_requests as f64 / site.articles.len().max(1) as f64,
        c.wall.as_secs_f64() * 1000.0 / c.page_requests.max(1) as f64
    );
}

/// A stage's `records_out` in `run.json`.
fn records_out(run: &serde_json::Value, stage: &str) -> u64 {
    run["stages"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == stage))
        .and_then(|s| s["records_out"].as_u64())
        .unwrap_or(0)
}
