//! Lines of the dump: splitting decompressed text into whole lines, the byte
//! pre-filter, and what a line is (a bracket, an entity, a candidate, or junk).
//!
//! Only lines that contain `"P39":[` (or another configured relation, written the way
//! a claim key is) are parsed as JSON: the pattern cannot occur unescaped inside a
//! JSON string, so the filter only lets through lines with such a claim (or, rarely,
//! such a qualifier). Every other line costs a byte search and a look at its first
//! bytes for its id.

use std::ops::Range;
use std::sync::LazyLock;

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
            .map(|r| memmem::Finder::new(format!("\"{r}\":[").as_bytes()).into_owned())
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
        if !self.finders.iter().any(|f| f.find(line).is_some()) {
            return LineKind::Entity(line_id(line).and_then(entity_key));
        }
        match parse_entity(line, &self.relations, &self.languages) {
            Ok(entity) => LineKind::Candidate(Box::new(Candidate {
                key: entity_key(entity.id.as_bytes()),
                facts: evolving_facts(&entity, self.cutoff),
                id: entity.id,
                names: entity.names,
                bad: entity.bad,
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

/// The entity id near the start of a line (`{"type":"item","id":"Q31",...`), found by
/// bytes only. Dumps write `type` and `id` first; we look in the first KiB.
pub fn line_id(line: &[u8]) -> Option<&[u8]> {
    // Built once: `memmem::find` would build a searcher for every line.
    static ID_KEY: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"\"id\":\""));
    let head = &line[..line.len().min(1024)];
    let at = ID_KEY.find(head)? + 6;
    let len = memchr::memchr(b'"', &line[at..])?;
    Some(&line[at..at + len])
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
