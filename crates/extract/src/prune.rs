//! A byte-level pass before parsing that drops what never holds article text:
//! `<script>` (except JSON-LD), `<style>`, `<svg>`, `<noscript>`, comments, and the
//! elements a site profile names in `skip_elements` (navigation, footers).
//!
//! On modern news pages these are half to two thirds of the bytes; html5ever would
//! tokenize them character by character only for the extractor to ignore them.
//! The pass finds raw-text elements the way the HTML tokenizer does (a raw-text
//! element ends at the first `</name`, case-insensitively) and jumps over ordinary
//! tags, quoted attribute values included, so a `<script` inside an attribute is
//! not mistaken for an element.
//!
//! It also drops the attributes no selector reads (links, image sources, event
//! handlers, tracking data: about half of what is left of a modern page), since
//! html5ever allocates every attribute it reads. What the tree builder itself reads
//! stays (see [`AttrKeep`]), so the tree is the same but for those attributes.

use std::collections::HashSet;

use memchr::{memchr, memchr2, memmem};

/// Raw-text and foreign elements dropped whole on every page.
const DROPPED: [&str; 4] = ["script", "style", "svg", "noscript"];

/// Start tags whose attributes all stay: formatting elements (the tree builder
/// compares their attributes when it reopens them after misnested markup),
/// templates (declarative shadow roots), and the elements whose attributes the
/// extractor reads as values (`content`, `href`, `datetime`).
const KEEP_ALL: [&str; 18] = [
    "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt",
    "u", "template", "meta", "link", "time",
];

/// Attributes the tree builder reads (`<input type=hidden>` in tables, form
/// owners, `<font color>` in foreign content, encodings).
const TREE_ATTRS: [&str; 9] = [
    "type",
    "form",
    "charset",
    "http-equiv",
    "content",
    "color",
    "face",
    "size",
    "encoding",
];

/// Elements whose content the tokenizer reads as text: a `<` there opens no tag.
const RAW_TEXT: [&str; 8] = [
    "title",
    "textarea",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "script",
    "plaintext",
];

/// The attribute names kept on other elements than [`KEEP_ALL`]'s: those the
/// selectors and date rules read, and [`TREE_ATTRS`]. Lowercase, as the tokenizer
/// writes them.
#[derive(Debug, Clone)]
pub struct AttrKeep(HashSet<Box<[u8]>>);

impl AttrKeep {
    /// [`TREE_ATTRS`] and `names`.
    pub fn new<'n>(names: impl IntoIterator<Item = &'n str>) -> Self {
        let all = TREE_ATTRS.into_iter().chain(names);
        Self(
            all.map(|n| n.to_ascii_lowercase().into_bytes().into_boxed_slice())
                .collect(),
        )
    }
}

/// `html` without scripts (JSON-LD kept), styles, SVG, `<noscript>`, comments and
/// the ordinary elements named in `skip` (a site's `skip_elements`: navigation,
/// footers, ... dropped with their content, nested ones included); with `keep`,
/// without the attributes it does not name either.
pub fn prune(html: &str, skip: &[String], keep: Option<&AttrKeep>) -> String {
    let mut pass = Pass::new(html, skip, keep);
    let mut i = 0;
    while let Some(off) = memchr(b'<', &html.as_bytes()[i..]) {
        i = pass.markup(i + off);
    }
    pass.finish()
}

/// One page's pruning: what of it is in the output so far, and what the pass
/// has learnt of the markup it went past.
struct Pass<'p> {
    html: &'p str,
    skip: &'p [String],
    keep: Option<&'p AttrKeep>,
    out: String,
    /// Where the bytes not yet copied nor dropped start.
    copied: usize,
    /// Where the last raw text seen ends: attributes are only dropped from tags
    /// after it (a `<p title>` inside `<title>` is text).
    raw_until: usize,
    /// An attribute's name in lowercase, buffer reused from tag to tag.
    name: Vec<u8>,
}

impl<'p> Pass<'p> {
    fn new(html: &'p str, skip: &'p [String], keep: Option<&'p AttrKeep>) -> Self {
        Self {
            html,
            skip,
            keep,
            out: String::with_capacity(html.len()),
            copied: 0,
            raw_until: 0,
            name: Vec::new(),
        }
    }

