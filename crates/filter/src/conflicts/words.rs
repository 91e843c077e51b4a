//! What a word is, for matching names, the hash names and texts are matched by
//! word for word, and the first-word filter that decides which words of a text
//! are worth a walk through the name trie.
//!
//! A word is a run of letters, digits and `_` (Unicode letters and digits
//! included). A name can only match where its first word is a whole word of the
//! text: the name's next character is not a word character, and neither may the
//! text's be. So a text word that is no name's first word cannot start a match,
//! and a compact Bloom filter over the first words answers that for most words of
//! news text ("the", "said", "government") with one hash and two bit tests, from
//! a table that stays in cache, instead of a lookup in a 10^5-name trie.
//! The filter never says no to a first word; its false yeses only cost a walk.

/// Whether `c` belongs to a word.
pub fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Byte classes for the scan: ASCII word bytes, other ASCII bytes, and bytes of
/// non-ASCII characters (decoded to decide).
const NON_WORD: u8 = 0;
const WORD: u8 = 1;
const NON_ASCII: u8 = 2;

const CLASSES: [u8; 256] = {
    let mut table = [NON_WORD; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if !c.is_ascii() {
            NON_ASCII
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            WORD
        } else {
            NON_WORD
        };
        b += 1;
    }
    table
};

/// Whether the character at byte `at` (not ASCII) is a word character, and its width.
#[cold]
fn decode_class(text: &str, at: usize) -> (bool, usize) {
    text.get(at..)
        .and_then(|rest| rest.chars().next())
        .map_or((false, 1), |c| (is_word_char(c), c.len_utf8()))
}

/// The next word of `text` at or after byte `from` (a character boundary): its
/// byte range.
#[inline]
pub fn next_word(text: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        match CLASSES[usize::from(*bytes.get(at)?)] {
            WORD => break,
            NON_WORD => at += 1,
            _ => match decode_class(text, at) {
                (true, _) => break,
                (false, width) => at += width,
            },
        }
    }
    Some((at, word_end(text, at)))
}

/// The end of the word that starts at byte `start`.
#[inline]
pub fn word_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = start;
    while let Some(&b) = bytes.get(at) {
        match CLASSES[usize::from(b)] {
            WORD => at += 1,
            NON_WORD => break,
            _ => match decode_class(text, at) {
                (true, width) => at += width,
                (false, _) => break,
            },
        }
    }
    at
}

/// Calls `f(start, end)` for every word of `text`, in order: the same words as
/// repeated [`next_word`], found 64 bytes at a time. In a block of ASCII text the
/// word bytes become a bit mask and words are read off it with bit tricks, so the
/// scan does not mispredict a branch at every word edge; a block holding any
/// non-ASCII byte takes the character-by-character path.
pub fn for_each_word(text: &str, mut f: impl FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    let mut at = 0;
    // Whether the byte before `at` belongs to a word (so `at` cannot start one).
    let mut after_word = false;
    while at < bytes.len() {
        let block = &bytes[at..bytes.len().min(at + 64)];
        let (mut words, mut high) = (0u64, 0u64);
        match <&[u8; 64]>::try_from(block) {
            // A whole block: eight loads the compiler can check once.
            Ok(whole) => {
                for (i, eight) in whole.chunks_exact(8).enumerate() {
                    let eight = u64::from_le_bytes(eight.try_into().unwrap_or_default());
                    words |= word_bytes8(eight) << (8 * i);
                    high |= eight;
                }
            }
            Err(_) => {
                for i in (0..block.len()).step_by(8) {
                    let eight = load8(block, i);
                    words |= word_bytes8(eight) << i;
                    high |= eight;
                }
            }
        }
        if high & HIGH != 0 {
            let block_end = at + block.len();
            if after_word {
                at = word_end(text, at);
            }
            while let Some((start, end)) = next_word(text, at).filter(|(s, _)| *s < block_end) {
                f(start, end);
                at = end;
            }
            at = at.max(block_end);
            // `at` may sit inside a character that started in this block.
            while !text.is_char_boundary(at) {
                at += 1;
            }
            after_word = text[..at].chars().next_back().is_some_and(is_word_char);
            continue;
        }
        let mut starts = words & !((words << 1) | u64::from(after_word));
        let mut next_at = at + block.len();
        after_word = block.len() == 64 && words >> 63 == 1;
        while starts != 0 {
            let s = starts.trailing_zeros() as usize;
            starts &= starts - 1;
            let run = (!(words >> s)).trailing_zeros() as usize;
            let (start, mut end) = (at + s, at + s + run);
            if s + run == 64 {
                // The word may run on past the block: the next block starts
                // with it, unless it filled this one (a word of 64 bytes or more).
                if s > 0 {
                    next_at = start;
                    after_word = false;
                    break;
                }
                end = word_end(text, start);
                next_at = end;
                after_word = true;
            }
            f(start, end);
        }
        at = next_at;
    }
}

