//! Wikidata facts as the `wikidata` stage finds them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
/// `P1308` (officeholder) the subject is a position and the object its holder; for
/// another relation the relation catalogue says which side is the person (`P54`:
/// the subject, a player; `P286`: the object, a club's manager).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Fact {
    /// The entity the statement is about.
    pub subject: EntityRef,
    /// Wikidata property id of the relation: `P39`, `P1308`, or any other the
    /// facts stage reads (`P54`, `P286`, `P169`, `P488`, ...).
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