    /// Handles the `<` at `lt`: drops a comment or an element dropped whole, or
    /// thins a start tag's attributes; returns where to look for the next `<`.
    fn markup(&mut self, lt: usize) -> usize {
        let b = self.html.as_bytes();
        let rest = &b[lt..];
        if rest.starts_with(b"<![CDATA[") {
            // Text in foreign content, up to `]]>`.
            let end = memmem::find(rest, b"]]>").map_or(b.len(), |e| lt + e);
            self.raw_until = self.raw_until.max(end);
            return lt + 1;
        }
        if rest.starts_with(b"<!--") {
            let end = memmem::find(&b[lt + 4..], b"-->").map_or(b.len(), |e| lt + 4 + e + 3);
            return self.cut(lt, end);
        }
        if !rest.get(1).is_some_and(u8::is_ascii_alphabetic) {
            return lt + 1;
        }
        let open_end = tag_end(b, lt);
        if let Some(end) = dropped_end(b, lt, open_end, self.skip) {
            return self.cut(lt, end);
        }
        if let Some(keep) = self.keep.filter(|_| lt >= self.raw_until) {
            self.drop_attributes(lt, open_end, keep);
            self.note_raw_text(lt, open_end);
        }
        open_end
    }

    /// Copies what comes before `from` and leaves out `from..to`; returns `to`.
    fn cut(&mut self, from: usize, to: usize) -> usize {
        self.out.push_str(&self.html[self.copied..from]);
        self.copied = to;
        to
    }

    /// Leaves out of the start tag at `lt` (ending at `open_end`) the attributes
    /// `keep` does not name; [`KEEP_ALL`]'s elements keep them all.
    fn drop_attributes(&mut self, lt: usize, open_end: usize, keep: &AttrKeep) {
        let b = self.html.as_bytes();
        if opens(&b[lt..], KEEP_ALL.iter().copied()).is_some() {
            return;
        }
        for attr in attributes(b, lt, open_end).into_iter().flatten() {
            self.name.clear();
            self.name.extend(
                b[attr.start..attr.name_end]
                    .iter()
                    .map(u8::to_ascii_lowercase),
            );
            if keep.0.contains(self.name.as_slice()) {
                continue;
            }
            self.cut(attr.start, attr.end);
            // `<p/x>` must not become the self-closing `<p/>`.
            if b[attr.start - 1] == b'/' {
                self.out.push(' ');
            }
        }
    }

    /// When the start tag at `lt` opens one of [`RAW_TEXT`]'s elements, notes
    /// where its text ends (`<plaintext>`'s never does).
    fn note_raw_text(&mut self, lt: usize, open_end: usize) {
        let b = self.html.as_bytes();
        if let Some(raw) = opens(&b[lt..], RAW_TEXT.iter().copied()) {
            self.raw_until = if raw == "plaintext" {
                b.len()
            } else {
                close_end(b, open_end, raw.as_bytes())
            };
        }
    }

    /// The output: what is left of the page after the last `<` handled.
    fn finish(mut self) -> String {
        self.out.push_str(&self.html[self.copied..]);
        self.out
    }
}

/// Where the element opening at `lt` (its start tag ending at `open_end`) ends,
/// when it is dropped whole: one of [`DROPPED`] (JSON-LD scripts excepted) or of
/// `skip` (nested ones of its name included).
fn dropped_end(b: &[u8], lt: usize, open_end: usize, skip: &[String]) -> Option<usize> {
    let rest = &b[lt..];
    let self_closing = b[..open_end].ends_with(b"/>");
    if let Some(name) = opens(rest, DROPPED.iter().copied()) {
        return match name {
            "script" if is_json_ld(&b[lt..open_end]) => None,
            "svg" if self_closing => Some(open_end),
            _ => Some(close_end(b, open_end, name.as_bytes())),
        };
    }
    let name = opens(rest, skip.iter().map(String::as_str))?;
    Some(if self_closing {
        open_end
    } else {
        nested_end(b, open_end, name.as_bytes())
    })
}

