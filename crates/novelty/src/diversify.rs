//! Lexically diverse training subsets (Choubey et al. 2023, section 5.1: the θ4G
//! subsets): the samples are shuffled with a seed and walked in that order; a sample
//! is kept only if, once added, no n-gram's count in the kept set exceeds the
//! threshold (`max_repeats`). Repeats inside one sample count too.
//!
//! The shuffle is a Fisher-Yates shuffle driven by PCG-64 (MCG, `rand_pcg`) seeded
//! with the seed, with the multiply-shift range reduction written out here, so that
//! a seed gives the same subsets on every platform and every future version of the
//! `rand` crates.
//!
//! Memory: only n-grams that occur at least twice in all samples are counted (one
//! that occurs once can never pass a threshold of one or more), and each sample's
//! such n-grams are kept as dense 32-bit ids (ranks in the set of repeated
//! n-grams), so one walk is a pass over an array of counts, 16 bits an n-gram.

use std::path::PathBuf;

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use crate::error::NoveltyError;
use crate::ngrams::NgramSet;
use crate::overlap::{collect, Collector, Keep};
use crate::tokens::{ngram_hashes, word_hashes_into};
use crate::training;

/// Every sample's repeated n-grams as dense ids.
#[derive(Debug, Default)]
pub struct SampleNgrams {
    ids: Vec<u32>,
    /// Sample `i` holds `ids[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<u64>,
    /// Per sample: it has no n-gram at all (fewer than `n` tokens), the only kind a
    /// threshold of 0 keeps.
    without_ngrams: Vec<bool>,
    /// How many distinct repeated n-grams: the range of the ids.
    distinct: usize,
}

impl SampleNgrams {
    /// Reads the summaries of `paths` twice: once to collect the n-grams that occur
    /// more than once, once to give each sample the ids of its own. Two reads keep
    /// the peak memory near one copy of the hashes.
    ///
    /// # Errors
    /// See [`training::read_summaries`]; `n = 0` is a usage error.
    pub fn read(paths: &[PathBuf], field: &str, n: usize) -> Result<Self, NoveltyError> {
        let repeated = collect(paths, field, n, Keep::Repeated)?;
        let set = NgramSet::from_sorted(repeated.hashes);
        // The first read counted the samples: one exact allocation each.
        let mut samples = Self {
            ends: Vec::with_capacity(repeated.summaries),
            without_ngrams: Vec::with_capacity(repeated.summaries),
            distinct: set.len(),
            ..Self::default()
        };
        training::read_summaries(paths, field, |chunk| {
            samples.append(ids_of(&set, &chunk, n));
            Ok(())
        })?;
        samples.ids.shrink_to_fit();
        Ok(samples)
    }

    /// The n-gram ids of summaries held in memory.
    pub fn from_summaries<S: AsRef<str> + Sync>(summaries: &[S], n: usize) -> Self {
        let n = n.max(1);
        let mut collector = Collector::new(n, Keep::Repeated);
        collector.add(summaries);
        let set = NgramSet::from_sorted(collector.finish().hashes);
        let mut samples = Self {
            distinct: set.len(),
            ..Self::default()
        };
        samples.append(ids_of(&set, summaries, n));
        samples
    }

    /// Adds the samples of one chunk.
    fn append(&mut self, chunk: ChunkIds) {
        self.ids.extend_from_slice(&chunk.ids);
        let mut end = self.ends.last().copied().unwrap_or(0);
        for len in chunk.lens {
            end += u64::from(len);
            self.ends.push(end);
        }
        self.without_ngrams.extend_from_slice(&chunk.without_ngrams);
    }

    /// How many samples.
    pub fn samples(&self) -> usize {
        self.ends.len()
    }

    fn of(&self, sample: usize) -> &[u32] {
        let from = if sample == 0 {
            0
        } else {
            self.ends[sample - 1]
        };
        &self.ids[from as usize..self.ends[sample] as usize]
    }
}

/// The repeated n-grams of a chunk of summaries.
#[derive(Debug, Default)]
struct ChunkIds {
    /// Every summary's ids, one summary after the other.
    ids: Vec<u32>,
    /// Each summary's count of ids.
    lens: Vec<u32>,
    /// Each summary: it has no n-gram at all.
    without_ngrams: Vec<bool>,
}

