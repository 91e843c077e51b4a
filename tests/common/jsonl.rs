//! Reading a JSONL output back in the end-to-end tests.

#![allow(dead_code)]

use std::path::Path;

/// The records of the JSONL file `path`, one per line; a file that cannot be
/// read is named.
pub fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
