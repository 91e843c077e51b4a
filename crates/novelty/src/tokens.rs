//! Tokens for every lexical statistic of Tempora: novelty n-grams and the report.
//!
//! Both kinds split text into Unicode word segments (UAX #29, through the
//! `unicode-segmentation` crate) and lowercase them:
//!
//! - [`TokenKind::Words`] (novelty n-grams, Choubey et al. 2023): only segments that
//!   hold a letter or a digit. `"Don't"` is one token `don't`, `"well-known"` is
//!   `well`, `known`, `"3.5%"` is `3.5`.
//! - [`TokenKind::WordsAndPunctuation`] (the report's Newsroom statistics): every
//!   segment but whitespace, so punctuation counts as a token, as Newsroom's spaCy
//!   tokenizer counts it: `"well-known."` is `well`, `-`, `known`, `.`.
//!
//! Statistics compare tokens by a 64-bit hash of their lowercased text
//! ([`token_hash`]) and n-grams by a 64-bit hash of their tokens' hashes
//! ([`ngram_hashes`]), both xxh3, so nothing is allocated per token. Two different
//! n-grams share a hash with probability 2^-64 per pair: at CNN/DailyMail scale
//! (about 18 M distinct training 4-grams, 0.7 M test positions) the chance that any
//! test position is counted as seen by a collision is about 18e6 * 0.7e6 / 2^64,
//! below one in a million per run.

use std::borrow::Cow;

use either::Either;
use unicode_segmentation::UnicodeSegmentation;
use xxhash_rust::xxh3::xxh3_64;

/// Which segments count as tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// Segments holding a letter or a digit (novelty n-grams).
    Words,
    /// Every segment but whitespace: words and punctuation (the report).
    WordsAndPunctuation,
}

/// The token segments of `text`, in order, as they stand in the text (not lowercased).
pub fn segments(text: &str, kind: TokenKind) -> impl Iterator<Item = &str> {
    // ASCII text (nearly all English news) takes a byte-level path that gives the
    // same segments as `split_word_bounds` (checked against it in the tests) at a
    // fraction of the cost.
    let all = if text.is_ascii() {
        Either::Left(AsciiWordBounds { text, at: 0 })
    } else {
        Either::Right(text.split_word_bounds())
    };
    all.filter(move |s| match kind {
        TokenKind::Words => s.chars().any(char::is_alphanumeric),
        TokenKind::WordsAndPunctuation => !s.chars().all(char::is_whitespace),
    })
}

/// UAX #29 word boundaries for ASCII text. For ASCII the rules come down to: runs
/// of letters, digits and `_` (WB5, WB8-WB10, WB13) hold together; a letter, then
/// `:` `.` or `'`, then a letter (WB6, WB7) holds; a digit, then `,` `;` `.` or
/// `'`, then a digit (WB11, WB12) holds; runs of spaces hold (WB3d) and CR LF
/// holds (WB3); every other character is a segment of its own (WB999).
struct AsciiWordBounds<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for AsciiWordBounds<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let first = *bytes.get(start)?;
        let mut end = start + 1;
        if is_word_byte(first) {
            end = word_end(bytes, start);
        } else if first == b' ' {
            while bytes.get(end) == Some(&b' ') {
                end += 1;
            }
        } else if first == b'\r' && bytes.get(end) == Some(&b'\n') {
            end += 1;
        }
        self.at = end;
        // Every boundary is between ASCII bytes, so a char boundary.
        Some(&self.text[start..end])
    }
}

/// Letters, digits and `_`: the bytes a word segment is made of.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end of the word segment of ASCII `bytes` that starts at `start` (a word byte).
fn word_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start + 1;
    loop {
        match bytes.get(end) {
            Some(&b) if is_word_byte(b) => end += 1,
            Some(&mid) => {
                let (before, after) = (bytes[end - 1], bytes.get(end + 1).copied());
                let holds = after.is_some_and(|after| {
                    (before.is_ascii_alphabetic()
                        && matches!(mid, b':' | b'.' | b'\'')
                        && after.is_ascii_alphabetic())
                        || (before.is_ascii_digit()
                            && matches!(mid, b',' | b';' | b'.' | b'\'')
                            && after.is_ascii_digit())
                });
                if !holds {
                    return end;
                }
                end += 2;
            }
            None => return end,
        }
    }
}

/// The tokens of `text`, lowercased.
pub fn tokens(text: &str, kind: TokenKind) -> Vec<String> {
    segments(text, kind)
        .map(|s| lowercase(s).into_owned())
        .collect()
}

/// A token lowercased: ASCII without a new allocation when it is already lower case,
/// anything else by Unicode's full lowercase mapping.
pub fn lowercase(token: &str) -> Cow<'_, str> {
    if token.is_ascii() {
        if token.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(token.to_ascii_lowercase())
        } else {
            Cow::Borrowed(token)
        }
    } else {
        Cow::Owned(token.to_lowercase())
    }
}

