//! Every name in one trie over words, walked from the word starts of a text.
//!
//! A name string can mean several things at once (two people called "John Smith",
//! "President" as the unqualified form of several positions, "Russia" as a
//! qualifier). Each pattern has one or two variants (any case, or an exact
//! spelling), and each variant a list of [`NameUse`]s; a scan reports variants,
//! so its cost does not grow with how many things a name means.
//!
//! Names only count on word boundaries ("Biden" is not in "Bidenomics"), so a
//! match starts at a word start and covers whole words: the words of a name are
//! the words of the text it matches, in order. The trie is therefore built over
//! words, not bytes: the goto graph of an Aho-Corasick automaton whose alphabet
//! is words. A scan hashes each word of the text once, asks a small first-word
//! filter whether any name starts with it, and only then walks the trie, one
//! hash-table lookup per word ([`trie`]), so a 10^5-name dictionary costs a cache
//! miss or two per candidate word instead of one per byte. Matches never start
//! inside a word, so the walks are anchored and need no failure links; every
//! match starting at a word start is found, overlapping ones included ("Joe" when
//! "Joe Biden" fails its end boundary in "Joe Bidenomics"). A walk only proposes
//! a name: the text's bytes are then compared with the name's (separators and
//! punctuation included: "Joseph R. Biden Jr.") and the boundaries checked, so a
//! hash collision with a text word can never make a false match. Names must start
//! with a letter or digit.
//!
//! Matching is ASCII case-folded when asked (words are hashed lowercased and
//! compared ignoring ASCII case, so offsets are offsets into the original text)
//! and an exact variant is checked against the original text.
//!
//! Whole words are the default. With [`MatcherBuilder::whole_words`] off, names
//! match anywhere, inside longer words too ("Biden" in "Bidenomics"), which a
//! walk from word starts cannot find: one aho-corasick automaton over every name
//! then reports every occurrence, overlapping ones included.

use std::cell::RefCell;
use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};

mod trie;
use trie::{Trie, WalkLists};

use super::words::on_word_boundaries;
use crate::error::FilterError;

/// One meaning of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameUse {
    /// A full name (label or alias) of this entity.
    Name(u32),
    /// The unqualified form of one or more positions ("President"); which ones it
    /// stands for depends on the qualifiers the article names (see `Dictionary`).
    Head,
    /// A qualifier of one or more positions ("United States", "US", "American"),
    /// by qualifier number: with a head, it names those of its positions that
    /// have that head (see `Dictionary::licensed_by`).
    Qualifier(u32),
}

/// A name found in a text: where, and which variant (spelling and meanings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset after the last byte.
    pub end: usize,
    /// The variant; its meanings are [`Matcher::uses`].
    pub variant: u32,
}

/// A spelling of a pattern: exact (checked against the original text) or any
/// case, with the meanings it has.
#[derive(Debug, Clone)]
struct Variant {
    exact: Option<Box<str>>,
    uses: Few<NameUse>,
}

/// A short list kept inline when it has one element (almost every pattern has
/// one variant and every variant one use; 10^5 small vectors cost more to
/// allocate than the trie takes to build).
#[derive(Debug, Clone)]
enum Few<T> {
    One([T; 1]),
    Many(Vec<T>),
}

impl<T: Copy + PartialEq> Few<T> {
    fn as_slice(&self) -> &[T] {
        match self {
            Self::One(one) => one,
            Self::Many(many) => many,
        }
    }

    fn push_unique(&mut self, item: T) {
        if self.as_slice().contains(&item) {
            return;
        }
        match self {
            Self::One([first]) => *self = Self::Many(vec![*first, item]),
            Self::Many(many) => many.push(item),
        }
    }
}

/// Collects names and their meanings, then builds the [`Matcher`].
#[derive(Debug, Default)]
pub struct MatcherBuilder {
    fold: bool,
    anywhere: bool,
    pattern_ids: HashMap<Box<str>, u32>,
    /// Variant ids of each pattern.
    pattern_variants: Vec<Few<u32>>,
    variants: Vec<Variant>,
    /// Names skipped because they do not start with a letter or digit.
    skipped: usize,
}

