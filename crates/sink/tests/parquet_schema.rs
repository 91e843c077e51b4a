//! Every Parquet file of a record kind has the kind's declared schema, whatever its
//! rows; the values read back are the records written.

use std::collections::HashMap;
use std::path::Path;

use arrow_schema::{DataType, Field, SchemaRef, TimeUnit};
use chrono::{NaiveDate, TimeZone, Utc};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use tempora_engine::testing::{context, run_stage};
use tempora_engine::PipelineContext;
use tempora_records::{
    Article, Capture, EditedFact, EntityRef, Fact, FactError, FactMatch, Mention, MinimalPair,
    Novelty, Page, PairSpan, Record, RecordKind, SummarySource, TextField,
};
use tempora_sink::schema::arrow_schema;

fn configure(
    name: &str,
    ctx: &PipelineContext,
    toml: &str,
) -> Box<dyn tempora_engine::StageConfig> {
    let kind = tempora_sink::kinds()
        .into_iter()
        .find(|k| k.name == name)
        .unwrap();
    let table: toml::Table = toml::from_str(toml).unwrap();
    match (kind.configure)(table, ctx) {
        Ok(c) => c,
        Err(e) => panic!("{e:?}"),
    }
}

/// An article with every optional field null and every list empty.
fn bare_article(id: &str) -> Article {
    Article {
        id: id.into(),
        url: format!("https://www.bbc.co.uk/news/uk-{id}"),
        source: "bbc".into(),
        section: "news".into(),
        published: NaiveDate::from_ymd_opt(2014, 4, 21).unwrap(),
        published_at: None,
        published_source: None,
        captured: Some("20140421200134".parse().unwrap()),
        title: "Title".into(),
        summary: "Summary.".into(),
        summary_source: None,
        document: "Body.".into(),
        dateline: None,
        facts: Vec::new(),
        relations: Vec::new(),
        split: None,
        novelty: None,
        archived_url: None,
        digest: None,
        payload_sha1: None,
    }
}

fn entity(id: &str, label: Option<&str>, aliases: &[&str]) -> EntityRef {
    EntityRef {
        id: id.into(),
        label: label.map(str::to_string),
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
    }
}

fn fact() -> Fact {
    Fact {
        subject: entity("Q11696", Some("President of the United States"), &["POTUS"]),
        relation: "P1308".into(),
        object: entity("Q6279", Some("Joe Biden"), &[]),
        start: Some("2021-01-20".into()),
        end: None,
        replaces: Some("Q22686".into()),
        replaced_by: None,
        rank: "normal".into(),
        valid_at_cutoff: false,
        pair_changed: Some("2021-01".into()),
    }
}

/// An article with every field set, nested records included.
fn full_article(id: &str) -> Article {
    Article {
        published: NaiveDate::from_ymd_opt(2021, 1, 21).unwrap(),
        published_at: Some(Utc.with_ymd_and_hms(2021, 1, 21, 1, 58, 44).unwrap()),
        published_source: Some(tempora_records::PublishedSource::Page),
        summary_source: Some(SummarySource::Highlights),
        dateline: Some("WASHINGTON (CNN)".into()),
        facts: vec![FactMatch {
            fact: fact(),
            mentions: vec![Mention {
                entity: "Q6279".into(),
                name: "Joe Biden".into(),
                field: TextField::Summary,
            }],
            after_change: true,
        }],
        relations: vec!["P1308".into()],
        split: Some("future".into()),
        novelty: Some(Novelty {
            overlap: 31.8182,
            bin: "5-100".into(),
            tag: Some("T_sim".into()),
        }),
        ..bare_article(id)
    }
}

fn capture() -> Capture {
    Capture {
        url: "http://www.bbc.co.uk/news/uk-1".into(),
        timestamp: "20150102030405".parse().unwrap(),
        status: None,
        mime: "text/html".into(),
        digest: "ABC".into(),
        length: Some(1234),
        source: "pages".into(),
    }
}

