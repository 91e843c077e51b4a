//! The fetch loop shared by the `wayback-fetch` stage and the `wayback-crawl`
//! binary: captures in, pages out through a [`PageSink`], with up to
//! `concurrency` requests in flight across input batches (results kept in input
//! order) and the results made durable every `commit_every` pages or every
//! second, before they go out.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures_util::stream::FuturesUnordered;
use futures_util::StreamExt as _;
use tempora_engine::StageError;
use tempora_records::{Capture, Page};

use crate::error::WaybackError;
use crate::fetch::Fetcher;
use crate::output::{Committed, Decision, Outcome, Output};
use crate::state::Stored;

/// Where pages and failures go.
#[async_trait]
pub trait PageSink: Send {
    /// A durable page.
    async fn page(&mut self, page: Page) -> Result<(), StageError>;
    /// A capture that failed, with the reason.
    async fn failed(&mut self, capture: Capture, reason: String) -> Result<(), StageError>;
    /// A capture of those [`PageSink::failed`] gets that a later run may get past.
    fn retry_later(&mut self, _capture: &Capture, _reason: &str) {}
    /// Everything so far should go out now.
    async fn flush(&mut self) -> Result<(), StageError>;
    /// The run is stopping: finish the work in hand, start no more.
    fn stopping(&self) -> bool;
    /// More captures to fetch, for [`Crawl::run`]; `None` when there are no more.
    /// Must be cancel-safe: the crawl stops waiting for it when a fetch finishes.
    async fn next_captures(&mut self) -> Result<Option<Vec<Capture>>, StageError> {
        Ok(None)
    }
}

/// Finished results held back for input order, in multiples of `concurrency`.
const REORDER_WINDOWS: usize = 8;

/// Counts for the one summary line of a run.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// Captures received.
    pub received: u64,
    /// Pages fetched and made durable.
    pub fetched: u64,
    /// Captures that failed.
    pub failed: u64,
    /// Captures that failed in a way a later run may get past (the Archive's
    /// 503s, timeouts, resets): the run's outputs lack their pages.
    pub retryable: u64,
    /// Captures skipped (already fetched, failed for good, listed twice).
    pub skipped: u64,
    /// Pages emitted again from the WARC files (no request).
    pub replayed: u64,
}

/// A fetch run.
pub struct Crawl {
    /// The fetcher.
    pub fetcher: Fetcher,
    /// State and WARC output.
    pub output: Arc<Output>,
    /// Requests in flight.
    pub concurrency: usize,
    /// Pages per durable commit, at most.
    pub commit_every: usize,
    /// Counts so far.
    pub tally: Tally,
}

impl Crawl {
    /// Emits the pages of an unfinished earlier run again; returns the captures to fetch again.
    ///
    /// # Errors
    /// State errors, or the sink's.
    pub async fn replay(&mut self, sink: &mut dyn PageSink) -> Result<Vec<Capture>, StageError> {
        let replayed = self.output.replay().await?;
        self.tally.replayed += replayed.pages.len() as u64;
        for page in replayed.pages {
            sink.page(page).await?;
        }
        sink.flush().await?;
        Ok(replayed.refetch)
    }

    /// Fetches what is new in `batch`.
    ///
    /// # Errors
    /// What stops the run (blocked, state or file errors), or the sink's.
    pub async fn captures(
        &mut self,
        batch: Vec<Capture>,
        sink: &mut dyn PageSink,
    ) -> Result<(), StageError> {
        self.drive(batch, sink, false).await
    }

    /// Fetches what is new in `first`, then in every batch
    /// [`PageSink::next_captures`] gives until it gives none, keeping up to
    /// `concurrency` requests in flight across batches: with answers taking
    /// seconds, a crawl that waited for each batch to finish would fall far below
    /// the rate whenever batches are small.
    ///
    /// # Errors
    /// What stops the run (blocked, state or file errors), or the sink's.
    pub async fn run(
        &mut self,
        first: Vec<Capture>,
        sink: &mut dyn PageSink,
    ) -> Result<(), StageError> {
        self.drive(first, sink, true).await
    }

