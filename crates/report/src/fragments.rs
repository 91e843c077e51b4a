//! Newsroom's extractive fragments (Grusky et al., NAACL 2018) and SummEval's novel
//! n-grams, on token hashes.
//!
//! # Fragments
//!
//! [`fragments`] is the greedy match of Newsroom's `fragments.py` (`Fragments._match`):
//! at each summary position `i`, scan the article from its start; wherever the
//! article token equals the summary token, extend the shared run as far as it goes,
//! keep it if it is longer than the best so far (the first of equal runs wins), and
//! continue the scan *after the run* (`b_start = b_end`), so a longer run that starts
//! inside a shorter one is never seen. Then `i` moves past the best run, or by one
//! when there is none (the paper's `i += max(len(f), 1)`).
//!
//! The scan as written is quadratic: every summary position walks the whole article.
//! Here the article is indexed once ([`ArticleIndex`]: its `(token hash, position)`
//! pairs, sorted), and a summary position visits only the article positions that hold
//! its token, in increasing order, skipping those inside the run just measured:
//! exactly the positions where the quadratic scan compares a run, in the same order,
//! so the fragments are identical (a property test checks it against a transcription
//! of the Python loop). The scan also stops once a run reaches the end of the
//! summary, since no later run can be longer. For news text a summary position visits
//! a handful of positions (its token's occurrences in the article), so the work is
//! about linear in the article and summary lengths; it stays quadratic only when one
//! token fills both texts.
//!
//! Coverage, density and compression follow `fragments.py`: coverage = sum of
//! fragment lengths / summary tokens, density = sum of squared lengths / summary
//! tokens (both 0 for an empty summary), compression = article tokens / summary
//! tokens (0 for an empty summary).
//!
//! # Novel n-grams
//!
//! SummEval's `data_stats` definition: the share of the summary's *distinct* n-grams
//! that are not among the article's n-grams, in percent; undefined (`None`) for a
//! summary with fewer than `n` tokens, which SummEval leaves out too.

/// The n-gram sizes of the novel n-gram statistics.
pub const NOVEL_NGRAM_SIZES: [usize; 4] = [1, 2, 3, 4];

/// One extractive fragment: a run of tokens shared by the summary and the article.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fragment {
    /// Where the run starts in the summary (token index).
    pub summary: usize,
    /// Where the run starts in the article (token index).
    pub article: usize,
    /// Its length in tokens.
    pub len: usize,
}

/// An article's token positions by token hash: the `(hash, position)` pairs sorted,
/// so the positions of one token are a contiguous, increasing run.
#[derive(Debug, Clone, Default)]
pub struct ArticleIndex {
    pairs: Vec<(u64, u32)>,
}

impl ArticleIndex {
    /// Indexes an article's tokens (given by their hashes).
    ///
    /// # Panics
    /// When the article has more than `u32::MAX` tokens (positions are 32-bit).
    pub fn new(article: &[u64]) -> Self {
        let mut index = Self::default();
        index.rebuild(article);
        index
    }

    /// Indexes another article, reusing the allocation.
    ///
    /// # Panics
    /// When the article has more than `u32::MAX` tokens (positions are 32-bit).
    pub fn rebuild(&mut self, article: &[u64]) {
        self.pairs.clear();
        self.pairs.extend(article.iter().enumerate().map(|(i, &h)| {
            let position = u32::try_from(i).expect("an article of fewer than 2^32 tokens");
            (h, position)
        }));
        self.pairs.sort_unstable();
    }

    /// The positions of `token` in the article, increasing.
    pub fn positions(&self, token: u64) -> impl Iterator<Item = usize> + '_ {
        let start = self.pairs.partition_point(|&(h, _)| h < token);
        self.pairs[start..]
            .iter()
            .take_while(move |&&(h, _)| h == token)
            .map(|&(_, p)| p as usize)
    }
}

