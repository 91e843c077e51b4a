//! Files written whole (the records of `tempora novelty`, the subsets of
//! `tempora diversify`): through the engine's atomic write, so an interrupted run
//! leaves no file that looks complete.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use crate::error::NoveltyError;

/// Creates `path` (and its folder) under a temporary name and renames it into
/// place once `write` is done.
///
/// # Errors
/// A folder or file that cannot be created or written, or `write`'s own error;
/// each names the file.
pub fn write_atomically<E: std::fmt::Display>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&File>) -> Result<(), E>,
) -> Result<(), NoveltyError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| NoveltyError::file(dir, e.to_string()))?;
    }
    tempora_engine::runtime::write_atomically(path, |out| {
        write(out).map_err(|e| std::io::Error::other(e.to_string()))
    })
    .map_err(|e| NoveltyError::file(path, e.to_string()))
}

/// Writes `records` to `path` as JSON lines, atomically (see [`write_atomically`]).
///
/// # Errors
/// See [`write_atomically`].
pub fn write_jsonl<T: Serialize>(
    path: &Path,
    records: impl IntoIterator<Item = T>,
) -> Result<(), NoveltyError> {
    write_atomically(path, |out| {
        for record in records {
            serde_json::to_writer(&mut *out, &record)?;
            out.write_all(b"\n")?;
        }
        Ok::<_, std::io::Error>(())
    })
}
