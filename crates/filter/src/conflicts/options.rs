//! Options of the `conflicts` stage.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How positions are recognized in text besides their full names.
///
/// Measured with `cargo run -p tempora-filter --example position_names [FACTS
/// ARTICLES [JUDGEMENTS]]` (aliases on, ASCII case folded). Our fixture corpus
/// (`tests/fixtures/conflicts/`: 25 articles we wrote in BBC and CNN style, 16 of
/// which a reader marks as naming a holder in an evolving office in the document
/// and an entity of it in the summary):
///
/// | choice | kept | kept and marked | kept, not marked | marked, missed |
/// |---|---|---|---|---|
/// | `full` | 9 | 9 | 0 | 7 |
/// | `head_in_context` | 17 | 16 | 1 | 0 |
/// | `head` | 19 | 16 | 3 | 0 |
///
/// The demo pipeline's data (the 8 articles that reach `conflicts` in
/// `pipelines/demo.toml`, 3 of them marked): `full` keeps 1, `head_in_context`
/// and `head` keep the 3 marked ones and nothing else.
///
/// `full` misses about half: news names an office by its head ("the prime
/// minister", "Chancellor Olaf Scholz") once the country is clear. `head` adds
/// Macron's "President" and a golf club's president. `head_in_context` keeps
/// every marked article; its one wrong keep is the UK's "Chancellor" (of the
/// Exchequer) in an article that also names Germany and Angela Merkel. The
/// holder rule ("Vice President Kamala Harris") matters for US-centric CNN
/// copy, which often never names the country. Hence the default. Turning
/// aliases off or matching case exactly loses 7 of the 16 marked articles.
/// Both corpora are small and ours: rerun the example on real data with its
/// own judgements before trusting the exact figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PositionNames {
    /// Only the position's label and aliases ("President of the United States",
    /// "US President"); a bare alias equal to the head ("President") is not used.
    Full,
    /// Also the head of the label ("President", "Prime Minister") in context:
    /// when the same article (document or summary) names one of its qualifiers
    /// ("United States", "US", "American", taken from the label and the aliases),
    /// or when the head stands right before the name of one of the position's
    /// holders ("President Joe Biden", "Vice President Kamala Harris"). Never when
    /// another " of ..." qualifier follows it or a rank word ("deputy") precedes it.
    #[default]
    HeadInContext,
    /// Also the head alone, wherever it appears (not followed by " of ...", not
    /// after a rank word).
    Head,
}

pub(crate) const fn default_case_sensitive() -> bool {
    false
}

pub(crate) const fn default_min_name_chars() -> usize {
    4
}

pub(crate) const fn default_use_aliases() -> bool {
    true
}

pub(crate) const fn default_whole_words() -> bool {
    true
}

/// Options of the `conflicts` stage.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct ConflictsOptions {
    /// The stage whose whole output is the evolving facts (a `wikidata` stage), taken
    /// as a side input. Give exactly one of `facts` and `facts_file`.
    #[serde(default)]
    pub facts: Option<String>,
    /// A facts JSONL file (one fact per line, as written by a `jsonl` sink or
    /// `tempora facts -o FILE.jsonl`), computed for the same cutoff as the pipeline.
    /// Give exactly one of `facts` and `facts_file`.
    #[serde(default)]
    pub facts_file: Option<PathBuf>,
    /// Match names with their exact case. Off by default: running text writes
    /// positions in lower case ("the prime minister"). Folding is ASCII only;
    /// acronyms (names in capitals, "POTUS") and qualifiers ("US") always match with
    /// their exact case, so "us" is not "US".
    #[serde(default = "default_case_sensitive")]
    pub case_sensitive: bool,
    /// Names shorter than this many characters are not matched: short aliases such
    /// as "PM", "Joe" or "May" match far more than the entity.
    #[serde(default = "default_min_name_chars")]
    pub min_name_chars: usize,
    /// Match aliases as well as labels (Wikidata aliases: "Joseph R. Biden", "US
    /// President"). Off: labels only.
    #[serde(default = "default_use_aliases")]
    pub use_aliases: bool,
    /// Names match only as whole words: "Biden" is not in "Bidenomics" or
    /// "ABiden". Off: anywhere, inside longer words too ("Bidenomics" then names
    /// Biden), with one Aho-Corasick automaton over every name; slower, and short
    /// names then match inside many words.
    #[serde(default = "default_whole_words")]
    pub whole_words: bool,
    /// How positions are recognized besides their full names: `full` (label and
    /// aliases only), `head_in_context` (also the unqualified head, "the prime
    /// minister", when the article names a qualifier such as "UK" or a holder's
    /// name follows it, "President Joe Biden"), `head` (the head anywhere). The
    /// measured effect of each is in the docs of `tempora_filter::PositionNames`.
    #[serde(default)]
    pub position_names: PositionNames,
    /// Criterion 2 asks the summary to name the subject or object of *any* evolving
    /// fact (the paper's wording). On: of a fact the document names in full
    /// (criterion 1), which ties the summary to the conflict the document states.
    #[serde(default)]
    pub summary_same_fact: bool,
}
