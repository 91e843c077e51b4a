//! The files of `tempora diversify`: one lexically diverse subset per threshold,
//! each in the training files' own format, and `diversify.json` saying how they
//! were drawn.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::diversify::{select, shuffled, SampleNgrams, Subset};
use crate::error::NoveltyError;
use crate::output::{write_all_atomically, write_atomically};
use crate::training::{write_selected_lines, write_selected_parquet, Format};

/// What `diversify.json` says: the inputs, the seed, and each subset's size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diversified {
    /// The training files.
    pub train: Vec<PathBuf>,
    /// The summary field of JSONL and Parquet records.
    pub field: String,
    /// The n-gram size.
    pub n: usize,
    /// The shuffle seed.
    pub seed: u64,
    /// Samples read.
    pub samples: usize,
    /// One subset per threshold, in the order asked for.
    pub subsets: Vec<SubsetSize>,
}

/// How many samples one threshold kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SubsetSize {
    /// The threshold.
    pub max_repeats: u16,
    /// Samples kept.
    pub size: usize,
}

/// Selects one subset of the samples of `train` per threshold of `max_repeats`
/// (walked in the order `seed` shuffles them to; see [`crate::diversify`]) and
/// writes each to `dir` as `max-repeats-<N>.<jsonl|txt|parquet>`: the records as
/// read, in the training files' format. Then writes `dir/diversify.json` and
/// returns what it says. Every file is written atomically; `dir` is created.
///
/// # Errors
/// Training files of more than one format, more than one Parquet file, or `n = 0`
/// ([`NoveltyError::Usage`]); unreadable or malformed inputs; files that cannot be
/// written.
pub fn write_subsets(
    train: &[PathBuf],
    field: &str,
    n: usize,
    seed: u64,
    max_repeats: &[u16],
    dir: &Path,
) -> Result<Diversified, NoveltyError> {
    let format = one_format(train)?;
    let samples = SampleNgrams::read(train, field, n)?;
    let order = shuffled(samples.samples(), seed);
    // One walk per threshold, on every core.
    let selected: Vec<Subset> = max_repeats
        .par_iter()
        .map(|&threshold| select(&samples, &order, threshold))
        .collect();
    let paths: Vec<PathBuf> = selected
        .iter()
        .map(|s| {
            dir.join(format!(
                "max-repeats-{}.{}",
                s.max_repeats,
                format.extension()
            ))
        })
        .collect();
    if format == Format::Parquet {
        selected
            .par_iter()
            .zip(&paths)
            .try_for_each(|(subset, path)| {
                write_atomically(path, |out| {
                    write_selected_parquet(&train[0], &subset.kept, out.get_ref())
                })
            })?;
    } else {
        // Every subset in one read of the training files.
        write_all_atomically(&paths, |outs| {
            let mut subsets: Vec<_> = selected
                .iter()
                .map(|s| s.kept.as_slice())
                .zip(outs.iter_mut())
                .collect();
            write_selected_lines(train, &mut subsets)
        })?;
    }
    let subsets = selected
        .iter()
        .map(|s| SubsetSize {
            max_repeats: s.max_repeats,
            size: s.size,
        })
        .collect();
    let diversified = Diversified {
        train: train.to_vec(),
        field: field.to_string(),
        n,
        seed,
        samples: samples.samples(),
        subsets,
    };
    write_atomically(&dir.join("diversify.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, &diversified)?;
        std::io::Write::write_all(out, b"\n")
    })?;
    Ok(diversified)
}

/// The one format of every training file; subsets are written in it.
fn one_format(train: &[PathBuf]) -> Result<Format, NoveltyError> {
    let Some(first) = train.first() else {
        return Err(NoveltyError::Usage("no training files".into()));
    };
    let format = Format::of(first);
    if let Some(other) = train.iter().find(|p| Format::of(p) != format) {
        return Err(NoveltyError::Usage(format!(
            "{}: training files of two formats ({} is {format:?})",
            other.display(),
            first.display(),
        )));
    }
    if format == Format::Parquet && train.len() > 1 {
        return Err(NoveltyError::Usage(
            "more than one Parquet file: subsets are drawn from one".into(),
        ));
    }
    Ok(format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_one_file_per_threshold_and_what_was_drawn() {
        let dir = tempfile::tempdir().unwrap();
        let train = dir.path().join("train.txt");
        std::fs::write(
            &train,
            "police are appealing for witnesses after the crash\n\
             police are appealing for witnesses after a fire\n\
             a new stadium opens its doors to fans\n",
        )
        .unwrap();
        let out = dir.path().join("subsets");
        let drawn =
            write_subsets(std::slice::from_ref(&train), "summary", 4, 0, &[1, 5], &out).unwrap();
        assert_eq!(drawn.samples, 3);
        let sizes: Vec<(u16, usize)> = drawn
            .subsets
            .iter()
            .map(|s| (s.max_repeats, s.size))
            .collect();
        assert_eq!(sizes, [(1, 2), (5, 3)]);
        let kept = std::fs::read_to_string(out.join("max-repeats-1.txt")).unwrap();
        assert_eq!(kept.lines().count(), 2);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("diversify.json")).unwrap())
                .unwrap();
        assert_eq!(json["subsets"][1]["size"], 3);
        let mixed = write_subsets(
            &[train, dir.path().join("b.jsonl")],
            "summary",
            4,
            0,
            &[1],
            &out,
        );
        assert!(matches!(mixed, Err(NoveltyError::Usage(_))), "{mixed:?}");
    }
}
