//! The card's YAML front matter, written as text: a small tree of maps, lists and
//! scalars in block style, the way the Hub writes `configs` and `dataset_info`.
//!
//! No YAML crate is in the workspace, and the card needs only this much. A string
//! is written plain only when no YAML reader could take it for anything else
//! (letters, digits, `_`, `-`, `.`, `/`, starting with a letter or `_`, and not a
//! YAML 1.1 boolean or null word); otherwise it is written as a JSON string, which
//! is a valid YAML double-quoted scalar (YAML 1.2 is a superset of JSON), so any
//! text, quotes, newlines and control characters included, reads back unchanged.

use std::fmt::Write as _;

/// A YAML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Yaml {
    /// A string.
    Text(String),
    /// A non-negative integer.
    Count(u64),
    /// A boolean.
    Flag(bool),
    /// A sequence.
    List(Vec<Yaml>),
    /// A mapping, in this order.
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    /// A string value.
    pub fn text(s: impl Into<String>) -> Self {
        Self::Text(s.into())
    }

    /// A mapping from `(key, value)` pairs.
    pub fn map<const N: usize>(entries: [(&str, Yaml); N]) -> Self {
        Self::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }
}

/// YAML 1.1 words that a reader (PyYAML, which `datasets` uses) takes for a
/// boolean or null when plain.
const RESERVED: [&str; 12] = [
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "none", "nan", "inf",
];

/// `s` as a YAML scalar: plain when that is unambiguous, else double-quoted.
pub fn scalar(s: &str) -> String {
    let plain = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !RESERVED.contains(&s.to_ascii_lowercase().as_str());
    if plain {
        s.to_string()
    } else {
        // A JSON string is a YAML double-quoted scalar; serializing a &str cannot fail.
        serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
    }
}

/// Renders `value` (a mapping) as a YAML document body, without the `---` lines.
pub fn render(value: &Yaml) -> String {
    let mut out = String::new();
    node(&mut out, value, 0);
    out
}

fn inline(value: &Yaml) -> Option<String> {
    match value {
        Yaml::Text(s) => Some(scalar(s)),
        Yaml::Count(n) => Some(n.to_string()),
        Yaml::Flag(b) => Some(b.to_string()),
        Yaml::List(items) if items.is_empty() => Some("[]".into()),
        Yaml::Map(entries) if entries.is_empty() => Some("{}".into()),
        Yaml::List(_) | Yaml::Map(_) => None,
    }
}

/// Writes a mapping's entries or a list's items, each line indented by `indent`.
fn node(out: &mut String, value: &Yaml, indent: usize) {
    let pad = " ".repeat(indent);
    match value {
        Yaml::Map(entries) => {
            for (key, value) in entries {
                entry(out, &pad, key, value, indent);
            }
        }
        Yaml::List(items) => {
            for item in items {
                match item {
                    Yaml::Map(entries) if !entries.is_empty() => {
                        // The first entry on the dash's line, the rest under it.
                        let inner = " ".repeat(indent + 2);
                        for (i, (key, value)) in entries.iter().enumerate() {
                            let lead = if i == 0 {
                                format!("{pad}- ")
                            } else {
                                inner.clone()
                            };
                            entry(out, &lead, key, value, indent + 2);
                        }
                    }
                    other => match inline(other) {
                        Some(text) => {
                            let _ = writeln!(out, "{pad}- {text}");
                        }
                        None => {
                            let _ = writeln!(out, "{pad}-");
                            node(out, other, indent + 2);
                        }
                    },
                }
            }
        }
        other => {
            let _ = writeln!(out, "{pad}{}", inline(other).unwrap_or_default());
        }
    }
}

/// `key: value` after `lead`; a nested list stays at the key's indent (the Hub's
/// style), a nested map goes two deeper.
fn entry(out: &mut String, lead: &str, key: &str, value: &Yaml, indent: usize) {
    let key = scalar(key);
    match inline(value) {
        Some(text) => {
            let _ = writeln!(out, "{lead}{key}: {text}");
        }
        None => {
            let _ = writeln!(out, "{lead}{key}:");
            let child = if matches!(value, Yaml::List(_)) {
                indent
            } else {
                indent + 2
            };
            node(out, value, child);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_only_when_unambiguous() {
        assert_eq!(scalar("future"), "future");
        assert_eq!(
            scalar("novelty/future.T_nov.parquet"),
            "novelty/future.T_nov.parquet"
        );
        assert_eq!(scalar("in_distribution"), "in_distribution");
        for quoted in [
            "",
            "yes",
            "No",
            "on",
            "null",
            "true",
            "2019-12-31",
            "0-100",
            "-1",
            ".inf",
            "a: b",
            "#x",
            "x #y",
            "[x]",
            "timestamp[us, tz=UTC]",
            "it's",
            "a\"b",
            "*x",
            "&x",
            "!x",
            "%x",
            "@x",
            "`x",
            "x\ny",
            "é",
            " x",
            "x ",
        ] {
            let s = scalar(quoted);
            assert!(s.starts_with('"') && s.ends_with('"'), "{quoted:?} -> {s}");
            // The quoted form is JSON, and JSON reads back the same text.
            assert_eq!(serde_json::from_str::<String>(&s).unwrap(), quoted);
        }
    }

    #[test]
    fn nested_maps_and_lists_in_the_hubs_block_style() {
        let doc = Yaml::map([
            (
                "configs",
                Yaml::List(vec![Yaml::map([
                    ("config_name", Yaml::text("sets")),
                    ("default", Yaml::Flag(true)),
                    (
                        "data_files",
                        Yaml::List(vec![Yaml::map([
                            ("split", Yaml::text("future")),
                            ("path", Yaml::List(vec![Yaml::text("a b.parquet")])),
                        ])]),
                    ),
                ])]),
            ),
            (
                "features",
                Yaml::List(vec![Yaml::map([
                    ("name", Yaml::text("facts")),
                    (
                        "list",
                        Yaml::List(vec![Yaml::map([
                            ("name", Yaml::text("after_change")),
                            ("dtype", Yaml::text("bool")),
                        ])]),
                    ),
                ])]),
            ),
            ("empty", Yaml::List(vec![])),
            ("n", Yaml::Count(12)),
        ]);
        let expected = "\
configs:
- config_name: sets
  default: true
  data_files:
  - split: future
    path:
    - \"a b.parquet\"
features:
- name: facts
  list:
  - name: after_change
    dtype: bool
empty: []
\"n\": 12
";
        assert_eq!(render(&doc), expected);
    }
}