/// The ids of each summary's n-grams that `set` holds (the repeated ones).
fn ids_of<S: AsRef<str> + Sync>(set: &NgramSet, summaries: &[S], n: usize) -> ChunkIds {
    let per_task: Vec<ChunkIds> = summaries
        .par_chunks(512)
        .map(|task| {
            let (mut tokens, mut grams) = (Vec::new(), Vec::new());
            let mut out = ChunkIds {
                lens: Vec::with_capacity(task.len()),
                without_ngrams: Vec::with_capacity(task.len()),
                ..ChunkIds::default()
            };
            for summary in task {
                word_hashes_into(summary.as_ref(), &mut tokens);
                grams.clear();
                grams.extend(ngram_hashes(&tokens, n));
                out.without_ngrams.push(grams.is_empty());
                let before = out.ids.len();
                set.ids_into(&grams, &mut out.ids);
                out.lens.push((out.ids.len() - before) as u32);
            }
            out
        })
        .collect();
    let mut all = ChunkIds::default();
    for task in per_task {
        all.ids.extend_from_slice(&task.ids);
        all.lens.extend_from_slice(&task.lens);
        all.without_ngrams.extend_from_slice(&task.without_ngrams);
    }
    all
}

/// The order in which samples are walked: `0..samples` shuffled by `seed`.
pub fn shuffled(samples: usize, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..samples as u32).collect();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    for i in (1..order.len()).rev() {
        // A uniform index in 0..=i by multiply-shift (Lemire); the bias is below
        // i / 2^64, nothing at any real size.
        let j = ((u128::from(rng.next_u64()) * (i as u128 + 1)) >> 64) as usize;
        order.swap(i, j);
    }
    order
}

/// The subset kept at one threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subset {
    /// The threshold: most occurrences of one n-gram in the kept set.
    pub max_repeats: u16,
    /// Per sample, in input order: kept or not.
    pub kept: Vec<bool>,
    /// How many samples were kept.
    pub size: usize,
}

