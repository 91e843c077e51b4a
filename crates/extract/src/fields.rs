//! Reading one field of an article out of a parsed page, following a layout.

use std::collections::HashSet;

use ego_tree::NodeId;
use scraper::{ElementRef, Html};
use tempora_records::PublishedSource;

use crate::dates::{from_parts, json_ld_value, parse_date, Published};
use crate::index::{DocIndex, Sel, Vocabulary};
use crate::profile::{DateRule, Layout, SiteProfile, Take};
use crate::text::{element_text, is_stripped, is_wholly_bold, is_wholly_link, Stripped};

/// A parsed page with the subtrees that are not article text marked.
pub struct ParsedPage {
    /// The document.
    pub doc: Html,
    /// Its elements by id, class, attribute and tag.
    pub index: DocIndex,
    /// Roots of stripped subtrees.
    pub stripped: Stripped,
    json_ld: Option<Vec<serde_json::Value>>,
}

/// The summary as the layout defines it.
pub enum SummaryFound {
    /// The summary text and the elements it came from.
    Text(String, HashSet<NodeId>),
    /// The page has none.
    Missing,
    /// The layout's summary must be wholly bold (BBC's intro) and the element found is not.
    NotBold,
    /// `take = "single"` and several elements match.
    Ambiguous(usize),
}

impl ParsedPage {
    /// Parses `html` and marks what `strip` selects; the index holds the keys of
    /// `vocabulary` (every key without one).
    pub fn new(html: &str, strip: &[&Sel], vocabulary: Option<&Vocabulary>) -> Self {
        let doc = Html::parse_document(html);
        let index = DocIndex::new(&doc, vocabulary);
        let mut page = Self {
            doc,
            index,
            stripped: Stripped::new(),
            json_ld: None,
        };
        for selector in strip {
            page.strip_one(selector);
        }
        page
    }

    fn strip_one(&mut self, selector: &Sel) {
        let ids: Vec<_> = self.select(selector).iter().map(|e| e.id()).collect();
        self.stripped.extend(ids);
    }

