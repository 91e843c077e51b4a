//! The crawl's durable output, and what "fetched" means.
//!
//! A page goes downstream through a channel, where nothing is durable until the
//! sinks finish. So the fetch stage's own output is the WARC file: a capture is
//! marked `fetched` in the state only after its record is written and the file
//! `fsync`ed, in the same state transaction that records how many bytes of the
//! file are committed. At start, each WARC file is cut back to its committed
//! length (a record written but not committed before a `SIGKILL` would
//! otherwise be a duplicate), and pages fetched by a run that did not finish
//! are read back from their WARC records and emitted again, so the restarted
//! run's output equals an uninterrupted run's. A run is finished when the fetch
//! stage has handed its last page downstream.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tempora_records::{Capture, Page};
use tempora_wayback_format::urlkey::urlkey_of;

use crate::error::WaybackError;
use crate::fetch::Fetched;
use crate::state::{self, CaptureStatus, State, Stored};
use crate::warc::{self, WarcWriter};

/// What to do with a capture that arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Fetch it.
    Fetch,
    /// Its page is in a WARC file already: read it back from there (no request).
    Stored(Stored),
    /// It failed before in a way trying again cannot help: the same failure again.
    FailedBefore(String),
    /// Skip it, and why.
    Skip(String),
}

/// What a run does with a capture whose page or failure the state holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Send it on again: its page read back from the WARC file, its failure
    /// reported again. A run whose outputs are made anew from everything it lists.
    Replay,
    /// Leave it out: an earlier run handed it on (an incremental pipeline, whose
    /// outputs keep what earlier nights added).
    Skip,
}

/// The result of one capture, to be committed.
#[derive(Debug)]
pub enum Outcome {
    /// Fetched now (a page or a failure).
    Fetched(Fetched),
    /// Its page is to be read back from where it was stored.
    Stored(Stored),
}

/// The result of committing a batch.
#[derive(Debug, Default)]
pub struct Committed {
    /// Pages now durable, in input order.
    pub pages: Vec<Page>,
    /// Captures that failed, with the reason and whether trying again cannot help.
    pub failed: Vec<(Capture, String, bool)>,
    /// Pages among `pages` read back from the WARC files rather than fetched.
    pub replayed: u64,
    /// Captures whose stored page could not be read back: to be fetched.
    pub refetch: Vec<Capture>,
}

/// Pages of an unfinished earlier run, read back.
#[derive(Debug, Default)]
pub struct Replayed {
    /// Pages to emit again.
    pub pages: Vec<Page>,
    /// Captures whose record is gone: fetch them again.
    pub refetch: Vec<Capture>,
}

/// State + WARC output of one fetch run.
pub struct Output {
    state: State,
    run: i64,
    warc: Arc<Mutex<Option<WarcWriter>>>,
    max_body: u64,
    known: Known,
}

impl Output {
    /// Starts a run of `stage` recording in `state`, writing pages into `warc_dir`;
    /// captures the state knows are handled as `known` says.
    ///
    /// # Errors
    /// State or file errors.
    pub async fn open(
        state: State,
        warc_dir: Option<&Path>,
        stage: &str,
        max_body: u64,
        known: Known,
    ) -> Result<Self, WaybackError> {
        let stage_name = stage.to_string();
        let (run, files) = state
            .call(move |c| {
                Ok((
                    state::start_run(c, &stage_name)?,
                    state::captures::warc_files(c)?,
                ))
            })
            .await?;
        for (path, committed) in files {
            cut_back(Path::new(&path), committed)?;
        }
        let writer = match warc_dir {
            Some(dir) => Some(WarcWriter::new(dir, stage, warc::MAX_FILE_BYTES)?),
            None => None,
        };
        Ok(Self {
            state,
            run,
            warc: Arc::new(Mutex::new(writer)),
            max_body,
            known,
        })
    }

