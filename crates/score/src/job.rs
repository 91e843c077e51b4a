//! A scoring job: the summaries of every system joined to their articles (a set's
//! files) or carrying their own dates, judged, and written out.
//!
//! Files written to the output folder, each atomically (a temporary name renamed
//! into place): `scores.jsonl` and `scores.parquet` (one [`ScoredSummary`] per
//! summary, sorted by system, set, date and id, so the bytes never depend on the
//! order of the inputs), `summary.json` ([`Summary`]) and `scores.md` (the table).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Deserialize;
use tempora_engine::atomic_file::AtomicFile;
use tempora_records::{Fact, FactMatch, Record, RecordKind, ScoredSummary};

use crate::bootstrap::Bootstrap;
use crate::compare;
use crate::inputs::{read_lines, FactsFile, SetFile};
use crate::predictions::{Prediction, ReadFile};
use crate::tables::{self, Missing, PredictionsFile, Summary, Unmatched};
use crate::{Context, Judge, ScoreError};

/// The system name of a set's own summaries, scored as a control.
pub const REFERENCE: &str = "reference";

/// An article of a set, as far as scoring reads it.
#[derive(Debug, Clone, Deserialize)]
pub struct SetArticle {
    /// The article's id.
    pub id: String,
    /// Its publication date.
    pub published: NaiveDate,
    /// Its reference summary.
    pub summary: String,
    /// Its body.
    #[serde(default)]
    pub document: String,
    /// The evolving facts it names.
    #[serde(default)]
    pub facts: Vec<FactMatch>,
    /// The set it belongs to (the file's stem).
    #[serde(skip)]
    pub set: String,
}

/// A file of a set: its name (`future`) and path; JSON lines or Parquet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetPart {
    /// The set's name.
    pub name: String,
    /// The file.
    pub path: PathBuf,
}

/// Reads the articles of a set's files, by id.
///
/// # Errors
/// A file that cannot be read, a line that is not an article (naming file, line and
/// field), an id in two files.
pub fn read_set(parts: &[SetPart]) -> Result<BTreeMap<String, SetArticle>, ScoreError> {
    let mut articles: BTreeMap<String, SetArticle> = BTreeMap::new();
    let mut origin: HashMap<String, String> = HashMap::new();
    for part in parts {
        let path = &part.path;
        let lines = read_lines(path)?;
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let mut article: SetArticle =
                serde_json::from_str(line).map_err(|e| ScoreError::Line {
                    path: path.clone(),
                    line: i + 1,
                    message: format!("not an article: {e}"),
                })?;
            article.set.clone_from(&part.name);
            let here = format!("{}:{}", path.display(), i + 1);
            if let Some(first) = origin.insert(article.id.clone(), here) {
                return Err(ScoreError::Line {
                    path: path.clone(),
                    line: i + 1,
                    message: format!("article {:?} again (first at {first})", article.id),
                });
            }
            articles.insert(article.id.clone(), article);
        }
    }
    Ok(articles)
}

/// Reads a facts file: JSON lines of facts (`tempora facts -o FILE.jsonl`, a
/// pipeline's `facts.jsonl` or `manifest.facts.jsonl`), or the same as Parquet.
///
/// # Errors
/// The file cannot be read, or a line is not a fact (naming file, line and field).
pub fn read_facts(path: &Path) -> Result<Vec<Fact>, ScoreError> {
    let mut facts = Vec::new();
    for (i, line) in read_lines(path)?.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        facts.push(serde_json::from_str(line).map_err(|e| ScoreError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            message: format!("not a fact: {e}"),
        })?);
    }
    Ok(facts)
}

/// A system's predictions, read: from one file, or several (the harness writes
/// one samples file per task), no id in two of them.
#[derive(Debug, Clone)]
pub struct SystemPredictions {
    /// The system's name.
    pub system: String,
    /// Its files, with their predictions, in the order given.
    pub files: Vec<ReadFile>,
}

