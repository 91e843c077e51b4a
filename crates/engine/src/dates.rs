//! Dates relative to the run: a cutoff, a set's window or a release month
//! written as a day counted from the run (`run - 365 days`,
//! `run_month - 1 month`, `release_end`), so a pipeline run from cron needs no
//! date arithmetic of its own.
//!
//! A relative date is an anchor followed by zero or more offsets, each `+ N
//! UNIT` or `- N UNIT` (UNIT: `day(s)`, `week(s)`, `month(s)`, `year(s)`),
//! applied left to right; a month's arithmetic clamps to its last day
//! (`2026-03-31` less a month is `2026-02-28`). The anchors: `run`, the run
//! day; `run_month`, the first day of its month; `release_start` and
//! `release_end`, the first and last day of `[pipeline.release] month`.
//!
//! They are resolved once, before the file is planned
//! ([`PipelineFile::resolve_dates`]), by writing the days into the pipeline's
//! table in place: every later reader (the windows, the fingerprint, `run.json`'s
//! `config`, the manifest's pinned pipeline, a rebuild, the card) sees plain
//! dates, and [`RunDates`] records what was written and what it became.

use std::fmt;

use chrono::{Datelike, Days, Months, NaiveDate};
use serde::{Deserialize, Serialize};

use crate::config::{looks_like_date, PipelineFile};
use crate::error::ConfigError;

/// The day a run resolves its relative dates against, and what they became:
/// `run.json`'s `dates`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDates {
    /// The run day (UTC): today, or the day the command line or an earlier
    /// attempt of the same release gave.
    pub run_day: NaiveDate,
    /// Every date written relative to the run, in the order resolved (the
    /// release month first, then the cutoff, then the sets in file order);
    /// empty when none was.
    pub relative: Vec<ResolvedDate>,
}

/// One date written relative to the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedDate {
    /// Its key path (`pipeline.sets.future.from`).
    pub key: String,
    /// As written (`run_month - 1 month`).
    pub written: String,
    /// What it became: a day (`YYYY-MM-DD`), or a month (`YYYY-MM`) for
    /// `pipeline.release.month`.
    pub value: String,
}

impl RunDates {
    /// `pipeline.cutoff` = `run - 365 days` -> 2025-11-29, one per relative date.
    pub fn lines(&self) -> Vec<String> {
        self.relative
            .iter()
            .map(|d| format!("`{}` = `{}` -> {}", d.key, d.written, d.value))
            .collect()
    }
}

impl fmt::Display for RunDates {
    /// `run day 2026-11-29; pipeline.cutoff = run - 365 days -> 2025-11-29`, or
    /// `run day 2026-11-29, no date relative to it`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "run day {}", self.run_day)?;
        if self.relative.is_empty() {
            return f.write_str(", no date relative to it");
        }
        write!(f, "; {}", self.lines().join("; "))
    }
}

/// What a relative date counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The run day.
    Run,
    /// The first day of the run day's month.
    RunMonth,
    /// The first day of the release month (`[pipeline.release] month`).
    ReleaseStart,
    /// The last day of the release month.
    ReleaseEnd,
}

impl Anchor {
    const ALL: [Self; 4] = [
        Self::Run,
        Self::RunMonth,
        Self::ReleaseStart,
        Self::ReleaseEnd,
    ];

    /// Its name as written.
    pub fn name(self) -> &'static str {
        match self {
            Self::Run => "run",
            Self::RunMonth => "run_month",
            Self::ReleaseStart => "release_start",
            Self::ReleaseEnd => "release_end",
        }
    }

    fn named(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == word)
    }
}

/// The unit of an offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `day`, `days`.
    Day,
    /// `week`, `weeks`: seven days.
    Week,
    /// `month`, `months`: the same day of another month, or its last day.
    Month,
    /// `year`, `years`: twelve months.
    Year,
}

