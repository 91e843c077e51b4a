//! Systems side by side: the difference of two systems' outdated rates on the
//! articles both summarized, with its paired bootstrap interval, and the
//! leaderboard that ranks the systems by outdated rate on the future set, with
//! the set's own summaries (`reference`) as the control.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use tempora_records::{ScoredSummary, Verdict};

use crate::bootstrap::{Bootstrap, Interval};
use crate::job::REFERENCE;
use crate::tables::{Row, ALL_SETS};

/// The set a leaderboard ranks on when the scores have it.
pub const FUTURE: &str = "future";

/// Two systems' outdated rates on the articles of a set both summarized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// The set, or `all` (every set, when there are several).
    pub set: String,
    /// The system compared.
    pub system: String,
    /// The system it is compared against: `reference`, or the one before it
    /// in the rows' order.
    pub against: String,
    /// Articles both summarized, what the rates and the difference are of.
    pub articles: u64,
    /// `system`'s outdated rate on those articles.
    pub system_rate: f64,
    /// `against`'s outdated rate on those articles.
    pub against_rate: f64,
    /// `system_rate - against_rate`: above 0 when `system` has more summaries
    /// with an outdated claim.
    pub difference: f64,
    /// Its 95 % paired bootstrap interval (the same articles resampled for
    /// both); none without resamples.
    pub interval: Option<Interval>,
}

/// The systems ranked by outdated rate on one set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The set ranked on: `future`, or when no summary of it was scored, each
    /// system's whole (`all`).
    pub set: String,
    /// The control: `reference`, the set's own summaries, when they were
    /// scored.
    #[serde(default)]
    pub control: Option<String>,
    /// The control first (unranked), then the systems, fewest outdated first,
    /// then those with no summary of the set (unranked).
    pub standings: Vec<Standing>,
}

/// A system's place on the leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// 1 for the fewest outdated summaries (the never rate, then the name,
    /// settling ties; equal rates share a rank); none for the control and a
    /// system with no summary of the set.
    pub rank: Option<u32>,
    /// The system.
    pub system: String,
    /// Summaries scored.
    pub summaries: u64,
    /// Summaries with at least one claim (a summary without one can have no
    /// outdated claim: an empty or vague summary ranks high).
    #[serde(default)]
    pub with_claim: u64,
    /// Articles of the set, what the summaries are of (none without a set).
    pub articles: Option<u64>,
    /// `summaries` of `articles`.
    pub coverage: Option<f64>,
    /// The share of its summaries with an outdated claim.
    pub outdated_rate: f64,
    /// Its 95 % interval.
    pub outdated_interval: Option<Interval>,
    /// The share with a never-true claim.
    pub never_rate: f64,
    /// Its 95 % interval.
    pub never_interval: Option<Interval>,
    /// Its outdated rate less the control's on the articles both summarized,
    /// with the paired interval (none for the control, or without one).
    pub against_control: Option<Difference>,
}

/// What a system's summary of an article is to a pair's bootstrap: none, one
/// without an outdated claim, one with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    None,
    Fine,
    Outdated,
}

/// The differences of every pair of systems, per set and over every set (when
/// there are several), in the rows' order of systems (`reference` first).
pub fn differences(scores: &[ScoredSummary], bootstrap: Option<&Bootstrap>) -> Vec<Difference> {
    // Each article (set, date, id) by its index, and the set of each.
    let mut index: HashMap<(&str, NaiveDate, &str), usize> = HashMap::new();
    let mut set_of: Vec<&str> = Vec::new();
    let mut by_system: BTreeMap<(bool, &str), Vec<(usize, bool)>> = BTreeMap::new();
    for s in scores {
        let set = s.set.as_deref().unwrap_or(ALL_SETS);
        let article = *index
            .entry((set, s.published, s.id.as_str()))
            .or_insert_with(|| {
                set_of.push(set);
                set_of.len() - 1
            });
        by_system
            .entry((s.system != REFERENCE, s.system.as_str()))
            .or_default()
            .push((article, s.has(Verdict::Outdated)));
    }
    // Per system, its outcome on every article.
    let systems: Vec<(&str, Vec<Outcome>)> = by_system
        .into_iter()
        .map(|((_, name), summaries)| {
            let mut outcomes = vec![Outcome::None; set_of.len()];
            for (article, outdated) in summaries {
                outcomes[article] = if outdated {
                    Outcome::Outdated
                } else {
                    Outcome::Fine
                };
            }
            (name, outcomes)
        })
        .collect();
    let sets: BTreeSet<&str> = set_of.iter().copied().collect();
    let mut wanted: Vec<Option<&str>> = sets.iter().map(|s| Some(*s)).collect();
    if sets.len() > 1 {
        wanted.push(None);
    }
    let mut out = Vec::new();
    for set in wanted {
        let in_set: Vec<bool> = set_of.iter().map(|s| set.is_none_or(|w| w == *s)).collect();
        for (i, (against, first)) in systems.iter().enumerate() {
            for (system, second) in &systems[i + 1..] {
                let cells = cells(first, second, &in_set);
                if let Some(d) = difference(set, system, against, cells, bootstrap) {
                    out.push(d);
                }
            }
        }
    }
    out
}

