//! A CNN article's page as the site served it on one host, in the layout of the
//! day it was published: our own text in the markup of CNN's archived pages
//! (navigation, rails, editor's notes and related links around the story, as
//! on the real ones).

use chrono::Datelike;

use super::articles::{CnnArticle, Layout};

/// The article's page as served on `host` (`www.cnn.com`, `edition.cnn.com`,
/// `us.cnn.com`): the page names its own URL on that host.
pub fn page_html(a: &CnnArticle, host: &str) -> String {
    match a.layout {
        Layout::StoryColumn => story_column(a, host),
        Layout::ZoneBody => zone_body(a, host),
        Layout::ArticleContent => article_content(a, host),
    }
}

/// `Ashby (CNN)` or `(CNN)`.
fn dateline(a: &CnnArticle) -> String {
    if a.dateline.is_empty() {
        "(CNN)".to_string()
    } else {
        format!("{} (CNN)", a.dateline)
    }
}

fn iso(a: &CnnArticle) -> String {
    a.published.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn note(a: &CnnArticle) -> String {
    let place = if a.dateline.is_empty() {
        "the area"
    } else {
        a.dateline
    };
    format!("Editor's note: Do you live in {place}? Share your views with CNN iReport.")
}

/// To 2013: the story column. Pages of 2012-2013 carry `pubdate`; earlier ones
/// state no date (the URL does) and name themselves by a canonical link.
fn story_column(a: &CnnArticle, host: &str) -> String {
    let url = a.url_on(host);
    let dated = if a.published.year() >= 2012 {
        format!(
            "<meta content=\"{}\" itemprop=\"datePublished\" name=\"pubdate\"/>\n",
            iso(a)
        )
    } else {
        format!("<link rel=\"canonical\" href=\"{url}\" />\n")
    };
    let highlights: String = a
        .highlights
        .iter()
        .map(|h| format!("<li>{h}</li>\n"))
        .collect();
    let note = if a.editors_note {
        format!("<p class=\"cnnEditorialNote\"><em>{}</em></p>\n", note(a))
    } else {
        String::new()
    };
    let body: String = a
        .paragraphs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "<p class=\"cnn_storypgraphtxt cnn_storypgraph{n}\">{p}</p>\n",
                n = i + 2
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"UTF-8\"/>\n<title>{title} - CNN.com</title>\n<meta content=\"{lead}\" itemprop=\"description\" name=\"description\"/>\n<meta content=\"{section}\" itemprop=\"articleSection\" name=\"section\"/>\n{dated}<meta content=\"{title}\" itemprop=\"headline\" property=\"og:title\" />\n<meta content=\"{url}\" itemprop=\"url\" property=\"og:url\"/>\n<meta content=\"{lead}\" property=\"og:description\"/>\n</head>\n<body>\n<div id=\"cnn_hdr\"><nav class=\"cnn_hdr-nav\"><a href=\"/US/\">U.S.</a> <a href=\"/WORLD/\">World</a> <a href=\"/POLITICS/\">Politics</a></nav></div>\n<div class=\"cnn_storyarea\" id=\"cnnContentContainer\">\n<h1>{title}</h1>\n<div class=\"cnn_stryathrtmp\">\n<div class=\"cnnByline\">By <strong>{author}</strong>, CNN</div>\n<div class=\"cnn_strytmstmp\">{day} -- Updated {hhmm} GMT</div>\n</div>\n<div class=\"cnn_strycntntlft\">\n<div class=\"cnn_strylftcntnt\"><div class=\"cnn_strylctcntr\">\n<div><strong>STORY HIGHLIGHTS</strong></div>\n<ul class=\"cnn_bulletbin cnnStryHghLght\">\n{highlights}</ul>\n</div></div>\n{note}<p><strong>{dateline}</strong> -- {lead}</p>\n{body}<p class=\"cnn_storypgraphtxt\"><a href=\"/{year}/\">Read more from {section} news</a></p>\n</div>\n<div class=\"cnn_strycntntrgt\">\n<div class=\"cnn_mostpopular\"><h4>Most popular</h4><ul><li><a href=\"/\">Weather slows holiday travel</a></li></ul></div>\n</div>\n</div>\n<div id=\"cnn_ftrcntnt\"><footer>&copy; {year} Cable News Network.</footer></div>\n</body>\n</html>\n",
        title = a.title,
        lead = a.lead,
        section = a.section,
        author = a.author,
        day = a.published.format("%B %-d, %Y"),
        hhmm = a.published.format("%H%M"),
        dateline = dateline(a),
        year = a.published.year(),
    )
}

