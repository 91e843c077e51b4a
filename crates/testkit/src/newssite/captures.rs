//! The archive's captures of pages: each article under its URL variants, and
//! each month's pages that are not articles.

use chrono::{Datelike, Duration, NaiveDateTime};

use super::articles::{ModelArticle, SECTIONS};
use super::capture_times::CaptureTimes;
use super::ids::id_at;
use super::page::page_html;
use crate::corpus::MockCapture;
use crate::synthetic::timestamp;

/// The article's captures: the canonical URL soon after publication and again
/// later, and some of its variants.
pub(super) fn article_captures(rng: &mut fastrand::Rng, a: &ModelArticle) -> Vec<MockCapture> {
    let html = page_html(a);
    let path = a
        .url
        .split_once("bbc.co.uk")
        .map_or(a.url.as_str(), |(_, p)| p);
    let times = CaptureTimes::draw(rng, a.published);
    let mut urls = vec![(a.url.clone(), times.first())];
    let later = |rng: &mut fastrand::Rng| times.later(rng);
    for _ in 0..rng.usize(0..3) {
        let again = if rng.bool() {
            a.url
                .replace("://www.", "://")
                .replace("co.uk/", "co.uk:80/")
        } else {
            a.url.clone()
        };
        urls.push((again, later(rng)));
    }
    if rng.u32(0..100) < 55 {
        urls.push((format!("https://www.bbc.com{path}"), later(rng)));
    }
    if rng.u32(0..100) < 30 {
        let query = if rng.bool() {
            "?at_medium=RSS&at_campaign=KARANGA"
        } else {
            "?ocid=socialflow_twitter"
        };
        urls.push((format!("{}{query}", a.url), later(rng)));
    }
    if !a.video && rng.u32(0..100) < 15 {
        let mobile = a.url.replacen("/news/", "/news/mobile/", 1);
        urls.push((mobile, later(rng)));
    }
    urls.into_iter()
        .map(|(url, at)| MockCapture::html(&url, &timestamp(at), html.clone()))
        .collect()
}

/// A month's pages that are not articles: a live page, a gallery, and index pages
/// (`/news/`, a section front, one with a query), each captured a few times.
pub(super) fn add_non_articles(
    captures: &mut Vec<MockCapture>,
    rng: &mut fastrand::Rng,
    month: NaiveDateTime,
) -> usize {
    let id = id_at(month);
    let section = SECTIONS[rng.usize(..SECTIONS.len())];
    let https = month.year() >= 2018;
    let scheme = if https { "https" } else { "http" };
    let pages = [
        (
            format!("{scheme}://www.bbc.co.uk/news/live/{section}-{}", id + 7),
            "<div id=\"lx-stream\" class=\"lx-stream\"><ol><li>12:01 Latest</li></ol></div>",
        ),
        (
            format!("{scheme}://www.bbc.co.uk/news/in-pictures-{}", id + 11),
            "<div class=\"gallery\"><figure><img src=\"a.jpg\"></figure></div>",
        ),
        (
            format!("{scheme}://www.bbc.co.uk/news/{section}"),
            "<ul><li><a href=\"/news/uk-1\">A story</a></li></ul>",
        ),
        (
            format!("{scheme}://www.bbc.com/news/?page={}", rng.u32(1..400)),
            "<ul><li><a href=\"/news/uk-2\">Another story</a></li></ul>",
        ),
    ];
    let mut n = 0;
    for (url, body) in pages {
        for _ in 0..1 + rng.usize(0..2) {
            let at = month + Duration::hours(rng.i64(0..24 * 27));
            let html = format!(
                "<!DOCTYPE html>\n<html><head><title>BBC News</title></head><body>{body}</body></html>\n"
            );
            captures.push(MockCapture::html(&url, &timestamp(at), html));
            n += 1;
        }
    }
    n
}
