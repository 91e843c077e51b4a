//! The declared Arrow schema of each record kind: what every Parquet file of that
//! kind holds, whatever its rows (a column that is empty or all null in one file
//! keeps its type, so the files of one kind concatenate).
//!
//! The fields are declared here, not traced: `serde_arrow` cannot trace chrono's
//! dates or a flattened struct (a page's capture) from the types, and tracing from
//! sample rows is what made the old files differ. A test holds the declaration to
//! the records' serde fields (names, order, nesting), so a field added to a record
//! without its column fails the tests. The rules:
//!
//! - Dates (`NaiveDate`: `published`) are `date32`; times (`DateTime<Utc>`:
//!   `published_at`) are `timestamp[us, UTC]`.
//! - Strings are plain `string` (32-bit offsets), never a view type: every Arrow
//!   reader (pyarrow, pandas, `datasets`, polars, Spark) takes them, and a file is
//!   written in batches small enough that no column of a batch nears 2 GiB.
//! - Enums without data (`published_source`, `summary_source`, `fact_error`, a mention's `field`) are
//!   `string` columns of their snake_case names, as in JSONL (not dictionaries).
//! - Nested records (`facts`, `novelty`, a pair's `span` and `fact`) are structs
//!   and lists of structs, with the JSON field names; list items are never null.
//! - Counts and offsets are `uint64` (`length`, a span's `start`/`end`); the HTTP
//!   `status` is `int32`, the narrowest integer every reader has (polars, as this
//!   crate builds it, reads no 16-bit column). A field is nullable exactly when it
//!   is an `Option`.
//! - What JSONL writes as text stays text: Wayback capture times (`captured`,
//!   `timestamp`: 14 digits `YYYYMMDDhhmmss`; an article not read from a capture
//!   has the empty text) are the key the Archive files a capture under and go verbatim into replay URLs (`/web/<timestamp>/<url>`);
//!   as text they sort in time order and compare equal to JSONL, and no CDX line
//!   can fail the write. Wikidata's dates (`start`, `end`, `pair_changed`) are cut
//!   to their precision (`2019-06`, `2019`): no `date32` holds them without
//!   inventing a day. A page's `body` is base64, as in JSONL.
//!
//! [`crate::schema_doc`] renders the schema with the records' doc comments as
//! docs/reference.md's "Output schema" section and the dataset card's fields.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use tempora_records::RecordKind;

/// The Arrow schema of `kind`'s Parquet files.
pub fn arrow_schema(kind: RecordKind) -> SchemaRef {
    let fields = match kind {
        RecordKind::Fact => fact(),
        RecordKind::Capture => capture(),
        RecordKind::Page => page(),
        RecordKind::Article => article(),
        RecordKind::Pair => pair(),
        RecordKind::Manifest => manifest(),
        RecordKind::Score => score(),
    };
    Arc::new(Schema::new(fields))
}