/// The hash of a token's lowercased text: equal tokens, equal hashes.
pub fn token_hash(token: &str) -> u64 {
    // Short ASCII tokens (nearly all of news text) are folded on the stack.
    if token.is_ascii() {
        return ascii_token_hash(token.as_bytes());
    }
    xxh3_64(lowercase(token).as_bytes())
}

/// Appends the hashes of `text`'s tokens to `out` (cleared first).
pub fn token_hashes_into(text: &str, kind: TokenKind, out: &mut Vec<u64>) {
    out.clear();
    out.extend(segments(text, kind).map(token_hash));
}

/// Appends the hashes of `text`'s [`TokenKind::Words`] tokens to `out` (cleared
/// first): the same hashes as [`token_hashes_into`] with `TokenKind::Words`.
///
/// Every n-gram statistic starts here, so ASCII text takes one pass over its
/// bytes: a segment that is not a word segment never holds a letter or a digit, so
/// only word segments are found, and each is folded and hashed where it stands.
pub fn word_hashes_into(text: &str, out: &mut Vec<u64>) {
    out.clear();
    if !text.is_ascii() {
        out.extend(segments(text, TokenKind::Words).map(token_hash));
        return;
    }
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        if !is_word_byte(b) {
            at += 1;
            continue;
        }
        let end = word_end(bytes, at);
        let word = &bytes[at..end];
        // A segment of underscores only is not a word token.
        if word.iter().any(u8::is_ascii_alphanumeric) {
            out.push(ascii_token_hash(word));
        }
        at = end;
    }
}

/// [`token_hash`] of an ASCII token.
fn ascii_token_hash(token: &[u8]) -> u64 {
    if token.len() <= 32 {
        let mut folded = [0u8; 32];
        for (to, from) in folded.iter_mut().zip(token) {
            *to = from.to_ascii_lowercase();
        }
        return xxh3_64(&folded[..token.len()]);
    }
    xxh3_64(&token.to_ascii_lowercase())
}

/// The hashes of `text`'s tokens, in order.
pub fn token_hashes(text: &str, kind: TokenKind) -> Vec<u64> {
    let mut out = Vec::new();
    token_hashes_into(text, kind, &mut out);
    out
}

/// The hash of every n-gram of consecutive tokens (given by their hashes), in order:
/// `tokens.len() - n + 1` of them, none when there are fewer than `n` tokens.
/// `n = 0` gives none.
pub fn ngram_hashes(tokens: &[u64], n: usize) -> impl ExactSizeIterator<Item = u64> + '_ {
    // `windows(0)` panics: n = 0 walks an empty slice instead.
    let windows = if n == 0 {
        tokens[..0].windows(1)
    } else {
        tokens.windows(n)
    };
    windows.map(ngram_hash)
}

/// The hash of one n-gram: xxh3 of its tokens' hashes in order, as little-endian
/// bytes.
pub fn ngram_hash(tokens: &[u64]) -> u64 {
    // Each n-gram of one summary has the same length: hashing bytes of a length
    // known when compiled lets xxh3 drop its branches on the length, which at n = 4
    // takes the hash from two thirds of the cost of tokenizing a word to a quarter.
    match tokens.len() {
        1 => fixed_ngram_hash::<1>(tokens),
        2 => fixed_ngram_hash::<2>(tokens),
        3 => fixed_ngram_hash::<3>(tokens),
        4 => fixed_ngram_hash::<4>(tokens),
        5 => fixed_ngram_hash::<5>(tokens),
        6 => fixed_ngram_hash::<6>(tokens),
        _ => {
            let bytes: Vec<u8> = tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
            xxh3_64(&bytes)
        }
    }
}

