//! The records that flow between stages. Their serde field names are the public
//! JSONL/Parquet schema (docs/reference.md, "Output schema"): renaming a field is a breaking change.

use chrono::{DateTime, NaiveDate, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::manifest_entry::ManifestEntry;
pub use crate::record_kind::RecordKind;

// Defined beside its writer (rejected.rs); `records::Rejected` still names it.
pub use crate::rejected::Rejected;

/// A Wikidata entity as it appears in a fact: its id and its names in the configured languages.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Default)]
pub struct EntityRef {
    /// Wikidata id, e.g. `Q6279`.
    pub id: String,
    /// Label in the first configured language that has one.
    pub label: Option<String>,
    /// Aliases in the configured languages (labels of other languages included).
    #[serde(default)]
    pub aliases: Vec<String>,
}

impl EntityRef {
    /// The label followed by the aliases: every name the entity is known by.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.label
            .iter()
            .chain(self.aliases.iter())
            .map(String::as_str)
    }
}

/// One statement of an evolving (subject, relation) pair.
///
/// For `P39` (position held) the subject is a person and the object a position; for
/// `P1308` (officeholder) the subject is a position and the object its holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Fact {
    /// The entity the statement is about.
    pub subject: EntityRef,
    /// Wikidata property id: `P39` or `P1308`.
    pub relation: String,
    /// The statement's value.
    pub object: EntityRef,
    /// Start (P580), ISO date cut to its precision: `2021-01-20`, `2019-06`, `2019`.
    pub start: Option<String>,
    /// End (P582), same format as `start`.
    pub end: Option<String>,
    /// Id of the entity this one replaced (P1365), if stated.
    #[serde(default)]
    pub replaces: Option<String>,
    /// Id of the entity that replaced this one (P1366), if stated.
    #[serde(default)]
    pub replaced_by: Option<String>,
    /// Statement rank: `preferred` or `normal` (deprecated statements are dropped).
    pub rank: String,
    /// Whether the statement held on the cutoff day.
    pub valid_at_cutoff: bool,
    /// First date after the cutoff at which the pair's object changed.
    pub pair_changed: Option<String>,
}

/// One capture listed by the Wayback CDX API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Capture {
    /// Original URL as archived.
    pub url: String,
    /// Capture time, 14 digits `YYYYMMDDhhmmss` (UTC).
    pub timestamp: String,
    /// HTTP status of the capture (null for revisit records, listed as `-`).
    pub status: Option<u16>,
    /// MIME type as archived.
    pub mime: String,
    /// SHA-1 digest of the payload (base32), as listed by the CDX API.
    pub digest: String,
    /// Compressed record length in the archive, when listed.
    pub length: Option<u64>,
    /// Name of the stage that listed it.
    pub source: String,
}

/// A fetched capture: the raw archived bytes and where they really came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Page {
    /// The capture that was requested.
    #[serde(flatten)]
    pub capture: Capture,
    /// The payload as archived (not decoded), base64 (in JSONL and Parquet alike).
    #[serde(with = "base64_bytes")]
    #[schemars(with = "String")]
    pub body: Vec<u8>,
    /// The archived `Content-Type` header, charset included, when known.
    #[serde(default)]
    pub content_type: Option<String>,
    /// The URL the capture was finally served for, after capture-to-capture redirects.
    pub final_url: String,
    /// `Memento-Datetime` of the served capture (RFC 1123), when known.
    pub memento_datetime: Option<String>,
}