/// Every summary judged, the predictions no article matched and the articles no
/// prediction matched.
#[derive(Debug, Clone, Default)]
pub struct Scored {
    /// One per summary, sorted (system, set, date, id).
    pub scores: Vec<ScoredSummary>,
    /// Predictions whose id the set does not hold, per system.
    pub unmatched: Vec<Unmatched>,
    /// Articles of the set without a prediction, per system.
    pub missing: Vec<Missing>,
    /// The systems scored, with their files.
    pub predictions: Vec<PredictionsFile>,
    /// Articles per set, of the set scored against (none without a set): what a
    /// system's coverage is of.
    pub articles: BTreeMap<String, u64>,
}

impl SystemPredictions {
    /// The predictions of one file, as the system `system`.
    pub fn one(system: impl Into<String>, path: impl Into<PathBuf>, rows: Vec<Prediction>) -> Self {
        Self {
            system: system.into(),
            files: vec![ReadFile {
                path: path.into(),
                rows,
                harness: None,
                warnings: Vec::new(),
            }],
        }
    }

    /// The files read, each with its system's name, as systems: the files of one
    /// name are one system, in the order of its first file.
    ///
    /// # Errors
    /// An id in two files of one system, naming both files and lines.
    pub fn group(files: Vec<(String, ReadFile)>) -> Result<Vec<Self>, ScoreError> {
        let mut systems: Vec<Self> = Vec::new();
        for (system, file) in files {
            match systems.iter_mut().find(|s| s.system == system) {
                Some(known) => {
                    known.check_apart(&file)?;
                    known.files.push(file);
                }
                None => systems.push(Self {
                    system,
                    files: vec![file],
                }),
            }
        }
        Ok(systems)
    }

    /// Refuses `file` as more of this system when it holds an id one of the
    /// system's files holds.
    fn check_apart(&self, file: &ReadFile) -> Result<(), ScoreError> {
        let known: HashMap<&str, (&Path, usize)> = self
            .files
            .iter()
            .flat_map(|f| {
                f.rows
                    .iter()
                    .map(|r| (r.id.as_str(), (f.path.as_path(), r.line)))
            })
            .collect();
        for row in &file.rows {
            if let Some((first, line)) = known.get(row.id.as_str()) {
                return Err(ScoreError::Line {
                    path: file.path.clone(),
                    line: row.line,
                    message: format!(
                        "id {:?} is also in {}:{line}, and both files are the system `{}`: one summary per id and system; name them apart with `--system`",
                        row.id,
                        first.display(),
                        self.system
                    ),
                });
            }
        }
        Ok(())
    }

    /// Every prediction, file by file.
    pub fn rows(&self) -> impl Iterator<Item = &Prediction> {
        self.files.iter().flat_map(|f| f.rows.iter())
    }

    /// The system's files, as `summary.json` names them.
    fn predictions_files(&self) -> impl Iterator<Item = PredictionsFile> + '_ {
        self.files.iter().map(|f| PredictionsFile {
            system: self.system.clone(),
            file: f.path.display().to_string(),
            harness: f.harness.clone(),
        })
    }

    /// Its files in one line, as its `missing` names them.
    fn file_names(&self) -> String {
        let mut names: Vec<String> = self
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        // Sorted: the same files in any order give the same summary.json.
        names.sort_unstable();
        names.join(", ")
    }
}

