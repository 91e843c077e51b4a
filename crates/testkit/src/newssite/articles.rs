//! The BBC model's articles: what one is, and how one is drawn from the seeded
//! sequence (id, URL, promo line; the text is a [`Story`]).

use chrono::{Datelike, Duration, NaiveDateTime};

use super::ids::id_at;
use super::story::{story, Desk, Story, Topic};

/// One article of the model: the truth a crawl is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelArticle {
    /// Numeric id (the URL suffix, XSum's id).
    pub id: u64,
    /// Canonical URL.
    pub url: String,
    /// Publication time (UTC).
    pub published: NaiveDateTime,
    /// Headline.
    pub title: String,
    /// The bold introductory sentence (the reference summary).
    pub summary: String,
    /// The promo line: the feed's description and the page's `og:description`.
    /// On the real site it is the bold intro on 12% of articles (39 of 321
    /// archived pages of XSum's test set); otherwise a teaser that may name
    /// nobody the intro names.
    pub promo: String,
    /// Body paragraphs after the summary.
    pub paragraphs: Vec<String>,
    /// What it says about the facts.
    pub topic: Topic,
    /// The desk that wrote it: sport stories live under `/sport/football/`,
    /// business ones under `/news/business-`.
    pub desk: Desk,
    /// Listed by a captured feed.
    pub in_feed: bool,
    /// A video page (`/news/av/`) rather than a story.
    pub video: bool,
}

pub(super) const SECTIONS: [&str; 7] = [
    "uk",
    "uk-politics",
    "world-europe",
    "business",
    "health",
    "technology",
    "uk-england-london",
];

/// Draws an article published at `published`; with `roles`, sport and business
/// stories among them ([`story`]).
pub(super) fn article(
    rng: &mut fastrand::Rng,
    published: NaiveDateTime,
    roles: bool,
) -> ModelArticle {
    // The id was given when the story was drafted, up to two days before.
    let id = id_at(published - Duration::minutes(rng.i64(0..2 * 24 * 60)));
    let section = SECTIONS[rng.usize(..SECTIONS.len())];
    let video = rng.u32(0..100) < 8;
    let scheme = if published.year() >= 2018 {
        "https"
    } else {
        "http"
    };
    let Story {
        desk,
        topic,
        title,
        summary,
        paragraphs,
        subject,
        place,
    } = story(rng, published, roles);
    let section = match desk {
        Desk::Business => "business",
        _ => section,
    };
    let path = match (video, desk) {
        (true, _) => format!("/news/av/{section}-{id}"),
        (false, Desk::Sport) => format!("/sport/football/{id}"),
        (false, _) => format!("/news/{section}-{id}"),
    };
    let url = format!("{scheme}://www.bbc.co.uk{path}");
    // Drawn from the id, not the seeded sequence, so the rest of the model is as it was.
    let promo = if (id.wrapping_mul(2_654_435_761) >> 7) % 100 < 12 {
        summary.clone()
    } else {
        format!("What the plans for {subject} mean for people living in {place}.")
    };
    ModelArticle {
        id,
        url,
        published,
        title,
        summary,
        promo,
        paragraphs,
        topic,
        desk,
        in_feed: rng.u32(0..100) < 85,
        video,
    }
}
