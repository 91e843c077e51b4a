//! A folder's files and their bytes, to compare a folder before and after.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every file under `dir`, with its bytes, sorted by path.
pub fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            files.extend(tree(&path));
        } else {
            files.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}
