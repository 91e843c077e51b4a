//! Text surgery for minimal pairs: where a name stands in a summary, what a
//! replacement name looks like in the same form, and the one contiguous span an
//! edit replaces (with a possessive apostrophe or an "a"/"an" before it changed to
//! agree). Offsets are bytes inside this module and characters in the records.

use tempora_records::{EntityRef, PairSpan};

use crate::conflicts::positions::unqualified_forms;
use crate::conflicts::words::on_word_boundaries;

/// A stretch of a summary that names entities: byte range and the entity ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// Ids of the entities the text names (one name may name several).
    pub entities: Vec<String>,
}

/// Every place in `text` where one of `names` ((entity id, name as found)) stands
/// on word boundaries. As in the `conflicts` matcher, a name inside a longer one
/// counts only as part of it ("President" inside "Vice President"); names found at
/// the same span merge their entities. Sorted by start.
pub fn occurrences(text: &str, names: &[(String, String)]) -> Vec<Occurrence> {
    let mut found: Vec<(usize, usize, &str)> = Vec::new();
    for (entity, name) in names {
        if name.is_empty() {
            continue;
        }
        for (start, _) in text.match_indices(name.as_str()) {
            let end = start + name.len();
            if on_word_boundaries(text, start, end) {
                found.push((start, end, entity));
            }
        }
    }
    // By start, longest first: a span is inside an earlier one when that reaches as far.
    found.sort_by_key(|&(start, end, entity)| (start, std::cmp::Reverse(end), entity));
    let mut out: Vec<Occurrence> = Vec::new();
    let mut reach = 0;
    for (start, end, entity) in found {
        match out.last_mut() {
            Some(last) if (last.start, last.end) == (start, end) => {
                if !last.entities.iter().any(|e| e == entity) {
                    last.entities.push(entity.to_string());
                }
                continue;
            }
            _ if start < reach => continue,
            _ => {}
        }
        reach = end;
        out.push(Occurrence {
            start,
            end,
            entities: vec![entity.to_string()],
        });
    }
    out
}

/// The replacement for a mention of person `stated` by person `new`, in the same
/// form: the label for the label ("Joe Biden" -> "Donald Trump"), the surname for
/// the surname ("Biden" -> "Trump"), the same words before either ("President
/// Biden" -> "President Trump"), else the label. `None` when `new` has no label.
pub fn person_form(mention: &str, stated: &EntityRef, new: &EntityRef) -> Option<String> {
    let new_label = new.label.as_deref()?;
    let new_surname = last_word(new_label);
    let Some(label) = stated.label.as_deref() else {
        return Some(new_label.to_string());
    };
    let surname = last_word(label);
    for (tail, new_tail) in [(label, new_label), (surname, new_surname)] {
        if mention.eq_ignore_ascii_case(tail) {
            return Some(new_tail.to_string());
        }
        if let Some(prefix) = strip_suffix_ci(mention, tail).and_then(|p| p.strip_suffix(' ')) {
            if !prefix.is_empty() {
                return Some(format!("{prefix} {new_tail}"));
            }
        }
    }
    Some(new_label.to_string())
}

/// The replacement for a mention of a club or company `stated` by `new`, in the
/// same form: the label for the label ("Dunmere Athletic F.C." -> "Harwick
/// Rovers F.C."); for a short name that begins the label, a name of `new` that
/// begins its label, with as many words where there is one ("Dunmere Athletic"
/// -> "Harwick Rovers", "Dunmere" -> "Harwick"), else the shortest; else the
/// label. `None` when `new` has no label.
pub fn name_form(mention: &str, stated: &EntityRef, new: &EntityRef) -> Option<String> {
    let new_label = new.label.as_deref()?;
    let begins = |label: &str, name: &str| {
        strip_prefix_ci(label, name).is_some_and(|rest| rest.starts_with(' '))
    };
    if !stated.label.as_deref().is_some_and(|l| begins(l, mention)) {
        return Some(new_label.to_string());
    }
    let words = mention.split(' ').count();
    let mut short: Vec<&String> = new
        .aliases
        .iter()
        .filter(|a| begins(new_label, a))
        .collect();
    // As many words first, then the shortest.
    short.sort_by_key(|a| (a.split(' ').count() != words, a.len()));
    Some(short.first().map_or(new_label, |a| a.as_str()).to_string())
}