/// Length of the common prefix of two token runs.
fn shared_run(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The extractive fragments of `summary` in `article` (token hashes; `index` is
/// `ArticleIndex::new(article)`), in summary order: Newsroom's greedy match.
pub fn fragments(summary: &[u64], article: &[u64], index: &ArticleIndex) -> Vec<Fragment> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < summary.len() {
        let rest = &summary[i..];
        let mut best: Option<Fragment> = None;
        // The quadratic scan's `b_start`: article positions before it are inside the
        // last run measured, and the scan never compares them.
        let mut scan_from = 0;
        for p in index.positions(summary[i]) {
            if p < scan_from {
                continue;
            }
            let len = shared_run(rest, &article[p..]);
            if best.is_none_or(|b| len > b.len) {
                best = Some(Fragment {
                    summary: i,
                    article: p,
                    len,
                });
                if len == rest.len() {
                    break;
                }
            }
            scan_from = p + len;
        }
        match best {
            Some(f) => {
                i += f.len;
                out.push(f);
            }
            None => i += 1,
        }
    }
    out
}

/// Newsroom's statistics of one summary against its article.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extractiveness {
    /// Sum of fragment lengths / summary tokens.
    pub coverage: f64,
    /// Sum of squared fragment lengths / summary tokens.
    pub density: f64,
    /// Article tokens / summary tokens.
    pub compression: f64,
}

impl Extractiveness {
    /// The statistics from a summary's fragments.
    pub fn of(fragments: &[Fragment], summary_tokens: usize, article_tokens: usize) -> Self {
        if summary_tokens == 0 {
            // fragments.py returns 0 for each when the denominator is 0.
            return Self {
                coverage: 0.0,
                density: 0.0,
                compression: 0.0,
            };
        }
        let n = summary_tokens as f64;
        let covered: usize = fragments.iter().map(|f| f.len).sum();
        let squared: usize = fragments.iter().map(|f| f.len * f.len).sum();
        Self {
            coverage: covered as f64 / n,
            density: squared as f64 / n,
            compression: article_tokens as f64 / n,
        }
    }
}