/// Walks `order` and keeps each sample whose n-grams stay within `max_repeats`.
pub fn select(samples: &SampleNgrams, order: &[u32], max_repeats: u16) -> Subset {
    let mut counts = vec![0u16; samples.distinct];
    let mut kept = vec![false; samples.samples()];
    let mut size = 0;
    for &sample in order {
        // No n-gram may occur at all: only a sample without n-grams fits (its
        // single n-grams are not among its ids).
        if max_repeats == 0 && !samples.without_ngrams[sample as usize] {
            continue;
        }
        let ids = samples.of(sample as usize);
        // Add the sample's n-grams; on the first that overflows, take back what was
        // added. Repeats inside the sample are counted as they are added.
        let mut added = 0;
        let mut fits = true;
        for &id in ids {
            let count = &mut counts[id as usize];
            if *count >= max_repeats {
                fits = false;
                break;
            }
            *count += 1;
            added += 1;
        }
        if fits {
            kept[sample as usize] = true;
            size += 1;
        } else {
            for &id in &ids[..added] {
                counts[id as usize] -= 1;
            }
        }
    }
    Subset {
        max_repeats,
        kept,
        size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::TokenKind;
    use std::collections::HashMap;

    fn summaries() -> Vec<String> {
        // Shared phrases so that thresholds bite: each summary is two of five
        // phrases plus a word of its own.
        let phrases = [
            "the prime minister said on monday",
            "the bank of england raised rates",
            "police are appealing for witnesses",
            "the club confirmed the signing",
            "talks will resume next week",
        ];
        (0..200)
            .map(|i| format!("{} {} w{i}", phrases[i % 5], phrases[(i / 5) % 5]))
            .collect()
    }

    /// The largest count of any n-gram in the kept set, counted from the text.
    fn max_count(texts: &[String], kept: &[bool], n: usize) -> usize {
        let mut counts: HashMap<Vec<String>, usize> = HashMap::new();
        for (text, _) in texts.iter().zip(kept).filter(|(_, k)| **k) {
            let tokens = crate::tokens::tokens(text, TokenKind::Words);
            for gram in tokens.windows(n) {
                *counts.entry(gram.to_vec()).or_default() += 1;
            }
        }
        counts.values().copied().max().unwrap_or(0)
    }

    #[test]
    fn no_ngram_exceeds_the_threshold_and_larger_thresholds_keep_more() {
        let texts = summaries();
        let grams = SampleNgrams::from_summaries(&texts, 4);
        let order = shuffled(grams.samples(), 7);
        let mut last = 0;
        for max_repeats in [1, 2, 5, 10, 25] {
            let subset = select(&grams, &order, max_repeats);
            assert!(max_count(&texts, &subset.kept, 4) <= usize::from(max_repeats));
            assert_eq!(subset.size, subset.kept.iter().filter(|k| **k).count());
            assert!(
                subset.size >= last,
                "{max_repeats}: {} < {last}",
                subset.size
            );
            last = subset.size;
        }
        assert!(
            last < texts.len(),
            "the thresholds should drop some samples"
        );
    }

    #[test]
    fn every_dropped_sample_would_have_broken_the_threshold() {
        let texts = summaries();
        let grams = SampleNgrams::from_summaries(&texts, 4);
        let order = shuffled(grams.samples(), 3);
        let subset = select(&grams, &order, 2);
        // Greedy: a dropped sample added to the final kept set overflows it (the kept
        // set only grows during the walk, so it overflowed when it was tried too).
        for (i, kept) in subset.kept.iter().enumerate() {
            if !kept {
                let mut with = subset.kept.clone();
                with[i] = true;
                assert!(max_count(&texts, &with, 4) > 2, "sample {i} was dropped");
            }
        }
    }

    #[test]
    fn repeats_inside_one_sample_count() {
        let texts = ["a b c d a b c d a b c d".to_string()];
        let grams = SampleNgrams::from_summaries(&texts, 4);
        assert!(!select(&grams, &[0], 2).kept[0]);
        assert!(select(&grams, &[0], 3).kept[0]);
    }

    /// The walk as the paper states it: every n-gram of every sample counted, by its
    /// tokens.
    fn plain_walk(texts: &[String], order: &[u32], max_repeats: u16) -> Vec<bool> {
        let mut counts: HashMap<Vec<String>, usize> = HashMap::new();
        let mut kept = vec![false; texts.len()];
        for &i in order {
            let tokens = crate::tokens::tokens(&texts[i as usize], TokenKind::Words);
            let mut local: HashMap<Vec<String>, usize> = HashMap::new();
            for gram in tokens.windows(4) {
                *local.entry(gram.to_vec()).or_default() += 1;
            }
            let fits = local.iter().all(|(gram, c)| {
                counts.get(gram).copied().unwrap_or(0) + c <= usize::from(max_repeats)
            });
            if fits {
                for (gram, c) in local {
                    *counts.entry(gram).or_default() += c;
                }
                kept[i as usize] = true;
            }
        }
        kept
    }

    #[test]
    fn the_walk_keeps_what_counting_every_ngram_keeps() {
        // More summaries than one task holds; a few common words, so that 4-grams
        // repeat within a summary, within a task and across tasks, and rare words, so
        // that most 4-grams occur once.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let texts: Vec<String> = (0..1500)
            .map(|_| {
                let len = next() % 14;
                (0..len)
                    .map(|_| match next() % 3 {
                        0 => format!("Rare{}", next() % 100_000),
                        _ => format!("w{}", next() % 4),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let grams = SampleNgrams::from_summaries(&texts, 4);
        let order = shuffled(grams.samples(), 11);
        for max_repeats in [0, 1, 2, 3, 5, 20] {
            let subset = select(&grams, &order, max_repeats);
            let plain = plain_walk(&texts, &order, max_repeats);
            assert_eq!(subset.kept, plain, "{max_repeats}");
            assert!(subset.size > 0, "{max_repeats}");
        }
        // The thresholds bite.
        assert!(select(&grams, &order, 1).size < texts.len());
    }

    #[test]
    fn a_threshold_of_zero_keeps_only_samples_without_ngrams() {
        // Every 4-gram here occurs once: none is among the ids, yet none may occur.
        let texts = ["a b c d", "e f g", "h i j k l", ""].map(String::from);
        let grams = SampleNgrams::from_summaries(&texts, 4);
        assert_eq!(grams.distinct, 0);
        let subset = select(&grams, &[0, 1, 2, 3], 0);
        assert_eq!(subset.kept, [false, true, false, true]);
        assert_eq!(subset.size, 2);
        assert_eq!(select(&grams, &[3, 2, 1, 0], 1).size, 4);
    }

    #[test]
    fn the_same_seed_gives_the_same_subsets_and_another_seed_others() {
        let texts = summaries();
        let grams = SampleNgrams::from_summaries(&texts, 4);
        let a = select(&grams, &shuffled(grams.samples(), 42), 2);
        let b = select(&grams, &shuffled(grams.samples(), 42), 2);
        let c = select(&grams, &shuffled(grams.samples(), 43), 2);
        assert_eq!(a, b);
        assert_ne!(a.kept, c.kept);
    }

    #[test]
    fn the_shuffle_is_a_permutation_fixed_by_its_seed() {
        let order = shuffled(1000, 1);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<u32>>());
        assert_ne!(order, sorted);
        // Pinned: a change of generator or reduction would change every subset.
        assert_eq!(shuffled(10, 1), [7, 0, 4, 9, 6, 2, 5, 3, 1, 8]);
        assert!(shuffled(0, 1).is_empty());
        assert_eq!(shuffled(1, 1), [0]);
    }
}