/// 2014 to September 2022: body zones; highlights above the text while CNN wrote
/// them; the lead in a sourced paragraph that opens with its `(CNN)` source.
fn zone_body(a: &CnnArticle, host: &str) -> String {
    let url = a.url_on(host);
    let suffix = if a.published.year() < 2017 {
        " - CNN.com"
    } else {
        " - CNN"
    };
    let highlights = if a.highlights.is_empty() {
        String::new()
    } else {
        let items: String = a
            .highlights
            .iter()
            .map(|h| {
                format!(
                    "<li class=\"el__storyhighlights__item el__storyhighlights--normal\">{h}</li>"
                )
            })
            .collect();
        format!("<div class=\"el__leafmedia el__leafmedia--storyhighlights\"><div class=\"el__storyhighlights_wrapper\"><div class=\"el__storyhighlights\"><h3 class=\"el__headline\">Story highlights</h3><ul class=\"el__storyhighlights__list\">{items}</ul></div></div></div>")
    };
    let note = if a.editors_note {
        format!("<div class=\"el__leafmedia el__leafmedia--editorial-note\"><p class=\"zn-body__paragraph el-editorial-note\">{}</p></div>", note(a))
    } else {
        String::new()
    };
    let (first, rest) = a.paragraphs.split_at(a.paragraphs.len().min(2));
    let paragraph = |p: &String| format!("<div class=\"zn-body__paragraph\">{p}</div>");
    let first: String = first.iter().map(paragraph).collect();
    let rest: String = rest.iter().map(paragraph).collect();
    let cite = if a.dateline.is_empty() {
        " (CNN)".to_string()
    } else {
        dateline(a)
    };
    format!(
        "<!DOCTYPE html><html class=\"no-js\"><head><meta charset=\"utf-8\"><title>{title}{suffix}</title><meta content=\"{iso}\" property=\"og:pubdate\"><meta content=\"{iso}\" name=\"pubdate\"><meta content=\"{url}\" property=\"og:url\"><meta content=\"{title}{suffix}\" property=\"og:title\"><meta content=\"{lead}\" property=\"og:description\"><meta content=\"{lead}\" name=\"description\"><link rel=\"canonical\" href=\"{url}\"><script type=\"application/ld+json\">{{\"@context\": \"http://schema.org/\", \"@type\": \"WebPage\",\"name\": \"{title}\", \"publisher\": \"CNN\", \"url\": \"{url}\"}}</script></head>\n<body class=\"pg pg-hidden pg-article pg-vertical--{section}\"><header id=\"nav-header\" class=\"nav-header\"><nav class=\"nav js-navigation\"><a class=\"logo\" href=\"/\"></a><a class=\"nav-menu-links__link\" href=\"/{section}\">{section}</a></nav></header>\n<article class=\"pg-rail-tall pg-rail--align-right\" itemscope itemtype=\"http://schema.org/NewsArticle\"><meta itemprop=\"articleSection\" content=\"{section}\"><meta itemprop=\"dateCreated\" content=\"{iso}\"><meta itemprop=\"datePublished\" content=\"{iso}\"><div class=\"l-container\"><h1 class=\"pg-headline\">{title}</h1><div class=\"metadata\"><div class=\"metadata__info js-byline-images\"><p class=\"metadata__byline\">By <span class=\"metadata__byline__author\">{author}</span>, CNN</p><p class=\"update-time\">Updated {hhmm} GMT {day}</p></div></div></div>\n<div class=\"pg-rail-tall__wrapper\"><div class=\"pg-side-of-rail pg-rail-tall__side\"><div class=\"pg-rail-tall__body\" itemprop=\"articleBody\"><section class=\"zn zn-body-text zn-body zn--idx-0 zn--ordinary zn-has-multiple-containers\" id=\"body-text\" data-zone-label=\"bodyText\"><div class=\"l-container\">{highlights}{note}<div class=\"el__leafmedia el__leafmedia--sourced-paragraph\"><p class=\"zn-body__paragraph speakable\"><cite class=\"el-editorial-source\">{cite}</cite>{lead}</p></div>{first}<div class=\"el__embedded el__embedded--standard\"><div class=\"el__storyelement--standard\"><a href=\"/{year}/\"><span class=\"cd__headline-text\">More from {section}</span></a></div></div><div class=\"zn-body__read-more\"><div class=\"read-more-button\"><div class=\"read-more-link\" id=\"js-body-read-more\">Read More</div></div></div><div class=\"zn-body__read-all\">{rest}<div class=\"zn-body__paragraph\"><a href=\"/{year}/\">Read more from {section} news</a></div><div class=\"zn-body__paragraph zn-body__footer\">CNN's {author} contributed to this report.</div></div></div></section></div></div></div></article>\n<footer class=\"l-footer\"><p class=\"m-legal__copyright\">&copy; {year} Cable News Network.</p></footer></body></html>\n",
        title = a.title,
        iso = iso(a),
        lead = a.lead,
        section = a.section,
        author = a.author,
        hhmm = a.published.format("%H%M"),
        day = a.published.format("%B %-d, %Y"),
        year = a.published.year(),
    )
}

