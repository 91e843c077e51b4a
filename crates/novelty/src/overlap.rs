//! The training index and each test summary's overlap with it.
//!
//! `overlap` is the percent of a summary's n-gram *positions* (a repeated n-gram
//! counts each time it occurs) whose n-gram occurs in any training summary; n-grams
//! are of [`TokenKind::Words`](crate::tokens::TokenKind::Words) tokens within one summary, `n = 4` by default.

use std::path::PathBuf;

use rayon::prelude::*;

use crate::error::NoveltyError;
use crate::ngrams::NgramSet;
use crate::tokens::{ngram_hashes, word_hashes_into};
use crate::training;

/// The n-gram size of the paper.
pub const DEFAULT_N: usize = 4;

/// Summaries tokenized per rayon task.
const PER_TASK: usize = 512;

/// Every n-gram of a set of training summaries.
#[derive(Debug)]
pub struct TrainingIndex {
    n: usize,
    set: NgramSet,
    summaries: usize,
    positions: u64,
}

impl TrainingIndex {
    /// Reads the summaries of `paths` (field `field` of JSONL and Parquet records) and
    /// indexes their n-grams. Tokenizes on every core.
    ///
    /// # Errors
    /// See [`training::read_summaries`]; `n = 0` is a usage error.
    pub fn build(paths: &[PathBuf], field: &str, n: usize) -> Result<Self, NoveltyError> {
        Ok(Self::of(collect(paths, field, n, Keep::Every)?, n))
    }

    /// Indexes the n-grams of summaries held in memory.
    pub fn from_summaries<S: AsRef<str> + Sync>(summaries: &[S], n: usize) -> Self {
        let n = n.max(1);
        let mut collector = Collector::new(n, Keep::Every);
        collector.add(summaries);
        Self::of(collector.finish(), n)
    }

    fn of(collected: Collected, n: usize) -> Self {
        Self {
            n,
            set: NgramSet::from_sorted(collected.hashes),
            summaries: collected.summaries,
            positions: collected.positions,
        }
    }

    /// The n-gram size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Training summaries read.
    pub fn summaries(&self) -> usize {
        self.summaries
    }

    /// N-gram positions read (repeats included).
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// The distinct training n-grams.
    pub fn set(&self) -> &NgramSet {
        &self.set
    }

    /// How much of `summary` the training summaries hold; `None` when the summary has
    /// no n-gram (fewer than `n` tokens).
    pub fn overlap(&self, summary: &str) -> Option<Overlap> {
        let mut tokens = Vec::new();
        word_hashes_into(summary, &mut tokens);
        let grams: Vec<u64> = ngram_hashes(&tokens, self.n).collect();
        if grams.is_empty() {
            return None;
        }
        let seen = self.set.count_in(&grams);
        Some(Overlap {
            seen,
            total: grams.len(),
        })
    }

    /// The overlap of `summary` as the `novelty` stage and `tempora novelty` write
    /// it: a percent, rounded to 4 decimals.
    ///
    /// # Errors
    /// [`TooShort`] when the summary has no n-gram.
    pub fn score(&self, summary: &str) -> Result<f64, TooShort> {
        self.overlap(summary)
            .map(|o| round(o.percent()))
            .ok_or(TooShort { n: self.n })
    }
}

/// Why a summary has no score: it has fewer than `n` word tokens, so no n-gram.
/// Its message is the reason such a record is rejected with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the summary has fewer than {n} word tokens: no {n}-gram to score")]
pub struct TooShort {
    /// The n-gram size.
    pub n: usize,
}

/// Overlaps are written with 4 decimals: enough to tell every fraction of a summary's
/// positions apart, and the same bytes on every platform.
fn round(overlap: f64) -> f64 {
    (overlap * 1e4).round() / 1e4
}

/// The n-gram positions of one summary and how many of them training holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    /// Positions whose n-gram occurs in training.
    pub seen: usize,
    /// Every position.
    pub total: usize,
}

