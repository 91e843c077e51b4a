//! A rerun with everything cached: the shipped `pipelines/temposum-bbc.toml`
//! against the testkit's model of BBC News (no latency, no rate limit), run once
//! on a fresh crawl state, then again on the same state, where every listing and
//! page is in the state and nothing is asked of the Archive. Prints both runs'
//! wall times, their ratio, the pages the rerun read back from the WARC files
//! and how many a second, and the same rerun held to one core (`taskset -c 0`,
//! when there is one).
//!
//! `cargo bench --bench rerun` (densities 1 and 16 of 20 articles a month);
//! `-- 1 4` for others; `RERUN_STAGES=1` adds each stage's seconds;
//! `RERUN_WRAPPER="perf record -g -o rerun.perf"` runs one more rerun under
//! that command (a profiler).

#[path = "../tests/common/crawl_model.rs"]
mod crawl_model;

use std::path::Path;
use std::process::Command;

use crawl_model::{counter, run_in, CrawlRun, Shape};
use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};
use tempora_testkit::MockWayback;

/// Articles a month at density 1 (2009-2022: about 3,300 articles).
const BASE_PER_MONTH: u32 = 20;

fn main() {
    let mut densities: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if densities.is_empty() {
        densities = vec![1, 16];
    }
    let one_core = Command::new("taskset")
        .args(["-c", "0", "true"])
        .status()
        .is_ok_and(|s| s.success());
    let binary = Path::new(env!("CARGO_BIN_EXE_tempora"));
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    println!(
        "{:<8} {:<26} {:>7} {:>6} {:>9} {:>9} {:>9} {:>9} {:>13}",
        "density",
        "run",
        "pages",
        "kept",
        "requests",
        "replayed",
        "wall s",
        "vs first",
        "replayed/s"
    );
    for density in densities {
        let site = NewsSite::build(&NewsSiteSpec {
            articles_per_month: BASE_PER_MONTH * density,
            ..NewsSiteSpec::default()
        });
        runtime.block_on(async {
            let server = MockWayback::start(site.corpus.clone()).await.unwrap();
            let dir = tempfile::tempdir().unwrap();
            let first = run_in(binary, &server, &site, Shape::Shipped, &[], dir, &[]).await;
            let first_wall = first.wall.as_secs_f64();
            row(density, "first (fresh state)", &first, first_wall);
            let kept = first.kept.clone();
            let mut dir = first.into_dir();
            let mut reruns = vec![("rerun, everything cached", Vec::new())];
            if one_core {
                reruns.push(("rerun, one core", vec!["taskset", "-c", "0"]));
            }
            let wrapper = std::env::var("RERUN_WRAPPER").unwrap_or_default();
            if !wrapper.trim().is_empty() {
                reruns.push(("rerun, wrapped", wrapper.split_whitespace().collect()));
            }
            for (label, wrapper) in reruns {
                let rerun =
                    run_in(binary, &server, &site, Shape::Shipped, &[], dir, &wrapper).await;
                assert_eq!(rerun.kept, kept, "a rerun kept other articles");
                assert_eq!(
                    rerun.page_requests + rerun.cdx_requests,
                    0,
                    "a rerun with everything cached asked the Archive"
                );
                row(density, label, &rerun, first_wall);
                dir = rerun.into_dir();
            }
        });
    }
}

fn row(density: u32, name: &str, c: &CrawlRun, first_wall: f64) {
    let replayed = counter(&c.run, "pages", "replayed");
    let fetched = counter(&c.run, "pages", "fetched");
    let wall = c.wall.as_secs_f64();
    println!(
        "{:<8} {:<26} {:>7} {:>6} {:>9} {:>9} {:>9.2} {:>9.1} {:>13.0}",
        format!("{density}x"),
        name,
        replayed + fetched,
        c.kept.len(),
        c.page_requests + c.cdx_requests,
        replayed,
        wall,
        first_wall / wall.max(1e-9),
        replayed as f64 / wall.max(1e-9),
    );
    if std::env::var_os("RERUN_STAGES").is_some() {
        for stage in c.run["stages"].as_array().into_iter().flatten() {
            println!(
                "    {:<16} {:>8.2} s",
                stage["name"].as_str().unwrap_or(""),
                stage["seconds"].as_f64().unwrap_or(0.0)
            );
        }
    }
}
