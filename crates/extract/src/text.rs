//! Text of elements as a reader sees it: stripped subtrees and non-text elements
//! left out, block boundaries as spaces, whitespace collapsed.

use std::collections::HashSet;

use ego_tree::{NodeId, NodeRef};
use scraper::{ElementRef, Node};

/// Roots of subtrees that are not article text (captions, share widgets, embeds).
pub type Stripped = HashSet<NodeId>;

/// Elements whose content is never text.
const NON_TEXT: [&str; 10] = [
    "script", "style", "noscript", "template", "svg", "head", "iframe", "object", "select",
    "button",
];

/// Elements that separate words when the page is rendered.
const BLOCK: [&str; 20] = [
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "td",
    "th",
    "blockquote",
    "figure",
    "figcaption",
    "section",
    "article",
];

/// The element's text, whitespace collapsed, without stripped subtrees.
pub fn element_text(el: ElementRef<'_>, stripped: &Stripped) -> String {
    let mut raw = String::new();
    collect(*el, stripped, &mut raw, &mut |_| true);
    normalize(&raw)
}

/// Whether all of the element's text is bold (`<b>`/`<strong>`), and there is some.
pub fn is_wholly_bold(el: ElementRef<'_>, stripped: &Stripped) -> bool {
    is_wholly_inside(el, stripped, &["b", "strong"])
}

/// Whether all of the element's text is a link, and there is some.
pub fn is_wholly_link(el: ElementRef<'_>, stripped: &Stripped) -> bool {
    is_wholly_inside(el, stripped, &["a"])
}

/// Whether all of the element's text lies inside elements named `names`, and there is some.
fn is_wholly_inside(el: ElementRef<'_>, stripped: &Stripped, names: &[&str]) -> bool {
    let mut all = String::new();
    let mut inside = String::new();
    collect(*el, stripped, &mut all, &mut |_| true);
    collect(*el, stripped, &mut inside, &mut |n: NodeRef<'_, Node>| {
        n.ancestors().take_while(|a| a.id() != el.id()).any(|a| {
            a.value()
                .as_element()
                .is_some_and(|e| names.contains(&e.name()))
        })
    });
    let all = normalize(&all);
    !all.is_empty() && normalize(&inside) == all
}

/// Whether `node` or one of its ancestors is a stripped root.
pub fn is_stripped(node: NodeRef<'_, Node>, stripped: &Stripped) -> bool {
    !stripped.is_empty()
        && (stripped.contains(&node.id()) || node.ancestors().any(|a| stripped.contains(&a.id())))
}

/// Appends the text under `root` to `out`; `keep` decides per text node.
fn collect<'a>(
    root: NodeRef<'a, Node>,
    stripped: &Stripped,
    out: &mut String,
    keep: &mut dyn FnMut(NodeRef<'a, Node>) -> bool,
) {
    // An explicit stack: deeply nested pages must not overflow the thread's stack.
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.value() {
            Node::Text(text) if keep(node) => out.push_str(text),
            Node::Element(e) => {
                if node.id() != root.id() && stripped.contains(&node.id()) {
                    continue;
                }
                let name = e.name();
                if NON_TEXT.contains(&name) {
                    continue;
                }
                if BLOCK.contains(&name) {
                    out.push(' ');
                }
                stack.extend(node.children().rev());
            }
            _ => {}
        }
    }
}

/// Collapses runs of whitespace (no-break spaces included) to one space and trims.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(char::is_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Abbreviations after which a period does not end a sentence.
const ABBREVIATIONS: [&str; 24] = [
    "Mr", "Mrs", "Ms", "Dr", "St", "Sen", "Rep", "Gov", "Gen", "Lt", "Col", "Sgt", "Capt", "Prof",
    "Rev", "Jr", "Sr", "No", "vs", "Jan", "Feb", "Aug", "Sept", "Oct",
];