impl Overlap {
    /// `seen` as a percent of `total`.
    pub fn percent(self) -> f64 {
        100.0 * self.seen as f64 / self.total as f64
    }
}

/// `n` must be at least 1.
pub(crate) fn check_n(n: usize) -> Result<(), NoveltyError> {
    if n == 0 {
        return Err(NoveltyError::Usage("n must be at least 1".into()));
    }
    Ok(())
}

/// Which n-grams a read of the training summaries keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Every distinct n-gram: the index.
    Every,
    /// The n-grams that occur at least twice in all summaries together: the ones
    /// `diversify` has to count, since an n-gram that occurs once can never pass a
    /// threshold of one or more.
    Repeated,
}

/// What one read of the training summaries found.
#[derive(Debug)]
pub(crate) struct Collected {
    /// The hashes kept (see [`Keep`]), sorted and distinct.
    pub(crate) hashes: Vec<u64>,
    /// Summaries read.
    pub(crate) summaries: usize,
    /// N-gram positions read (repeats included).
    pub(crate) positions: u64,
}

/// Reads the summaries of `paths` and keeps their n-grams as `keep` says.
///
/// # Errors
/// See [`training::read_summaries`]; `n = 0` is a usage error.
pub(crate) fn collect(
    paths: &[PathBuf],
    field: &str,
    n: usize,
    keep: Keep,
) -> Result<Collected, NoveltyError> {
    check_n(n)?;
    let mut collector = Collector::new(n, keep);
    training::read_summaries(paths, field, |chunk| {
        collector.add(&chunk);
        Ok(())
    })?;
    Ok(collector.finish())
}

/// N-gram hashes gathered chunk by chunk, then sorted once.
pub(crate) struct Collector {
    n: usize,
    keep: Keep,
    /// Every task's hashes, appended as each chunk is tokenized: one growing vector
    /// (grown in place by the allocator at this size), so no chunk's hashes are held
    /// twice and the peak stays near one copy.
    all: Vec<u64>,
    summaries: usize,
    positions: u64,
}

impl Collector {
    pub(crate) fn new(n: usize, keep: Keep) -> Self {
        Self {
            n,
            keep,
            all: Vec::new(),
            summaries: 0,
            positions: 0,
        }
    }

    /// Tokenizes `summaries` on every core and keeps their hashes.
    pub(crate) fn add<S: AsRef<str> + Sync>(&mut self, summaries: &[S]) {
        let n = self.n;
        let tasks: Vec<Vec<u64>> = summaries
            .par_chunks(PER_TASK)
            .map(|task| {
                let mut tokens = Vec::new();
                let mut out = Vec::new();
                for summary in task {
                    word_hashes_into(summary.as_ref(), &mut tokens);
                    out.extend(ngram_hashes(&tokens, n));
                }
                out
            })
            .collect();
        self.summaries += summaries.len();
        for task in tasks {
            self.positions += task.len() as u64;
            self.all.extend_from_slice(&task);
        }
    }

    /// The hashes kept, sorted and distinct.
    pub(crate) fn finish(self) -> Collected {
        let keep = self.keep;
        let mut all = self.all;
        let mut parts = sort_in_parts(&mut all);
        // Each part drops its repeats (or its single hashes) on its own, then the
        // parts are moved together.
        let lens_kept: Vec<(usize, usize)> = parts
            .par_iter_mut()
            .map(|part| {
                let kept = match keep {
                    Keep::Every => runs_to(part, |_| 1),
                    Keep::Repeated => runs_to(part, |run| usize::from(run > 1)),
                };
                (part.len(), kept)
            })
            .collect();
        let (mut from, mut to) = (0, 0);
        for (len, kept) in lens_kept {
            all.copy_within(from..from + kept, to);
            from += len;
            to += kept;
        }
        all.truncate(to);
        Collected {
            hashes: all,
            summaries: self.summaries,
            positions: self.positions,
        }
    }
}

/// How many parts [`sort_in_parts`] sorts: by the top 8 bits.
const PARTS: usize = 256;

