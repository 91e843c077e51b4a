//! The TempoSum selection (section 3.2.2 of the paper): keep an article when
//! (1) its document names both the subject and the object of at least one evolving
//! fact and (2) its summary names the subject or the object of an evolving fact.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use tempora_engine::{Article, FactMatch, Mention, TextField};

use super::dictionary::Dictionary;
use super::matcher::{Found, NameUse};

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
type Named<'t> = BTreeMap<u32, BTreeSet<&'t str>>;

/// Decides for `article`. `same_fact`: criterion 2 must be met by a fact that
/// meets criterion 1.
pub fn select(dict: &Dictionary, article: &Article, same_fact: bool) -> Verdict {
    let doc_found = dict.matcher.scan(&article.document);
    let sum_found = dict.matcher.scan(&article.summary);
    let licensed = licensed_heads(dict, doc_found.iter().chain(&sum_found));
    let doc = named(dict, &article.document, &doc_found, &licensed);
    let summary = named(dict, &article.summary, &sum_found, &licensed);

    let full = facts_named_in_full(dict, &doc);
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
            let ids = [
                (s, &evolving.fact.subject.id),
                (o, &evolving.fact.object.id),
            ];
            for (entity, id) in ids {
                for (field, named) in [(TextField::Document, &doc), (TextField::Summary, &summary)]
                {
                    for name in named.get(&entity).into_iter().flatten() {
                        mentions.push(Mention {
                            entity: id.clone(),
                            name: name.to_string(),
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

/// The facts whose subject and object `doc` both names, in fact order.
fn facts_named_in_full(dict: &Dictionary, doc: &Named<'_>) -> Vec<u32> {
    let named: Vec<u32> = doc.keys().copied().collect();
    let mut full = Vec::new();
    for &subject in &named {
        // Both lists are sorted by entity: look each entry of the shorter one up
        // in the longer (a position with thousands of holders, an article naming
        // hundreds of entities).
        let facts = &dict.by_subject[subject as usize];
        if facts.len() <= named.len() {
            full.extend(
                facts
                    .iter()
                    .filter(|(object, _)| named.binary_search(object).is_ok())
                    .map(|&(_, fact)| fact),
            );
        } else {
            for &object in &named {
                let from = facts.partition_point(|&(o, _)| o < object);
                let to = from + facts[from..].partition_point(|&(o, _)| o == object);
                full.extend(facts[from..to].iter().map(|&(_, fact)| fact));
            }
        }
    }
    full.sort_unstable();
    full
}

/// The positions each head found in the article stands for: with qualifiers
/// required, those whose qualifier group the article names (in either text);
/// otherwise every position with that head. Work is per distinct name found, not
/// per occurrence, so a head shared by thousands of positions ("Minister") costs
/// little unless their qualifiers are named too.
fn licensed_heads<'a>(
    dict: &'a Dictionary,
    found: impl Iterator<Item = &'a Found>,
) -> HashMap<u32, Vec<u32>> {
    let mut variants: Vec<u32> = found.map(|f| f.variant).collect();
    variants.sort_unstable();
    variants.dedup();
    let mut licensed: HashMap<u32, Vec<u32>> = HashMap::new();
    for &variant in &variants {
        for name_use in dict.matcher.uses(variant) {
            match name_use {
                NameUse::Qualifier(group) if dict.head_needs_context => {
                    if let Some(g) = dict.groups.get(*group as usize) {
                        if variants.binary_search(&g.head).is_ok() {
                            licensed.entry(g.head).or_default().push(g.entity);
                        }
                    }
                }
                NameUse::Head if !dict.head_needs_context => {
                    if let Some(entities) = dict.head_entities.get(&variant) {
                        licensed.insert(variant, entities.clone());
                    }
                }
                _ => {}
            }
        }
    }
    for entities in licensed.values_mut() {
        entities.sort_unstable();
        entities.dedup();
    }
    licensed
}

/// Resolves what was found in `text` to entities: a head counts for the
/// positions it is licensed for in this article (see [`licensed_heads`]) and, in
/// context mode, for the positions whose holder is named right after it
/// ("President Joe Biden"); never when another " of ..." qualifier follows it or
/// a rank word precedes it ("Deputy Prime Minister" is not the prime minister).
/// A match inside a longer match counts only as part of it ("President" inside
/// "President of the United States").
fn named<'t>(
    dict: &Dictionary,
    text: &'t str,
    found: &[Found],
    licensed: &HashMap<u32, Vec<u32>>,
) -> Named<'t> {
    // Spans that name something: with whether their licensed head reading holds,
    // and the positions a holder's name right after them licenses.
    let valid = found.iter().filter_map(|f| {
        let uses = dict.matcher.uses(f.variant);
        let has_name = uses.iter().any(|u| matches!(u, NameUse::Name(_)));
        let is_head = uses.contains(&NameUse::Head);
        let in_place =
            is_head && !followed_by_of(text, f.end) && !preceded_by_other_rank(text, f.start);
        let head_ok = in_place && licensed.contains_key(&f.variant);
        let by_holder = if in_place && dict.head_needs_context {
            positions_of_next_holder(dict, text, found, f)
        } else {
            Vec::new()
        };
        (has_name || head_ok || !by_holder.is_empty()).then_some((f, head_ok, by_holder))
    });
    // Found is sorted by start, longest first: a span is inside an earlier one
    // exactly when that one reaches at least as far. Names are collected per
    // variant first and resolved to entities once per variant.
    let mut spellings: BTreeMap<(u32, bool), BTreeSet<&'t str>> = BTreeMap::new();
    let mut named = Named::new();
    let mut reach: Option<(usize, usize)> = None;
    for (f, head_ok, by_holder) in valid {
        let span = (f.start, f.end);
        match reach {
            Some(r) if r != span && r.1 >= f.end => continue,
            Some(r) if r == span => {}
            _ => reach = Some(span),
        }
        let name = &text[f.start..f.end];
        spellings
            .entry((f.variant, head_ok))
            .or_default()
            .insert(name);
        for position in by_holder {
            named.entry(position).or_default().insert(name);
        }
    }
    for ((variant, head_ok), names) in spellings {
        let entities = dict.matcher.uses(variant).iter().filter_map(|u| match u {
            NameUse::Name(e) => Some(*e),
            _ => None,
        });
        let heads = licensed
            .get(&variant)
            .filter(|_| head_ok)
            .into_iter()
            .flatten()
            .copied();
        for entity in entities.chain(heads) {
            named
                .entry(entity)
                .or_default()
                .extend(names.iter().copied());
        }
    }
    named
}

/// The positions of head `head` held by someone whose name follows it after one
/// space ("President" + "Joe Biden").
fn positions_of_next_holder(
    dict: &Dictionary,
    text: &str,
    found: &[Found],
    head: &Found,
) -> Vec<u32> {
    let Some(positions) = dict.head_entities.get(&head.variant) else {
        return Vec::new();
    };
    if text.as_bytes().get(head.end) != Some(&b' ') {
        return Vec::new();
    }
    let next = head.end + 1;
    let from = found.partition_point(|g| g.start < next);
    let mut held: Vec<u32> = found[from..]
        .iter()
        .take_while(|g| g.start == next)
        .flat_map(|g| dict.matcher.uses(g.variant))
        .filter_map(|u| match u {
            NameUse::Name(holder) => Some(*holder),
            _ => None,
        })
        .flat_map(|holder| dict.linked(holder))
        .filter(|p| positions.binary_search(p).is_ok())
        .collect();
    held.sort_unstable();
    held.dedup();
    held
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

fn list<'a>(dict: &Dictionary, entities: impl ExactSizeIterator<Item = &'a u32>) -> String {
    const SHOWN: usize = 5;
    let total = entities.len();
    let shown: Vec<String> = entities.take(SHOWN).map(|e| dict.describe(*e)).collect();
    let mut text = shown.join(", ");
    if total > SHOWN {
        text.push_str(&format!(" and {} more", total - SHOWN));
    }
    text
}
