//! The Markdown tables of the record kinds' Parquet columns: each column's path,
//! type, nullability and meaning (the record's doc comment, through its JSON
//! schema). docs/reference.md's "Output schema" section and the dataset card's
//! fields are these tables.

use std::fmt::Write as _;

use arrow_schema::{DataType, Field};
use serde_json::Value;
use tempora_records::{
    Article, Capture, Fact, ManifestEntry, MinimalPair, Page, RecordKind, ScoredSummary,
};

use crate::schema::{arrow_schema, unit_name};

/// The type of a column as the README names it (pyarrow's names, shortened).
fn type_name(data_type: &DataType) -> String {
    match data_type {
        DataType::Utf8 => "string".into(),
        DataType::LargeUtf8 => "large_string".into(),
        DataType::Boolean => "bool".into(),
        DataType::Float64 => "double".into(),
        DataType::Int32 => "int32".into(),
        DataType::UInt64 => "uint64".into(),
        DataType::Date32 => "date32".into(),
        DataType::Timestamp(unit, tz) => {
            let unit = unit_name(*unit);
            match tz {
                Some(tz) => format!("timestamp[{unit}, {tz}]"),
                None => format!("timestamp[{unit}]"),
            }
        }
        DataType::List(item) => format!("list<{}>", type_name(item.data_type())),
        DataType::Struct(_) => "struct".into(),
        other => other.to_string().to_lowercase(),
    }
}

/// The README's "Output schema" section body: for each record kind, a table of its
/// columns (nested fields by their path, `facts[].fact`), their types, whether they
/// may be null, and what they mean (the record's doc comment).
pub fn markdown() -> String {
    let mut out = String::new();
    for kind in RecordKind::ALL {
        let schema = arrow_schema(kind);
        let docs = JsonSchemaDocs::of(kind);
        let _ = writeln!(out, "### `{kind}`\n");
        let _ = writeln!(out, "| field | type | null | meaning |\n|---|---|---|---|");
        let root = docs.root();
        for field in schema.fields() {
            rows(
                &mut out,
                kind,
                field,
                "",
                &docs,
                docs.property(root, field.name()),
            );
        }
        out.push('\n');
    }
    out
}

/// Writes the row of `field` and of the fields nested in it.
fn rows(
    out: &mut String,
    kind: RecordKind,
    field: &Field,
    prefix: &str,
    docs: &JsonSchemaDocs,
    doc: Option<&Value>,
) {
    let path = format!("{prefix}{}", field.name());
    let mut meaning = doc.map(|d| docs.description(d)).unwrap_or_default();
    // A struct that is a whole record of another kind (an article's `facts[].fact`)
    // points to that kind's table instead of repeating it.
    let (nested, item_suffix) = match field.data_type() {
        DataType::Struct(fields) => (Some(fields), ""),
        DataType::List(item) => match item.data_type() {
            DataType::Struct(fields) => (Some(fields), "[]"),
            _ => (None, ""),
        },
        _ => (None, ""),
    };
    let same_as = nested.and_then(|fields| {
        RecordKind::ALL
            .into_iter()
            .find(|other| *other != kind && arrow_schema(*other).fields() == fields)
    });
    if let Some(other) = same_as {
        let _ = write!(meaning, " Its fields are those of a `{other}` record.");
    }
    let _ = writeln!(
        out,
        "| `{path}` | `{}` | {} | {} |",
        type_name(field.data_type()),
        if field.is_nullable() { "yes" } else { "no" },
        cell(meaning.trim())
    );
    if let (Some(fields), None) = (nested, same_as) {
        let item = doc.and_then(|d| docs.item(d));
        for child in fields {
            let child_doc = item.and_then(|i| docs.property(i, child.name()));
            let prefix = format!("{path}{item_suffix}.");
            rows(out, kind, child, &prefix, docs, child_doc);
        }
    }
}

/// Text fit for one Markdown table cell: one line, no bare `|`, intra-doc links as
/// plain code (`[`X`]` to `X`).
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("[`", "`")
        .replace("`]", "`")
        .replace('|', "\\|")
}

/// A record type's JSON schema (schemars, from the doc comments), read for the
/// descriptions of its fields at any depth.
pub(crate) struct JsonSchemaDocs(Value);

