//! Builders for archives we write ourselves: BBC-style news articles (the
//! 2013-2019 `story-body` markup), their RSS feeds and news sitemaps.
//! Deterministic: the same arguments give the same bytes.

use chrono::{Duration, NaiveDateTime};

use crate::corpus::{Corpus, MockCapture};

/// A small listing to test CDX queries on: two URLs captured three times each
/// (one capture repeated with the same payload), a revisit, a redirect capture,
/// and another site.
pub fn listing_corpus() -> Corpus {
    let a = "http://www.bbc.co.uk/news/uk-1";
    let b = "http://www.bbc.co.uk/news/uk-2";
    Corpus::new([
        MockCapture::html(a, "20150101000000", "a v1"),
        MockCapture::html(a, "20150102000000", "a v1"),
        MockCapture::html(a, "20150103000000", "a v2"),
        MockCapture::revisit(a, "20150104000000", "X"),
        MockCapture::html(b, "20150101120000", "b v1"),
        MockCapture::html(b, "20150105000000", "b v2"),
        MockCapture::redirect("http://www.bbc.co.uk/news/old", "20150101000000", 301, b),
        MockCapture::html("http://www.cnn.com/", "20150101000000", "cnn"),
    ])
}

/// A made-up article of a made-up news day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntheticArticle {
    /// Numeric id (the BBC URL suffix).
    pub id: u64,
    /// Original URL, `http://www.bbc.co.uk/news/uk-<id>`.
    pub url: String,
    /// Publication time (UTC).
    pub published: NaiveDateTime,
    /// Headline.
    pub title: String,
    /// Bold introduction.
    pub summary: String,
}

/// `n` articles published every `every_minutes` from `start`, ids from 30000000.
pub fn articles(n: usize, start: NaiveDateTime, every_minutes: i64) -> Vec<SyntheticArticle> {
    (0..n)
        .map(|i| {
            let id = 30_000_000 + i as u64;
            SyntheticArticle {
                id,
                url: format!("http://www.bbc.co.uk/news/uk-{id}"),
                published: start + Duration::minutes(every_minutes * i as i64),
                title: format!("Council number {i} approves new budget"),
                summary: format!("Council number {i} has approved its budget for the coming year."),
            }
        })
        .collect()
}

/// The article's page, padded with paragraphs to about `size` bytes.
pub fn article_html(article: &SyntheticArticle, size: usize) -> String {
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en-GB\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title} - BBC News</title>\n<meta property=\"og:title\" content=\"{title}\">\n<meta name=\"description\" content=\"{summary}\">\n</head>\n<body>\n<div class=\"story-body\">\n<h1 class=\"story-body__h1\">{title}</h1>\n<div class=\"date date--v2\" data-seconds=\"{seconds}\">{date}</div>\n<div class=\"story-body__inner\" property=\"articleBody\">\n<p class=\"story-body__introduction\">{summary}</p>\n",
        title = article.title,
        summary = article.summary,
        seconds = article.published.and_utc().timestamp(),
        date = article.published.format("%-d %B %Y"),
    );
    let mut n = 0;
    while html.len() + 40 < size {
        n += 1;
        html.push_str(&format!(
            "<p>Paragraph {n} of article {} reports what the council decided and why it matters to residents.</p>\n",
            article.id
        ));
    }
    html.push_str("</div>\n</div>\n</body>\n</html>\n");
    html
}

/// A capture of the article `delay_minutes` after publication.
pub fn article_capture(article: &SyntheticArticle, delay_minutes: i64, size: usize) -> MockCapture {
    let at = article.published + Duration::minutes(delay_minutes);
    MockCapture::html(&article.url, &timestamp(at), article_html(article, size))
}

/// The capture of [`article_capture`] as a CDX listing gives it to a fetcher.
pub fn listed_capture(article: &SyntheticArticle, delay_minutes: i64) -> tempora_records::Capture {
    tempora_records::Capture {
        url: article.url.clone(),
        timestamp: tempora_records::Timestamp::of(
            article.published + Duration::minutes(delay_minutes),
        ),
        status: Some(200),
        mime: "text/html".into(),
        digest: String::new(),
        length: None,
        source: "synthetic".into(),
    }
}

/// 14-digit capture timestamp of a time.
pub fn timestamp(t: NaiveDateTime) -> String {
    t.format("%Y%m%d%H%M%S").to_string()
}

/// An RSS 2.0 feed listing `items` (newest first, as feeds do).
pub fn rss_feed(items: &[SyntheticArticle]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss xmlns:media=\"http://search.yahoo.com/mrss/\" version=\"2.0\">\n<channel>\n<title>BBC News - Home</title>\n<link>http://www.bbc.co.uk/news/</link>\n<description>The latest stories</description>\n",
    );
    for a in items.iter().rev() {
        xml.push_str(&format!(
            "<item>\n<title><![CDATA[{}]]></title>\n<description><![CDATA[{}]]></description>\n<link>{}</link>\n<guid isPermaLink=\"true\">{}</guid>\n<pubDate>{}</pubDate>\n</item>\n",
            a.title,
            a.summary,
            a.url,
            a.url,
            a.published.format("%a, %d %b %Y %H:%M:%S GMT")
        ));
    }
    xml.push_str("</channel>\n</rss>\n");
    xml
}

/// A Google News sitemap listing `items`.
pub fn news_sitemap(items: &[SyntheticArticle]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:news=\"http://www.google.com/schemas/sitemap-news/0.9\">\n",
    );
    for a in items {
        xml.push_str(&format!(
            "<url>\n<loc>{}</loc>\n<news:news>\n<news:publication><news:name>BBC News</news:name><news:language>en</news:language></news:publication>\n<news:publication_date>{}</news:publication_date>\n<news:title>{}</news:title>\n</news:news>\n</url>\n",
            a.url,
            a.published.format("%Y-%m-%dT%H:%M:%SZ"),
            a.title
        ));
    }
    xml.push_str("</urlset>\n");
    xml
}

/// A capture of an XML document (feed or sitemap) at `at`.
pub fn xml_capture(url: &str, at: NaiveDateTime, xml: &str) -> MockCapture {
    MockCapture::html(url, &timestamp(at), xml.as_bytes().to_vec())
        .with_content_type("text/xml; charset=utf-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> NaiveDateTime {
        chrono::NaiveDate::from_ymd_opt(2015, 6, 1)
            .and_then(|d| d.and_hms_opt(8, 0, 0))
            .unwrap()
    }

    #[test]
    fn pages_reach_the_size_and_feeds_list_every_item() {
        let list = articles(3, start(), 90);
        assert_eq!(list[2].published, start() + Duration::minutes(180));
        let html = article_html(&list[0], 100_000);
        assert!(
            html.len() >= 99_900 && html.len() <= 100_200,
            "{}",
            html.len()
        );
        let feed = rss_feed(&list);
        assert_eq!(feed.matches("<item>").count(), 3);
        assert!(feed.contains("<pubDate>Mon, 01 Jun 2015 08:00:00 GMT</pubDate>"));
        let sitemap = news_sitemap(&list);
        assert!(
            sitemap.contains("<news:publication_date>2015-06-01T09:30:00Z</news:publication_date>")
        );
    }
}
