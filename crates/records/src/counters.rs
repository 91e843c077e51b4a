//! The counters and metrics stages record in `run.json` that other code reads
//! back (a refresh's health check): each name owned by one type, which writes it
//! and reads it, so a stage that renames one breaks the reader at compile time,
//! not silently in a figure that is always 0.

/// What the `extract` stage counts, one per page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtractCount<'a> {
    /// An article read with this layout of its site's profile.
    Layout(&'a str),
    /// An article of this site and section.
    Section {
        /// The site (`bbc`).
        source: &'a str,
        /// Its section (`sport`, `news/world`).
        section: &'a str,
    },
    /// An article whose summary came from this source (`SummarySource`'s name).
    SummarySource(&'a str),
    /// A page rejected for this reason (the rejection's kind).
    Rejected(&'a str),
}

impl<'a> ExtractCount<'a> {
    /// The kind of stage that counts these.
    pub const STAGE_KIND: &'static str = "extract";

    const LAYOUT: &'static str = "layout ";
    const SECTION: &'static str = "section ";
    const SUMMARY_SOURCE: &'static str = "summary_source ";
    const REJECTED: &'static str = "rejected: ";

    /// The counter's name in `run.json`.
    pub fn name(&self) -> String {
        match self {
            Self::Layout(layout) => format!("{}{layout}", Self::LAYOUT),
            Self::Section { source, section } => format!("{}{source}/{section}", Self::SECTION),
            Self::SummarySource(source) => format!("{}{source}", Self::SUMMARY_SOURCE),
            Self::Rejected(kind) => format!("{}{kind}", Self::REJECTED),
        }
    }

    /// The count a counter's name stands for, if it is one of these.
    pub fn parse(name: &'a str) -> Option<Self> {
        if let Some(layout) = name.strip_prefix(Self::LAYOUT) {
            return Some(Self::Layout(layout));
        }
        if let Some(rest) = name.strip_prefix(Self::SECTION) {
            let (source, section) = rest.split_once('/')?;
            return Some(Self::Section { source, section });
        }
        if let Some(source) = name.strip_prefix(Self::SUMMARY_SOURCE) {
            return Some(Self::SummarySource(source));
        }
        name.strip_prefix(Self::REJECTED).map(Self::Rejected)
    }
}

/// The facts of one relation, as the facts stages (`wikidata`, `wikidata-live`)
/// count them: `facts P54`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelationFacts<'a>(pub &'a str);

impl<'a> RelationFacts<'a> {
    const PREFIX: &'static str = "facts ";

    /// The counter's name in `run.json`.
    pub fn name(&self) -> String {
        format!("{}{}", Self::PREFIX, self.0)
    }

    /// The relation a counter's name stands for, if it is one of these.
    pub fn parse(name: &'a str) -> Option<Self> {
        name.strip_prefix(Self::PREFIX).map(Self)
    }
}

/// The articles the `conflicts` stage kept with a fact of one relation, as it
/// counts them: `kept P54` (an article with facts of two relations counts for
/// each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelationArticles<'a>(pub &'a str);

impl<'a> RelationArticles<'a> {
    /// The kind of stage that counts these.
    pub const STAGE_KIND: &'static str = "conflicts";

    const PREFIX: &'static str = "kept ";

    /// The counter's name in `run.json`.
    pub fn name(&self) -> String {
        format!("{}{}", Self::PREFIX, self.0)
    }

    /// The relation a counter's name stands for, if it is one of these.
    pub fn parse(name: &'a str) -> Option<Self> {
        name.strip_prefix(Self::PREFIX).map(Self)
    }
}

/// What the `wayback-fetch` stage counts, one per capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchCount {
    /// A page fetched (in a WARC file).
    Fetched,
    /// A page that failed after every attempt.
    Failed,
}

impl FetchCount {
    /// The kind of stage that counts these.
    pub const STAGE_KIND: &'static str = "wayback-fetch";

    /// The counter's name in `run.json`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fetched => "fetched",
            Self::Failed => "failed",
        }
    }
}

