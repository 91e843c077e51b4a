//! The Wikidata Query Service side of a live reading: which entities to read.
//!
//! An entity can only have an evolving pair of a relation (see
//! [`crate::evolving`]) when one of its statements of that relation starts after
//! the cutoff. The discovery queries ask, per relation and per window of start
//! dates, for every entity with such a start, and its revision
//! (`schema:version`): a superset of the entities the rule keeps, which the
//! extraction then decides on, as it does for a dump. The windows are calendar
//! years from the cutoff's year (January 1: a start of year precision is the
//! first day of its year in the query service) to the reading's year, and one
//! open window after it (starts in the future are data too). A window whose
//! query times out is halved, down to a day.
//!
//! The revision queries ask the revisions of named entities (`VALUES`), for the
//! objects of the facts, in batches that are halved when one times out.

use chrono::{Days, NaiveDate};
use serde::Deserialize;

use super::LiveError;

/// The prefix of an entity's IRI in the query service.
pub const ENTITY_IRI: &str = "http://www.wikidata.org/entity/";

/// A window of start dates: `from` inclusive, `to` exclusive (`None`: open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First day.
    pub from: NaiveDate,
    /// The day after the last; `None` for an open window.
    pub to: Option<NaiveDate>,
}

impl Window {
    /// The windows of a reading on `today` for `cutoff`: each year from the
    /// cutoff's to today's, then an open one.
    pub fn years(cutoff: NaiveDate, today: NaiveDate) -> Vec<Window> {
        let first = cutoff.format("%Y").to_string().parse::<i32>().unwrap_or(0);
        let last = today
            .format("%Y")
            .to_string()
            .parse::<i32>()
            .unwrap_or(first);
        let jan1 = |y: i32| NaiveDate::from_ymd_opt(y, 1, 1);
        let mut windows: Vec<Window> = (first..=last.max(first))
            .filter_map(|y| {
                Some(Window {
                    from: jan1(y)?,
                    to: Some(jan1(y + 1)?),
                })
            })
            .collect();
        if let Some(from) = jan1(last.max(first) + 1) {
            windows.push(Window { from, to: None });
        }
        windows
    }

    /// The two halves of a closed window of more than a day (an open window is
    /// cut at a hundred years after its start); `None` for a single day.
    pub fn halves(self) -> Option<(Window, Window)> {
        let to = self
            .to
            .or_else(|| self.from.checked_add_days(Days::new(36_525)))?;
        let days = (to - self.from).num_days();
        if days < 2 {
            return None;
        }
        let middle = self
            .from
            .checked_add_days(Days::new(u64::try_from(days / 2).ok()?))?;
        let first = Window {
            from: self.from,
            to: Some(middle),
        };
        let second = Window {
            from: middle,
            to: self.to.map(|_| to),
        };
        Some((first, second))
    }
}

impl std::fmt::Display for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to {
            Some(to) => write!(f, "{} to {}", self.from, to),
            None => write!(f, "{} on", self.from),
        }
    }
}

const PREFIXES: &str = "PREFIX p: <http://www.wikidata.org/prop/>\n\
PREFIX pq: <http://www.wikidata.org/prop/qualifier/>\n\
PREFIX schema: <http://schema.org/>\n\
PREFIX wd: <http://www.wikidata.org/entity/>\n\
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n";

/// The query for the entities with a `relation` statement that starts in
/// `window` (start qualifier `P580`), with their revisions.
pub fn discovery(relation: &str, window: Window) -> String {
    let day = |d: NaiveDate| format!("\"{}T00:00:00Z\"^^xsd:dateTime", d.format("%Y-%m-%d"));
    let to = window
        .to
        .map(|to| format!(" && ?start < {}", day(to)))
        .unwrap_or_default();
    format!(
        "{PREFIXES}SELECT DISTINCT ?item ?version WHERE {{\n  \
         ?item p:{relation} ?statement .\n  \
         ?statement pq:P580 ?start .\n  \
         FILTER(?start >= {from}{to})\n  \
         ?item schema:version ?version .\n}}\n",
        from = day(window.from),
    )
}

