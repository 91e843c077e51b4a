//! The TempoSum selection (section 3.2.2 of the paper): keep an article when
//! (1) its document names both the subject and the object of at least one evolving
//! fact and (2) its summary names the subject or the object of an evolving fact.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use tempora_engine::{Article, FactMatch, Mention, TextField};

use super::dictionary::Dictionary;
use super::matcher::{Found, UseKind};

/// Which criterion an article failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Criterion {
    /// The document does not name subject and object of one evolving fact.
    DocumentNamesFact,
    /// The summary names no subject or object of an evolving fact.
    SummaryNamesEntity,
}

impl Criterion {
    /// The counter in `run.json` for articles that failed it.
    pub fn counter(self) -> &'static str {
        match self {
            Self::DocumentNamesFact => "rejected_criterion_1",
            Self::SummaryNamesEntity => "rejected_criterion_2",
        }
    }
}

/// What the selection decided for one article.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Kept, with the facts its document names in full.
    Keep(Vec<FactMatch>),
    /// Rejected: the criterion that failed and the reason in words.
    Reject(Criterion, String),
}

/// Entities named in one text, each with the spellings found.
type Named = BTreeMap<u32, BTreeSet<String>>;

/// Decides for `article`. `same_fact`: criterion 2 must be met by a fact that
/// meets criterion 1.
pub fn select(dict: &Dictionary, article: &Article, same_fact: bool) -> Verdict {
    let doc_found = dict.matcher.scan(&article.document);
    let sum_found = dict.matcher.scan(&article.summary);
    let qualifiers: HashSet<u32> = doc_found
        .iter()
        .chain(&sum_found)
        .filter(|f| f.name_use.kind == UseKind::Qualifier)
        .map(|f| f.name_use.target)
        .collect();
    let doc = named(dict, &article.document, doc_found, &qualifiers);
    let summary = named(dict, &article.summary, sum_found, &qualifiers);

    let full: Vec<u32> = doc
        .keys()
        .flat_map(|e| &dict.by_subject[*e as usize])
        .copied()
        .filter(|f| doc.contains_key(&dict.ends[*f as usize].1))
        .collect::<BTreeSet<u32>>()
        .into_iter()
        .collect();
    if full.is_empty() {
        let seen = if doc.is_empty() {
            "no name of an evolving fact's subject or object".to_string()
        } else {
            format!("only {}", list(dict, doc.keys()))
        };
        return Verdict::Reject(
            Criterion::DocumentNamesFact,
            format!(
                "criterion 1 failed: the document does not name both the subject and the object \
                 of any evolving fact (it names {seen})"
            ),
        );
    }

    let summary_ok = if same_fact {
        full.iter().any(|f| {
            let (s, o) = dict.ends[*f as usize];
            summary.contains_key(&s) || summary.contains_key(&o)
        })
    } else {
        !summary.is_empty()
    };
    if !summary_ok {
        let scope = if same_fact {
            format!("of the {} fact(s) the document names", full.len())
        } else {
            "of an evolving fact".to_string()
        };
        return Verdict::Reject(
            Criterion::SummaryNamesEntity,
            format!("criterion 2 failed: the summary names no subject or object {scope}"),
        );
    }

    let matches = full
        .into_iter()
        .map(|f| {
            let evolving = &dict.facts[f as usize];
            let (s, o) = dict.ends[f as usize];
            let mut mentions = Vec::new();
            for entity in [s, o] {
                for (field, named) in [(TextField::Document, &doc), (TextField::Summary, &summary)]
                {
                    for name in named.get(&entity).into_iter().flatten() {
                        mentions.push(Mention {
                            entity: dict.entities[entity as usize].id.clone(),
                            name: name.clone(),
                            field,
                        });
                    }
                }
            }
            FactMatch {
                fact: evolving.fact.clone(),
                mentions,
                after_change: article.published >= evolving.changed,
            }
        })
        .collect();
    Verdict::Keep(matches)
}

/// Resolves what was found in `text` to entities: heads count only with a
/// qualifier named (when required), when no " of ..." qualifier follows them and
/// no rank word precedes them ("Deputy Prime Minister" is not the prime minister);
/// a match inside a longer match counts only as part of it ("President" inside
/// "President of the United States").
fn named(dict: &Dictionary, text: &str, found: Vec<Found>, qualifiers: &HashSet<u32>) -> Named {
    let valid = found.into_iter().filter(|f| match f.name_use.kind {
        UseKind::Name => true,
        UseKind::Qualifier => false,
        UseKind::Head { group } => {
            (!dict.require_qualifier || qualifiers.contains(&group))
                && !followed_by_of(text, f.end)
                && !preceded_by_other_rank(text, f.start)
        }
    });
    let mut named = Named::new();
    // `found` is sorted by start, longest first: a span is inside an earlier one
    // exactly when that one reaches at least as far.
    let mut reach: Option<(usize, usize)> = None;
    for f in valid {
        let span = (f.start, f.end);
        match reach {
            Some(r) if r != span && r.1 >= f.end => continue,
            Some(r) if r == span => {}
            _ => reach = Some(span),
        }
        named
            .entry(f.name_use.target)
            .or_default()
            .insert(text[f.start..f.end].to_string());
    }
    named
}

fn followed_by_of(text: &str, end: usize) -> bool {
    text.as_bytes()
        .get(end..end + 4)
        .is_some_and(|b| b.eq_ignore_ascii_case(b" of "))
}

/// Words that make a head another office: "deputy prime minister", "Vice-President".
const OTHER_RANKS: [&str; 4] = ["deputy ", "vice ", "vice-", "shadow "];

fn preceded_by_other_rank(text: &str, start: usize) -> bool {
    let before = &text.as_bytes()[..start];
    OTHER_RANKS.iter().any(|w| {
        before.len() >= w.len()
            && before[before.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
    })
}

fn list<'a>(dict: &Dictionary, entities: impl Iterator<Item = &'a u32>) -> String {
    const SHOWN: usize = 5;
    let all: Vec<String> = entities.map(|e| dict.describe(*e)).collect();
    let mut text = all
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if all.len() > SHOWN {
        text.push_str(&format!(" and {} more", all.len() - SHOWN));
    }
    text
}
