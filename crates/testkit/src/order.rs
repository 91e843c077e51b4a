//! The same archive served in another order: what a property test varies to
//! show that a client's output depends on the Archive's content, never on the
//! order in which it comes. Each option is seeded, so a failing case replays.

use std::time::Duration;

/// An order the mock serves its archive in, added with
/// [`crate::MockWayback::reorder`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reorder {
    /// The archive's captures held in another order: added one by one in an
    /// order the seed gives. The CDX API still answers in index order (urlkey,
    /// then timestamp, then the rest of the line), as the real index is sorted.
    Captures {
        /// Seeds the insertion order.
        seed: u64,
    },
    /// Each replay answered after a delay of its own, up to `max`: the same URL
    /// always waits as long, others differently, so concurrent fetches finish in
    /// another order.
    ReplayDelays {
        /// Seeds each URL's delay.
        seed: u64,
        /// The longest delay.
        max: Duration,
    },
    /// The rows of each CDX answer in an order the seed and the query give, not
    /// index order: a server that does not sort within a page. Which rows a page
    /// holds, and its resume key, stay those of index order.
    PageRows {
        /// Seeds each page's order.
        seed: u64,
    },
    /// The rows of each listing, all its pages together, in an order the seed
    /// and the query (but its resume key) draw, then cut into pages: a row of
    /// the listing may come on any of its pages, each page's resume key leading
    /// to the next, as an index merged from shards of its own. Which rows a
    /// listing holds stays that of index order (the window, filters and
    /// `collapse` applied in index order); a listing of chunks of days, one
    /// query per chunk, has each chunk's rows in an order of its own.
    ListingRows {
        /// Seeds each listing's order.
        seed: u64,
    },
}

/// A number drawn from `seed` and `text`: the same pair, the same number.
pub(crate) fn draw(seed: u64, text: &str) -> u64 {
    // FNV-1a over the text, then mixed with the seed through fastrand's generator.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    fastrand::Rng::with_seed(seed ^ hash).u64(..)
}

/// How long the replay of `target` waits under `ReplayDelays { seed, max }`.
pub(crate) fn replay_delay(seed: u64, max: Duration, target: &str) -> Duration {
    let max_micros = u64::try_from(max.as_micros()).unwrap_or(u64::MAX);
    if max_micros == 0 {
        return Duration::ZERO;
    }
    Duration::from_micros(draw(seed, target) % (max_micros + 1))
}

/// `items` in the order `seed` gives.
pub(crate) fn shuffle<T>(items: &mut [T], seed: u64) {
    fastrand::Rng::with_seed(seed).shuffle(items);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_always_waits_as_long_and_urls_wait_differently() {
        let max = Duration::from_millis(5);
        let a = replay_delay(7, max, "/web/20200101000000id_/http://a.com/");
        assert_eq!(
            a,
            replay_delay(7, max, "/web/20200101000000id_/http://a.com/")
        );
        assert!(a <= max);
        let delays: std::collections::BTreeSet<Duration> = (0..20)
            .map(|i| replay_delay(7, max, &format!("/web/2020id_/http://a.com/{i}")))
            .collect();
        assert!(delays.len() > 10, "{delays:?}");
        assert_eq!(replay_delay(7, Duration::ZERO, "/web/x"), Duration::ZERO);
    }

    #[test]
    fn seeds_give_other_orders() {
        let orders: std::collections::BTreeSet<Vec<u32>> = (0..5)
            .map(|seed| {
                let mut items: Vec<u32> = (0..10).collect();
                shuffle(&mut items, seed);
                items
            })
            .collect();
        assert!(orders.len() > 1);
    }
}