/// The query for the revisions of `ids` (`Q42`, ...).
pub fn revisions(ids: &[String]) -> String {
    let values: Vec<String> = ids.iter().map(|id| format!("wd:{id}")).collect();
    format!(
        "{PREFIXES}SELECT ?item ?version WHERE {{\n  \
         VALUES ?item {{ {} }}\n  \
         ?item schema:version ?version .\n}}\n",
        values.join(" ")
    )
}

#[derive(Deserialize)]
struct Results {
    results: Bindings,
}

#[derive(Deserialize)]
struct Bindings {
    bindings: Vec<Row>,
}

#[derive(Deserialize)]
struct Row {
    item: Term,
    version: Option<Term>,
}

#[derive(Deserialize)]
struct Term {
    value: String,
}

/// The (entity id, revision) rows of an answer in the SPARQL 1.1 JSON results
/// format. Rows of entities that are not items (`Q...`) are left out: the
/// relations' subjects are items. A revision that is missing or not a number is
/// `0` (read again).
///
/// # Errors
/// The answer is not that format: [`LiveError::Answer`] with the byte where it
/// stops making sense (a cut answer: the service's timeout while it streamed).
pub fn parse_rows(request: &str, body: &[u8]) -> Result<Vec<(String, u64)>, LiveError> {
    let results: Results =
        serde_json::from_slice(body).map_err(|e| LiveError::answer(request, body, &e))?;
    Ok(results
        .results
        .bindings
        .into_iter()
        .filter_map(|row| {
            let id = row.item.value.strip_prefix(ENTITY_IRI)?;
            let digits = id.strip_prefix('Q')?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let version = row
                .version
                .and_then(|v| v.value.parse::<u64>().ok())
                .unwrap_or(0);
            Some((id.to_string(), version))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn windows_cover_every_start_from_the_cutoff_s_year_on() {
        let w = Window::years(day("2019-12-31"), day("2021-06-01"));
        let shown: Vec<String> = w.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "2019-01-01 to 2020-01-01",
                "2020-01-01 to 2021-01-01",
                "2021-01-01 to 2022-01-01",
                "2022-01-01 on"
            ]
        );
        let (a, b) = w[1].halves().unwrap();
        assert_eq!(
            (a.from, a.to, b.from, b.to),
            (
                day("2020-01-01"),
                Some(day("2020-07-02")),
                day("2020-07-02"),
                Some(day("2021-01-01"))
            )
        );
        let one = Window {
            from: day("2020-01-01"),
            to: Some(day("2020-01-02")),
        };
        assert!(one.halves().is_none());
        // An open window halves into a closed one and an open one.
        let (a, b) = w[3].halves().unwrap();
        assert!(a.to.is_some() && b.to.is_none() && a.to == Some(b.from));
    }

    #[test]
    fn rows_are_items_with_revisions_and_a_cut_answer_names_its_byte() {
        let body = br#"{"head":{"vars":["item","version"]},"results":{"bindings":[
            {"item":{"type":"uri","value":"http://www.wikidata.org/entity/Q42"},"version":{"datatype":"http://www.w3.org/2001/XMLSchema#integer","type":"literal","value":"123"}},
            {"item":{"type":"uri","value":"http://www.wikidata.org/entity/L7"},"version":{"type":"literal","value":"5"}},
            {"item":{"type":"uri","value":"http://www.wikidata.org/entity/Q7"}}]}}"#;
        assert_eq!(
            parse_rows("q", body).unwrap(),
            [("Q42".to_string(), 123), ("Q7".to_string(), 0)]
        );
        let cut = &body[..120];
        let err = parse_rows("the 2020 query", cut).unwrap_err().to_string();
        assert!(
            err.contains("the 2020 query") && err.contains("byte 120"),
            "{err}"
        );
    }
}
