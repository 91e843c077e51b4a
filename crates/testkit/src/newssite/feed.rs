//! The captured RSS feed: when the archive took it and what each capture lists.

use chrono::{Datelike, Duration};

use super::articles::ModelArticle;
use crate::corpus::MockCapture;
use crate::synthetic::xml_capture;

/// The feed the model archives.
pub const FEED_URL: &str = "http://feeds.bbci.co.uk/news/rss.xml";

/// Feed captures: one each time 25 more articles are out, listing the latest 40
/// that the feed carried (items some articles never had drop out).
pub(super) fn feed_captures(articles: &[ModelArticle]) -> Vec<MockCapture> {
    let listed: Vec<&ModelArticle> = articles.iter().filter(|a| a.in_feed).collect();
    let mut captures = Vec::new();
    let mut end = 25.min(listed.len());
    while end > 0 {
        let items = &listed[end.saturating_sub(40)..end];
        let newest = items.last().map_or(articles[0].published, |a| a.published);
        let at = newest + Duration::hours(1);
        captures.push(xml_capture(FEED_URL, at, &rss(items)));
        if end == listed.len() {
            break;
        }
        end = (end + 25).min(listed.len());
    }
    captures
}

fn rss(items: &[&ModelArticle]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss xmlns:media=\"http://search.yahoo.com/mrss/\" version=\"2.0\">\n<channel>\n<title><![CDATA[BBC News - Home]]></title>\n<link>https://www.bbc.co.uk/news/</link>\n<description><![CDATA[BBC News - Home]]></description>\n",
    );
    for a in items.iter().rev() {
        let link = if a.published.year() >= 2016 {
            format!("{}?at_medium=RSS&amp;at_campaign=KARANGA", a.url)
        } else {
            a.url.clone()
        };
        xml.push_str(&format!(
            "<item>\n<title><![CDATA[{}]]></title>\n<description><![CDATA[{}]]></description>\n<link>{link}</link>\n<guid isPermaLink=\"true\">{}</guid>\n<pubDate>{}</pubDate>\n</item>\n",
            a.title,
            a.promo,
            a.url,
            a.published.format("%a, %d %b %Y %H:%M:%S GMT")
        ));
    }
    xml.push_str("</channel>\n</rss>\n");
    xml
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newssite::{NewsSite, NewsSiteSpec, Topic};

    #[test]
    fn feed_descriptions_are_promo_lines_as_on_the_real_site() {
        let site = NewsSite::build(&NewsSiteSpec::default());
        // Each item's description, by its guid (the article's URL).
        let mut described = std::collections::HashMap::new();
        for (_, c) in site.corpus.rows().iter().filter(|(_, c)| c.url == FEED_URL) {
            let xml = String::from_utf8_lossy(&c.body);
            for item in xml.split("<item>").skip(1) {
                let between = |open: &str, close: &str| {
                    let from = item.find(open)? + open.len();
                    let to = item[from..].find(close)? + from;
                    Some(item[from..to].to_string())
                };
                if let (Some(guid), Some(description)) = (
                    between("<guid isPermaLink=\"true\">", "</guid>"),
                    between("<description><![CDATA[", "]]></description>"),
                ) {
                    described.insert(guid, description);
                }
            }
        }
        let listed: Vec<&ModelArticle> = site
            .articles
            .iter()
            .filter(|a| described.contains_key(&a.url))
            .collect();
        let equal = listed
            .iter()
            .filter(|a| described[&a.url] == a.summary)
            .count();
        // 12% on the real site; the model draws it per article.
        assert!(listed.len() > 500, "{}", listed.len());
        let share = equal as f64 / listed.len() as f64;
        assert!((0.06..0.2).contains(&share), "{equal} of {}", listed.len());
        // Where they differ, the description may drop the names the summary has.
        let hides_the_holder = listed
            .iter()
            .filter(|a| a.topic == Topic::Fact && described[&a.url] != a.summary)
            .count();
        assert!(hides_the_holder > 10, "{hides_the_holder}");
    }
}
