//! One pass over a dump, on every core: a reader thread cuts the input into pieces,
//! rayon inflates (gzip) and classifies them, and the calling thread takes the
//! results in dump order.
//!
//! Reading: gzip is cut at member starts and each piece is inflated on its own core;
//! bz2, zst, plain text and gzip without usable member starts are decoded by the
//! reader thread into text blocks, classified on the cores. Memory stays bounded: at
//! most [`in_flight`] pieces or blocks exist at once, whatever the size of the dump.

use std::io::{self, BufRead, Cursor, ErrorKind, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender, SyncSender};
use std::sync::Arc;

use crate::collect::Collector;
use crate::error::WikidataError;
use crate::gzip::{inflate_members, next_member_start, MAX_PIECE, MIN_PIECE};
use crate::input::{DumpInput, Format};
use crate::lines::{scan_block, LineClassifier};
use crate::taker::{Body, BufferPool, Output, ReadFailure, Taker};

/// Text blocks of bz2, zst and plain dumps.
const TEXT_BLOCK: usize = 8 << 20;
/// Raw bytes read at a time when cutting gzip pieces.
const READ_CHUNK: usize = 4 << 20;

/// Pieces or blocks alive at once (read, queued, being worked on, or waiting to be
/// taken in order).
pub fn in_flight() -> usize {
    rayon::current_num_threads() * 2 + 2
}

enum Work {
    Members { piece: Vec<u8>, offset: u64 },
    Text(Vec<u8>),
}

/// Hands work to rayon, at most [`in_flight`] at a time.
struct Dispatch {
    slots: SyncSender<()>,
    results: Sender<Output>,
    classifier: Arc<LineClassifier>,
    cancel: Arc<AtomicBool>,
    pool: Arc<BufferPool>,
    seq: u64,
}

impl Dispatch {
    /// `false` when the taker is gone or the run is cancelled: stop reading.
    fn send(&mut self, work: Work, progress: u64) -> bool {
        if self.cancel.load(Ordering::Relaxed) || self.slots.send(()).is_err() {
            return false;
        }
        let (seq, results, classifier) = (self.seq, self.results.clone(), self.classifier.clone());
        let pool = self.pool.clone();
        self.seq += 1;
        rayon::spawn(move || {
            let body = catch_unwind(AssertUnwindSafe(|| run_work(work, &classifier, &pool)))
                .unwrap_or_else(|_| Body::Panicked("a worker panicked".into()));
            let _ = results.send(Output {
                seq,
                progress,
                body,
            });
        });
        true
    }

    fn finish(&mut self, body: Body, progress: u64) {
        let _ = self.results.send(Output {
            seq: self.seq,
            progress,
            body,
        });
    }
}

fn run_work(work: Work, classifier: &LineClassifier, pool: &BufferPool) -> Body {
    match work {
        Work::Text(text) => Body::Scanned(scan_block(text, classifier)),
        Work::Members { piece, offset } => {
            let mut text = pool.get();
            match inflate_members(&piece, &mut text) {
                Ok(()) => Body::Scanned(scan_block(text, classifier)),
                Err(error) => Body::Unfinished {
                    error,
                    piece,
                    offset,
                },
            }
        }
    }
}

