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
//! no claim. Words after the name that point past the person's time in office
//! ("'s successor", " administration") make the claim one about the past, and a
//! name after "successor" or "predecessor" a claim of its own to the same office.
//! In a summary with capital letters, capitalized words after a title
//! that name no person of the facts are an unknown person ("Prime Minister Jacinda
//! Ardern" with no fact about her): said, never guessed.

use tempora_records::Tense;

use crate::lexicon::{Lexicon, Term};
use crate::words::{NOT_NAMES, POINTS_PAST, SMALL_WORDS};

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
            Term::Title(id) | Term::LowercasedTitle(id) => Some(*id),
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
    /// In a lowercased summary, a word right before the title that may be a
    /// name ("rangers boss"): for a role on an entity, the entity may be one
    /// the facts do not hold.
    pub word_before: bool,
    pub tense: Tense,
    /// The claim (by its index among the summary's) whose office this one's holder
    /// held too: "President X's successor Joe Biden" claims X's office for Biden.
    pub office_of: Option<usize>,
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

/// A title phrase: a title token grown with the places and past markers before it
/// and a place after it.
struct Phrase {
    /// Indices of its first and last tokens.
    first: usize,
    last: usize,
    /// Bytes of the phrase without its past markers.
    title_start: usize,
    title_end: usize,
    title: u32,
    places: Vec<u32>,
    past: bool,
}

impl Phrase {
    /// The phrase of the title token `i`.
    fn of(text: &str, tokens: &[Token], i: usize, title: u32) -> Self {
        let token = &tokens[i];
        // To the left: places and past markers.
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
        let (mut last, mut title_end) = (i, token.end);
        if let Some(next) = tokens.get(i + 1) {
            let gap = &text[token.end..next.start];
            if next.places().next().is_some() && !next.names_people() && of_the(gap) {
                places.extend(next.places());
                last = i + 1;
                title_end = next.end;
            }
        }
        Self {
            first,
            last,
            title_start,
            title_end,
            title,
            places,
            past,
        }
    }
}

/// The person of a title phrase, as the text places them.
struct Holder {
    /// Bytes of the whole claim.
    start: usize,
    end: usize,
    /// Bytes of the person's words (an honorific included).
    person_start: usize,
    person_end: usize,
    person: Named,
    /// Whether the person follows the title (what comes after the name may then
    /// say more of the claim: "President X's successor").
    after: bool,
}

/// Every claim of `text`, in text order.
pub(crate) fn find(
    text: &str,
    tokens: &[Token],
    lowercased: bool,
    is_entity: &dyn Fn(u32) -> bool,
) -> Vec<Found> {
    let mut claims = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Some(title) = token.title() else {
            continue;
        };
        if token.names_people() {
            continue;
        }
        let phrase = Phrase::of(text, tokens, i, title);
        let Some(holder) = person_after(text, tokens, &phrase)
            .or_else(|| person_before(text, tokens, &phrase))
            .or_else(|| unknown_person(text, tokens, &phrase, lowercased, is_entity))
        else {
            continue;
        };
        let phrase_start = tokens[phrase.first].start;
        // "President X's successor", "the President X administration": the words
        // after the name point past X's time in office, so the title is X's at some
        // time, not on the article's day.
        let beyond = holder
            .after
            .then(|| points_past(text, holder.person_end))
            .flatten();
        let claim = Found {
            start: holder.start,
            end: holder.end,
            person_start: holder.person_start,
            person_end: holder.person_end,
            person: holder.person,
            title_start: phrase.title_start,
            title_end: phrase.title_end,
            title: phrase.title,
            places: phrase.places,
            unknown_qualifier: !lowercased && unknown_word_before(text, phrase_start),
            word_before: lowercased && content_word_before(text, phrase_start),
            tense: if phrase.past || beyond.is_some() {
                Tense::Past
            } else {
                Tense::Present
            },
            office_of: None,
        };
        let relative = beyond
            .filter(|b| b.relative)
            .and_then(|b| relative_claim(text, tokens, &claim, b, claims.len()));
        claims.push(claim);
        claims.extend(relative);
    }
    claims
}

