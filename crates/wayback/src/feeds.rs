//! Reading archived feeds and sitemaps with quick-xml: RSS 2.0 (and RDF),
//! Atom, sitemaps with Google News extensions, and sitemap indexes. Each item
//! gives an article link, its publication time and title, when stated.

use std::borrow::Cow;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use quick_xml::events::Event;
use quick_xml::Reader;

/// One item of a feed or sitemap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedItem {
    /// The article URL.
    pub link: String,
    /// Publication time (UTC), when stated.
    pub published: Option<NaiveDateTime>,
    /// Headline, when stated.
    pub title: Option<String>,
    /// The item's description (RSS `description`, Atom `summary`), when stated: on
    /// BBC feeds the article's summary sentence.
    pub description: Option<String>,
}

/// What kind of document it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedKind {
    /// RSS 0.9x/2.0 or RDF.
    Rss,
    /// Atom.
    Atom,
    /// A sitemap (`urlset`), news sitemaps included.
    Sitemap,
    /// A sitemap index: it lists more sitemaps.
    SitemapIndex,
}

/// A parsed feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feed {
    /// Its kind.
    pub kind: FeedKind,
    /// Its items, in document order.
    pub items: Vec<FeedItem>,
    /// Sitemaps listed by a sitemap index.
    pub sitemaps: Vec<String>,
}

/// Parses a feed or sitemap; `content_type` may carry the charset.
///
/// # Errors
/// Not XML (with the byte position), or not a feed or sitemap (naming the root element).
pub fn parse_feed(bytes: &[u8], content_type: Option<&str>) -> Result<Feed, String> {
    let text = decode(bytes, content_type);
    let mut reader = Reader::from_str(&text);
    reader.config_mut().trim_text(false);
    let mut parser = Parser::default();
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "not well-formed XML at byte {}: {e}",
                reader.buffer_position()
            )
        })?;
        match event {
            Event::Start(e) => parser.open(&e, false)?,
            Event::Empty(e) => parser.open(&e, true)?,
            Event::Text(t) => parser
                .text
                .push_str(&t.xml10_content().map_err(|e| e.to_string())?),
            Event::CData(t) => parser
                .text
                .push_str(&t.decode().map_err(|e| e.to_string())?),
            Event::GeneralRef(r) => {
                let name = r.decode().map_err(|e| e.to_string())?;
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    parser.text.push(c);
                } else if let Some(s) = quick_xml::escape::resolve_predefined_entity(&name) {
                    parser.text.push_str(s);
                }
            }
            Event::End(_) => parser.close(),
            Event::Eof => break,
            _ => {}
        }
    }
    parser
        .feed
        .ok_or_else(|| "empty document: no feed or sitemap".to_string())
}

#[derive(Default)]
struct Parser {
    feed: Option<Feed>,
    path: Vec<String>,
    item: Option<FeedItem>,
    text: String,
}

impl Parser {
    fn open(&mut self, e: &quick_xml::events::BytesStart<'_>, empty: bool) -> Result<(), String> {
        let name = String::from_utf8_lossy(e.local_name().as_ref()).to_ascii_lowercase();
        if self.feed.is_none() {
            let kind = match name.as_str() {
                "rss" | "rdf" => FeedKind::Rss,
                "feed" => FeedKind::Atom,
                "urlset" => FeedKind::Sitemap,
                "sitemapindex" => FeedKind::SitemapIndex,
                other => {
                    return Err(format!(
                        "not a feed or sitemap: the root element is <{other}>"
                    ))
                }
            };
            self.feed = Some(Feed {
                kind,
                items: Vec::new(),
                sitemaps: Vec::new(),
            });
        }
        if matches!(name.as_str(), "item" | "entry" | "url" | "sitemap") {
            self.item = Some(FeedItem {
                link: String::new(),
                published: None,
                title: None,
                description: None,
            });
        }
        if name == "link" {
            if let (Some(it), Some(href)) = (self.item.as_mut(), attribute(e, "href")) {
                let rel = attribute(e, "rel");
                if it.link.is_empty() || rel.as_deref().is_none_or(|r| r == "alternate") {
                    it.link = href;
                }
            }
        }
        self.text.clear();
        if !empty {
            self.path.push(name);
        }
        Ok(())
    }

    fn close(&mut self) {
        let Some(name) = self.path.pop() else { return };
        let value = self.text.trim().to_string();
        self.text.clear();
        let (Some(f), Some(it)) = (self.feed.as_mut(), self.item.as_mut()) else {
            return;
        };
        match name.as_str() {
            "link" | "loc" if !value.is_empty() && it.link.is_empty() => it.link = value,
            "guid" if it.link.is_empty() && value.starts_with("http") => it.link = value,
            "pubdate" | "published" | "publication_date" | "date" => {
                it.published = parse_date(&value).or(it.published);
            }
            "updated" | "lastmod" if it.published.is_none() => it.published = parse_date(&value),
            "title" if !value.is_empty() => it.title = Some(value),
            "description" | "summary" if !value.is_empty() => it.description = Some(value),
            "item" | "entry" | "url" => {
                if let Some(done) = self.item.take().filter(|i| !i.link.is_empty()) {
                    f.items.push(done);
                }
            }
            "sitemap" => {
                if let Some(done) = self.item.take().filter(|i| !i.link.is_empty()) {
                    f.sitemaps.push(done.link);
                }
            }
            _ => {}
        }
    }
}

