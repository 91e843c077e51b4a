//! The novelty job at CNN/DailyMail scale, side by side with a straightforward
//! Python implementation (`novelty_baseline.py`: sets of tuples) in the same run.
//!
//! `cargo bench -p tempora-novelty --bench scale` generates 300,000 training
//! summaries of about 60 words and 12,000 test summaries (Zipf-distributed words
//! and recurring phrases, as news summaries repeat themselves; seeded, so every
//! run reads the same text), then times: the training index, scoring and binning
//! the test set, `tempora diversify` at four thresholds (reading, selection and
//! writing), and the Python baseline on the same files. Peak memory is the
//! process's resident high-water mark during each phase (reset before it).
//! `TEMPORA_BENCH_TRAIN=N` changes the training size; `TEMPORA_BENCH_NO_PYTHON=1`
//! skips the baseline.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use tempora_novelty::bins::Bins;
use tempora_novelty::overlap::TrainingIndex;
use tempora_novelty::subsets::write_subsets;
use tempora_novelty::training::read_summaries;

const VOCABULARY: usize = 50_000;
const PHRASES: usize = 40_000;
const SYLLABLES: [&str; 32] = [
    "ba", "ke", "lo", "mi", "nu", "ra", "se", "ti", "vo", "za", "an", "er", "in", "on", "us", "al",
    "ed", "ing", "ter", "ment", "st", "pr", "gr", "ch", "th", "sh", "pl", "tr", "ou", "ea", "ly",
    "ion",
];

/// Draws from a Zipf distribution over `0..cdf.len()` by its cumulative weights.
fn zipf(rng: &mut Pcg64Mcg, cdf: &[f64]) -> usize {
    let x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * cdf[cdf.len() - 1];
    cdf.partition_point(|c| *c < x).min(cdf.len() - 1)
}

fn cdf(n: usize, s: f64) -> Vec<f64> {
    let mut total = 0.0;
    (1..=n)
        .map(|k| {
            total += 1.0 / (k as f64).powf(s);
            total
        })
        .collect()
}

struct Generator {
    words: Vec<String>,
    phrases: Vec<Vec<usize>>,
    word_cdf: Vec<f64>,
    phrase_cdf: Vec<f64>,
}

impl Generator {
    fn new() -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let words = (0..VOCABULARY)
            .map(|i| {
                let mut w = String::new();
                let mut k = i;
                loop {
                    w.push_str(SYLLABLES[k % SYLLABLES.len()]);
                    k /= SYLLABLES.len();
                    if k == 0 {
                        break;
                    }
                }
                w
            })
            .collect();
        let word_cdf = cdf(VOCABULARY, 1.05);
        let phrases = (0..PHRASES)
            .map(|_| {
                let len = 4 + (rng.next_u64() % 5) as usize;
                (0..len).map(|_| zipf(&mut rng, &word_cdf)).collect()
            })
            .collect();
        Self {
            words,
            phrases,
            word_cdf,
            phrase_cdf: cdf(PHRASES, 0.6),
        }
    }

    fn summary(&self, rng: &mut Pcg64Mcg) -> String {
        let target = 40 + (rng.next_u64() % 41) as usize;
        let mut ids = Vec::with_capacity(target + 8);
        while ids.len() < target {
            if rng.next_u64() % 100 < 12 {
                ids.extend(&self.phrases[zipf(rng, &self.phrase_cdf)]);
            } else {
                ids.push(zipf(rng, &self.word_cdf));
            }
        }
        let mut text = String::new();
        for (i, id) in ids.iter().enumerate() {
            if i > 0 {
                text.push_str(if rng.next_u64().is_multiple_of(12) {
                    ", "
                } else {
                    " "
                });
            }
            let word = &self.words[*id];
            if i == 0 {
                text.push_str(&word[..1].to_uppercase());
                text.push_str(&word[1..]);
            } else {
                text.push_str(word);
            }
        }
        text.push('.');
        text
    }

    fn write(&self, path: &Path, count: usize, seed: u64) {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
        for i in 0..count {
            let record = serde_json::json!({"id": i, "summary": self.summary(&mut rng)});
            serde_json::to_writer(&mut out, &record).unwrap();
            out.write_all(b"\n").unwrap();
        }
        out.flush().unwrap();
    }
}

