//! One pass over a dump, on every core: a reader thread cuts the input into pieces,
//! rayon inflates (gzip) and classifies them, and the calling thread takes the
//! results in dump order.
//!
//! Reading: gzip is cut at member starts and each piece is inflated on its own core;
//! bz2, zst, plain text and gzip without usable member starts are decoded by the
//! reader thread into text blocks, classified on the cores. Memory stays bounded: at
//! most [`in_flight`] pieces or blocks exist at once, whatever the size of the dump.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Cursor, ErrorKind, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};

use crate::collect::{Collector, Flow};
use crate::error::WikidataError;
use crate::gzip::{inflate_members, next_member_start, PieceError, MAX_PIECE, MIN_PIECE};
use crate::input::{DumpInput, Format};
use crate::lines::{scan_block, LineClassifier, ScannedBlock};

/// Text blocks of bz2, zst and plain dumps.
const TEXT_BLOCK: usize = 8 << 20;
/// Raw bytes read at a time when cutting gzip pieces.
const READ_CHUNK: usize = 4 << 20;
/// A line longer than this is not an entity line of any real dump.
const MAX_LINE: usize = 512 << 20;
/// Pieces joined after a false member start, at most.
const MAX_JOINED: usize = 4 * MAX_PIECE;

/// Pieces or blocks alive at once (read, queued, being worked on, or waiting to be
/// taken in order).
pub fn in_flight() -> usize {
    rayon::current_num_threads() * 2 + 2
}

/// What the reader failed at, before the collector knows how many entities came before.
#[derive(Debug)]
enum ReadFailure {
    Truncated { offset: u64 },
    Corrupt { offset: u64, message: String },
    Io(io::Error),
}

enum Work {
    Members { piece: Vec<u8>, offset: u64 },
    Text(Vec<u8>),
}

enum Body {
    Scanned(ScannedBlock),
    Unfinished {
        error: PieceError,
        piece: Vec<u8>,
        offset: u64,
    },
    Failed(ReadFailure),
    Panicked(String),
    End,
}

struct Output {
    seq: u64,
    /// Raw bytes read up to the end of this piece.
    progress: u64,
    body: Body,
}

/// Text buffers handed back by the taker, so pieces inflate into memory that is
/// already mapped (no page faults, no zero-filling). Never holds more than the
/// pieces in flight.
#[derive(Default)]
struct BufferPool(Mutex<Vec<Vec<u8>>>);

impl BufferPool {
    fn get(&self) -> Vec<u8> {
        let mut buf = self
            .0
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default();
        buf.clear();
        buf
    }

    fn put(&self, buf: Vec<u8>) {
        if let Ok(mut pool) = self.0.lock() {
            pool.push(buf);
        }
    }
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

/// Takes the workers' results in dump order and feeds the lines to the collector.
struct Taker<'t> {
    name: &'t str,
    format: Format,
    classifier: &'t LineClassifier,
    /// The unfinished line at the end of the last block.
    carry: Vec<u8>,
    /// Gzip pieces joined after a false member start: bytes and raw offset.
    joined: Option<(Vec<u8>, u64)>,
    pool: &'t BufferPool,
}

