//! The records of Tempora: the vocabulary its stages share. A Wikidata fact, a
//! capture the Archive lists, a fetched page, an extracted article, a minimal pair
//! and a manifest row, each a plain struct, and [`Record`], any of them on a
//! channel (with the article it belongs to, [`Record::article_id`]). [`CanonicalUrl`] is the one URL normalizer the stages agree on;
//! [`order`] the one order of the collections records hold.
//!
//! The engine moves records without looking inside them: it knows a record's
//! [`RecordKind`], its JSON and its sort key, and nothing of what an article is.
//! The serde field names are the public JSONL/Parquet schema (docs/reference.md,
//! "Output schema"): renaming a field is a breaking change.

mod article;
pub mod canonical_url;
mod capture;
pub mod counters;
mod fact;
mod kind;
mod manifest_entry;
pub mod order;
mod pair;
mod score;
mod timestamp;

pub use article::{
    Article, FactMatch, Mention, Novelty, PublishedSource, SummarySource, TextField,
};
pub use canonical_url::CanonicalUrl;
pub use capture::{Capture, Page};
pub use fact::{EntityRef, Fact};
pub use kind::RecordKind;
pub use manifest_entry::ManifestEntry;
pub use pair::{EditedFact, FactError, MinimalPair, PairSpan};
pub use score::{Claim, ClaimEntity, Evidence, ScoredSummary, Tense, Verdict};
pub use timestamp::{NotATimestamp, Timestamp};

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
    /// A system's summary judged claim by claim (`tempora score`).
    Score(Box<ScoredSummary>),
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
            Self::Score(_) => RecordKind::Score,
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
            Self::Score(r) => serde_json::to_value(r),
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
            Self::Score(r) => serde_json::to_writer(w, r),
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
            RecordKind::Score => Self::Score(serde_json::from_str(text)?),
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
            // One system's summaries together, in the sets' order within it.
            Self::Score(s) => format!(
                "{}\t{}\t{}\t{}",
                s.system,
                s.set.as_deref().unwrap_or(""),
                s.published,
                s.id
            ),
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
            Self::Score(s) => format!("score\t{}\t{}", s.system, s.id),
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

    /// The id of the article the record belongs to: an article's own, a manifest
    /// row's, a minimal pair's `article_id`, a scored summary's; facts, captures
    /// and pages belong to none. A release holds a record back by it.
    pub fn article_id(&self) -> Option<&str> {
        match self {
            Self::Article(a) => Some(&a.id),
            Self::Manifest(m) => Some(&m.id),
            Self::Pair(p) => Some(&p.article_id),
            Self::Score(s) => Some(&s.id),
            Self::Fact(_) | Self::Capture(_) | Self::Page(_) => None,
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
            ("split", Self::Score(s)) => s.set.clone(),
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
                timestamp: "20150102030405".parse().unwrap(),
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