/// The replacement for a title `mention` of position `stated` by position `new`
/// in the same form: the full label for the full label; for the head ("President")
/// the head of `new` ("Vice President"), with a qualifier before it kept ("US
/// President" -> "US Vice President"), in the mention's case. `None` when `new`
/// has no name of that form.
pub fn position_form(mention: &str, stated: &EntityRef, new: &EntityRef) -> Option<String> {
    let new_label = new.label.as_deref()?;
    if stated
        .label
        .as_deref()
        .is_some_and(|l| l.eq_ignore_ascii_case(mention))
    {
        return Some(new_label.to_string());
    }
    let new_title = title(new)?;
    let heads = titles(stated);
    let (prefix, head) = heads.iter().find_map(|h| {
        if mention.eq_ignore_ascii_case(h) {
            return Some(("", mention));
        }
        let prefix = strip_suffix_ci(mention, h)?.strip_suffix(' ')?;
        Some((prefix, &mention[prefix.len() + 1..]))
    })?;
    let replaced = in_case_of(head, &new_title);
    Some(if prefix.is_empty() {
        replaced
    } else {
        format!("{prefix} {replaced}")
    })
}

/// The heads a mention of a position may be: those of its "<head> of
/// <qualifier>" names ("Prime Minister", "Secretary"), else names that end another
/// of its names after a space ("senator" of "United States senator").
fn titles(position: &EntityRef) -> Vec<String> {
    let names: Vec<&str> = position.names().collect();
    let heads: Vec<String> = unqualified_forms(&names)
        .into_iter()
        .map(|f| f.head)
        .collect();
    if heads.is_empty() {
        suffix_heads(&names)
    } else {
        heads
    }
}

/// Names of one word that end another name after a space ("senator").
fn suffix_heads(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .filter(|n| {
            !n.contains(' ')
                && names.iter().any(|other| {
                    strip_suffix_ci(other, n).is_some_and(|p| p.ends_with(' ') && p.len() > 1)
                })
        })
        .map(|n| n.to_string())
        .collect()
}

/// The title a position's holder is named with, from its label first (aliases
/// split at " of " give heads as vague as "Secretary"): the label's head ("Vice
/// President" of "Vice President of the United States"), else a one-word name
/// ending others ("senator"), else the label itself when it is capitalized and
/// has no " of " ("Foreign Secretary").
fn title(position: &EntityRef) -> Option<String> {
    let label = position.label.as_deref()?;
    if let Some(form) = unqualified_forms(&[label]).into_iter().next() {
        return Some(form.head);
    }
    let names: Vec<&str> = position.names().collect();
    suffix_heads(&names).into_iter().next().or_else(|| {
        (!label.contains(" of ") && label.chars().next().is_some_and(char::is_uppercase))
            .then(|| label.to_string())
    })
}

