//! The archive's captures of CNN pages: each story under its host and URL
//! variants, and each month's pages under `cnn.com/YYYY/` that are not stories.

use chrono::{Datelike, Duration, NaiveDateTime};

use super::articles::{CnnArticle, SECTIONS};
use super::page::page_html;
use crate::corpus::MockCapture;
use crate::newssite::capture_times::CaptureTimes;
use crate::synthetic::timestamp;

/// Tracking queries CNN's links carried (feeds, the homepage, outbrain rails).
const QUERIES: [&str; 4] = [
    "?eref=rss_topstories",
    "?eref=edition",
    "?iid=ob_lockedrail_topeditorial",
    "?hpt=hp_t1",
];

/// The story's captures: first soon after publication, mostly on `www.cnn.com`
/// (some only on the international edition, which a `cnn.com/...` listing does
/// not hold: the Archive keys `edition.cnn.com` apart), then again under its
/// variants: `edition.` and `us.` hosts, `:80`, a trailing `/` for `index.html`,
/// tracking queries, and once CNN served https, the http URL's archived redirect.
pub(super) fn article_captures(rng: &mut fastrand::Rng, a: &CnnArticle) -> Vec<MockCapture> {
    let times = CaptureTimes::draw(rng, a.published);
    let home = if rng.u32(0..100) < 12 {
        "edition.cnn.com"
    } else {
        "www.cnn.com"
    };
    let mut urls = vec![(a.url_on(home), times.first())];
    for _ in 0..rng.usize(0..3) {
        let again = match rng.u32(0..3) {
            0 => a.url_on(home),
            1 if a.scheme() == "http" => format!("http://www.cnn.com:80{}/index.html", a.path),
            _ => format!("{}://{home}{}/", a.scheme(), a.path),
        };
        urls.push((again, times.later(rng)));
    }
    if rng.u32(0..100) < 50 {
        urls.push((a.url_on("edition.cnn.com"), times.later(rng)));
    }
    if a.published.year() >= 2015 && rng.u32(0..100) < 20 {
        let url = format!("{}?iid=ob_article_footer_expansion", a.url_on("us.cnn.com"));
        urls.push((url, times.later(rng)));
    }
    if rng.u32(0..100) < 30 {
        let query = QUERIES[rng.usize(..QUERIES.len())];
        urls.push((format!("{}{query}", a.url), times.later(rng)));
    }
    let mut captures: Vec<MockCapture> = urls
        .into_iter()
        .map(|(url, at)| {
            let html = page_html(a, host_of(&url));
            MockCapture::html(&url, &timestamp(at), html)
        })
        .collect();
    if a.scheme() == "https" && rng.u32(0..100) < 30 {
        let http = a.url.replacen("https://", "http://", 1);
        let at = timestamp(times.later(rng));
        captures.push(MockCapture::redirect(&http, &at, 301, &a.url));
    }
    captures
}

/// The host a page was served on, as the page names itself (`:80` and bare
/// `cnn.com` served `www.cnn.com`'s page).
fn host_of(url: &str) -> &'static str {
    if url.contains("://edition.") {
        "edition.cnn.com"
    } else if url.contains("://us.") {
        "us.cnn.com"
    } else {
        "www.cnn.com"
    }
}

/// A month's pages under `cnn.com/YYYY/` that are not stories: a gallery and a
/// video (under a story's date and section), and the year's own index page,
/// each captured a few times.
pub(super) fn add_non_articles(
    captures: &mut Vec<MockCapture>,
    rng: &mut fastrand::Rng,
    month: NaiveDateTime,
) -> usize {
    let (section, _) = SECTIONS[rng.usize(..SECTIONS.len())];
    let (y, m, d) = (month.year(), month.month(), 1 + rng.u32(0..27));
    let scheme = if y >= 2017 { "https" } else { "http" };
    let dated = format!("{scheme}://www.cnn.com/{y}/{m:02}/{d:02}/{section}");
    let pages = [
        (
            format!("{dated}/gallery/week-in-pictures-{m}/index.html"),
            "<div class=\"el__gallery el__gallery--fullstandardwidth\"><div class=\"el__gallery-slide\"><img src=\"photo-1.jpg\" alt=\"\"><div class=\"media__caption\">A crowd gathers in the square.</div></div></div>",
        ),
        (
            format!("{dated}/video/town-meeting-{m}/index.html"),
            "<div class=\"media__video\"><div class=\"media__video--thumbnail\"></div><div class=\"media__caption\">Residents speak at a town meeting.</div></div>",
        ),
        (
            format!("{scheme}://www.cnn.com/{y}/"),
            "<ul class=\"cn-list\"><li><a href=\"/\">Top stories</a></li></ul>",
        ),
    ];
    let mut n = 0;
    for (url, body) in pages {
        for _ in 0..1 + rng.usize(0..2) {
            let at = month + Duration::hours(rng.i64(0..24 * 27));
            let html = format!(
                "<!DOCTYPE html>\n<html><head><title>CNN</title></head><body>{body}</body></html>\n"
            );
            captures.push(MockCapture::html(&url, &timestamp(at), html));
            n += 1;
        }
    }
    n
}
