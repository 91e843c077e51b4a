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
    /// The hash of one key per comma-separated alternative; `None` = test every element.
    keys: Option<Vec<u64>>,
    /// The attributes matching reads (lowercase); `None` = cannot tell.
    attrs: Option<Vec<String>>,
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
            .map(|alternative| {
                last_compound(alternative)
                    .and_then(compound_key)
                    .map(|k| k.hash())
            })
            .collect();
        Ok(Self {
            css: css.to_string(),
            selector,
            keys,
            attrs: attribute_names(css),
        })
    }
}

/// The attributes a selector reads: those in brackets, `id` for `#`, `class` for
/// `.`; `None` for escapes and namespaces, which this reading does not follow.
fn attribute_names(css: &str) -> Option<Vec<String>> {
    if css.contains(['\\', '|']) {
        return None;
    }
    let mut names = Vec::new();
    let mut quote = None;
    let mut in_brackets = false;
    for (i, c) in css.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => {
                in_brackets = true;
                let name: String = css[i + 1..]
                    .trim_start()
                    .chars()
                    .take_while(|c| {
                        !matches!(c, '=' | ']' | '~' | '^' | '$' | '*' | '!') && !c.is_whitespace()
                    })
                    .collect();
                names.push(name.to_ascii_lowercase());
            }
            (None, ']') => in_brackets = false,
            (None, '#') if !in_brackets => names.push("id".to_string()),
            (None, '.') if !in_brackets => names.push("class".to_string()),
            _ => {}
        }
    }
    Some(names)
}

impl Key {
    fn hash(&self) -> u64 {
        match self {
            Key::Id(k) => key_hash(KIND_ID, k),
            Key::Class(k) => key_hash(KIND_CLASS, k),
            Key::Attr(k) => key_hash(KIND_ATTR, k),
            Key::Tag(k) => key_hash(KIND_TAG, k),
        }
    }
}

const KIND_ID: u8 = 1;
const KIND_CLASS: u8 = 2;
const KIND_ATTR: u8 = 3;
const KIND_TAG: u8 = 4;

/// FNV-1a of the key's kind and its ASCII-lowercased name. The index is keyed by
/// this hash alone, so that no key is allocated per page: two keys that collide
/// only make more candidates, which the real selector then turns down.
fn key_hash(kind: u8, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in std::iter::once(kind).chain(name.bytes().map(|b| b.to_ascii_lowercase())) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Keys that are already hashes: hashing them again would only cost time.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type KeyMap = HashMap<u64, Vec<u32>, BuildHasherDefault<Prehashed>>;

/// The keys of the selectors an extractor runs: a page's index records only these
/// (most of a page's classes and attributes are never asked about), and a selector
/// whose key is not among them is tested against every element, so that results
/// never depend on the vocabulary being complete, only speed does.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    /// Each key with an empty list, cloned as the start of each page's index.
    keys: KeyMap,
    /// The attributes the selectors read; `None` once one cannot tell.
    attrs: Option<Vec<String>>,
}

impl Default for Vocabulary {
    fn default() -> Self {
        Self {
            keys: KeyMap::default(),
            attrs: Some(Vec::new()),
        }
    }
}

impl Vocabulary {
    /// Adds the keys and attributes of `sel`.
    pub fn add(&mut self, sel: &Sel) {
        for &key in sel.keys.iter().flatten() {
            self.keys.entry(key).or_default();
        }
        match (&mut self.attrs, &sel.attrs) {
            (Some(all), Some(more)) => all.extend(more.iter().cloned()),
            _ => self.attrs = None,
        }
    }

    /// The attributes the selectors read, or `None` when some selector's cannot be told.
    pub fn attributes(&self) -> Option<&[String]> {
        self.attrs.as_deref()
    }
}

/// A document's elements by key, in document order.
#[derive(Debug)]
pub struct DocIndex {
    nodes: Vec<ego_tree::NodeId>,
    keys: KeyMap,
    /// Whether every key of the document is indexed (no vocabulary was given).
    all: bool,
}

