//! A set of n-gram hashes, built once from the training summaries and asked many
//! times: a sorted array of distinct 64-bit hashes with a table of where each
//! leading-bits bucket starts, so a lookup is one table read and a binary search
//! over the few hashes of one bucket (about eight). Eight bytes per distinct
//! n-gram and no per-entry overhead: 18 M distinct 4-grams (CNN/DailyMail's
//! training highlights) take 144 MB, where a hash set would take two to four times
//! that. Each hash also has a dense id (its rank), which `diversify` counts with.

use rayon::slice::ParallelSliceMut;

/// Hashes per bucket the table aims at.
const PER_BUCKET: usize = 8;

/// Distinct n-gram hashes, sorted, with a bucket table.
#[derive(Debug, Default)]
pub struct NgramSet {
    sorted: Vec<u64>,
    /// `starts[b]..starts[b + 1]` holds the hashes whose top `bits` bits are `b`.
    starts: Vec<u32>,
    bits: u32,
}

impl NgramSet {
    /// The set of `hashes` (in any order, repeats allowed). Sorts in parallel.
    ///
    /// # Panics
    /// With 2^32 or more distinct hashes (ids are 32 bits), far beyond any summary set.
    pub fn from_hashes(mut hashes: Vec<u64>) -> Self {
        hashes.par_sort_unstable();
        hashes.dedup();
        Self::from_sorted(hashes)
    }

    /// The set of `hashes`, already sorted and distinct.
    ///
    /// # Panics
    /// With 2^32 or more hashes, as [`NgramSet::from_hashes`].
    pub(crate) fn from_sorted(mut hashes: Vec<u64>) -> Self {
        debug_assert!(hashes.windows(2).all(|w| w[0] < w[1]));
        hashes.shrink_to_fit();
        assert!(
            u32::try_from(hashes.len()).is_ok(),
            "more than 2^32 distinct n-grams"
        );
        let wanted = (hashes.len() / PER_BUCKET).max(1);
        let bits = (usize::BITS - wanted.leading_zeros()).clamp(1, 26);
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        let mut at = 0usize;
        for bucket in 0..(1u64 << bits) {
            while at < hashes.len() && Self::bucket_of(hashes[at], bits) < bucket {
                at += 1;
            }
            starts.push(at as u32);
        }
        starts.push(hashes.len() as u32);
        Self {
            sorted: hashes,
            starts,
            bits,
        }
    }

    fn bucket_of(hash: u64, bits: u32) -> u64 {
        hash >> (64 - bits)
    }

    /// How many distinct n-grams the set holds.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The dense id (0..len) of `hash`, if the set holds it.
    pub fn id_of(&self, hash: u64) -> Option<u32> {
        if self.sorted.is_empty() {
            return None;
        }
        let bucket = Self::bucket_of(hash, self.bits) as usize;
        let (from, to) = (
            self.starts[bucket] as usize,
            self.starts[bucket + 1] as usize,
        );
        self.sorted[from..to]
            .binary_search(&hash)
            .ok()
            .map(|i| (from + i) as u32)
    }

    /// Whether the set holds `hash`.
    pub fn contains(&self, hash: u64) -> bool {
        self.id_of(hash).is_some()
    }

    /// Appends to `out` the ids of those of `hashes` the set holds, in order: what
    /// `hashes.filter_map(id_of)` gives, in about half the time on a set larger than
    /// the cache (lookups go in groups: see `for_each_id`).
    pub fn ids_into(&self, hashes: &[u64], out: &mut Vec<u32>) {
        self.for_each_id(hashes, |id| out.push(id));
    }

    /// How many of `hashes` the set holds (repeats counted each time).
    pub fn count_in(&self, hashes: &[u64]) -> usize {
        let mut count = 0;
        self.for_each_id(hashes, |_| count += 1);
        count
    }

    /// Calls `f` with the id of each of `hashes` the set holds, in order.
    ///
    /// A lookup in a set of millions of n-grams waits on memory twice (the bucket
    /// table, then the bucket), and one at a time the waits add up. So lookups go in
    /// groups: first every bucket bound of the group is read, then the first hash of
    /// every bucket, loads that do not depend on each other and so wait on memory
    /// together; the searches then find their buckets in the cache.
    fn for_each_id(&self, hashes: &[u64], mut f: impl FnMut(u32)) {
        const GROUP: usize = 16;
        for group in hashes.chunks(GROUP) {
            let mut bounds = [(0u32, 0u32); GROUP];
            for (bound, &hash) in bounds.iter_mut().zip(group) {
                let bucket = Self::bucket_of(hash, self.bits) as usize;
                *bound = (self.starts[bucket], self.starts[bucket + 1]);
            }
            let mut touched = 0u64;
            for &(from, _) in &bounds[..group.len()] {
                touched ^= self.sorted.get(from as usize).copied().unwrap_or(0);
            }
            std::hint::black_box(touched);
            for (&(from, to), &hash) in bounds.iter().zip(group) {
                let (from, to) = (from as usize, to as usize);
                if let Ok(i) = self.sorted[from..to].binary_search(&hash) {
                    f((from + i) as u32);
                }
            }
        }
    }

    /// Bytes of memory the set holds.
    pub fn heap_bytes(&self) -> usize {
        self.sorted.capacity() * 8 + self.starts.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_member_and_no_other_value() {
        // A spread of values, extremes included, with repeats.
        let mut values: Vec<u64> = (0..5000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        values.extend([0, u64::MAX, 1, u64::MAX - 1, 0]);
        let set = NgramSet::from_hashes(values.clone());
        let mut distinct = values.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(set.len(), distinct.len());
        for v in &values {
            assert!(set.contains(*v), "{v}");
        }
        for v in (0..5000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 1) {
            assert_eq!(set.contains(v), distinct.binary_search(&v).is_ok(), "{v}");
        }
    }

    #[test]
    fn grouped_lookups_find_what_single_ones_find() {
        // More hashes than one group, members and strangers mixed, in sets of several
        // sizes (the empty set included).
        for size in [0u64, 1, 7, 100, 5000] {
            let members: Vec<u64> = (0..size)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect();
            let set = NgramSet::from_hashes(members.clone());
            let asked: Vec<u64> = members
                .iter()
                .flat_map(|&m| [m, m ^ 1, m])
                .chain([0, u64::MAX, 12345])
                .collect();
            let single: Vec<u32> = asked.iter().filter_map(|&h| set.id_of(h)).collect();
            let mut grouped = vec![7];
            set.ids_into(&asked, &mut grouped);
            assert_eq!(grouped[0], 7, "appends");
            assert_eq!(grouped[1..], single[..], "{size}");
            assert_eq!(set.count_in(&asked), single.len(), "{size}");
            assert_eq!(
                single.len() as u64,
                2 * size + u64::from(size > 0),
                "{size}"
            );
        }
    }

    #[test]
    fn ids_are_dense_ranks() {
        let set = NgramSet::from_hashes(vec![30, 10, 20, 10, u64::MAX]);
        assert_eq!(set.id_of(10), Some(0));
        assert_eq!(set.id_of(20), Some(1));
        assert_eq!(set.id_of(30), Some(2));
        assert_eq!(set.id_of(u64::MAX), Some(3));
        assert_eq!(set.id_of(15), None);
    }

    #[test]
    fn an_empty_set_holds_nothing() {
        let set = NgramSet::from_hashes(Vec::new());
        assert!(set.is_empty());
        assert!(!set.contains(0));
        assert!(!set.contains(u64::MAX));
    }
}
