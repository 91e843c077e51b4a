//! The BBC model's articles: what one is, and how one is drawn from the seeded
//! sequence (id, URL, promo line; the text is a [`Story`]).

use chrono::{Datelike, Duration, NaiveDateTime};

use super::ids::id_at;
use super::story::{story, Story, Topic};

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

pub(super) fn article(rng: &mut fastrand::Rng, published: NaiveDateTime) -> ModelArticle {
    // The id was given when the story was drafted, up to two days before.
    let id = id_at(published - Duration::minutes(rng.i64(0..2 * 24 * 60)));
    let section = SECTIONS[rng.usize(..SECTIONS.len())];
    let video = rng.u32(0..100) < 8;
    let scheme = if published.year() >= 2018 {
        "https"
    } else {
        "http"
    };
    let path = if video {
        format!("/news/av/{section}-{id}")
    } else {
        format!("/news/{section}-{id}")
    };
    let url = format!("{scheme}://www.bbc.co.uk{path}");
    let Story {
        topic,
        title,
        summary,
        paragraphs,
        subject,
        place,
    } = story(rng, published);
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
        in_feed: rng.u32(0..100) < 85,
        video,
    }
}