impl JsonSchemaDocs {
    pub(crate) fn of(kind: RecordKind) -> Self {
        let schema = match kind {
            RecordKind::Fact => schemars::schema_for!(Fact),
            RecordKind::Capture => schemars::schema_for!(Capture),
            RecordKind::Page => schemars::schema_for!(Page),
            RecordKind::Article => schemars::schema_for!(Article),
            RecordKind::Pair => schemars::schema_for!(MinimalPair),
            RecordKind::Manifest => schemars::schema_for!(ManifestEntry),
            RecordKind::Score => schemars::schema_for!(ScoredSummary),
        };
        Self(schema.to_value())
    }

    pub(crate) fn root(&self) -> &Value {
        &self.0
    }

    /// `schema` with a `$ref` followed, and an `Option`'s `anyOf [T, null]` opened.
    pub(crate) fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let name = reference.rsplit('/').next().unwrap_or_default();
            if let Some(target) = self.0.get("$defs").and_then(|d| d.get(name)) {
                return self.resolve(target);
            }
        }
        if let Some(variants) = schema.get("anyOf").and_then(Value::as_array) {
            if let Some(some) = variants
                .iter()
                .find(|v| v.get("type") != Some(&"null".into()))
            {
                return self.resolve(some);
            }
        }
        schema
    }

    /// The schema of property `name` of the object `schema` describes.
    fn property<'a>(&'a self, schema: &'a Value, name: &str) -> Option<&'a Value> {
        self.resolve(schema).get("properties")?.get(name)
    }

    /// The schema of the items of the array `schema` describes, or `schema` itself.
    fn item<'a>(&'a self, schema: &'a Value) -> Option<&'a Value> {
        let resolved = self.resolve(schema);
        Some(resolved.get("items").unwrap_or(resolved))
    }

    /// The field's own description, then the values of an enum it holds, each
    /// with its own description where it has one (what `intro` or `highlights`
    /// means), unless the field's description names them all already.
    fn description(&self, schema: &Value) -> String {
        let own = schema
            .get("description")
            .or_else(|| self.resolve(schema).get("description"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let resolved = self.resolve(schema);
        let values: Vec<(&str, Option<&str>)> = resolved
            .get("oneOf")
            .or_else(|| resolved.get("enum"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| {
                let value = v.get("const").unwrap_or(v).as_str()?;
                Some((value, v.get("description").and_then(Value::as_str)))
            })
            .collect();
        let stated = values.iter().all(|(v, _)| own.contains(&format!("`{v}`")));
        if values.is_empty() || stated {
            return own;
        }
        // Values told by what they mean are set apart by semicolons.
        let separator = if values.iter().any(|(_, doc)| doc.is_some()) {
            "; "
        } else {
            ", "
        };
        let values: Vec<String> = values
            .iter()
            .map(|(v, doc)| match doc {
                Some(doc) => format!("`{v}`: {}", value_doc(doc)),
                None => format!("`{v}`"),
            })
            .collect();
        format!("{own} One of {}.", values.join(separator))
    }
}

/// A value's doc comment as a clause of its field's: one line, lowercase first
/// letter, no final period.
fn value_doc(doc: &str) -> String {
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let doc = doc.trim_end_matches('.');
    let mut chars = doc.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_names_every_column_with_its_doc() {
        let text = markdown();
        assert!(
            text.contains("| `published` | `date32` | no | Publication date (UTC)"),
            "{text}"
        );
        assert!(
            text.contains("| `published_at` | `timestamp[us, UTC]` | yes |"),
            "{text}"
        );
        assert!(
            text.contains("| `facts[].mentions[].field` | `string` | no |"),
            "{text}"
        );
        // An enum's values with what each means.
        assert!(
            text.contains(
                "One of `highlights`: the story highlights the page lists, one per line; \
                 `intro`: the introductory sentence the page sets apart"
            ),
            "{text}"
        );
        assert!(
            text.contains("Its fields are those of a `fact` record."),
            "{text}"
        );
        assert!(!text.contains("facts[].fact.subject"), "{text}");
        // The article's fields speak of no one site: the summary is described by
        // `summary_source`, not as one publisher's intro.
        let summary = text
            .lines()
            .find(|l| l.starts_with("| `summary` |"))
            .unwrap_or_default();
        assert!(
            summary.contains("`summary_source` says what it is"),
            "{summary}"
        );
        let article = &text[text.find("### `article`").unwrap()..text.find("### `pair`").unwrap()];
        for site in ["BBC", "XSum", "CNN"] {
            assert!(!article.contains(site), "{site} in\n{article}");
        }
        for kind in RecordKind::ALL {
            assert!(text.contains(&format!("### `{kind}`")), "{kind}");
        }
        for line in text.lines().filter(|l| l.starts_with("| `")) {
            assert!(!line.ends_with("|  |"), "no doc: {line}");
        }
    }
}