impl MatcherBuilder {
    /// A builder; `fold` = match names without regard to ASCII case.
    pub fn new(fold: bool) -> Self {
        Self {
            fold,
            ..Self::default()
        }
    }

    /// Whether names match only as whole words (the default: "Biden" is not in
    /// "Bidenomics"). Off: anywhere, inside longer words too, found with an
    /// Aho-Corasick automaton over every name (overlapping matches) instead of the
    /// trie of words.
    pub fn whole_words(mut self, on: bool) -> Self {
        self.anywhere = !on;
        self
    }

    /// Adds `name` with one meaning and returns its variant id (`None` for a name
    /// that is empty or does not start with a letter or digit). `exact` asks for
    /// the exact case even when folding.
    pub fn add(&mut self, name: &str, name_use: NameUse, exact: bool) -> Option<u32> {
        let name = name.trim();
        if !name.chars().next().is_some_and(char::is_alphanumeric) {
            self.skipped += usize::from(!name.is_empty());
            return None;
        }
        let key: Box<str> = if self.fold {
            name.to_ascii_lowercase().into()
        } else {
            name.into()
        };
        // Without folding, the byte comparison already checks the exact case.
        let exact: Option<Box<str>> = (exact && self.fold && *key != *name).then(|| name.into());
        let next_pattern = self.pattern_variants.len() as u32;
        let pattern = *self.pattern_ids.entry(key).or_insert(next_pattern) as usize;
        let existing = self.pattern_variants.get(pattern).and_then(|vs| {
            vs.as_slice()
                .iter()
                .copied()
                .find(|v| self.variants[*v as usize].exact == exact)
        });
        let variant = match existing {
            Some(v) => v,
            None => {
                let id = self.variants.len() as u32;
                self.variants.push(Variant {
                    exact,
                    uses: Few::One([name_use]),
                });
                match self.pattern_variants.get_mut(pattern) {
                    Some(vs) => vs.push_unique(id),
                    None => self.pattern_variants.push(Few::One([id])),
                }
                return Some(id);
            }
        };
        self.variants[variant as usize].uses.push_unique(name_use);
        Some(variant)
    }

    /// Number of distinct patterns so far.
    pub fn len(&self) -> usize {
        self.pattern_variants.len()
    }

    /// Whether no name was added.
    pub fn is_empty(&self) -> bool {
        self.pattern_variants.is_empty()
    }

    /// Names skipped because they do not start with a letter or digit.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Builds the trie.
    ///
    /// # Errors
    /// When the names are too many for the trie to number (2^31 patterns or word
    /// sequences, 4 GiB of text).
    pub fn build(self) -> Result<Matcher, FilterError> {
        let mut by_id: Vec<(u32, Box<str>)> = self
            .pattern_ids
            .into_iter()
            .map(|(k, id)| (id, k))
            .collect();
        by_id.sort_unstable_by_key(|(id, _)| *id);
        let mut spellings = String::with_capacity(by_id.iter().map(|(_, p)| p.len()).sum());
        let mut patterns = Vec::with_capacity(by_id.len());
        for ((_, text), variants) in by_id.iter().zip(&self.pattern_variants) {
            let (Ok(offset), Ok(len)) = (u32::try_from(spellings.len()), u32::try_from(text.len()))
            else {
                return Err(FilterError::TooManyNames(
                    "the names have more than 4 GiB of text".into(),
                ));
            };
            spellings.push_str(text);
            let plain = match variants.as_slice() {
                [v] if self.variants[*v as usize].exact.is_none() => *v,
                _ => NOT_PLAIN,
            };
            patterns.push(Pattern { offset, len, plain });
        }
        let texts: Vec<&str> = by_id.iter().map(|(_, p)| &**p).collect();
        let index = if self.anywhere {
            let automaton = AhoCorasick::builder()
                .ascii_case_insensitive(self.fold)
                .match_kind(MatchKind::Standard)
                .build(&texts)
                .map_err(|e| FilterError::TooManyNames(e.to_string()))?;
            Index::Anywhere(automaton)
        } else {
            Index::Words(Trie::build(&texts, self.fold)?)
        };
        Ok(Matcher {
            index,
            spellings,
            patterns,
            skipped: self.skipped,
            fold: self.fold,
            pattern_variants: self.pattern_variants,
            variants: self.variants,
        })
    }
}