/// High bit of each of eight bytes: set on the bytes of non-ASCII characters.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The word bytes among eight (little-endian), as an 8-bit mask: the test of
/// [`CLASSES`] on all eight at once. Byte sums never carry: each byte is at most
/// 0x7f once its high bit is cleared.
#[inline]
fn word_bytes8(bytes: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    /// High bit of each byte: whether that byte of `x` is at least `c`.
    fn at_least(x: u64, c: u8) -> u64 {
        (x + u64::from(0x80 - c) * 0x0101_0101_0101_0101) & HIGH
    }
    let low = bytes & LOW7;
    let folded = low | 0x2020_2020_2020_2020;
    let letter = at_least(folded, b'a') & !at_least(folded, b'z' + 1);
    let digit = at_least(low, b'0') & !at_least(low, b'9' + 1);
    let underscore = at_least(low, b'_') & !at_least(low, b'_' + 1);
    let word = (letter | digit | underscore) & !bytes & HIGH;
    // Gathers the high bit of each byte into one byte.
    ((word >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Whether `text[start..end]` is not glued to a word character on either side.
/// A side whose edge character is not a word character itself needs no boundary
/// ("Joseph R. Biden Jr." may be followed by anything).
pub fn on_word_boundaries(text: &str, start: usize, end: usize) -> bool {
    if start >= end {
        return true;
    }
    let glued_at_start = word_char_after(text, start) && word_char_before(text, start);
    let glued_at_end = word_char_before(text, end) && word_char_after(text, end);
    !glued_at_start && !glued_at_end
}

/// Whether the character that starts at byte `at` is a word character (ASCII
/// read off the byte, anything else decoded).
#[inline]
fn word_char_after(text: &str, at: usize) -> bool {
    match text.as_bytes().get(at) {
        Some(&b) if b.is_ascii() => CLASSES[usize::from(b)] == WORD,
        Some(_) => text
            .get(at..)
            .and_then(|s| s.chars().next())
            .is_some_and(is_word_char),
        None => false,
    }
}

/// Whether the character that ends at byte `at` is a word character.
#[inline]
fn word_char_before(text: &str, at: usize) -> bool {
    match at.checked_sub(1).and_then(|i| text.as_bytes().get(i)) {
        Some(&b) if b.is_ascii() => CLASSES[usize::from(b)] == WORD,
        Some(_) => text
            .get(..at)
            .and_then(|s| s.chars().next_back())
            .is_some_and(is_word_char),
        None => false,
    }
}

/// A Bloom filter over the hashes of the first words of every name, blocked: both
/// probes of a word fall in one 64-byte block, so a lookup touches one cache line
/// (walks through the name trie keep evicting the filter, and a second line was a
/// second miss for most words of a text).
#[derive(Debug, Clone)]
pub struct FirstWordFilter {
    blocks: Vec<Block>,
    mask: u64,
}

/// One cache line of filter bits.
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(64))]
struct Block([u64; 8]);

/// Bits per first word: about 1% false yeses with two probes.
const BITS_PER_WORD: usize = 16;

impl FirstWordFilter {
    /// A filter sized for about `words` first words.
    pub fn with_capacity(words: usize) -> Self {
        let blocks = (words.max(1) * BITS_PER_WORD)
            .div_ceil(512)
            .next_power_of_two();
        Self {
            blocks: vec![Block::default(); blocks],
            mask: blocks as u64 - 1,
        }
    }

    /// Heap memory, in bytes.
    pub fn memory_usage(&self) -> usize {
        self.blocks.len() * size_of::<Block>()
    }

    /// Adds a first word, by its [`word_hash`].
    pub fn insert(&mut self, hash: u64) {
        let (block, a, b) = self.probes(hash);
        let block = &mut self.blocks[block].0;
        block[a >> 6] |= 1 << (a & 63);
        block[b >> 6] |= 1 << (b & 63);
    }

    /// Whether the word with this [`word_hash`] may be the first word of a name.
    #[inline]
    pub fn may_contain(&self, hash: u64) -> bool {
        let (block, a, b) = self.probes(hash);
        let block = &self.blocks[block].0;
        block[a >> 6] & (1 << (a & 63)) != 0 && block[b >> 6] & (1 << (b & 63)) != 0
    }

    /// The block and the two bits in it.
    #[inline]
    fn probes(&self, h: u64) -> (usize, usize, usize) {
        (
            ((h >> 32) & self.mask) as usize,
            (h & 511) as usize,
            ((h >> 9) & 511) as usize,
        )
    }
}

/// A fast hash of the word `text[start..end]` (ASCII case ignored when `fold`):
/// eight bytes per multiply (the FxHash step), then a final avalanche so that
/// every bit of the result depends on every input bit. The bytes are read eight
/// at a time straight from the text and the ones past the word masked off, so the
/// hash of a word does not depend on what surrounds it.
#[inline]
pub fn word_hash(text: &[u8], start: usize, end: usize, fold: bool) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let eight = |at: usize| {
        let left = end.saturating_sub(at);
        let mut word = load8(text, at);
        if left < 8 {
            word &= (1u64 << (8 * left)).wrapping_sub(1);
        }
        if fold {
            word = fold_case8(word);
        }
        word
    };
    // Most words fit in the first eight bytes: no loop for them.
    let mut h = ((end - start) as u64).rotate_left(5) ^ eight(start);
    h = h.wrapping_mul(K);
    let mut at = start + 8;
    while at < end {
        h = (h.rotate_left(5) ^ eight(at)).wrapping_mul(K);
        at += 8;
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// The eight bytes of `text` at `at`, little-endian, zeros past its end.
#[inline]
fn load8(text: &[u8], at: usize) -> u64 {
    match text.get(at..at + 8) {
        Some(&[a, b, c, d, e, f, g, h]) => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => {
            let mut word = [0u8; 8];
            let rest = text.get(at..).unwrap_or_default();
            word[..rest.len().min(8)].copy_from_slice(&rest[..rest.len().min(8)]);
            u64::from_le_bytes(word)
        }
    }
}

/// Sets the 0x20 bit of each ASCII byte among eight, leaving non-ASCII bytes as
/// they are. On the bytes of words (letters, digits, `_`, non-ASCII) this folds
/// ASCII case and nothing else: digits already have the bit, and `_` becomes
/// 0x7f, which no word byte is. So two words get the same bytes exactly when
/// they are equal ignoring ASCII case (what the matcher then checks), for three
/// operations instead of a range test per byte.
#[inline]
fn fold_case8(word: u64) -> u64 {
    word | (!word & HIGH) >> 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_letters_and_digits_in_any_script() {
        let text = "«Élysée» Biden’s 2024_plan";
        let mut words = Vec::new();
        let mut at = 0;
        while let Some((s, e)) = next_word(text, at) {
            words.push(&text[s..e]);
            at = e;
        }
        assert_eq!(words, ["Élysée", "Biden", "s", "2024_plan"]);
    }

    fn words_one_by_one(text: &str) -> Vec<(usize, usize)> {
        let mut words = Vec::new();
        let mut at = 0;
        while let Some((s, e)) = next_word(text, at) {
            words.push((s, e));
            at = e;
        }
        words
    }

    fn words_by_blocks(text: &str) -> Vec<(usize, usize)> {
        let mut words = Vec::new();
        for_each_word(text, |s, e| words.push((s, e)));
        words
    }

    #[test]
    fn block_scan_finds_the_same_words_as_the_plain_scan() {
        let pieces = [
            "the ",
            "prime minister",
            ", ",
            "Biden’s",
            " «Élysée» ",
            "a",
            "x_y",
            "2024",
            "—",
            "\n",
            "Bidenomics",
            "  ",
            "ğüşiöç",
            "O'Brien",
            "日本語",
            ".",
        ];
        // Many lengths and alignments, so words and characters straddle 64-byte blocks.
        let mut state = 7u64;
        for round in 0..300 {
            let mut text = String::new();
            for _ in 0..(round % 40) {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            assert_eq!(words_by_blocks(&text), words_one_by_one(&text), "{text:?}");
        }
        let long = "w".repeat(200);
        assert_eq!(words_by_blocks(&long), [(0, 200)]);
        assert_eq!(
            words_by_blocks(&format!("{long} x")),
            [(0, 200), (201, 202)]
        );
    }

    #[test]
    fn boundaries_are_read_the_same_in_any_script() {
        // Checked against reading whole characters, at every span of a mixed text.
        let text = "«Élysée»,Biden’s x_y 2024 naïve日本 O'Brien.";
        let reference = |start: usize, end: usize| {
            let inner = &text[start..end];
            let glued = |edge: Option<char>, outside: Option<char>| matches!((edge, outside), (Some(e), Some(o)) if is_word_char(e) && is_word_char(o));
            !glued(inner.chars().next(), text[..start].chars().next_back())
                && !glued(inner.chars().next_back(), text[end..].chars().next())
        };
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for (i, &start) in bounds.iter().enumerate() {
            for &end in &bounds[i + 1..] {
                assert_eq!(
                    on_word_boundaries(text, start, end),
                    reference(start, end),
                    "{:?}",
                    &text[start..end]
                );
            }
        }
    }

    #[test]
    fn boundaries_need_non_word_neighbours_of_word_edges() {
        let text = "Bidenomics, Biden's (Jr.)x";
        assert!(!on_word_boundaries(text, 0, 5));
        assert!(on_word_boundaries(text, 12, 17));
        assert!(
            on_word_boundaries(text, 21, 25),
            "a name ending in `.` may touch a letter"
        );
    }

    #[test]
    fn the_filter_knows_every_first_word_and_few_others() {
        let mut filter = FirstWordFilter::with_capacity(3);
        let h = |w: &str| word_hash(w.as_bytes(), 0, w.len(), true);
        for first in ["joe", "prime", "élysée"] {
            filter.insert(h(first));
        }
        for word in ["joe", "Prime", "élysée"] {
            assert!(filter.may_contain(h(word)), "{word}");
        }
        let others = [
            "biden",
            "minister",
            "the",
            "said",
            "government",
            "palace",
            "jo",
            "joey",
        ];
        let false_yes = others.iter().filter(|w| filter.may_contain(h(w))).count();
        assert!(false_yes <= 1, "{false_yes} of {}", others.len());
    }

    #[test]
    fn hashes_ignore_ascii_case_only_when_asked() {
        let h = |w: &str, fold| word_hash(w.as_bytes(), 0, w.len(), fold);
        assert_eq!(h("PrimeMinisterOf", true), h("primeministerof", true));
        assert_ne!(h("Prime", false), h("prime", false));
        assert_ne!(
            h("Élysée", true),
            h("élysée", true),
            "non-ASCII case is not folded"
        );
        assert_ne!(h("Élysée", true), h("Elysée", true));
        assert_ne!(h("prime", true), h("primer", true));
        assert_ne!(h("prime", true), h("prime\0", true));
        assert_eq!(
            h("", true),
            word_hash(b"xyz", 1, 1, true),
            "an empty word is one hash"
        );
    }

    #[test]
    fn a_word_hashes_the_same_wherever_it_stands() {
        let text = "Minister, MINISTER of the Ministry; minister";
        let at = |s: usize, e: usize, fold| word_hash(text.as_bytes(), s, e, fold);
        let alone = word_hash(b"minister", 0, 8, false);
        assert_eq!(at(0, 8, true), alone);
        assert_eq!(at(10, 18, true), alone);
        assert_eq!(
            at(36, 44, false),
            alone,
            "the last word, read past the text's end"
        );
        assert_ne!(at(26, 34, true), alone);
    }

    #[test]
    fn eight_bytes_are_classified_as_each_byte_would_be() {
        for b in 0..=255u8 {
            let bytes = [b, b'a', 0xC3, b'_', b'9', b'@', b'Z', b];
            let words = word_bytes8(u64::from_le_bytes(bytes));
            for (i, &c) in bytes.iter().enumerate() {
                let class = CLASSES[usize::from(c)];
                assert_eq!(words >> i & 1 == 1, class == WORD, "byte {c:#x}");
            }
        }
    }

    #[test]
    fn folding_eight_word_bytes_is_ascii_case_folding() {
        let word_bytes: Vec<u8> = (0..=255u8)
            .filter(|&b| CLASSES[usize::from(b)] != NON_WORD)
            .collect();
        for &a in &word_bytes {
            for &b in &word_bytes {
                let fold =
                    |x: u8| fold_case8(u64::from_le_bytes([x, b'k', x, 0xC3, x, b'Z', x, x]));
                assert_eq!(
                    fold(a) == fold(b),
                    a.eq_ignore_ascii_case(&b),
                    "{a:#x} {b:#x}"
                );
            }
        }
    }
}
