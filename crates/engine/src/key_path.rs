//! A key path into a pipeline document (`stages.split.sets[1].from`), as the
//! problems print it and `--set` takes it (`stages.split.sets.1.from` too), and a
//! `--set KEY.PATH=VALUE` override: parsed once, by this module only.

use std::fmt;

/// A key path: the keys from the document's top, a number in brackets (or a
/// key of digits) standing for a list's item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPath(Vec<String>);

impl KeyPath {
    /// Parses `a.b[0].c` or `a.b.0.c`.
    ///
    /// # Errors
    /// An empty key (`a..b`, a trailing dot), or brackets that hold no index.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut keys = Vec::new();
        for part in text.trim().split('.') {
            let (name, indices) = part
                .split_once('[')
                .map_or((part, ""), |(n, rest)| (n, rest));
            if name.is_empty() && (keys.is_empty() || indices.is_empty()) {
                return Err(format!("`{text}`: empty key in the path"));
            }
            if !name.is_empty() {
                keys.push(name.to_string());
            }
            if indices.is_empty() {
                continue;
            }
            // `0]`, `0][1]`: each index closed by its bracket.
            for index in format!("[{indices}").split_terminator(']') {
                let index = index
                    .strip_prefix('[')
                    .filter(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(|| format!("`{text}`: `[{indices}` is not a list index"))?;
                keys.push(index.to_string());
            }
            if !indices.ends_with(']') {
                return Err(format!("`{text}`: `[{indices}` is not closed"));
            }
        }
        Ok(Self(keys))
    }

    /// Its keys, a list's index as its digits.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// The value it leads to in `table`, if any.
    pub fn get<'a>(&self, table: &'a toml::Table) -> Option<&'a toml::Value> {
        let (first, rest) = self.0.split_first()?;
        let mut node = table.get(first)?;
        for key in rest {
            node = match node {
                toml::Value::Table(t) => t.get(key)?,
                toml::Value::Array(items) => items.get(key.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The table it belongs to: `stages.NAME` for a stage's key, else its first key.
    pub fn table(&self) -> KeyPath {
        let n = if self.0.first().is_some_and(|k| k == "stages") {
            2
        } else {
            1
        };
        Self(self.0.iter().take(n).cloned().collect())
    }
}

impl fmt::Display for KeyPath {
    /// `stages.split.sets[1].from`: as the problems print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, key) in self.0.iter().enumerate() {
            let index = i > 0 && !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit());
            match (i, index) {
                (_, true) => write!(f, "[{key}]")?,
                (0, false) => f.write_str(key)?,
                _ => write!(f, ".{key}")?,
            }
        }
        Ok(())
    }
}

/// A `--set KEY.PATH=VALUE` as given: its key path and its value (TOML, else a
/// string).
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// As given.
    pub given: String,
    /// The key path.
    pub path: KeyPath,
    /// The value (`2023-06-30`, `42`, `["x"]` as TOML; anything else a string).
    pub value: toml::Value,
}

impl Override {
    /// Parses `KEY.PATH=VALUE`.
    ///
    /// # Errors
    /// No `=`, or a key path that does not parse.
    pub fn parse(given: &str) -> Result<Self, String> {
        let (path, raw) = given.split_once('=').ok_or("expected KEY.PATH=VALUE")?;
        Ok(Self {
            given: given.to_string(),
            path: KeyPath::parse(path)?,
            value: parse_value(raw.trim()),
        })
    }
}

fn parse_value(raw: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_of_an_index_are_one_path_printed_as_problems_print_it() {
        let brackets = KeyPath::parse("pipeline.sets[0].from").unwrap();
        let dots = KeyPath::parse("pipeline.sets.0.from").unwrap();
        assert_eq!(brackets, dots);
        assert_eq!(brackets.to_string(), "pipeline.sets[0].from");
        assert_eq!(
            KeyPath::parse("stages.a.m[1][2]").unwrap().to_string(),
            "stages.a.m[1][2]"
        );
        assert_eq!(
            KeyPath::parse("stages.split.sets[1].from")
                .unwrap()
                .table()
                .to_string(),
            "stages.split"
        );
        for bad in ["", "a..b", "a.", "a[x]", "a[1", "a[]", ".a"] {
            assert!(KeyPath::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_path_finds_the_value_in_tables_and_lists() {
        let table: toml::Table =
            toml::from_str("[pipeline]\nsets = [{ from = \"x\" }]\n[stages.a]\nm = [[1, 2]]")
                .unwrap();
        let get = |p: &str| KeyPath::parse(p).unwrap().get(&table).cloned();
        assert_eq!(get("pipeline.sets[0].from"), Some("x".into()));
        assert_eq!(get("stages.a.m[0][1]"), Some(2.into()));
        assert_eq!(get("stages.a.m[1]"), None);
        assert_eq!(get("pipeline.sets.from"), None);
    }

    #[test]
    fn an_override_is_a_path_and_a_toml_value_or_a_string() {
        let o = Override::parse("pipeline.cutoff = 2023-06-30").unwrap();
        assert_eq!(o.path.to_string(), "pipeline.cutoff");
        assert!(matches!(o.value, toml::Value::Datetime(_)));
        let s = Override::parse("stages.a.path=out/{split}.jsonl").unwrap();
        assert_eq!(s.value, toml::Value::String("out/{split}.jsonl".into()));
        assert!(Override::parse("no-equals").is_err());
    }
}