    /// What this run does with captures the state knows.
    pub fn known(&self) -> Known {
        self.known
    }

    /// Reads back the pages fetched by runs that did not finish, for a run that
    /// skips known captures (with [`Known::Replay`], the listing sends them again).
    ///
    /// # Errors
    /// State errors.
    pub async fn replay(&self) -> Result<Replayed, WaybackError> {
        if self.known == Known::Replay {
            return Ok(Replayed::default());
        }
        let (run, max_body) = (self.run, self.max_body);
        self.state
            .call(move |c| {
                let mut out = Replayed::default();
                for u in state::captures::undelivered(c)? {
                    let page = warc::read_at(Path::new(&u.warc_path), u.warc_offset, max_body)
                        .map_err(|e| e.to_string())
                        .and_then(|r| warc::page_from_record(&r, &u.capture.source, max_body))
                        .ok()
                        .flatten();
                    match page {
                        Some(page) if page.capture.url == u.capture.url => {
                            state::captures::adopt(c, &u.capture, run)?;
                            out.pages.push(page);
                        }
                        _ => {
                            tracing::warn!(url = %u.capture.url, warc = %u.warc_path, "WARC record of a fetched capture is gone; fetching it again");
                            state::captures::relist(c, &u.capture)?;
                            out.refetch.push(u.capture);
                        }
                    }
                }
                Ok(out)
            })
            .await
    }

    /// Decides for each capture whether to fetch it (recording unknown ones as listed).
    ///
    /// # Errors
    /// State errors.
    pub async fn classify(
        &self,
        captures: Vec<Capture>,
    ) -> Result<Vec<(Capture, Decision)>, WaybackError> {
        let (run, known) = (self.run, self.known);
        self.state
            .call(move |c| {
                let tx = c.transaction()?;
                let mut out = Vec::with_capacity(captures.len());
                for capture in captures {
                    let decision =
                        match state::captures::status(&tx, &capture.url, &capture.timestamp)? {
                            None => {
                                state::captures::insert_listed(
                                    &tx,
                                    &capture,
                                    &urlkey_of(&capture.url),
                                )?;
                                Decision::Fetch
                            }
                            Some(CaptureStatus::Listed) => Decision::Fetch,
                            Some(CaptureStatus::Fetched) if known == Known::Replay => {
                                match state::captures::stored(
                                    &tx,
                                    &capture.url,
                                    &capture.timestamp,
                                )? {
                                    Some(stored) => Decision::Stored(stored),
                                    // Fetched without a WARC file: nothing to read back.
                                    None => Decision::Fetch,
                                }
                            }
                            Some(CaptureStatus::Fetched) => {
                                Decision::Skip("already fetched".into())
                            }
                            Some(CaptureStatus::Failed {
                                reason,
                                permanent,
                                attempts,
                            }) if permanent || attempts >= state::captures::MAX_ATTEMPTS => {
                                match known {
                                    Known::Replay => Decision::FailedBefore(reason),
                                    Known::Skip => Decision::Skip(format!(
                                        "failed before, not retried: {reason}"
                                    )),
                                }
                            }
                            Some(CaptureStatus::Failed { .. }) => Decision::Fetch,
                        };
                    let decision = match decision {
                        Decision::Fetch
                            if !state::captures::claim(
                                &tx,
                                &capture.url,
                                &capture.timestamp,
                                run,
                            )? =>
                        {
                            Decision::Skip("listed twice in this run".into())
                        }
                        d => d,
                    };
                    out.push((capture, decision));
                }
                tx.commit()?;
                Ok(out)
            })
            .await
    }