/// Where a pattern's text is in [`Matcher::spellings`], and its variant when it
/// has only one and that one needs no exact spelling (almost every pattern): a
/// proposal costs one small record and the text before it is a match.
#[derive(Debug, Clone, Copy)]
struct Pattern {
    offset: u32,
    len: u32,
    plain: u32,
}

/// `Pattern::plain` of a pattern with an exact variant or several variants.
const NOT_PLAIN: u32 = u32::MAX;

/// Where names are looked up.
#[derive(Debug, Clone)]
enum Index {
    /// Whole words: the trie of words.
    Words(Trie),
    /// Anywhere: every occurrence of every name, overlapping ones included.
    Anywhere(AhoCorasick),
}

/// The index of the names and their meanings.
#[derive(Debug, Clone)]
pub struct Matcher {
    index: Index,
    /// Every pattern's text (ASCII-lowercased when folding), one after another.
    spellings: String,
    /// By pattern id.
    patterns: Vec<Pattern>,
    skipped: usize,
    fold: bool,
    pattern_variants: Vec<Few<u32>>,
    variants: Vec<Variant>,
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

/// Asks the processor to fetch the cache line of `item` (where the hint exists):
/// issued for many lookups before any of them is made, their misses overlap.
#[inline]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing into the program and
    // cannot fault (and `item` is a valid reference anyway).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            std::ptr::from_ref(item).cast(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(fold: bool, names: &[(&str, bool)]) -> Matcher {
        let mut b = MatcherBuilder::new(fold);
        for (i, (name, exact)) in names.iter().enumerate() {
            b.add(name, NameUse::Name(i as u32), *exact);
        }
        b.build().unwrap()
    }

    fn targets<'t>(m: &Matcher, text: &'t str) -> Vec<(u32, &'t str)> {
        m.scan(text)
            .into_iter()
            .flat_map(|f| {
                m.uses(f.variant).iter().map(move |u| match u {
                    NameUse::Name(e) => (*e, &text[f.start..f.end]),
                    other => panic!("{other:?}"),
                })
            })
            .collect()
    }

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
    fn names_must_start_with_a_letter_or_digit() {
        let mut b = MatcherBuilder::new(true);
        assert_eq!(b.add("'Ndrangheta", NameUse::Name(0), false), None);
        assert_eq!(b.add("   ", NameUse::Name(1), false), None);
        assert!(b
            .add("10 Downing Street", NameUse::Name(2), false)
            .is_some());
        let m = b.build().unwrap();
        assert_eq!(m.skipped(), 1);
        assert_eq!(m.patterns(), 1);
    }

    #[test]
    fn edges_that_are_not_word_characters_need_no_boundary() {
        let m = matcher(false, &[("Joseph R. Biden Jr.", false)]);
        assert_eq!(targets(&m, "Joseph R. Biden Jr.said").len(), 1);
    }

    #[test]
    fn spellings_share_a_pattern_and_meanings_share_a_variant() {
        let mut b = MatcherBuilder::new(true);
        let v1 = b.add("John Smith", NameUse::Name(1), false);
        let v2 = b.add("john smith", NameUse::Name(2), false);
        assert_eq!(v1, v2);
        b.add("John Smith", NameUse::Name(1), false);
        let exact = b.add("JOHN SMITH", NameUse::Name(3), true);
        assert_ne!(exact, v1);
        assert_eq!(b.len(), 1);
        let m = b.build().unwrap();
        assert_eq!(
            targets(&m, "John Smith"),
            [(1, "John Smith"), (2, "John Smith")]
        );
        assert_eq!(targets(&m, "JOHN SMITH").len(), 3);
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