/// An attribute of a start tag: its name, and the whole of it (value included).
struct Attr {
    start: usize,
    name_end: usize,
    end: usize,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// The attributes of the start tag at `lt`, read as the HTML tokenizer reads them;
/// `None` when its reading ends elsewhere than `open_end` (where the pruning pass
/// thinks the tag ends) or the tag is not closed: then the tag stays as it is.
fn attributes(b: &[u8], lt: usize, open_end: usize) -> Option<Vec<Attr>> {
    let mut p = lt + 1;
    let skip_spaces = |mut p: usize| {
        while b.get(p).is_some_and(|&c| is_space(c)) {
            p += 1;
        }
        p
    };
    while b
        .get(p)
        .is_some_and(|&c| !is_space(c) && c != b'/' && c != b'>')
    {
        p += 1;
    }
    let mut attrs = Vec::new();
    loop {
        // Before an attribute name.
        p = skip_spaces(p);
        match *b.get(p)? {
            b'>' => return (p + 1 == open_end).then_some(attrs),
            b'/' => {
                p += 1;
                if b.get(p) == Some(&b'>') {
                    return (p + 1 == open_end).then_some(attrs);
                }
                continue;
            }
            _ => {}
        }
        // The name; its first character may be `=`.
        let start = p;
        p += 1;
        while b
            .get(p)
            .is_some_and(|&c| !is_space(c) && !matches!(c, b'/' | b'>' | b'='))
        {
            p += 1;
        }
        let name_end = p;
        p = skip_spaces(p);
        if b.get(p) != Some(&b'=') {
            attrs.push(Attr {
                start,
                name_end,
                end: name_end,
            });
            continue;
        }
        p = skip_spaces(p + 1);
        match *b.get(p)? {
            q @ (b'"' | b'\'') => {
                p += 1 + memchr(q, &b[p + 1..])? + 1;
            }
            b'>' => {}
            _ => {
                while b.get(p).is_some_and(|&c| !is_space(c) && c != b'>') {
                    p += 1;
                }
            }
        }
        attrs.push(Attr {
            start,
            name_end,
            end: p,
        });
    }
}

/// The name among `names` of the element opening at `rest` (which starts with `<`).
fn opens<'n>(rest: &[u8], mut names: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    names.find(|name| {
        let n = name.len();
        rest.len() > n + 1
            && rest[1..=n].eq_ignore_ascii_case(name.as_bytes())
            && is_boundary(rest[n + 1])
    })
}

fn is_boundary(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>' | b'/')
}

