//! Minimal pairs (the `minimal-pairs` stage's records, issue 15) counted per set,
//! fact error and BUMP error type: files whose records have `edited_summary` and
//! `fact_error`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::ReportError;
use crate::read::{for_each_chunk, SetFile};

/// Pairs of one set, fact error and error type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PairCount {
    /// The articles' set (`split`), or the file stem when the pair has none.
    pub set: String,
    /// `outdated` or `non_verifiable`.
    pub fact_error: String,
    /// BUMP's label: `Intrinsic Entity Error` or `Extrinsic Entity Error`.
    pub error_type: String,
    /// Pairs.
    pub pairs: u64,
}

/// Counts the pairs of `files`, sorted by set, fact error and error type.
///
/// # Errors
/// A file that cannot be read, or a line that is not a JSON object with string
/// `fact_error` and `error_type` (named with its file and line).
pub fn count(files: &[SetFile]) -> Result<Vec<PairCount>, ReportError> {
    let mut counts: BTreeMap<(String, String, String), u64> = BTreeMap::new();
    for file in files {
        for_each_chunk(file, 4096, |lines| {
            for (number, line) in lines {
                let bad = |message: String| ReportError::BadRecord {
                    path: file.path.clone(),
                    line: *number,
                    message,
                };
                let record: serde_json::Value =
                    serde_json::from_slice(line).map_err(|e| bad(format!("not JSON: {e}")))?;
                let text = |field: &str| {
                    record[field]
                        .as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(format!("`{field}` is not a string")))
                };
                let set = record["split"]
                    .as_str()
                    .map_or_else(|| file.name.clone(), str::to_string);
                *counts
                    .entry((set, text("fact_error")?, text("error_type")?))
                    .or_default() += 1;
            }
            Ok(())
        })?;
    }
    Ok(counts
        .into_iter()
        .map(|((set, fact_error, error_type), pairs)| PairCount {
            set,
            fact_error,
            error_type,
            pairs,
        })
        .collect())
}
