//! Novelty bins: a test set partitioned by overlap.
//!
//! Overlaps fall first into twenty bins of width 5 percentage points: `0-5` holds
//! overlaps from 0 up to but not including 5, ..., `95-100` holds 95 to 100
//! inclusive. Bins with fewer than `min_bin` records then merge, in multiples of 5:
//! walking up from 0, a bin takes the next 5-point bins until it holds `min_bin`
//! records, then the next bin starts; what is left at the top when the walk ends
//! short of `min_bin` joins the bin below it. Every bin then holds at least
//! `min_bin` records, except a single bin holding the whole set when the set is
//! smaller than that. The walk favours resolution at the novel end, where the
//! paper's `T_nov` lies, and gives every set one partition whatever its size.
//!
//! The lowest bin is tagged `T_nov` (the most novel summaries), the highest `T_sim`.
//! A set that fits in one bin has no contrast, and no tags.
//!
//! [`SetBins`] draws the bins of each set and gives each scored record its
//! [`Novelty`]: the `novelty` stage and `tempora novelty` both tag through it.

use std::collections::BTreeMap;

use serde::Serialize;
use tempora_records::Novelty;

/// Width of the first bins, in percentage points.
pub const WIDTH: u32 = 5;

/// The default least number of records per bin (the paper's).
pub const DEFAULT_MIN_BIN: usize = 100;

/// Tag of the lowest bin.
pub const T_NOV: &str = "T_nov";

/// Tag of the highest bin.
pub const T_SIM: &str = "T_sim";

/// One bin: overlaps from `from` (inclusive) to `to` (exclusive, but 100 inclusive).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bin {
    /// The label, `from-to`: `0-15`.
    pub range: String,
    /// Lower end, percent.
    pub from: u32,
    /// Upper end, percent.
    pub to: u32,
    /// Records in the bin.
    pub count: usize,
    /// `T_nov`, `T_sim` or none.
    pub tag: Option<&'static str>,
}

/// The bins of one set.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(transparent)]
pub struct Bins {
    bins: Vec<Bin>,
}

/// Which of the twenty 5-point bins `overlap` falls in.
fn base_bin(overlap: f64) -> usize {
    // NaN and negatives land in the first bin, anything from 95 up in the last.
    let index = (overlap / f64::from(WIDTH)).floor();
    if index.is_nan() || index < 0.0 {
        0
    } else {
        (index as usize).min(base_bins() - 1)
    }
}

const fn base_bins() -> usize {
    (100 / WIDTH) as usize
}

impl Bins {
    /// The bins of a set with these overlaps (percentages); no bins for an empty set.
    pub fn of(overlaps: &[f64], min_bin: usize) -> Self {
        if overlaps.is_empty() {
            return Self::default();
        }
        let mut counts = vec![0usize; base_bins()];
        for &o in overlaps {
            counts[base_bin(o)] += 1;
        }
        // (first base bin, last base bin, count) of each merged bin.
        let mut merged: Vec<(usize, usize, usize)> = Vec::new();
        let mut open: Option<(usize, usize)> = None;
        for (i, &count) in counts.iter().enumerate() {
            let (from, total) = open.map_or((i, count), |(from, total)| (from, total + count));
            if total >= min_bin.max(1) {
                merged.push((from, i, total));
                open = None;
            } else {
                open = Some((from, total));
            }
        }
        if let Some((from, total)) = open {
            match merged.last_mut() {
                Some(last) => {
                    last.1 = base_bins() - 1;
                    last.2 += total;
                }
                None => merged.push((from, base_bins() - 1, total)),
            }
        }
        // A bin ends where the next starts; the first starts at 0, the last ends at 100.
        let last = merged.len() - 1;
        let bins = merged
            .iter()
            .enumerate()
            .map(|(k, &(first, end, count))| {
                let from = if k == 0 { 0 } else { first as u32 * WIDTH };
                let to = (end as u32 + 1) * WIDTH;
                let tag = match (k, last) {
                    (_, 0) => None,
                    (0, _) => Some(T_NOV),
                    (k, last) if k == last => Some(T_SIM),
                    _ => None,
                };
                Bin {
                    range: format!("{from}-{to}"),
                    from,
                    to,
                    count,
                    tag,
                }
            })
            .collect();
        Self { bins }
    }