/// Refuses harness samples with a document the set does not hold: a samples file
/// holds only its task's documents, so one of another is another task's or
/// another set's.
///
/// # Errors
/// The first line of such a file whose id is no article of `articles`.
pub fn refuse_foreign_samples(
    articles: &BTreeMap<String, SetArticle>,
    systems: &[SystemPredictions],
) -> Result<(), ScoreError> {
    let files = systems.iter().flat_map(|s| &s.files);
    for file in files.filter(|f| f.harness.is_some()) {
        if let Some(row) = file.rows.iter().find(|r| !articles.contains_key(&r.id)) {
            let mut sets: Vec<&str> = articles.values().map(|a| a.set.as_str()).collect();
            sets.sort_unstable();
            sets.dedup();
            return Err(ScoreError::Line {
                path: file.path.clone(),
                line: row.line,
                message: format!(
                    "document {:?} is no article of the set ({}): samples of another task or another set? (a harness samples file holds only its task's documents)",
                    row.id,
                    sets.join(", ")
                ),
            });
        }
    }
    Ok(())
}

/// Scores the predictions of every system against the set's `articles` (joined by
/// id), and the set's own summaries as the system `reference` when `reference`.
pub fn score_set(
    judge: &Judge,
    articles: &BTreeMap<String, SetArticle>,
    systems: &[SystemPredictions],
    reference: bool,
) -> Scored {
    // Each article with its context and its place in the scores' order (set, date,
    // id), found by id with one hash.
    let mut order: Vec<&SetArticle> = articles.values().collect();
    order.sort_unstable_by(|a, b| (&a.set, a.published, &a.id).cmp(&(&b.set, b.published, &b.id)));
    let index: HashMap<&str, (&SetArticle, Context, u32)> = order
        .iter()
        .enumerate()
        .map(|(rank, &a)| {
            let facts = a.facts.iter().map(|m| &m.fact);
            let context = judge.context(Some(&a.document), facts);
            (a.id.as_str(), (a, context, rank as u32))
        })
        .collect();
    // Systems by name: with the articles' ranks, the scores' order in integers
    // (the whole key settles only what they leave equal: one name given twice).
    let mut names: Vec<&str> = systems.iter().map(|s| s.system.as_str()).collect();
    if reference {
        names.push(REFERENCE);
    }
    names.sort_unstable();
    let rank_of = |name: &str| names.partition_point(|n| *n < name) as u32;
    let mut keyed: Vec<((u32, u32), ScoredSummary)> = Vec::new();
    let mut score =
        |system: &str, (article, context, rank): &(&SetArticle, Context, u32), summary: &str| {
            let scored = ScoredSummary {
                id: article.id.clone(),
                system: system.to_string(),
                set: Some(article.set.clone()),
                published: article.published,
                summary: summary.to_string(),
                claims: judge.claims(summary, article.published, context),
            };
            keyed.push(((rank_of(system), *rank), scored));
        };
    if reference {
        for article in articles.values() {
            score(REFERENCE, &index[article.id.as_str()], &article.summary);
        }
    }
    let mut unmatched = Vec::new();
    for system in systems {
        for file in &system.files {
            let mut unknown = Vec::new();
            for row in &file.rows {
                match index.get(row.id.as_str()) {
                    Some(entry) => score(&system.system, entry, &row.summary),
                    None => unknown.push((row.line, row.id.clone())),
                }
            }
            if !unknown.is_empty() {
                unmatched.push(Unmatched {
                    system: system.system.clone(),
                    file: file.path.display().to_string(),
                    count: unknown.len() as u64,
                    ids: unknown,
                });
            }
        }
    }
    keyed.sort_unstable_by(|(a, sa), (b, sb)| a.cmp(b).then_with(|| key(sa).cmp(&key(sb))));
    Scored {
        scores: keyed.into_iter().map(|(_, s)| s).collect(),
        unmatched,
        missing: systems.iter().filter_map(|s| missing(&order, s)).collect(),
        predictions: predictions_files(systems),
        articles: articles.values().fold(BTreeMap::new(), |mut counts, a| {
            *counts.entry(a.set.clone()).or_default() += 1;
            counts
        }),
    }
}

/// Every system's files, as `summary.json` names them: one entry per file.
fn predictions_files(systems: &[SystemPredictions]) -> Vec<PredictionsFile> {
    systems
        .iter()
        .flat_map(SystemPredictions::predictions_files)
        .collect()
}