/// Sorts `values` in place and returns them as [`PARTS`] consecutive parts, each
/// holding the values of one top byte.
///
/// One in-place pass (American flag sort: count each part, then swap every value
/// into its part) spreads the values, then each part is sorted on its own, on every
/// core. A part of CNN/DailyMail's training 4-grams is about 70,000 hashes, half a
/// megabyte, so it sorts in the core's cache, where one sort of the whole walks
/// main memory again and again; and nothing is copied, so the peak stays one copy.
fn sort_in_parts(values: &mut [u64]) -> Vec<&mut [u64]> {
    let part_of = |value: u64| (value >> (64 - PARTS.trailing_zeros())) as usize;
    let mut ends = [0usize; PARTS];
    for &value in values.iter() {
        ends[part_of(value)] += 1;
    }
    let mut next = [0usize; PARTS];
    let mut total = 0;
    for (end, next) in ends.iter_mut().zip(&mut next) {
        *next = total;
        total += *end;
        *end = total;
    }
    for part in 0..PARTS {
        while next[part] < ends[part] {
            // Carry the value out of the first unplaced slot of `part` to its own
            // part, and the value found there on to its own, until one of `part`
            // comes back to fill the slot.
            let mut value = values[next[part]];
            let mut home = part_of(value);
            while home != part {
                std::mem::swap(&mut value, &mut values[next[home]]);
                next[home] += 1;
                home = part_of(value);
            }
            values[next[part]] = value;
            next[part] += 1;
        }
    }
    let mut parts = Vec::with_capacity(PARTS);
    let mut rest = values;
    let mut start = 0;
    for end in ends {
        let (part, after) = rest.split_at_mut(end - start);
        parts.push(part);
        rest = after;
        start = end;
    }
    parts.par_iter_mut().for_each(|part| part.sort_unstable());
    parts
}