/// Splits `text` after its first sentence: `(sentence, rest)`, both trimmed.
/// A sentence ends at `.`, `!` or `?` (and closing quotes) before a space and a
/// capital, digit or quote, unless the period closes an abbreviation or an initial.
pub fn split_first_sentence(text: &str) -> (&str, &str) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(at, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let mut end = k + 1;
        while chars
            .get(end)
            .is_some_and(|&(_, q)| matches!(q, '"' | '\'' | '\u{201d}' | '\u{2019}' | ')'))
        {
            end += 1;
        }
        let Some(&(_, space)) = chars.get(end) else {
            break;
        };
        let next = chars.get(end + 1).map(|&(_, n)| n);
        let starts_sentence = next.is_some_and(|n| {
            n.is_uppercase()
                || n.is_ascii_digit()
                || matches!(n, '"' | '\u{201c}' | '\'' | '\u{2018}')
        });
        if !space.is_whitespace() || !starts_sentence {
            continue;
        }
        if c == '.' && ends_with_abbreviation(&text[..at]) {
            continue;
        }
        let split = chars.get(end).map_or(text.len(), |&(i, _)| i);
        return (text[..split].trim(), text[split..].trim());
    }
    (text.trim(), "")
}

fn ends_with_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    // "U.S." and single initials ("John F. Kennedy") are not sentence ends.
    ABBREVIATIONS.contains(&word)
        || (word.chars().count() == 1 && word.chars().all(char::is_uppercase))
        || word.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::{Html, Selector};

    fn first<'a>(doc: &'a Html, css: &str) -> ElementRef<'a> {
        doc.select(&Selector::parse(css).unwrap()).next().unwrap()
    }

    #[test]
    fn text_skips_stripped_and_non_text_and_separates_blocks() {
        let doc = Html::parse_fragment(
            "<div id=r>One<p>two<b>three</b></p><style>x{}</style><p class=cap>caption</p><li>four</li>\u{a0} five</div>",
        );
        let mut stripped = Stripped::new();
        stripped.insert(first(&doc, ".cap").id());
        assert_eq!(
            element_text(first(&doc, "#r"), &stripped),
            "One twothree four five"
        );
        assert!(is_stripped(*first(&doc, ".cap"), &stripped));
        assert!(!is_stripped(*first(&doc, "li"), &stripped));
    }

    #[test]
    fn bold_means_all_text_bold() {
        let doc = Html::parse_fragment(
            "<p id=a><b>All bold.</b> </p><p id=b><b>Half</b> not</p><p id=c><strong>x<i>y</i></strong></p><p id=d> </p>",
        );
        let none = Stripped::new();
        assert!(is_wholly_bold(first(&doc, "#a"), &none));
        assert!(!is_wholly_bold(first(&doc, "#b"), &none));
        assert!(is_wholly_bold(first(&doc, "#c"), &none));
        assert!(!is_wholly_bold(first(&doc, "#d"), &none));
        assert!(!is_wholly_link(first(&doc, "#a"), &none));
    }

    #[test]
    fn link_only_paragraphs() {
        let doc = Html::parse_fragment(
            "<p id=a><a href=x>Related story</a></p><p id=b><i>Join us at </i><i><a href=y>Facebook</a></i></p>",
        );
        let none = Stripped::new();
        assert!(is_wholly_link(first(&doc, "#a"), &none));
        assert!(!is_wholly_link(first(&doc, "#b"), &none));
    }

    #[test]
    fn first_sentence_respects_abbreviations_and_initials() {
        assert_eq!(
            split_first_sentence("Mr. Biden met the U.S. envoy in St. Louis. Then he left."),
            (
                "Mr. Biden met the U.S. envoy in St. Louis.",
                "Then he left."
            )
        );
        assert_eq!(
            split_first_sentence("John F. Kennedy spoke. \"We go,\" he said."),
            ("John F. Kennedy spoke.", "\"We go,\" he said.")
        );
        assert_eq!(
            split_first_sentence("He said \"no.\" Then 3 left."),
            ("He said \"no.\"", "Then 3 left.")
        );
        assert_eq!(split_first_sentence("No end here"), ("No end here", ""));
        assert_eq!(
            split_first_sentence("Pi is 3.14 today."),
            ("Pi is 3.14 today.", "")
        );
    }

    #[test]
    fn normalize_collapses_whitespace() {
        assert_eq!(normalize("  a \n\t b\u{a0}\u{a0}c "), "a b c");
        assert_eq!(normalize(" \n "), "");
    }
}
