//! The model's articles: what one is, and how one is drawn from the seeded
//! sequence (id, URL, topic, text, promo line).

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime};

use super::facts::PAIRS;
use super::ids::id_at;

/// What an article says about the evolving facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// No name of any fact's subject or object.
    Plain,
    /// The document names a fact's subject and object; the summary names the holder.
    Fact,
    /// The document names a fact's subject and object; the summary names neither.
    FactQuietSummary,
    /// Document and summary name the holder only (criterion 1 fails).
    HolderOnly,
}

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

const PLACES: [&str; 8] = [
    "Ashby",
    "Brenton",
    "Colwick",
    "Dorling",
    "Eastleigh",
    "Farnby",
    "Glenholt",
    "Hexley",
];

const SUBJECTS: [&str; 8] = [
    "a new bus route",
    "the library opening hours",
    "a flood defence scheme",
    "school meal prices",
    "a bridge repair",
    "the summer festival",
    "hospital parking charges",
    "a recycling trial",
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
    let place = PLACES[rng.usize(..PLACES.len())];
    let subject = SUBJECTS[rng.usize(..SUBJECTS.len())];
    let topic = match rng.u32(0..100) {
        0..=11 => Topic::Fact,
        12..=17 => Topic::FactQuietSummary,
        18..=27 => Topic::HolderOnly,
        _ => Topic::Plain,
    };
    let pair = &PAIRS[rng.usize(..PAIRS.len())];
    let holder = if published.date() >= first_day(pair.changed) {
        pair.after.1
    } else {
        pair.before.1
    };
    let (title, summary, mut paragraphs) = match topic {
        Topic::Plain => (
            format!("{place} council backs {subject}"),
            format!("Councillors in {place} have voted for {subject} after a long public debate."),
            Vec::new(),
        ),
        Topic::Fact => (
            format!("{holder} backs {subject}"),
            format!("{holder} has given support to {subject} in {place}."),
            vec![format!(
                "{holder}, the {}, said the plan for {place} would be reviewed within a year.",
                pair.position.1
            )],
        ),
        Topic::FactQuietSummary => (
            format!("{place} agrees {subject}"),
            format!("Plans for {subject} in {place} have been agreed at a meeting on Tuesday."),
            vec![format!(
                "{holder}, the {}, told the meeting the work was overdue.",
                pair.position.1
            )],
        ),
        Topic::HolderOnly => (
            format!("{holder} visits {place}"),
            format!("{holder} has visited {place} to hear views on {subject}."),
            vec![format!("{holder} met residents and local business owners.")],
        ),
    };
    for n in 0..3 + rng.usize(0..3) {
        paragraphs.push(format!(
            "Residents of {place} were asked for their views on {subject}, and {} replies were received in the first week of consultation.",
            40 + n * 17 + rng.usize(0..9)
        ));
    }
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

fn first_day(iso: &str) -> NaiveDate {
    NaiveDate::parse_from_str(iso, "%Y-%m-%d").unwrap_or_default()
}