/// [`ngram_hash`] of `N` tokens (`tokens.len() == N`).
#[inline]
fn fixed_ngram_hash<const N: usize>(tokens: &[u64]) -> u64 {
    let bytes: [[u8; 8]; N] = std::array::from_fn(|i| tokens[i].to_le_bytes());
    xxh3_64(bytes.as_flattened())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        tokens(text, TokenKind::Words)
    }

    fn report(text: &str) -> Vec<String> {
        tokens(text, TokenKind::WordsAndPunctuation)
    }

    #[test]
    fn words_drop_punctuation_and_whitespace_and_lowercase() {
        assert_eq!(
            words("The PM said: \"No!\"  Then left."),
            ["the", "pm", "said", "no", "then", "left"]
        );
    }

    #[test]
    fn apostrophes_stay_inside_words_and_hyphens_split_them() {
        assert_eq!(
            words("Biden's well-known plan"),
            ["biden's", "well", "known", "plan"]
        );
        // A typographic apostrophe is a word-internal character as well.
        assert_eq!(words("Don\u{2019}t"), ["don\u{2019}t"]);
        assert_eq!(
            report("Biden's well-known plan."),
            ["biden's", "well", "-", "known", "plan", "."]
        );
    }

    #[test]
    fn numbers_keep_their_decimal_point_and_lose_symbols() {
        assert_eq!(
            words("Up 3.5% to £1,200 in 2021"),
            ["up", "3.5", "to", "1,200", "in", "2021"]
        );
        assert_eq!(report("3.5%"), ["3.5", "%"]);
    }

    #[test]
    fn unicode_letters_are_words_and_case_folds_fully() {
        assert_eq!(words("ÉTÉ à Zürich"), ["été", "à", "zürich"]);
        assert_eq!(words("Llywodraeth Cymru'n"), ["llywodraeth", "cymru'n"]);
        assert_eq!(words("ΣΟΦΙΑ"), ["σοφια"]);
        // Ideographs are a segment each.
        assert_eq!(words("東京都"), ["東", "京", "都"]);
    }

    #[test]
    fn report_tokens_keep_every_punctuation_segment() {
        assert_eq!(
            report("(Yes) - no..."),
            ["(", "yes", ")", "-", "no", ".", ".", "."]
        );
        assert!(report(" \t\n ").is_empty());
    }

    #[test]
    fn the_ascii_path_gives_the_segments_of_uax29() {
        let alphabet = b"aZ09_ .,;:'\"\r\n\t-%()!?";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 0..400usize {
            let text: String = (0..len % 40)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize] as char
                })
                .collect();
            let ours: Vec<&str> = AsciiWordBounds { text: &text, at: 0 }.collect();
            let uax29: Vec<&str> = text.split_word_bounds().collect();
            assert_eq!(ours, uax29, "{text:?}");
        }
        for text in [
            "e.g. 3.5% of U.S. and 1,200;3 a:b don't o'clock_x 'a' a.'b",
            "a  b\r\n\nc",
        ] {
            let ours: Vec<&str> = AsciiWordBounds { text, at: 0 }.collect();
            assert_eq!(
                ours,
                text.split_word_bounds().collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn word_hashes_are_the_hashes_of_the_word_tokens() {
        let alphabet = b"aZ09_ .,;:'\"\r\n\t-%()!?";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut texts: Vec<String> = (0..2000usize)
            .map(|len| {
                (0..len % 50)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        alphabet[(state % alphabet.len() as u64) as usize] as char
                    })
                    .collect()
            })
            .collect();
        texts.extend(
            [
                "e.g. 3.5% of U.S. and 1,200;3 a:b don't o'clock_x 'a' a.'b __ _x_",
                "The PM said: \"No!\"  Then left.",
                "Biden's well-known plan, ÉTÉ à Zürich",
                "",
                "___",
            ]
            .map(String::from),
        );
        texts.push(format!("{} short", "Long".repeat(20)));
        let mut ours = Vec::new();
        for text in &texts {
            word_hashes_into(text, &mut ours);
            assert_eq!(ours, token_hashes(text, TokenKind::Words), "{text:?}");
        }
    }

    #[test]
    fn token_hashes_ignore_case_on_every_path() {
        assert_eq!(token_hash("Biden"), token_hash("biden"));
        assert_eq!(token_hash("ZÜRICH"), token_hash("zürich"));
        let long = "A".repeat(40);
        assert_eq!(token_hash(&long), token_hash(&long.to_lowercase()));
        assert_ne!(token_hash("biden"), token_hash("bide"));
    }

    #[test]
    fn ngrams_are_windows_in_order_and_none_when_too_short() {
        let t = token_hashes("a b c d e", TokenKind::Words);
        let grams: Vec<u64> = ngram_hashes(&t, 4).collect();
        assert_eq!(grams.len(), 2);
        assert_eq!(grams[0], ngram_hash(&t[0..4]));
        assert_eq!(grams[1], ngram_hash(&t[1..5]));
        assert_ne!(grams[0], grams[1]);
        assert_eq!(ngram_hashes(&t[..3], 4).len(), 0);
        assert_eq!(ngram_hashes(&t, 0).len(), 0);
        // Order matters within an n-gram.
        let r = token_hashes("b a c d", TokenKind::Words);
        assert_ne!(ngram_hash(&r), ngram_hash(&t[..4]));
    }

    #[test]
    fn every_length_hashes_the_bytes_of_its_token_hashes() {
        let t = token_hashes(
            "one two three four five six seven eight nine ten",
            TokenKind::Words,
        );
        for len in 0..=t.len() {
            let bytes: Vec<u8> = t[..len].iter().flat_map(|h| h.to_le_bytes()).collect();
            assert_eq!(ngram_hash(&t[..len]), xxh3_64(&bytes), "{len}");
        }
    }

    #[test]
    fn long_ngrams_hash_like_short_ones() {
        let t = token_hashes(
            "one two three four five six seven eight nine ten",
            TokenKind::Words,
        );
        assert_eq!(ngram_hashes(&t, 10).len(), 1);
        assert_ne!(ngram_hash(&t), ngram_hash(&t[..9]));
    }
}