/// The articles of `order` (the set, in the scores' order) that `system` has no
/// prediction for in any of its files, if any.
fn missing(order: &[&SetArticle], system: &SystemPredictions) -> Option<Missing> {
    let predicted: HashSet<&str> = system.rows().map(|r| r.id.as_str()).collect();
    let ids: Vec<String> = order
        .iter()
        .filter(|a| !predicted.contains(a.id.as_str()))
        .map(|a| a.id.clone())
        .collect();
    (!ids.is_empty()).then(|| Missing {
        system: system.system.clone(),
        file: system.file_names(),
        count: ids.len() as u64,
        of: order.len() as u64,
        ids,
    })
}

/// Scores predictions that carry their own dates (and documents, if any).
pub fn score_dated(judge: &Judge, systems: &[SystemPredictions]) -> Scored {
    let mut scored = Scored::default();
    for system in systems {
        for row in system.rows() {
            // Rows without a date never get here: reading them required one.
            let Some(published) = row.published else {
                continue;
            };
            let context = judge.context(row.document.as_deref(), []);
            scored.scores.push(ScoredSummary {
                id: row.id.clone(),
                system: system.system.clone(),
                set: row.set.clone(),
                published,
                summary: row.summary.clone(),
                claims: judge.claims(&row.summary, published, &context),
            });
        }
    }
    sort(&mut scored.scores);
    scored.predictions = predictions_files(systems);
    scored
}

/// Sorts as the `jsonl` sink sorts: by the record's sort key, then its JSON.
/// The order of `scores.jsonl`.
fn key(s: &ScoredSummary) -> (&str, Option<&str>, NaiveDate, &str, &str) {
    (&s.system, s.set.as_deref(), s.published, &s.id, &s.summary)
}

fn sort(scores: &mut [ScoredSummary]) {
    // The key is unique (one summary per id and system), so an unstable sort
    // gives the one order.
    scores.sort_unstable_by(|a, b| key(a).cmp(&key(b)));
}

/// The folder of a set's scores (`SET_DIR/scores`), where `tempora report` and
/// the dataset card look for them.
pub const SCORES_DIR: &str = "scores";

/// The files a job writes, by name.
pub const SCORES_JSONL: &str = "scores.jsonl";
/// See [`SCORES_JSONL`].
pub const SCORES_PARQUET: &str = "scores.parquet";
/// See [`SCORES_JSONL`].
pub const SUMMARY_JSON: &str = "summary.json";
/// See [`SCORES_JSONL`].
pub const SCORES_MD: &str = "scores.md";

/// Reads the set files' digests, for `summary.json` (`dir`: the set folder).
///
/// # Errors
/// A file that cannot be read.
pub fn set_files(parts: &[SetPart], dir: &Path) -> Result<Vec<SetFile>, ScoreError> {
    parts
        .iter()
        .map(|part| SetFile::of(&part.name, &part.path, dir))
        .collect()
}

/// The figures of the scores (`summary.json`): the rows per system and set with
/// their coverage and, with `bootstrap`, their intervals; the differences of
/// every pair of systems; the leaderboard. `facts` and `sets` are the files
/// read, as it records them.
pub fn summarize(
    scored: &Scored,
    facts: &FactsFile,
    sets: &[SetFile],
    bootstrap: Option<&Bootstrap>,
) -> Summary {
    let systems = scored.predictions.iter().map(|p| p.system.as_str());
    let rows = tables::rows(&scored.scores, systems, &scored.articles, bootstrap);
    let differences = compare::differences(&scored.scores, bootstrap);
    // The files by system and name: the same files in any order give the same
    // summary.json.
    let mut predictions = scored.predictions.clone();
    predictions.sort_unstable_by(|a, b| (&a.system, &a.file).cmp(&(&b.system, &b.file)));
    Summary {
        facts: facts.name.clone(),
        facts_sha256: facts.sha256.clone(),
        facts_read: facts.read,
        leaderboard: compare::leaderboard(&rows, &differences),
        rows,
        unmatched: scored.unmatched.clone(),
        missing: scored.missing.clone(),
        sets: sets.to_vec(),
        predictions,
        bootstrap: bootstrap.cloned(),
        differences,
    }
}

