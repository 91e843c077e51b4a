//! Finding claims in a summary: a title next to a person.
//!
//! The summary is scanned once ([`Lexicon`]); the matched words become tokens
//! (longest first, none inside another), and each title token is grown into a
//! title phrase with the places and past markers before it ("former US",
//! "Scotland's", "ex-") and a place after it ("prime minister of Australia"). The
//! phrase makes a claim with the person right after it ("President Joe Biden",
//! "the prime minister, Boris Johnson", an honorific between) or, failing that, the
//! person right before it with a comma ("Boris Johnson, the prime minister,",
//! "Mr Johnson, the PM"). An office without a person ("the prime minister said") is
//! no claim. In a summary with capital letters, capitalized words after a title
//! that name no person of the facts are an unknown person ("Prime Minister Jacinda
//! Ardern" with no fact about her): said, never guessed.

use tempora_records::Tense;

use crate::lexicon::{Lexicon, Term};
use crate::words::NOT_NAMES;

/// A matched stretch of the summary with its meanings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub start: usize,
    pub end: usize,
    pub terms: Terms,
}

/// A token's terms: almost always one (a name, a title), kept without an
/// allocation of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Terms {
    /// One term.
    One(Term),
    /// Several (a name two people share, a word that is a name and a place).
    Many(Vec<Term>),
}

impl Terms {
    fn iter(&self) -> std::slice::Iter<'_, Term> {
        match self {
            Self::One(term) => std::slice::from_ref(term).iter(),
            Self::Many(terms) => terms.iter(),
        }
    }

    fn contains(&self, term: &Term) -> bool {
        self.iter().any(|t| t == term)
    }
}

impl Token {
    fn title(&self) -> Option<u32> {
        self.terms.iter().find_map(|t| match t {
            Term::Title(id) => Some(*id),
            _ => None,
        })
    }

    fn places(&self) -> impl Iterator<Item = u32> + '_ {
        self.terms.iter().filter_map(|t| match t {
            Term::Place { place, .. } => Some(*place),
            _ => None,
        })
    }

    fn is_past(&self) -> bool {
        self.terms.iter().any(|t| matches!(t, Term::Past { .. }))
    }

    fn is_honorific(&self) -> bool {
        self.terms.contains(&Term::Honorific)
    }

    /// The people the token names: (person, by surname only).
    pub fn people(&self) -> impl Iterator<Item = (u32, bool)> + '_ {
        self.terms.iter().filter_map(|t| match t {
            Term::Person { person, .. } => Some((*person, false)),
            Term::Surname { person, .. } => Some((*person, true)),
            _ => None,
        })
    }

    /// Whether the token names a person.
    pub fn names_people(&self) -> bool {
        self.people().next().is_some()
    }
}

/// Who a claim is about, as the summary names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Named {
    /// People of the facts the words may name: (person, by surname only).
    Known(Vec<(u32, bool)>),
    /// Capitalized words that name no one the facts know.
    Unknown,
}

/// A claim as found, before its person and office are resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Bytes of the whole claim.
    pub start: usize,
    pub end: usize,
    /// Bytes of the person's words.
    pub person_start: usize,
    pub person_end: usize,
    pub person: Named,
    /// Bytes of the title phrase without its past markers ("US President").
    pub title_start: usize,
    pub title_end: usize,
    pub title: u32,
    /// Places in the title phrase.
    pub places: Vec<u32>,
    /// A capitalized word right before the title that is no place the lexicon
    /// knows ("Tory leader"): the office is then not the facts' to say.
    pub unknown_qualifier: bool,
    pub tense: Tense,
}

/// Whether a summary is lowercased (many published system outputs are): no word
/// in it is capitalized, a capital followed by lower case ("Boris", "The").
/// Capitals alone do not make a text cased: tokenizers' `UNK`, an acronym, a
/// stray `Â` of a mis-decoded byte.
pub fn is_lowercased(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    let mut at_word_start = true;
    while let Some(c) = chars.next() {
        if at_word_start && c.is_uppercase() && chars.peek().is_some_and(|n| n.is_lowercase()) {
            return false;
        }
        at_word_start = !c.is_alphanumeric();
    }
    true
}