/// The person right after the title phrase: "President Joe Biden", a gloss in
/// brackets or an honorific between (whatever the gloss names is its own, not the
/// claim's), or a comma ("the prime minister, Boris Johnson").
fn person_after(text: &str, tokens: &[Token], phrase: &Phrase) -> Option<Holder> {
    let phrase_start = tokens[phrase.first].start;
    let mut k = phrase.last + 1;
    let mut at = tokens[phrase.last].end;
    if let Some(after) = gloss_end(text, at) {
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
    let person = tokens.get(k)?;
    let gap = &text[at..person.start];
    let gap = gap.strip_prefix('.').unwrap_or(gap);
    let close = blank(gap) || (honorific_start.is_none() && comma(gap));
    (close && person.names_people()).then(|| Holder {
        start: phrase_start,
        end: person.end,
        person_start: honorific_start.unwrap_or(person.start),
        person_end: person.end,
        person: Named::Known(person.people().collect()),
        after: true,
    })
}

/// The person right before the title phrase, with a comma: "Boris Johnson, the
/// PM", "Mr Johnson, the PM".
fn person_before(text: &str, tokens: &[Token], phrase: &Phrase) -> Option<Holder> {
    let person = &tokens[phrase.first.checked_sub(1)?];
    let phrase_start = tokens[phrase.first].start;
    if !person.names_people() || !apposition(&text[person.end..phrase_start]) {
        return None;
    }
    let from = match phrase.first.checked_sub(2).map(|h| &tokens[h]) {
        Some(h) if h.is_honorific() && blank(&text[h.end..person.start]) => h.start,
        _ => person.start,
    };
    Some(Holder {
        start: from,
        end: tokens[phrase.last].end,
        person_start: from,
        person_end: person.end,
        person: Named::Known(person.people().collect()),
        after: false,
    })
}

/// Capitalized words after the title phrase that name no one the facts know (in
/// a cased text only).
fn unknown_person(
    text: &str,
    tokens: &[Token],
    phrase: &Phrase,
    lowercased: bool,
    is_entity: &dyn Fn(u32) -> bool,
) -> Option<Holder> {
    let phrase_end = tokens[phrase.last].end;
    let next_token = tokens.get(phrase.last + 1).map_or(text.len(), |t| t.start);
    let (s, e) = if lowercased {
        // Lowercased, a name cannot be told from other words, except right
        // after a role on an entity the phrase names ("swansea city manager neil
        // curtis"): two words that are no small word.
        if !phrase.places.iter().any(|&p| is_entity(p)) {
            return None;
        }
        // A surname of someone else the facts hold ("louis wilson" beside Danny
        // Wilson) is the second word of an unknown name.
        let limit = match tokens.get(phrase.last + 1) {
            Some(t) if t.people().all(|(_, by_surname)| by_surname) && t.names_people() => {
                tokens.get(phrase.last + 2).map_or(text.len(), |t| t.start)
            }
            _ => next_token,
        };
        two_words(text, phrase_end, limit)?
    } else {
        capitalized_run(text, phrase_end, next_token)?
    };
    Some(Holder {
        start: tokens[phrase.first].start,
        end: e,
        person_start: s,
        person_end: e,
        person: Named::Unknown,
        after: true,
    })
}

/// A word after a person's name that points past their time in office: which
/// word, and whether another holder of the office follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PointsPast {
    /// Bytes of the word ("successor").
    pub start: usize,
    pub end: usize,
    /// "successor", "predecessor": a name after it is another holder.
    pub relative: bool,
}

/// The word of [`POINTS_PAST`] right after byte `at` (the end of a name), a
/// possessive between or not: "'s successor", " administration".
pub(crate) fn points_past(text: &str, at: usize) -> Option<PointsPast> {
    let rest = text.get(at..)?;
    let rest = possessive_rest(rest).unwrap_or(rest);
    let word = rest.trim_start();
    if word.len() == rest.len() {
        return None;
    }
    let start = text.len() - word.len();
    let len = word
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(word.len());
    let word = &word[..len];
    POINTS_PAST
        .iter()
        .find(|(w, _)| w.eq_ignore_ascii_case(word) || plural_of(word, w))
        .map(|&(_, relative)| PointsPast {
            start,
            end: start + len,
            relative,
        })
}

fn plural_of(word: &str, singular: &str) -> bool {
    word.len() == singular.len() + 1
        && word
            .get(..singular.len())
            .is_some_and(|stem| stem.eq_ignore_ascii_case(singular))
        && word.ends_with(['s', 'S'])
}

