//! The kinds of record a port carries, by the names pipeline files use.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The type of records on a port.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// [`Fact`](crate::Fact)
    Fact,
    /// [`Capture`](crate::Capture)
    Capture,
    /// [`Page`](crate::Page)
    Page,
    /// [`Article`](crate::Article)
    Article,
    /// [`MinimalPair`](crate::MinimalPair)
    Pair,
    /// [`ManifestEntry`](crate::ManifestEntry)
    Manifest,
    /// [`ScoredSummary`](crate::ScoredSummary)
    Score,
}

impl RecordKind {
    /// Every kind, in pipeline order.
    pub const ALL: [RecordKind; 7] = [
        Self::Fact,
        Self::Capture,
        Self::Page,
        Self::Article,
        Self::Pair,
        Self::Manifest,
        Self::Score,
    ];

    /// What a set is made of: run.json's `cost` counts the records of this kind
    /// the sinks received as kept (`kept_articles`) and divides requests by them.
    pub const SET_UNIT: RecordKind = Self::Article;

    /// The lowercase name used in pipeline files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fact => "fact",
            Self::Capture => "capture",
            Self::Page => "page",
            Self::Article => "article",
            Self::Pair => "pair",
            Self::Manifest => "manifest",
            Self::Score => "score",
        }
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RecordKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                format!("unknown record kind `{s}` (known: fact, capture, page, article, pair, manifest, score)")
            })
    }
}
