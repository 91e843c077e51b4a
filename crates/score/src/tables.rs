//! The figures per system and set (`summary.json`, `scores.md`): TempoSum's
//! outdated-hallucination rate (Figure 2: the share of summaries with at least one
//! outdated claim), the `never` rate, and the share of claims that are current.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use std::path::Path;

use serde::{Deserialize, Serialize};
use tempora_records::{ScoredSummary, Verdict};

use crate::bootstrap::{Bootstrap, Interval};
use crate::compare::{Difference, Leaderboard};
use crate::harness::samples::HarnessFile;
use crate::inputs::{self, SetFile};
use crate::job::REFERENCE;
use crate::markdown;

/// The set name of summaries whose predictions name none.
pub const ALL_SETS: &str = "all";

/// The figures of one system on one set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The system (`reference` for the set's own summaries).
    pub system: String,
    /// The set (`future`, `in_distribution`, ...), or `all`.
    pub set: String,
    /// Summaries scored.
    pub summaries: u64,
    /// Articles of the row's set (of every set, for `all`), what `summaries` are
    /// of; none for summaries scored without a set.
    #[serde(default)]
    pub articles: Option<u64>,
    /// `summaries` of `articles`: 1 when the system summarized every article,
    /// less when its rates are of part of the set; none without a set.
    #[serde(default)]
    pub coverage: Option<f64>,
    /// Summaries with at least one claim.
    pub with_claim: u64,
    /// Empty summaries (none, or only white space: a model that generated
    /// nothing, or a stop string that cut it all), scored as summaries with no
    /// claim.
    #[serde(default)]
    pub empty: u64,
    /// Claims found.
    pub claims: u64,
    /// Claims by verdict (every verdict present, zero included).
    pub verdicts: BTreeMap<String, u64>,
    /// Summaries with at least one `outdated` claim, of all summaries.
    pub outdated_rate: f64,
    /// Summaries with at least one `never` claim, of all summaries.
    pub never_rate: f64,
    /// The outdated rate's 95 % bootstrap interval over the row's articles (none
    /// without resamples or summaries).
    #[serde(default)]
    pub outdated_interval: Option<Interval>,
    /// The never rate's, likewise.
    #[serde(default)]
    pub never_interval: Option<Interval>,
    /// `current` claims, of all claims (0 when there is none).
    pub current_share: f64,
    /// The same figures per relation of the claims (`P39` for offices, `P286`
    /// for a club's manager, ...; `unresolved` for claims no relation settles):
    /// the rates are of all the row's summaries, so the relations' outdated
    /// rates add up to at least the row's.
    #[serde(default)]
    pub relations: BTreeMap<String, RelationFigures>,
}

/// One relation's figures in a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationFigures {
    /// Claims of the relation.
    pub claims: u64,
    /// Claims by verdict (every verdict present, zero included).
    pub verdicts: BTreeMap<String, u64>,
    /// Summaries with at least one `outdated` claim of the relation, of all
    /// summaries of the row.
    pub outdated_rate: f64,
    /// Summaries with at least one `never` claim of the relation, of all
    /// summaries of the row.
    pub never_rate: f64,
}

/// The name of the relation of claims that none settles.
pub const UNRESOLVED: &str = "unresolved";

/// Predictions that could not be scored: ids the set does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unmatched {
    /// The system.
    pub system: String,
    /// Its file.
    pub file: String,
    /// How many.
    pub count: u64,
    /// The ids, with the line of each (sorted by line).
    pub ids: Vec<(usize, String)>,
}

/// Articles of the set that a system has no prediction for, so not scored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missing {
    /// The system.
    pub system: String,
    /// Its file (its files, joined by `, `, when it has several).
    pub file: String,
    /// How many articles have no prediction.
    pub count: u64,
    /// Articles in the set.
    pub of: u64,
    /// Their ids, in the scores' order (set, date, id).
    pub ids: Vec<String>,
}