/// Rewrites sorted `values` in place so that each run of one value, of length
/// `run`, stands `copies(run)` times (at most `run`); returns the new length.
fn runs_to(values: &mut [u64], copies: impl Fn(usize) -> usize) -> usize {
    let mut write = 0;
    let mut start = 0;
    while start < values.len() {
        let value = values[start];
        let mut end = start + 1;
        while end < values.len() && values[end] == value {
            end += 1;
        }
        for _ in 0..copies(end - start) {
            values[write] = value;
            write += 1;
        }
        start = end;
    }
    write
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_counts_positions_not_distinct_ngrams() {
        let index = TrainingIndex::from_summaries(&["the cat sat on the mat"], 4);
        let overlap = index.overlap("the cat sat on the cat sat on").unwrap();
        // Positions: [the cat sat on]✓ [cat sat on the]✓ [sat on the cat]✗
        // [on the cat sat]✗ [the cat sat on]✓ (repeat counts again).
        assert_eq!(overlap, Overlap { seen: 3, total: 5 });
        assert!((overlap.percent() - 60.0).abs() < 1e-9);
    }

    #[test]
    fn case_and_punctuation_do_not_matter() {
        let index = TrainingIndex::from_summaries(&["The PM, said: \"no deal\"."], 4);
        let overlap = index.overlap("the pm said no deal").unwrap();
        assert_eq!(overlap, Overlap { seen: 2, total: 2 });
    }

    #[test]
    fn ngrams_do_not_cross_summaries() {
        let index = TrainingIndex::from_summaries(&["a b c", "d e f"], 4);
        assert_eq!(index.set().len(), 0);
        assert_eq!(
            index.overlap("a b c d").unwrap(),
            Overlap { seen: 0, total: 1 }
        );
    }

    #[test]
    fn a_score_is_a_rounded_percent_and_a_short_summary_has_none() {
        let index = TrainingIndex::from_summaries(&["a b c d", "b c d e"], 4);
        // [a b c d]✓ [b c d f]✗ [c d f g]✗: one position of three.
        assert_eq!(index.score("a b c d f g"), Ok(33.3333));
        let err = index.score("a b c").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the summary has fewer than 4 word tokens: no 4-gram to score"
        );
    }

    #[test]
    fn runs_keep_as_many_copies_as_asked() {
        let mut values = [1, 1, 1, 2, 3, 3, 7];
        assert_eq!(runs_to(&mut values, |_| 1), 4);
        assert_eq!(values[..4], [1, 2, 3, 7]);
        let mut values = [1, 1, 1, 2, 3, 3, 7];
        assert_eq!(runs_to(&mut values, |run| usize::from(run > 1)), 2);
        assert_eq!(values[..2], [1, 3]);
        assert_eq!(runs_to(&mut [], |_| 1), 0);
    }

    #[test]
    fn repeated_keeps_the_ngrams_seen_twice_across_tasks_and_within_one() {
        // More summaries than one task holds, so that a repeat can span two tasks.
        let mut summaries: Vec<String> = (0..PER_TASK + 10)
            .map(|i| format!("w{i} x{i} y{i} z{i}"))
            .collect();
        summaries.push("w0 x0 y0 z0".into()); // across tasks
        summaries.push("r s t u r s t u".into()); // within one summary
        let mut collector = Collector::new(4, Keep::Repeated);
        collector.add(&summaries);
        let repeated = collector.finish();
        let hash = |text: &str| {
            let mut tokens = Vec::new();
            word_hashes_into(text, &mut tokens);
            let first = ngram_hashes(&tokens, 4).next();
            first
        };
        let mut expected: Vec<u64> = ["w0 x0 y0 z0", "r s t u"]
            .iter()
            .filter_map(|t| hash(t))
            .collect();
        expected.sort_unstable();
        assert_eq!(repeated.hashes, expected);
        assert_eq!(repeated.summaries, PER_TASK + 12);
        assert_eq!(repeated.positions, (PER_TASK + 11) as u64 + 5);
    }

    #[test]
    fn sorts_in_parts_like_one_sort() {
        // Values in every part and none in some, repeats, the extremes.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut values: Vec<u64> = (0..20_000)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if i % 5 == 0 {
                    state & 0x0fff_ffff_ffff_ffff
                } else {
                    state | (i % 3)
                }
            })
            .collect();
        values.extend([0, u64::MAX, 0, u64::MAX, 1 << 63]);
        let mut expected = values.clone();
        expected.sort_unstable();
        let parts = sort_in_parts(&mut values);
        assert_eq!(parts.len(), PARTS);
        for (i, part) in parts.iter().enumerate() {
            assert!(part.iter().all(|v| (v >> 56) as usize == i), "part {i}");
        }
        assert_eq!(values, expected);
        assert!(sort_in_parts(&mut []).iter().all(|p| p.is_empty()));
    }

    #[test]
    fn every_keeps_each_ngram_once_in_order_across_chunks() {
        // Two chunks of more than one task each, with repeats within and across them.
        let chunk = |from: usize| -> Vec<String> {
            (from..from + PER_TASK + 50)
                .map(|i| format!("a{} b{} c{} d{} e{}", i % 700, i % 3, i, i % 5, i % 700))
                .collect()
        };
        let (first, second) = (chunk(0), chunk(400));
        let mut collector = Collector::new(3, Keep::Every);
        collector.add(&first);
        collector.add(&second);
        let every = collector.finish();
        let mut expected = Vec::new();
        let mut tokens = Vec::new();
        for summary in first.iter().chain(&second) {
            word_hashes_into(summary, &mut tokens);
            expected.extend(ngram_hashes(&tokens, 3));
        }
        assert_eq!(every.positions, expected.len() as u64);
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(every.hashes, expected);
        assert_eq!(every.summaries, 2 * (PER_TASK + 50));
    }

    #[test]
    fn a_summary_shorter_than_n_has_no_overlap() {
        let index = TrainingIndex::from_summaries(&["a b c d"], 4);
        assert_eq!(index.overlap("a b c"), None);
        assert_eq!(index.overlap("!!! ..."), None);
        assert_eq!(
            TrainingIndex::from_summaries(&["a b"], 2).overlap("a b"),
            Some(Overlap { seen: 1, total: 1 })
        );
    }
}
