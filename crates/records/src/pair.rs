//! Minimal pairs: a reference summary and a copy with one fact made wrong.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
