//! The trie of names over words, and its walks.
//!
//! A node is a sequence of words that begins some name; an edge is one more word.
//! Edges live in one hash table keyed by (node, hash of the word), so a step of a
//! walk is a single lookup wherever the node is, and the table holds nothing but
//! edges (no per-node child lists to chase). The value of an edge is the child
//! with two flags, whether it has children and whether names end there, so a walk
//! stops or proposes names without touching the node's own data.
//!
//! Keys are hashes, and two (node, word) pairs may share one: they then share a
//! child, and a walk through it may propose a name the text does not hold. The
//! matcher compares each proposed name with the text, so this costs a comparison,
//! never a match; and no name is ever missed, since a text that holds a name hashes
//! the same words as its insertion did and walks exactly the same path.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::conflicts::words::{for_each_word, next_word, word_hash, FirstWordFilter};
use crate::error::FilterError;

/// The root: the empty sequence of words.
const ROOT: u32 = 0;
/// Flag of an edge's value: its child has children.
const HAS_CHILDREN: u32 = 1;
/// Flag of an edge's value: names end at its child.
const HAS_NAMES: u32 = 2;
const FLAG_BITS: u32 = 2;
/// Node numbers must fit beside the flags.
const MAX_NODES: usize = 1 << (32 - FLAG_BITS);

/// Hashes a key that already is a hash: itself.
#[derive(Debug, Default, Clone, Copy)]
struct KeyIsHash(u64);

impl Hasher for KeyIsHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used (keys are u64); anything else is still hashed.
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// The trie: edges, the names ending at each node, and the first-word filter.
#[derive(Debug, Clone)]
pub(super) struct Trie {
    fold: bool,
    /// Bits of a key that are kept: all of them, except in tests that force
    /// collisions.
    key_mask: u64,
    first_words: FirstWordFilter,
    /// key(node, word) -> child << FLAG_BITS | flags.
    edges: HashMap<u64, u32, BuildHasherDefault<KeyIsHash>>,
    /// The patterns ending at node `n` are `ending[ends[n]..ends[n + 1]]`.
    ends: Vec<u32>,
    ending: Vec<u32>,
}

impl Trie {
    /// The trie of `patterns` (ASCII-lowercased already when `fold`), each known
    /// by its index. A pattern that does not start with a word is left out (the
    /// builder never passes one: it could not match on a word boundary).
    pub(super) fn build(patterns: &[Box<str>], fold: bool) -> Result<Self, FilterError> {
        Self::build_with_key_mask(patterns, fold, u64::MAX)
    }

    pub(super) fn build_with_key_mask(
        patterns: &[Box<str>],
        fold: bool,
        key_mask: u64,
    ) -> Result<Self, FilterError> {
        let mut edges: HashMap<u64, u32, BuildHasherDefault<KeyIsHash>> =
            HashMap::with_capacity_and_hasher(patterns.len() * 2, Default::default());
        // Flags of each node, by node number; the root is node 0.
        let mut flags: Vec<u32> = vec![0];
        let mut ending: Vec<(u32, u32)> = Vec::with_capacity(patterns.len());
        let mut firsts: Vec<u64> = Vec::with_capacity(patterns.len());
        for (id, pattern) in patterns.iter().enumerate() {
            if next_word(pattern, 0).is_none_or(|(start, _)| start != 0) {
                continue;
            }
            let (mut node, mut at) = (ROOT, 0);
            while let Some((start, end)) = next_word(pattern, at) {
                let hash = word_hash(&pattern.as_bytes()[start..end], fold);
                if node == ROOT {
                    firsts.push(hash);
                }
                let fresh = flags.len() as u32;
                let child = *edges
                    .entry(edge_key(node, hash) & key_mask)
                    .or_insert(fresh);
                if child == fresh {
                    if flags.len() >= MAX_NODES {
                        return Err(FilterError::Automaton(format!(
                            "the names have more than {MAX_NODES} distinct word sequences"
                        )));
                    }
                    flags.push(0);
                }
                flags[node as usize] |= HAS_CHILDREN;
                (node, at) = (child, end);
            }
            flags[node as usize] |= HAS_NAMES;
            ending.push((node, id as u32));
        }
        for value in edges.values_mut() {
            *value = *value << FLAG_BITS | flags[*value as usize];
        }
        ending.sort_unstable();
        let mut ends = vec![0u32; flags.len() + 1];
        for &(node, _) in &ending {
            ends[node as usize + 1] += 1;
        }
        for n in 1..ends.len() {
            ends[n] += ends[n - 1];
        }
        firsts.sort_unstable();
        firsts.dedup();
        let mut first_words = FirstWordFilter::with_capacity(firsts.len());
        for &hash in &firsts {
            first_words.insert(hash);
        }
        Ok(Self {
            fold,
            key_mask,
            first_words,
            edges,
            ends,
            ending: ending.into_iter().map(|(_, id)| id).collect(),
        })
    }