fn attribute(e: &quick_xml::events::BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        let key = String::from_utf8_lossy(a.key.local_name().as_ref()).to_ascii_lowercase();
        (key == name).then(|| String::from_utf8_lossy(&a.value).into_owned())
    })
}

/// RFC 2822 (RSS), RFC 3339 / W3C datetime (Atom, sitemaps), or a bare date; in UTC.
pub fn parse_date(value: &str) -> Option<NaiveDateTime> {
    let v = value.trim();
    if let Ok(t) = DateTime::parse_from_rfc2822(v) {
        return Some(t.with_timezone(&Utc).naive_utc());
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Some(t.with_timezone(&Utc).naive_utc());
    }
    if let Ok(t) = DateTime::parse_from_str(v, "%Y-%m-%dT%H:%M%:z") {
        return Some(t.with_timezone(&Utc).naive_utc());
    }
    NaiveDate::parse_from_str(v.get(..10)?, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
}

/// Decodes by BOM, then the charset of `content_type`, then the XML declaration, else UTF-8.
fn decode<'a>(bytes: &'a [u8], content_type: Option<&str>) -> Cow<'a, str> {
    let declared = content_type
        .and_then(|ct| {
            ct.split(';')
                .find_map(|p| p.trim().strip_prefix("charset="))
        })
        .map(|c| c.trim_matches(['"', '\'']).to_string())
        .or_else(|| xml_declared_encoding(bytes));
    let encoding = declared
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let (text, _, _) = encoding.decode(bytes);
    text
}

fn xml_declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).to_ascii_lowercase();
    let decl = &head[head.find("<?xml")?..];
    let decl = &decl[..decl.find("?>")?];
    let at = decl.find("encoding=")? + "encoding=".len();
    let rest = decl[at..].trim_start_matches(['"', '\'']);
    Some(
        rest.chars()
            .take_while(|c| !matches!(c, '"' | '\'' | ' '))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn rss_items_with_cdata_entities_and_rfc2822_dates() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>BBC News</title><link>http://www.bbc.co.uk/news/</link>
<item><title><![CDATA[Budget &amp; tax]]></title><link>http://www.bbc.co.uk/news/uk-1</link>
<description><![CDATA[The chancellor has set out the budget.]]></description>
<pubDate>Tue, 02 Jun 2015 10:00:00 +0100</pubDate></item>
<item><title>Rates &amp; &#8220;bonds&#8221;</title><guid>http://www.bbc.co.uk/news/uk-2</guid></item>
<item><title>no link</title></item>
</channel></rss>"#;
        let feed = parse_feed(xml, None).unwrap();
        assert_eq!(feed.kind, FeedKind::Rss);
        assert_eq!(feed.items.len(), 2);
        assert_eq!(feed.items[0].published, Some(at("2015-06-02 09:00:00")));
        assert_eq!(feed.items[0].title.as_deref(), Some("Budget &amp; tax"));
        assert_eq!(feed.items[1].link, "http://www.bbc.co.uk/news/uk-2");
        assert_eq!(
            feed.items[1].title.as_deref(),
            Some("Rates & \u{201c}bonds\u{201d}")
        );
        assert_eq!(feed.items[1].published, None);
        assert_eq!(
            feed.items[0].description.as_deref(),
            Some("The chancellor has set out the budget.")
        );
        assert_eq!(feed.items[1].description, None);
    }

    #[test]
    fn atom_news_sitemap_and_index() {
        let atom = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>A</title>
<link rel="self" href="http://x/self"/><link rel="alternate" href="http://x/a"/>
<published>2019-03-01T10:00:00Z</published></entry></feed>"#;
        let feed = parse_feed(atom, None).unwrap();
        assert_eq!(feed.items[0].link, "http://x/a");
        assert_eq!(feed.items[0].published, Some(at("2019-03-01 10:00:00")));
        let sitemap = br#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
<url><loc>https://edition.cnn.com/2019/03/01/politics/a/index.html</loc><news:news>
<news:publication_date>2019-03-01</news:publication_date><news:title>A</news:title></news:news></url></urlset>"#;
        let feed = parse_feed(sitemap, None).unwrap();
        assert_eq!(feed.kind, FeedKind::Sitemap);
        assert_eq!(feed.items[0].published, Some(at("2019-03-01 00:00:00")));
        assert_eq!(feed.items[0].title.as_deref(), Some("A"));
        let index = br#"<sitemapindex><sitemap><loc>https://x/s1.xml</loc><lastmod>2019-01-01</lastmod></sitemap></sitemapindex>"#;
        assert_eq!(
            parse_feed(index, None).unwrap().sitemaps,
            ["https://x/s1.xml"]
        );
    }

    #[test]
    fn latin1_feeds_decode_and_bad_documents_are_errors() {
        let mut xml =
            b"<?xml version='1.0' encoding='ISO-8859-1'?><rss><channel><item><title>caf".to_vec();
        xml.push(0xe9);
        xml.extend_from_slice(b"</title><link>http://x/1</link></item></channel></rss>");
        assert_eq!(
            parse_feed(&xml, None).unwrap().items[0].title.as_deref(),
            Some("caf\u{e9}")
        );
        let err = parse_feed(b"<html><body>not a feed</body></html>", None).unwrap_err();
        assert!(err.contains("<html>"), "{err}");
        let err = parse_feed(b"<rss><channel><item></channel></rss>", None).unwrap_err();
        assert!(err.contains("not well-formed"), "{err}");
        assert!(parse_feed(b"", None).is_err());
    }
}
