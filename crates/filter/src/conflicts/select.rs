//! The TempoSum selection (section 3.2.2 of the paper): keep an article when
//! (1) its document names both the subject and the object of at least one evolving
//! fact and (2) its summary names the subject or the object of an evolving fact.

use tempora_records::{Article, FactMatch, Mention, TextField};

use super::dictionary::{equal_range, Dictionary};
use super::matcher::{prefetch, Found, NameUse};

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
#[derive(Debug, Default)]
struct Named<'t> {
    /// (entity, spelling) pairs, sorted and distinct.
    pairs: Vec<(u32, &'t str)>,
    /// The entities, sorted, each once.
    entities: Vec<u32>,
}

impl<'t> Named<'t> {
    fn new(mut pairs: Vec<(u32, &'t str)>) -> Self {
        pairs.sort_unstable();
        pairs.dedup();
        let mut entities: Vec<u32> = pairs.iter().map(|&(e, _)| e).collect();
        entities.dedup();
        Self { pairs, entities }
    }

    fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    fn contains(&self, entity: u32) -> bool {
        self.entities.binary_search(&entity).is_ok()
    }

    /// The spellings found for `entity`, in order.
    fn names_of(&self, entity: u32) -> &[(u32, &'t str)] {
        equal_range(&self.pairs, entity, |&(e, _)| e)
    }
}

/// The positions each head variant found in an article stands for: (head
/// variant, position) pairs, sorted, each once.
type Licensed = Vec<(u32, u32)>;

/// The positions `variant` stands for as a head in this article (none when it
/// is not a licensed head).
fn licensed_for(licensed: &Licensed, variant: u32) -> impl Iterator<Item = u32> + '_ {
    equal_range(licensed, variant, |&(h, _)| h)
        .iter()
        .map(|&(_, position)| position)
}

/// Decides for `article`. `same_fact`: criterion 2 must be met by a fact that
/// meets criterion 1.
pub fn select(dict: &Dictionary, article: &Article, same_fact: bool) -> Verdict {
    let doc_found = dict.matcher.scan(&article.document);
    let sum_found = dict.matcher.scan(&article.summary);
    let licensed = licensed_heads(dict, doc_found.iter().chain(&sum_found));
    let doc = named(dict, &article.document, &doc_found, &licensed);

    let full = facts_named_in_full(dict, &doc);
    if full.is_empty() {
        // Written piece by piece: most articles end here, so this is hot.
        let mut reason = String::with_capacity(256);
        reason.push_str(
            "criterion 1 failed: the document does not name both the subject and the object \
             of any evolving fact (it names ",
        );
        if doc.is_empty() {
            reason.push_str("no name of an evolving fact's subject or object");
        } else {
            reason.push_str("only ");
            list(dict, &doc.entities, &mut reason);
        }
        reason.push(')');
        return Verdict::Reject(Criterion::DocumentNamesFact, reason);
    }

    let summary = named(dict, &article.summary, &sum_found, &licensed);
    let summary_ok = if same_fact {
        full.iter().any(|f| {
            let (s, o) = dict.ends[*f as usize];
            summary.contains(s) || summary.contains(o)
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

    let matches: Vec<FactMatch> = full
        .into_iter()
        .map(|f| fact_match(dict, f, article, [&doc, &summary]))
        .collect();
    // The dictionary numbers its facts in the canonical order, and `full` is
    // in fact order: the matches are in the canonical order already.
    debug_assert!(matches.is_sorted_by(|a, b| a.canonical_cmp(b).is_le()));
    Verdict::Keep(matches)
}

/// The match of fact `f` in `article`: every name of its subject and object
/// found in the document and the summary (`named`, in that order).
fn fact_match(dict: &Dictionary, f: u32, article: &Article, named: [&Named<'_>; 2]) -> FactMatch {
    let evolving = &dict.facts[f as usize];
    let (s, o) = dict.ends[f as usize];
    let mut mentions = Vec::new();
    let ids = [
        (s, &evolving.fact.subject.id),
        (o, &evolving.fact.object.id),
    ];
    for (entity, id) in ids {
        for (field, named) in [TextField::Document, TextField::Summary]
            .into_iter()
            .zip(named)
        {
            for (_, name) in named.names_of(entity) {
                mentions.push(Mention {
                    entity: id.clone(),
                    name: name.to_string(),
                    field,
                });
            }
        }
    }
    let mut matched = FactMatch {
        fact: evolving.fact.clone(),
        mentions,
        after_change: article.published >= evolving.changed,
    };
    matched.sort_mentions();
    matched
}

/// The facts whose subject and object `doc` both names, in fact order.
fn facts_named_in_full(dict: &Dictionary, doc: &Named<'_>) -> Vec<u32> {
    let named = &doc.entities;
    // Each subject's facts are a random place in a large index: fetched for
    // every named entity first, so the misses overlap.
    for &subject in named {
        dict.prefetch_facts_of_subject(subject);
    }
    for &subject in named {
        if let Some(first) = dict.facts_of_subject(subject).first() {
            prefetch(first);
        }
    }
    // Bit `e % 1024` for each named entity `e`: most objects of a subject's
    // facts are not named, and this says so without a search.
    let mut bits = [0u64; 16];
    for &e in named {
        bits[(e as usize >> 6) & 15] |= 1 << (e & 63);
    }
    let maybe_named = |e: u32| bits[(e as usize >> 6) & 15] >> (e & 63) & 1 == 1;
    let mut full = Vec::new();
    for &subject in named {
        // Each fact's object looked up among the named, or (a position with
        // thousands of holders) each named entity among the facts' objects.
        let facts = dict.facts_of_subject(subject);
        if facts.len() <= 16 * named.len() {
            full.extend(
                facts
                    .iter()
                    .filter(|&&(o, _)| maybe_named(o) && named.binary_search(&o).is_ok())
                    .map(|&(_, fact)| fact),
            );
        } else {
            for &object in named {
                let facts = equal_range(facts, object, |&(o, _)| o);
                full.extend(facts.iter().map(|&(_, fact)| fact));
            }
        }
    }
    full.sort_unstable();
    full
}

/// The positions each head found in the article stands for: with qualifiers
/// required, those with that head whose qualifier the article names (in either
/// text); otherwise every position with that head. Work is per distinct
/// qualifier found (a list of its positions), not per occurrence, so a head
/// shared by thousands of positions ("Minister") costs little.
fn licensed_heads<'a>(dict: &'a Dictionary, found: impl Iterator<Item = &'a Found>) -> Licensed {
    let mut variants: Vec<u32> = found.map(|f| f.variant).collect();
    variants.sort_unstable();
    variants.dedup();
    let heads: Vec<u32> = variants
        .iter()
        .copied()
        .filter(|&v| dict.matcher.uses(v).contains(&NameUse::Head))
        .collect();
    let mut pairs: Licensed = Vec::new();
    if !dict.head_needs_context {
        for h in heads {
            let positions = dict.head_entities.get(&h).into_iter().flatten();
            pairs.extend(positions.map(|&p| (h, p)));
        }
        return pairs;
    }
    if !heads.is_empty() {
        for &variant in &variants {
            for name_use in dict.matcher.uses(variant) {
                if let NameUse::Qualifier(q) = name_use {
                    merge_heads(dict.licensed_by(*q), &heads, &mut pairs);
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// Adds the pairs of `licensed` (sorted by head) whose head is in `heads`
/// (sorted): one pass over both, as a qualifier licenses dozens of positions.
fn merge_heads(licensed: &[(u32, u32)], heads: &[u32], out: &mut Vec<(u32, u32)>) {
    let mut next_head = heads.iter().peekable();
    for &(head, position) in licensed {
        while next_head.next_if(|&&h| h < head).is_some() {}
        match next_head.peek() {
            Some(&&h) if h == head => out.push((head, position)),
            Some(_) => {}
            None => break,
        }
    }
}

/// Resolves what was found in `text` to entities: a head counts for the
/// positions it is licensed for in this article (see [`licensed_heads`]) and, in
/// context mode, for the positions whose holder is named right after it
/// ("President Joe Biden"); never when another " of ..." qualifier follows it or
/// a rank word precedes it ("Deputy Prime Minister" is not the prime minister).
/// A match inside a longer match counts only as part of it ("President" inside
/// "President of the United States").
fn named<'t>(dict: &Dictionary, text: &'t str, found: &[Found], licensed: &Licensed) -> Named<'t> {
    // Spans that name something: with whether their licensed head reading holds,
    // and the positions a holder's name right after them licenses.
    let valid = found.iter().filter_map(|f| {
        let uses = dict.matcher.uses(f.variant);
        let has_name = uses.iter().any(|u| matches!(u, NameUse::Name(_)));
        let is_head = uses.contains(&NameUse::Head);
        let in_place =
            is_head && !followed_by_of(text, f.end) && !preceded_by_other_rank(text, f.start);
        let head_ok = in_place && licensed_for(licensed, f.variant).next().is_some();
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
    let mut spellings: Vec<(u32, bool, &'t str)> = Vec::with_capacity(found.len());
    let mut pairs: Vec<(u32, &'t str)> = Vec::with_capacity(found.len());
    let mut reach: Option<(usize, usize)> = None;
    for (f, head_ok, by_holder) in valid {
        let span = (f.start, f.end);
        match reach {
            Some(r) if r != span && r.1 >= f.end => continue,
            Some(r) if r == span => {}
            _ => reach = Some(span),
        }
        let name = &text[f.start..f.end];
        spellings.push((f.variant, head_ok, name));
        pairs.extend(by_holder.into_iter().map(|position| (position, name)));
    }
    spellings.sort_unstable();
    spellings.dedup();
    for group in spellings.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let (variant, head_ok, _) = group[0];
        let entities = dict.matcher.uses(variant).iter().filter_map(|u| match u {
            NameUse::Name(e) => Some(*e),
            _ => None,
        });
        let heads = licensed_for(licensed, variant).filter(|_| head_ok);
        for entity in entities.chain(heads) {
            pairs.extend(group.iter().map(|&(_, _, name)| (entity, name)));
        }
    }
    Named::new(pairs)
}

/// The positions of head `head` held by someone whose name follows it after one
/// space ("President" + "Joe Biden").
fn positions_of_next_holder(
    dict: &Dictionary,
    text: &str,
    found: &[Found],
    head: &Found,
) -> Vec<u32> {
    if text.as_bytes().get(head.end) != Some(&b' ') {
        return Vec::new();
    }
    let next = head.end + 1;
    let from = found.partition_point(|g| g.start < next);
    if found.get(from).is_none_or(|g| g.start != next) {
        return Vec::new();
    }
    let Some(positions) = dict.head_entities.get(&head.variant) else {
        return Vec::new();
    };
    let mut held: Vec<u32> = found[from..]
        .iter()
        .take_while(|g| g.start == next)
        .flat_map(|g| dict.matcher.uses(g.variant))
        .filter_map(|u| match u {
            NameUse::Name(holder) => Some(*holder),
            _ => None,
        })
        .flat_map(|holder| dict.linked(holder))
        .copied()
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

/// Appends the first entities of `entities` ("Joe Biden (Q6279), ... and 3 more").
fn list(dict: &Dictionary, entities: &[u32], out: &mut String) {
    const SHOWN: usize = 5;
    for (i, &e) in entities.iter().take(SHOWN).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        dict.describe(e, out);
    }
    if entities.len() > SHOWN {
        out.push_str(&format!(" and {} more", entities.len() - SHOWN));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_exactly_the_pairs_whose_head_was_found() {
        let mut state = 5u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % n) as u32
        };
        for _ in 0..200 {
            let mut licensed: Vec<(u32, u32)> =
                (0..next(40)).map(|_| (next(12), next(100))).collect();
            licensed.sort_unstable();
            let mut heads: Vec<u32> = (0..next(6)).map(|_| next(12)).collect();
            heads.sort_unstable();
            heads.dedup();
            let mut merged = Vec::new();
            merge_heads(&licensed, &heads, &mut merged);
            let expected: Vec<(u32, u32)> = licensed
                .iter()
                .copied()
                .filter(|(h, _)| heads.contains(h))
                .collect();
            assert_eq!(merged, expected, "{licensed:?} {heads:?}");
        }
    }
}
