//! Fast selection: an index of a document's elements by id, class, attribute name
//! and tag, and selectors that know which of those keys their matches must carry.
//!
//! `scraper` tests a selector against every node of the document; a profile runs a
//! few dozen selectors per page, so that costs more than parsing. Here each selector
//! is only tested against the elements that carry the key of its rightmost compound
//! (`.story-body__introduction` against the few elements with that class), the way
//! browsers hash their style rules. The index is a pre-filter: the real selector
//! still decides, so results are exactly `scraper`'s, in document order.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use scraper::{ElementRef, Html, Selector};

/// What every element a selector matches must carry (lowercase, so that quirks-mode
/// documents, where class and id match case-insensitively, are covered too).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Id(String),
    Class(String),
    Attr(String),
    Tag(String),
}

/// A compiled selector with its index keys.
#[derive(Debug)]
pub struct Sel {
    /// The CSS text, for messages.
    pub css: String,
    selector: Selector,
    /// One key per comma-separated alternative; `None` = test every element.
    keys: Option<Vec<Key>>,
}

impl Sel {
    /// Compiles `css`.
    ///
    /// # Errors
    /// The selector parser's message.
    pub fn parse(css: &str) -> Result<Self, String> {
        let selector = Selector::parse(css).map_err(|e| e.to_string())?;
        let keys = split_top_level(css, ',')
            .into_iter()
            .map(|alternative| last_compound(alternative).and_then(compound_key))
            .collect();
        Ok(Self {
            css: css.to_string(),
            selector,
            keys,
        })
    }
}

/// FNV-1a: the index hashes a few thousand short keys per page, where SipHash's
/// setup cost dominates. The keys come from one page at a time (bodies are capped
/// upstream), so a page crafted for collisions can only slow down itself.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type KeyMap = HashMap<String, Vec<u32>, BuildHasherDefault<Fnv>>;

/// A document's elements by key, in document order.
#[derive(Debug, Default)]
pub struct DocIndex {
    nodes: Vec<ego_tree::NodeId>,
    ids: KeyMap,
    classes: KeyMap,
    attrs: KeyMap,
    tags: KeyMap,
}

fn push(map: &mut KeyMap, key: &str, at: u32) {
    let key: Cow<'_, str> = if key.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(key.to_ascii_lowercase())
    } else {
        Cow::Borrowed(key)
    };
    match map.get_mut(key.as_ref()) {
        Some(list) => list.push(at),
        None => {
            map.insert(key.into_owned(), vec![at]);
        }
    }
}

impl DocIndex {
    /// Indexes every element of `doc`.
    pub fn new(doc: &Html) -> Self {
        let mut index = Self::default();
        for node in doc.tree.root().descendants() {
            let Some(el) = node.value().as_element() else {
                continue;
            };
            let at = index.nodes.len() as u32;
            index.nodes.push(node.id());
            push(&mut index.tags, el.name(), at);
            if let Some(id) = el.id() {
                push(&mut index.ids, id, at);
            }
            for class in el.classes() {
                push(&mut index.classes, class, at);
            }
            for (name, _) in el.attrs() {
                push(&mut index.attrs, name, at);
            }
        }
        index
    }

    fn list(&self, key: &Key) -> &[u32] {
        let found = match key {
            Key::Id(k) => self.ids.get(k),
            Key::Class(k) => self.classes.get(k),
            Key::Attr(k) => self.attrs.get(k),
            Key::Tag(k) => self.tags.get(k),
        };
        found.map_or(&[], Vec::as_slice)
    }

    fn candidates(&self, sel: &Sel) -> Cow<'_, [u32]> {
        match sel.keys.as_deref() {
            None => Cow::Owned((0..self.nodes.len() as u32).collect()),
            Some([one]) => Cow::Borrowed(self.list(one)),
            Some(keys) => {
                let mut all: Vec<u32> = keys.iter().flat_map(|k| self.list(k)).copied().collect();
                all.sort_unstable();
                all.dedup();
                Cow::Owned(all)
            }
        }
    }

    fn element<'a>(&self, doc: &'a Html, at: u32) -> Option<ElementRef<'a>> {
        doc.tree
            .get(self.nodes[at as usize])
            .and_then(ElementRef::wrap)
    }

    /// The elements of `doc` matching `sel`, in document order.
    pub fn select<'a>(&self, doc: &'a Html, sel: &Sel) -> Vec<ElementRef<'a>> {
        let candidates = self.candidates(sel);
        let elements = candidates.iter().filter_map(|&at| self.element(doc, at));
        elements.filter(|el| sel.selector.matches(el)).collect()
    }

    /// The first element of `doc` matching `sel`.
    pub fn first<'a>(&self, doc: &'a Html, sel: &Sel) -> Option<ElementRef<'a>> {
        let candidates = self.candidates(sel);
        let mut elements = candidates.iter().filter_map(|&at| self.element(doc, at));
        elements.find(|el| sel.selector.matches(el))
    }
}

/// Calls `f` with each character of `css` that lies outside brackets, parentheses
/// and quotes (the brackets themselves excluded).
fn top_level(css: &str, mut f: impl FnMut(usize, char)) {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for (i, c) in css.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth -= 1,
            (None, _) if depth == 0 => f(i, c),
            _ => {}
        }
    }
}