impl Unit {
    fn named(word: &str) -> Option<Self> {
        match word {
            "day" | "days" => Some(Self::Day),
            "week" | "weeks" => Some(Self::Week),
            "month" | "months" => Some(Self::Month),
            "year" | "years" => Some(Self::Year),
            _ => None,
        }
    }
}

/// `+ N UNIT` or `- N UNIT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offset {
    /// `-`: back in time.
    pub back: bool,
    /// N.
    pub count: u32,
    /// UNIT.
    pub unit: Unit,
}

impl Offset {
    /// `day` moved by the offset; `None` past the calendar's range.
    fn apply(self, day: NaiveDate) -> Option<NaiveDate> {
        let days = |n: u64| {
            if self.back {
                day.checked_sub_days(Days::new(n))
            } else {
                day.checked_add_days(Days::new(n))
            }
        };
        let months = |n: u32| {
            if self.back {
                day.checked_sub_months(Months::new(n))
            } else {
                day.checked_add_months(Months::new(n))
            }
        };
        match self.unit {
            Unit::Day => days(u64::from(self.count)),
            Unit::Week => days(u64::from(self.count) * 7),
            Unit::Month => months(self.count),
            Unit::Year => months(self.count.checked_mul(12)?),
        }
    }
}

/// A date relative to the run, as parsed: its anchor and offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelativeDate {
    /// What it counts from.
    pub anchor: Anchor,
    /// Applied left to right.
    pub offsets: Vec<Offset>,
}

/// The days the anchors stand for in one run.
#[derive(Debug, Clone)]
pub struct Anchors {
    /// The run day.
    pub run: NaiveDate,
    /// The first day of the release month, or why there is none to count from.
    pub release: Result<NaiveDate, String>,
}

impl RelativeDate {
    /// The day it stands for under `anchors`.
    ///
    /// # Errors
    /// A release anchor without a release month, a day out of the calendar's range.
    pub fn resolve(&self, anchors: &Anchors) -> Result<NaiveDate, String> {
        let start = match self.anchor {
            Anchor::Run => anchors.run,
            Anchor::RunMonth => first_of_month(anchors.run),
            Anchor::ReleaseStart => anchors.release.clone()?,
            Anchor::ReleaseEnd => {
                let first = anchors.release.clone()?;
                last_of_month(first).ok_or("the release month is out of the calendar's range")?
            }
        };
        self.offsets
            .iter()
            .try_fold(start, |day, o| o.apply(day))
            .ok_or_else(|| "it falls outside the calendar's range".to_string())
    }
}

impl std::str::FromStr for RelativeDate {
    type Err = String;

    /// `ANCHOR`, then `+ N UNIT` / `- N UNIT` any number of times (spaces
    /// between the parts are optional: `run-30days`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let tokens = tokens(text)?;
        let mut tokens = tokens.into_iter();
        let anchor = match tokens.next() {
            Some(Token::Word(w)) => Anchor::named(w).ok_or_else(|| {
                format!(
                    "`{w}` is not an anchor (`run`, `run_month`, `release_start`, `release_end`)"
                )
            })?,
            Some(other) => return Err(format!("it begins with `{other}`, not an anchor")),
            None => return Err("it is empty".into()),
        };
        let mut offsets = Vec::new();
        while let Some(sign) = tokens.next() {
            let back = match sign {
                Token::Plus => false,
                Token::Minus => true,
                other => return Err(format!("`{other}` where `+` or `-` was expected")),
            };
            let count = match tokens.next() {
                Some(Token::Number(n)) => n
                    .parse::<u32>()
                    .map_err(|_| format!("`{n}` is too large a number"))?,
                Some(other) => return Err(format!("`{other}` after `{sign}`, not a number")),
                None => return Err(format!("no number after `{sign}`")),
            };
            let unit = match tokens.next() {
                Some(Token::Word(w)) => Unit::named(w)
                    .ok_or_else(|| format!("`{w}` is not a unit (days, weeks, months or years)"))?,
                _ => {
                    return Err(format!(
                        "no unit after `{count}` (days, weeks, months or years)"
                    ))
                }
            };
            offsets.push(Offset { back, count, unit });
        }
        Ok(Self { anchor, offsets })
    }
}