fn pair() -> MinimalPair {
    MinimalPair {
        id: "1#Q11696.P1308.outdated".into(),
        article_id: "1".into(),
        article: "Joe Biden signed orders.".into(),
        reference_summary: "Joe Biden signed.".into(),
        edited_summary: "Donald Trump signed.".into(),
        error_type: "Intrinsic Entity Error".into(),
        fact_error: FactError::Outdated,
        span: PairSpan {
            start: 0,
            end: 9,
            original: "Joe Biden".into(),
            replacement: "Donald Trump".into(),
        },
        published: NaiveDate::from_ymd_opt(2021, 1, 22).unwrap(),
        source: "bbc".into(),
        split: None,
        fact: EditedFact {
            subject: "Q11696".into(),
            relation: "P1308".into(),
            stated: "Q6279".into(),
            substituted: "Q22686".into(),
        },
    }
}

/// One record of each kind, with values in every field.
fn one_of_each_kind() -> Vec<Record> {
    vec![
        Record::Fact(Box::new(fact())),
        Record::Capture(Box::new(capture())),
        Record::Page(Box::new(Page {
            capture: capture(),
            body: b"<html>\xe9</html>".to_vec(),
            content_type: Some("text/html; charset=iso-8859-1".into()),
            final_url: "http://www.bbc.co.uk/news/uk-1".into(),
            memento_datetime: None,
        })),
        Record::Article(Box::new(full_article("1"))),
        Record::Pair(Box::new(pair())),
    ]
}

async fn write(dir: &Path, file: &str, records: Vec<Record>) {
    let ctx = context(dir);
    let sink = configure("parquet", &ctx, &format!("path = \"{file}\""));
    let output = run_stage(sink, &ctx, records, HashMap::new())
        .await
        .unwrap();
    assert!(output.rejected.is_empty(), "{:?}", output.rejected);
}

/// The Arrow schema a reader sees: the one stored in the file's metadata, or, with
/// `from_parquet_types`, the one the Parquet column types alone give.
fn schema_of(path: &Path, from_parquet_types: bool) -> SchemaRef {
    let file = std::fs::File::open(path).unwrap();
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(from_parquet_types);
    ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .unwrap()
        .schema()
        .clone()
}

fn every_type(field: &Field, out: &mut Vec<(String, DataType)>) {
    out.push((field.name().clone(), field.data_type().clone()));
    match field.data_type() {
        DataType::List(item) | DataType::LargeList(item) => every_type(item, out),
        DataType::Struct(fields) => fields.iter().for_each(|f| every_type(f, out)),
        _ => {}
    }
}

fn assert_no_view_types(schema: &SchemaRef) {
    let mut types = Vec::new();
    schema
        .fields()
        .iter()
        .for_each(|f| every_type(f, &mut types));
    for (name, data_type) in types {
        assert!(
            !matches!(
                data_type,
                DataType::Utf8View
                    | DataType::BinaryView
                    | DataType::ListView(_)
                    | DataType::LargeListView(_)
                    | DataType::Null
            ),
            "`{name}` is {data_type}"
        );
    }
}