/// From October 2022: `article__content`, highlights empty, the dateline in
/// `source__cite` (location and source apart), the date in `article:published_time`
/// and JSON-LD.
fn article_content(a: &CnnArticle, host: &str) -> String {
    let url = a.url_on(host);
    let paragraph = |p: &String| {
        format!("  <p class=\"paragraph inline-placeholder\" data-component-name=\"paragraph\" data-editable=\"text\">\n      {p}\n  </p>\n\n")
    };
    let (first, rest) = a.paragraphs.split_at(a.paragraphs.len().min(2));
    let first: String = first.iter().map(paragraph).collect();
    let rest: String = rest.iter().map(paragraph).collect();
    let note = if a.editors_note {
        format!(
            "<div class=\"editor-note\" data-editable=\"text\"><em>{}</em></div>\n",
            note(a)
        )
    } else {
        String::new()
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\" data-layout-uri=\"cms.cnn.com/_layouts/layout-with-rail/instances/article-v1@published\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title} | CNN</title>\n<link rel=\"canonical\" href=\"{url}\">\n<meta property=\"og:title\" content=\"{title} | CNN\">\n<meta property=\"og:url\" content=\"{url}\">\n<meta property=\"og:description\" content=\"{lead}\">\n<meta name=\"description\" content=\"{lead}\">\n<meta property=\"article:published_time\" content=\"{iso}\">\n<meta name=\"author\" content=\"{author}\">\n<script type=\"application/ld+json\">{{\"@context\":\"http://schema.org\",\"@type\":\"NewsArticle\",\"headline\":\"{title}\",\"datePublished\":\"{iso}\",\"articleSection\":[\"{section}\"],\"author\":[{{\"@type\":\"Person\",\"name\":\"{author}\"}}]}}</script>\n</head>\n<body class=\"layout layout-with-rail__body\">\n<header class=\"header\"><nav class=\"header__nav\"><a class=\"brand-logo\" href=\"/\">CNN</a> <a href=\"/{section}\">{section}</a></nav></header>\n<section class=\"layout__content-wrapper layout-with-rail__content-wrapper\">\n<div class=\"headline headline--has-lowertext\" data-component-name=\"headline\">\n  <div class=\"headline__wrapper\">\n    <h1 data-editable=\"headlineText\" class=\"headline__text inline-placeholder\" id=\"maincontent\">\n      {title}\n    </h1>\n  </div>\n  <div class=\"headline__footer\"><div class=\"headline__sub-container\"><div class=\"headline__sub-text\">\n    <div class=\"byline\"><div class=\"byline__names\">By <a class=\"byline__link\" href=\"/profiles/\"><span class=\"byline__name\">{author}</span></a>, CNN</div></div>\n    <div class=\"timestamp\">\n  Published\n        {clock} UTC, {day}\n    </div>\n  </div></div></div>\n</div>\n<div class=\"article__content-container\">\n<div class=\"article__highlights\" data-editable=\"highlights\" itemprop=\"articleHighlights\">\n</div>\n<div class=\"article__content\" data-editable=\"content\" itemprop=\"articleBody\">\n{note}<div class=\"source inline-placeholder\">\n    <cite class=\"source__cite\">\n      <span class=\"source__location\" data-editable=\"location\">{place}</span>\n      <span class=\"source__text\" data-editable=\"source\">CNN</span>\n        &#xA0;&#x2014;&#xA0;\n    </cite>\n</div>\n\n{lead_p}{first}<div class=\"related-content related-content--article\"><a class=\"related-content__link\" href=\"/{year}/\"><span class=\"related-content__headline-text\">More from {section}</span></a></div>\n\n{rest}</div>\n</div>\n</section>\n<footer class=\"footer\"><p class=\"footer__copyright-text\">&copy; {year} Cable News Network.</p></footer>\n</body>\n</html>\n",
        title = a.title,
        lead = a.lead,
        iso = iso(a),
        author = a.author,
        section = a.section,
        clock = a.published.format("%-I:%M %p"),
        day = a.published.format("%a %B %-d, %Y"),
        place = a.dateline,
        lead_p = paragraph(&a.lead),
        year = a.published.year(),
    )
}
