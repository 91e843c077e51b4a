//! The built [`Matcher`]: where each pattern's text is, the index the names are
//! looked up in, and the scan of a text that checks what the index proposes.

use std::cell::RefCell;

use aho_corasick::AhoCorasick;

use super::trie::{Trie, WalkLists};
use super::{prefetch, Few, Found, NameUse, Variant};
use crate::conflicts::words::on_word_boundaries;

/// Where a pattern's text is in [`Matcher::spellings`], and its variant when it
/// has only one and that one needs no exact spelling (almost every pattern): a
/// proposal costs one small record and the text before it is a match.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pattern {
    pub(super) offset: u32,
    pub(super) len: u32,
    pub(super) plain: u32,
}

/// `Pattern::plain` of a pattern with an exact variant or several variants.
pub(super) const NOT_PLAIN: u32 = u32::MAX;

/// Where names are looked up.
#[derive(Debug, Clone)]
pub(super) enum Index {
    /// Whole words: the trie of words.
    Words(Trie),
    /// Anywhere: every occurrence of every name, overlapping ones included.
    Anywhere(AhoCorasick),
}

/// The index of the names and their meanings.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub(super) index: Index,
    /// Every pattern's text (ASCII-lowercased when folding), one after another.
    pub(super) spellings: String,
    /// By pattern id.
    pub(super) patterns: Vec<Pattern>,
    pub(super) skipped: usize,
    pub(super) fold: bool,
    pub(super) pattern_variants: Vec<Few<u32>>,
    pub(super) variants: Vec<Variant>,
}

impl Matcher {
    /// Number of patterns.
    pub fn patterns(&self) -> usize {
        self.patterns.len()
    }

    /// Names left out because they do not start with a letter or digit.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Heap memory of the trie and the patterns, in bytes.
    pub fn memory_usage(&self) -> usize {
        let index = match &self.index {
            Index::Words(trie) => trie.memory_usage(),
            Index::Anywhere(automaton) => automaton.memory_usage(),
        };
        index + self.spellings.len() + self.patterns.len() * size_of::<Pattern>()
    }

    /// The text of a pattern.
    fn spelling(&self, pattern: &Pattern) -> &str {
        let from = pattern.offset as usize;
        self.spellings
            .get(from..from + pattern.len as usize)
            .unwrap_or_default()
    }

    /// The meanings of a variant.
    pub fn uses(&self, variant: u32) -> &[NameUse] {
        self.variants
            .get(variant as usize)
            .map_or(&[], |v| v.uses.as_slice())
    }

    /// Every name found in `text` on word boundaries (and with its exact case where
    /// asked), ordered by start, longest first.
    pub fn scan(&self, text: &str) -> Vec<Found> {
        thread_local! {
            static LISTS: RefCell<WalkLists> = RefCell::default();
        }
        LISTS.with_borrow_mut(|lists| self.scan_with(text, lists))
    }

    fn scan_with(&self, text: &str, lists: &mut WalkLists) -> Vec<Found> {
        match &self.index {
            Index::Words(trie) => trie.walk(text, lists),
            Index::Anywhere(automaton) => {
                lists.proposals.clear();
                let found = automaton.find_overlapping_iter(text);
                lists
                    .proposals
                    .extend(found.map(|m| (m.start(), m.pattern().as_u32())));
            }
        }
        let proposals = &lists.proposals;
        // Each check reads a pattern's record and then its text: both fetched
        // for every proposal first, so the misses overlap.
        for &(_, p) in proposals {
            if let Some(pattern) = self.patterns.get(p as usize) {
                prefetch(pattern);
            }
        }
        for &(_, p) in proposals {
            if let Some(pattern) = self.patterns.get(p as usize) {
                if let Some(first) = self.spellings.as_bytes().get(pattern.offset as usize) {
                    prefetch(first);
                }
            }
        }
        let mut found = Vec::with_capacity(proposals.len());
        for &(at, pattern) in proposals {
            self.record(text, at, pattern, &mut found);
        }
        // Callers read each match's meanings next.
        for f in &found {
            if let Some(variant) = self.variants.get(f.variant as usize) {
                prefetch(variant);
            }
        }
        // Walks report a start's matches shortest first; callers want longest first.
        // (The variant settles ties, so the order is total: an unstable sort,
        // which needs no scratch memory, gives the same order every time.)
        found.sort_unstable_by_key(|f| (f.start, std::cmp::Reverse(f.end), f.variant));
        found
    }