/// Percent of the summary's distinct n-grams that the article does not hold; `None`
/// when the summary has fewer than `n` tokens (or `n` is 0).
pub fn novel_ngram_percent(
    summary: &[u64],
    article: &[u64],
    index: &ArticleIndex,
    n: usize,
) -> Option<f64> {
    if n == 0 || summary.len() < n {
        return None;
    }
    let mut grams: Vec<&[u64]> = summary.windows(n).collect();
    grams.sort_unstable();
    grams.dedup();
    // An n-gram can only be at article positions holding its first token: compare
    // there, token by token, instead of hashing every article n-gram.
    let novel = grams
        .iter()
        .filter(|gram| {
            !index
                .positions(gram[0])
                .any(|p| article.get(p..p + n) == Some(**gram))
        })
        .count();
    Some(100.0 * novel as f64 / grams.len() as f64)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A line-by-line transcription of `Fragments._match` in Newsroom's fragments.py.
    fn newsroom_match(a: &[u64], b: &[u64]) -> Vec<Fragment> {
        let mut matches = Vec::new();
        let (mut a_start, mut b_start) = (0, 0);
        while a_start < a.len() {
            let mut best_match = None;
            let mut best_match_length = 0;
            while b_start < b.len() {
                if a[a_start] == b[b_start] {
                    let (mut a_end, mut b_end) = (a_start, b_start);
                    while a_end < a.len() && b_end < b.len() && b[b_end] == a[a_end] {
                        b_end += 1;
                        a_end += 1;
                    }
                    let length = a_end - a_start;
                    if length > best_match_length {
                        best_match = Some(Fragment {
                            summary: a_start,
                            article: b_start,
                            len: length,
                        });
                        best_match_length = length;
                    }
                    b_start = b_end;
                } else {
                    b_start += 1;
                }
            }
            b_start = 0;
            if let Some(m) = best_match {
                matches.push(m);
                a_start += best_match_length;
            } else {
                a_start += 1;
            }
        }
        matches
    }

    /// Letters as tokens: `"abc"` is three tokens.
    fn toks(s: &str) -> Vec<u64> {
        s.bytes().map(u64::from).collect()
    }

    fn frag(summary: &str, article: &str) -> Vec<Fragment> {
        let (s, a) = (toks(summary), toks(article));
        fragments(&s, &a, &ArticleIndex::new(&a))
    }

    fn lens(fs: &[Fragment]) -> Vec<usize> {
        fs.iter().map(|f| f.len).collect()
    }

    #[test]
    fn whole_summary_copied_is_one_fragment() {
        let fs = frag("cde", "abcdefg");
        assert_eq!(
            fs,
            [Fragment {
                summary: 0,
                article: 2,
                len: 3
            }]
        );
        let e = Extractiveness::of(&fs, 3, 7);
        assert_eq!((e.coverage, e.density), (1.0, 3.0));
        assert!((e.compression - 7.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn the_longest_run_wins_and_the_summary_moves_past_it() {
        // Summary "a b c x d e": at 0 the runs are "a" (article 0) and "a b c"
        // (article 3); then x is novel; then "d e".
        let fs = frag("abcxde", "azabcqde");
        assert_eq!(lens(&fs), [3, 2]);
        assert_eq!(fs[0].article, 2);
        let e = Extractiveness::of(&fs, 6, 8);
        assert!((e.coverage - 5.0 / 6.0).abs() < 1e-12);
        assert!((e.density - 13.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn greedy_jump_past_a_run_misses_an_overlapping_longer_run() {
        // Article "a a a b", summary "a a b": the scan measures "a a" at 0, jumps to 2,
        // measures "a" there, and never compares "a a b" at 1. Newsroom's greedy
        // choice: fragments "a a" and "b" (coverage 1, density 5/3), not one "a a b"
        // (density 3).
        let fs = frag("aab", "aaab");
        assert_eq!(lens(&fs), [2, 1]);
        assert_eq!(fs, newsroom_match(&toks("aab"), &toks("aaab")));
        let e = Extractiveness::of(&fs, 3, 4);
        assert!((e.density - 5.0 / 3.0).abs() < 1e-12);
        assert_eq!(e.coverage, 1.0);
    }

    #[test]
    fn first_of_equal_runs_wins() {
        let fs = frag("ab", "xabyab");
        assert_eq!(fs[0].article, 1);
    }

    #[test]
    fn nothing_shared_and_empty_texts() {
        assert!(frag("xyz", "abc").is_empty());
        assert!(frag("", "abc").is_empty());
        assert!(frag("abc", "").is_empty());
        let e = Extractiveness::of(&[], 0, 10);
        assert_eq!((e.coverage, e.density, e.compression), (0.0, 0.0, 0.0));
    }

    #[test]
    fn novel_ngrams_count_distinct_summary_ngrams() {
        let a = toks("abcd");
        let idx = ArticleIndex::new(&a);
        // Summary "a b a x": unigrams {a, b, x}: x novel -> 1/3.
        let s = toks("abax");
        let p1 = novel_ngram_percent(&s, &a, &idx, 1).unwrap();
        assert!((p1 - 100.0 / 3.0).abs() < 1e-9);
        // Bigrams {ab, ba, ax}: only "ab" is in the article -> 2/3.
        let p2 = novel_ngram_percent(&s, &a, &idx, 2).unwrap();
        assert!((p2 - 200.0 / 3.0).abs() < 1e-9);
        // Repeated bigram "ab ab": distinct {ab, ba}, ba novel -> 50%.
        let p = novel_ngram_percent(&toks("abab"), &a, &idx, 2).unwrap();
        assert_eq!(p, 50.0);
        assert_eq!(novel_ngram_percent(&toks("bcd"), &a, &idx, 3), Some(0.0));
        assert_eq!(novel_ngram_percent(&toks("ab"), &a, &idx, 3), None);
        assert_eq!(novel_ngram_percent(&s, &a, &idx, 0), None);
        // An n-gram running past the article's end is not in it.
        assert_eq!(novel_ngram_percent(&toks("dx"), &a, &idx, 2), Some(100.0));
    }

    /// Straightforward novel n-grams: sets of n-gram slices.
    fn novel_reference(s: &[u64], a: &[u64], n: usize) -> Option<f64> {
        use std::collections::BTreeSet;
        let sg: BTreeSet<&[u64]> = s.windows(n).collect();
        let ag: BTreeSet<&[u64]> = a.windows(n).collect();
        if sg.is_empty() {
            return None;
        }
        Some(100.0 * sg.difference(&ag).count() as f64 / sg.len() as f64)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn fast_fragments_equal_newsroom_loop(
            s in proptest::collection::vec(0u64..4, 0..30),
            a in proptest::collection::vec(0u64..4, 0..60),
        ) {
            let idx = ArticleIndex::new(&a);
            prop_assert_eq!(fragments(&s, &a, &idx), newsroom_match(&s, &a));
            for n in NOVEL_NGRAM_SIZES {
                prop_assert_eq!(novel_ngram_percent(&s, &a, &idx, n), novel_reference(&s, &a, n));
            }
        }

        #[test]
        fn fast_fragments_equal_newsroom_loop_on_two_tokens(
            s in proptest::collection::vec(0u64..2, 0..20),
            a in proptest::collection::vec(0u64..2, 0..40),
        ) {
            prop_assert_eq!(fragments(&s, &a, &ArticleIndex::new(&a)), newsroom_match(&s, &a));
        }
    }
}
