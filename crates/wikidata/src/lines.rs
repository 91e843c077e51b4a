//! Lines of the dump: splitting decompressed text into whole lines, the byte
//! pre-filter, and what a line is (a bracket, an entity, a candidate, or junk).
//!
//! Only lines with a claim key of a configured relation (`"P39"` followed by `:` and
//! `[`, with any JSON whitespace between them) are parsed as JSON: the quoted id
//! cannot occur unescaped inside a JSON string, so the filter only lets through
//! lines with such a claim (or, rarely, such a qualifier, or a key of that name
//! elsewhere; parsing decides). Every other line costs a byte search and a walk over
//! its first keys for its id. Dumps are compact (`"P39":[`), but a line with
//! whitespace where JSON allows it, or with its keys in another order, is read the
//! same: an entity line is never passed over for its layout.

use std::ops::Range;

use chrono::NaiveDate;
use memchr::memmem;
use tempora_records::Fact;

use crate::entity::{parse_entity, BadStatement, Names};
use crate::evolving::evolving_facts;

/// What one line is.
#[derive(Debug)]
pub enum LineKind {
    /// `[`, `]` or an empty line.
    Bracket,
    /// An entity line that is not a candidate, with its key (see [`entity_key`]).
    Entity(Option<u64>),
    /// A candidate line, parsed.
    Candidate(Box<Candidate>),
    /// A line that passed the filter but is not a valid entity, or that is not JSON.
    Malformed(String),
}

/// A parsed candidate line, with its evolving facts already decided.
#[derive(Debug)]
pub struct Candidate {
    /// Entity id.
    pub id: String,
    /// Its key.
    pub key: Option<u64>,
    /// Its names.
    pub names: Names,
    /// Facts of its evolving pairs (object names still empty).
    pub facts: Vec<Fact>,
    /// Statements dropped for bad values.
    pub bad: Vec<BadStatement>,
    /// Statements of each relation the line holds, in the classifier's order.
    pub held: Vec<u32>,
}

/// Classifies lines: the pre-filter plus parsing. Shared by the worker threads.
pub struct LineClassifier {
    finders: Vec<memmem::Finder<'static>>,
    relations: Vec<String>,
    languages: Vec<String>,
    cutoff: NaiveDate,
}

impl LineClassifier {
    /// A classifier for these relations (no relations: no line is a candidate).
    pub fn new(relations: &[String], languages: &[String], cutoff: NaiveDate) -> Self {
        let finders = relations
            .iter()
            .map(|r| memmem::Finder::new(format!("\"{r}\"").as_bytes()).into_owned())
            .collect();
        Self {
            finders,
            relations: relations.to_vec(),
            languages: languages.to_vec(),
            cutoff,
        }
    }

    /// What `line` (without its newline) is.
    pub fn classify(&self, line: &[u8]) -> LineKind {
        let line = entity_text(line);
        match line.first() {
            None | Some(b'[' | b']') if line.len() <= 1 => return LineKind::Bracket,
            Some(b'{') => {}
            _ => {
                return LineKind::Malformed(format!(
                    "not an entity line: starts with `{}`",
                    preview(line)
                ))
            }
        }
        if !self.finders.iter().any(|f| has_claim_key(f, line)) {
            return match line_id(line) {
                Some(id) => LineKind::Entity(entity_key(id)),
                None => LineKind::Malformed("no entity id".into()),
            };
        }
        match parse_entity(line, &self.relations, &self.languages) {
            Ok(entity) => LineKind::Candidate(Box::new(Candidate {
                key: entity_key(entity.id.as_bytes()),
                facts: evolving_facts(&entity, self.cutoff),
                id: entity.id,
                names: entity.names,
                bad: entity.bad,
                held: entity.held,
            })),
            Err(e) => LineKind::Malformed(format!("invalid entity JSON: {e}")),
        }
    }
}

/// The line without its trailing `,`, carriage return and surrounding blanks.
pub fn entity_text(line: &[u8]) -> &[u8] {
    let line = line.trim_ascii();
    line.strip_suffix(b",").unwrap_or(line)
}

/// The first 60 characters of a line, for messages.
pub fn preview(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned();
    if line.len() > 60 {
        format!("{text}...")
    } else {
        text
    }
}

/// Whether `line` holds the quoted property id of `finder` as a key whose value is
/// an array (`"P39":[`, or `"P39" : [`): a claim list, or rarely a qualifier list.
fn has_claim_key(finder: &memmem::Finder<'_>, line: &[u8]) -> bool {
    let width = finder.needle().len();
    finder.find_iter(line).any(|at| {
        let colon = skip_blanks(line, at + width);
        line.get(colon) == Some(&b':') && line.get(skip_blanks(line, colon + 1)) == Some(&b'[')
    })
}

