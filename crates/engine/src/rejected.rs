//! `rejected.jsonl`: every record a stage could not use, with its stage and
//! reason, in an order that does not depend on how the stages' work interleaved.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::atomic_file::AtomicFile;
use crate::spill::{Line, Spill};

/// A record that a stage could not use, with the reason; written to `rejected.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    /// Stage that rejected it.
    pub stage: String,
    /// Why, in words a user can act on.
    pub reason: String,
    /// Where the record came from (file and line, URL), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The record itself (or the raw input that could not become one).
    pub record: serde_json::Value,
}

/// Collects every rejection and writes `rejected.jsonl` in a total order that does
/// not depend on how the stages' work interleaved: by stage (pipeline order),
/// then by the whole JSON line; in `dir` (the output directory, or the run's
/// folder of an incremental pipeline). Memory stays flat: each stage's lines go
/// to a [`Spill`] as they come (a rejected page holds its whole body, so a
/// crawl's rejections need not fit in memory) and are sorted on disk at the end.
/// Returns how many, and the file written in full under its temporary name: the
/// runtime publishes it with the outputs, or commits it.
pub(crate) async fn write_rejected(
    dir: PathBuf,
    stage_order: HashMap<String, usize>,
    mut rx: mpsc::Receiver<Vec<Rejected>>,
) -> std::io::Result<(u64, AtomicFile)> {
    let file = AtomicFile::create(&dir.join("rejected.jsonl"))?;
    let mut spills: BTreeMap<usize, Spill<Line>> = BTreeMap::new();
    let mut n = 0u64;
    while let Some(batch) = rx.recv().await {
        for r in batch {
            let stage = stage_order.get(&r.stage).copied().unwrap_or(usize::MAX);
            let spill = match spills.entry(stage) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => e.insert(Spill::new(&dir)?),
            };
            spill.push(&Line(serde_json::to_vec(&r)?))?;
            n += 1;
        }
    }
    let mut out = std::io::BufWriter::new(file.as_file());
    for spill in spills.into_values() {
        for line in spill.sorted()? {
            out.write_all(&line?.0)?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    drop(out);
    Ok((n, file))
}