/// Whether the name at byte `at` follows a word that makes it another holder of
/// someone's office ("X's successor Joe Biden", "his predecessor, Donald Trump").
pub(crate) fn after_relative(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end();
    let before = before.strip_suffix(',').unwrap_or(before).trim_end();
    let word = before
        .rsplit(|c: char| !c.is_alphabetic())
        .next()
        .unwrap_or("");
    POINTS_PAST
        .iter()
        .any(|(w, relative)| *relative && (w.eq_ignore_ascii_case(word) || plural_of(word, w)))
}

/// The claim of the holder a relative word names ("President X's successor Joe
/// Biden": Biden held X's office at some time): the person right after the word
/// (a comma between or not), unless a title of their own comes first.
fn relative_claim(
    text: &str,
    tokens: &[Token],
    of: &Found,
    word: PointsPast,
    of_index: usize,
) -> Option<Found> {
    let k = tokens.partition_point(|t| t.start < word.end);
    let person = tokens.get(k)?;
    let gap = &text[word.end..person.start];
    if !(blank(gap) || comma(gap)) || !person.names_people() || person.title().is_some() {
        return None;
    }
    Some(Found {
        start: word.start,
        end: person.end,
        person_start: person.start,
        person_end: person.end,
        person: Named::Known(person.people().collect()),
        tense: Tense::Past,
        office_of: Some(of_index),
        ..of.clone()
    })
}
fn blank(gap: &str) -> bool {
    !gap.is_empty() && gap.chars().all(char::is_whitespace)
}

/// `'s` and a space: also `’s`, a tokenizer's ` 's` and an escaped `\'s` (XSum's
/// system outputs write `scotland\'s`).
fn possessive(gap: &str) -> bool {
    possessive_rest(gap).is_some_and(blank)
}

/// What follows a possessive at the start of `text` (see [`possessive`]).
fn possessive_rest(text: &str) -> Option<&str> {
    let text = text.strip_prefix(' ').unwrap_or(text);
    let text = text.strip_prefix('\\').unwrap_or(text);
    text.strip_prefix("'s").or_else(|| text.strip_prefix("’s"))
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

/// Two words of letters right after `from` (one space before each), ending
/// before `limit`, neither a small word: the byte range.
fn two_words(text: &str, from: usize, limit: usize) -> Option<(usize, usize)> {
    let rest = text.get(from..limit)?.strip_prefix(' ')?;
    let mut words = rest.split(' ');
    let (first, second) = (words.next()?, words.next()?);
    let second = second.trim_end_matches([',', '.', ';', ':', '!', '?', ')']);
    let second = second.strip_suffix("'s").unwrap_or(second);
    let name = |w: &str| {
        w.chars().count() >= 2 && w.chars().all(char::is_alphabetic) && !SMALL_WORDS.contains(&w)
    };
    (name(first) && name(second)).then(|| {
        let start = from + 1;
        (start, start + first.len() + 1 + second.len())
    })
}

/// Whether the word right before byte `at` of a lowercased text may be a name:
/// letters only, and none of the small words that stand before a title
/// ("the", "his", "former", "caretaker").
fn content_word_before(text: &str, at: usize) -> bool {
    let before = &text[..at];
    if !before.ends_with(' ') {
        return false;
    }
    let Some(word) = before.trim_end().rsplit(' ').next() else {
        return false;
    };
    // "ex-rangers boss": the word after the hyphen.
    let word = word.rsplit('-').next().unwrap_or(word);
    let word = word.trim_end_matches(['\'', '’']).trim_end_matches("'s");
    !word.is_empty() && word.chars().all(char::is_alphabetic) && !SMALL_WORDS.contains(&word)
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
        let text = "President Lowe's successor Colin Quinn";
        let past = points_past(text, 14).unwrap();
        assert_eq!(
            (&text[past.start..past.end], past.relative),
            ("successor", true)
        );
        assert!(after_relative(text, 27));
        let text = "the president lowe \\'s administrations and";
        let past = points_past(text, 18).unwrap();
        assert_eq!(&text[past.start..past.end], "administrations");
        assert!(!past.relative);
        assert_eq!(points_past("President Lowe's decision", 14), None);
        assert_eq!(points_past("President Lowe's successors", 27), None);
        assert!(after_relative("his predecessor, Daniel", 17));
        assert!(!after_relative("his decision, Daniel", 14));
        // A word of other letters as long as a plural is no plural (and no panic).
        assert_eq!(points_past("X successoé", 1), None);
        assert!(!after_relative("his successoé Daniel", 15));
        assert!(!of_the(" for the "));
    }
}