mod base64_bytes {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}

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
    /// Every name of its subject or object found, and where.
    pub mentions: Vec<Mention>,
    /// The article was published on or after the day the pair changed: it states
    /// post-cutoff knowledge (a knowledge conflict).
    pub after_change: bool,
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
    /// The story highlights, one per line (CNN, as CNN/DailyMail takes them).
    Highlights,
    /// The introductory sentence: BBC's bold intro, as XSum takes it (or a layout's
    /// own intro element).
    Intro,
    /// The page's meta description (`summary_fallback = "description"`).
    Description,
    /// The headline (`summary_fallback = "title"`, as TempoSum's CNN sets pair them).
    Title,
    /// The body's first sentence, taken out of the document (`summary_fallback = "lead"`).
    Lead,
    /// The body's first paragraph, taken out of the document, standing in for a bold
    /// intro the page does not have (`summary_fallback = "first_paragraph"`: BBC
    /// pages of 2024 on often set their opening paragraph in plain type).
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
    /// The page states it: JSON-LD, a meta tag, a `<time>` element, BBC's `data-seconds`.
    Page,
    /// The page states none and its URL carries it (CNN's `/2016/01/17/...` and
    /// `/2010/WORLD/africa/03/20/...`): the day only.
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
    /// BBC: the numeric URL suffix (as XSum) or the articles id; CNN: the URL path.
    pub id: String,
    /// Canonical original URL (not the Wayback URL).
    pub url: String,
    /// Site: `bbc`, `cnn`, ... (BBC Sport, Newsround, ... are `bbc`: see `section`).
    pub source: String,
    /// Section of the site, from the URL by the site profile's `sections` rules: BBC
    /// `news`, `sport`, `newsround`, `newsbeat`, `cymrufyw` (BBC Cymru Fyw, Welsh);
    /// CNN the URL's own section (`politics`, `us`, `world`, `sport`, ...), `news`
    /// where the URL names none. Empty in records written before the field existed.
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
    pub captured: String,
    /// Headline.
    pub title: String,
    /// Reference summary: BBC's bold intro sentence, CNN's highlights one per line.
    pub summary: String,
    /// Where `summary` came from (see [`SummarySource`]); null in records written
    /// before the field existed.
    #[serde(default)]
    pub summary_source: Option<SummarySource>,
    /// Article body without the summary, one paragraph per line.
    pub document: String,
    /// Dateline stripped from the body, e.g. `WASHINGTON (CNN)`.
    #[serde(default)]
    pub dateline: Option<String>,
    /// Evolving facts the article names (set by `conflicts`).
    #[serde(default)]
    pub facts: Vec<FactMatch>,
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

/// Which kind of fact error an edited summary carries (see [`MinimalPair`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FactError {
    /// The value the pair held at the knowledge cutoff (or the latest before it):
    /// what a model with stale knowledge writes (TempoSum's table 2).
    Outdated,
    /// A value the pair never held: the control, an error no knowledge explains.
    NonVerifiable,
}

impl FactError {
    /// The snake_case name used in the records.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Outdated => "outdated",
            Self::NonVerifiable => "non_verifiable",
        }
    }
}

/// The one span of a reference summary that an edited summary replaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PairSpan {
    /// First character of the span in `reference_summary`, counted in Unicode
    /// characters (code points), as Python indexes strings.
    pub start: usize,
    /// One past the last character of the span, in characters.
    pub end: usize,
    /// The reference's text of the span (`reference_summary[start:end]`).
    pub original: String,
    /// The text the edited summary has in its place.
    pub replacement: String,
}

/// The evolving fact an edit contradicts, by Wikidata ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditedFact {
    /// Subject of the pair: the position (`P1308`) or the person (`P39`).
    pub subject: String,
    /// `P39` or `P1308`.
    pub relation: String,
    /// The object the pair held at the article's date: what the reference states.
    pub stated: String,
    /// The object the edited summary states instead.
    pub substituted: String,
}