    /// The elements matching `selector`, in document order.
    pub fn select(&self, selector: &Sel) -> Vec<ElementRef<'_>> {
        self.index.select(&self.doc, selector)
    }

    /// Marks more subtrees as stripped.
    pub fn strip(&mut self, strip: &[Sel]) {
        for selector in strip {
            self.strip_one(selector);
        }
    }

    /// Whether the page has an element matching `selector`.
    pub fn has(&self, selector: &Sel) -> bool {
        self.index.first(&self.doc, selector).is_some()
    }

    /// The first non-empty value (see [`element_value`]) of the selectors, in order.
    pub fn first_value(&self, selectors: &[Sel]) -> Option<String> {
        selectors.iter().find_map(|s| {
            self.select(s)
                .into_iter()
                .map(|e| element_value(e, &self.stripped))
                .find(|v| !v.is_empty())
        })
    }

    /// The page's own URL: `link[rel=canonical]`, then `og:url`.
    pub fn canonical(&self, selectors: &[Sel; 2]) -> Option<String> {
        self.first_value(selectors)
    }

    /// The reference summary as the layout defines it.
    pub fn summary(&self, layout: &Layout) -> SummaryFound {
        let rule = &layout.summary;
        let mut matches = self
            .select(&rule.select)
            .into_iter()
            .filter(|e| !is_stripped(**e, &self.stripped))
            .map(|e| (e, element_text(e, &self.stripped)))
            .filter(|(_, text)| !text.is_empty());
        let picked: Vec<(ElementRef<'_>, String)> = match rule.take {
            Take::First => matches.next().into_iter().collect(),
            Take::All => matches.collect(),
            Take::Single => {
                let all: Vec<_> = matches.collect();
                if all.len() > 1 {
                    return SummaryFound::Ambiguous(all.len());
                }
                all
            }
        };
        if picked.is_empty() {
            return SummaryFound::Missing;
        }
        if rule.bold
            && !picked
                .iter()
                .all(|(e, _)| is_wholly_bold(*e, &self.stripped))
        {
            return SummaryFound::NotBold;
        }
        let ids = picked.iter().map(|(e, _)| e.id()).collect();
        let lines: Vec<String> = picked.into_iter().map(|(_, t)| t).collect();
        SummaryFound::Text(lines.join("\n"), ids)
    }

    /// The body paragraphs in document order, without stripped subtrees, the summary
    /// elements, nested repeats and dropped lines. The flag tells whether the summary
    /// was one of the body's paragraphs.
    pub fn body(
        &self,
        layout: &Layout,
        site: &SiteProfile,
        summary: &HashSet<NodeId>,
    ) -> (Vec<String>, bool) {
        let mut paragraphs = Vec::new();
        let mut taken: HashSet<NodeId> = HashSet::new();
        let mut summary_in_body = false;
        for el in self.select(&layout.body) {
            if summary.contains(&el.id()) {
                summary_in_body = true;
                continue;
            }
            let inside_taken = el
                .ancestors()
                .any(|a| taken.contains(&a.id()) || summary.contains(&a.id()));
            if inside_taken || is_stripped(*el, &self.stripped) {
                continue;
            }
            let text = element_text(el, &self.stripped);
            let dropped = site.drop_paragraphs.iter().any(|re| re.is_match(&text))
                || (site.drop_link_paragraphs && is_wholly_link(el, &self.stripped));
            if text.is_empty() || dropped {
                continue;
            }
            taken.insert(el.id());
            paragraphs.push(text);
        }
        (paragraphs, summary_in_body)
    }

    /// The publication date by the first rule that yields one, and whether the page
    /// or its URL gave it.
    pub fn published<'r>(
        &mut self,
        rules: impl IntoIterator<Item = &'r DateRule>,
        urls: &[&str],
    ) -> Option<(Published, PublishedSource)> {
        rules.into_iter().find_map(|rule| {
            let source = match rule {
                DateRule::Url(_) => PublishedSource::Url,
                DateRule::JsonLd(_) | DateRule::Element { .. } => PublishedSource::Page,
            };
            self.published_by(rule, urls).map(|date| (date, source))
        })
    }

    fn published_by(&mut self, rule: &DateRule, urls: &[&str]) -> Option<Published> {
        match rule {
            DateRule::JsonLd(key) => self
                .json_ld()
                .iter()
                .find_map(|doc| json_ld_value(doc, key).and_then(|v| parse_date(v, None))),
            DateRule::Element {
                select,
                attr,
                format,
            } => self.select(select).into_iter().find_map(|e| {
                let value = match attr {
                    Some(a) => e.value().attr(a).unwrap_or("").to_string(),
                    None => element_value(e, &self.stripped),
                };
                parse_date(&value, format.as_deref())
            }),
            DateRule::Url(re) => urls.iter().find_map(|url| {
                let caps = re.captures(url)?;
                from_parts(
                    caps.get(1)?.as_str(),
                    caps.get(2)?.as_str(),
                    caps.get(3)?.as_str(),
                )
            }),
        }
    }

    fn json_ld(&mut self) -> &[serde_json::Value] {
        if self.json_ld.is_none() {
            let docs = self
                .select(json_ld_selector())
                .into_iter()
                .filter_map(|e| serde_json::from_str(&e.text().collect::<String>()).ok())
                .collect();
            self.json_ld = Some(docs);
        }
        self.json_ld.as_deref().unwrap_or_default()
    }
}

pub(crate) fn json_ld_selector() -> &'static Sel {
    static SELECTOR: std::sync::LazyLock<Sel> = std::sync::LazyLock::new(|| {
        Sel::parse(r#"script[type="application/ld+json"]"#)
            .unwrap_or_else(|e| unreachable!("constant selector: {e}"))
    });
    &SELECTOR
}

/// What an element says: `content` of a `<meta>`, `href` of a `<link>`, `datetime`
/// of a `<time>` that has one, otherwise its text.
pub fn element_value(el: ElementRef<'_>, stripped: &Stripped) -> String {
    let attr = match el.value().name() {
        "meta" => Some("content"),
        "link" => Some("href"),
        "time" if el.value().attr("datetime").is_some() => Some("datetime"),
        _ => None,
    };
    match attr {
        // Some pages write `<meta name=... value=...>` instead of `content`.
        Some(a) => crate::text::normalize(
            el.value()
                .attr(a)
                .or_else(|| el.value().attr("value"))
                .unwrap_or(""),
        ),
        None => element_text(el, stripped),
    }
}