/// A system and a predictions file it was read from (a system may have several:
/// the harness writes one samples file per task).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredictionsFile {
    /// The system.
    pub system: String,
    /// The file, as given.
    pub file: String,
    /// When the file is lm-evaluation-harness samples: its task, model, results
    /// file, filters, the documents it logs more than once, and the rule that
    /// picked the line and response scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<HarnessFile>,
}

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Where the facts came from: the file, relative to the set folder when in it,
    /// else absolute.
    pub facts: String,
    /// SHA-256 of the facts file, hex.
    pub facts_sha256: String,
    /// Facts read.
    pub facts_read: u64,
    /// One row per system and set, then per system over every set (`all`) when it
    /// has more than one; sorted by system, with `reference` first.
    pub rows: Vec<Row>,
    /// Predictions whose id the set does not hold.
    pub unmatched: Vec<Unmatched>,
    /// Per system, the articles of the set it has no prediction for.
    #[serde(default)]
    pub missing: Vec<Missing>,
    /// The set files read, with their SHA-256 (none without a set).
    #[serde(default)]
    pub sets: Vec<SetFile>,
    /// The systems scored and their files (not `reference`).
    #[serde(default)]
    pub predictions: Vec<PredictionsFile>,
    /// How the intervals were drawn; none when they were not (`--resamples 0`).
    #[serde(default)]
    pub bootstrap: Option<Bootstrap>,
    /// The systems ranked by outdated rate on the future set, `reference` as
    /// the control (none when no system but `reference` was scored).
    #[serde(default)]
    pub leaderboard: Option<Leaderboard>,
    /// Per set and pair of systems, the difference of their outdated rates on
    /// the articles both summarized, with its paired bootstrap interval.
    #[serde(default)]
    pub differences: Vec<Difference>,
}

impl Summary {
    /// Why these scores are not of the set folder `dir` as it is now (a set file
    /// or the facts changed or gone since they were scored), or `None`.
    pub fn changed_in(&self, dir: &Path) -> Option<String> {
        let sets = self
            .sets
            .iter()
            .map(|s| (s.file.as_str(), s.sha256.as_str()));
        let facts = std::iter::once((self.facts.as_str(), self.facts_sha256.as_str()));
        inputs::first_change(dir, sets.chain(facts))
    }

    /// The command that scores the set folder (`DIR`, as the card names it: the
    /// same folder gives the same words wherever it is) again with the same
    /// predictions files, as they were given.
    pub fn score_again(&self) -> String {
        let mut command = String::from("tempora score DIR");
        if self.predictions.is_empty() {
            command.push_str(" --predictions ...");
            return command;
        }
        command.push_str(" --predictions");
        for file in &self.predictions {
            let _ = write!(command, " {}", file.file);
        }
        command.push_str(" --system");
        for file in &self.predictions {
            let _ = write!(command, " {}", file.system);
        }
        // Facts from outside the folder are named by their whole path.
        if Path::new(&self.facts).is_absolute() {
            let _ = write!(command, " --facts {}", self.facts);
        }
        command
    }
}

impl Row {
    /// The row in one line, as `tempora score` prints it: the rates with their
    /// intervals, as the tables give them, and the coverage.
    pub fn line(&self) -> String {
        let mut line = format!(
            "{} / {}: {} summaries, {} with a claim, {} claims; outdated rate {}, never rate {}, current share {}",
            self.system,
            self.set,
            self.summaries,
            self.with_claim,
            self.claims,
            markdown::rate(self.outdated_rate, self.outdated_interval.as_ref()),
            markdown::rate(self.never_rate, self.never_interval.as_ref()),
            markdown::percent(self.current_share)
        );
        if self.articles.is_some() {
            let coverage = markdown::coverage(self.summaries, self.articles);
            let _ = write!(line, "; coverage {coverage}");
        }
        line
    }
}

/// The rows of `scores` (in any order: the rows are sorted), with each row's
/// coverage of `articles` (per set, none without a set) and, with `bootstrap`,
/// its rates' intervals. Each of `systems` (and each system of `scores`) has a
/// row for every set of `articles` that has any, one of no summary (coverage 0)
/// where it summarized none: a system that left out a set is seen to.
pub fn rows<'a>(
    scores: impl IntoIterator<Item = &'a ScoredSummary>,
    systems: impl IntoIterator<Item = &'a str>,
    articles: &'a BTreeMap<String, u64>,
    bootstrap: Option<&Bootstrap>,
) -> Vec<Row> {
    // Per system (`reference` first) and set, counted a run of one system's
    // set at a time (scores come sorted so, mostly: one lookup per run).
    let mut groups: BTreeMap<(bool, &str, &str), Counts> = BTreeMap::new();
    let mut named: BTreeSet<&str> = systems.into_iter().collect();
    let mut run: Option<((bool, &str, &str), Counts)> = None;
    for score in scores {
        let system = score.system.as_str();
        let key = (
            system != REFERENCE,
            system,
            score.set.as_deref().unwrap_or(ALL_SETS),
        );
        if run.as_ref().is_none_or(|(k, _)| *k != key) {
            named.insert(system);
            if let Some((k, counts)) = run.replace((key, Counts::default())) {
                groups.entry(k).or_default().merge(&counts);
            }
        }
        if let Some((_, counts)) = run.as_mut() {
            counts.add(score);
        }
    }
    if let Some((k, counts)) = run {
        groups.entry(k).or_default().merge(&counts);
    }
    // Every system has a row of every set that has articles.
    for system in named {
        for (set, _) in articles.iter().filter(|(_, n)| **n > 0) {
            groups
                .entry((system != REFERENCE, system, set.as_str()))
                .or_default();
        }
    }
    let mut rows = Vec::new();
    let mut groups = groups.into_iter().peekable();
    while let Some(((nr, system, set), counts)) = groups.next() {
        // A system's sets, then its whole (`all`) when it has several.
        let mut mine = vec![(set, counts)];
        while let Some(((_, _, set), counts)) =
            groups.next_if(|((n, s, _), _)| (*n, *s) == (nr, system))
        {
            mine.push((set, counts));
        }
        let mut whole = Counts::default();
        let mut of = Some(0);
        let several = mine.len() > 1;
        for (set, counts) in mine {
            let articles = articles.get(set).copied();
            of = of.zip(articles).map(|(a, b)| a + b);
            if several {
                whole.merge(&counts);
            }
            rows.push(counts.row(system.to_string(), set.to_string(), articles, bootstrap));
        }
        if several {
            rows.push(whole.row(system.to_string(), ALL_SETS.to_string(), of, bootstrap));
        }
    }
    rows
}

