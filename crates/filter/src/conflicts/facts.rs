//! Where the evolving facts come from (a side input or a facts JSONL file), and
//! the checks that tie them to the pipeline's cutoff. Shared by every stage that
//! takes facts (`conflicts`, `minimal-pairs`): the same options, the same checks.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use tempora_engine::{OptionError, SideInput, SideInputs, StageError};
use tempora_records::{Fact, Record, RecordKind};

use crate::error::FilterError;

/// A fact and where it came from (`file:line` or the side input's record number).
pub type SourcedFact = (String, Fact);

/// The side input key (and option name) of the facts.
pub const FACTS: &str = "facts";

/// Where a stage takes its facts from: its `facts` (a stage) and `facts_file`
/// options, exactly one of which is given.
#[derive(Debug, Clone, Copy)]
pub struct FactsOrigin<'a> {
    /// The `facts` option: a stage whose whole output is the facts.
    pub stage: Option<&'a str>,
    /// The `facts_file` option: a facts JSONL file.
    pub file: Option<&'a Path>,
}

impl FactsOrigin<'_> {
    /// Both or neither of the options given: one error naming the key.
    pub fn check(&self) -> Option<OptionError> {
        match (self.stage, self.file) {
            (Some(_), Some(_)) => Some(OptionError {
                key: Some("facts_file".into()),
                message: "give either `facts` (a stage) or `facts_file`, not both".into(),
            }),
            (None, None) => Some(OptionError {
                key: Some(FACTS.into()),
                message: "missing: name the stage with the evolving facts (`facts = \"facts\"`) or give `facts_file`".into(),
            }),
            _ => None,
        }
    }

    /// The side input to wire, when the facts come from a stage.
    pub fn side_inputs(&self) -> Vec<SideInput> {
        self.stage
            .iter()
            .map(|from| SideInput {
                key: FACTS.into(),
                from: (*from).to_string(),
                kind: RecordKind::Fact,
            })
            .collect()
    }

    /// The file that must exist, when the facts come from a file.
    pub fn reads(&self) -> Vec<(String, PathBuf)> {
        self.file
            .iter()
            .map(|p| ("facts_file".to_string(), p.to_path_buf()))
            .collect()
    }

    /// Every fact, each with where it came from.
    ///
    /// # Errors
    /// An unreadable facts file or a line that is not a fact (an input error naming
    /// file and line); a side input that was not wired or carried other records.
    pub fn load(&self, side: &mut SideInputs) -> Result<Vec<SourcedFact>, StageError> {
        if let Some(path) = self.file {
            return Ok(read_facts_file(path)?);
        }
        let from = self.stage.unwrap_or(FACTS);
        side.take(FACTS)?
            .into_iter()
            .enumerate()
            .map(|(i, record)| match record {
                Record::Fact(f) => Ok((format!("side input `{from}`, fact #{}", i + 1), *f)),
                other => Err(StageError::internal(format!(
                    "side input `{from}` carried a {} record",
                    other.kind()
                ))),
            })
            .collect()
    }
}

/// Reads a facts JSONL file: one [`Fact`] per line, blank lines skipped.
///
/// # Errors
/// When the file cannot be read or a line is not a fact (naming file, line and field).
pub fn read_facts_file(path: &Path) -> Result<Vec<SourcedFact>, FilterError> {
    let read_error = |source| FilterError::Read {
        path: path.to_path_buf(),
        source,
    };
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        return Err(read_error(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "facts files are read as JSONL; write them with `tempora facts -o FILE.jsonl`",
        )));
    }
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut facts = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(read_error)?;
        if line.trim().is_empty() {
            continue;
        }
        let fact = serde_json::from_str(&line).map_err(|source| FilterError::FactLine {
            path: path.to_path_buf(),
            line: i + 1,
            source,
        })?;
        facts.push((format!("{}:{}", path.display(), i + 1), fact));
    }
    Ok(facts)
}

