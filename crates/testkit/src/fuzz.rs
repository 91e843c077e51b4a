//! Inputs for fuzzing the readers of outside bytes (CDX answers, feeds, WARC
//! files, dump lines, compressed streams, pipeline files, JSONL and Parquet):
//! a proptest strategy that starts from a valid sample and breaks it the ways
//! real bytes break (cut short, bytes flipped, inserted or dropped, a span
//! repeated, invalid UTF-8), beside wholly arbitrary bytes. The number of cases
//! is bounded ([`CASES`]) so CI stays fast; `PROPTEST_CASES` raises it.

use proptest::prelude::*;

/// Cases per fuzz test in CI, unless `PROPTEST_CASES` says otherwise.
pub const CASES: u32 = 256;

/// A proptest config with [`CASES`] cases (or `PROPTEST_CASES`), no shrinking
/// beyond a bounded number of steps, and no persistence files.
pub fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    ProptestConfig {
        cases,
        max_shrink_iters: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// One way to break a sample.
#[derive(Debug, Clone)]
enum Mutation {
    /// Keep only the first `at` (per mille of the length).
    Truncate(u16),
    /// XOR the byte at `at` with `mask`.
    Flip(u16, u8),
    /// Insert `bytes` at `at`.
    Insert(u16, Vec<u8>),
    /// Drop `len` bytes at `at`.
    Remove(u16, u16),
    /// Repeat the span at `at` of `len` bytes.
    Repeat(u16, u16),
}

fn position(per_mille: u16, len: usize) -> usize {
    (usize::from(per_mille.min(1000)) * len) / 1000
}

fn apply(mut bytes: Vec<u8>, mutation: &Mutation) -> Vec<u8> {
    let len = bytes.len();
    match mutation {
        Mutation::Truncate(at) => bytes.truncate(position(*at, len)),
        Mutation::Flip(at, mask) => {
            if len > 0 {
                let i = position(*at, len - 1);
                bytes[i] ^= mask | 1;
            }
        }
        Mutation::Insert(at, new) => {
            let i = position(*at, len);
            bytes.splice(i..i, new.iter().copied());
        }
        Mutation::Remove(at, n) => {
            let i = position(*at, len);
            let end = (i + usize::from(*n)).min(len);
            bytes.drain(i..end);
        }
        Mutation::Repeat(at, n) => {
            let i = position(*at, len);
            let end = (i + usize::from(*n)).min(len);
            let span = bytes[i..end].to_vec();
            bytes.splice(end..end, span);
        }
    }
    bytes
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Bytes that matter to the formats read: delimiters, quotes, escapes,
    // newlines, a NUL, a gzip magic byte and invalid UTF-8.
    let special = prop::sample::select(vec![
        b'<', b'>', b'"', b'\'', b'\\', b'\n', b'\r', b' ', b'{', b'}', b'[', b']', b',', b':',
        b'=', b'&', b';', 0, 0x1f, 0x8b, 0xff, 0xc3,
    ]);
    prop_oneof![
        (0u16..=1000).prop_map(Mutation::Truncate),
        (0u16..=1000, any::<u8>()).prop_map(|(a, m)| Mutation::Flip(a, m)),
        (0u16..=1000, prop::collection::vec(special, 1..8))
            .prop_map(|(a, b)| Mutation::Insert(a, b)),
        (0u16..=1000, prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(a, b)| Mutation::Insert(a, b)),
        (0u16..=1000, 1u16..64).prop_map(|(a, n)| Mutation::Remove(a, n)),
        (0u16..=1000, 1u16..256).prop_map(|(a, n)| Mutation::Repeat(a, n)),
    ]
}

/// `samples`, each broken by one to eight mutations, and now and then wholly
/// arbitrary bytes.
pub fn broken(samples: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let mutated = (
        prop::sample::select(samples),
        prop::collection::vec(mutation(), 1..8),
    )
        .prop_map(|(sample, mutations)| mutations.iter().fold(sample, apply));
    prop_oneof![
        9 => mutated,
        1 => prop::collection::vec(any::<u8>(), 0..512),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_stay_in_bounds_on_empty_and_short_samples() {
        for m in [
            Mutation::Truncate(1000),
            Mutation::Flip(1000, 0),
            Mutation::Insert(1000, vec![1]),
            Mutation::Remove(1000, 10),
            Mutation::Repeat(1000, 10),
        ] {
            let _ = apply(Vec::new(), &m);
            let out = apply(b"ab".to_vec(), &m);
            assert!(out.len() <= 4, "{m:?}: {out:?}");
        }
        assert_eq!(apply(b"abcd".to_vec(), &Mutation::Truncate(500)), b"ab");
        assert_eq!(apply(b"abcd".to_vec(), &Mutation::Repeat(0, 2)), b"ababcd");
        assert_eq!(apply(b"abcd".to_vec(), &Mutation::Flip(0, 2)), b"bbcd");
    }
}