/// Index just past the end tag closing an ordinary element `name` whose content
/// starts at `from`, counting nested elements of the same name.
fn nested_end(b: &[u8], from: usize, name: &[u8]) -> usize {
    let mut depth = 1usize;
    let mut i = from;
    while let Some(off) = memchr(b'<', &b[i..]) {
        let lt = i + off;
        let closing = b.get(lt + 1) == Some(&b'/');
        let start = lt + 1 + usize::from(closing);
        let named = b
            .get(start..start + name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
            && b.get(start + name.len()).is_none_or(|&c| is_boundary(c));
        if named {
            let end = tag_end(b, lt);
            if closing {
                depth -= 1;
                if depth == 0 {
                    return end;
                }
            } else if !b[..end].ends_with(b"/>") {
                depth += 1;
            }
            i = end;
        } else {
            i = lt + 1;
        }
    }
    b.len()
}

/// Index just past the `>` of the tag opening at `lt`, skipping quoted values.
fn tag_end(b: &[u8], lt: usize) -> usize {
    let mut j = lt + 1;
    while let Some(off) = memchr2(b'>', b'=', &b[j..]) {
        let at = j + off;
        if b[at] == b'>' {
            return at + 1;
        }
        // An attribute value: skip spaces, then a quoted value as one unit.
        let mut v = at + 1;
        while v < b.len() && b[v].is_ascii_whitespace() {
            v += 1;
        }
        match b.get(v) {
            Some(&q @ (b'"' | b'\'')) => match memchr(q, &b[v + 1..]) {
                Some(close) => j = v + 1 + close + 1,
                None => return b.len(),
            },
            _ => j = v,
        }
    }
    b.len()
}

/// Index just past the `</name ...>` closing the raw-text element whose content starts at `from`.
fn close_end(b: &[u8], from: usize, name: &[u8]) -> usize {
    for at in memmem::find_iter(&b[from..], b"</") {
        let start = from + at + 2;
        let Some(candidate) = b.get(start..start + name.len()) else {
            break;
        };
        let boundary = b.get(start + name.len()).is_none_or(|&c| is_boundary(c));
        if candidate.eq_ignore_ascii_case(name) && boundary {
            return memchr(b'>', &b[start..]).map_or(b.len(), |e| start + e + 1);
        }
    }
    b.len()
}

fn is_json_ld(open_tag: &[u8]) -> bool {
    memmem::find(&open_tag.to_ascii_lowercase(), b"application/ld+json").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_scripts_styles_svg_noscript_and_comments() {
        let html = "<p>a<script>var x = '<p>no</p>';</script>b</p><STYLE>p{}</STYLE>\
                    <svg viewBox=\"0 0 1 1\"><title>logo</title></svg><!-- c --><noscript><p>js</p></noscript><p>c</p>";
        assert_eq!(prune(html, &[], None), "<p>ab</p><p>c</p>");
    }

    #[test]
    fn keeps_json_ld() {
        let html = r#"<script type="application/ld+json">{"datePublished":"2021-01-20"}</script><script>x()</script>"#;
        assert_eq!(
            prune(html, &[], None),
            r#"<script type="application/ld+json">{"datePublished":"2021-01-20"}</script>"#
        );
    }

    #[test]
    fn script_in_attribute_value_is_not_an_element() {
        let html = r#"<a onclick="w('<script>')" title='>'>link</a><p>kept</p>"#;
        assert_eq!(prune(html, &[], None), html);
    }

    #[test]
    fn script_ends_at_first_closing_tag_whatever_its_case() {
        let html = "<script>if (a < b) {}</SCRIPT ><p>x</p>";
        assert_eq!(prune(html, &[], None), "<p>x</p>");
    }

    #[test]
    fn element_names_that_only_start_alike_are_kept() {
        let html = "<scripts>a</scripts><styled>b</styled><svgx>c</svgx>";
        assert_eq!(prune(html, &[], None), html);
    }

    #[test]
    fn unterminated_constructs_drop_the_rest_without_panicking() {
        assert_eq!(prune("<p>a</p><script>never closed", &[], None), "<p>a</p>");
        assert_eq!(prune("<p>a</p><!-- open", &[], None), "<p>a</p>");
        assert_eq!(prune("<p title=\"open", &[], None), "<p title=\"open");
        assert_eq!(prune("text <", &[], None), "text <");
        assert_eq!(prune("<script", &[], None), "<script");
    }

    #[test]
    fn multibyte_text_survives() {
        let html = "<p>£1m – café</p><script>é</script><p>ü</p>";
        assert_eq!(prune(html, &[], None), "<p>£1m – café</p><p>ü</p>");
    }

    #[test]
    fn skipped_elements_go_with_nested_ones_of_their_name() {
        let skip = ["nav".to_string(), "footer".to_string()];
        let html = "<nav><ul><li><nav>inner</nav></li><li>x</li></ul></nav><p>kept</p><NAV/>\
                    <footer class='f'><p>(c)</p></footer><navigation>ok</navigation>";
        assert_eq!(
            prune(html, &skip, None),
            "<p>kept</p><navigation>ok</navigation>"
        );
        assert_eq!(prune("<nav><p>never closed", &skip, None), "");
    }

    #[test]
    fn drops_attributes_not_kept_as_the_tokenizer_reads_them() {
        let keep = AttrKeep::new(["class", "data-x"]);
        let prune = |html| prune(html, &[], Some(&keep));
        assert_eq!(
            prune(r#"<p class=a href="x>y" DATA-X='1' onclick=go()>t</p>"#),
            r#"<p class=a  DATA-X='1' >t</p>"#
        );
        // No space between attributes, names with quotes, a name starting with `=`.
        assert_eq!(
            prune(r#"<p id="a"class="b" x"y=1 =z>"#),
            r#"<p class="b"  >"#
        );
        // A `/` before a dropped attribute must not make the tag self-closing.
        assert_eq!(prune("<p/x>a"), "<p/ >a");
        assert_eq!(prune("<br/>"), "<br/>");
        // Formatting elements, link, meta and time keep theirs; so does raw text.
        let kept = r#"<a href=x><b title=t><meta name=n><link href=h><time datetime=d>"#;
        assert_eq!(prune(kept), kept);
        let title = r#"<title><p title=x></title><p title=x>"#;
        assert_eq!(prune(title), r#"<title><p title=x></title><p >"#);
        assert_eq!(prune("<plaintext><p title=x>"), "<plaintext><p title=x>");
        // The tree builder's attributes stay; an unclosed tag stays as it is.
        assert_eq!(prune("<input type=hidden value=1>"), "<input type=hidden >");
        assert_eq!(prune("<p title=\"open"), "<p title=\"open");
        assert_eq!(prune("<p title=x"), "<p title=x");
    }

    #[test]
    fn self_closing_svg_drops_only_itself() {
        assert_eq!(prune("<svg/><p>a</p>", &[], None), "<p>a</p>");
    }
}
