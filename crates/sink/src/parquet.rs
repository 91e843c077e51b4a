//! Parquet files: records written with their kind's declared Arrow schema
//! ([`crate::schema`]), and Parquet read back through polars.
//!
//! Writing goes from the records straight to Arrow arrays (`serde_arrow`, with the
//! schema traced from the record types) and through arrow-rs' `ArrowWriter` (zstd).
//! Not through polars: its JSON reader guesses a schema per file (an all-null column
//! becomes type null, dates stay text), and its writer stores strings as
//! `string_view`, which pandas cannot convert inside lists. arrow-rs writes the
//! declared types as they are, plus the Arrow schema in the file's metadata, so
//! pyarrow, pandas and `datasets` read back exactly those types.
//!
//! Reading stays with polars (the `parquet` source, novelty's training files): it
//! reads any Parquet file, ours or a foreign one, and turns a row into the JSON the
//! records deserialize from (`date32` as `2021-01-20`, timestamps as RFC 3339).

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use polars::prelude::*;
use serde_arrow::ArrayBuilder;
use tempora_records::{Record, RecordKind};

use crate::schema::arrow_schema;

/// Records per Arrow batch: small enough that no string column of a batch nears
/// its 2 GiB limit (pages carry whole HTML bodies), large enough to amortize.
const BATCH_ROWS: usize = 1024;

/// Why a Parquet file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The kind's declared schema has a type `serde_arrow` cannot build (a broken
    /// invariant, caught by the tests).
    #[error("no Arrow builder for {kind} records: {source}")]
    Schema {
        /// The kind.
        kind: RecordKind,
        /// `serde_arrow`'s error.
        source: serde_arrow::Error,
    },
    /// A file holds one kind of record; this one is of another.
    #[error("row {row}: a {found} record in a file of {kind} records (one kind per Parquet file: put `{{kind}}` in the path)")]
    MixedKinds {
        /// The file's kind (its first record's).
        kind: RecordKind,
        /// The kind of the record at `row`.
        found: RecordKind,
        /// 1-based row.
        row: usize,
    },
    /// A record's value does not fit its column.
    #[error("row {row} ({kind} `{key}`): {source}")]
    Record {
        /// The kind.
        kind: RecordKind,
        /// 1-based row.
        row: usize,
        /// The record's sort key (its id, date, URL).
        key: String,
        /// `serde_arrow`'s error, naming the field.
        source: serde_arrow::Error,
    },
    /// Encoding or writing the file failed.
    #[error(transparent)]
    Parquet(#[from] parquet::errors::ParquetError),
    /// Building a batch failed.
    #[error("building an Arrow batch: {0}")]
    Batch(serde_arrow::Error),
}

/// What a Parquet file's footer says about it, read without its rows.
#[derive(Debug, Clone)]
pub struct Footer {
    /// The Arrow schema (the one stored in the file's metadata, else the one
    /// derived from the Parquet schema).
    pub schema: arrow_schema::SchemaRef,
    /// Rows in the file.
    pub rows: u64,
}

/// Reads the footer of a Parquet file: its Arrow schema and row count.
///
/// # Errors
/// The file is not Parquet (bad magic, truncated footer) or its schema has no
/// Arrow form.
pub fn read_footer(file: std::fs::File) -> Result<Footer, parquet::errors::ParquetError> {
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)?;
    let rows = builder.metadata().file_metadata().num_rows();
    Ok(Footer {
        schema: builder.schema().clone(),
        rows: u64::try_from(rows).unwrap_or(0),
    })
}

/// Writes `records`, all of `kind`, as one Parquet file (zstd) with `kind`'s
/// declared schema, in the given order. No records give a file with the schema and
/// no rows.
///
/// # Errors
/// [`WriteError`]: a record of another kind, a value its column cannot hold
/// (naming the row and the record), or the write failing.
pub fn write_records<R: std::borrow::Borrow<Record>>(
    kind: RecordKind,
    records: impl IntoIterator<Item = R>,
    file: &std::fs::File,
) -> Result<(), WriteError> {
    let schema = arrow_schema(kind);
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(properties))?;
    let mut builder = ArrayBuilder::from_arrow(schema.fields())
        .map_err(|source| WriteError::Schema { kind, source })?;
    let mut rows = 0;
    for (i, record) in records.into_iter().enumerate() {
        let record = record.borrow();
        if record.kind() != kind {
            return Err(WriteError::MixedKinds {
                kind,
                found: record.kind(),
                row: i + 1,
            });
        }
        let pushed = match record {
            Record::Fact(r) => builder.push(&**r),
            Record::Capture(r) => builder.push(&**r),
            Record::Page(r) => builder.push(&**r),
            Record::Article(r) => builder.push(&**r),
            Record::Pair(r) => builder.push(&**r),
            Record::Manifest(r) => builder.push(&**r),
            Record::Score(r) => builder.push(&**r),
        };
        pushed.map_err(|source| WriteError::Record {
            kind,
            row: i + 1,
            key: record.sort_key().replace('\t', " "),
            source,
        })?;
        rows += 1;
        if rows == BATCH_ROWS {
            writer.write(&finish_batch(&mut builder)?)?;
            rows = 0;
        }
    }
    if rows > 0 {
        writer.write(&finish_batch(&mut builder)?)?;
    }
    writer.close()?;
    Ok(())
}

fn finish_batch(builder: &mut ArrayBuilder) -> Result<RecordBatch, WriteError> {
    builder.to_record_batch().map_err(WriteError::Batch)
}

