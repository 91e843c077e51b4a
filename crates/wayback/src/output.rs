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

use tempora_engine::{Capture, Page};
use tempora_wayback_format::urlkey::urlkey_of;

use crate::error::WaybackError;
use crate::fetch::Fetched;
use crate::state::{self, CaptureStatus, State};
use crate::warc::{self, WarcWriter};

/// What to do with a capture that arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Fetch it.
    Fetch,
    /// Skip it, and why.
    Skip(String),
}

/// The result of committing a batch.
#[derive(Debug, Default)]
pub struct Committed {
    /// Pages now durable, in input order.
    pub pages: Vec<Page>,
    /// Captures that failed, with the reason.
    pub failed: Vec<(Capture, String)>,
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
}

impl Output {
    /// Starts a run of `stage` recording in `state`, writing pages into `warc_dir`.
    ///
    /// # Errors
    /// State or file errors.
    pub async fn open(
        state: State,
        warc_dir: Option<&Path>,
        stage: &str,
        max_body: u64,
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
        })
    }

    /// Reads back the pages fetched by runs that did not finish.
    ///
    /// # Errors
    /// State errors.
    pub async fn replay(&self) -> Result<Replayed, WaybackError> {
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
        let run = self.run;
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
                            Some(CaptureStatus::Fetched) => {
                                Decision::Skip("already fetched".into())
                            }
                            Some(CaptureStatus::Failed {
                                reason,
                                permanent,
                                attempts,
                            }) if permanent || attempts >= state::captures::MAX_ATTEMPTS => {
                                Decision::Skip(format!("failed before, not retried: {reason}"))
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
    /// every status into the state in one transaction.
    ///
    /// # Errors
    /// File or state errors; then nothing of the batch counts as fetched.
    pub async fn commit(
        &self,
        results: Vec<(Capture, Fetched)>,
    ) -> Result<Committed, WaybackError> {
        let warc = self.warc.clone();
        let state = self.state.clone();
        let run = self.run;
        let work = move || -> Result<Committed, WaybackError> {
            let mut writer = warc.lock().unwrap_or_else(|p| p.into_inner());
            // Compressing 100 KB pages is the costly part: spread it over the cores.
            let members: Vec<Option<Vec<u8>>> = if writer.is_some() {
                use rayon::prelude::*;
                results
                    .par_iter()
                    .map(|(_, fetched)| match fetched {
                        Fetched::Page(page) => Some(warc::gzip(&warc::response_record(page))),
                        Fetched::Failed { .. } => None,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let mut places: Vec<Option<(String, u64)>> = Vec::with_capacity(results.len());
            let mut lengths: Vec<(PathBuf, u64)> = Vec::new();
            for (i, _) in results.iter().enumerate() {
                let member = members.get(i).and_then(Option::as_ref);
                let place = match (member, writer.as_mut()) {
                    (Some(member), Some(w)) => {
                        if w.needs_roll() {
                            let (new, finished) = w.roll()?;
                            let (p, n) = (new.0.display().to_string(), new.1);
                            state
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
            if let Some(w) = writer.as_mut() {
                lengths.extend(w.sync()?);
            }
            drop(writer);
            state.call_now(|c| {
                let tx = c.transaction()?;
                for ((capture, fetched), place) in results.iter().zip(&places) {
                    match fetched {
                        Fetched::Page(_) => {
                            let place = place.as_ref().map(|(p, o)| (p.as_str(), *o));
                            state::captures::mark_fetched(&tx, capture, run, place)?;
                        }
                        Fetched::Failed { reason, permanent } => {
                            state::captures::mark_failed(&tx, capture, reason, *permanent)?;
                        }
                    }
                }
                for (path, len) in &lengths {
                    state::captures::set_warc_committed(&tx, &path.display().to_string(), *len)?;
                }
                tx.commit()
            })?;
            let mut out = Committed::default();
            for (capture, fetched) in results {
                match fetched {
                    Fetched::Page(page) => out.pages.push(*page),
                    Fetched::Failed { reason, .. } => out.failed.push((capture, reason)),
                }
            }
            Ok(out)
        };
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| WaybackError::Internal(format!("the WARC commit task panicked: {e}")))?
    }

    /// Every page of this run is held by whatever it went to (a pipeline's sinks
    /// have published): the pages are delivered, and a later run does not replay
    /// them. `completed`: the run also ended its input (it was not stopped early),
    /// and is recorded as finished.
    ///
    /// # Errors
    /// State errors.
    pub async fn finish(&self, completed: bool) -> Result<(), WaybackError> {
        let run = self.run;
        self.state
            .call(move |c| {
                state::captures::mark_delivered(c, run)?;
                if completed {
                    state::finish_run(c, run)?;
                }
                Ok(())
            })
            .await
    }
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
