//! The Hugging Face `datasets` features of an Arrow schema: what a dataset card's
//! `dataset_info.features` declares for a Parquet file, so that
//! `datasets.load_dataset` reads the file with exactly its own types.
//!
//! The mapping is `datasets.Features.from_arrow_schema`'s for the types Tempora
//! writes: a primitive is a `Value` named by its Arrow type (`string`, `bool`,
//! `float64`, `uint64`, `date32`, `timestamp[us, tz=UTC]`), a struct a dict of
//! features, a list a `List` of its item's feature. `datasets` features carry no
//! nullability, so a schema's nullable flags are not part of them. A type outside
//! that set is an error, not a guess.

use arrow_schema::{DataType, Field, Schema};

/// One feature: a value, a list of a feature, or a struct of named features.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feature {
    /// A `Value` of this dtype (`string`, `date32`, ...).
    Value(String),
    /// A `List` of items of one feature.
    List(Box<Feature>),
    /// A struct: named features in order.
    Struct(Vec<(String, Feature)>),
}

/// The features of `schema`'s columns, in order.
///
/// # Errors
/// A column (named by its path, `facts[].fact`) of a type `datasets` has no
/// feature for here: dictionaries, views, maps, unions, decimals.
pub fn features(schema: &Schema) -> Result<Vec<(String, Feature)>, String> {
    schema
        .fields()
        .iter()
        .map(|f| Ok((f.name().clone(), feature(f, f.name())?)))
        .collect()
}

fn feature(field: &Field, path: &str) -> Result<Feature, String> {
    let value = |dtype: &str| Ok(Feature::Value(dtype.to_string()));
    match field.data_type() {
        DataType::Utf8 => value("string"),
        DataType::LargeUtf8 => value("large_string"),
        DataType::Boolean => value("bool"),
        DataType::Int8 => value("int8"),
        DataType::Int16 => value("int16"),
        DataType::Int32 => value("int32"),
        DataType::Int64 => value("int64"),
        DataType::UInt8 => value("uint8"),
        DataType::UInt16 => value("uint16"),
        DataType::UInt32 => value("uint32"),
        DataType::UInt64 => value("uint64"),
        DataType::Float32 => value("float32"),
        DataType::Float64 => value("float64"),
        DataType::Date32 => value("date32"),
        DataType::Date64 => value("date64"),
        DataType::Timestamp(unit, tz) => {
            let unit = crate::schema::unit_name(*unit);
            match tz {
                Some(tz) => value(&format!("timestamp[{unit}, tz={tz}]")),
                None => value(&format!("timestamp[{unit}]")),
            }
        }
        DataType::List(item) => Ok(Feature::List(Box::new(feature(
            item,
            &format!("{path}[]"),
        )?))),
        DataType::Struct(fields) => fields
            .iter()
            .map(|f| {
                Ok((
                    f.name().clone(),
                    feature(f, &format!("{path}.{}", f.name()))?,
                ))
            })
            .collect::<Result<_, String>>()
            .map(Feature::Struct),
        other => Err(format!(
            "column `{path}` is {other}, which has no `datasets` feature here"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::arrow_schema;
    use tempora_records::RecordKind;

    fn value(dtype: &str) -> Feature {
        Feature::Value(dtype.into())
    }

    fn fields(pairs: &[(&str, Feature)]) -> Feature {
        Feature::Struct(
            pairs
                .iter()
                .map(|(n, f)| ((*n).to_string(), f.clone()))
                .collect(),
        )
    }

    /// What `datasets.Features.from_arrow_schema(pq.read_schema("pairs.parquet"))`
    /// gives (datasets 5.2), written out by hand.
    #[test]
    fn a_pair_has_the_features_datasets_reads() {
        let got = Feature::Struct(features(&arrow_schema(RecordKind::Pair)).unwrap());
        let text = value("string");
        let expected = fields(&[
            ("id", text.clone()),
            ("article_id", text.clone()),
            ("article", text.clone()),
            ("reference_summary", text.clone()),
            ("edited_summary", text.clone()),
            ("error_type", text.clone()),
            ("fact_error", text.clone()),
            (
                "span",
                fields(&[
                    ("start", value("uint64")),
                    ("end", value("uint64")),
                    ("original", text.clone()),
                    ("replacement", text.clone()),
                ]),
            ),
            ("published", value("date32")),
            ("source", text.clone()),
            ("split", text.clone()),
            (
                "fact",
                fields(&[
                    ("subject", text.clone()),
                    ("relation", text.clone()),
                    ("stated", text.clone()),
                    ("substituted", text),
                ]),
            ),
        ]);
        assert_eq!(got, expected);
    }

    #[test]
    fn lists_times_and_nested_structs_of_an_article() {
        let got = features(&arrow_schema(RecordKind::Article)).unwrap();
        let get = |name: &str| got.iter().find(|(n, _)| n == name).unwrap().1.clone();
        assert_eq!(get("published_at"), value("timestamp[us, tz=UTC]"));
        let Feature::List(fact_match) = get("facts") else {
            panic!("facts is a list")
        };
        let Feature::Struct(fact_match) = *fact_match else {
            panic!("of structs")
        };
        assert_eq!(fact_match[0].0, "fact");
        assert_eq!(fact_match[2], ("after_change".into(), value("bool")));
        assert_eq!(
            get("novelty"),
            fields(&[
                ("overlap", value("float64")),
                ("bin", value("string")),
                ("tag", value("string")),
            ])
        );
    }

    #[test]
    fn a_type_without_a_feature_is_named_not_guessed() {
        let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let item = Field::new("tag", dictionary, true);
        let schema = Schema::new(vec![Field::new(
            "novelty",
            DataType::Struct(vec![item].into()),
            true,
        )]);
        let err = features(&schema).unwrap_err();
        assert!(err.contains("`novelty.tag`"), "{err}");
    }
}