/// Writes the scores and their `summary` (of [`summarize`]) into `out`
/// (created if missing).
///
/// # Errors
/// A file that cannot be written (naming it).
pub fn write(out: &Path, scored: &Scored, summary: &Summary) -> Result<(), ScoreError> {
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| ScoreError::Read {
            path: path.clone(),
            source: e,
        }
    };
    std::fs::create_dir_all(out).map_err(write_error(out))?;
    let jsonl = out.join(SCORES_JSONL);
    tempora_engine::runtime::write_atomically(&jsonl, |w| {
        for score in &scored.scores {
            serde_json::to_writer(&mut *w, score)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
    .map_err(write_error(&jsonl))?;
    let parquet = out.join(SCORES_PARQUET);
    let records = scored
        .scores
        .iter()
        .map(|s| Record::Score(Box::new(s.clone())));
    AtomicFile::create(&parquet)
        .and_then(|file| {
            tempora_sink::parquet::write_records(RecordKind::Score, records, file.as_file())
                .map_err(std::io::Error::other)?;
            file.commit()
        })
        .map_err(write_error(&parquet))?;
    let json = out.join(SUMMARY_JSON);
    tempora_engine::runtime::write_atomically(&json, |w| {
        serde_json::to_writer_pretty(&mut *w, summary)?;
        w.write_all(b"\n")?;
        Ok(())
    })
    .map_err(write_error(&json))?;
    let md = out.join(SCORES_MD);
    tempora_engine::runtime::write_atomically(&md, |w| {
        w.write_all(crate::markdown::scores_md(summary).as_bytes())
    })
    .map_err(write_error(&md))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{entity, fact};

    fn article(id: &str, set: &str, published: &str) -> SetArticle {
        SetArticle {
            id: id.into(),
            published: published.parse().unwrap(),
            summary: format!("Prime Minister Ann Hale spoke ({id})."),
            document: "Ann Hale spoke.".into(),
            facts: Vec::new(),
            set: set.into(),
        }
    }

    /// A judge of one fact: Ann Hale, Prime Minister since 2010.
    fn hale_judge() -> Judge {
        let pm = entity("Q1", "Prime Minister of the United Kingdom", &[]);
        let hale = entity("Q2", "Ann Hale", &[]);
        Judge::new([fact(&pm, "P1308", &hale, "2010-05-11", None)].iter()).unwrap()
    }

    fn by_id<const N: usize>(articles: [SetArticle; N]) -> BTreeMap<String, SetArticle> {
        articles.into_iter().map(|a| (a.id.clone(), a)).collect()
    }

    fn system(name: &str, ids: &[&str]) -> SystemPredictions {
        SystemPredictions::one(
            name,
            format!("{name}.jsonl"),
            ids.iter()
                .enumerate()
                .map(|(i, id)| Prediction {
                    line: i + 1,
                    id: id.to_string(),
                    summary: format!("Prime Minister Ann Hale met {name} {i} of {}.", ids.len()),
                    published: None,
                    document: None,
                    set: None,
                })
                .collect(),
        )
    }

    /// The scores come in the order of their whole key (system, set, date, id,
    /// summary) whatever the order of systems and rows, a name given twice too.
    #[test]
    fn scores_are_in_key_order_whatever_the_inputs_order() {
        let judge = hale_judge();
        let articles = by_id([
            article("z1", "future", "2020-01-02"),
            article("a2", "future", "2021-03-04"),
            article("m3", "in_distribution", "2019-05-06"),
            article("b4", "future", "2020-01-02"),
        ]);
        let systems = [
            system("bart", &["m3", "z1", "a2", "b4"]),
            system("alpha", &["b4", "a2"]),
            system("bart", &["a2", "z1"]),
        ];
        let keys = |scored: &Scored| -> Vec<String> {
            scored
                .scores
                .iter()
                .map(|s| {
                    format!(
                        "{}|{:?}|{}|{}|{}",
                        s.system, s.set, s.published, s.id, s.summary
                    )
                })
                .collect()
        };
        let scored = score_set(&judge, &articles, &systems, true);
        assert_eq!(scored.scores.len(), 12);
        assert!(
            scored.scores.windows(2).all(|w| key(&w[0]) < key(&w[1])),
            "{:#?}",
            keys(&scored)
        );
        let mut reversed = systems.clone();
        reversed.reverse();
        for s in &mut reversed {
            s.files[0].rows.reverse();
        }
        assert_eq!(
            keys(&score_set(&judge, &articles, &reversed, true)),
            keys(&scored)
        );
        assert_eq!(scored.scores[0].system, "alpha");
        // Every system is told the articles it left out, in the scores' order.
        let missing: Vec<(&str, u64, u64, &[String])> = scored
            .missing
            .iter()
            .map(|m| (m.system.as_str(), m.count, m.of, m.ids.as_slice()))
            .collect();
        let ids = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            missing,
            [
                ("alpha", 2, 4, ids(&["z1", "m3"]).as_slice()),
                ("bart", 2, 4, ids(&["b4", "m3"]).as_slice()),
            ]
        );
        assert_eq!(
            scored.scores.last().map(|s| s.system.as_str()),
            Some("reference")
        );
    }

    /// Files of one name are one system: scored together, each file's unknown
    /// ids by its own lines, the articles none of them holds as missing; an id in
    /// two of them is refused, naming both.
    #[test]
    fn files_of_one_system_are_merged_and_an_id_in_two_refused() {
        let judge = hale_judge();
        let articles = by_id([
            article("z1", "future", "2020-01-02"),
            article("a2", "future", "2021-03-04"),
            article("m3", "in_distribution", "2019-05-06"),
        ]);
        let file = |name: &str, ids: &[&str]| {
            let one = system(name, ids);
            ("bart".to_string(), one.files.into_iter().next().unwrap())
        };
        let systems =
            SystemPredictions::group(vec![file("a", &["z1"]), file("b", &["x9", "m3"])]).unwrap();
        assert_eq!(systems.len(), 1);
        let scored = score_set(&judge, &articles, &systems, false);
        assert_eq!(scored.scores.len(), 2);
        let unmatched: Vec<String> = scored
            .unmatched
            .iter()
            .map(|u| format!("{} {} {:?}", u.system, u.file, u.ids))
            .collect();
        assert_eq!(unmatched, ["bart b.jsonl [(1, \"x9\")]"]);
        let missing: Vec<(&str, &str, &[String])> = scored
            .missing
            .iter()
            .map(|m| (m.system.as_str(), m.file.as_str(), m.ids.as_slice()))
            .collect();
        assert_eq!(
            missing,
            [("bart", "a.jsonl, b.jsonl", &["a2".to_string()][..])]
        );
        let files: Vec<(&str, &str)> = scored
            .predictions
            .iter()
            .map(|p| (p.system.as_str(), p.file.as_str()))
            .collect();
        assert_eq!(files, [("bart", "a.jsonl"), ("bart", "b.jsonl")]);
        let twice = SystemPredictions::group(vec![file("a", &["z1"]), file("c", &["a2", "z1"])]);
        assert_eq!(
            twice.unwrap_err().to_string(),
            "c.jsonl:2: id \"z1\" is also in a.jsonl:1, and both files are the system `bart`: one summary per id and system; name them apart with `--system`"
        );
    }
}
