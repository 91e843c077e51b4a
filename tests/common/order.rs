//! Inputs in another order, and the published files compared byte for byte:
//! what the input-order tests share (`input_order`, `input_order_temposum`).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

use super::temposum::published;

/// Puts `items` in the order `keys` sorts them in.
pub fn permute<T: Clone>(items: &[T], keys: &[u64]) -> Vec<T> {
    let mut keyed: Vec<(u64, usize)> = (0..items.len())
        .map(|i| (keys[i % keys.len()].rotate_left(i as u32), i))
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, i)| items[i].clone()).collect()
}

/// A text of lines with its lines in another order.
pub fn permute_lines(text: &str, keys: &[u64]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    permute(&lines, keys)
        .iter()
        .map(|l| format!("{l}\n"))
        .collect()
}

/// XSum's split file (a JSON object of id lists) with each list in another order.
pub fn permute_xsum_split(text: &str, keys: &[u64]) -> String {
    let mut split: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).unwrap();
    for list in split.values_mut() {
        if let Some(ids) = list.as_array() {
            *list = permute(ids, keys).into();
        }
    }
    serde_json::to_string(&split).unwrap()
}

/// `parts` each in a gzip member of its own, one after another.
pub fn members(parts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(part).unwrap();
        out.extend(gz.finish().unwrap());
    }
    out
}

/// What differs with the inputs in another order but is not the output's
/// content: `run.json` and `manifest.inputs.json` name the input files with
/// their digests (other files).
pub const INPUT_RECORDS: [&str; 2] = ["run.json", "manifest.inputs.json"];

/// The published files, the card's lines that name an input file (its path, time
/// and digest: another file's) left out.
pub fn published_content(out: &Path, skip: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let mut files = published(out, skip);
    if let Some(card) = files.get_mut("README.md") {
        let text = String::from_utf8_lossy(card).into_owned();
        *card = text
            .lines()
            .filter(|l| !l.contains("SHA-256 `"))
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes();
    }
    files
}

/// Whether `got` holds the files of `expected`, byte for byte; else the first
/// file that differs, with its first differing line both ways.
pub fn same_files(
    got: &BTreeMap<String, Vec<u8>>,
    expected: &BTreeMap<String, Vec<u8>>,
) -> Result<(), String> {
    let names = |files: &BTreeMap<String, Vec<u8>>| files.keys().cloned().collect::<Vec<_>>();
    if names(got) != names(expected) {
        return Err(format!(
            "other files: {:?}, not {:?}",
            names(got),
            names(expected)
        ));
    }
    match expected.iter().find(|(name, bytes)| got[*name] != **bytes) {
        None => Ok(()),
        Some((name, bytes)) => Err(format!(
            "{name} differs with the inputs in another order: {:?}",
            first_difference(&got[name], bytes)
        )),
    }
}

/// The first line that differs, both ways, for the failure message.
fn first_difference(got: &[u8], expected: &[u8]) -> Option<(String, String)> {
    let (got, expected) = (
        String::from_utf8_lossy(got),
        String::from_utf8_lossy(expected),
    );
    got.lines()
        .zip(expected.lines())
        .find(|(g, e)| g != e)
        .map(|(g, e)| (g.to_string(), e.to_string()))
        .or_else(|| {
            Some((
                format!("{} lines", got.lines().count()),
                format!("{} lines", expected.lines().count()),
            ))
        })
}