    /// Checks the pattern a walk proposes at byte `at` against the text (bytes and
    /// boundaries) and records its variants that hold.
    fn record(&self, text: &str, at: usize, pattern: u32, found: &mut Vec<Found>) {
        let Some(info) = self.patterns.get(pattern as usize) else {
            return;
        };
        let spelling = self.spelling(info);
        let end = at + spelling.len();
        let Some(span) = text.as_bytes().get(at..end) else {
            return;
        };
        let same = if self.fold {
            span.eq_ignore_ascii_case(spelling.as_bytes())
        } else {
            span == spelling.as_bytes()
        };
        // Equal bytes start and end on character boundaries; checked anyway, as
        // slicing needs it.
        let whole_words = matches!(self.index, Index::Words(_));
        if !same
            || !text.is_char_boundary(at)
            || !text.is_char_boundary(end)
            || (whole_words && !on_word_boundaries(text, at, end))
        {
            return;
        }
        if info.plain != NOT_PLAIN {
            found.push(Found {
                start: at,
                end,
                variant: info.plain,
            });
            return;
        }
        let Some(variants) = self.pattern_variants.get(pattern as usize) else {
            return;
        };
        for &variant in variants.as_slice() {
            let exact_ok = match &self.variants[variant as usize].exact {
                Some(exact) => text.get(at..end) == Some(&**exact),
                None => true,
            };
            if exact_ok {
                found.push(Found {
                    start: at,
                    end,
                    variant,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conflicts::matcher::testing::{matcher, targets};
    use crate::conflicts::matcher::MatcherBuilder;

    #[test]
    fn only_whole_words_match() {
        let m = matcher(false, &[("Biden", false), ("Joe Biden", false)]);
        assert_eq!(targets(&m, "Bidenomics and Biden's plan"), [(0, "Biden")]);
        assert!(targets(&m, "ABiden").is_empty());
        assert_eq!(
            targets(&m, "Joe Biden-Harris"),
            [(1, "Joe Biden"), (0, "Biden")]
        );
        assert_eq!(targets(&m, "(Biden)"), [(0, "Biden")]);
        assert!(targets(&m, "Biden2024").is_empty());
    }

    #[test]
    fn names_match_inside_words_when_whole_words_are_off() {
        let mut b = MatcherBuilder::new(true).whole_words(false);
        b.add("Biden", NameUse::Name(0), false);
        b.add("Joe Biden", NameUse::Name(1), false);
        b.add("US", NameUse::Name(2), true);
        let m = b.build().unwrap();
        assert_eq!(
            targets(&m, "Bidenomics, JOE BIDENs, ABiden, thus US"),
            [
                (0, "Biden"),
                (1, "JOE BIDEN"),
                (0, "BIDEN"),
                (0, "Biden"),
                (2, "US")
            ]
        );
        assert!(targets(&m, "Bide n").is_empty());
    }

    #[test]
    fn a_failed_long_match_does_not_hide_a_shorter_one() {
        let m = matcher(false, &[("Joe", false), ("Joe Biden", false)]);
        assert_eq!(targets(&m, "Joe Bidenomics"), [(0, "Joe")]);
    }

    #[test]
    fn folding_is_ascii_case_insensitive_with_exact_uses_checked() {
        let m = matcher(true, &[("Prime Minister", false), ("US", true)]);
        assert_eq!(targets(&m, "the prime minister"), [(0, "prime minister")]);
        assert_eq!(targets(&m, "the US and us"), [(1, "US")]);
        let strict = matcher(false, &[("Prime Minister", false)]);
        assert!(targets(&strict, "the prime minister").is_empty());
    }

    #[test]
    fn non_ascii_text_keeps_offsets_and_boundaries() {
        let m = matcher(true, &[("Macron", false), ("Élysée", false)]);
        assert_eq!(
            targets(&m, "À l'Élysée, MACRON dit"),
            [(1, "Élysée"), (0, "MACRON")]
        );
        assert!(targets(&m, "éMacron").is_empty());
    }

    #[test]
    fn edges_that_are_not_word_characters_need_no_boundary() {
        let m = matcher(false, &[("Joseph R. Biden Jr.", false)]);
        assert_eq!(targets(&m, "Joseph R. Biden Jr.said").len(), 1);
    }

    /// Every occurrence of every name, by brute force: the reference for `scan`.
    fn naive(names: &[&str], fold: bool, text: &str) -> Vec<(usize, usize, String)> {
        let norm = |s: &str| {
            if fold {
                s.to_ascii_lowercase()
            } else {
                s.to_string()
            }
        };
        let hay = norm(text);
        let mut all = Vec::new();
        for name in names {
            let needle = norm(name.trim());
            for (at, _) in hay.match_indices(&needle) {
                let end = at + needle.len();
                if on_word_boundaries(text, at, end) {
                    all.push((at, end, needle.clone()));
                }
            }
        }
        all.sort_by_key(|(s, e, _)| (*s, std::cmp::Reverse(*e)));
        all.dedup();
        all
    }

    fn scanned(m: &Matcher, text: &str) -> Vec<(usize, usize, String)> {
        let mut all: Vec<_> = m
            .scan(text)
            .into_iter()
            .map(|f| {
                (
                    f.start,
                    f.end,
                    m.spelling(&m.patterns[f.variant as usize]).to_string(),
                )
            })
            .collect();
        all.dedup();
        all
    }

    #[test]
    fn scan_finds_what_a_naive_search_finds_even_when_keys_collide() {
        let names = [
            "Joe",
            "Joe Biden",
            "Joe  Biden",
            "Joseph R. Biden Jr.",
            "Biden",
            "Prime Minister",
            "Prime Minister of the United Kingdom",
            "United Kingdom",
            "Élysée",
            "Palais de l'Élysée",
            "O'Brien",
            "10 Downing Street",
            "Jr",
        ];
        let pieces = [
            "Joe",
            "joe",
            "JOE",
            "Biden",
            "biden",
            "Bidenomics",
            "Joseph",
            "R.",
            "R",
            "Jr.",
            "Jr",
            "Prime",
            "prime",
            "Minister",
            "of",
            "the",
            "United",
            "Kingdom",
            "Élysée",
            "élysée",
            "Palais",
            "de",
            "l'Élysée",
            "O'Brien",
            "O",
            "Brien",
            "10",
            "Downing",
            "Street",
            "x_Joe",
            "Joe2",
        ];
        let separators = [" ", "  ", ", ", "-", "\n", "'", "", " — "];
        let mut state = 11u64;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % n
        };
        for fold in [true, false] {
            let mut b = MatcherBuilder::new(fold);
            for (i, name) in names.iter().enumerate() {
                b.add(name, NameUse::Name(i as u32), false);
            }
            let m = b.build().unwrap();
            let mut crowded = m.clone();
            let texts: Vec<&str> = m.patterns.iter().map(|p| m.spelling(p)).collect();
            crowded.index = Index::Words(Trie::build_with_key_mask(&texts, fold, 7).unwrap());
            // Variants are patterns here (one meaning each, no exact spellings).
            m.variants.iter().for_each(|v| assert!(v.exact.is_none()));
            for _ in 0..400 {
                let mut text = String::new();
                for _ in 0..next(14) {
                    text.push_str(pieces[next(pieces.len())]);
                    text.push_str(separators[next(separators.len())]);
                }
                let expected = naive(&names, fold, &text);
                assert_eq!(scanned(&m, &text), expected, "fold {fold}: {text:?}");
                assert_eq!(
                    scanned(&crowded, &text),
                    expected,
                    "crowded, fold {fold}: {text:?}"
                );
            }
        }
    }
}
