//! How a position is named without its qualifier.
//!
//! News writes "the prime minister" and "the president" far more often than
//! "Prime Minister of the United Kingdom". A position label of the form
//! `<head> of <qualifier>` gives the head ("Prime Minister") and the qualifier
//! ("United Kingdom"); the position's other names add qualifier spellings: an
//! alias `<X> <head>` ("UK Prime Minister", "British Prime Minister") makes `X` a
//! qualifier too. A head alone is ambiguous (every country has a prime minister),
//! so by default it counts only when the article also names one of its qualifiers.

/// The unqualified form of a position and the words that make it this position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unqualified {
    /// The head as written in the label: "Prime Minister".
    pub head: String,
    /// Qualifier spellings: "United Kingdom", "UK", "British".
    pub qualifiers: Vec<String>,
}

/// The unqualified forms of a position with these names (label first, then aliases).
///
/// Every ` of ` in a name gives a split ("Governor of the Bank of England" gives
/// "Governor" + "Bank of England" and "Governor of the Bank" + "England"). Heads
/// that do not start with a capital letter are skipped: Wikidata writes titles
/// capitalized and generic roles in lower case ("member of the House of Commons"),
/// and "member" alone names nothing.
pub fn unqualified_forms(names: &[&str]) -> Vec<Unqualified> {
    let mut forms: Vec<Unqualified> = Vec::new();
    for name in names {
        for (at, _) in name.match_indices(" of ") {
            let head = name[..at].trim();
            let qualifier = strip_article(name[at + " of ".len()..].trim());
            if !starts_upper(head) || qualifier.is_empty() {
                continue;
            }
            match forms.iter_mut().find(|f| f.head.eq_ignore_ascii_case(head)) {
                Some(form) => push_unique(&mut form.qualifiers, qualifier),
                None => forms.push(Unqualified {
                    head: head.to_string(),
                    qualifiers: vec![qualifier.to_string()],
                }),
            }
        }
    }
    for form in &mut forms {
        for name in names {
            if let Some(prefix) = strip_suffix_ascii_ci(name, &form.head) {
                let Some(prefix) = prefix.strip_suffix(' ') else {
                    continue;
                };
                let qualifier = strip_article(prefix.trim());
                if starts_upper(qualifier) {
                    push_unique(&mut form.qualifiers, qualifier);
                }
            }
        }
    }
    forms
}

/// Whether `name` is only a head of `forms` (an alias "President" of the President
/// of the United States is as ambiguous as the head itself).
pub fn is_head(name: &str, forms: &[Unqualified]) -> bool {
    forms
        .iter()
        .any(|f| f.head.eq_ignore_ascii_case(name.trim()))
}

fn strip_article(s: &str) -> &str {
    match s.get(..4) {
        Some(the) if the.eq_ignore_ascii_case("the ") => s[4..].trim_start(),
        _ => s,
    }
}

fn starts_upper(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_uppercase)
}

fn strip_suffix_ascii_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    let tail = s.get(cut..)?;
    tail.eq_ignore_ascii_case(suffix).then(|| &s[..cut])
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|q| q == item) {
        list.push(item.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_and_aliases_give_head_and_qualifiers() {
        let forms = unqualified_forms(&[
            "Prime Minister of the United Kingdom",
            "UK Prime Minister",
            "British prime minister",
            "PM",
        ]);
        assert_eq!(
            forms,
            [Unqualified {
                head: "Prime Minister".into(),
                qualifiers: vec!["United Kingdom".into(), "UK".into(), "British".into()],
            }]
        );
        assert!(is_head("prime minister", &forms));
        assert!(!is_head("UK Prime Minister", &forms));
    }

    #[test]
    fn every_of_gives_a_split() {
        let forms = unqualified_forms(&["Governor of the Bank of England"]);
        let heads: Vec<(&str, &str)> = forms
            .iter()
            .map(|f| (f.head.as_str(), f.qualifiers[0].as_str()))
            .collect();
        assert_eq!(
            heads,
            [
                ("Governor", "Bank of England"),
                ("Governor of the Bank", "England")
            ]
        );
    }

    #[test]
    fn generic_roles_and_names_without_of_give_nothing() {
        assert!(
            unqualified_forms(&["member of the House of Commons of the United Kingdom"]).is_empty()
        );
        assert!(unqualified_forms(&["United States senator", "Chancellor"]).is_empty());
        assert!(unqualified_forms(&["President of "]).is_empty());
    }
}
