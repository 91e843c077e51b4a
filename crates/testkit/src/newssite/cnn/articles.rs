//! The CNN model's articles: what one is, and how one is drawn from the seeded
//! sequence (URL in the shape of its year, layout, highlights, dateline; the
//! text is a [`Story`]).

use chrono::{Datelike, NaiveDate, NaiveDateTime};

use crate::newssite::story::{story, Desk, Story, Topic};

/// The page layouts CNN had, by the day a story was published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// To 2013: the `cnn_strycntntlft` story column, highlights in a
    /// `cnnStryHghLght` list beside the text.
    StoryColumn,
    /// 2014 to September 2022: `zn-body__paragraph` zones, highlights in
    /// `el__storyhighlights__list` (none on most pages after 2016).
    ZoneBody,
    /// From October 2022: `article__content` with `paragraph` components, an
    /// empty `article__highlights` and the dateline in its own `source__cite`.
    ArticleContent,
}

/// One CNN article of the model: the truth a crawl is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CnnArticle {
    /// CNN's id, as the `extract` stage and CNN/DailyMail's lists name the story:
    /// the URL path without `/index.html` (`/2015/04/01/europe/slug`, before 2012
    /// `/2011/WORLD/europe/04/01/dotted.slug`).
    pub path: String,
    /// Canonical URL (`www.cnn.com`, `index.html`; https from 2017).
    pub url: String,
    /// Publication time (UTC).
    pub published: NaiveDateTime,
    /// The URL's section (`politics`, `europe`, ...).
    pub section: &'static str,
    /// Headline.
    pub title: String,
    /// Story highlights, one a line: the reference summary, as CNN/DailyMail
    /// takes it. None on half of 2017's pages and on every later one (the
    /// title stands in).
    pub highlights: Vec<String>,
    /// Where the dateline says the story was filed; empty for a bare `(CNN)`.
    pub dateline: &'static str,
    /// The lead paragraph after the dateline, and the page's meta description.
    pub lead: String,
    /// Body paragraphs after the lead.
    pub paragraphs: Vec<String>,
    /// The byline's name.
    pub author: &'static str,
    /// An editor's note above the text (not article text).
    pub editors_note: bool,
    /// What it says about the facts.
    pub topic: Topic,
    /// The desk that wrote it (sport stories in section `sport`, business ones
    /// in `business`).
    pub desk: Desk,
    /// The page's layout.
    pub layout: Layout,
}

impl CnnArticle {
    /// The reference summary `extract` gives it with `summary_fallback = "title"`
    /// (as `pipelines/temposum-cnn.toml`): the highlights one a line, else the title.
    pub fn summary(&self) -> String {
        if self.highlights.is_empty() {
            self.title.clone()
        } else {
            self.highlights.join("\n")
        }
    }

    /// The story's URL on `host` (`edition.cnn.com`): same scheme and path,
    /// `index.html`.
    pub fn url_on(&self, host: &str) -> String {
        format!("{}://{host}{}/index.html", self.scheme(), self.path)
    }

    /// `https` from 2017, when CNN served it; `http` before.
    pub(super) fn scheme(&self) -> &'static str {
        if self.published.year() >= 2017 {
            "https"
        } else {
            "http"
        }
    }
}

/// CNN's sections: as story URLs name them from 2012, and before (upper case,
/// with a region under `WORLD`).
pub(super) const SECTIONS: [(&str, &str); 8] = [
    ("us", "US"),
    ("politics", "POLITICS"),
    ("world", "WORLD/americas"),
    ("europe", "WORLD/europe"),
    ("business", "BUSINESS"),
    ("health", "HEALTH"),
    ("tech", "TECH"),
    ("travel", "TRAVEL"),
];

const AUTHORS: [&str; 6] = [
    "Dana Ellery",
    "Marcus Holt",
    "Ines Varga",
    "Tom Brask",
    "Lucy Okafor",
    "Peter Lindqvist",
];

/// Draws a story published at `published`; with `roles`, sport and business
/// stories among them.
pub(super) fn article(
    rng: &mut fastrand::Rng,
    published: NaiveDateTime,
    roles: bool,
) -> CnnArticle {
    let (section, old_section) = SECTIONS[rng.usize(..SECTIONS.len())];
    let Story {
        desk,
        place,
        subject,
        topic,
        title,
        summary,
        paragraphs,
    } = story(rng, published, roles);
    let (section, old_section) = match desk {
        Desk::Sport => ("sport", "SPORT"),
        Desk::Business => ("business", "BUSINESS"),
        Desk::News => (section, old_section),
    };
    let dateline = if rng.bool() { place } else { "" };
    let author = AUTHORS[rng.usize(..AUTHORS.len())];
    let editors_note = rng.u32(0..100) < 10;
    let year = published.year();
    let with_highlights = year < 2017 || (year == 2017 && rng.bool());
    let highlights = if with_highlights {
        let mut lines = vec![
            summary.trim_end_matches('.').to_string(),
            format!("Residents of {place} were asked for their views on {subject}"),
            format!("NEW: A second meeting in {place} is planned for next month"),
        ];
        lines.truncate(2 + rng.usize(0..2));
        lines
    } else {
        Vec::new()
    };
    let path = story_path(published, section, old_section, &title);
    let mut a = CnnArticle {
        url: String::new(),
        path,
        published,
        section,
        title,
        highlights,
        dateline,
        lead: summary,
        paragraphs,
        author,
        editors_note,
        topic,
        desk,
        layout: layout_of(published),
    };
    a.url = a.url_on("www.cnn.com");
    a
}

/// The story's path: `/2015/04/01/europe/words-of-the-title` from 2012, and
/// before `/2011/WORLD/europe/04/01/tallis.bus.route`.
fn story_path(published: NaiveDateTime, section: &str, old_section: &str, title: &str) -> String {
    let words: Vec<String> = title
        .split_whitespace()
        .map(|w| {
            w.chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_ascii_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let (y, m, d) = (published.year(), published.month(), published.day());
    if y < 2012 {
        // The first and the last two words that say something (`tallis.bus.route`).
        let significant: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| w.len() > 3)
            .collect();
        let mut dotted = significant[..significant.len().min(1)].to_vec();
        for w in &significant[significant.len().saturating_sub(2)..] {
            if !dotted.contains(w) {
                dotted.push(w);
            }
        }
        format!("/{y}/{old_section}/{m:02}/{d:02}/{}", dotted.join("."))
    } else {
        format!("/{y}/{m:02}/{d:02}/{section}/{}", words.join("-"))
    }
}

fn layout_of(published: NaiveDateTime) -> Layout {
    let redesign = NaiveDate::from_ymd_opt(2022, 10, 1).unwrap_or_default();
    if published.year() < 2014 {
        Layout::StoryColumn
    } else if published.date() < redesign {
        Layout::ZoneBody
    } else {
        Layout::ArticleContent
    }
}
