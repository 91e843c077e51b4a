//! The trie of names over words, and its walks.
//!
//! A node is a sequence of words that begins some name; an edge is one more word.
//! Edges live in one open-addressing table keyed by (node, hash of the word), so
//! a step of a walk is a single lookup wherever the node is. A slot holds the
//! key, the child, whether the child has children, and the names that end at the
//! child (the name itself when one does, as almost always), all in 16 bytes: a
//! step costs one cache line, and a walk stops or proposes names without touching
//! anything else, and the walks can fetch it ahead ([`Trie::walk`]). (`std`'s
//! `HashMap` keeps its control bytes apart from its entries: two lines per
//! lookup, and no way to fetch them ahead.)
//!
//! Keys are hashes, and two (node, word) pairs may share one: they then share a
//! child, and a walk through it may propose a name the text does not hold. The
//! matcher compares each proposed name with the text, so this costs a comparison,
//! never a match; and no name is ever missed, since a text that holds a name hashes
//! the same words as its insertion did and walks exactly the same path.

use std::collections::HashMap;

use super::prefetch;
use crate::conflicts::words::{for_each_word, next_word, word_hash, FirstWordFilter};
use crate::error::FilterError;

/// The root: the empty sequence of words.
const ROOT: u32 = 0;
/// Node numbers must fit beside the has-children flag, and pattern ids beside
/// the flag that marks a list.
const MAX_NODES: usize = 1 << 31;
const MAX_PATTERNS: usize = (1 << 31) - 1;
/// `Slot::names` of a child no name ends at.
const NO_NAME: u32 = u32::MAX;
/// `Slot::names` of a child several names end at: the rest is where they start
/// in `Trie::lists`; the last of each list is marked the same way.
const LIST: u32 = 1 << 31;

/// One edge: 16 bytes, four to a cache line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
struct Slot {
    key: u64,
    /// child << 1 | whether the child has children; 0 for an empty slot (the
    /// root is nobody's child).
    child: u32,
    /// The name ending at the child, a [`LIST`] of them, or [`NO_NAME`].
    names: u32,
}

const EMPTY: Slot = Slot {
    key: 0,
    child: 0,
    names: NO_NAME,
};

/// The lists a walk works in, kept from one text to the next so that a scan
/// allocates nothing once they have grown to the size of the texts.
#[derive(Debug, Default)]
pub(super) struct WalkLists {
    /// (start of the walk, end of its last word, key of its next edge).
    walks: Vec<(usize, usize, u64)>,
    next_round: Vec<(usize, usize, u64)>,
    /// (start, pattern): what the walks found, for the caller to check.
    pub(super) proposals: Vec<(usize, u32)>,
}

/// The trie: edges, lists of names, and the first-word filter.
#[derive(Debug, Clone)]
pub(super) struct Trie {
    fold: bool,
    /// Bits of a key that are kept: all of them, except in tests that force
    /// collisions.
    key_mask: u64,
    first_words: FirstWordFilter,
    /// Linear probing, at most half full.
    slots: Vec<Slot>,
    slot_mask: usize,
    /// Names of nodes with several, each list's last marked with [`LIST`].
    lists: Vec<u32>,
}

impl Trie {
    /// The trie of `patterns` (ASCII-lowercased already when `fold`), each known
    /// by its index. A pattern that does not start with a word is left out (the
    /// builder never passes one: it could not match on a word boundary).
    pub(super) fn build(patterns: &[&str], fold: bool) -> Result<Self, FilterError> {
        Self::build_with_key_mask(patterns, fold, u64::MAX)
    }