impl Taker<'_> {
    fn take_all(
        &mut self,
        results: &Receiver<Output>,
        slots: &Receiver<()>,
        collector: &mut Collector<'_>,
        cancel: &AtomicBool,
        report: &mut dyn FnMut(u64, &Collector<'_>),
    ) -> Result<(), WikidataError> {
        let mut waiting: BTreeMap<u64, Output> = BTreeMap::new();
        let mut next = 0u64;
        loop {
            let Some(out) = waiting.remove(&next) else {
                let Ok(out) = results.recv() else {
                    if cancel.load(Ordering::Relaxed) {
                        return Err(WikidataError::Cancelled);
                    }
                    return Err(WikidataError::Io {
                        dump: self.name.to_string(),
                        source: io::Error::other("the reader thread stopped early"),
                    });
                };
                waiting.insert(out.seq, out);
                continue;
            };
            next += 1;
            if cancel.load(Ordering::Relaxed) {
                return Err(WikidataError::Cancelled);
            }
            let flow = match out.body {
                Body::End => return self.end(collector, out.progress),
                Body::Failed(failure) => return Err(self.failure(failure, collector)),
                Body::Panicked(message) => {
                    return Err(WikidataError::Io {
                        dump: self.name.to_string(),
                        source: io::Error::other(message),
                    })
                }
                Body::Scanned(block) => {
                    if let Some((_, start)) = self.joined {
                        return Err(self.corrupt(
                            start,
                            "a gzip member does not end".into(),
                            collector,
                        ));
                    }
                    self.feed(block, collector)?
                }
                Body::Unfinished {
                    error,
                    piece,
                    offset,
                } => self.unfinished(error, piece, offset, collector)?,
            };
            let _ = slots.try_recv();
            report(out.progress, collector);
            if flow == Flow::Done {
                return Ok(());
            }
        }
    }

    /// A gzip piece that did not inflate to its end: a false member start cut a member
    /// in two. Join it with the following pieces until the joined run inflates.
    fn unfinished(
        &mut self,
        error: PieceError,
        piece: Vec<u8>,
        offset: u64,
        collector: &mut Collector<'_>,
    ) -> Result<Flow, WikidataError> {
        let Some((mut joined, start)) = self.joined.take() else {
            return match error {
                PieceError::Incomplete { .. } => {
                    self.joined = Some((piece, offset));
                    Ok(Flow::Continue)
                }
                PieceError::Corrupt { member, message } => {
                    Err(self.corrupt(offset + member as u64, message, collector))
                }
            };
        };
        joined.extend_from_slice(&piece);
        drop(piece);
        let mut text = Vec::new();
        match inflate_members(&joined, &mut text) {
            Ok(()) => self.feed(scan_block(text, self.classifier), collector),
            Err(PieceError::Incomplete { member }) if joined.len() > MAX_JOINED => Err(self
                .corrupt(
                    start + member as u64,
                    format!("no end of this gzip member within {} MiB", MAX_JOINED >> 20),
                    collector,
                )),
            Err(PieceError::Incomplete { .. }) => {
                self.joined = Some((joined, start));
                Ok(Flow::Continue)
            }
            Err(PieceError::Corrupt { member, message }) => {
                Err(self.corrupt(start + member as u64, message, collector))
            }
        }
    }

    fn feed(
        &mut self,
        block: ScannedBlock,
        collector: &mut Collector<'_>,
    ) -> Result<Flow, WikidataError> {
        let Some(head_end) = block.head_end else {
            self.carry.extend_from_slice(&block.text);
            return self.check_carry(collector);
        };
        self.carry.extend_from_slice(&block.text[..head_end - 1]);
        let line = std::mem::take(&mut self.carry);
        let mut flow = collector.take_raw(&line, self.classifier)?;
        for (range, kind) in block.lines {
            if flow == Flow::Done {
                return Ok(flow);
            }
            flow = collector.take(&block.text[range], kind)?;
        }
        self.carry
            .extend_from_slice(&block.text[block.tail_start..]);
        self.pool.put(block.text);
        if flow == Flow::Done {
            return Ok(flow);
        }
        self.check_carry(collector)
    }

    fn check_carry(&self, collector: &Collector<'_>) -> Result<Flow, WikidataError> {
        if self.carry.len() > MAX_LINE {
            return Err(WikidataError::MalformedLine {
                dump: self.name.to_string(),
                line: collector.line + 1,
                reason: format!("the line is longer than {} MiB", MAX_LINE >> 20),
            });
        }
        Ok(Flow::Continue)
    }

    fn end(&mut self, collector: &mut Collector<'_>, progress: u64) -> Result<(), WikidataError> {
        if let Some((joined, _)) = self.joined.take() {
            // Read what the truncated data still holds, so the error can say how far
            // the dump got; the unfinished last line is left out.
            let mut text = self.pool.get();
            let _ = inflate_members(&joined, &mut text);
            self.feed(scan_block(text, self.classifier), collector)?;
            return Err(self.failure(ReadFailure::Truncated { offset: progress }, collector));
        }
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            collector.take_raw(&line, self.classifier)?;
        }
        collector.finish_pass()
    }

    fn format_name(&self) -> &'static str {
        match self.format {
            Format::Gzip => "gzip",
            Format::Bzip2 => "bzip2",
            Format::Zstd => "zstd",
            Format::Plain => "text",
        }
    }

    fn corrupt(&self, offset: u64, message: String, collector: &Collector<'_>) -> WikidataError {
        self.failure(ReadFailure::Corrupt { offset, message }, collector)
    }

    fn failure(&self, failure: ReadFailure, collector: &Collector<'_>) -> WikidataError {
        let (dump, format, entities) = (
            self.name.to_string(),
            self.format_name(),
            collector.entities,
        );
        match failure {
            ReadFailure::Truncated { offset } => WikidataError::Truncated {
                dump,
                format,
                offset,
                entities,
            },
            ReadFailure::Corrupt { offset, message } => WikidataError::Corrupt {
                dump,
                format,
                offset,
                message,
                entities,
            },
            ReadFailure::Io(source) => WikidataError::Io { dump, source },
        }
    }
}
