//! 95 % bootstrap intervals over articles: for a system's rate (the share of its
//! summaries with an outdated claim, or a never-true one) and for the difference
//! between two systems' rates on the articles both summarized (a paired
//! bootstrap, as sacrebleu's and Koehn's).
//!
//! A resample draws the articles with replacement, as many as there are, and
//! computes the figure again; the interval is the 2.5th and 97.5th percentiles of
//! the resampled figures (sacrebleu's `s[B/40]` and `s[B - B/40 - 1]`).
//!
//! Each article counts only by whether its summary has the claim (a 0 or a 1),
//! so a resample's count of ones is exactly Binomial(n, k/n); and for a pair, the
//! counts of articles where both, only the first, only the second or neither have
//! one are exactly Multinomial(n, cells/n). So the resamples are drawn as those
//! counts: the same distribution as drawing articles one by one, in time that does
//! not grow with the articles (1,000 resamples of 10,000 articles draw 1,000
//! numbers, not 10 million).
//!
//! The seed is fixed and every figure draws from its own stream (the seed mixed
//! with the figure's systems and set), so the same inputs give the same bytes
//! and one system's interval does not move when another is added.

use rand_core::SeedableRng;
use rand_distr::{Binomial, Distribution};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use crate::tables::share;

/// The resamples drawn by default (sacrebleu's paired bootstrap draws 1,000).
pub const RESAMPLES: u32 = 1000;

/// The seed by default (sacrebleu's).
pub const SEED: u64 = 12345;

/// The intervals' confidence.
pub const CONFIDENCE: f64 = 0.95;

/// How the intervals were drawn, as `summary.json` states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bootstrap {
    /// Resamples per figure.
    pub resamples: u32,
    /// The seed: each figure draws from its own stream, of the seed and the
    /// figure's systems and set.
    pub seed: u64,
    /// The intervals' confidence (0.95).
    pub confidence: f64,
    /// `percentile`: the interval is the resampled figures' 2.5th and 97.5th
    /// percentiles.
    pub method: String,
    /// What is resampled: `articles`, with replacement, as many as were scored.
    pub over: String,
}

impl Bootstrap {
    /// `resamples` resamples from `seed`, or none when `resamples` is 0.
    pub fn new(resamples: u32, seed: u64) -> Option<Self> {
        (resamples > 0).then(|| Self::drawing(resamples, seed))
    }

    fn drawing(resamples: u32, seed: u64) -> Self {
        Self {
            resamples,
            seed,
            confidence: CONFIDENCE,
            method: "percentile".into(),
            over: "articles".into(),
        }
    }
}

impl Default for Bootstrap {
    fn default() -> Self {
        Self::drawing(RESAMPLES, SEED)
    }
}

/// An interval: `low` to `high`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The lower bound.
    pub low: f64,
    /// The upper bound.
    pub high: f64,
}

impl Interval {
    /// Whether `x` lies in it.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// `[12.5, 20.0]`: the bounds as percentages with one decimal.
    pub fn percent(&self) -> String {
        format!("[{:.1}, {:.1}]", self.low * 100.0, self.high * 100.0)
    }
}

impl Bootstrap {
    /// The interval of the rate `k / n` (`k` of `n` articles' summaries have the
    /// claim); none for no article. `stream` names the figure (its system, set
    /// and rate).
    pub fn rate(&self, k: u64, n: u64, stream: &[&str]) -> Option<Interval> {
        if n == 0 || k > n {
            return None;
        }
        let mut rng = self.rng(stream);
        let draw = Binomial::new(n, k as f64 / n as f64).ok()?;
        let mut rates: Vec<f64> = (0..self.resamples)
            .map(|_| draw.sample(&mut rng) as f64 / n as f64)
            .collect();
        self.percentiles(&mut rates)
    }

    /// The interval of the difference of two systems' rates on the same `n`
    /// articles, from `cells`: the articles where both summaries have the claim,
    /// only the first's, only the second's, and neither's. `stream` names the
    /// figure (its systems and set).
    pub fn difference(&self, cells: [u64; 4], stream: &[&str]) -> Option<Interval> {
        let n: u64 = cells.iter().sum();
        if n == 0 {
            return None;
        }
        let mut rng = self.rng(stream);
        // Multinomial(n, cells / n), drawn as binomials of what is left: both,
        // then the first's alone of the rest, then the second's alone.
        let [both, first, second, _] = cells;
        let mut differences: Vec<f64> = (0..self.resamples)
            .map(|_| {
                let b = binomial(&mut rng, n, share(both, n));
                let rest = n - b;
                let f = binomial(&mut rng, rest, share(first, n - both));
                let s = binomial(&mut rng, rest - f, share(second, n - both - first));
                (f as f64 - s as f64) / n as f64
            })
            .collect();
        self.percentiles(&mut differences)
    }

    /// The interval's bounds among `figures` (sorted here): sacrebleu's
    /// `s[B/40]` and `s[B - B/40 - 1]` at 95 %.
    fn percentiles(&self, figures: &mut [f64]) -> Option<Interval> {
        figures.sort_unstable_by(f64::total_cmp);
        let b = figures.len();
        let tail = ((1.0 - self.confidence) / 2.0 * b as f64).floor() as usize;
        Some(Interval {
            low: *figures.get(tail)?,
            high: *figures.get(b.checked_sub(tail + 1)?)?,
        })
    }