/// The metrics of the `wayback-cdx` stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListingMetric {
    /// Captures listed, per URL pattern (an object).
    Listed,
    /// The newest capture the listing handed on (`YYYYMMDDhhmmss`).
    ListedUntil,
}

impl ListingMetric {
    /// The kind of stage that records these.
    pub const STAGE_KIND: &'static str = "wayback-cdx";

    /// The metric's name in `run.json`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Listed => "listed",
            Self::ListedUntil => "listed_until",
        }
    }
}

/// The `bins` metric of a stage that scores novelty (`novelty`, and
/// `manifest-novelty` in a rebuild): each set's bins (`{set: [bin, ...]}`).
pub type NoveltyBins = std::collections::BTreeMap<String, Vec<BinCount>>;

/// The name of the [`NoveltyBins`] metric.
pub const NOVELTY_BINS: &str = "bins";

/// One novelty bin of a set in `run.json`, as the card's novelty tables read it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BinCount {
    /// The label, `from-to`: `0-15`.
    pub range: String,
    /// Lower end, percent.
    pub from: u32,
    /// Upper end, percent.
    pub to: u32,
    /// Articles in the bin.
    pub count: usize,
    /// `T_nov`, `T_sim` or none.
    pub tag: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extract_count_reads_back_as_itself() {
        for count in [
            ExtractCount::Layout("story"),
            ExtractCount::Section {
                source: "bbc",
                section: "news/world",
            },
            ExtractCount::SummarySource("first_paragraph"),
            ExtractCount::Rejected("no_bold_intro"),
        ] {
            assert_eq!(ExtractCount::parse(&count.name()), Some(count));
        }
        assert_eq!(ExtractCount::parse("fetched"), None);
        assert_eq!(ExtractCount::parse("section nosite"), None);
    }

    #[test]
    fn a_relations_facts_read_back_apart_from_all_facts() {
        assert_eq!(RelationFacts("P54").name(), "facts P54");
        assert_eq!(
            RelationFacts::parse("facts P54"),
            Some(RelationFacts("P54"))
        );
        assert_eq!(RelationFacts::parse("facts"), None);
    }

    #[test]
    fn a_relations_articles_read_back_apart_from_the_other_kept_counts() {
        assert_eq!(RelationArticles("P286").name(), "kept P286");
        assert_eq!(
            RelationArticles::parse("kept P286"),
            Some(RelationArticles("P286"))
        );
        assert_eq!(RelationArticles::parse("kept"), None);
        assert_eq!(RelationArticles::parse("kept_after_change"), None);
    }
}

/// The stage kinds whose records out are the evolving facts a run read.
pub const FACT_SOURCE_KINDS: [&str; 2] = ["wikidata", "wikidata-live"];

/// The stage kind whose ports are the sets (`split`): each port's count is the
/// articles a set selected.
pub const SETS_STAGE_KIND: &str = "split";

/// What a reading of Wikidata's live services did: `run.json`'s `refresh`
/// metric of a `wikidata-live` stage that read them ([`Refresh::METRIC`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Refresh {
    /// Queries sent to the query service.
    pub queries: u64,
    /// Requests sent to the API.
    pub reads: u64,
    /// Entities found by the discovery queries.
    pub found: usize,
    /// Objects of their facts, read for their names.
    pub objects: usize,
    /// Entities read through the API (new, or changed since the last reading).
    pub changed: usize,
    /// Entities taken from the last reading, unchanged.
    pub unchanged: usize,
    /// Entities of the last reading no longer found.
    pub dropped: usize,
    /// Facts that differ from the last reading's: new ones and gone ones (a
    /// fact whose dates or object changed counts twice). Names aside.
    #[serde(default)]
    pub facts_changed: usize,
    /// Pauses the API asked for (`maxlag`).
    pub lag_pauses: u64,
}

impl Refresh {
    /// The metric's name.
    pub const METRIC: &'static str = "refresh";
}