    /// The fetch loop of [`Crawl::captures`] (`pull` false: `first` only) and
    /// [`Crawl::run`] (`pull` true: then every batch the sink gives).
    async fn drive(
        &mut self,
        first: Vec<Capture>,
        sink: &mut dyn PageSink,
        pull: bool,
    ) -> Result<(), StageError> {
        if sink.stopping() {
            return Ok(());
        }
        let concurrency = self.concurrency.max(1);
        // Results go out in input order; finished ones wait for the slowest one
        // before them, up to this many, while the others keep fetching.
        let window = concurrency.saturating_mul(REORDER_WINDOWS) as u64;
        let mut queue: VecDeque<(Capture, Todo)> =
            classify(&self.output, &mut self.tally, first, sink)
                .await?
                .into();
        let mut input_done = !pull;
        let fetcher = &self.fetcher;
        let mut running = FuturesUnordered::new();
        let mut order = InOrder::default();
        let mut commits = Commits::new();
        let stop = loop {
            let stopping = sink.stopping();
            while !stopping && running.len() < concurrency && order.in_hand() < window {
                let Some((capture, todo)) = queue.pop_front() else {
                    break;
                };
                running.push(attempt(fetcher, order.start(), capture, todo));
            }
            let want_input = !input_done && !stopping && queue.len() < concurrency;
            if running.is_empty() && commits.in_hand() {
                // Nothing in flight: what is fetched goes out before waiting for more
                // (or ending), and a stored page that is gone is fetched after all.
                queue.extend(commits.drain(&self.output, &mut self.tally, sink).await?);
                continue;
            }
            if running.is_empty() && !want_input {
                break None;
            }
            tokio::select! {
                Some((seq, capture, fetched)) = running.next(), if !running.is_empty() => {
                    order.finished(seq, capture, fetched);
                }
                more = sink.next_captures(), if want_input => match more? {
                    Some(batch) => queue.extend(classify(&self.output, &mut self.tally, batch, sink).await?),
                    None => input_done = true,
                },
            }
            if let Err(e) = order.release(&mut commits.pending) {
                break Some(e);
            }
            if commits.due(self.commit_every) {
                queue.extend(commits.start(&self.output, &mut self.tally, sink).await?);
            }
        };
        // Stopping: what was not fetched stays listed in the state for the next run.
        drop(running);
        // A stored page that could not be read back is listed again in the state:
        // the next run fetches it.
        commits.drain(&self.output, &mut self.tally, sink).await?;
        match stop {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    /// The run's counts, logged. What marks the pages delivered is
    /// [`Output::finish`], once whatever the pages went to holds them.
    pub fn summary(&self) -> Tally {
        let t = self.tally;
        tracing::info!(
            new = t.received.saturating_sub(t.skipped),
            fetched = t.fetched,
            failed = t.failed,
            retryable = t.retryable,
            skipped = t.skipped,
            replayed = t.replayed,
            "wayback run summary: new {} fetched {} failed {} (to retry {}) skipped {} (replayed {})",
            t.received.saturating_sub(t.skipped),
            t.fetched,
            t.failed,
            t.retryable,
            t.skipped,
            t.replayed
        );
        t
    }
}

/// What the crawl does for one capture.
#[derive(Debug)]
enum Todo {
    /// Ask the Archive.
    Fetch,
    /// Read its page back from where it is stored.
    Read(Stored),
}

/// The result of one capture: what [`attempt`] gives, numbered in input order.
type Attempted = (u64, Capture, Result<Outcome, WaybackError>);

/// Fetches `capture` (or takes its stored page), as the `seq`th of the run.
async fn attempt(fetcher: &Fetcher, seq: u64, capture: Capture, todo: Todo) -> Attempted {
    let outcome = match todo {
        Todo::Fetch => fetcher.fetch(&capture).await.map(Outcome::Fetched),
        Todo::Read(stored) => Ok(Outcome::Stored(stored)),
    };
    (seq, capture, outcome)
}

/// Puts results back in input order: each capture started gets the next number,
/// and finished results wait here until every one before them has finished.
#[derive(Default)]
struct InOrder {
    finished: BTreeMap<u64, (Capture, Result<Outcome, WaybackError>)>,
    next_start: u64,
    next_out: u64,
}

impl InOrder {
    /// Captures started and not yet released.
    fn in_hand(&self) -> u64 {
        self.next_start - self.next_out
    }

    /// The number of the capture starting now.
    fn start(&mut self) -> u64 {
        let seq = self.next_start;
        self.next_start += 1;
        seq
    }

    /// Holds the result of the `seq`th capture until its turn.
    fn finished(&mut self, seq: u64, capture: Capture, fetched: Result<Outcome, WaybackError>) {
        self.finished.insert(seq, (capture, fetched));
    }

    /// Moves the results whose turn has come to `pending`, in order; stops at the
    /// first error (what stops the run), which it returns.
    fn release(&mut self, pending: &mut Vec<(Capture, Outcome)>) -> Result<(), WaybackError> {
        while let Some((capture, fetched)) = self.finished.remove(&self.next_out) {
            self.next_out += 1;
            pending.push((capture, fetched?));
        }
        Ok(())
    }
}

/// A commit running in the background, and what it makes durable.
type CommitTask = tokio::task::JoinHandle<Result<Committed, WaybackError>>;

/// Results on their way out: those gathered for the next commit, and the one
/// commit running in the background while fetching goes on (its pages go out,
/// in order, before the next commit starts).
struct Commits {
    pending: Vec<(Capture, Outcome)>,
    committing: Option<CommitTask>,
    /// When the last background commit started.
    since: Instant,
}

impl Commits {
    fn new() -> Self {
        Self {
            pending: Vec::new(),
            committing: None,
            since: Instant::now(),
        }
    }

    /// Results gathered or being committed, not yet sent on.
    fn in_hand(&self) -> bool {
        !self.pending.is_empty() || self.committing.is_some()
    }

    /// Time for a commit: `commit_every` results gathered, or any gathered for a second.
    fn due(&self, commit_every: usize) -> bool {
        self.pending.len() >= commit_every
            || (!self.pending.is_empty() && self.since.elapsed() >= Duration::from_secs(1))
    }

    /// Sends the background commit's results on, then starts committing what is
    /// gathered in the background; the captures to fetch again.
    async fn start(
        &mut self,
        output: &Arc<Output>,
        tally: &mut Tally,
        sink: &mut dyn PageSink,
    ) -> Result<Vec<(Capture, Todo)>, StageError> {
        let refetch = deliver(self.committing.take(), tally, sink).await?;
        let output = output.clone();
        let batch = std::mem::take(&mut self.pending);
        self.committing = Some(tokio::spawn(async move { output.commit(batch).await }));
        self.since = Instant::now();
        Ok(refetch)
    }

    /// Sends the background commit's results on, then commits what is gathered
    /// and sends it on too; the captures to fetch again.
    async fn drain(
        &mut self,
        output: &Output,
        tally: &mut Tally,
        sink: &mut dyn PageSink,
    ) -> Result<Vec<(Capture, Todo)>, StageError> {
        let mut refetch = deliver(self.committing.take(), tally, sink).await?;
        if !self.pending.is_empty() {
            let committed = output.commit(std::mem::take(&mut self.pending)).await;
            refetch.extend(emit(committed, tally, sink).await?);
        }
        Ok(refetch)
    }
}

/// The captures of `batch` to fetch or read back; reports those that failed for
/// good before, counts the others as skipped.
async fn classify(
    output: &Output,
    tally: &mut Tally,
    batch: Vec<Capture>,
    sink: &mut dyn PageSink,
) -> Result<Vec<(Capture, Todo)>, StageError> {
    tally.received += batch.len() as u64;
    let mut todo = Vec::new();
    for (capture, decision) in output.classify(batch).await? {
        match decision {
            Decision::Fetch => todo.push((capture, Todo::Fetch)),
            Decision::Stored(stored) => todo.push((capture, Todo::Read(stored))),
            Decision::FailedBefore(reason) => {
                tally.failed += 1;
                sink.failed(capture, reason).await?;
            }
            Decision::Skip(_) => tally.skipped += 1,
        }
    }
    Ok(todo)
}

/// Awaits the commit in the background and sends its results on; the captures
/// to fetch again (their stored page is gone).
async fn deliver(
    committing: Option<tokio::task::JoinHandle<Result<Committed, WaybackError>>>,
    tally: &mut Tally,
    sink: &mut dyn PageSink,
) -> Result<Vec<(Capture, Todo)>, StageError> {
    let Some(handle) = committing else {
        return Ok(Vec::new());
    };
    let committed = handle
        .await
        .map_err(|e| StageError::internal(format!("commit task failed: {e}")))?;
    emit(committed, tally, sink).await
}

async fn emit(
    committed: Result<Committed, WaybackError>,
    tally: &mut Tally,
    sink: &mut dyn PageSink,
) -> Result<Vec<(Capture, Todo)>, StageError> {
    let committed = committed?;
    tally.replayed += committed.replayed;
    tally.fetched += committed.pages.len() as u64 - committed.replayed;
    tally.failed += committed.failed.len() as u64;
    for (capture, reason, permanent) in committed.failed {
        if !permanent {
            tally.retryable += 1;
            sink.retry_later(&capture, &reason);
        }
        sink.failed(capture, reason).await?;
    }
    for page in committed.pages {
        sink.page(page).await?;
    }
    sink.flush().await?;
    Ok(committed
        .refetch
        .into_iter()
        .map(|c| (c, Todo::Fetch))
        .collect())
}