/// The first position at or after `at` that is not JSON whitespace.
fn skip_blanks(line: &[u8], mut at: usize) -> usize {
    while line
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// The entity's id: the string value of the line's top-level `id` key, found by
/// bytes only (no parsing). The top-level keys are walked in order, each value
/// skipped unread, so an `id` nested in a claim is never taken for the entity's.
/// Dumps write `type` and `id` first: the walk reads a few bytes. `None` when the
/// line is not an object with a string `id` (or breaks off before it).
pub fn line_id(line: &[u8]) -> Option<&[u8]> {
    let mut at = skip_blanks(line, 0);
    if line.get(at) != Some(&b'{') {
        return None;
    }
    loop {
        let (key, after) = string_at(line, skip_blanks(line, at + 1))?;
        at = skip_blanks(line, after);
        if line.get(at) != Some(&b':') {
            return None;
        }
        at = skip_blanks(line, at + 1);
        if key == b"id" {
            return string_at(line, at).map(|(id, _)| id);
        }
        at = skip_blanks(line, skip_value(line, at)?);
        if line.get(at) != Some(&b',') {
            return None; // `}`: an object without `id`.
        }
    }
}

/// The JSON string starting at `at` (its bytes between the quotes, escapes as
/// written) and the position after its closing quote.
fn string_at(line: &[u8], at: usize) -> Option<(&[u8], usize)> {
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let mut from = at + 1;
    loop {
        let found = from + memchr::memchr2(b'"', b'\\', line.get(from..)?)?;
        if line[found] == b'"' {
            return Some((&line[at + 1..found], found + 1));
        }
        from = found + 2; // An escape: its next byte is never the closing quote.
    }
}

/// The position just after the JSON value starting at `at`; `None` when the line
/// ends inside it.
fn skip_value(line: &[u8], at: usize) -> Option<usize> {
    match *line.get(at)? {
        b'"' => string_at(line, at).map(|(_, end)| end),
        b'{' | b'[' => {
            let (mut depth, mut i) = (0usize, at);
            loop {
                match *line.get(i)? {
                    b'"' => {
                        i = string_at(line, i)?.1;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => Some(
            at + line[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(line.len() - at),
        ),
    }
}

/// A number for an entity id: `Q42` is 42, `P39` and `L7` get high tag bits. Other
/// ids (`M`-, `E`- and malformed ones) have none.
pub fn entity_key(id: &[u8]) -> Option<u64> {
    let (tag, digits) = id.split_first()?;
    let tag = match tag {
        b'Q' => 0,
        b'P' => 1 << 62,
        b'L' => 2 << 62,
        _ => return None,
    };
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    Some(tag | n)
}

/// A block of decompressed text, cut anywhere: the piece before its first newline
/// belongs to a line begun in earlier blocks, the piece after its last newline to a
/// line that later blocks finish; the lines between are whole and classified.
#[derive(Debug)]
pub struct ScannedBlock {
    /// The text.
    pub text: Vec<u8>,
    /// End of the first line piece (just past its newline); `None` when the block has no newline.
    pub head_end: Option<usize>,
    /// Start of the unfinished last line.
    pub tail_start: usize,
    /// The whole lines in between (ranges without the newline) and what they are.
    pub lines: Vec<(Range<usize>, LineKind)>,
}

/// Splits `text` into pieces and classifies its whole lines.
pub fn scan_block(text: Vec<u8>, classifier: &LineClassifier) -> ScannedBlock {
    let Some(first_nl) = memchr::memchr(b'\n', &text) else {
        let tail_start = text.len();
        return ScannedBlock {
            text,
            head_end: None,
            tail_start,
            lines: Vec::new(),
        };
    };
    let head_end = first_nl + 1;
    let mut lines = Vec::new();
    let mut start = head_end;
    for nl in memchr::memchr_iter(b'\n', &text[head_end..]) {
        let end = head_end + nl;
        lines.push((start..end, classifier.classify(&text[start..end])));
        start = end + 1;
    }
    ScannedBlock {
        text,
        head_end: Some(head_end),
        tail_start: start,
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classifier() -> LineClassifier {
        LineClassifier::new(
            &["P39".to_string(), "P1308".to_string()],
            &["en".to_string()],
            NaiveDate::from_ymd_opt(2019, 12, 31).unwrap(),
        )
    }

    #[test]
    fn keys_and_ids_by_bytes() {
        assert_eq!(entity_key(b"Q42"), Some(42));
        assert_eq!(entity_key(b"P39"), Some((1 << 62) | 39));
        assert_eq!(entity_key(b"Q"), None);
        assert_eq!(entity_key(b"Q4x"), None);
        assert_eq!(entity_key(b"M5"), None);
        assert_eq!(
            line_id(br#"{"type":"item","id":"Q31","labels":{}}"#),
            Some(&b"Q31"[..])
        );
        assert_eq!(line_id(br#"{"type":"item"}"#), None);
    }

    #[test]
    fn the_id_is_the_top_level_ones_in_any_layout() {
        for line in [
            &br#"{"type": "item", "id": "Q31", "labels": {}}"#[..],
            br#" { "type" : "item" ,	"id"	:	"Q31" }"#,
            // Keys in another order: the ids nested in claims come first and are not it.
            br#"{"claims":{"P31":[{"mainsnak":{"datavalue":{"value":{"id":"Q5"}}},"id":"Q31$A"}]},"labels":{"en":{"value":"a \"}\" b"}},"n":-1.5e3,"ok":true,"id":"Q31"}"#,
            br#"{"aliases": {"en": [{"language": "en", "value": "[{"}]}, "id": "Q31"}"#,
        ] {
            assert_eq!(line_id(line), Some(&b"Q31"[..]), "{}", preview(line));
        }
        for line in [
            &br#"{"claims":{"P31":[{"id":"Q5"}]}}"#[..],
            br#"{"type":"item","labels":{"#,
            br#"{"id":31}"#,
            br#"["id","Q31"]"#,
        ] {
            assert_eq!(line_id(line), None, "{}", preview(line));
        }
    }

    #[test]
    fn a_claim_key_is_found_with_whitespace_where_json_allows_it() {
        let c = classifier();
        for line in [
            &br#"{"type": "item", "id": "Q7", "claims": {"P39": []}},"#[..],
            br#"{"claims" : { "P39"	:	[ ] } , "id" : "Q7" , "type" : "item"}"#,
        ] {
            match c.classify(line) {
                LineKind::Candidate(cand) => assert_eq!(cand.id, "Q7"),
                other => panic!("{}: {other:?}", preview(line)),
            }
        }
        // The quoted id as a value, not a key: no candidate, and the line is an entity.
        assert!(matches!(
            c.classify(
                br#"{"type": "item", "id": "Q8", "claims": {"P31": [{"property": "P39"}]}}"#
            ),
            LineKind::Entity(Some(8))
        ));
        // An object line without an id is named, not counted as an entity.
        assert!(matches!(
            c.classify(br#"{"type": "item", "labels": {}},"#),
            LineKind::Malformed(reason) if reason == "no entity id"
        ));
    }

    #[test]
    fn only_lines_with_a_relation_claim_are_parsed() {
        let c = classifier();
        assert!(matches!(c.classify(b"["), LineKind::Bracket));
        assert!(matches!(c.classify(b"]"), LineKind::Bracket));
        assert!(matches!(
            c.classify(br#"{"type":"item","id":"Q5","claims":{"P31":[]}},"#),
            LineKind::Entity(Some(5))
        ));
        // The pattern inside a string is escaped, so it does not pass the filter.
        assert!(matches!(
            c.classify(br#"{"type":"item","id":"Q6","labels":{"en":{"language":"en","value":"\"P39\":["}}},"#),
            LineKind::Entity(Some(6))
        ));
        match c.classify(br#"{"type":"item","id":"Q7","claims":{"P39":[]}},"#) {
            LineKind::Candidate(cand) => assert_eq!((cand.id.as_str(), cand.key), ("Q7", Some(7))),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            c.classify(br#"{"type":"item","id":"Q8","claims":{"P39":[{]}},"#),
            LineKind::Malformed(_)
        ));
        assert!(matches!(c.classify(b"hello"), LineKind::Malformed(_)));
    }

    #[test]
    fn blocks_split_into_head_whole_lines_and_tail() {
        let c = classifier();
        let b = scan_block(
            b"d\"},\n{\"id\":\"Q1\"},\n{\"id\":\"Q2\"},\n{\"id\"".to_vec(),
            &c,
        );
        assert_eq!(b.head_end, Some(5));
        assert_eq!(b.lines.len(), 2);
        assert_eq!(&b.text[b.tail_start..], b"{\"id\"");
        let b = scan_block(b"no newline".to_vec(), &c);
        assert_eq!((b.head_end, b.lines.len()), (None, 0));
    }
}