#[tokio::test]
async fn a_file_of_nulls_and_a_file_of_values_have_the_same_declared_schema() {
    let dir = tempfile::tempdir().unwrap();
    let bare = Record::Article(Box::new(bare_article("1")));
    let full = Record::Article(Box::new(full_article("2")));
    write(dir.path(), "bare.parquet", vec![bare]).await;
    write(dir.path(), "full.parquet", vec![full]).await;

    let declared = arrow_schema(RecordKind::Article);
    for from_parquet_types in [false, true] {
        let bare = schema_of(&dir.path().join("bare.parquet"), from_parquet_types);
        let full = schema_of(&dir.path().join("full.parquet"), from_parquet_types);
        assert_eq!(bare, full, "from Parquet types only: {from_parquet_types}");
        assert_no_view_types(&bare);
        let published = bare.field_with_name("published").unwrap();
        assert_eq!(published.data_type(), &DataType::Date32);
        let DataType::Timestamp(TimeUnit::Microsecond, Some(tz)) =
            bare.field_with_name("published_at").unwrap().data_type()
        else {
            panic!("{bare:#?}")
        };
        // Parquet stores "adjusted to UTC"; arrow-rs names that zone `+00:00`.
        assert!(["UTC", "+00:00"].contains(&tz.as_ref()), "{tz}");
        assert_eq!(
            bare.field_with_name("title").unwrap().data_type(),
            &DataType::Utf8
        );
        assert!(matches!(
            bare.field_with_name("facts").unwrap().data_type(),
            DataType::List(item) if matches!(item.data_type(), DataType::Struct(_))
        ));
    }
    // What pyarrow and pandas read: the declared schema itself.
    assert_eq!(
        schema_of(&dir.path().join("bare.parquet"), false).fields(),
        declared.fields()
    );
}

#[tokio::test]
async fn every_kind_is_written_with_its_declared_schema_and_read_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    for record in one_of_each_kind() {
        let kind = record.kind();
        let file = format!("{kind}.parquet");
        write(dir.path(), &file, vec![record.clone()]).await;
        let path = dir.path().join(&file);
        let schema = schema_of(&path, false);
        assert_eq!(schema.fields(), arrow_schema(kind).fields(), "{kind}");
        assert_no_view_types(&schema);

        let ctx = context(dir.path());
        let source = configure(
            "parquet-source",
            &ctx,
            &format!("paths = [\"{}\"]\nrecord = \"{kind}\"", path.display()),
        );
        let output = run_stage(source, &ctx, Vec::new(), HashMap::new())
            .await
            .unwrap();
        assert!(output.rejected.is_empty(), "{kind}: {:?}", output.rejected);
        assert_eq!(output.out(), std::slice::from_ref(&record), "{kind}");
    }
}

#[tokio::test]
async fn the_same_records_give_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<Record> = (0..3)
        .map(|i| Record::Article(Box::new(full_article(&i.to_string()))))
        .collect();
    let mut reversed = records.clone();
    reversed.reverse();
    write(dir.path(), "a.parquet", records).await;
    write(dir.path(), "b.parquet", reversed).await;
    assert_eq!(
        std::fs::read(dir.path().join("a.parquet")).unwrap(),
        std::fs::read(dir.path().join("b.parquet")).unwrap()
    );
}

#[tokio::test]
async fn records_of_two_kinds_in_one_file_are_an_error_that_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let sink = configure("parquet", &ctx, "path = \"mixed.parquet\"");
    let input = vec![
        Record::Article(Box::new(bare_article("1"))),
        Record::Pair(Box::new(pair())),
    ];
    let err = run_stage(sink, &ctx, input, HashMap::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("mixed.parquet"), "{err}");
    assert!(
        err.contains("a pair record in a file of article records"),
        "{err}"
    );
    assert!(err.contains("{kind}"), "{err}");
    assert!(!dir.path().join("mixed.parquet").exists());
}

#[tokio::test]
async fn the_footer_gives_the_declared_schema_and_the_row_count_without_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let articles: Vec<Record> = (1..=3)
        .map(|i| Record::Article(Box::new(full_article(&i.to_string()))))
        .collect();
    write(dir.path(), "three.parquet", articles).await;
    let file = std::fs::File::open(dir.path().join("three.parquet")).unwrap();
    let footer = tempora_sink::parquet::read_footer(file).unwrap();
    assert_eq!(footer.rows, 3);
    assert_eq!(
        footer.schema.fields(),
        arrow_schema(RecordKind::Article).fields()
    );
    std::fs::write(dir.path().join("not.parquet"), b"PAR1 not really").unwrap();
    let file = std::fs::File::open(dir.path().join("not.parquet")).unwrap();
    assert!(tempora_sink::parquet::read_footer(file).is_err());
}
