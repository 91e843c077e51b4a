//! Times `tempora report` on generated data: 100,000 articles of 400 words with
//! 25-word summaries, half copied from their article in runs, written to a temporary
//! directory (deterministic: a fixed-seed generator).
//!
//! ```sh
//! cargo run -p tempora-report --release --example bench_report [-- ARTICLES [WORDS]]
//! ```

use std::io::Write as _;
use std::time::Instant;

/// SplitMix64: a fixed-seed generator, so every run writes the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let articles: usize = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let words: usize = args.next().map_or(Ok(400), |a| a.parse())?;
    // A vocabulary with a Zipf-like skew: word i is drawn with weight ~ 1/(i+1).
    let vocabulary: Vec<String> = (0..20_000).map(|i| format!("w{i:x}")).collect();
    let mut rng = Rng(42);
    let zipf = |rng: &mut Rng| {
        let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let i = (20_000f64.powf(u) - 1.0) as usize;
        &vocabulary[i.min(vocabulary.len() - 1)]
    };
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("future.jsonl");
    let started = Instant::now();
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
    for id in 0..articles {
        let mut document: Vec<&str> = Vec::with_capacity(words + words / 15);
        for i in 0..words {
            document.push(zipf(&mut rng));
            if i % 15 == 14 {
                document.push(if i % 45 == 44 { ".\n" } else { "," });
            }
        }
        let mut summary: Vec<&str> = Vec::new();
        while summary.len() < 25 {
            if rng.below(2) == 0 {
                let start = rng.below(document.len() - 8);
                let len = 1 + rng.below(7);
                summary.extend(&document[start..start + len]);
            } else {
                summary.push(zipf(&mut rng));
            }
        }
        let record = serde_json::json!({
            "id": id.to_string(),
            "source": if id % 3 == 0 { "cnn" } else { "bbc" },
            "published": format!("{}-06-01", 2015 + id % 8),
            "summary": summary.join(" "),
            "document": document.join(" "),
        });
        serde_json::to_writer(&mut out, &record)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    let bytes = std::fs::metadata(&path)?.len();
    eprintln!(
        "generated {articles} articles of {words} words ({:.0} MB) in {:.2?}",
        bytes as f64 / 1e6,
        started.elapsed()
    );
    // The per-article statistics alone (read, parse, tokenize, fragments, n-grams).
    let started = Instant::now();
    let set = tempora_report::read::SetFile {
        name: "future".into(),
        path: path.clone(),
        format: tempora_report::read::Format::Jsonl,
    };
    let rows = tempora_report::stats::analyze_set(&set)?;
    eprintln!(
        "statistics of {} articles in {:.2?}",
        rows.len(),
        started.elapsed()
    );
    drop(rows);
    let started = Instant::now();
    let written = tempora_report::write_report(dir.path())?;
    let elapsed = started.elapsed();
    let set = &written.report.sets["future"];
    println!(
        "report of {} articles in {:.2?} ({} threads): coverage {:.3}, density {:.2}, compression {:.2}",
        set.articles,
        elapsed,
        rayon::current_num_threads(),
        set.coverage.mean.unwrap_or(f64::NAN),
        set.density.mean.unwrap_or(f64::NAN),
        set.compression.mean.unwrap_or(f64::NAN),
    );
    Ok(())
}
