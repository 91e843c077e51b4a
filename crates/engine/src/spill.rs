//! What a stage holds until its input ends, on disk instead of in memory: a
//! [`Spill`] takes items as they come and hands them back in the order they came
//! or sorted, with memory flat however many there are.
//!
//! Stages that can only decide at the end hold every record until then: a sink that
//! sorts its file, `novelty` whose bins are drawn over the whole set, the
//! runtime's `rejected.jsonl`. A crawl keeps thousands of articles (whole bodies)
//! and rejects pages with their HTML; held in memory, the peak would grow with the
//! crawl. A spill writes each item to an unnamed temporary file in the output
//! folder as it comes (gone with the process when a run is killed) and reads it
//! back at the end; sorted, it sorts about [`SORT_SEGMENT_BYTES`] at a time in
//! memory and merges sorted segments from disk (`extsort`).

use std::cmp::Ordering;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek as _, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

pub use extsort::Sortable;

/// About how many bytes of items are sorted in memory at a time; more are sorted
/// in segments on disk and merged.
pub const SORT_SEGMENT_BYTES: u64 = 8 << 20;

/// Items of type `T` held on disk until they are read back (see the module).
pub struct Spill<T> {
    dir: PathBuf,
    file: BufWriter<File>,
    len: u64,
    item: PhantomData<T>,
}

impl<T: Sortable> Spill<T> {
    /// An empty spill whose file (and sorted segments) go in `dir`.
    ///
    /// # Errors
    /// The temporary file cannot be created in `dir`.
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        Ok(Self {
            dir: dir.to_path_buf(),
            file: BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(dir)?),
            len: 0,
            item: PhantomData,
        })
    }

    /// Adds an item.
    ///
    /// # Errors
    /// Writing the temporary file failed (a full disk).
    pub fn push(&mut self, item: &T) -> std::io::Result<()> {
        item.encode(&mut self.file)?;
        self.len += 1;
        Ok(())
    }

    /// Items pushed so far.
    #[cfg(test)]
    fn len(&self) -> u64 {
        self.len
    }

    /// Whether no item was pushed.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The items in the order they were pushed.
    ///
    /// # Errors
    /// The temporary file cannot be flushed or read.
    pub fn in_order(self) -> std::io::Result<InOrder<T>> {
        let mut file = self
            .file
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        file.rewind()?;
        Ok(InOrder {
            reader: BufReader::with_capacity(1 << 16, file),
            left: self.len,
            item: PhantomData,
        })
    }
}

impl<T: Sortable + Ord> Spill<T> {
    /// The items sorted (by `T`'s order): in memory up to about
    /// [`SORT_SEGMENT_BYTES`], in sorted segments on disk, merged, beyond.
    ///
    /// # Errors
    /// The temporary files cannot be written or read.
    pub fn sorted(self) -> std::io::Result<Sorted<T>> {
        self.sorted_in_segments(SORT_SEGMENT_BYTES)
    }

    fn sorted_in_segments(mut self, segment_bytes: u64) -> std::io::Result<Sorted<T>> {
        // The file's length: every item's bytes (the writer flushes to tell it).
        let bytes = self.file.stream_position()?;
        let per_segment = self
            .len
            .saturating_mul(segment_bytes)
            .checked_div(bytes)
            .unwrap_or(self.len)
            .max(64);
        // Segments go to a folder of their own, removed with it (a killed run's is
        // removed by the next run, see `out_dir`).
        let segments = tempfile::Builder::new()
            .prefix(crate::atomic_file::TEMP_PREFIX)
            .tempdir_in(&self.dir)?;
        let mut read_error = None;
        let items = self.in_order()?.map_while(|item| match item {
            Ok(item) => Some(item),
            Err(e) => {
                read_error = Some(e);
                None
            }
        });
        let sorted = extsort::ExternalSorter::new()
            .with_segment_size(usize::try_from(per_segment).unwrap_or(usize::MAX))
            .with_sort_dir(segments.path().to_path_buf())
            .sort_by(items, T::cmp as fn(&T, &T) -> Ordering)?;
        // The sorter has read every item before it returns.
        if let Some(e) = read_error {
            return Err(e);
        }
        Ok(Sorted {
            items: sorted,
            _segments: segments,
        })
    }
}

/// A spill's items in the order they were pushed ([`Spill::in_order`]).
pub struct InOrder<T> {
    reader: BufReader<File>,
    left: u64,
    item: PhantomData<T>,
}

impl<T: Sortable> Iterator for InOrder<T> {
    type Item = std::io::Result<T>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(T::decode(&mut self.reader))
    }
}

