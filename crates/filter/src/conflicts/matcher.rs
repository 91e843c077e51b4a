//! One Aho-Corasick automaton over every name, searched once per text.
//!
//! A name string can mean several things at once (two people called "John Smith",
//! "President" as the unqualified form of several positions, "Russia" as a
//! qualifier), so each pattern carries a list of [`NameUse`]s. Matching is ASCII
//! case-folded when asked (the text is lowercased byte for byte, so offsets into
//! the folded text are offsets into the original) and a use that must match with
//! its exact case is checked against the original text. Only matches on word
//! boundaries count: "Biden" does not match in "Bidenomics".

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

/// What a found name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseKind {
    /// A full name (label or alias) of entity `target`.
    Name,
    /// The unqualified form of position `target` ("President"); it counts only when
    /// qualifier group `group` is named too (unless qualifiers are not required).
    Head {
        /// The qualifier group that makes the head this position.
        group: u32,
    },
    /// A qualifier of group `target` ("United States", "US", "American").
    Qualifier,
}

/// One meaning of a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameUse {
    /// What it is.
    pub kind: UseKind,
    /// Entity index (names, heads) or qualifier group (qualifiers).
    pub target: u32,
    /// Index of the original spelling that must match exactly, when case matters.
    exact: Option<u32>,
}

/// A use found in a text: where, and which use of which pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset after the last byte.
    pub end: usize,
    /// The use.
    pub name_use: NameUse,
}

/// Collects names and their uses, then builds the [`Matcher`].
#[derive(Debug, Default)]
pub struct MatcherBuilder {
    fold: bool,
    pattern_ids: HashMap<String, u32>,
    patterns: Vec<String>,
    uses: Vec<Vec<NameUse>>,
    spellings: Vec<Box<str>>,
}

impl MatcherBuilder {
    /// A builder; `fold` = match names without regard to ASCII case.
    pub fn new(fold: bool) -> Self {
        Self {
            fold,
            ..Self::default()
        }
    }

    /// Adds `name` with one meaning. `exact` asks for the exact case even when folding.
    /// Empty names are ignored.
    pub fn add(&mut self, name: &str, kind: UseKind, target: u32, exact: bool) {
        let name = name.trim();
        if name.is_empty() {
            return;
        }
        let key = if self.fold {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        };
        // Without folding, the automaton itself already matches the exact case.
        let exact = (exact && self.fold && key != name).then(|| {
            self.spellings.push(name.into());
            (self.spellings.len() - 1) as u32
        });
        let name_use = NameUse {
            kind,
            target,
            exact,
        };
        let id = match self.pattern_ids.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.patterns.len() as u32;
                self.pattern_ids.insert(key.clone(), id);
                self.patterns.push(key);
                self.uses.push(Vec::new());
                id
            }
        };
        let uses = &mut self.uses[id as usize];
        if !uses.contains(&name_use) {
            uses.push(name_use);
        }
    }

    /// Number of distinct patterns so far.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether no name was added.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Builds the automaton.
    ///
    /// # Errors
    /// When the automaton would exceed the library's size limits (millions of names).
    pub fn build(self) -> Result<Matcher, aho_corasick::BuildError> {
        let automaton = AhoCorasickBuilder::new()
            // Standard semantics: the only kind that reports overlapping matches, so a
            // name is still found when a longer one starting at the same place fails
            // its word-boundary or case check ("Joe" in "Joe Bidenomics").
            .match_kind(MatchKind::Standard)
            // A DFA over 10^5 names takes gigabytes; the contiguous NFA is compact and fast.
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&self.patterns)?;
        let mut offsets = Vec::with_capacity(self.uses.len() + 1);
        let mut uses = Vec::new();
        offsets.push(0u32);
        for u in self.uses {
            uses.extend(u);
            offsets.push(uses.len() as u32);
        }
        Ok(Matcher {
            automaton,
            fold: self.fold,
            offsets,
            uses,
            spellings: self.spellings,
        })
    }
}

/// The automaton and the meanings of its patterns.
#[derive(Debug, Clone)]
pub struct Matcher {
    automaton: AhoCorasick,
    fold: bool,
    /// Uses of pattern `p` are `uses[offsets[p]..offsets[p + 1]]`.
    offsets: Vec<u32>,
    uses: Vec<NameUse>,
    spellings: Vec<Box<str>>,
}

impl Matcher {
    /// Number of patterns.
    pub fn patterns(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Heap memory of the automaton, in bytes.
    pub fn memory_usage(&self) -> usize {
        self.automaton.memory_usage()
    }

    /// Every use of every name found in `text` on word boundaries, in text order.
    pub fn scan(&self, text: &str) -> Vec<Found> {
        let folded;
        let haystack = if self.fold {
            folded = text.to_ascii_lowercase();
            folded.as_str()
        } else {
            text
        };
        let mut found = Vec::new();
        for m in self.automaton.find_overlapping_iter(haystack) {
            let (start, end) = (m.start(), m.end());
            if !on_word_boundaries(haystack, start, end) {
                continue;
            }
            let p = m.pattern().as_usize();
            let (from, to) = (self.offsets[p] as usize, self.offsets[p + 1] as usize);
            for &name_use in &self.uses[from..to] {
                let exact_ok = name_use
                    .exact
                    .is_none_or(|s| text.get(start..end) == Some(&*self.spellings[s as usize]));
                if exact_ok {
                    found.push(Found {
                        start,
                        end,
                        name_use,
                    });
                }
            }
        }
        // The overlapping search reports matches by end; callers want them by start.
        found.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
        found
    }
}

/// Whether `text[start..end]` is not glued to a letter or digit on either side.
/// A side whose edge character is not a word character itself needs no boundary
/// ("Joseph R. Biden Jr." may be followed by anything).
fn on_word_boundaries(text: &str, start: usize, end: usize) -> bool {
    let inner_first = text[start..end].chars().next();
    let inner_last = text[start..end].chars().next_back();
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let glued = |edge: Option<char>, outside: Option<char>| matches!((edge, outside), (Some(e), Some(o)) if is_word_char(e) && is_word_char(o));
    !glued(inner_first, before) && !glued(inner_last, after)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(fold: bool, names: &[(&str, bool)]) -> Matcher {
        let mut b = MatcherBuilder::new(fold);
        for (i, (name, exact)) in names.iter().enumerate() {
            b.add(name, UseKind::Name, i as u32, *exact);
        }
        b.build().unwrap()
    }

    fn targets<'t>(m: &Matcher, text: &'t str) -> Vec<(u32, &'t str)> {
        m.scan(text)
            .into_iter()
            .map(|f| (f.name_use.target, &text[f.start..f.end]))
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

    #[test]
    fn one_pattern_can_have_several_uses() {
        let mut b = MatcherBuilder::new(true);
        b.add("John Smith", UseKind::Name, 1, false);
        b.add("john smith", UseKind::Name, 2, false);
        b.add("John Smith", UseKind::Name, 1, false);
        assert_eq!(b.len(), 1);
        let m = b.build().unwrap();
        let found: Vec<u32> = m
            .scan("John Smith")
            .iter()
            .map(|f| f.name_use.target)
            .collect();
        assert_eq!(found, [1, 2]);
    }
}