/// Splits `css` at `sep` outside brackets, parentheses and quotes.
fn split_top_level(css: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    top_level(css, |i, c| {
        if c == sep {
            parts.push(&css[start..i]);
            start = i + c.len_utf8();
        }
    });
    parts.push(&css[start..]);
    parts
}

/// The rightmost compound selector of one alternative (`div.a > p.b` -> `p.b`).
fn last_compound(alternative: &str) -> Option<&str> {
    let alternative = alternative.trim();
    let mut start = 0;
    top_level(alternative, |i, c| {
        if matches!(c, ' ' | '\t' | '\n' | '>' | '+' | '~') {
            start = i + 1;
        }
    });
    let compound = alternative[start..].trim();
    (!compound.is_empty()).then_some(compound)
}

/// The most selective key of a compound selector, or `None` when it has none
/// (`*`, escapes, or only pseudo-classes).
fn compound_key(compound: &str) -> Option<Key> {
    if compound.contains('\\') {
        return None;
    }
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
            .collect::<String>()
            .to_ascii_lowercase()
    };
    let (mut id, mut class, mut attr, mut class_attr) = (None, None, None, None);
    let tag = Some(ident(compound)).filter(|t| !t.is_empty());
    let bytes = compound.as_bytes();
    let mut i = 0;
    let mut depth = 0i32;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'#' if depth == 0 => id = id.or(Some(ident(&compound[i + 1..]))),
            b'.' if depth == 0 => class = class.or(Some(ident(&compound[i + 1..]))),
            b'[' if depth == 0 => {
                let name = ident(compound[i + 1..].trim_start());
                if name == "class" || name == "style" {
                    class_attr = class_attr.or(Some(name));
                } else {
                    attr = attr.or(Some(name));
                }
                // Skip the attribute's value (it may hold `.` or `#`).
                while i < bytes.len() && bytes[i] != b']' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let nonempty = |k: Option<String>| k.filter(|k| !k.is_empty());
    nonempty(id)
        .map(Key::Id)
        .or_else(|| nonempty(class).map(Key::Class))
        .or_else(|| nonempty(attr).map(Key::Attr))
        .or_else(|| nonempty(tag).map(Key::Tag))
        .or_else(|| nonempty(class_attr).map(Key::Attr))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(css: &str) -> Option<Key> {
        last_compound(css).and_then(compound_key)
    }

    #[test]
    fn keys_of_compounds() {
        assert_eq!(key("div.story-body p"), Some(Key::Tag("p".into())));
        assert_eq!(
            key("p.story-body__introduction"),
            Some(Key::Class("story-body__introduction".into()))
        );
        assert_eq!(key("h1#main-heading"), Some(Key::Id("main-heading".into())));
        assert_eq!(
            key(r#"meta[property="og:url"]"#),
            Some(Key::Attr("property".into()))
        );
        assert_eq!(
            key(r#"article [data-component="text-block"] p"#),
            Some(Key::Tag("p".into()))
        );
        assert_eq!(
            key(r#"[class*="StyledSummary"]"#),
            Some(Key::Attr("class".into()))
        );
        assert_eq!(key(r#"a[href="x.y#z"]"#), Some(Key::Attr("href".into())));
        assert_eq!(key("p:not(.caption)"), Some(Key::Tag("p".into())));
        assert_eq!(key("div > .Lead"), Some(Key::Class("lead".into())));
        assert_eq!(key("*"), None);
        assert_eq!(key(":root"), None);
    }

    #[test]
    fn splits_alternatives_outside_brackets() {
        assert_eq!(
            split_top_level(r#"a, b[x=","], :is(c, d)"#, ','),
            vec!["a", r#" b[x=","]"#, " :is(c, d)"]
        );
    }

    #[test]
    fn index_selects_what_scraper_selects_in_document_order() {
        let doc = Html::parse_document(
            r#"<div id=Top class="Story body"><p class=intro>a</p><span data-x=1>b</span><p>c</p></div>
               <meta property="og:url" content="u"><section><p class="intro x">d</p></section>"#,
        );
        let index = DocIndex::new(&doc);
        for css in [
            "p",
            ".intro",
            "#Top p",
            "div > p",
            "[data-x]",
            r#"meta[property="og:url"]"#,
            "span, .intro",
            ".story",
            "*",
            "section p, div p",
            ".missing",
            "p:not(.intro)",
        ] {
            let sel = Sel::parse(css).unwrap();
            let ours: Vec<_> = index.select(&doc, &sel).iter().map(|e| e.id()).collect();
            let theirs: Vec<_> = doc
                .select(&Selector::parse(css).unwrap())
                .map(|e| e.id())
                .collect();
            assert_eq!(ours, theirs, "{css}");
            assert_eq!(
                index.first(&doc, &sel).map(|e| e.id()),
                theirs.first().copied(),
                "{css}"
            );
        }
    }

    #[test]
    fn quirks_mode_classes_match_case_insensitively() {
        // No doctype: quirks mode, where `.story` matches class="Story".
        let doc = Html::parse_document(r#"<div class="Story">a</div>"#);
        let index = DocIndex::new(&doc);
        let sel = Sel::parse(".story").unwrap();
        let theirs = doc.select(&Selector::parse(".story").unwrap()).count();
        assert_eq!(index.select(&doc, &sel).len(), theirs);
    }
}