#[derive(Debug, Default)]
struct Counts<'a> {
    summaries: u64,
    empty: u64,
    with_claim: u64,
    with_outdated: u64,
    with_never: u64,
    verdicts: BTreeMap<Verdict, u64>,
    relations: BTreeMap<&'a str, RelationCounts>,
}

#[derive(Debug, Default)]
struct RelationCounts {
    with_outdated: u64,
    with_never: u64,
    verdicts: BTreeMap<Verdict, u64>,
}

fn verdict_map(verdicts: &BTreeMap<Verdict, u64>) -> BTreeMap<String, u64> {
    Verdict::ALL
        .iter()
        .map(|v| {
            (
                v.as_str().to_string(),
                verdicts.get(v).copied().unwrap_or(0),
            )
        })
        .collect()
}

pub(crate) fn share(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        n as f64 / of as f64
    }
}

fn add_verdicts(to: &mut BTreeMap<Verdict, u64>, from: &BTreeMap<Verdict, u64>) {
    for (verdict, n) in from {
        *to.entry(*verdict).or_default() += n;
    }
}

impl<'a> Counts<'a> {
    /// Adds the counts of `other` (of other summaries).
    fn merge(&mut self, other: &Counts<'a>) {
        self.summaries += other.summaries;
        self.empty += other.empty;
        self.with_claim += other.with_claim;
        self.with_outdated += other.with_outdated;
        self.with_never += other.with_never;
        add_verdicts(&mut self.verdicts, &other.verdicts);
        for (relation, theirs) in &other.relations {
            let mine = self.relations.entry(relation).or_default();
            mine.with_outdated += theirs.with_outdated;
            mine.with_never += theirs.with_never;
            add_verdicts(&mut mine.verdicts, &theirs.verdicts);
        }
    }

    fn add(&mut self, score: &'a ScoredSummary) {
        self.summaries += 1;
        self.empty += u64::from(score.summary.trim().is_empty());
        self.with_claim += u64::from(!score.claims.is_empty());
        self.with_outdated += u64::from(score.has(Verdict::Outdated));
        self.with_never += u64::from(score.has(Verdict::Never));
        let mut seen: Vec<(&str, Verdict)> = Vec::new();
        for claim in &score.claims {
            *self.verdicts.entry(claim.verdict).or_default() += 1;
            let relation = claim.relation.as_deref().unwrap_or(UNRESOLVED);
            let counts = self.relations.entry(relation).or_default();
            *counts.verdicts.entry(claim.verdict).or_default() += 1;
            if !seen.contains(&(relation, claim.verdict)) {
                seen.push((relation, claim.verdict));
                counts.with_outdated += u64::from(claim.verdict == Verdict::Outdated);
                counts.with_never += u64::from(claim.verdict == Verdict::Never);
            }
        }
    }

