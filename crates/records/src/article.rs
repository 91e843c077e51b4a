//! An extracted article and what later stages add to it.

use chrono::{DateTime, NaiveDate, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fact::Fact;
use crate::timestamp::Timestamp;

/// Which text of an article a name was found in.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TextField {
    /// The article body (`document`).
    Document,
    /// The reference summary.
    Summary,
}

/// A name of a fact's subject or object found in an article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Mention {
    /// Id of the entity named.
    pub entity: String,
    /// The name as it was matched.
    pub name: String,
    /// Where it was found.
    pub field: TextField,
}

/// An evolving fact that an article names, added by the `conflicts` stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FactMatch {
    /// The fact.
    pub fact: Fact,
    /// Every name of its subject or object found, and where: the subject's names
    /// first, then the object's; each side's in the document before the summary;
    /// then by the name.
    pub mentions: Vec<Mention>,
    /// The article was published on or after the day the pair changed: it states
    /// post-cutoff knowledge (a knowledge conflict).
    pub after_change: bool,
}

impl FactMatch {
    /// The relations of `matches`, as an article's `relations` holds them: each
    /// property id once, sorted as text.
    pub fn relations_of(matches: &[FactMatch]) -> Vec<String> {
        let relations: std::collections::BTreeSet<&str> =
            matches.iter().map(|m| m.fact.relation.as_str()).collect();
        relations.into_iter().map(str::to_string).collect()
    }
}

/// Where an article's reference summary falls on the training-overlap scale (set by
/// the `novelty` stage; Choubey et al., 2023).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Novelty {
    /// Percent of the summary's word n-gram positions (4-grams by default; a repeated
    /// n-gram counts each time) that occur in any training summary.
    pub overlap: f64,
    /// The overlap bin of the article's set, e.g. `0-15` (bins of 5 points, merged
    /// until each holds `min_bin` articles).
    pub bin: String,
    /// `T_nov` for the set's lowest bin (most novel), `T_sim` for its highest, else
    /// none.
    #[serde(default)]
    pub tag: Option<String>,
}

impl Novelty {
    /// The tag, or the bin where there is no tag: the value of `{novelty}` in a sink's
    /// path (`future.T_nov.jsonl`, `future.15-30.jsonl`).
    pub fn partition(&self) -> &str {
        self.tag.as_deref().unwrap_or(&self.bin)
    }
}

/// Where an article's reference summary came from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SummarySource {
    /// The story highlights the page lists, one per line.
    Highlights,
    /// The introductory sentence the page sets apart, where the site profile's
    /// layout finds it (the default).
    Intro,
    /// The page's meta description (`summary_fallback = "description"`).
    Description,
    /// The headline (`summary_fallback = "title"`).
    Title,
    /// The body's first sentence, taken out of the document (`summary_fallback = "lead"`).
    Lead,
    /// The body's first paragraph, taken out of the document, standing in for an
    /// intro the page does not set apart (`summary_fallback = "first_paragraph"`).
    FirstParagraph,
}

impl SummarySource {
    /// The name used in records and profiles: `highlights`, `intro`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Highlights => "highlights",
            Self::Intro => "intro",
            Self::Description => "description",
            Self::Title => "title",
            Self::Lead => "lead",
            Self::FirstParagraph => "first_paragraph",
        }
    }
}

/// Where an article's publication date came from. A capture's time is never one:
/// a page is archived hours to years after it was published.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PublishedSource {
    /// The page states it: JSON-LD, a meta tag, a `<time>` element or another
    /// element the site profile's `dates` name.
    Page,
    /// The page states none and its URL carries it, as the site profile's `dates`
    /// URL pattern reads it: the day only.
    Url,
    /// The archived feed or sitemap that listed the article (its `pubDate`).
    Feed,
}

impl PublishedSource {
    /// The name used in records: `page`, `url`, `feed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Page => "page",
            Self::Url => "url",
            Self::Feed => "feed",
        }
    }
}

/// A news article with its reference summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Article {
    /// The article's id, read off its URL by the site profile's `id` patterns: one
    /// id per article, whatever URL it was captured under.
    pub id: String,
    /// Canonical original URL (not the Wayback URL).
    pub url: String,
    /// The site, by its profile's `site` name (`bbc`, `cnn`, ...; a site's sections
    /// are one site: see `section`).
    pub source: String,
    /// Section of the site, from the URL by the site profile's `sections` rules, or
    /// its `section` (`news` by default) where none names one. Empty in records
    /// written before the field existed.
    #[serde(default)]
    pub section: String,
    /// Publication date (UTC) as stated by the page, or by its URL where the page
    /// states none (see `published_source`); never the capture time.
    pub published: NaiveDate,
    /// Publication time (UTC), where the page states one.
    #[serde(default)]
    pub published_at: Option<DateTime<Utc>>,
    /// Where `published` came from (see [`PublishedSource`]); null in records
    /// written before the field existed.
    #[serde(default)]
    pub published_source: Option<PublishedSource>,
    /// Capture time, 14 digits.
    // `None` for an article not read from a capture (`tempora extract` on a saved
    // file): written as the empty text, as before it was typed, so the JSON and the
    // Parquet column stay a plain string.
    #[serde(with = "crate::timestamp::or_empty")]
    #[schemars(with = "String")]
    pub captured: Option<Timestamp>,
    /// Headline.
    pub title: String,
    /// The reference summary, as the site profile's layout takes it from the page;
    /// `summary_source` says what it is.
    pub summary: String,
    /// Where `summary` came from (see [`SummarySource`]); null in records written
    /// before the field existed.
    #[serde(default)]
    pub summary_source: Option<SummarySource>,
    /// Article body without the summary, one paragraph per line.
    pub document: String,
    /// Dateline stripped from the start of the body: the place and the news
    /// organisation the story opens with.
    #[serde(default)]
    pub dateline: Option<String>,
    /// Evolving facts the article names (set by `conflicts`), in the canonical
    /// order: by subject id, relation, start and object id.
    #[serde(default)]
    pub facts: Vec<FactMatch>,
    /// The relations of `facts` (set by `conflicts`): their Wikidata property ids,
    /// each once, sorted as text (`["P286", "P54"]`). A set's sport, business or
    /// politics part is the articles whose `relations` hold its properties. Empty
    /// in records written before the field existed.
    #[serde(default)]
    pub relations: Vec<String>,
    /// Name of the date window the article was assigned to (set by `split`).
    #[serde(default)]
    pub split: Option<String>,
    /// Training-overlap score (set by `novelty`).
    #[serde(default)]
    pub novelty: Option<Novelty>,
    /// The URL the Archive filed the capture under, as its CDX index lists it
    /// (host, scheme and query as captured): with `captured`, the capture's address
    /// (`/web/<captured>/<archived_url>`). Null for articles not read from a capture.
    #[serde(default)]
    pub archived_url: Option<String>,
    /// The capture's `digest` as the CDX index lists it (SHA-1, base32, of the
    /// payload the Archive stored; not always of the bytes its replay serves).
    #[serde(default)]
    pub digest: Option<String>,
    /// SHA-1 (base32) of the page's bytes as they were received: what a rebuild
    /// checks its own fetch against.
    #[serde(default)]
    pub payload_sha1: Option<String>,
}