    /// The stream of a figure: the seed mixed with its names (FNV-1a, stable
    /// across platforms and releases).
    fn rng(&self, stream: &[&str]) -> Pcg64Mcg {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ self.seed;
        for part in stream {
            for byte in part.bytes().chain([0xff]) {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        Pcg64Mcg::seed_from_u64(hash)
    }
}

/// A draw of Binomial(n, p), `p` clamped to [0, 1].
fn binomial(rng: &mut Pcg64Mcg, n: u64, p: f64) -> u64 {
    match Binomial::new(n, p.clamp(0.0, 1.0)) {
        Ok(draw) => draw.sample(rng),
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bootstrap as its definition says: `resamples` times, draw `n` of the
    /// articles' 0/1 figures with replacement and take their mean; the interval
    /// is the percentiles. With its own generator (xorshift64*), so that the
    /// test checks the distribution, not the stream.
    fn by_definition(values: &[(u8, u8)], resamples: usize, seed: u64) -> (f64, f64) {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let n = values.len();
        let mut figures: Vec<f64> = (0..resamples)
            .map(|_| {
                let mut sum = 0i64;
                for _ in 0..n {
                    let (a, b) = values[(next() % n as u64) as usize];
                    sum += i64::from(a) - i64::from(b);
                }
                sum as f64 / n as f64
            })
            .collect();
        figures.sort_by(f64::total_cmp);
        (
            figures[resamples / 40],
            figures[resamples - resamples / 40 - 1],
        )
    }

    /// Articles with `k` of `n` summaries holding the claim.
    fn articles(k: usize, n: usize) -> Vec<(u8, u8)> {
        (0..n).map(|i| (u8::from(i < k), 0)).collect()
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    /// A rate's interval agrees with resampling articles one by one (to within
    /// the noise of 1,000 resamples: the bounds' spread is under a point at
    /// n = 200), and with the textbook figure for 50 of 200 ([0.19, 0.31]).
    #[test]
    fn a_rates_interval_is_the_bootstrap_of_its_articles() {
        let bootstrap = Bootstrap::default();
        let ours = bootstrap.rate(50, 200, &["bart", "future"]).unwrap();
        let (low, high) = by_definition(&articles(50, 200), 1000, 7);
        assert!(close(ours.low, low, 0.015), "{ours:?} against {low}");
        assert!(close(ours.high, high, 0.015), "{ours:?} against {high}");
        assert!(close(ours.low, 0.19, 0.015) && close(ours.high, 0.31, 0.015));
        assert!(ours.contains(0.25));
        // The same figure gives the same interval; another stream, another draw
        // of the same distribution.
        assert_eq!(bootstrap.rate(50, 200, &["bart", "future"]), Some(ours));
        let other = bootstrap.rate(50, 200, &["t5", "future"]).unwrap();
        assert!(close(other.low, ours.low, 0.015) && close(other.high, ours.high, 0.015));
    }

    /// Four times the articles, half the width.
    #[test]
    fn intervals_narrow_as_articles_are_added() {
        let bootstrap = Bootstrap::default();
        let width = |n: u64| {
            let i = bootstrap.rate(n / 4, n, &["s"]).unwrap();
            i.high - i.low
        };
        let (w100, w400, w1600) = (width(100), width(400), width(1600));
        assert!(w100 > w400 && w400 > w1600, "{w100} {w400} {w1600}");
        assert!(close(w100 / w400, 2.0, 0.3), "{w100} / {w400}");
        assert!(close(w400 / w1600, 2.0, 0.3), "{w400} / {w1600}");
        assert!(close(w100, 0.17, 0.02), "{w100}");
        // Nothing to resample from: no interval; a rate of 0 or 1: no spread.
        assert_eq!(bootstrap.rate(0, 0, &["s"]), None);
        let none = bootstrap.rate(0, 300, &["s"]).unwrap();
        assert_eq!((none.low, none.high), (0.0, 0.0));
    }

    /// The paired difference agrees with resampling article pairs one by one;
    /// two systems that agree on every article differ by exactly 0.
    #[test]
    fn a_paired_difference_is_the_bootstrap_of_its_article_pairs() {
        let bootstrap = Bootstrap::default();
        // Of 200 articles: both outdated on 40, only A on 20, only B on 10.
        let mut pairs = Vec::new();
        pairs.extend(std::iter::repeat_n((1, 1), 40));
        pairs.extend(std::iter::repeat_n((1, 0), 20));
        pairs.extend(std::iter::repeat_n((0, 1), 10));
        pairs.extend(std::iter::repeat_n((0, 0), 130));
        let ours = bootstrap
            .difference([40, 20, 10, 130], &["a", "b"])
            .unwrap();
        let (low, high) = by_definition(&pairs, 1000, 11);
        assert!(close(ours.low, low, 0.015), "{ours:?} against {low}");
        assert!(close(ours.high, high, 0.015), "{ours:?} against {high}");
        assert!(ours.contains(0.05));
        let same = bootstrap.difference([60, 0, 0, 140], &["a", "a2"]).unwrap();
        assert_eq!((same.low, same.high), (0.0, 0.0));
    }

    #[test]
    fn no_resample_no_interval() {
        assert_eq!(Bootstrap::new(0, SEED), None);
        let few = Bootstrap::new(1, SEED).unwrap();
        let one = few.rate(3, 10, &["s"]).unwrap();
        assert_eq!(one.low, one.high);
    }
}