fn text(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn text_or_null(name: &str) -> Field {
    Field::new(name, DataType::Utf8, true)
}

fn date(name: &str) -> Field {
    Field::new(name, DataType::Date32, false)
}

fn time_or_null(name: &str) -> Field {
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    Field::new(name, utc, true)
}

fn structure(name: &str, fields: Vec<Field>, nullable: bool) -> Field {
    Field::new(name, DataType::Struct(Fields::from(fields)), nullable)
}

/// A list that may be empty but is never null, of items that are never null.
fn list(name: &str, item: DataType) -> Field {
    Field::new_list(name, Field::new_list_field(item, false), false)
}

fn list_of_structures(name: &str, fields: Vec<Field>) -> Field {
    list(name, DataType::Struct(Fields::from(fields)))
}

/// [`tempora_records::EntityRef`]
fn entity(name: &str) -> Field {
    let fields = vec![
        text("id"),
        text_or_null("label"),
        list("aliases", DataType::Utf8),
    ];
    structure(name, fields, false)
}

/// [`Fact`]
fn fact() -> Vec<Field> {
    vec![
        entity("subject"),
        text("relation"),
        entity("object"),
        text_or_null("start"),
        text_or_null("end"),
        text_or_null("replaces"),
        text_or_null("replaced_by"),
        text("rank"),
        Field::new("valid_at_cutoff", DataType::Boolean, false),
        text_or_null("pair_changed"),
    ]
}

/// [`Capture`]
fn capture() -> Vec<Field> {
    vec![
        text("url"),
        text("timestamp"),
        // No 16-bit column: polars, as this crate builds it, reads none.
        Field::new("status", DataType::Int32, true),
        text("mime"),
        text("digest"),
        Field::new("length", DataType::UInt64, true),
        text("source"),
    ]
}

/// [`Page`]: its capture's fields flattened in, as in JSON.
fn page() -> Vec<Field> {
    let mut fields = capture();
    fields.extend([
        text("body"),
        text_or_null("content_type"),
        text("final_url"),
        text_or_null("memento_datetime"),
    ]);
    fields
}

/// [`tempora_records::FactMatch`]
fn fact_match() -> Vec<Field> {
    let mention = vec![text("entity"), text("name"), text("field")];
    vec![
        structure("fact", fact(), false),
        list_of_structures("mentions", mention),
        Field::new("after_change", DataType::Boolean, false),
    ]
}

/// [`tempora_records::Novelty`]
fn novelty() -> Vec<Field> {
    vec![
        Field::new("overlap", DataType::Float64, false),
        text("bin"),
        text_or_null("tag"),
    ]
}

/// [`Article`]
fn article() -> Vec<Field> {
    vec![
        text("id"),
        text("url"),
        text("source"),
        text("section"),
        date("published"),
        time_or_null("published_at"),
        text_or_null("published_source"),
        text("captured"),
        text("title"),
        text("summary"),
        text_or_null("summary_source"),
        text("document"),
        text_or_null("dateline"),
        list_of_structures("facts", fact_match()),
        list("relations", DataType::Utf8),
        text_or_null("split"),
        structure("novelty", novelty(), true),
        text_or_null("archived_url"),
        text_or_null("digest"),
        text_or_null("payload_sha1"),
    ]
}

/// [`ManifestEntry`]
fn manifest() -> Vec<Field> {
    vec![
        text("source"),
        text("id"),
        text("section"),
        text_or_null("split"),
        structure("novelty", novelty(), true),
        text("url"),
        date("published"),
        text_or_null("published_source"),
        text_or_null("summary_source"),
        text("timestamp"),
        text("archived_url"),
        text("digest"),
        text("payload_sha1"),
        text("text_sha256"),
        list_of_structures("facts", fact_match()),
    ]
}

/// [`MinimalPair`]
fn pair() -> Vec<Field> {
    let span = vec![
        Field::new("start", DataType::UInt64, false),
        Field::new("end", DataType::UInt64, false),
        text("original"),
        text("replacement"),
    ];
    let edited_fact = vec![
        text("subject"),
        text("relation"),
        text("stated"),
        text("substituted"),
    ];
    vec![
        text("id"),
        text("article_id"),
        text("article"),
        text("reference_summary"),
        text("edited_summary"),
        text("error_type"),
        text("fact_error"),
        structure("span", span, false),
        date("published"),
        text("source"),
        text_or_null("split"),
        structure("fact", edited_fact, false),
    ]
}

/// [`tempora_records::ClaimEntity`]
fn claim_entity() -> Vec<Field> {
    vec![text_or_null("id"), text("label")]
}

/// [`ScoredSummary`]
fn score() -> Vec<Field> {
    let evidence = vec![
        text("relation"),
        text("person"),
        text("position"),
        text_or_null("start"),
        text_or_null("end"),
    ];
    let claim = vec![
        text("text"),
        Field::new("start", DataType::UInt64, false),
        Field::new("end", DataType::UInt64, false),
        structure("person", claim_entity(), false),
        structure("position", claim_entity(), false),
        text_or_null("relation"),
        text("tense"),
        Field::new("implied", DataType::Boolean, false),
        text("verdict"),
        text("reason"),
        list_of_structures("holders_at_date", claim_entity()),
        list_of_structures("evidence", evidence),
    ];
    vec![
        text("id"),
        text("system"),
        text_or_null("set"),
        date("published"),
        text("summary"),
        list_of_structures("claims", claim),
    ]
}

/// Arrow's short name of a time unit (`s`, `ms`, `us`, `ns`), as pyarrow and
/// `datasets` write it in `timestamp[...]`.
pub(crate) fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_doc::JsonSchemaDocs;
    use serde_json::Value;

    /// The field names of a JSON schema object, nested objects and arrays of
    /// objects opened, as `(path, names)` pairs.
    fn json_names(docs: &JsonSchemaDocs, schema: &Value, path: &str, out: &mut Vec<String>) {
        let resolved = docs.resolve(schema);
        let object = docs.resolve(resolved.get("items").unwrap_or(resolved));
        let Some(properties) = object.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, property) in properties {
            let path = format!("{path}.{name}");
            out.push(path.clone());
            json_names(docs, property, &path, out);
        }
    }

    fn arrow_names(fields: &Fields, path: &str, out: &mut Vec<String>) {
        for field in fields {
            let path = format!("{path}.{}", field.name());
            out.push(path.clone());
            match field.data_type() {
                DataType::Struct(nested) => arrow_names(nested, &path, out),
                DataType::List(item) => {
                    if let DataType::Struct(nested) = item.data_type() {
                        arrow_names(nested, &path, out);
                    }
                }
                _ => {}
            }
        }
    }

    #[test]
    fn the_declared_columns_are_the_records_serde_fields_in_order() {
        for kind in RecordKind::ALL {
            let docs = JsonSchemaDocs::of(kind);
            let mut json = Vec::new();
            json_names(&docs, docs.root(), "", &mut json);
            let mut arrow = Vec::new();
            arrow_names(arrow_schema(kind).fields(), "", &mut arrow);
            assert_eq!(arrow, json, "{kind}");
        }
    }

    fn all_types(data_type: &DataType, out: &mut Vec<DataType>) {
        out.push(data_type.clone());
        match data_type {
            DataType::List(item) => all_types(item.data_type(), out),
            DataType::Struct(fields) => fields.iter().for_each(|f| all_types(f.data_type(), out)),
            _ => {}
        }
    }

    #[test]
    fn every_kind_has_a_schema_of_plain_types() {
        for kind in RecordKind::ALL {
            let mut types = Vec::new();
            for field in arrow_schema(kind).fields() {
                all_types(field.data_type(), &mut types);
            }
            for data_type in types {
                assert!(
                    matches!(
                        data_type,
                        DataType::Utf8
                            | DataType::Boolean
                            | DataType::Int32
                            | DataType::UInt64
                            | DataType::Float64
                            | DataType::Date32
                            | DataType::Timestamp(TimeUnit::Microsecond, Some(_))
                            | DataType::List(_)
                            | DataType::Struct(_)
                    ),
                    "{kind}: {data_type}"
                );
            }
        }
    }
}