/// A spill's items sorted ([`Spill::sorted`]).
pub struct Sorted<T: Sortable> {
    items: extsort::SortedIterator<T, fn(&T, &T) -> Ordering>,
    _segments: tempfile::TempDir,
}

impl<T: Sortable> Iterator for Sorted<T> {
    type Item = std::io::Result<T>;

    fn next(&mut self) -> Option<Self::Item> {
        self.items.next()
    }
}

/// Bytes as an item: a JSON line, without its newline.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Line(pub Vec<u8>);

impl Sortable for Line {
    fn encode<W: Write>(&self, writer: &mut W) -> std::io::Result<()> {
        write_bytes(writer, &self.0)
    }

    fn decode<R: Read>(reader: &mut R) -> std::io::Result<Self> {
        read_bytes(reader).map(Self)
    }
}

/// A line with the key it sorts by: ordered by the key, then by the line (a
/// record's [`sort_key`](tempora_records::Record::sort_key) and its JSON line).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Keyed {
    /// What the line sorts by first.
    pub key: String,
    /// The line.
    pub line: Vec<u8>,
}

impl Sortable for Keyed {
    fn encode<W: Write>(&self, writer: &mut W) -> std::io::Result<()> {
        write_bytes(writer, self.key.as_bytes())?;
        write_bytes(writer, &self.line)
    }

    fn decode<R: Read>(reader: &mut R) -> std::io::Result<Self> {
        let key = String::from_utf8(read_bytes(reader)?).map_err(std::io::Error::other)?;
        Ok(Self {
            key,
            line: read_bytes(reader)?,
        })
    }
}

fn write_bytes<W: Write>(writer: &mut W, bytes: &[u8]) -> std::io::Result<()> {
    writer.write_all(&(bytes.len() as u64).to_le_bytes())?;
    writer.write_all(bytes)
}

fn read_bytes<R: Read>(reader: &mut R) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    reader.read_exact(&mut len)?;
    let len = usize::try_from(u64::from_le_bytes(len)).map_err(std::io::Error::other)?;
    // Exactly the item's size (reading to the end instead would grow the buffer by
    // doubling: up to twice the memory for a segment being sorted). The length is
    // the spill's own, written by `write_bytes` to a file no one else writes.
    let mut bytes = vec![0; len];
    reader.read_exact(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scrambled(n: u64) -> Vec<Keyed> {
        (0..n)
            .map(|i| {
                let j = (i * 7919) % n;
                Keyed {
                    key: format!("k{}", j % 50),
                    line: format!("{{\"n\":{j}}}").into_bytes(),
                }
            })
            .collect()
    }

    #[test]
    fn items_come_back_in_the_order_pushed() {
        let dir = tempfile::tempdir().unwrap();
        let items = scrambled(3000);
        let mut spill = Spill::new(dir.path()).unwrap();
        for item in &items {
            spill.push(item).unwrap();
        }
        assert_eq!(spill.len(), 3000);
        let back: Vec<Keyed> = spill.in_order().unwrap().map(Result::unwrap).collect();
        assert_eq!(back, items);
    }

    #[test]
    fn items_beyond_a_segment_are_sorted_on_disk_and_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let items = scrambled(5000);
        let mut spill = Spill::new(dir.path()).unwrap();
        for item in &items {
            spill.push(item).unwrap();
        }
        // Segments of about 64 items: some 80 of them on disk.
        let sorted = spill.sorted_in_segments(1).unwrap();
        let mut want = items;
        want.sort();
        let got: Vec<Keyed> = sorted.map(Result::unwrap).collect();
        assert_eq!(got, want);
        // Sorted by key first, then by line.
        assert_eq!(got[0].key, "k0");
        assert!(got.windows(2).all(|w| w[0] <= w[1]));
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn an_empty_spill_gives_nothing_either_way() {
        let dir = tempfile::tempdir().unwrap();
        let spill: Spill<Line> = Spill::new(dir.path()).unwrap();
        assert!(spill.is_empty());
        assert_eq!(spill.sorted().unwrap().count(), 0);
        let spill: Spill<Line> = Spill::new(dir.path()).unwrap();
        assert_eq!(spill.in_order().unwrap().count(), 0);
    }

    #[test]
    fn a_cut_file_is_an_error_not_a_short_read() {
        let mut bytes = Vec::new();
        Line(b"{\"a\":1}".to_vec()).encode(&mut bytes).unwrap();
        bytes.truncate(bytes.len() - 2);
        let err = Line::decode(&mut bytes.as_slice()).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
