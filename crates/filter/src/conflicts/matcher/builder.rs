//! Collecting names and their meanings, and building the [`Matcher`] from them:
//! one pattern per spelling, its variants, and the index they are looked up in.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};

use super::scan::{Index, Pattern, NOT_PLAIN};
use super::trie::Trie;
use super::{Few, Matcher, NameUse, Variant};
use crate::error::FilterError;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conflicts::matcher::testing::targets;

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
}
