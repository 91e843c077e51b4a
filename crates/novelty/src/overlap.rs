//! The training index and each test summary's overlap with it.
//!
//! `overlap` is the percent of a summary's n-gram *positions* (a repeated n-gram
//! counts each time it occurs) whose n-gram occurs in any training summary; n-grams
//! are of [`TokenKind::Words`] tokens within one summary, `n = 4` by default.

use std::path::PathBuf;

use rayon::prelude::*;

use crate::error::NoveltyError;
use crate::ngrams::NgramSet;
use crate::tokens::{ngram_hashes, token_hashes_into, TokenKind};
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
        check_n(n)?;
        let mut parts: Vec<(Vec<u64>, u64)> = Vec::new();
        let mut summaries = 0;
        training::read_summaries(paths, field, |chunk| {
            summaries += chunk.len();
            parts.extend(ngrams_of(&chunk, n));
            Ok(())
        })?;
        Ok(Self::from_parts(parts, summaries, n))
    }

    /// Indexes the n-grams of summaries held in memory.
    pub fn from_summaries<S: AsRef<str> + Sync>(summaries: &[S], n: usize) -> Self {
        let n = n.max(1);
        Self::from_parts(ngrams_of(summaries, n), summaries.len(), n)
    }

    fn from_parts(parts: Vec<(Vec<u64>, u64)>, summaries: usize, n: usize) -> Self {
        // One exact allocation, each part freed once copied: the peak stays near one
        // copy of the hashes, where growing one vector would reach twice that.
        let positions = parts.iter().map(|(_, p)| p).sum();
        let mut all = Vec::with_capacity(parts.iter().map(|(h, _)| h.len()).sum());
        for (part, _) in parts {
            all.extend_from_slice(&part);
        }
        Self {
            n,
            set: NgramSet::from_hashes(all),
            summaries,
            positions,
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
        token_hashes_into(summary, TokenKind::Words, &mut tokens);
        let grams = ngram_hashes(&tokens, self.n);
        let total = grams.len();
        if total == 0 {
            return None;
        }
        let seen = grams.filter(|h| self.set.contains(*h)).count();
        Some(Overlap { seen, total })
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

/// The distinct n-gram hashes of `summaries` and their positions, per rayon task.
/// Each task sorts and dedups its own hashes (news repeats itself within a few
/// hundred summaries too), so the final sort has less to do and less is held.
fn ngrams_of<S: AsRef<str> + Sync>(summaries: &[S], n: usize) -> Vec<(Vec<u64>, u64)> {
    summaries
        .par_chunks(PER_TASK)
        .map(|task| {
            let mut tokens = Vec::new();
            let mut out = Vec::new();
            for summary in task {
                token_hashes_into(summary.as_ref(), TokenKind::Words, &mut tokens);
                out.extend(ngram_hashes(&tokens, n));
            }
            let positions = out.len() as u64;
            out.sort_unstable();
            out.dedup();
            out.shrink_to_fit();
            (out, positions)
        })
        .collect()
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