    pub(super) fn build_with_key_mask(
        patterns: &[&str],
        fold: bool,
        key_mask: u64,
    ) -> Result<Self, FilterError> {
        if patterns.len() > MAX_PATTERNS {
            return Err(too_many("names", MAX_PATTERNS));
        }
        // Built in a map (key -> child), then laid out in slots.
        let mut edges: HashMap<u64, u32> = HashMap::with_capacity(patterns.len() * 2);
        let mut has_children: Vec<bool> = vec![false];
        let mut ending: Vec<(u32, u32)> = Vec::with_capacity(patterns.len());
        let mut firsts: Vec<u64> = Vec::with_capacity(patterns.len());
        for (id, pattern) in patterns.iter().enumerate() {
            if next_word(pattern, 0).is_none_or(|(start, _)| start != 0) {
                continue;
            }
            let (mut node, mut at) = (ROOT, 0);
            while let Some((start, end)) = next_word(pattern, at) {
                let hash = word_hash(pattern.as_bytes(), start, end, fold);
                if node == ROOT {
                    firsts.push(hash);
                }
                let fresh = has_children.len() as u32;
                let child = *edges
                    .entry(edge_key(node, hash) & key_mask)
                    .or_insert(fresh);
                if child == fresh {
                    if has_children.len() >= MAX_NODES {
                        return Err(too_many("distinct word sequences", MAX_NODES));
                    }
                    has_children.push(false);
                }
                has_children[node as usize] = true;
                (node, at) = (child, end);
            }
            ending.push((node, id as u32));
        }
        // The names of each node: one inline, several in a list.
        ending.sort_unstable();
        let mut names = vec![NO_NAME; has_children.len()];
        let mut lists = Vec::new();
        for group in ending.chunk_by(|a, b| a.0 == b.0) {
            let node = group[0].0 as usize;
            if let [(_, single)] = group {
                names[node] = *single;
                continue;
            }
            names[node] = LIST | lists.len() as u32;
            lists.extend(group.iter().map(|&(_, id)| id));
            if let Some(last) = lists.last_mut() {
                *last |= LIST;
            }
        }
        let size = (edges.len() * 2).max(2).next_power_of_two();
        let mut trie = Self {
            fold,
            key_mask,
            first_words: first_word_filter(firsts),
            slots: vec![EMPTY; size],
            slot_mask: size - 1,
            lists,
        };
        for (key, child) in edges {
            let slot = Slot {
                key,
                child: child << 1 | u32::from(has_children[child as usize]),
                names: names[child as usize],
            };
            let mut i = trie.home(key);
            while trie.slots[i].child != 0 {
                i = (i + 1) & trie.slot_mask;
            }
            trie.slots[i] = slot;
        }
        Ok(trie)
    }

    /// Heap memory, in bytes.
    pub(super) fn memory_usage(&self) -> usize {
        self.slots.len() * size_of::<Slot>()
            + self.lists.len() * size_of::<u32>()
            + self.first_words.memory_usage()
    }

    /// The slot a key is looked for first.
    #[inline]
    fn home(&self, key: u64) -> usize {
        // The high bits: the low ones are the word's, shared by a word's edges
        // from every node.
        (key >> 32) as usize & self.slot_mask
    }

    /// The edge with this key.
    #[inline]
    fn edge(&self, key: u64) -> Option<&Slot> {
        let key = key & self.key_mask;
        let mut i = self.home(key);
        loop {
            let slot = &self.slots[i];
            if slot.child == 0 {
                return None;
            }
            if slot.key == key {
                return Some(slot);
            }
            i = (i + 1) & self.slot_mask;
        }
    }

    /// Walks from every word of `text` that may start a name and adds
    /// `(start, pattern)` to `proposals` for each pattern whose words the text has
    /// there. The caller compares the pattern with the text.
    pub(super) fn walk(&self, text: &str, lists: &mut WalkLists) {
        lists.proposals.clear();
        if self.fold {
            self.walk_with::<true>(text, lists);
        } else {
            self.walk_with::<false>(text, lists);
        }
    }

