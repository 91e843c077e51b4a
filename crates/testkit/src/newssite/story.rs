//! What an article says, drawn the same way for every site's model: a place, a
//! subject, whether and how it names an evolving fact, and its text.

use chrono::{NaiveDate, NaiveDateTime};

use super::facts::{PAIRS, ROLES};
use super::roles::role_story;

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

/// Which desk wrote a story: where a site files it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Desk {
    /// News (every story of the model without sport and business).
    #[default]
    News,
    /// Sport: a club's manager or a player's club (BBC `/sport/football/`, CNN `sport`).
    Sport,
    /// Business: a company's chief executive (BBC `/news/business-`, CNN `business`).
    Business,
}

/// One drawn story, before a site gives it a URL and a page.
pub(super) struct Story {
    /// The desk that wrote it.
    pub(super) desk: Desk,
    /// The town it is about (no fact names it).
    pub(super) place: &'static str,
    /// What was decided there.
    pub(super) subject: &'static str,
    /// What it says about the facts.
    pub(super) topic: Topic,
    /// Headline: names the holder when `topic` is `Fact` or `HolderOnly`.
    pub(super) title: String,
    /// The opening sentence, a summary as the site writes it: names the holder
    /// when `topic` is `Fact` or `HolderOnly`, nobody a fact names otherwise.
    pub(super) summary: String,
    /// Body paragraphs after the summary.
    pub(super) paragraphs: Vec<String>,
}

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

/// Draws a story published at `published`; the holder it names is the one in
/// office that day. With `roles`, half the stories that name a fact are sport
/// or business stories of [`ROLES`] instead (drawn after everything a story
/// without them draws, so without them the model is as it was).
pub(super) fn story(rng: &mut fastrand::Rng, published: NaiveDateTime, roles: bool) -> Story {
    let place_at = rng.usize(..PLACES.len());
    let subject_at = rng.usize(..SUBJECTS.len());
    let (place, subject) = (PLACES[place_at], SUBJECTS[subject_at]);
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
    if roles && topic != Topic::Plain && rng.bool() {
        let role = &ROLES[rng.usize(..ROLES.len())];
        return role_story(rng, published, role, (place, subject), topic);
    }
    let (title, summary, mut paragraphs) = match topic {
        Topic::Plain => (
            format!("{place} council backs {subject}"),
            format!("Councillors in {place} have voted for {subject} after a long public debate."),
            Vec::new(),
        ),
        // Real summaries and headlines mostly name the holder bare; some put the
        // office's title before the name ("US President Donald Trump"). A third
        // do here, chosen by what was drawn (no draw of their own, so the rest of
        // the model stays as it was).
        Topic::Fact if (place_at + subject_at).is_multiple_of(3) => (
            format!("{} {holder} backs {subject}", pair.position.1),
            format!(
                "{} {holder} has given support to {subject} in {place}.",
                pair.position.1
            ),
            vec![format!(
                "{holder}, the {}, said the plan for {place} would be reviewed within a year.",
                pair.position.1
            )],
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
    Story {
        desk: Desk::News,
        place,
        subject,
        topic,
        title,
        summary,
        paragraphs,
    }
}

fn first_day(iso: &str) -> NaiveDate {
    NaiveDate::parse_from_str(iso, "%Y-%m-%d").unwrap_or_default()
}