/// The paired cells of two systems' outcomes on the articles (those `in_set`)
/// both summarized: both outdated, only `second`'s, only `first`'s, neither.
fn cells(first: &[Outcome], second: &[Outcome], in_set: &[bool]) -> [u64; 4] {
    let mut cells = [0u64; 4];
    for ((a, b), wanted) in first.iter().zip(second).zip(in_set) {
        let cell = match (wanted, b, a) {
            (false, _, _) | (_, Outcome::None, _) | (_, _, Outcome::None) => continue,
            (true, Outcome::Outdated, Outcome::Outdated) => 0,
            (true, Outcome::Outdated, Outcome::Fine) => 1,
            (true, Outcome::Fine, Outcome::Outdated) => 2,
            (true, Outcome::Fine, Outcome::Fine) => 3,
        };
        cells[cell] += 1;
    }
    cells
}

fn difference(
    set: Option<&str>,
    system: &str,
    against: &str,
    cells: [u64; 4],
    bootstrap: Option<&Bootstrap>,
) -> Option<Difference> {
    let articles: u64 = cells.iter().sum();
    if articles == 0 {
        return None;
    }
    let set = set.unwrap_or(ALL_SETS);
    let rate = |k: u64| k as f64 / articles as f64;
    let (system_rate, against_rate) = (rate(cells[0] + cells[1]), rate(cells[0] + cells[2]));
    Some(Difference {
        set: set.to_string(),
        system: system.to_string(),
        against: against.to_string(),
        articles,
        system_rate,
        against_rate,
        difference: system_rate - against_rate,
        interval: bootstrap
            .and_then(|b| b.difference(cells, &["difference", system, against, set])),
    })
}

/// The leaderboard of `rows` on the future set (else each system's whole),
/// with each system's difference from the control among `differences`; none
/// when no system but the control was scored.
pub fn leaderboard(rows: &[Row], differences: &[Difference]) -> Option<Leaderboard> {
    let set = if rows.iter().any(|r| r.set == FUTURE) {
        FUTURE
    } else {
        ALL_SETS
    };
    let mut systems: Vec<&str> = rows.iter().map(|r| r.system.as_str()).collect();
    systems.dedup();
    // The row of each system on the set: for the whole, its `all` row, or its
    // only one.
    let row_of = |system: &str| -> Option<&Row> {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.system == system).collect();
        mine.iter()
            .find(|r| r.set == set)
            .or_else(|| (set == ALL_SETS && mine.len() == 1).then(|| &mine[0]))
            .copied()
    };
    let control = systems.contains(&REFERENCE).then_some(REFERENCE);
    let (mut ranked, unranked): (Vec<&Row>, Vec<&Row>) = systems
        .iter()
        .filter(|s| Some(**s) != control)
        .filter_map(|s| row_of(s))
        .partition(|r| r.summaries > 0);
    if ranked.is_empty() && unranked.is_empty() {
        return None;
    }
    ranked.sort_by(|a, b| {
        (a.outdated_rate, a.never_rate)
            .partial_cmp(&(b.outdated_rate, b.never_rate))
            .unwrap_or(Ordering::Equal)
            .then_with(|| a.system.cmp(&b.system))
    });
    let against_control = |row: &Row| {
        let control = control?;
        differences
            .iter()
            .find(|d| d.system == row.system && d.against == control && d.set == row.set)
            .cloned()
    };
    let mut standings: Vec<Standing> = control
        .and_then(row_of)
        .map(|row| standing(row, None, None))
        .into_iter()
        .collect();
    for (i, row) in ranked.iter().enumerate() {
        let tied = i > 0
            && (ranked[i - 1].outdated_rate, ranked[i - 1].never_rate)
                == (row.outdated_rate, row.never_rate);
        let rank = if tied {
            standings.last().and_then(|s| s.rank)
        } else {
            Some(i as u32 + 1)
        };
        standings.push(standing(row, rank, against_control(row)));
    }
    standings.extend(unranked.iter().map(|row| standing(row, None, None)));
    Some(Leaderboard {
        set: set.to_string(),
        control: control.map(str::to_string),
        standings,
    })
}

fn standing(row: &Row, rank: Option<u32>, against_control: Option<Difference>) -> Standing {
    Standing {
        rank,
        system: row.system.clone(),
        summaries: row.summaries,
        with_claim: row.with_claim,
        articles: row.articles,
        coverage: row.coverage,
        outdated_rate: row.outdated_rate,
        outdated_interval: row.outdated_interval,
        never_rate: row.never_rate,
        never_interval: row.never_interval,
        against_control,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leaderboard written before a field was added still reads: the card
    /// of a folder scored then is not refused.
    #[test]
    fn a_leaderboard_without_the_later_fields_reads() {
        let json = r#"{"set": "future", "standings": [{"rank": 1, "system": "t5",
            "summaries": 4, "articles": 4, "coverage": 1.0, "outdated_rate": 0.25,
            "outdated_interval": null, "never_rate": 0.0, "never_interval": null,
            "against_control": null}]}"#;
        let board: Leaderboard = serde_json::from_str(json).unwrap();
        assert_eq!(board.control, None);
        assert_eq!(
            (board.standings[0].rank, board.standings[0].with_claim),
            (Some(1), 0)
        );
    }
}