    /// The walks go in rounds, one word each: a round fetches the slots of the
    /// next round's lookups ahead, so the cache misses of many walks overlap
    /// instead of following one another.
    fn walk_with<const FOLD: bool>(&self, text: &str, lists: &mut WalkLists) {
        let bytes = text.as_bytes();
        let WalkLists {
            walks,
            next_round,
            proposals,
        } = lists;
        walks.clear();
        for_each_word(text, |start, end| {
            let hash = word_hash(bytes, start, end, FOLD);
            if self.first_words.may_contain(hash) {
                let key = edge_key(ROOT, hash);
                self.prefetch(key);
                walks.push((start, end, key));
            }
        });
        while !walks.is_empty() {
            next_round.clear();
            for &(start, at, key) in walks.iter() {
                let Some(edge) = self.edge(key) else {
                    continue;
                };
                match edge.names {
                    NO_NAME => {}
                    list if list & LIST != 0 => {
                        self.each_in_list(list, |p| proposals.push((start, p)));
                    }
                    name => proposals.push((start, name)),
                }
                if edge.child & 1 == 0 {
                    continue;
                }
                if let Some((next, next_end)) = next_word(text, at) {
                    let key = edge_key(edge.child >> 1, word_hash(bytes, next, next_end, FOLD));
                    self.prefetch(key);
                    next_round.push((start, next_end, key));
                }
            }
            std::mem::swap(walks, next_round);
        }
    }

    /// Fetches the slot where `key` is looked for first.
    #[inline]
    fn prefetch(&self, key: u64) {
        if let Some(slot) = self.slots.get(self.home(key & self.key_mask)) {
            prefetch(slot);
        }
    }

    /// Calls `f` for each name of the list that `list` points to.
    #[cold]
    fn each_in_list(&self, list: u32, mut f: impl FnMut(u32)) {
        for &entry in self.lists.iter().skip((list & !LIST) as usize) {
            f(entry & !LIST);
            if entry & LIST != 0 {
                break;
            }
        }
    }
}

fn too_many(what: &str, max: usize) -> FilterError {
    FilterError::TooManyNames(format!("the names have more than {max} {what}"))
}

/// The filter over the hashes of every name's first word.
fn first_word_filter(mut firsts: Vec<u64>) -> FirstWordFilter {
    firsts.sort_unstable();
    firsts.dedup();
    let mut filter = FirstWordFilter::with_capacity(firsts.len());
    for &hash in &firsts {
        filter.insert(hash);
    }
    filter
}

/// The key of the edge from `node` by the word with hash `word`.
#[inline]
fn edge_key(node: u32, word: u64) -> u64 {
    word ^ u64::from(node).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proposals in the order of the text.
    fn proposals(trie: &Trie, text: &str) -> Vec<(usize, u32)> {
        let mut lists = WalkLists::default();
        trie.walk(text, &mut lists);
        let mut all = lists.proposals;
        all.sort_unstable();
        all
    }

    #[test]
    fn walks_propose_names_by_their_words_shortest_first() {
        let names = ["joe", "joe biden", "biden", "joseph r. biden jr."];
        let trie = Trie::build(&names, true).unwrap();
        // The walk goes by words only: "Joseph R Biden Jr" has the words of
        // pattern 3 (the matcher then finds its dots missing).
        assert_eq!(
            proposals(&trie, "Joe BIDEN, or Joseph R Biden Jr"),
            [(0, 0), (0, 1), (4, 2), (14, 3), (23, 2)]
        );
        assert!(proposals(&trie, "Bidenomics Joey").is_empty());
        let exact = Trie::build(&["Joe", "Joe Biden"], false).unwrap();
        assert_eq!(proposals(&exact, "joe Joe biden"), [(4, 0)]);
    }

    #[test]
    fn colliding_keys_add_proposals_but_never_lose_one() {
        let names = [
            "joe",
            "joe biden",
            "prime minister",
            "prime minister of the united kingdom",
            "united kingdom",
            "élysée palace",
            "kamala harris",
        ];
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
        let trie = Trie::build(&["'ndrangheta", "", "--"], true).unwrap();
        assert!(proposals(&trie, "'Ndrangheta ndrangheta --").is_empty());
    }
}