/// Writes JSON lines as one Parquet file through polars, the schema inferred from
/// the lines. For rows that are no record kind (a foreign training file in a test);
/// records go through [`write_records`], with their declared schema. Only in builds
/// for tests (the `testing` feature).
///
/// # Errors
/// polars' error when the lines cannot form one table or the write fails.
#[cfg(any(test, feature = "testing"))]
pub fn write_json_lines<'a>(
    lines: impl Iterator<Item = &'a [u8]>,
    file: &std::fs::File,
) -> PolarsResult<()> {
    let mut buffer = Vec::new();
    for line in lines {
        buffer.extend_from_slice(line);
        buffer.push(b'\n');
    }
    let mut frame = JsonReader::new(std::io::Cursor::new(buffer))
        .with_json_format(JsonFormat::JsonLines)
        .infer_schema_len(None)
        .finish()?;
    ParquetWriter::new(file)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(&mut frame)?;
    Ok(())
}

/// A polars reader of `file`, whose footer arrow-rs has read first: polars 0.55
/// panics on some corrupt footers ("thrift bool field") where arrow-rs returns an
/// error.
///
/// # Errors
/// The file's footer is not Parquet metadata.
pub fn checked_reader(file: std::fs::File) -> PolarsResult<ParquetReader<std::fs::File>> {
    ::parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .map_err(|e| polars_err!(ComputeError: "not a Parquet file: {e}"))?;
    Ok(ParquetReader::new(file))
}

/// Runs a polars read, turning a panic of the reader (a corrupt page the footer
/// check cannot see) into an error.
///
/// # Errors
/// `f`'s error, or the reader's panic as an error.
pub fn guarded<T>(f: impl FnOnce() -> PolarsResult<T>) -> PolarsResult<T> {
    caught("the Parquet file is corrupt (the reader failed", f)
}

/// Runs `f`, turning a panic into an error: `what`, then the panic's message.
fn caught<T>(what: &str, f: impl FnOnce() -> PolarsResult<T>) -> PolarsResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(ToString::to_string)
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(polars_err!(ComputeError: "{what}: {message})"))
    })
}

/// Reads a Parquet file as JSON lines (one per row).
///
/// # Errors
/// polars' error when the file is not Parquet or cannot be read, or has a column
/// JSON cannot hold (binary data: `SchemaMismatch` naming the column).
pub fn read_json_lines(file: std::fs::File) -> PolarsResult<Vec<u8>> {
    let mut frame = guarded(|| checked_reader(file)?.finish())?;
    let binary = frame
        .columns()
        .iter()
        .find(|c| matches!(c.dtype(), DataType::Binary | DataType::BinaryOffset));
    if let Some(column) = binary {
        polars_bail!(SchemaMismatch: "column `{}` holds binary data, which has no JSON form", column.name());
    }
    let mut buffer = Vec::new();
    // polars' JSON writer panics on the types it has no JSON form for.
    caught("a column has no JSON form (the writer failed", || {
        JsonWriter::new(&mut buffer)
            .with_json_format(JsonFormat::JsonLines)
            .finish(&mut frame)
    })?;
    Ok(buffer)
}

/// Reads one text column of a Parquet file, one value per row: string columns as
/// they are, lists of strings joined with newlines (highlights exported as lists).
///
/// # Errors
/// polars' error when the file cannot be read; `ColumnNotFound` naming the columns
/// the file has when `column` is not one of them; `SchemaMismatch` for a column that
/// is not text.
pub fn read_text_column(file: std::fs::File, column: &str) -> PolarsResult<Vec<Option<String>>> {
    let mut reader = checked_reader(file)?;
    let schema = guarded(|| reader.schema())?;
    if schema.get(column).is_none() {
        let names: Vec<String> = schema.iter_names().map(|n| n.to_string()).collect();
        polars_bail!(ColumnNotFound: "no column `{column}` (the file has: {})", names.join(", "));
    }
    let frame = guarded(|| reader.with_columns(Some(vec![column.to_string()])).finish())?;
    let values = frame.column(column)?;
    match values.dtype() {
        DataType::String => Ok(values
            .str()?
            .iter()
            .map(|v| v.map(str::to_string))
            .collect()),
        DataType::List(inner) if **inner == DataType::String => {
            let mut out = Vec::with_capacity(values.len());
            for row in values.list()?.amortized_iter() {
                out.push(match row {
                    Some(items) => Some(
                        items
                            .as_ref()
                            .str()?
                            .iter()
                            .flatten()
                            .collect::<Vec<_>>()
                            .join("\n"),
                    ),
                    None => None,
                });
            }
            Ok(out)
        }
        other => {
            polars_bail!(SchemaMismatch: "column `{column}` holds {other}, not text")
        }
    }
}

/// Copies the rows of a Parquet file for which `keep` is true to `out`, in order,
/// with the file's own schema.
///
/// # Errors
/// polars' error when the file cannot be read or written; `ShapeMismatch` when `keep`
/// does not have one value per row.
pub fn write_rows_where(
    file: std::fs::File,
    keep: &[bool],
    out: &std::fs::File,
) -> PolarsResult<()> {
    let frame = guarded(|| checked_reader(file)?.finish())?;
    if frame.height() != keep.len() {
        polars_bail!(ShapeMismatch: "{} rows, {} selections", frame.height(), keep.len());
    }
    let mask = BooleanChunked::from_slice("keep".into(), keep);
    let mut kept = frame.filter(&mask)?;
    ParquetWriter::new(out)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(&mut kept)?;
    Ok(())
}