/// Reads one pass of `input`, feeding every line to `collector` in order.
/// `report(raw_bytes_read)` is called after each piece.
///
/// # Errors
/// Truncated or corrupt data (naming the byte offset and the entities read), a
/// malformed line with `on_error = "fail"`, input that is not a dump, or
/// [`WikidataError::Cancelled`] when `cancel` was set.
pub fn scan_pass(
    input: DumpInput,
    classifier: Arc<LineClassifier>,
    collector: &mut Collector<'_>,
    cancel: &Arc<AtomicBool>,
    report: &mut dyn FnMut(u64, &Collector<'_>),
) -> Result<(), WikidataError> {
    let name = input.name.clone();
    let format = input.format;
    let (slot_tx, slot_rx) = mpsc::sync_channel::<()>(in_flight());
    let (res_tx, res_rx) = mpsc::channel::<Output>();
    let pool = Arc::new(BufferPool::default());
    let mut dispatch = Dispatch {
        slots: slot_tx,
        results: res_tx,
        classifier: classifier.clone(),
        cancel: cancel.clone(),
        pool: pool.clone(),
        seq: 0,
    };
    let reader = std::thread::Builder::new()
        .name("wikidata-reader".into())
        .spawn(move || read_input(input, &mut dispatch))
        .map_err(|e| WikidataError::Io {
            dump: name.clone(),
            source: e,
        })?;
    let mut taker = Taker {
        name: &name,
        format,
        classifier: &classifier,
        carry: Vec::new(),
        joined: None,
        pool: &pool,
    };
    let result = taker.take_all(&res_rx, &slot_rx, collector, cancel, report);
    drop(res_rx);
    drop(slot_rx);
    // The reader stops at its next dispatch once the receivers are gone.
    let _ = reader.join();
    result
}

fn read_input(input: DumpInput, dispatch: &mut Dispatch) {
    let read = input.read.clone();
    match input.format {
        Format::Gzip => read_pieces(input.into_raw(), &read, dispatch),
        _ => match input.into_text() {
            Ok(text) => read_text(text, &read, dispatch),
            Err(WikidataError::Io { source, .. }) => {
                dispatch.finish(Body::Failed(ReadFailure::Io(source)), 0)
            }
            Err(e) => dispatch.finish(Body::Panicked(e.to_string()), 0),
        },
    }
}

/// Cuts gzip data at member starts into pieces of at least [`MIN_PIECE`] bytes.
fn read_pieces(
    mut raw: impl BufRead + Send + 'static,
    read: &Arc<AtomicU64>,
    dispatch: &mut Dispatch,
) {
    let mut pending: Vec<u8> = Vec::with_capacity(MIN_PIECE + READ_CHUNK);
    let mut offset = 0u64;
    let mut searched = MIN_PIECE;
    loop {
        let before = pending.len();
        pending.resize(before + READ_CHUNK, 0);
        let n = match read_full(&mut raw, &mut pending[before..]) {
            Ok(n) => n,
            Err(e) => return dispatch.finish(Body::Failed(ReadFailure::Io(e)), offset),
        };
        pending.truncate(before + n);
        while let Some(cut) = next_member_start(&pending, searched.max(MIN_PIECE)) {
            let rest = pending.split_off(cut);
            let piece = std::mem::replace(&mut pending, rest);
            if !dispatch.send(Work::Members { piece, offset }, offset + cut as u64) {
                return;
            }
            offset += cut as u64;
            searched = MIN_PIECE;
        }
        searched = pending.len().saturating_sub(9);
        if n == 0 {
            let end = offset + pending.len() as u64;
            if !pending.is_empty()
                && !dispatch.send(
                    Work::Members {
                        piece: pending,
                        offset,
                    },
                    end,
                )
            {
                return;
            }
            return dispatch.finish(Body::End, end);
        }
        if pending.len() > MAX_PIECE {
            // No member boundaries to use (a single-member file): inflate on this thread.
            let decoder = flate2::bufread::MultiGzDecoder::new(Cursor::new(pending).chain(raw));
            return read_text(Box::new(decoder), read, dispatch);
        }
    }
}

/// Decodes text on this thread into blocks for the cores.
fn read_text(mut text: Box<dyn Read + Send>, read: &Arc<AtomicU64>, dispatch: &mut Dispatch) {
    loop {
        let mut block = vec![0; TEXT_BLOCK];
        let n = match read_full(&mut text, &mut block) {
            Ok(n) => n,
            Err(e) => {
                let offset = read.load(Ordering::Relaxed);
                let failure = match e.kind() {
                    ErrorKind::UnexpectedEof => ReadFailure::Truncated { offset },
                    ErrorKind::InvalidInput | ErrorKind::InvalidData | ErrorKind::Other => {
                        ReadFailure::Corrupt {
                            offset,
                            message: e.to_string(),
                        }
                    }
                    _ => ReadFailure::Io(e),
                };
                return dispatch.finish(Body::Failed(failure), offset);
            }
        };
        block.truncate(n);
        let progress = read.load(Ordering::Relaxed);
        if n == 0 {
            return dispatch.finish(Body::End, progress);
        }
        if !dispatch.send(Work::Text(block), progress) {
            return;
        }
    }
}

/// Reads until `buf` is full or the input ends.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
