//! Taking the workers' results in dump order: stitching lines that cross pieces,
//! joining gzip pieces cut at a false member start, and turning read failures into
//! errors that name the byte offset and the entities read. The results' types
//! ([`Output`], [`Body`], [`ReadFailure`]) and the [`BufferPool`] the taker hands
//! buffers back through are defined here; [`crate::scan`] produces them.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Mutex;

use crate::collect::{Collector, Flow};
use crate::error::WikidataError;
use crate::gzip::{inflate_members, PieceError, MAX_PIECE};
use crate::input::Format;
use crate::lines::{scan_block, LineClassifier, ScannedBlock};

/// A line longer than this is not an entity line of any real dump.
const MAX_LINE: usize = 512 << 20;
/// Pieces joined after a false member start, at most.
const MAX_JOINED: usize = 4 * MAX_PIECE;

/// What the reader failed at, before the collector knows how many entities came before.
#[derive(Debug)]
pub(crate) enum ReadFailure {
    Truncated { offset: u64 },
    Corrupt { offset: u64, message: String },
    Io(io::Error),
}

/// What a worker made of one piece or block.
pub(crate) enum Body {
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

/// A worker's result, numbered so the taker can put results back in dump order.
pub(crate) struct Output {
    pub(crate) seq: u64,
    /// Raw bytes read up to the end of this piece.
    pub(crate) progress: u64,
    pub(crate) body: Body,
}

/// Text buffers handed back by the taker, so pieces inflate into memory that is
/// already mapped (no page faults, no zero-filling). Never holds more than the
/// pieces in flight.
#[derive(Default)]
pub(crate) struct BufferPool(Mutex<Vec<Vec<u8>>>);

impl BufferPool {
    /// A buffer with the old text still in it: [`inflate_members`] overwrites it,
    /// and a buffer that stays initialised needs no zero-filling to be written into.
    pub(crate) fn get(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default()
    }

    pub(crate) fn put(&self, buf: Vec<u8>) {
        if let Ok(mut pool) = self.0.lock() {
            pool.push(buf);
        }
    }
}

/// Takes the workers' results in dump order and feeds the lines to the collector.
pub(crate) struct Taker<'t> {
    pub(crate) name: &'t str,
    pub(crate) format: Format,
    pub(crate) classifier: &'t LineClassifier,
    /// The unfinished line at the end of the last block.
    pub(crate) carry: Vec<u8>,
    /// Gzip pieces joined after a false member start: bytes and raw offset.
    pub(crate) joined: Option<(Vec<u8>, u64)>,
    pub(crate) pool: &'t BufferPool,
}

impl Taker<'_> {
    pub(crate) fn take_all(
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
