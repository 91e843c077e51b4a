//! A model's summary judged claim by claim against the facts at its article's date
//! (`tempora score`).

use std::sync::Arc;

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the facts say of one claim at the article's publication date.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The person held the office on that date (a claim stated as past whose office
    /// is still held is also `current`: the facts' word, not the tense's).
    Current,
    /// Held only before that date, and stated as current: the outdated
    /// hallucination TempoSum counts ("Vice President Joe Biden" in 2021).
    Outdated,
    /// Stated as past (`former`, `ex-`, `then-`, `outgoing`, `late`, or words
    /// after the name: "President Trump's successor"), and held before that date.
    Former,
    /// Held only after that date.
    NotYet,
    /// The person and the office are known, one of them with its whole list (every
    /// holder of the office, or every office of the person), and no statement joins
    /// them.
    Never,
    /// The facts cannot say: the person or the office is not in them, a title fits
    /// several offices, or the statements that join them carry no dates. Said,
    /// never guessed.
    Unknown,
}

impl Verdict {
    /// Every verdict, in the order tables list them.
    pub const ALL: [Verdict; 6] = [
        Self::Current,
        Self::Outdated,
        Self::Former,
        Self::NotYet,
        Self::Never,
        Self::Unknown,
    ];

    /// The snake_case name used in the records.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Current => "current",
            Self::Outdated => "outdated",
            Self::Former => "former",
            Self::NotYet => "not_yet",
            Self::Never => "never",
            Self::Unknown => "unknown",
        }
    }
}

/// Whether a claim states the office as held now or as held before.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Tense {
    /// "President Joe Biden".
    Present,
    /// "former President Joe Biden", "ex-PM", "then-president", "outgoing", "the late",
    /// "President Trump's successor", "the President Obama administration".
    Past,
}

/// A person or an office as a claim names it: the Wikidata entity when the facts
/// know it, else only the words of the summary.
///
/// Its strings (and [`Evidence`]'s) are shared: the same entity and statement
/// stand in many claims, and a clone is a count, not a copy. They read and write
/// as plain strings.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct ClaimEntity {
    /// Wikidata id, null when the facts do not know the entity.
    pub id: Option<Arc<str>>,
    /// The entity's label, or the summary's words when it is not known.
    pub label: Arc<str>,
}

/// A statement of the facts that a verdict rests on: the person held the office
/// from `start` to `end`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// `P39` (the person's position held) or `P1308` (the office's holder).
    pub relation: Arc<str>,
    /// The person's id.
    pub person: Arc<str>,
    /// The office's id.
    pub position: Arc<str>,
    /// Start, cut to its precision (`2021-01-20`, `2019-06`, `2019`), as in facts.
    pub start: Option<Arc<str>>,
    /// End, same format; null while held.
    pub end: Option<Arc<str>>,
}

/// A person linked to an office in a summary, and its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Claim {
    /// The summary's words from the first word of the title to the last of the name
    /// (or the other way round: "Boris Johnson, the prime minister"); the name
    /// alone for an implied claim.
    pub text: String,
    /// First character of `text` in the summary, counted in Unicode characters
    /// (code points), as Python indexes strings.
    pub start: usize,
    /// One past the last character of `text`.
    pub end: usize,
    /// The person named.
    pub person: ClaimEntity,
    /// The other side of the person's role, resolved from the title and its
    /// context: the office ("President of the United States"), or the club,
    /// company or organization ("Chelsea F.C." for "Chelsea manager").
    pub position: ClaimEntity,
    /// The relation the claim is of, as the catalogue's role names it: `P39`
    /// for an office (P1308 states the same role), `P286` for a club's
    /// manager, `P54` for a player's club, `P169` for a chief executive. Null
    /// when neither the role nor the title settles it ("boss" of an entity the
    /// facts do not hold: a club's or a company's).
    pub relation: Option<Arc<str>>,
    /// Whether the claim states the office as held now or before.
    pub tense: Tense,
    /// The office is not written in the summary but implied: a person the article
    /// never names, put where the article names an office's holder ("Donald Trump
    /// has signed ..." about President Biden's first day), judged as a claim to
    /// that office of the article's facts.
    #[serde(default)]
    pub implied: bool,
    /// What the facts say at the article's date.
    pub verdict: Verdict,
    /// The verdict in words: the dates compared, or what the facts lack.
    pub reason: String,
    /// Who held the office on the article's date (empty when the office is not known).
    pub holders_at_date: Vec<ClaimEntity>,
    /// The statements joining the person and the office, in start order.
    pub evidence: Vec<Evidence>,
}

/// One summary of one system, judged (a line of `scores.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScoredSummary {
    /// The article's (or prediction's) `id`.
    pub id: String,
    /// The system that wrote the summary; `reference` for a set's own summaries.
    pub system: String,
    /// The set the article belongs to (`future`, `in_distribution`, ...), null when
    /// the predictions name none.
    pub set: Option<String>,
    /// The article's publication date: the date every claim is judged at.
    pub published: NaiveDate,
    /// The summary as given.
    pub summary: String,
    /// Every claim found, in the order of the text.
    pub claims: Vec<Claim>,
}

impl ScoredSummary {
    /// Whether any claim has `verdict`.
    pub fn has(&self, verdict: Verdict) -> bool {
        self.claims.iter().any(|c| c.verdict == verdict)
    }
}