#[derive(Debug, Clone, Copy)]
enum Token<'a> {
    Word(&'a str),
    Number(&'a str),
    Plus,
    Minus,
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Word(s) | Self::Number(s) => f.write_str(s),
            Self::Plus => f.write_str("+"),
            Self::Minus => f.write_str("-"),
        }
    }
}

/// Words (`run_month`, `days`), numbers and signs; spaces only separate.
fn tokens(text: &str) -> Result<Vec<Token<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while let Some(c) = rest.chars().next() {
        let end = |more: fn(char) -> bool| rest.find(|c: char| !more(c)).unwrap_or(rest.len());
        let (token, len) = match c {
            '+' => (Token::Plus, 1),
            '-' => (Token::Minus, 1),
            '0'..='9' => {
                let len = end(|c| c.is_ascii_digit());
                (Token::Number(&rest[..len]), len)
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let len = end(|c| c.is_ascii_alphabetic() || c == '_');
                (Token::Word(&rest[..len]), len)
            }
            c => return Err(format!("`{c}` has no place in a date")),
        };
        out.push(token);
        rest = rest[len..].trim_start();
    }
    Ok(out)
}

/// Whether `text` begins with an anchor's name: meant as a relative date.
fn begins_with_anchor(text: &str) -> bool {
    matches!(tokens(text).as_deref(), Ok([Token::Word(w), ..]) if Anchor::named(w).is_some())
}

/// Where a date is written: which plain forms and anchors it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// `pipeline.cutoff`.
    Cutoff,
    /// `pipeline.sets.NAME.from` / `.to`.
    SetBound,
    /// `pipeline.release.month`.
    Month,
}

impl Place {
    fn anchors(self) -> &'static [Anchor] {
        match self {
            Self::Cutoff | Self::SetBound => &Anchor::ALL,
            Self::Month => &[Anchor::Run, Anchor::RunMonth],
        }
    }

    /// Written as a plain value, which the readers of the key check.
    fn is_plain(self, text: &str) -> bool {
        match self {
            Self::Cutoff => looks_like_date(text),
            Self::SetBound => looks_like_date(text) || text == "cutoff" || text == "after_cutoff",
            Self::Month => looks_like_month(text),
        }
    }

    /// The day as the key holds it once resolved.
    fn value(self, day: NaiveDate) -> String {
        match self {
            Self::Month => day.format("%Y-%m").to_string(),
            Self::Cutoff | Self::SetBound => day.to_string(),
        }
    }

    /// The forms the key takes, for a message.
    fn forms(self) -> String {
        let anchors: Vec<String> = self
            .anchors()
            .iter()
            .map(|a| format!("`{}`", a.name()))
            .collect();
        let relative = format!(
            "an anchor ({}) followed by any number of `+ N` or `- N` days, weeks, months or years",
            anchors.join(", ")
        );
        match self {
            Self::Cutoff => format!("YYYY-MM-DD, or {relative} (`run - 365 days`)"),
            Self::SetBound => {
                format!("YYYY-MM-DD, `cutoff`, `after_cutoff`, or {relative} (`run_month - 1 day`)")
            }
            Self::Month => format!("YYYY-MM, or {relative}: its month (`run_month - 1 month`)"),
        }
    }
}

/// The forms a date bound of a set takes, for the messages of readers that
/// meet one not resolved.
pub fn bound_forms() -> String {
    Place::SetBound.forms()
}

/// The forms `pipeline.cutoff` takes.
pub fn cutoff_forms() -> String {
    Place::Cutoff.forms()
}