    fn row(
        self,
        system: String,
        set: String,
        articles: Option<u64>,
        bootstrap: Option<&Bootstrap>,
    ) -> Row {
        let claims: u64 = self.verdicts.values().sum();
        let current = self.verdicts.get(&Verdict::Current).copied().unwrap_or(0);
        let summaries = self.summaries;
        let interval = |k: u64, rate: &str| {
            bootstrap.and_then(|b| b.rate(k, summaries, &[rate, &system, &set]))
        };
        Row {
            outdated_interval: interval(self.with_outdated, "outdated"),
            never_interval: interval(self.with_never, "never"),
            summaries,
            articles,
            coverage: articles.map(|of| share(summaries, of)),
            with_claim: self.with_claim,
            empty: self.empty,
            claims,
            verdicts: verdict_map(&self.verdicts),
            outdated_rate: share(self.with_outdated, summaries),
            never_rate: share(self.with_never, summaries),
            current_share: share(current, claims),
            system,
            set,
            relations: self
                .relations
                .into_iter()
                .map(|(relation, c)| {
                    let figures = RelationFigures {
                        claims: c.verdicts.values().sum(),
                        verdicts: verdict_map(&c.verdicts),
                        outdated_rate: share(c.with_outdated, summaries),
                        never_rate: share(c.with_never, summaries),
                    };
                    (relation.to_string(), figures)
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;
    use tempora_records::{Claim, ClaimEntity, Tense};

    /// The command to score again names the systems' files and names, and the
    /// facts file only when it is not the folder's own.
    #[test]
    fn scoring_again_names_the_files_and_facts_from_outside_the_folder() {
        let mut summary = Summary {
            facts: "facts.jsonl".into(),
            facts_sha256: String::new(),
            facts_read: 0,
            rows: Vec::new(),
            unmatched: Vec::new(),
            missing: Vec::new(),
            sets: Vec::new(),
            bootstrap: None,
            leaderboard: None,
            differences: Vec::new(),
            predictions: vec![PredictionsFile {
                system: "t5".into(),
                file: "t5.jsonl".into(),
                harness: None,
            }],
        };
        assert_eq!(
            summary.score_again(),
            "tempora score DIR --predictions t5.jsonl --system t5"
        );
        summary.facts = "/data/facts-2024.jsonl".into();
        assert_eq!(
            summary.score_again(),
            "tempora score DIR --predictions t5.jsonl --system t5 --facts /data/facts-2024.jsonl"
        );
    }

    fn claim(verdict: Verdict) -> Claim {
        let entity = ClaimEntity {
            id: None,
            label: "x".into(),
        };
        Claim {
            text: "x".into(),
            start: 0,
            end: 1,
            person: entity.clone(),
            position: entity,
            relation: Some("P39".into()),
            tense: Tense::Present,
            implied: false,
            verdict,
            reason: String::new(),
            holders_at_date: Vec::new(),
            evidence: Vec::new(),
        }
    }

    fn scored(system: &str, set: &str, verdicts: &[Verdict]) -> ScoredSummary {
        ScoredSummary {
            id: "1".into(),
            system: system.into(),
            set: Some(set.into()),
            published: NaiveDate::from_ymd_opt(2021, 1, 1).unwrap(),
            summary: String::new(),
            claims: verdicts.iter().map(|v| claim(*v)).collect(),
        }
    }

    #[test]
    fn rows_break_down_by_relation() {
        let mut sport = scored("a", "future", &[Verdict::Outdated, Verdict::Current]);
        sport.claims[0].relation = Some("P286".into());
        sport.claims[1].relation = None;
        let office = scored("a", "future", &[Verdict::Outdated]);
        let rows = rows([&sport, &office], [], &BTreeMap::new(), None);
        let row = &rows[0];
        assert_eq!(row.outdated_rate, 1.0);
        let coach = &row.relations["P286"];
        assert_eq!((coach.claims, coach.outdated_rate), (1, 0.5));
        assert_eq!(row.relations["P39"].verdicts["outdated"], 1);
        assert_eq!(row.relations[UNRESOLVED].verdicts["current"], 1);
    }

    #[test]
    fn rates_are_shares_of_summaries_and_the_reference_comes_first() {
        use Verdict::*;
        let scores = [
            scored("bart", "future", &[Outdated, Outdated, Current]),
            scored("bart", "future", &[]),
            scored("bart", "future", &[Never]),
            scored("bart", "future", &[Current]),
            scored("bart", "in_distribution", &[Current]),
            scored("reference", "future", &[Current]),
        ];
        let rows = rows(&scores, [], &BTreeMap::new(), None);
        let names: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.system.as_str(), r.set.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("reference", "future"),
                ("bart", "future"),
                ("bart", "in_distribution"),
                ("bart", "all")
            ]
        );
        let future = &rows[1];
        assert_eq!(
            (future.summaries, future.with_claim, future.claims),
            (4, 3, 5)
        );
        assert_eq!(
            future.outdated_rate, 0.25,
            "one summary of four, however many claims"
        );
        assert_eq!(future.never_rate, 0.25);
        assert_eq!(future.current_share, 2.0 / 5.0);
        assert_eq!(rows[3].summaries, 5);
    }
}
