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