/// Resets the resident high-water mark (Linux: `5` to `/proc/self/clear_refs`).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The resident high-water mark, in MB.
fn peak_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let train_size: usize = std::env::var("TEMPORA_BENCH_TRAIN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300_000);
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.jsonl");
    let test = dir.path().join("test.jsonl");
    {
        let generator = Generator::new();
        generator.write(&train, train_size, 2);
        generator.write(&test, 12_000, 3);
    }
    let mb = |p: &Path| std::fs::metadata(p).unwrap().len() as f64 / 1e6;
    println!(
        "data: {train_size} training summaries ({:.0} MB), 12000 test summaries ({:.1} MB)",
        mb(&train),
        mb(&test)
    );
    let thresholds = [2u16, 5, 10, 25];

    reset_peak();
    let start = Instant::now();
    let index = TrainingIndex::build(std::slice::from_ref(&train), "summary", 4).unwrap();
    let t_index = start.elapsed().as_secs_f64();
    let m_index = peak_mb();

    let start = Instant::now();
    let mut overlaps = Vec::new();
    read_summaries(std::slice::from_ref(&test), "summary", |chunk| {
        overlaps.extend(
            chunk
                .iter()
                .filter_map(|s| index.overlap(s))
                .map(|o| o.percent()),
        );
        Ok(())
    })
    .unwrap();
    let bins = Bins::of(&overlaps, 100);
    let t_score = start.elapsed().as_secs_f64();
    let m_score = peak_mb();
    println!(
        "index: {} distinct 4-grams, {:.0} MB; test bins: {}",
        index.set().len(),
        index.set().heap_bytes() as f64 / 1e6,
        bins.bins()
            .iter()
            .map(|b| format!("{} ({})", b.range, b.count))
            .collect::<Vec<_>>()
            .join(", ")
    );
    drop(index);

    reset_peak();
    let start = Instant::now();
    let diversified = write_subsets(
        std::slice::from_ref(&train),
        "summary",
        4,
        1,
        &thresholds,
        &dir.path().join("subsets"),
    )
    .unwrap();
    let t_diversify = start.elapsed().as_secs_f64();
    let m_diversify = peak_mb();
    println!(
        "subset sizes: {}",
        diversified
            .subsets
            .iter()
            .map(|s| format!("{} ({})", s.size, s.max_repeats))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let ours = t_index + t_score + t_diversify;

    println!("\n| phase | tempora | peak memory | goal |");
    println!("|---|---|---|---|");
    println!("| training index | {t_index:.2} s | {m_index:.0} MB | < 1 s |");
    println!("| score and bin the test set | {t_score:.3} s | {m_score:.0} MB | < 0.2 s |");
    println!("| diversify, 4 thresholds | {t_diversify:.2} s | {m_diversify:.0} MB | < 3 s |");
    println!("| whole job | {ours:.2} s | | |");

    if std::env::var("TEMPORA_BENCH_NO_PYTHON").is_ok() {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/novelty_baseline.py");
    let joined = thresholds.map(|t| t.to_string()).join(",");
    let out = Command::new("python3")
        .arg(&script)
        .args([&train, &test])
        .args(["1", &joined])
        .output()
        .expect("python3 runs the baseline");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let baseline: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = |k: &str| baseline["times"][k].as_f64().unwrap();
    let python = t("index") + t("score") + t("diversify");
    println!("\n| phase | python (sets of tuples) | ratio |");
    println!("|---|---|---|");
    for (name, key, mine) in [
        ("training index", "index", t_index),
        ("score and bin", "score", t_score),
        ("diversify, 4 thresholds", "diversify", t_diversify),
    ] {
        println!("| {name} | {:.2} s | {:.1}x |", t(key), t(key) / mine);
    }
    println!(
        "| whole job | {python:.2} s | {:.1}x (goal 30x) |",
        python / ours
    );
    println!(
        "python: {} distinct 4-grams, subset sizes {}",
        baseline["distinct"], baseline["sizes"]
    );
}
