//! The crawl's pace when the listing sets it: the shipped
//! `pipelines/temposum-bbc.toml` at its default rates (24 CDX and 480 page
//! requests a minute) against the testkit's model of BBC News behind a model
//! of the Archive's limits (30 CDX and 600 playback requests a sliding minute,
//! 429 above, answers after 0.7 s), sparse and dense. Prints, per crawl, the
//! page and CDX requests of the busiest minute, the 429s, the CDX requests in
//! all, the model minutes, and whether the articles kept are the same as the
//! first crawl's.
//!
//! `cargo bench --bench listing_pace` (densities 1 and 16: about one and
//! sixteen article URLs a listed day); `-- 4` for others; `-- --faster 20` runs
//! the model's clock (and the pipeline's rates) that many times faster
//! (default 20); `-- --baseline <binary>` runs each density with another build
//! of `tempora` too (e.g. one built from an earlier commit), just before this
//! build's.

#[path = "../tests/common/crawl_model.rs"]
mod crawl_model;

use std::path::{Path, PathBuf};

use crawl_model::{run_in, CrawlRun, Shape};
use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};
use tempora_testkit::{ArchiveLimits, MockWayback, Outcome, RequestKind};

/// Articles a month at density 1: about one a day.
const BASE_PER_MONTH: u32 = 30;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let baseline = value_of("--baseline").map(PathBuf::from);
    let faster: u32 = value_of("--faster")
        .and_then(|f| f.parse().ok())
        .unwrap_or(20);
    let flag_values = [value_of("--baseline"), value_of("--faster")];
    let mut densities: Vec<u32> = args
        .iter()
        .filter(|a| !flag_values.iter().any(|v| v.as_deref() == Some(a.as_str())))
        .filter_map(|a| a.parse().ok())
        .collect();
    if densities.is_empty() {
        densities = vec![1, 16];
    }
    let this_build = Path::new(env!("CARGO_BIN_EXE_tempora"));
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    println!(
        "{:<8} {:<12} {:>8} {:>6} {:>13} {:>12} {:>5} {:>5} {:>9} {:>6}",
        "density",
        "build",
        "articles",
        "kept",
        "busiest pages",
        "busiest CDX",
        "429s",
        "CDX",
        "model min",
        "same"
    );
    for density in densities {
        let site = NewsSite::build(&NewsSiteSpec {
            articles_per_month: BASE_PER_MONTH * density,
            ..NewsSiteSpec::default()
        });
        let mut builds = vec![("this build", this_build)];
        if let Some(b) = &baseline {
            builds.insert(0, ("baseline", b.as_path()));
        }
        let mut kept = None;
        for (label, binary) in builds {
            let (crawl, seen) = runtime.block_on(paced(binary, &site, faster));
            let same = kept
                .as_ref()
                .map_or("-", |k| if *k == crawl.kept { "yes" } else { "NO" });
            println!(
                "{:<8} {:<12} {:>8} {:>6} {:>13} {:>12} {:>5} {:>5} {:>9.1} {:>6}",
                format!("{density}x"),
                label,
                site.articles.len(),
                crawl.kept.len(),
                seen.busiest_pages,
                seen.busiest_cdx,
                seen.refused,
                crawl.cdx_requests,
                crawl.wall.as_secs_f64() * f64::from(faster) / 60.0,
                same
            );
            kept.get_or_insert(crawl.kept);
        }
    }
}

/// What the model of the Archive saw of one crawl.
struct Seen {
    busiest_pages: usize,
    busiest_cdx: usize,
    refused: usize,
}

/// One crawl of `site` by `binary` at the default rates, against the Archive's
/// limits, with the clock `faster` times faster.
async fn paced(binary: &Path, site: &NewsSite, faster: u32) -> (CrawlRun, Seen) {
    let server = MockWayback::start(site.corpus.clone())
        .await
        .expect("a mock Archive");
    let limits = ArchiveLimits::real().faster(faster);
    server.enforce(limits.clone());
    let f = f64::from(faster);
    let pause = |secs: u32| format!("{}ms", u64::from(secs) * 1000 / u64::from(faster));
    // The shipped defaults, on the model's faster clock.
    let overrides = [
        format!("stages.captures.archive.cdx_rate={}", 24.0 * f),
        format!("stages.captures.archive.playback_rate={}", 480.0 * f),
        format!("stages.captures.archive.min_pause=\"{}\"", pause(60)),
        format!("stages.captures.archive.block_pause=\"{}\"", pause(300)),
        "stages.pages.concurrency=32".to_string(),
    ];
    let overrides: Vec<&str> = overrides.iter().map(String::as_str).collect();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let crawl = run_in(binary, &server, site, Shape::Shipped, &overrides, dir, &[]).await;
    let playback = server.log().busiest(RequestKind::Replay, limits.window);
    let seen = Seen {
        busiest_pages: playback,
        busiest_cdx: server.log().busiest(RequestKind::Cdx, limits.window),
        refused: server
            .log()
            .requests()
            .iter()
            .filter(|r| r.outcome == Outcome::Status(429) || r.outcome == Outcome::Reset)
            .count(),
    };
    (crawl, seen)
}