/// `new` written in the case of `like`: lower case for a lower-case mention
/// ("the president"), each word capitalized for a capitalized one ("Senator"),
/// else as it is.
fn in_case_of(like: &str, new: &str) -> String {
    if !like.chars().any(char::is_uppercase) {
        return new.to_lowercase();
    }
    if like.chars().next().is_some_and(char::is_uppercase) {
        return new
            .split(' ')
            .map(|w| match w {
                "of" | "the" | "and" => w.to_string(),
                _ => {
                    let mut chars = w.chars();
                    chars.next().map_or_else(String::new, |c| {
                        c.to_uppercase().chain(chars).collect::<String>()
                    })
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
    new.to_string()
}

/// An edit of `text`: the byte range replaced and the text put there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// What goes in its place.
    pub replacement: String,
}

impl Edit {
    /// The replacement of `text[start..end]` by `name`, made to agree with its
    /// surroundings: a bare possessive apostrophe ("Harris' vote") becomes "'s"
    /// when the new name does not end in s ("Pence's vote"), and an "a"/"an" right
    /// before the name changes with it ("a US senator" -> "an MP"); either way the
    /// edit stays one contiguous span.
    pub fn agreeing(text: &str, start: usize, end: usize, name: &str) -> Self {
        let mut edit = Self {
            start,
            end,
            replacement: name.to_string(),
        };
        let after = &text[end..];
        let bare_apostrophe = ["'", "\u{2019}"].into_iter().find(|a| {
            after.starts_with(a)
                && !after[a.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric())
        });
        if let Some(apostrophe) = bare_apostrophe {
            let old_ends_s = text[start..end].ends_with(['s', 'S']);
            if old_ends_s && !name.ends_with(['s', 'S']) {
                edit.end += apostrophe.len();
                edit.replacement = format!("{name}{apostrophe}s");
            }
        }
        if let Some((article_start, article)) = article_before(text, start) {
            let wanted = indefinite_article(name);
            if !article.eq_ignore_ascii_case(wanted) {
                let wanted = if article.starts_with(['A']) {
                    capitalized(wanted)
                } else {
                    wanted.to_string()
                };
                let gap = &text[article_start + article.len()..start];
                edit.replacement = format!("{wanted}{gap}{}", edit.replacement);
                edit.start = article_start;
            }
        }
        edit
    }

    /// `text` with the edit applied.
    pub fn apply(&self, text: &str) -> String {
        format!(
            "{}{}{}",
            &text[..self.start],
            self.replacement,
            &text[self.end..]
        )
    }

    /// The edit as a record's span: offsets in characters, as Python counts them.
    pub fn span(&self, text: &str) -> PairSpan {
        let start = text[..self.start].chars().count();
        let original = text[self.start..self.end].to_string();
        PairSpan {
            start,
            end: start + original.chars().count(),
            original,
            replacement: self.replacement.clone(),
        }
    }
}

/// The word "a" or "an" (any case) that ends right before byte `at` after one
/// space: its start and its text.
fn article_before(text: &str, at: usize) -> Option<(usize, &str)> {
    let before = text[..at].strip_suffix(' ')?;
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric())
        .last()
        .map(|(i, _)| i)?;
    let word = &before[word_start..];
    (word.eq_ignore_ascii_case("a") || word.eq_ignore_ascii_case("an"))
        .then_some((word_start, word))
}

/// "a" or "an" before `phrase`, by its first word's sound as far as spelling
/// tells: "an" before a vowel letter ("an Interior Minister"), except the "you"
/// and "wun" sounds ("a union", "a European", "a one-off"); before a silent h
/// ("an honorary"); before an acronym whose first letter's name starts with a
/// vowel ("an MP", "a US senator").
pub fn indefinite_article(phrase: &str) -> &'static str {
    let word: String = phrase
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '.')
        .filter(|c| *c != '.')
        .collect();
    let Some(first) = word.chars().next() else {
        return "a";
    };
    let acronym = word.chars().count() > 1 && word.chars().all(|c| c.is_uppercase());
    if acronym {
        return if "AEFHILMNORSX".contains(first) {
            "an"
        } else {
            "a"
        };
    }
    let lower = word.to_lowercase();
    const YOU_OR_WUN: [&str; 7] = ["uni", "use", "usu", "ure", "eu", "one", "once"];
    const SILENT_H: [&str; 4] = ["hour", "honest", "honor", "heir"];
    if YOU_OR_WUN.iter().any(|p| lower.starts_with(p)) {
        return "a";
    }
    if SILENT_H.iter().any(|p| lower.starts_with(p)) {
        return "an";
    }
    if "aeiou".contains(lower.chars().next().unwrap_or('x')) {
        "an"
    } else {
        "a"
    }
}