impl DocIndex {
    /// Indexes the elements of `doc` by the keys of `vocabulary`, or by every key
    /// without one.
    pub fn new(doc: &Html, vocabulary: Option<&Vocabulary>) -> Self {
        let mut index = Self {
            nodes: Vec::new(),
            keys: vocabulary.map(|v| v.keys.clone()).unwrap_or_default(),
            all: vocabulary.is_none(),
        };
        for node in doc.tree.root().descendants() {
            let Some(el) = node.value().as_element() else {
                continue;
            };
            let at = index.nodes.len() as u32;
            index.nodes.push(node.id());
            index.push(key_hash(KIND_TAG, el.name()), at);
            // The attributes are read directly: `Element::classes` would intern every
            // class of every element as an atom.
            for (name, value) in el.attrs() {
                index.push(key_hash(KIND_ATTR, name), at);
                match name {
                    "id" => index.push(key_hash(KIND_ID, value), at),
                    "class" => {
                        for class in value.split_ascii_whitespace() {
                            index.push(key_hash(KIND_CLASS, class), at);
                        }
                    }
                    _ => {}
                }
            }
        }
        index
    }

    fn push(&mut self, key: u64, at: u32) {
        let list = if self.all {
            Some(self.keys.entry(key).or_default())
        } else {
            self.keys.get_mut(&key)
        };
        // An element is pushed once per list, even when it repeats a class or its
        // keys collide.
        if let Some(list) = list.filter(|l| l.last() != Some(&at)) {
            list.push(at);
        }
    }

    /// The elements carrying `key`, or `None` when the key is not indexed.
    fn list(&self, key: u64) -> Option<&[u32]> {
        match self.keys.get(&key) {
            Some(list) => Some(list),
            None if self.all => Some(&[]),
            None => None,
        }
    }

    fn candidates(&self, sel: &Sel) -> Cow<'_, [u32]> {
        let every = || Cow::Owned((0..self.nodes.len() as u32).collect());
        match sel.keys.as_deref() {
            None => every(),
            Some(&[one]) => self.list(one).map_or_else(every, Cow::Borrowed),
            Some(keys) => {
                let mut all = Vec::new();
                for &key in keys {
                    match self.list(key) {
                        Some(list) => all.extend_from_slice(list),
                        None => return every(),
                    }
                }
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
    fn attributes_selectors_read() {
        let names = attribute_names;
        assert_eq!(
            names(r#"div.a > p#b, [data-x="y.z#w"], meta[ property ~= 'p' ]"#),
            Some(vec![
                "class".to_string(),
                "id".to_string(),
                "data-x".to_string(),
                "property".to_string()
            ])
        );
        assert_eq!(names("p:not([Title])"), Some(vec!["title".to_string()]));
        assert_eq!(names("[xlink|href]"), None);
        assert_eq!(names(r"p.a\.b"), None);
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
        let index = DocIndex::new(&doc, None);
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
            let theirs = selects_as_scraper(&index, &doc, css);
            let sel = Sel::parse(css).unwrap();
            assert_eq!(
                index.first(&doc, &sel).map(|e| e.id()),
                theirs.first().copied(),
                "{css}"
            );
        }
    }

    #[test]
    fn vocabulary_indexes_its_keys_and_others_are_scanned() {
        let doc = Html::parse_document(
            r#"<div class="a a b"><p class="a" id=x>1</p><span data-x=2>2</span><p>3</p></div>"#,
        );
        let mut vocabulary = Vocabulary::default();
        vocabulary.add(&Sel::parse(".a").unwrap());
        vocabulary.add(&Sel::parse("span").unwrap());
        let index = DocIndex::new(&doc, Some(&vocabulary));
        for css in [
            ".a", "span", "p", "#x", "[data-x]", ".a, p", "div .a", ".missing",
        ] {
            selects_as_scraper(&index, &doc, css);
        }
    }

    /// Asserts that the index selects what scraper selects for `css`; returns it.
    fn selects_as_scraper(index: &DocIndex, doc: &Html, css: &str) -> Vec<ego_tree::NodeId> {
        let sel = Sel::parse(css).unwrap();
        let ours: Vec<_> = index.select(doc, &sel).iter().map(|e| e.id()).collect();
        let theirs: Vec<_> = doc
            .select(&Selector::parse(css).unwrap())
            .map(|e| e.id())
            .collect();
        assert_eq!(ours, theirs, "{css}");
        theirs
    }

    #[test]
    fn quirks_mode_classes_match_case_insensitively() {
        // No doctype: quirks mode, where `.story` matches class="Story".
        let doc = Html::parse_document(r#"<div class="Story">a</div>"#);
        let index = DocIndex::new(&doc, None);
        let sel = Sel::parse(".story").unwrap();
        let theirs = doc.select(&Selector::parse(".story").unwrap()).count();
        assert_eq!(index.select(&doc, &sel).len(), theirs);
    }
}