    /// Heap memory, in bytes (the table's buckets and control bytes included).
    pub(super) fn memory_usage(&self) -> usize {
        self.edges.capacity() * (size_of::<(u64, u32)>() + 1)
            + (self.ends.capacity() + self.ending.capacity()) * size_of::<u32>()
            + self.first_words.memory_usage()
    }

    /// Walks from every word of `text` that may start a name and calls
    /// `propose(start, pattern)` for each pattern whose words the text has there,
    /// shortest first. The caller compares the pattern with the text.
    pub(super) fn walk(&self, text: &str, propose: impl FnMut(usize, u32)) {
        if self.fold {
            self.walk_with::<true>(text, propose);
        } else {
            self.walk_with::<false>(text, propose);
        }
    }

    fn walk_with<const FOLD: bool>(&self, text: &str, mut propose: impl FnMut(usize, u32)) {
        let bytes = text.as_bytes();
        for_each_word(text, |start, end| {
            let hash = word_hash(&bytes[start..end], FOLD);
            if !self.first_words.may_contain(hash) {
                return;
            }
            let (mut key, mut at) = (edge_key(ROOT, hash), end);
            while let Some(&value) = self.edges.get(&(key & self.key_mask)) {
                let node = value >> FLAG_BITS;
                if value & HAS_NAMES != 0 {
                    for &pattern in self.names_at(node) {
                        propose(start, pattern);
                    }
                }
                if value & HAS_CHILDREN == 0 {
                    break;
                }
                let Some((next, next_end)) = next_word(text, at) else {
                    break;
                };
                key = edge_key(node, word_hash(&bytes[next..next_end], FOLD));
                at = next_end;
            }
        });
    }

    /// The patterns that end at `node`.
    fn names_at(&self, node: u32) -> &[u32] {
        let n = node as usize;
        match (self.ends.get(n), self.ends.get(n + 1)) {
            (Some(&from), Some(&to)) => self.ending.get(from as usize..to as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// The key of the edge from `node` by the word with hash `word`.
#[inline]
fn edge_key(node: u32, word: u64) -> u64 {
    word ^ u64::from(node).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposals(trie: &Trie, text: &str) -> Vec<(usize, u32)> {
        let mut all = Vec::new();
        trie.walk(text, |at, p| all.push((at, p)));
        all
    }

    fn patterns(names: &[&str]) -> Vec<Box<str>> {
        names.iter().map(|n| Box::from(*n)).collect()
    }

    #[test]
    fn walks_propose_names_by_their_words_shortest_first() {
        let names = patterns(&["joe", "joe biden", "biden", "joseph r. biden jr."]);
        let trie = Trie::build(&names, true).unwrap();
        // The walk goes by words only: "Joseph R Biden Jr" has the words of
        // pattern 3 (the matcher then finds its dots missing).
        assert_eq!(
            proposals(&trie, "Joe BIDEN, or Joseph R Biden Jr"),
            [(0, 0), (0, 1), (4, 2), (14, 3), (23, 2)]
        );
        assert!(proposals(&trie, "Bidenomics Joey").is_empty());
        let exact = Trie::build(&patterns(&["Joe", "Joe Biden"]), false).unwrap();
        assert_eq!(proposals(&exact, "joe Joe biden"), [(4, 0)]);
    }

    #[test]
    fn colliding_keys_add_proposals_but_never_lose_one() {
        let names = patterns(&[
            "joe",
            "joe biden",
            "prime minister",
            "prime minister of the united kingdom",
            "united kingdom",
            "élysée palace",
            "kamala harris",
        ]);
        let text = "The Prime Minister of the United Kingdom met Joe Biden and \
                    Kamala Harris at the Élysée Palace; joe prime kingdom united.";
        let exact = proposals(&Trie::build(&names, true).unwrap(), text);
        assert_eq!(exact.len(), 7, "{exact:?}");
        for mask in [0, 1, 3, 15] {
            let crowded = proposals(
                &Trie::build_with_key_mask(&names, true, mask).unwrap(),
                text,
            );
            for p in &exact {
                assert!(
                    crowded.contains(p),
                    "mask {mask}: {p:?} lost in {crowded:?}"
                );
            }
            assert!(crowded.len() > exact.len(), "mask {mask} should collide");
        }
    }

    #[test]
    fn patterns_that_do_not_start_with_a_word_are_left_out() {
        let trie = Trie::build(&patterns(&["'ndrangheta", "", "--"]), true).unwrap();
        assert!(proposals(&trie, "'Ndrangheta ndrangheta --").is_empty());
    }
}