/// The tokens of `text`: every matched stretch whose terms count in this text's
/// case, longest first, none inside another.
pub(crate) fn tokens(lexicon: &Lexicon, text: &str, lowercased: bool) -> Vec<Token> {
    let found = lexicon.matcher.scan(text);
    let mut out: Vec<Token> = Vec::new();
    let mut reach = 0;
    let mut i = 0;
    while i < found.len() {
        let (start, end) = (found[i].start, found[i].end);
        if start < reach {
            // Inside a longer token ("Biden" in "Joe Biden"): its meanings do not
            // count, and a surname many people share has many.
            i += 1;
            continue;
        }
        // Almost always one term a span: the first needs no allocation.
        let mut terms: Vec<Term> = Vec::new();
        let mut first: Option<Term> = None;
        // Every variant at this span (exact and any case are two).
        while i < found.len() && (found[i].start, found[i].end) == (start, end) {
            for term in lexicon.terms_of(found[i].variant) {
                let counts = term.counts(lowercased)
                    && match term {
                        Term::Past { needs_hyphen: true } => hyphen_follows(text, end),
                        _ => true,
                    };
                if !counts || first == Some(term) || terms.contains(&term) {
                    continue;
                }
                match first {
                    None => first = Some(term),
                    Some(one) => {
                        if terms.is_empty() {
                            terms.push(one);
                        }
                        terms.push(term);
                    }
                }
            }
            i += 1;
        }
        let Some(one) = first else {
            continue;
        };
        reach = end;
        let terms = if terms.is_empty() {
            Terms::One(one)
        } else {
            Terms::Many(terms)
        };
        out.push(Token { start, end, terms });
    }
    out
}

fn hyphen_follows(text: &str, at: usize) -> bool {
    text[at..]
        .trim_start_matches(' ')
        .starts_with(['-', '‑', '–'])
}

/// Every claim of `text`, in text order.
pub(crate) fn find(text: &str, tokens: &[Token], lowercased: bool) -> Vec<Found> {
    let mut claims = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Some(title) = token.title() else {
            continue;
        };
        if token.names_people() {
            continue;
        }
        // Grow the phrase to the left: places and past markers.
        let (mut first, mut places, mut past) = (i, Vec::new(), false);
        let mut title_start = token.start;
        while first > 0 {
            let prev = &tokens[first - 1];
            let gap = &text[prev.end..tokens[first].start];
            if prev.places().next().is_some()
                && !prev.names_people()
                && (blank(gap) || possessive(gap))
            {
                places.extend(prev.places());
                title_start = prev.start;
            } else if prev.is_past() && (blank(gap) || hyphen(gap)) {
                past = true;
            } else {
                break;
            }
            first -= 1;
        }
        // And to the right: "of [the] Australia".
        let mut last = i;
        let mut title_end = token.end;
        if let Some(next) = tokens.get(i + 1) {
            let gap = &text[token.end..next.start];
            if next.places().next().is_some() && !next.names_people() && of_the(gap) {
                places.extend(next.places());
                last = i + 1;
                title_end = next.end;
            }
        }
        let phrase_start = tokens[first].start;
        let phrase_end = tokens[last].end;
        let unknown_qualifier = !lowercased && unknown_word_before(text, phrase_start);
        let tense = if past { Tense::Past } else { Tense::Present };
        let claim = |start, end, person_start, person_end, person| Found {
            start,
            end,
            person_start,
            person_end,
            person,
            title_start,
            title_end,
            title,
            places: places.clone(),
            unknown_qualifier,
            tense,
        };
        // The person right after the title (a gloss in brackets or an honorific
        // between: whatever the gloss names is its own, not the claim's).
        let mut k = last + 1;
        let mut at = phrase_end;
        if let Some(after) = gloss_end(text, phrase_end) {
            at = after;
            while tokens.get(k).is_some_and(|t| t.start < after) {
                k += 1;
            }
        }
        let mut honorific_start = None;
        while let Some(t) = tokens.get(k).filter(|t| t.is_honorific()) {
            if !blank(&text[at..t.start]) {
                break;
            }
            honorific_start.get_or_insert(t.start);
            at = t.end;
            k += 1;
        }
        if let Some(person) = tokens.get(k) {
            let gap = &text[at..person.start];
            let gap = gap.strip_prefix('.').unwrap_or(gap);
            let close = blank(gap) || (honorific_start.is_none() && comma(gap));
            if close && person.names_people() {
                let from = honorific_start.unwrap_or(person.start);
                let named = Named::Known(person.people().collect());
                claims.push(claim(phrase_start, person.end, from, person.end, named));
                continue;
            }
        }
        // The person right before it, with a comma: "Boris Johnson, the PM".
        if first > 0 {
            let person = &tokens[first - 1];
            let gap = &text[person.end..phrase_start];
            if person.names_people() && apposition(gap) {
                let from = match first.checked_sub(2).map(|h| &tokens[h]) {
                    Some(h) if h.is_honorific() && blank(&text[h.end..person.start]) => h.start,
                    _ => person.start,
                };
                let named = Named::Known(person.people().collect());
                claims.push(claim(from, phrase_end, from, person.end, named));
                continue;
            }
        }
        // Capitalized words that name no one known.
        if !lowercased {
            let next_token = tokens.get(last + 1).map_or(text.len(), |t| t.start);
            if let Some((s, e)) = capitalized_run(text, phrase_end, next_token) {
                claims.push(claim(phrase_start, e, s, e, Named::Unknown));
            }
        }
    }
    claims
}

fn blank(gap: &str) -> bool {
    !gap.is_empty() && gap.chars().all(char::is_whitespace)
}