    /// Makes a batch of results durable: pages into the WARC file (fsynced), then
    /// every status into the state in one transaction. Stored pages are read back
    /// from their WARC files instead (nothing is written for them).
    ///
    /// # Errors
    /// File or state errors; then nothing of the batch counts as fetched.
    pub async fn commit(
        &self,
        results: Vec<(Capture, Outcome)>,
    ) -> Result<Committed, WaybackError> {
        let batch = Batch {
            warc: self.warc.clone(),
            state: self.state.clone(),
            run: self.run,
            max_body: self.max_body,
        };
        tokio::task::spawn_blocking(move || batch.commit(results))
            .await
            .map_err(|e| WaybackError::Internal(format!("the WARC commit task panicked: {e}")))?
    }

    /// Every page of this run is held by whatever it went to (a pipeline's sinks
    /// have published a completed run): the pages are delivered, and a later run
    /// that skips known captures does not replay them; the run is recorded as
    /// finished.
    ///
    /// # Errors
    /// State errors.
    pub async fn finish(&self) -> Result<(), WaybackError> {
        let run = self.run;
        self.state
            .call(move |c| {
                state::captures::mark_delivered(c, run)?;
                state::finish_run(c, run)
            })
            .await
    }
}

/// What committing a batch of results needs of its [`Output`], moved onto a
/// blocking thread: the steps of [`Output::commit`], in order.
struct Batch {
    warc: Arc<Mutex<Option<WarcWriter>>>,
    state: State,
    run: i64,
    max_body: u64,
}

/// Where each result's WARC record was written, and the WARC files whose
/// committed length the state is to record.
struct Written {
    places: Vec<Option<(String, u64)>>,
    lengths: Vec<(PathBuf, u64)>,
}

impl Batch {
    /// Writes the pages (fsynced), records every status, and hands the results back.
    fn commit(&self, results: Vec<(Capture, Outcome)>) -> Result<Committed, WaybackError> {
        let fetched_any = results
            .iter()
            .any(|(_, o)| matches!(o, Outcome::Fetched(_)));
        let mut writer = self.warc.lock().unwrap_or_else(|p| p.into_inner());
        let work = self.prepare(&results, writer.is_some());
        let mut written = self.write(&work, writer.as_mut())?;
        if fetched_any {
            if let Some(w) = writer.as_mut() {
                written.lengths.extend(w.sync()?);
            }
        }
        drop(writer);
        let gone = work.iter().any(|w| matches!(w, Work::Gone));
        if fetched_any || gone {
            self.record(&results, &work, &written)?;
        }
        Ok(committed(results, work))
    }

    /// What to do for each result: compress the pages to write (when there is a
    /// WARC output), read the stored ones back.
    fn prepare(&self, results: &[(Capture, Outcome)], writing: bool) -> Vec<Work> {
        use rayon::prelude::*;
        // Compressing 100 KB pages is the costly part, and so is reading stored
        // ones back: spread both over the cores.
        results
            .par_iter()
            .map(|(capture, outcome)| match outcome {
                Outcome::Fetched(Fetched::Page(page)) if writing => {
                    Work::Write(warc::gzip(&warc::response_record(page)))
                }
                Outcome::Fetched(_) => Work::None,
                Outcome::Stored(stored) => match read_stored(stored, capture, self.max_body) {
                    Some(page) => Work::Read(Box::new(page)),
                    None => Work::Gone,
                },
            })
            .collect()
    }

    /// Appends the members to write to the WARC file, rolling to a new file when
    /// this one is full (its start recorded in the state at once).
    fn write(
        &self,
        work: &[Work],
        mut writer: Option<&mut WarcWriter>,
    ) -> Result<Written, WaybackError> {
        let mut places: Vec<Option<(String, u64)>> = Vec::with_capacity(work.len());
        let mut lengths: Vec<(PathBuf, u64)> = Vec::new();
        for item in work {
            let place = match (item, writer.as_deref_mut()) {
                (Work::Write(member), Some(w)) => {
                    if w.needs_roll() {
                        let (new, finished) = w.roll()?;
                        let (p, n) = (new.0.display().to_string(), new.1);
                        self.state
                            .call_now(move |c| state::captures::set_warc_committed(c, &p, n))?;
                        lengths.extend(finished);
                    }
                    let (path, offset) = w.append_member(member)?;
                    Some((path.display().to_string(), offset))
                }
                _ => None,
            };
            places.push(place);
        }
        Ok(Written { places, lengths })
    }

