//! An article's page as the site served it, in the layout of its year.

use chrono::Datelike;

use super::articles::ModelArticle;

/// The article's page in the layout of its year.
pub fn page_html(a: &ModelArticle) -> String {
    let year = a.published.year();
    let body: String = a
        .paragraphs
        .iter()
        .map(|p| format!("<p>{p}</p>\n"))
        .collect();
    let head = format!(
        "<!DOCTYPE html>\n<html lang=\"en-GB\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title} - BBC News</title>\n<link rel=\"canonical\" href=\"{url}\">\n<meta property=\"og:title\" content=\"{title}\">\n<meta property=\"og:description\" content=\"{promo}\">\n",
        title = a.title,
        url = a.url,
        promo = a.promo,
    );
    if a.video {
        return format!(
            "{head}<script type=\"application/ld+json\">{{\"@type\":\"VideoObject\",\"uploadDate\":\"{date}\"}}</script>\n</head>\n<body>\n<div class=\"media-player\"></div>\n<h1 id=\"main-heading\">{title}</h1>\n<div class=\"ssrcss-1a2b-StyledSummary\">\n<p>{summary}</p>\n{body}</div>\n</body>\n</html>\n",
            date = a.published.format("%Y-%m-%dT%H:%M:%S+00:00"),
            title = a.title,
            summary = a.summary,
        );
    }
    if year < 2013 {
        format!(
            "{head}<meta name=\"OriginalPublicationDate\" content=\"{date}\">\n</head>\n<body>\n<div id=\"main-content\">\n<div class=\"story-body\" id=\"story-body\">\n<h1 class=\"story-header\">{title}</h1>\n<span class=\"date\">{day}</span>\n<p class=\"introduction\">{summary}</p>\n{body}</div>\n</div>\n</body>\n</html>\n",
            date = a.published.format("%Y/%m/%d %H:%M:%S"),
            day = a.published.format("%-d %B %Y"),
            title = a.title,
            summary = a.summary,
        )
    } else if year < 2020 {
        format!(
            "{head}</head>\n<body>\n<div class=\"story-body\">\n<h1 class=\"story-body__h1\">{title}</h1>\n<div class=\"date date--v2\" data-seconds=\"{seconds}\">{day}</div>\n<div class=\"story-body__inner\" property=\"articleBody\">\n<p class=\"story-body__introduction\">{summary}</p>\n{body}</div>\n</div>\n</body>\n</html>\n",
            seconds = a.published.and_utc().timestamp(),
            day = a.published.format("%-d %B %Y"),
            title = a.title,
            summary = a.summary,
        )
    } else {
        let blocks: String = a
            .paragraphs
            .iter()
            .map(|p| format!("<div data-component=\"text-block\" class=\"ssrcss-7uxr49-RichTextContainer\"><p>{p}</p></div>\n"))
            .collect();
        format!(
            "{head}<script type=\"application/ld+json\">{{\"@type\":\"NewsArticle\",\"datePublished\":\"{date}\",\"headline\":\"{title}\"}}</script>\n</head>\n<body>\n<main><article>\n<header><h1 id=\"main-heading\">{title}</h1></header>\n<div data-component=\"text-block\" class=\"ssrcss-7uxr49-RichTextContainer\"><p><b class=\"ssrcss-hmf8ql-BoldText\">{summary}</b></p></div>\n{blocks}</article></main>\n</body>\n</html>\n",
            date = a.published.format("%Y-%m-%dT%H:%M:%S.000Z"),
            title = a.title,
            summary = a.summary,
        )
    }
}