fn first_of_month(day: NaiveDate) -> NaiveDate {
    day.with_day(1).unwrap_or(day)
}

fn last_of_month(first: NaiveDate) -> Option<NaiveDate> {
    first
        .checked_add_months(Months::new(1))?
        .checked_sub_days(Days::new(1))
}

/// `dddd-dd`: meant as a month.
fn looks_like_month(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 7
        && b[4] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || c.is_ascii_digit())
}

/// The first day of a month written `YYYY-MM`.
fn month_start(text: &str) -> Option<NaiveDate> {
    let (year, month) = text.split_once('-')?;
    NaiveDate::from_ymd_opt(year.parse().ok()?, month.parse().ok()?, 1)
}

impl PipelineFile {
    /// Resolves every date written relative to the run (`pipeline.release.month`,
    /// `pipeline.cutoff`, `pipeline.sets.*.from/to`) against the run day `day`,
    /// writing the resolved value in the table in place, and records what it did
    /// ([`PipelineFile::dates`], also returned). Plain values are left to their
    /// readers. A value already found wrong (an unset `${VAR}`) is left as it is.
    ///
    /// Call it once, on the file as loaded: a second call finds plain dates and
    /// records none. To resolve against another day, resolve a copy of the file
    /// as loaded.
    ///
    /// Problems (an unreadable expression, a release anchor without a release
    /// month) go to [`PipelineFile::problems`], each at its key path.
    pub fn resolve_dates(&mut self, day: NaiveDate) -> RunDates {
        let mut resolver = Resolver {
            anchors: Anchors {
                run: day,
                release: Err(String::new()),
            },
            relative: Vec::new(),
            problems: Vec::new(),
            known: &self.problems,
        };
        if let Some(pipeline) = self
            .table
            .get_mut("pipeline")
            .and_then(toml::Value::as_table_mut)
        {
            resolver.pipeline(pipeline);
        }
        let dates = RunDates {
            run_day: day,
            relative: resolver.relative,
        };
        self.problems.extend(resolver.problems);
        self.dates = Some(dates.clone());
        dates
    }
}

/// One resolution of a pipeline table's dates.
struct Resolver<'a> {
    anchors: Anchors,
    relative: Vec<ResolvedDate>,
    problems: Vec<ConfigError>,
    /// The problems the file already has: their keys are left alone.
    known: &'a [ConfigError],
}