    /// The bins, lowest first.
    pub fn bins(&self) -> &[Bin] {
        &self.bins
    }

    /// The bin `overlap` falls in, if there are bins.
    pub fn find(&self, overlap: f64) -> Option<&Bin> {
        let base = base_bin(overlap) as u32 * WIDTH;
        self.bins
            .iter()
            .find(|b| base < b.to)
            .or_else(|| self.bins.last())
    }
}

/// The bins of every set (an article's split; `""` before `split`, or a file of
/// test records), drawn once every record of the set is scored, and the novelty
/// they give each record. Serializes as `{set: [bin, ...]}`, the table `run.json`
/// keeps.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(transparent)]
pub struct SetBins {
    sets: BTreeMap<String, Bins>,
}

impl SetBins {
    /// Each set's bins over the overlaps of its scored records, given as
    /// `(set, overlap)`, with at least `min_bin` records per bin.
    pub fn draw<'a>(scored: impl IntoIterator<Item = (&'a str, f64)>, min_bin: usize) -> Self {
        let mut overlaps: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for (set, overlap) in scored {
            overlaps.entry(set).or_default().push(overlap);
        }
        let sets = overlaps
            .into_iter()
            .map(|(set, overlaps)| (set.to_string(), Bins::of(&overlaps, min_bin)))
            .collect();
        Self { sets }
    }

    /// Each set's bins with their counts, as `run.json`'s `bins` metric holds them.
    pub fn counts(&self) -> tempora_records::counters::NoveltyBins {
        self.sets
            .iter()
            .map(|(set, bins)| {
                let counts = bins
                    .bins()
                    .iter()
                    .map(|b| tempora_records::counters::BinCount {
                        range: b.range.clone(),
                        from: b.from,
                        to: b.to,
                        count: b.count,
                        tag: b.tag.map(str::to_string),
                    })
                    .collect();
                (set.clone(), counts)
            })
            .collect()
    }

    /// The bins of `set`; none when no record of it was drawn.
    pub fn of(&self, set: &str) -> Option<&Bins> {
        self.sets.get(set)
    }

    /// The novelty of a record of `set` with this overlap: the overlap, the bin it
    /// falls in and that bin's tag. `None` when `set` has no bins.
    pub fn novelty(&self, set: &str, overlap: f64) -> Option<Novelty> {
        let bin = self.of(set)?.find(overlap)?;
        Some(Novelty {
            overlap,
            bin: bin.range.clone(),
            tag: bin.tag.map(str::to_string),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(bins: &Bins) -> Vec<(&str, usize, Option<&str>)> {
        bins.bins()
            .iter()
            .map(|b| (b.range.as_str(), b.count, b.tag))
            .collect()
    }

    #[test]
    fn bins_of_width_five_when_each_is_full_enough() {
        let overlaps: Vec<f64> = (0..20).flat_map(|i| [f64::from(i * 5); 2]).collect();
        let bins = Bins::of(&overlaps, 2);
        assert_eq!(bins.bins().len(), 20);
        assert_eq!(bins.bins()[0].range, "0-5");
        assert_eq!(bins.bins()[0].tag, Some(T_NOV));
        assert_eq!(bins.bins()[19].range, "95-100");
        assert_eq!(bins.bins()[19].tag, Some(T_SIM));
        assert!(bins.bins()[1..19]
            .iter()
            .all(|b| b.tag.is_none() && b.count == 2));
    }

    #[test]
    fn small_bins_merge_upwards_in_multiples_of_five() {
        // 3 records below 15, 4 in 40-45, 1 at 100.
        let overlaps = [0.0, 7.5, 14.9, 40.0, 41.0, 42.0, 44.99, 100.0];
        let bins = Bins::of(&overlaps, 3);
        assert_eq!(
            ranges(&bins),
            [("0-15", 3, Some(T_NOV)), ("15-100", 5, Some(T_SIM))]
        );
        // 0-10 fills at 2; from 10 the walk reaches 2 only at 40-45 (5 records); the
        // record at 100, short of 2 on its own, joins that bin.
        let bins = Bins::of(&overlaps, 2);
        assert_eq!(
            ranges(&bins),
            [("0-10", 2, Some(T_NOV)), ("10-100", 6, Some(T_SIM))]
        );
    }

    #[test]
    fn every_record_lands_in_the_bin_that_counts_it() {
        let overlaps: Vec<f64> = (0..997).map(|i| f64::from(i % 101)).collect();
        for min_bin in [1, 7, 50, 100, 400, 2000] {
            let bins = Bins::of(&overlaps, min_bin);
            let mut counted = vec![0usize; bins.bins().len()];
            for &o in &overlaps {
                let bin = bins.find(o).unwrap();
                assert!(f64::from(bin.from) <= o && (o < f64::from(bin.to) || bin.to == 100));
                counted[bins.bins().iter().position(|b| b == bin).unwrap()] += 1;
            }
            let counts: Vec<usize> = bins.bins().iter().map(|b| b.count).collect();
            assert_eq!(counted, counts, "min_bin {min_bin}");
            assert_eq!(counts.iter().sum::<usize>(), overlaps.len());
            if bins.bins().len() > 1 {
                assert!(
                    counts.iter().all(|&c| c >= min_bin),
                    "min_bin {min_bin}: {counts:?}"
                );
            }
            // Bins tile 0..=100 in multiples of 5.
            assert_eq!(bins.bins()[0].from, 0);
            assert_eq!(bins.bins().last().unwrap().to, 100);
            for pair in bins.bins().windows(2) {
                assert_eq!(pair[0].to, pair[1].from);
                assert_eq!(pair[0].to % WIDTH, 0);
            }
        }
    }

    #[test]
    fn one_bin_when_min_bin_exceeds_the_set_and_none_for_an_empty_set() {
        let bins = Bins::of(&[10.0, 90.0], 100);
        assert_eq!(ranges(&bins), [("0-100", 2, None)]);
        assert!(Bins::of(&[], 100).bins().is_empty());
        assert!(Bins::of(&[], 100).find(50.0).is_none());
    }

    #[test]
    fn each_set_is_binned_and_tagged_on_its_own() {
        let scored = [
            ("past", 0.0),
            ("future", 90.0),
            ("past", 80.0),
            ("future", 10.0),
        ];
        let bins = SetBins::draw(scored, 1);
        let tag = |set, overlap| bins.novelty(set, overlap).and_then(|n| n.tag);
        assert_eq!(tag("past", 0.0).as_deref(), Some(T_NOV));
        assert_eq!(tag("past", 80.0).as_deref(), Some(T_SIM));
        assert_eq!(tag("future", 10.0).as_deref(), Some(T_NOV));
        let novelty = bins.novelty("future", 90.0).unwrap();
        assert_eq!((novelty.overlap, novelty.bin.as_str()), (90.0, "15-100"));
        assert_eq!(bins.novelty("train", 50.0), None);
        assert_eq!(
            serde_json::to_value(&bins).unwrap()["past"][0]["range"],
            "0-5"
        );
    }

    #[test]
    fn empty_five_point_bins_are_absorbed() {
        // Nothing between 10 and 90.
        let overlaps = [0.0, 1.0, 5.0, 6.0, 90.0, 95.0, 100.0];
        let bins = Bins::of(&overlaps, 2);
        assert_eq!(
            ranges(&bins),
            [
                ("0-5", 2, Some(T_NOV)),
                ("5-10", 2, None),
                ("10-100", 3, Some(T_SIM))
            ]
        );
    }
}