/// A minimal pair for judging faithfulness metrics (BUMP, Ma et al. 2023): a
/// reference summary and a copy with exactly one span replaced by a fact that is
/// wrong at the article's date. The first six fields are those of BUMP's released
/// data (`data/task1_dataset.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MinimalPair {
    /// `<article id>#<subject>.<relation>.<fact_error>`: unique per article, fact and
    /// kind of error.
    pub id: String,
    /// The article's `id`.
    pub article_id: String,
    /// The article's body (`document`).
    pub article: String,
    /// The article's reference summary.
    pub reference_summary: String,
    /// The reference with `span` replaced; the rest byte for byte the same.
    pub edited_summary: String,
    /// BUMP's label: `Intrinsic Entity Error` when the replacement occurs in the
    /// article, `Extrinsic Entity Error` otherwise.
    pub error_type: String,
    /// `outdated` or `non_verifiable`.
    pub fact_error: FactError,
    /// What was replaced, and by what.
    pub span: PairSpan,
    /// The article's publication date.
    pub published: NaiveDate,
    /// The article's site (`bbc`, `cnn`, ...).
    pub source: String,
    /// The article's date window, when `split` ran before.
    #[serde(default)]
    pub split: Option<String>,
    /// The fact the edit contradicts.
    pub fact: EditedFact,
}

/// Any record on a channel. Large records are boxed so a batch stays compact.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A Wikidata fact.
    Fact(Box<Fact>),
    /// A listed capture.
    Capture(Box<Capture>),
    /// A fetched page.
    Page(Box<Page>),
    /// An extracted article.
    Article(Box<Article>),
    /// A reference summary and an edited copy with one fact error.
    Pair(Box<MinimalPair>),
    /// A published article as its manifest lists it.
    Manifest(Box<ManifestEntry>),
}

impl Record {
    /// The record's kind.
    pub fn kind(&self) -> RecordKind {
        match self {
            Self::Fact(_) => RecordKind::Fact,
            Self::Capture(_) => RecordKind::Capture,
            Self::Page(_) => RecordKind::Page,
            Self::Article(_) => RecordKind::Article,
            Self::Pair(_) => RecordKind::Pair,
            Self::Manifest(_) => RecordKind::Manifest,
        }
    }

    /// The record as JSON, with the public field names (no type tag).
    pub fn to_json(&self) -> serde_json::Value {
        // Serializing these plain structs cannot fail: no maps with non-string keys.
        let value = match self {
            Self::Fact(r) => serde_json::to_value(r),
            Self::Capture(r) => serde_json::to_value(r),
            Self::Page(r) => serde_json::to_value(r),
            Self::Article(r) => serde_json::to_value(r),
            Self::Pair(r) => serde_json::to_value(r),
            Self::Manifest(r) => serde_json::to_value(r),
        };
        value.unwrap_or(serde_json::Value::Null)
    }

    /// Writes the record as one line of JSON (no trailing newline).
    ///
    /// # Errors
    /// When the writer fails.
    pub fn write_json<W: std::io::Write>(&self, w: W) -> serde_json::Result<()> {
        match self {
            Self::Fact(r) => serde_json::to_writer(w, r),
            Self::Capture(r) => serde_json::to_writer(w, r),
            Self::Page(r) => serde_json::to_writer(w, r),
            Self::Article(r) => serde_json::to_writer(w, r),
            Self::Pair(r) => serde_json::to_writer(w, r),
            Self::Manifest(r) => serde_json::to_writer(w, r),
        }
    }

    /// Reads a record of `kind` from one JSON document.
    ///
    /// # Errors
    /// When the JSON does not match the kind's schema; the message names the field.
    pub fn from_json(kind: RecordKind, text: &str) -> serde_json::Result<Self> {
        Ok(match kind {
            RecordKind::Fact => Self::Fact(serde_json::from_str(text)?),
            RecordKind::Capture => Self::Capture(serde_json::from_str(text)?),
            RecordKind::Page => Self::Page(serde_json::from_str(text)?),
            RecordKind::Article => Self::Article(serde_json::from_str(text)?),
            RecordKind::Pair => Self::Pair(serde_json::from_str(text)?),
            RecordKind::Manifest => Self::Manifest(serde_json::from_str(text)?),
        })
    }