/// A fact of an evolving pair, with the day its pair changed.
#[derive(Debug, Clone)]
pub struct EvolvingFact {
    /// The fact.
    pub fact: Fact,
    /// First possible day of `pair_changed`.
    pub changed: NaiveDate,
}

/// Keeps the evolving facts (those with a `pair_changed`) and checks that each
/// changed after `cutoff`: a change on or before it means the facts were computed
/// for another cutoff, and the selection would silently disagree with the split.
///
/// # Errors
/// A `pair_changed` that is not a date, or on or before the cutoff.
pub fn evolving_facts(
    facts: Vec<SourcedFact>,
    cutoff: NaiveDate,
) -> Result<Vec<EvolvingFact>, FilterError> {
    let mut evolving = Vec::with_capacity(facts.len());
    for (origin, fact) in facts {
        let Some(value) = fact.pair_changed.as_deref() else {
            continue;
        };
        let Some(changed) = first_day(value) else {
            return Err(FilterError::BadDate {
                origin,
                value: value.to_string(),
            });
        };
        if changed <= cutoff {
            return Err(FilterError::StaleFacts {
                origin,
                subject: fact.subject.id.clone(),
                relation: fact.relation.clone(),
                object: fact.object.id.clone(),
                changed: value.to_string(),
                cutoff,
            });
        }
        evolving.push(EvolvingFact { fact, changed });
    }
    Ok(evolving)
}

/// The first day of an ISO date cut to its precision: `2021` -> 2021-01-01,
/// `2021-03` -> 2021-03-01, `2021-03-04`. The same rule as the evolving-pair
/// test: a coarse date counts as its earliest possible day.
pub fn first_day(value: &str) -> Option<NaiveDate> {
    let mut parts = value.trim().splitn(3, '-');
    let year: i32 = parts.next()?.parse().ok()?;
    let month: u32 = parts.next().map_or(Some(1), |m| m.parse().ok())?;
    let day: u32 = parts.next().map_or(Some(1), |d| d.parse().ok())?;
    // `00` month or day parts mean "unknown" in Wikidata: the earliest day again.
    NaiveDate::from_ymd_opt(year, month.max(1), day.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempora_records::EntityRef;

    fn fact(changed: Option<&str>) -> SourcedFact {
        let entity = |id: &str| EntityRef {
            id: id.into(),
            label: None,
            aliases: Vec::new(),
        };
        (
            "facts.jsonl:3".into(),
            Fact {
                subject: entity("Q1"),
                relation: "P39".into(),
                object: entity("Q2"),
                start: None,
                end: None,
                replaces: None,
                replaced_by: None,
                rank: "normal".into(),
                valid_at_cutoff: false,
                pair_changed: changed.map(str::to_string),
            },
        )
    }

    #[test]
    fn first_day_reads_every_precision() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert_eq!(first_day("2021"), Some(d("2021-01-01")));
        assert_eq!(first_day("2021-03"), Some(d("2021-03-01")));
        assert_eq!(first_day("2021-03-04"), Some(d("2021-03-04")));
        assert_eq!(first_day("2021-00-00"), Some(d("2021-01-01")));
        assert_eq!(first_day("2021-02-30"), None);
        assert_eq!(first_day("soon"), None);
    }

    #[test]
    fn only_facts_of_evolving_pairs_are_kept() {
        let cutoff = first_day("2019-12-31").unwrap();
        let kept = evolving_facts(vec![fact(None), fact(Some("2020-05"))], cutoff).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].changed, first_day("2020-05-01").unwrap());
    }

    #[test]
    fn a_change_before_the_cutoff_means_another_cutoff() {
        let cutoff = first_day("2020-06-30").unwrap();
        let err = evolving_facts(vec![fact(Some("2020-01-20"))], cutoff).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("facts.jsonl:3: fact Q1 P39 Q2 changed on 2020-01-20"),
            "{msg}"
        );
        assert!(msg.contains("--cutoff 2020-06-30"), "{msg}");
        let err = evolving_facts(vec![fact(Some("20x1"))], cutoff).unwrap_err();
        assert!(err.to_string().contains("`20x1`"), "{err}");
    }
}