/// `'s` and a space: also `’s`, a tokenizer's ` 's` and an escaped `\'s` (XSum's
/// system outputs write `scotland\'s`).
fn possessive(gap: &str) -> bool {
    let gap = gap.strip_prefix(' ').unwrap_or(gap);
    let gap = gap.strip_prefix('\\').unwrap_or(gap);
    let rest = gap.strip_prefix("'s").or_else(|| gap.strip_prefix("’s"));
    rest.is_some_and(blank)
}

/// Where a gloss in brackets right after byte `at` ends ("Taoiseach (Irish Prime
/// Minister) Enda Kenny"): the byte after its `)`, when the gloss is short (at
/// most 60 bytes) and holds no other bracket.
fn gloss_end(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let open = rest.strip_prefix(' ')?.strip_prefix('(')?;
    let close = open.find([')', '('])?;
    (open.as_bytes()[close] == b')' && close <= 60).then(|| at + 2 + close + 1)
}

fn hyphen(gap: &str) -> bool {
    let t = gap.trim();
    ["-", "‑", "–"].contains(&t)
}

fn comma(gap: &str) -> bool {
    gap.trim() == ","
}

fn of_the(gap: &str) -> bool {
    let words: Vec<&str> = gap.split_whitespace().collect();
    gap.starts_with(char::is_whitespace)
        && gap.ends_with(char::is_whitespace)
        && match words.as_slice() {
            [of] => of.eq_ignore_ascii_case("of"),
            [of, the] => of.eq_ignore_ascii_case("of") && the.eq_ignore_ascii_case("the"),
            _ => false,
        }
}

/// `, ` then an optional article: what stands between a name and its title in
/// apposition.
fn apposition(gap: &str) -> bool {
    let Some(rest) = gap.trim_start().strip_prefix(',') else {
        return false;
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    rest.ends_with(char::is_whitespace)
        && match words.as_slice() {
            [] => true,
            [article] => ["the", "a", "an"]
                .iter()
                .any(|a| a.eq_ignore_ascii_case(article)),
            _ => false,
        }
}

/// Whether the word right before `at` (a space between) is capitalized and no
/// word that may stand there anyway ("The", "New", a day).
fn unknown_word_before(text: &str, at: usize) -> bool {
    let before = &text[..at];
    if !before.ends_with(' ') {
        return false;
    }
    let Some(word) = before.trim_end().rsplit(' ').next() else {
        return false;
    };
    let word = word.trim_end_matches(['\'', '’']).trim_end_matches("'s");
    word.chars().next().is_some_and(char::is_uppercase)
        && word.chars().all(char::is_alphabetic)
        && !NOT_NAMES.contains(&word)
        && ![
            "New", "Acting", "Interim", "Incoming", "Current", "Now", "Then",
        ]
        .contains(&word)
}

/// One to four capitalized words right after `from` (one space between), ending
/// before `limit`: the byte range, without a possessive `'s`.
fn capitalized_run(text: &str, from: usize, limit: usize) -> Option<(usize, usize)> {
    let rest = text.get(from..limit)?;
    let trimmed = rest.strip_prefix(' ')?;
    let start = from + 1;
    let mut end = start;
    for (n, word) in trimmed.split(' ').enumerate() {
        let bare = word.trim_end_matches([',', '.', ';', ':', '!', '?', ')']);
        let bare = bare
            .strip_suffix("'s")
            .or_else(|| bare.strip_suffix("’s"))
            .unwrap_or(bare);
        let capitalized = bare.chars().next().is_some_and(char::is_uppercase)
            && bare
                .chars()
                .all(|c| c.is_alphabetic() || c == '-' || c == '\'');
        if n == 4 || !capitalized || (n == 0 && NOT_NAMES.contains(&bare)) {
            break;
        }
        end = start + (word.as_ptr() as usize - trimmed.as_ptr() as usize) + bare.len();
        if bare.len() != word.len() {
            break;
        }
    }
    (end > start).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercased_means_no_capitalized_word() {
        assert!(is_lowercased(
            "ukip leader nigel farage said ' UNK ' on tuesday"
        ));
        assert!(is_lowercased("india's pm said (Â # payment) in the US"));
        assert!(!is_lowercased("UKIP leader Nigel Farage said"));
        assert!(!is_lowercased("the prime minister met Mr. x"));
    }

    #[test]
    fn gaps_a_phrase_may_have() {
        assert!(possessive("'s "));
        assert!(possessive("\\'s "));
        assert!(possessive(" 's "));
        assert!(possessive("’s "));
        assert!(!possessive("s "));
        let text = "Taoiseach (Irish Prime Minister) Enda Kenny";
        assert_eq!(gloss_end(text, 9), Some(32));
        assert_eq!(&text[32..], " Enda Kenny");
        assert_eq!(gloss_end("Taoiseach (a (b) c) X", 9), None);
        assert_eq!(gloss_end("Taoiseach Enda Kenny", 9), None);
        assert!(apposition(", the "));
        assert!(apposition(" , a "));
        assert!(!apposition(", who is the "));
        assert!(of_the(" of the "));
        assert!(!of_the(" for the "));
    }
}