    /// A key on stable fields that orders records (sinks sort by it, then by the
    /// whole JSON line where keys tie, so the order is total and no run's arrival
    /// order shows in an output).
    pub fn sort_key(&self) -> String {
        match self {
            Self::Fact(f) => format!(
                "{}\t{}\t{}\t{}",
                f.subject.id,
                f.relation,
                f.start.as_deref().unwrap_or(""),
                f.object.id
            ),
            Self::Capture(c) => format!("{}\t{}", c.url, c.timestamp),
            Self::Page(p) => format!("{}\t{}", p.capture.url, p.capture.timestamp),
            Self::Article(a) => format!("{}\t{}\t{}", a.published, a.source, a.id),
            // The id ends in subject, relation and kind of error: one order within an article.
            Self::Pair(p) => format!("{}\t{}\t{}", p.published, p.source, p.id),
            // As the sets order their articles.
            Self::Manifest(m) => format!("{}\t{}\t{}", m.published, m.source, m.id),
        }
    }

    /// What makes two records the same record, whatever else differs (a later capture,
    /// a better extraction): a sink in `append` mode keeps one record per identity.
    /// Articles and pairs: site and id (`bbc`, `30000001`); facts: subject, relation,
    /// start and object; captures and pages: URL and capture time. Records of
    /// different kinds are never the same.
    pub fn identity(&self) -> String {
        match self {
            Self::Article(a) => format!("article\t{}\t{}", a.source, a.id),
            Self::Pair(p) => format!("pair\t{}\t{}", p.source, p.id),
            Self::Manifest(m) => format!(
                "manifest\t{}\t{}\t{}",
                m.source,
                m.id,
                m.split.as_deref().unwrap_or("")
            ),
            // The sort keys of the other kinds are made of what identifies them.
            other => format!("{}\t{}", other.kind(), other.sort_key()),
        }
    }

    /// The value of a path-template field (`{split}`, `{source}`, `{kind}`, `{relation}`,
    /// `{novelty}`), if the record has it.
    pub fn template_field(&self, field: &str) -> Option<String> {
        match (field, self) {
            ("kind", r) => Some(r.kind().to_string()),
            ("split", Self::Article(a)) => a.split.clone(),
            ("source", Self::Article(a)) => Some(a.source.clone()),
            ("split", Self::Pair(p)) => p.split.clone(),
            ("source", Self::Pair(p)) => Some(p.source.clone()),
            ("split", Self::Manifest(m)) => m.split.clone(),
            ("source", Self::Manifest(m)) => Some(m.source.clone()),
            ("source", Self::Capture(c)) => Some(c.source.clone()),
            ("source", Self::Page(p)) => Some(p.capture.source.clone()),
            ("relation", Self::Fact(f)) => Some(f.relation.clone()),
            ("novelty", Self::Article(a)) => a.novelty.as_ref().map(|n| n.partition().to_string()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_round_trips_through_json_with_base64_body() {
        let page = Page {
            capture: Capture {
                url: "http://www.bbc.co.uk/news/uk-1".into(),
                timestamp: "20150102030405".into(),
                status: Some(200),
                mime: "text/html".into(),
                digest: "ABC".into(),
                length: Some(10),
                source: "pages".into(),
            },
            body: vec![0xe9, b'<', 0],
            content_type: Some("text/html; charset=iso-8859-1".into()),
            final_url: "http://www.bbc.co.uk/news/uk-1".into(),
            memento_datetime: None,
        };
        let json = serde_json::to_string(&page).unwrap();
        assert!(json.contains("\"timestamp\":\"20150102030405\""), "{json}");
        let back = Record::from_json(RecordKind::Page, &json).unwrap();
        assert_eq!(back, Record::Page(Box::new(page)));
    }

    #[test]
    fn record_kind_parses_its_own_names_only() {
        for kind in RecordKind::ALL {
            assert_eq!(kind.as_str().parse::<RecordKind>(), Ok(kind));
        }
        assert!("articles".parse::<RecordKind>().is_err());
    }
}
