//! Extraction speed on real archived BBC pages of 100-400 KB, side by side with the
//! XSum scripts' rule in Python with lxml, in one run:
//!
//! ```text
//! pip install lxml   # once
//! cargo bench -p tempora-extract --bench speed
//! ```
//!
//! Pages come from the folder in `TEMPORA_BENCH_PAGES` (the extract README's figures: 302
//! archived XSum pages; only pages of 100-400 KB, the size of real article pages), by
//! default this crate's own test pages (`tests/fixtures/pages/bbc`, written in each
//! layout's markup, all of them: they are a few KB each), read into memory once and repeated to
//! `TEMPORA_BENCH_PAGES_PER_RUN` pages (default 400). Timed: decoding, extraction
//! (every layout, every field) and, for the baseline, lxml parsing and the rule.
//! The three measurements take turns, `TEMPORA_BENCH_TRIALS` times (default 5), and
//! each reports its best trial, so that other load on a shared machine disturbs
//! the comparison as little as possible. Printed: a Markdown table with pages/s and
//! the ratio to the lxml rule.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;
use tempora_extract::charset::decode_html;
use tempora_extract::{load_profiles, Extractor, PageInput, SummaryFallback};

struct Page {
    path: PathBuf,
    bytes: Vec<u8>,
}

/// The folder of pages, and whether it holds real archived pages (else our test pages).
fn pages_dir() -> (PathBuf, bool) {
    std::env::var_os("TEMPORA_BENCH_PAGES").map_or_else(
        || {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pages/bbc");
            (dir, false)
        },
        |dir| (PathBuf::from(dir), true),
    )
}

/// The `.html` pages of `dir`; of real archived pages only those of 100-400 KB (the
/// test pages are a few KB each, so that filter would leave none of them).
fn load(dir: &Path, archived: bool) -> Vec<Page> {
    let mut pages: Vec<Page> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            (!archived || (100_000..=400_000).contains(&bytes.len()))
                .then_some(Page { path, bytes })
        })
        .collect();
    pages.sort_by(|a, b| a.path.cmp(&b.path));
    pages
}

fn extract_one(extractor: &Extractor, page: &Page) -> bool {
    let html = decode_html(&page.bytes, None);
    extractor
        .extract(PageInput {
            html: &html,
            url: "",
            captured: None,
        })
        .is_ok()
}

/// Pages per second over `rounds` passes.
fn measure(rounds: usize, pages: &[Page], run: impl Fn(&[Page]) -> usize) -> (f64, usize) {
    let start = Instant::now();
    let mut ok = 0;
    for _ in 0..rounds {
        ok += run(pages);
    }
    (
        (rounds * pages.len()) as f64 / start.elapsed().as_secs_f64(),
        ok,
    )
}

fn lxml_rule(rounds: usize, pages: &[Page]) -> Result<f64, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/xsum_lxml.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg("--repeat")
        .arg(rounds.to_string())
        .args(pages.iter().map(|p| &p.path))
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix("pages_per_s="))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("unexpected output: {stdout}"))
}

fn main() {
    // `cargo bench` passes `--bench`; filters are not used here.
    let (dir, archived) = pages_dir();
    let pages = load(&dir, archived);
    if pages.is_empty() {
        eprintln!("no pages in {}; set TEMPORA_BENCH_PAGES", dir.display());
        return;
    }
    let per_run: usize = std::env::var("TEMPORA_BENCH_PAGES_PER_RUN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let rounds = per_run.div_ceil(pages.len()).max(1);
    let bytes: usize = pages.iter().map(|p| p.bytes.len()).sum();
    let profiles = load_profiles(None).unwrap_or_else(|e| panic!("{e}"));
    let extractor = Extractor::new(
        profiles,
        Some("bbc"),
        Some(&SummaryFallback::None.into()),
        100,
    )
    .unwrap_or_else(|e| panic!("{e}"));

    let trials: usize = std::env::var("TEMPORA_BENCH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let sequential = |ps: &[Page]| ps.iter().filter(|p| extract_one(&extractor, p)).count();
    let parallel = |ps: &[Page]| ps.par_iter().filter(|p| extract_one(&extractor, p)).count();
    // Warm-up: page cache, lazy statics, the Python interpreter's imports.
    let (_, ok) = measure(1, &pages, sequential);
    let mut baseline = lxml_rule(1, &pages).map(|_| 0.0_f64);
    let (mut one_core, mut all_cores) = (0.0_f64, 0.0_f64);
    for _ in 0..trials {
        one_core = one_core.max(measure(rounds, &pages, sequential).0);
        if let Ok(best) = &mut baseline {
            match lxml_rule(rounds, &pages) {
                Ok(rate) => *best = best.max(rate),
                Err(e) => baseline = Err(e),
            }
        }
        all_cores = all_cores.max(measure(rounds, &pages, parallel).0);
    }

    println!(
        "{} BBC pages{} from {} ({:.1} MB, mean {:.0} KB), {rounds} passes = {} pages per trial, best of {trials} trials; {} of {} extracted as articles\n",
        pages.len(),
        if archived { " of 100-400 KB" } else { "" },
        dir.display(),
        bytes as f64 / 1e6,
        bytes as f64 / pages.len() as f64 / 1e3,
        rounds * pages.len(),
        ok,
        pages.len(),
    );
    println!("| extractor | cores | pages/s | MB/s | vs lxml rule |\n|---|---|---|---|---|");
    let mb = |rate: f64| rate * bytes as f64 / pages.len() as f64 / 1e6;
    let ratio = |rate: f64| match &baseline {
        Ok(b) => format!("{:.2}x", rate / b),
        Err(_) => "-".to_string(),
    };
    match &baseline {
        Ok(b) => println!(
            "| XSum rule, Python + lxml | 1 | {b:.0} | {:.1} | 1.00x |",
            mb(*b)
        ),
        Err(e) => println!("| XSum rule, Python + lxml | 1 | not run: {e} | | |"),
    }
    println!(
        "| tempora extract | 1 | {one_core:.0} | {:.1} | {} |",
        mb(one_core),
        ratio(one_core)
    );
    println!(
        "| tempora extract, rayon | {cores} | {all_cores:.0} | {:.1} | {} |",
        mb(all_cores),
        ratio(all_cores)
    );
}
