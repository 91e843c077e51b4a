//! What stands in for a missing reference summary: one fallback per site
//! profile, or the pipeline's choice for every site or per site.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What stands in for the summary on layouts that allow it (CNN pages without
/// highlights, BBC pages of 2020 on without a bold intro).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SummaryFallback {
    /// Nothing: the page is rejected with "no reference summary".
    #[default]
    None,
    /// The page's meta / Open Graph description.
    Description,
    /// The first sentence of the body, which is then removed from the document.
    Lead,
    /// The headline (the document stays whole): TempoSum's released CNN sets pair
    /// each document with its title.
    Title,
    /// The body's first paragraph, which is then removed from the document: where
    /// a BBC page sets its opening paragraph in plain type instead of bold.
    FirstParagraph,
}

/// The `summary_fallback` a pipeline chooses: one for every site, or one per site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum FallbackChoice {
    /// The same fallback on every site.
    Every(SummaryFallback),
    /// A fallback per site name (`{ bbc = "first_paragraph", cnn = "title" }`); a
    /// site not named keeps its profile's `summary_fallback`.
    PerSite(BTreeMap<String, SummaryFallback>),
}

/// By hand rather than `untagged`, so that a wrong value names the values allowed.
impl<'de> Deserialize<'de> for FallbackChoice {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{self, IntoDeserializer as _};

        struct Choice;
        impl<'de> de::Visitor<'de> for Choice {
            type Value = FallbackChoice;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a fallback (`none`, `description`, `lead`, `first_paragraph`, `title`) or a table of them by site")
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
                SummaryFallback::deserialize(value.into_deserializer()).map(FallbackChoice::Every)
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                BTreeMap::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(FallbackChoice::PerSite)
            }
        }
        deserializer.deserialize_any(Choice)
    }
}

impl From<SummaryFallback> for FallbackChoice {
    fn from(fallback: SummaryFallback) -> Self {
        Self::Every(fallback)
    }
}

impl FallbackChoice {
    /// The fallback chosen for `site`, if this choice names one.
    pub fn for_site(&self, site: &str) -> Option<SummaryFallback> {
        match self {
            Self::Every(fallback) => Some(*fallback),
            Self::PerSite(sites) => sites.get(site).copied(),
        }
    }
}
