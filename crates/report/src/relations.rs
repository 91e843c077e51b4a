//! Counts per relation: the sets' articles per relation of their evolving facts
//! (each article's `relations`), and the facts of each facts file per relation.
//! A relation is named by the shipped relation catalogue's label where it has
//! one (`head coach (P286)`), else by its property id: a relation a pipeline's
//! own catalogue folder declares is named as its facts name it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tempora_relations::Catalogue;

use crate::error::ReportError;
use crate::markdown::cell;
use crate::read::{Format, SetFile};
use crate::stats::ArticleRow;

/// Articles of one set with a fact of one relation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetRelation {
    /// The set.
    pub set: String,
    /// The property id (`P286`).
    pub relation: String,
    /// How the card names it: `head coach (P286)`, or the id.
    pub name: String,
    /// Articles of the set whose `relations` hold it.
    pub articles: usize,
}

/// Facts of one relation in one facts file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileRelation {
    /// The facts file's name.
    pub file: String,
    /// The property id.
    pub relation: String,
    /// How the card names it.
    pub name: String,
    /// Facts of the relation in the file.
    pub facts: usize,
}

/// Every count per relation, sorted by set (or file), then relation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Relations {
    /// Articles per set and relation.
    pub articles: Vec<SetRelation>,
    /// Facts per facts file and relation.
    pub facts: Vec<FileRelation>,
}

/// The shipped relation catalogue, loaded once.
pub(crate) fn shipped() -> &'static Catalogue {
    static SHIPPED: OnceLock<Catalogue> = OnceLock::new();
    SHIPPED.get_or_init(Catalogue::shipped)
}

/// `head coach (P286)` where the shipped catalogue has the property, else the id.
pub fn name(relation: &str) -> String {
    match shipped().get(relation) {
        Some(entry) => format!("{} ({relation})", entry.label),
        None => relation.to_string(),
    }
}

/// Which side of a fact of `relation` is the person, where the shipped
/// catalogue has the property.
pub fn person_side(relation: &str) -> Option<tempora_relations::Side> {
    shipped().get(relation).map(|r| r.person)
}

/// The articles of each set per relation, and the facts of `facts_files` per
/// relation.
///
/// # Errors
/// A facts file that cannot be read, or a line of one that is not a fact
/// (named with its file and line).
pub fn count(
    sets: &[(String, Vec<ArticleRow>)],
    facts_files: &[SetFile],
) -> Result<Relations, ReportError> {
    let mut articles: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (set, rows) in sets {
        for relation in rows.iter().flat_map(|r| &r.relations) {
            *articles.entry((set, relation)).or_default() += 1;
        }
    }
    let articles = articles
        .into_iter()
        .map(|((set, relation), articles)| SetRelation {
            set: set.to_string(),
            relation: relation.to_string(),
            name: name(relation),
            articles,
        })
        .collect();
    let mut facts = Vec::new();
    for file in facts_files {
        let name_of_file = file
            .path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        for (relation, n) in facts_per_relation(file)? {
            facts.push(FileRelation {
                file: name_of_file.clone(),
                name: name(&relation),
                relation,
                facts: n,
            });
        }
    }
    Ok(Relations { articles, facts })
}

/// A facts file's facts per relation.
fn facts_per_relation(file: &SetFile) -> Result<BTreeMap<String, usize>, ReportError> {
    let path = &file.path;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    match file.format {
        Format::Jsonl => {
            #[derive(Deserialize)]
            struct Line {
                relation: String,
            }
            let reader = BufReader::new(std::fs::File::open(path).map_err(ReportError::io(path))?);
            for (i, line) in reader.split(b'\n').enumerate() {
                let line = line.map_err(ReportError::io(path))?;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let fact: Line =
                    serde_json::from_slice(&line).map_err(|e| ReportError::BadRecord {
                        path: path.clone(),
                        line: i + 1,
                        message: format!("not a fact with a `relation`: {e}"),
                    })?;
                *counts.entry(fact.relation).or_default() += 1;
            }
        }
        Format::Parquet => {
            let f = std::fs::File::open(path).map_err(ReportError::io(path))?;
            let column = tempora_sink::parquet::read_text_column(f, "relation").map_err(|e| {
                ReportError::Parquet {
                    path: path.clone(),
                    message: e.to_string(),
                }
            })?;
            for relation in column {
                *counts.entry(relation.unwrap_or_default()).or_default() += 1;
            }
        }
    }
    Ok(counts)
}

/// The report's section: articles per set and relation, facts per file and
/// relation.
pub fn markdown(md: &mut String, relations: &Relations) {
    md.push_str("## Relations\n\n");
    if relations.articles.is_empty() && relations.facts.is_empty() {
        md.push_str("No article carries `relations` or `facts`, and no facts file was found.\n\n");
        return;
    }
    if !relations.articles.is_empty() {
        md.push_str(
            "Articles per set and relation of their evolving facts (an article's `relations`; \
             one with facts of two relations counts under each). A set's part of some \
             relations, its sport or its politics, is its articles whose `relations` hold \
             them.\n\n",
        );
        let rows = relations.articles.iter();
        table(
            md,
            ["set", "articles"],
            rows.map(|r| (cell(&r.set), &r.name, r.articles)),
        );
    }
    if !relations.facts.is_empty() {
        md.push_str("Evolving facts per relation, in each facts file:\n\n");
        let rows = relations.facts.iter();
        table(
            md,
            ["file", "facts"],
            rows.map(|r| (format!("`{}`", cell(&r.file)), &r.name, r.facts)),
        );
    }
}

/// A table of `rows` (what is counted, the relation's name, the count) under
/// `heads` (the first column's and the count's).
fn table<'a>(
    md: &mut String,
    heads: [&str; 2],
    rows: impl Iterator<Item = (String, &'a String, usize)>,
) {
    let _ = writeln!(
        md,
        "| {} | relation | {} |\n|---|---|---:|",
        heads[0], heads[1]
    );
    for (what, relation, n) in rows {
        let _ = writeln!(md, "| {what} | {} | {n} |", cell(relation));
    }
    md.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_relations_are_named_by_their_label_and_others_by_their_id() {
        assert_eq!(name("P286"), "head coach (P286)");
        assert_eq!(name("P1308"), "officeholder (P1308)");
        assert_eq!(name("P102"), "P102");
    }
}
