//! `rejected.jsonl`: every record a stage could not use, with its stage and
//! reason, in an order that does not depend on how the stages' work interleaved.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use tokio::sync::mpsc;

use crate::atomic_file::AtomicFile;
use crate::records::Rejected;

/// Collects every rejection and writes `rejected.jsonl` in a total order that does
/// not depend on how the stages' work interleaved: by stage (pipeline order),
/// then by the whole JSON line; in `dir` (the output directory, or the run's
/// folder of an incremental pipeline). Memory stays flat: each stage's lines go
/// to a spill file as they come and are sorted on disk at the end
/// ([`join_spill`]).
pub(crate) async fn write_rejected(
    dir: PathBuf,
    stage_order: HashMap<String, usize>,
    mut rx: mpsc::Receiver<Vec<Rejected>>,
) -> std::io::Result<u64> {
    let file = AtomicFile::create(&dir.join("rejected.jsonl"))?;
    // Rejections stream to one spill file per stage (a rejected page holds its whole
    // body, so a crawl's rejections need not fit in memory); the spills are joined in
    // stage order when the run ends.
    let mut spills: BTreeMap<usize, (std::io::BufWriter<std::fs::File>, u64, u64)> =
        BTreeMap::new();
    let mut n = 0u64;
    while let Some(batch) = rx.recv().await {
        for r in batch {
            let stage = stage_order.get(&r.stage).copied().unwrap_or(usize::MAX);
            let (w, bytes, lines) = match spills.entry(stage) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert((std::io::BufWriter::new(tempfile::tempfile_in(&dir)?), 0, 0))
                }
            };
            let line = serde_json::to_vec(&r)?;
            w.write_all(&line)?;
            w.write_all(b"\n")?;
            *bytes += line.len() as u64 + 1;
            *lines += 1;
            n += 1;
        }
    }
    let mut out = std::io::BufWriter::new(file.as_file());
    for (_, (spill, bytes, lines)) in spills {
        join_spill(spill, bytes, lines, &dir, &mut out)?;
    }
    out.flush()?;
    drop(out);
    file.commit()?;
    Ok(n)
}

/// About how many bytes of rejections are sorted in memory at a time; more are
/// sorted in segments on disk and merged.
const SORT_SEGMENT_BYTES: u64 = 8 << 20;

/// One line of `rejected.jsonl`, as the external sort stores it.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Line(Vec<u8>);

impl extsort::Sortable for Line {
    fn encode<W: std::io::Write>(&self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(&(self.0.len() as u64).to_le_bytes())?;
        writer.write_all(&self.0)
    }

    fn decode<R: std::io::Read>(reader: &mut R) -> std::io::Result<Self> {
        let mut len = [0u8; 8];
        reader.read_exact(&mut len)?;
        let len = usize::try_from(u64::from_le_bytes(len)).map_err(std::io::Error::other)?;
        let mut line = vec![0; len];
        reader.read_exact(&mut line)?;
        Ok(Self(line))
    }
}

/// Appends one stage's spilled rejections (`lines` lines, `bytes` bytes) to
/// `out`, sorted by line: in memory up to about [`SORT_SEGMENT_BYTES`], in
/// sorted segments on disk in `dir` and merged beyond.
fn join_spill(
    spill: std::io::BufWriter<std::fs::File>,
    bytes: u64,
    lines: u64,
    dir: &Path,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    use std::io::{BufRead as _, Seek as _};
    let mut file = spill
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    file.rewind()?;
    let per_segment = lines
        .saturating_mul(SORT_SEGMENT_BYTES)
        .checked_div(bytes)
        .unwrap_or(lines)
        .max(64);
    let mut read_error = None;
    let read = std::io::BufReader::new(file)
        .split(b'\n')
        .map_while(|line| match line {
            Ok(line) => Some(Line(line)),
            Err(e) => {
                read_error = Some(e);
                None
            }
        });
    // Segments go to a folder of their own, removed with it (a killed run's is
    // removed by the next run, see `out_dir`).
    let segments = tempfile::Builder::new()
        .prefix(crate::atomic_file::TEMP_PREFIX)
        .tempdir_in(dir)?;
    let sorted = extsort::ExternalSorter::new()
        .with_segment_size(usize::try_from(per_segment).unwrap_or(usize::MAX))
        .with_sort_dir(segments.path().to_path_buf())
        .sort(read)?;
    for line in sorted {
        out.write_all(&line?.0)?;
        out.write_all(b"\n")?;
    }
    read_error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    #[test]
    fn rejections_beyond_a_segment_are_sorted_on_disk_and_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = std::io::BufWriter::new(tempfile::tempfile_in(dir.path()).unwrap());
        // 5,000 lines in a scrambled order.
        let mut want = Vec::new();
        let mut bytes = 0;
        for i in 0..5000u64 {
            let line = format!("{{\"n\":{}}}", (i * 7919) % 5000);
            spill.write_all(line.as_bytes()).unwrap();
            spill.write_all(b"\n").unwrap();
            bytes += line.len() as u64 + 1;
            want.push(line);
        }
        want.sort();
        let mut out = Vec::new();
        // As if the lines were 10,000 times longer (the segment size follows bytes
        // over lines): segments of about 70 lines, some 70 of them on disk.
        join_spill(spill, bytes * 10_000, 5000, dir.path(), &mut out).unwrap();
        let got: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
        assert_eq!(got, want);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
