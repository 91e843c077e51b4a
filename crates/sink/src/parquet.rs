//! JSON lines <-> Parquet through polars. Records are JSON first (their serde
//! schema is the public one), so the Parquet columns carry the same names and
//! nesting as the JSONL output; the schema is inferred from every record.

use std::io::Cursor;

use polars::prelude::*;

/// Writes JSON lines as one Parquet file.
///
/// # Errors
/// polars' error when the lines cannot form one table or the write fails.
pub fn write_json_lines<'a>(
    lines: impl Iterator<Item = &'a [u8]>,
    file: &std::fs::File,
) -> PolarsResult<()> {
    let mut buffer = Vec::new();
    for line in lines {
        buffer.extend_from_slice(line);
        buffer.push(b'\n');
    }
    let mut frame = JsonReader::new(Cursor::new(buffer))
        .with_json_format(JsonFormat::JsonLines)
        .infer_schema_len(None)
        .finish()?;
    ParquetWriter::new(file)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(&mut frame)?;
    Ok(())
}

/// Reads a Parquet file as JSON lines (one per row).
///
/// # Errors
/// polars' error when the file is not Parquet or cannot be read.
pub fn read_json_lines(file: std::fs::File) -> PolarsResult<Vec<u8>> {
    let mut frame = ParquetReader::new(file).finish()?;
    let mut buffer = Vec::new();
    JsonWriter::new(&mut buffer)
        .with_json_format(JsonFormat::JsonLines)
        .finish(&mut frame)?;
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
    let mut reader = ParquetReader::new(file);
    let schema = reader.schema()?;
    if schema.get(column).is_none() {
        let names: Vec<String> = schema.iter_names().map(|n| n.to_string()).collect();
        polars_bail!(ColumnNotFound: "no column `{column}` (the file has: {})", names.join(", "));
    }
    let frame = reader
        .with_columns(Some(vec![column.to_string()]))
        .finish()?;
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
    let frame = ParquetReader::new(file).finish()?;
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