impl Resolver<'_> {
    fn pipeline(&mut self, pipeline: &mut toml::Table) {
        self.anchors.release = self.release_month(pipeline);
        if let Some(value) = pipeline.get_mut("cutoff") {
            self.resolve(value, "cutoff", Place::Cutoff);
        }
        let sets = pipeline.get_mut("sets").and_then(toml::Value::as_table_mut);
        for (name, set) in sets.into_iter().flatten() {
            let Some(set) = set.as_table_mut() else {
                continue;
            };
            for end in ["from", "to"] {
                if let Some(value) = set.get_mut(end) {
                    self.resolve(value, &format!("sets.{name}.{end}"), Place::SetBound);
                }
            }
        }
    }

    /// Resolves `[pipeline.release] month` and gives its first day, or why the
    /// release anchors have nothing to count from.
    fn release_month(&mut self, pipeline: &mut toml::Table) -> Result<NaiveDate, String> {
        let month = pipeline
            .get_mut("release")
            .and_then(toml::Value::as_table_mut)
            .and_then(|release| release.get_mut("month"));
        let Some(month) = month else {
            return Err(
                "it counts from `[pipeline.release] month`, which the file does not set".into(),
            );
        };
        self.resolve(month, "release.month", Place::Month);
        let unreadable = || {
            "it counts from `[pipeline.release] month`, which is not a month (YYYY-MM)".to_string()
        };
        month.as_str().and_then(month_start).ok_or_else(unreadable)
    }

    /// Resolves the value at `key` (under `[pipeline]`) when it is written
    /// relative to the run.
    fn resolve(&mut self, value: &mut toml::Value, key: &str, place: Place) {
        let toml::Value::String(written) = value else {
            return;
        };
        let path = format!("pipeline.{key}");
        let known = self
            .known
            .iter()
            .any(|p| p.path().is_some_and(|p| p == path));
        if known || place.is_plain(written) {
            return;
        }
        let parsed = written.parse::<RelativeDate>().and_then(|date| {
            if place.anchors().contains(&date.anchor) {
                Ok(date)
            } else {
                Err(format!("`{}` has no place here", date.anchor.name()))
            }
        });
        let message = match parsed {
            // Past its anchor, say what stops the reading; before, the forms say it.
            Err(why) if begins_with_anchor(written) => {
                format!("`{written}` is not a date ({why}): write {}", place.forms())
            }
            Err(_) => format!("`{written}` is not a date: write {}", place.forms()),
            Ok(date) => match date.resolve(&self.anchors) {
                Ok(day) => {
                    let resolved = place.value(day);
                    self.relative.push(ResolvedDate {
                        key: path,
                        written: written.clone(),
                        value: resolved.clone(),
                    });
                    *written = resolved;
                    return;
                }
                Err(why) => format!("`{written}`: {why}"),
            },
        };
        self.problems.push(ConfigError::pipeline(key, message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    /// `text` resolved on run day `run`, with release month `release` (YYYY-MM).
    fn on(text: &str, run: &str, release: Option<&str>) -> Result<NaiveDate, String> {
        let anchors = Anchors {
            run: day(run),
            release: release
                .and_then(month_start)
                .ok_or_else(|| "no month".to_string()),
        };
        text.parse::<RelativeDate>()?.resolve(&anchors)
    }

    #[test]
    fn each_anchor_stands_for_its_day() {
        let run = "2026-11-29";
        assert_eq!(on("run", run, None), Ok(day("2026-11-29")));
        assert_eq!(on("run_month", run, None), Ok(day("2026-11-01")));
        assert_eq!(
            on("release_start", run, Some("2024-02")),
            Ok(day("2024-02-01"))
        );
        // A leap February ends on the 29th.
        assert_eq!(
            on("release_end", run, Some("2024-02")),
            Ok(day("2024-02-29"))
        );
        assert_eq!(
            on("release_end", run, Some("2026-12")),
            Ok(day("2026-12-31"))
        );
        let none = on("release_end", run, None).unwrap_err();
        assert_eq!(none, "no month");
    }

    #[test]
    fn offsets_chain_left_to_right_and_months_clamp_to_their_end() {
        for (text, run, want) in [
            ("run - 365 days", "2026-11-29", "2025-11-29"),
            ("run_month - 1 day", "2026-03-15", "2026-02-28"),
            ("run - 1 month", "2026-03-31", "2026-02-28"),
            ("run + 1 year", "2024-02-29", "2025-02-28"),
            ("run + 2 weeks", "2026-12-25", "2027-01-08"),
            // Chained: the month before the run, then its last day.
            (
                "run_month - 1 month + 1 month - 1 day",
                "2026-03-15",
                "2026-02-28",
            ),
            // Spaces are optional, singular and plural units alike.
            ("run-30days", "2026-01-10", "2025-12-11"),
            (" run +1 days ", "2026-01-10", "2026-01-11"),
        ] {
            assert_eq!(on(text, run, None), Ok(day(want)), "{text:?} on {run}");
        }
        let far = on("run + 4000000000 days", "2026-01-10", None).unwrap_err();
        assert!(far.contains("calendar's range"), "{far}");
        let huge = on("run - 99999999999 days", "2026-01-10", None).unwrap_err();
        assert!(huge.contains("too large"), "{huge}");
    }

    #[test]
    fn a_form_that_cannot_be_read_says_where_it_stops() {
        for (text, says) in [
            ("run_month - x", "`x` after `-`, not a number"),
            ("run - 3", "no unit after `3`"),
            ("run - 3 fortnights", "`fortnights` is not a unit"),
            ("run 3 days", "`3` where `+` or `-` was expected"),
            ("run -", "no number after `-`"),
            ("today", "`today` is not an anchor"),
            ("-30days", "begins with `-`"),
            ("run * 2", "`*` has no place"),
            ("", "empty"),
        ] {
            let why = text.parse::<RelativeDate>().unwrap_err();
            assert!(why.contains(says), "{text}: {why}");
        }
    }

    fn file(text: &str, sets: &[&str]) -> PipelineFile {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        PipelineFile::parse("p.toml", text, &sets).unwrap()
    }

    #[test]
    fn the_table_is_rewritten_in_place_and_the_rewriting_recorded() {
        let mut f = file(
            "[pipeline]\ncutoff = \"run - 365 days\"\n\
             [pipeline.sets]\nold = { from = 2010-01-01, to = \"cutoff\" }\n\
             future = { from = \"release_start\", to = \"release_end\" }\n\
             [pipeline.release]\nmonth = \"run_month - 1 month\"\n",
            &[],
        );
        let dates = f.resolve_dates(day("2026-03-15"));
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        let pipeline = &f.table["pipeline"];
        assert_eq!(pipeline["cutoff"].as_str(), Some("2025-03-15"));
        assert_eq!(pipeline["sets"]["old"]["to"].as_str(), Some("cutoff"));
        assert_eq!(
            pipeline["sets"]["future"]["from"].as_str(),
            Some("2026-02-01")
        );
        assert_eq!(
            pipeline["sets"]["future"]["to"].as_str(),
            Some("2026-02-28")
        );
        assert_eq!(pipeline["release"]["month"].as_str(), Some("2026-02"));
        let said: Vec<(&str, &str, &str)> = dates
            .relative
            .iter()
            .map(|d| (d.key.as_str(), d.written.as_str(), d.value.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                ("pipeline.release.month", "run_month - 1 month", "2026-02"),
                ("pipeline.cutoff", "run - 365 days", "2025-03-15"),
                ("pipeline.sets.future.from", "release_start", "2026-02-01"),
                ("pipeline.sets.future.to", "release_end", "2026-02-28"),
            ]
        );
        assert_eq!(dates.run_day, day("2026-03-15"));
        assert_eq!(f.dates.as_ref(), Some(&dates));
        // Once resolved, the settings read plain dates.
        assert_eq!(f.settings().unwrap().cutoff, day("2025-03-15"));
        // A second resolution finds nothing relative left.
        assert!(f.resolve_dates(day("2027-01-01")).relative.is_empty());
    }

    #[test]
    fn plain_dates_are_left_to_their_readers_and_recorded_as_none() {
        let text = "[pipeline]\ncutoff = 2019-12-31\n[pipeline.sets]\nfuture = { from = \"after_cutoff\" }\n";
        let mut f = file(text, &[]);
        let before = f.table.clone();
        let dates = f.resolve_dates(day("2026-11-29"));
        assert!(dates.relative.is_empty() && f.problems.is_empty());
        assert_eq!(f.table, before);
        assert_eq!(
            serde_json::to_value(&dates).unwrap(),
            serde_json::json!({ "run_day": "2026-11-29", "relative": [] })
        );
    }

    #[test]
    fn a_bad_expression_is_a_problem_at_its_key_path_with_the_forms() {
        let mut f = file(
            "[pipeline]\ncutoff = \"yesterday\"\n[pipeline.sets]\nfuture = { from = \"run_month - x\" }\n\
             [pipeline.release]\nmonth = \"release_start\"\n",
            &[],
        );
        f.resolve_dates(day("2026-11-29"));
        let all: Vec<String> = f.problems.iter().map(ToString::to_string).collect();
        assert_eq!(all.len(), 3, "{all:?}");
        assert!(all[0].starts_with("pipeline.release.month: `release_start` is not a date (`release_start` has no place here): write YYYY-MM, or an anchor (`run`, `run_month`)"), "{all:?}");
        assert!(all[1].starts_with("pipeline.cutoff: `yesterday` is not a date: write YYYY-MM-DD, or an anchor (`run`, `run_month`, `release_start`, `release_end`) followed by"), "{all:?}");
        assert!(all[2].starts_with("pipeline.sets.future.from: `run_month - x` is not a date (`x` after `-`, not a number): write YYYY-MM-DD, `cutoff`, `after_cutoff`, or an anchor"), "{all:?}");
        // Left as written for the record of the refusal.
        assert_eq!(f.table["pipeline"]["cutoff"].as_str(), Some("yesterday"));
    }

    #[test]
    fn a_release_anchor_without_a_release_month_names_the_key() {
        let mut f = file("[pipeline]\ncutoff = \"release_start - 1 day\"\n", &[]);
        f.resolve_dates(day("2026-11-29"));
        let all: Vec<String> = f.problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            all,
            ["pipeline.cutoff: `release_start - 1 day`: it counts from `[pipeline.release] month`, which the file does not set"]
        );
        let mut f = file(
            "[pipeline]\ncutoff = \"release_end\"\n[pipeline.release]\nmonth = \"2026-13\"\n",
            &[],
        );
        f.resolve_dates(day("2026-11-29"));
        assert!(
            f.problems[0]
                .to_string()
                .contains("which is not a month (YYYY-MM)"),
            "{:?}",
            f.problems
        );
    }

    #[test]
    fn a_value_already_found_wrong_is_not_reported_twice() {
        let mut f = file(
            "[pipeline]\ncutoff = \"${TEMPORA_TEST_UNSET_CUTOFF}\"\n",
            &[],
        );
        assert_eq!(f.problems.len(), 1);
        f.resolve_dates(day("2026-11-29"));
        assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    }

    const STAGES: &str = "[stages.sink]\nkind = \"test-count\"\ninputs = [\"gen\"]\n\
                          [stages.gen]\nkind = \"test-generate\"\ncount = 1\n";

    #[test]
    fn the_plan_reads_the_resolved_dates_and_refuses_a_bad_one_once() {
        let registry = crate::Registry::new(crate::test_kinds());
        let mut f = file(
            &format!("[pipeline]\ncutoff = \"run_month - 1 day\"\n{STAGES}"),
            &[],
        );
        f.resolve_dates(day("2026-03-15"));
        let (plan, problems) = crate::Plan::draft(f, &registry).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(plan.context.cutoff, day("2026-02-28"));
        assert_eq!(plan.dates.unwrap().relative[0].value, "2026-02-28");

        let mut f = file(&format!("[pipeline]\ncutoff = \"run - x\"\n{STAGES}"), &[]);
        f.resolve_dates(day("2026-03-15"));
        let errors = crate::Plan::draft(f, &registry).err().unwrap().to_string();
        assert_eq!(errors.matches("pipeline.cutoff").count(), 1, "{errors}");
        assert!(
            errors.contains("line 2: pipeline.cutoff: `run - x` is not a date (`x` after `-`"),
            "{errors}"
        );
    }

    #[test]
    fn an_override_may_be_relative_and_is_resolved_too() {
        let mut f = file(
            "[pipeline]\ncutoff = 2019-12-31\n",
            &["pipeline.cutoff=\"run - 3650 days\""],
        );
        let dates = f.resolve_dates(day("2026-11-29"));
        assert_eq!(dates.relative[0].value, "2016-12-01");
        assert_eq!(
            dates.to_string(),
            "run day 2026-11-29; `pipeline.cutoff` = `run - 3650 days` -> 2016-12-01"
        );
    }
}