    /// Records in one state transaction every result's status (a stored page
    /// that is gone listed again) and the WARC files' committed lengths.
    fn record(
        &self,
        results: &[(Capture, Outcome)],
        work: &[Work],
        written: &Written,
    ) -> Result<(), WaybackError> {
        let run = self.run;
        self.state.call_now(|c| {
            let tx = c.transaction()?;
            for (((capture, outcome), place), item) in results.iter().zip(&written.places).zip(work) {
                match (outcome, item) {
                    (Outcome::Fetched(Fetched::Page(_)), _) => {
                        let place = place.as_ref().map(|(p, o)| (p.as_str(), *o));
                        state::captures::mark_fetched(&tx, capture, run, place)?;
                    }
                    (Outcome::Fetched(Fetched::Failed { reason, permanent }), _) => {
                        state::captures::mark_failed(&tx, capture, reason, *permanent)?;
                    }
                    (Outcome::Stored(stored), Work::Gone) => {
                        tracing::warn!(url = %capture.url, warc = %stored.warc_path, "WARC record of a fetched capture is gone; fetching it again");
                        state::captures::relist(&tx, capture)?;
                    }
                    (Outcome::Stored(_), _) => {}
                }
            }
            for (path, len) in &written.lengths {
                state::captures::set_warc_committed(&tx, &path.display().to_string(), *len)?;
            }
            tx.commit()
        })
    }
}

/// The committed batch: pages in input order (stored ones read back counted as
/// replayed), failures, and the stored pages that are gone, to fetch again.
fn committed(results: Vec<(Capture, Outcome)>, work: Vec<Work>) -> Committed {
    let mut out = Committed::default();
    for ((capture, outcome), item) in results.into_iter().zip(work) {
        match (outcome, item) {
            (Outcome::Fetched(Fetched::Page(page)), _) => out.pages.push(*page),
            (Outcome::Fetched(Fetched::Failed { reason, permanent }), _) => {
                out.failed.push((capture, reason, permanent));
            }
            (Outcome::Stored(_), Work::Read(page)) => {
                out.replayed += 1;
                out.pages.push(*page);
            }
            (Outcome::Stored(_), _) => out.refetch.push(capture),
        }
    }
    out
}

/// What committing does for one result.
enum Work {
    /// Nothing (a failure, or no WARC output).
    None,
    /// Append this gzip member to the WARC file.
    Write(Vec<u8>),
    /// A stored page, read back.
    Read(Box<Page>),
    /// A stored page that could not be read back.
    Gone,
}

/// The page of `capture` read back from where it was stored: as the fetch made
/// it, standing for the capture this run asked for.
fn read_stored(stored: &Stored, capture: &Capture, max_body: u64) -> Option<Page> {
    let record = warc::read_at(Path::new(&stored.warc_path), stored.offset, max_body).ok()?;
    let mut page = warc::page_from_record(&record, &capture.source, max_body)
        .ok()
        .flatten()?;
    if page.capture.url != capture.url {
        return None;
    }
    page.capture = capture.clone();
    Some(page)
}

/// Cuts a WARC file back to its committed length: bytes after it were written
/// by a run killed before it could record them.
fn cut_back(path: &Path, committed: u64) -> Result<(), WaybackError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    if meta.len() <= committed {
        return Ok(());
    }
    tracing::warn!(warc = %path.display(), committed, len = meta.len(), "cutting uncommitted bytes off a WARC file");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| WaybackError::io(path, e))?;
    file.set_len(committed)
        .map_err(|e| WaybackError::io(path, e))?;
    file.sync_all().map_err(|e| WaybackError::io(path, e))
}