/// Whether `name` (or, for a position, the text a mention of it used) stands in
/// `text` on word boundaries, ASCII case folded.
pub fn occurs_in(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    // ASCII folding keeps byte offsets, so boundaries are checked on the original.
    let haystack = text.to_ascii_lowercase();
    let needle = name.to_ascii_lowercase();
    haystack
        .match_indices(&needle)
        .any(|(at, _)| on_word_boundaries(text, at, at + needle.len()))
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

fn last_word(name: &str) -> &str {
    name.rsplit(' ').next().unwrap_or(name)
}

/// `s` without `prefix` at its start, compared ASCII case folded.
fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// `s` without `suffix` at its end, compared ASCII case folded.
fn strip_suffix_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    let tail = s.get(cut..)?;
    tail.eq_ignore_ascii_case(suffix).then(|| &s[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(label: &str, aliases: &[&str]) -> EntityRef {
        EntityRef {
            id: format!("Q{}", label.len()),
            label: Some(label.into()),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn a_name_inside_a_longer_one_is_part_of_it() {
        let text = "Vice President Kamala Harris met President Joe Biden.";
        let names = [
            ("Q11699".to_string(), "Vice President".to_string()),
            ("Q11696".to_string(), "President".to_string()),
            ("Q6279".to_string(), "Joe Biden".to_string()),
        ];
        let found = occurrences(text, &names);
        let spans: Vec<(&str, &[String])> = found
            .iter()
            .map(|o| (&text[o.start..o.end], o.entities.as_slice()))
            .collect();
        assert_eq!(
            spans,
            [
                ("Vice President", &["Q11699".to_string()][..]),
                ("President", &["Q11696".to_string()][..]),
                ("Joe Biden", &["Q6279".to_string()][..]),
            ]
        );
        assert_eq!(found[1].start, text.rfind("President").unwrap());
    }

    #[test]
    fn names_not_on_word_boundaries_are_not_occurrences() {
        let names = [("Q6279".to_string(), "Biden".to_string())];
        assert!(occurrences("Bidenomics is a word.", &names).is_empty());
        assert_eq!(occurrences("Biden's dog", &names).len(), 1);
    }

    #[test]
    fn people_are_replaced_in_the_form_they_were_named() {
        let biden = entity("Joe Biden", &["Biden", "President Biden"]);
        let trump = entity("Donald Trump", &["Trump"]);
        let form = |m| person_form(m, &biden, &trump);
        assert_eq!(form("Joe Biden").as_deref(), Some("Donald Trump"));
        assert_eq!(form("Biden").as_deref(), Some("Trump"));
        assert_eq!(form("President Biden").as_deref(), Some("President Trump"));
        assert_eq!(
            form("Joseph Robinette Biden Jr.").as_deref(),
            Some("Donald Trump")
        );
    }

    #[test]
    fn clubs_are_replaced_in_the_form_they_were_named() {
        let dunmere = entity(
            "Dunmere Athletic F.C.",
            &["Dunmere", "Dunmere Athletic", "the Athletic"],
        );
        let harwick = entity(
            "Harwick Rovers F.C.",
            &["Rovers", "Harwick", "Harwick Rovers"],
        );
        let form = |m| name_form(m, &dunmere, &harwick);
        assert_eq!(
            form("Dunmere Athletic F.C.").as_deref(),
            Some("Harwick Rovers F.C.")
        );
        // A name of as many words that begins the label.
        assert_eq!(form("Dunmere Athletic").as_deref(), Some("Harwick Rovers"));
        assert_eq!(form("Dunmere").as_deref(), Some("Harwick"));
        assert_eq!(form("the Athletic").as_deref(), Some("Harwick Rovers F.C."));
        let selby = entity(
            "Selby Bay Wanderers F.C.",
            &["Selby Bay Wanderers", "Selby Bay"],
        );
        assert_eq!(
            name_form("Dunmere", &dunmere, &selby).as_deref(),
            Some("Selby Bay"),
            "none of one word: the shortest"
        );
        let bare = entity("Selby Foods", &[]);
        assert_eq!(
            name_form("Dunmere", &dunmere, &bare).as_deref(),
            Some("Selby Foods")
        );
    }

    #[test]
    fn titles_become_the_other_positions_title_in_the_same_case() {
        let president = entity("President of the United States", &["US President", "POTUS"]);
        let vice = entity(
            "Vice President of the United States",
            &["US Vice President"],
        );
        let senator = entity("United States senator", &["US senator", "senator"]);
        let form = |m, new: &EntityRef| position_form(m, &president, new);
        assert_eq!(form("President", &vice).as_deref(), Some("Vice President"));
        assert_eq!(form("president", &vice).as_deref(), Some("vice president"));
        assert_eq!(
            form("US President", &vice).as_deref(),
            Some("US Vice President")
        );
        assert_eq!(
            form("President of the United States", &vice).as_deref(),
            Some("Vice President of the United States")
        );
        assert_eq!(form("President", &senator).as_deref(), Some("Senator"));
        let pm = entity(
            "Prime Minister of the United Kingdom",
            &["UK Prime Minister"],
        );
        assert_eq!(
            position_form("Prime Minister", &pm, &president).as_deref(),
            Some("President")
        );
        let untitled = entity("member of the Bundestag", &[]);
        assert_eq!(form("President", &untitled), None);
    }

    #[test]
    fn possessives_and_articles_agree_and_the_span_stays_one() {
        let text = "Harris' vote decided it.";
        let edit = Edit::agreeing(text, 0, 6, "Mike Pence");
        assert_eq!(edit.apply(text), "Mike Pence's vote decided it.");
        assert_eq!(edit.span(text).original, "Harris'");

        let text = "Joe Biden's dog";
        let edit = Edit::agreeing(text, 0, 9, "Donald Trump");
        assert_eq!(edit.apply(text), "Donald Trump's dog");
        assert_eq!((edit.start, edit.end), (0, 9));

        let text = "She met a US senator, said an MP.";
        let edit = Edit::agreeing(text, 10, 20, "Interior Minister");
        assert_eq!(
            edit.apply(text),
            "She met an Interior Minister, said an MP."
        );
        assert_eq!(edit.span(text).original, "a US senator");
        let edit = Edit::agreeing(text, 30, 32, "senator");
        assert_eq!(edit.apply(text), "She met a US senator, said a senator.");
        // Agreeing already: the span is the name alone.
        let edit = Edit::agreeing(text, 10, 20, "UK minister");
        assert_eq!(edit.start, 10);
    }

    #[test]
    fn spans_count_characters_as_python_does() {
        let text = "Élysée: Président Macron";
        let start = text.find("Macron").unwrap();
        let edit = Edit::agreeing(text, start, text.len(), "Hollande");
        let span = edit.span(text);
        assert_eq!((span.start, span.end), (18, 24));
        let chars: Vec<char> = text.chars().collect();
        let original: String = chars[span.start..span.end].iter().collect();
        assert_eq!(original, span.original);
    }

    #[test]
    fn indefinite_articles_follow_the_sound() {
        for (phrase, article) in [
            ("Interior Minister", "an"),
            ("president", "a"),
            ("MP", "an"),
            ("US senator", "a"),
            ("U.S. senator", "a"),
            ("European commissioner", "a"),
            ("union leader", "a"),
            ("honorary consul", "an"),
            ("", "a"),
        ] {
            assert_eq!(indefinite_article(phrase), article, "{phrase}");
        }
    }

    #[test]
    fn occurs_in_folds_ascii_case_on_word_boundaries() {
        let doc = "The vice president spoke. Trumpet players played.";
        assert!(occurs_in(doc, "Vice President"));
        assert!(!occurs_in(doc, "Trump"));
        assert!(!occurs_in(doc, ""));
    }
}
