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
//! hash-table lookup per word (the `trie` module), so a 10^5-name dictionary costs a cache
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

mod builder;
mod scan;
mod trie;

pub use builder::MatcherBuilder;
pub use scan::Matcher;

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

/// What the matcher's tests share: a matcher of entity names and what it finds.
#[cfg(test)]
mod testing {
    use super::*;

    /// A matcher where name `i` of `names` (with whether its case must be exact)
    /// names entity `i`.
    pub(super) fn matcher(fold: bool, names: &[(&str, bool)]) -> Matcher {
        let mut b = MatcherBuilder::new(fold);
        for (i, (name, exact)) in names.iter().enumerate() {
            b.add(name, NameUse::Name(i as u32), *exact);
        }
        b.build().unwrap()
    }

    /// What `m` finds in `text`: (entity, the text it matched), one per meaning.
    pub(super) fn targets<'t>(m: &Matcher, text: &'t str) -> Vec<(u32, &'t str)> {
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
}
