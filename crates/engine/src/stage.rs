//! The stage abstraction: what a stage receives ([`StageIo`]) and what it implements
//! ([`Stage`] for anything async, [`crate::Transform`] for CPU work on batches).
//!
//! Records travel in batches (`Vec<Record>`) so that the per-record cost of a channel
//! hop stays in the nanoseconds. A stage reads batches with [`StageIo::recv`] and writes
//! records with [`StageIo::emit`]; emitted records are buffered per port and sent when
//! a batch is full, when the stage waits for input, or when it calls [`StageIo::flush`].

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::atomic_file::AtomicFile;
use crate::error::StageError;
use crate::publish::Staged;
use crate::stats::StageStats;
use crate::Rejected;
use tempora_records::Record;

/// Records move between stages in batches.
pub type Batch = Vec<Record>;

/// A point in the event time of a stream (for captures: their capture time): a
/// stage that sends one on a port promises that no record it sends on that port
/// afterwards is earlier. Watermarks are times, so producers agree on their order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Watermark(pub chrono::DateTime<chrono::Utc>);

/// What travels on a channel between two stages: records, or a watermark.
#[derive(Debug, Clone)]
pub(crate) enum Message {
    Records(Batch),
    /// From the stage with this index (its place in the pipeline): every record it
    /// will send from now on is at or after `value` (see [`StageIo::emit_watermark`]).
    Watermark {
        from: usize,
        value: Watermark,
    },
}

/// What a stage receives from its input, in the order its producers sent it.
#[derive(Debug)]
pub enum Input {
    /// A batch of records.
    Records(Batch),
    /// The input's watermark advanced to this time: no record that comes after
    /// it is earlier. With several producers, the earliest of their watermarks,
    /// once each has sent one.
    Watermark(Watermark),
}

/// Work a stage leaves for after the sinks have published (see [`StageIo::after_publish`]).
pub type AfterPublish =
    Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = Result<(), StageError>> + Send>> + Send>;

/// The hooks left by every stage, with the index of the stage that left each.
pub(crate) type AfterPublishHooks = Arc<Mutex<Vec<(usize, AfterPublish)>>>;

/// Index of an output port of a stage, in the order the stage's config declared them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PortId(pub usize);

impl PortId {
    /// The stage's first (default) port.
    pub const DEFAULT: PortId = PortId(0);
}

/// A running stage. Sources ignore [`StageIo::recv`] and stop when
/// [`StageIo::shutdown`] fires; transforms and sinks run until their input closes.
#[async_trait]
pub trait Stage: Send + 'static {
    /// Runs the stage to completion.
    ///
    /// # Errors
    /// A [`StageError`] stops the whole pipeline; the runtime names the stage.
    async fn run(self: Box<Self>, io: StageIo) -> Result<(), StageError>;
}

/// What a [`Transform`](crate::Transform) produced from one batch.
#[derive(Debug, Default)]
pub struct Emitted {
    /// Records and the port each goes to.
    pub records: Vec<(PortId, Record)>,
    /// Whole batches ([`Emitted::push_batch`]), each after the first so many
    /// `records`, and the port it goes to.
    batches: Vec<(usize, PortId, Batch)>,
    /// Records the stage could not use.
    pub rejected: Vec<RejectedRecord>,
    /// Named counters to add to the stage's metrics in `run.json`.
    pub counters: Vec<(String, u64)>,
    /// Named metrics to set in `run.json` (the last value set wins).
    pub metrics: Vec<(String, serde_json::Value)>,
    /// Output files staged for the run's publication (sinks, in `stage_files`).
    pub staged: Vec<Staged>,
    /// What the outputs lack (see [`crate::StageStats::missing`]): what, why, item.
    pub missing: Vec<(String, String, String)>,
    /// What the run should warn of (see [`crate::StageStats::warn`]).
    pub warnings: Vec<String>,
}

/// A rejection before the runtime has stamped the stage name on it.
#[derive(Debug, Clone)]
pub struct RejectedRecord {
    /// Why.
    pub reason: String,
    /// File and line, URL, ...
    pub location: Option<String>,
    /// The record or raw input.
    pub record: serde_json::Value,
}

impl Emitted {
    /// Stages `file`, written in full, to be renamed into place when the run
    /// publishes its outputs (see [`crate::publish`]).
    ///
    /// # Errors
    /// When it cannot be made durable.
    pub fn stage_file(&mut self, file: AtomicFile) -> std::io::Result<()> {
        file.sync()?;
        self.staged.push(Staged::File(file));
        Ok(())
    }

    /// Stages `path`, an output that stays as it is (an appended file with
    /// nothing new): the publication holds it still.
    pub fn stage_kept(&mut self, path: PathBuf) {
        self.staged.push(Staged::Kept(path));
    }

    /// Sends `record` to the default port.
    pub fn push(&mut self, record: Record) {
        self.records.push((PortId::DEFAULT, record));
    }

    /// Sends every record of `batch` to `port`, in order, after the records pushed
    /// before it: cheaper than pushing them one at a time.
    pub fn push_batch(&mut self, port: PortId, batch: Batch) {
        if !batch.is_empty() {
            self.batches.push((self.records.len(), port, batch));
        }
    }

    /// Rejects a record with a reason.
    pub fn reject(&mut self, record: &Record, reason: impl Into<String>) {
        self.rejected.push(RejectedRecord {
            reason: reason.into(),
            location: None,
            record: record.to_json(),
        });
    }

    /// Rejects with a location (file and line, URL) and the JSON to log: use it when the
    /// whole record would be too big for `rejected.jsonl` (a page's body).
    pub fn reject_at(
        &mut self,
        record: serde_json::Value,
        reason: impl Into<String>,
        location: Option<String>,
    ) {
        self.rejected.push(RejectedRecord {
            reason: reason.into(),
            location,
            record,
        });
    }

    /// Sets the named metric in `run.json` (e.g. a histogram).
    pub fn metric(&mut self, name: &str, value: serde_json::Value) {
        self.metrics.push((name.to_string(), value));
    }

    /// Notes one `what` the outputs lack, `why`, named by `item`: the run
    /// completes with the "partial" exit code and says so.
    pub fn missing(&mut self, what: &str, why: &str, item: String) {
        self.missing.push((what.to_string(), why.to_string(), item));
    }

    /// Warns that the run, though it may complete, is not what its user wanted
    /// (see [`crate::StageStats::warn`]).
    pub fn warn(&mut self, why: impl Into<String>) {
        self.warnings.push(why.into());
    }

    /// Adds `n` to the named counter in `run.json`.
    pub fn count(&mut self, name: &str, n: u64) {
        match self.counters.iter_mut().find(|(k, _)| k == name) {
            Some((_, v)) => *v += n,
            None => self.counters.push((name.to_string(), n)),
        }
    }
}

/// Side inputs: the whole output of other stages, collected before a stage starts.
#[derive(Debug, Default)]
pub struct SideInputs {
    pub(crate) inputs: HashMap<String, Vec<Record>>,
}

impl SideInputs {
    /// Takes the records of the side input declared under option `key`.
    ///
    /// # Errors
    /// When the stage did not declare that side input (a bug in the stage).
    pub fn take(&mut self, key: &str) -> Result<Vec<Record>, StageError> {
        self.inputs
            .remove(key)
            .ok_or_else(|| StageError::internal(format!("no side input `{key}` was wired")))
    }
}

pub(crate) struct OutPort {
    pub(crate) senders: Vec<mpsc::Sender<Message>>,
    pub(crate) buffer: Batch,
}

/// Everything a running stage talks to: its input, output ports, side inputs,
/// the rejection log, its counters and the shutdown signal.
pub struct StageIo {
    pub(crate) name: String,
    pub(crate) input: Option<mpsc::Receiver<Message>>,
    /// How many stages send to `input` (a watermark holds once each has sent one).
    pub(crate) producers: usize,
    /// The last watermark of each producer, and the input's, as last told.
    pub(crate) watermarks: HashMap<usize, Watermark>,
    pub(crate) watermark: Option<Watermark>,
    /// A message taken while coalescing batches, handed out next.
    pub(crate) stashed: Option<Message>,
    pub(crate) side: HashMap<String, mpsc::Receiver<Message>>,
    pub(crate) ports: Vec<(String, OutPort)>,
    pub(crate) rejected: mpsc::Sender<Vec<Rejected>>,
    pub(crate) stats: Arc<StageStats>,
    pub(crate) shutdown: CancellationToken,
    pub(crate) batch_size: usize,
    pub(crate) last_flush: Instant,
    pub(crate) verdict: tokio::sync::watch::Receiver<Option<bool>>,
    pub(crate) is_sink: bool,
    pub(crate) index: usize,
    pub(crate) after_publish: AfterPublishHooks,
    pub(crate) publication: crate::publish::Publication,
}

/// Buffered records older than this are sent even when the batch is not full, so a
/// slow source (a polite crawler) does not hold its records back.
const MAX_BUFFER_AGE: Duration = Duration::from_millis(200);

impl StageIo {
    /// The stage's name in the pipeline file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Fires when the run is asked to stop (Ctrl-C). Sources stop producing;
    /// other stages keep draining their input.
    pub fn shutdown(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// For a sink: waits until every stage that is not a sink has ended, and tells
    /// whether the run completed: none failed and none was asked to stop. Sinks
    /// publish their outputs only then, so a stopped or failed run leaves the
    /// published outputs as they were. For any other stage (itself part of what a
    /// sink waits for): true at once.
    pub async fn upstream_succeeded(&mut self) -> bool {
        if !self.is_sink {
            return true;
        }
        match self.verdict.wait_for(Option::is_some).await {
            Ok(v) => v.unwrap_or(false),
            Err(_) => false,
        }
    }

    /// Leaves `hook` to run once the sinks have published this run's outputs, when
    /// they did (the run completed: no stage failed, none was asked to stop), before
    /// `run.json` is written: for what must not be recorded as done before the
    /// outputs hold it (pages marked delivered in a crawl state). A kill before the
    /// hook leaves the state as if the run had not happened past its last commit; a
    /// failing hook fails the run, named after this stage. Hooks run one at a
    /// time, in pipeline order.
    pub fn after_publish<F, Fut>(&self, hook: F)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), StageError>> + Send + 'static,
    {
        let hook: AfterPublish = Box::new(move || Box::pin(hook()));
        self.after_publish
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((self.index, hook));
    }

    /// The stage's counters, shared with the progress display and `run.json`.
    pub fn stats(&self) -> &Arc<StageStats> {
        &self.stats
    }

    /// The port with this name.
    ///
    /// # Errors
    /// When the stage's config did not declare the port (a bug in the stage).
    pub fn port(&self, name: &str) -> Result<PortId, StageError> {
        self.ports
            .iter()
            .position(|(n, _)| n == name)
            .map(PortId)
            .ok_or_else(|| StageError::internal(format!("stage has no port `{name}`")))
    }

    /// The next batch of input, or `None` when every upstream stage has finished.
    /// Buffered output is flushed first, so nothing waits while the stage idles.
    ///
    /// # Errors
    /// When a downstream stage is gone (the run is stopping).
    pub async fn recv(&mut self) -> Result<Option<Batch>, StageError> {
        self.flush().await?;
        self.recv_cancel_safe().await
    }

    /// Like [`StageIo::recv`] but without flushing the outputs first, so it is
    /// cancel-safe (no batch is lost when the future is dropped unfinished): for a
    /// stage that waits on its input and on its own work at once (`select!`), and
    /// flushes by itself.
    ///
    /// # Errors
    /// None today; the signature matches [`StageIo::recv`].
    pub async fn recv_cancel_safe(&mut self) -> Result<Option<Batch>, StageError> {
        loop {
            match self.next_input().await {
                None => return Ok(None),
                Some(Input::Records(batch)) => return Ok(Some(batch)),
                Some(Input::Watermark(_)) => {}
            }
        }
    }

    /// The next batch or watermark of the input (see [`Input`]), or `None` when
    /// every upstream stage has finished. Buffered output is flushed first.
    ///
    /// # Errors
    /// When a downstream stage is gone (the run is stopping).
    async fn recv_input(&mut self) -> Result<Option<Input>, StageError> {
        self.flush().await?;
        Ok(self.next_input().await)
    }

    /// Like [`StageIo::recv_input`], but also takes the batches already waiting, up
    /// to about `max` records (not past a watermark), so per-batch costs (a hop to
    /// a blocking thread) are paid once for many records when the stage falls behind.
    ///
    /// # Errors
    /// See [`StageIo::recv`].
    pub(crate) async fn recv_input_up_to(
        &mut self,
        max: usize,
    ) -> Result<Option<Input>, StageError> {
        let Some(first) = self.recv_input().await? else {
            return Ok(None);
        };
        let Input::Records(mut batch) = first else {
            return Ok(Some(first));
        };
        while batch.len() < max && self.stashed.is_none() {
            let Some(input) = self.input.as_mut() else {
                break;
            };
            match input.try_recv() {
                Ok(Message::Records(more)) => {
                    self.stats.add_in(more.len() as u64);
                    batch.extend(more);
                }
                Ok(mark) => self.stashed = Some(mark),
                Err(_) => break,
            }
        }
        Ok(Some(Input::Records(batch)))
    }

    /// The next message of the input as an [`Input`]; a producer's watermark that
    /// does not move the input's is passed over.
    async fn next_input(&mut self) -> Option<Input> {
        loop {
            let message = match self.stashed.take() {
                Some(m) => m,
                None => self.input.as_mut()?.recv().await?,
            };
            match message {
                Message::Records(batch) => {
                    self.stats.add_in(batch.len() as u64);
                    return Some(Input::Records(batch));
                }
                Message::Watermark { from, value } => {
                    self.watermarks.insert(from, value);
                    if self.watermarks.len() < self.producers {
                        continue;
                    }
                    let least = self.watermarks.values().min().copied();
                    if least.is_some() && least > self.watermark {
                        self.watermark = least;
                        return least.map(Input::Watermark);
                    }
                }
            }
        }
    }

    /// Collects the whole output of the side input declared under option `key`.
    ///
    /// # Errors
    /// When no such side input was wired.
    async fn side_input(&mut self, key: &str) -> Result<Vec<Record>, StageError> {
        let mut rx = self
            .side
            .remove(key)
            .ok_or_else(|| StageError::internal(format!("no side input `{key}` was wired")))?;
        let mut all = Vec::new();
        while let Some(message) = rx.recv().await {
            if let Message::Records(batch) = message {
                all.extend(batch);
            }
        }
        Ok(all)
    }

    /// Collects the whole output of every declared side input.
    ///
    /// # Errors
    /// When a declared side input was not wired.
    pub async fn side_inputs(&mut self) -> Result<SideInputs, StageError> {
        let keys: Vec<String> = self.side.keys().cloned().collect();
        let mut side = SideInputs::default();
        for key in keys {
            let records = self.side_input(&key).await?;
            side.inputs.insert(key, records);
        }
        Ok(side)
    }

    /// Buffers `record` for `port`; sends the buffer when it is full or old.
    ///
    /// # Errors
    /// When the downstream stages are gone (the run is stopping).
    pub async fn emit(&mut self, port: PortId, record: Record) -> Result<(), StageError> {
        let (_, send) = self.fill(port, &mut std::iter::once(record))?;
        if send {
            self.flush().await?;
        }
        Ok(())
    }

    /// Buffers every record of `records` for `port`, in order, as [`StageIo::emit`]
    /// one at a time would, but moved into the buffer a batch at a time.
    ///
    /// # Errors
    /// When the downstream stages are gone (the run is stopping).
    pub async fn emit_many<I>(&mut self, port: PortId, records: I) -> Result<(), StageError>
    where
        I: IntoIterator<Item = Record>,
        I::IntoIter: Send,
    {
        let mut records = records.into_iter();
        loop {
            let (moved, send) = self.fill(port, &mut records)?;
            if send {
                self.flush().await?;
            }
            if moved == 0 {
                return Ok(());
            }
        }
    }

    /// Moves records from `records` into `port`'s buffer until it holds a batch or
    /// they run out (at least one, if there is one), and tells how many it moved and
    /// whether the buffers are to be sent now: a batch is full, or the buffered
    /// records are older than [`MAX_BUFFER_AGE`].
    fn fill(
        &mut self,
        port: PortId,
        records: &mut impl Iterator<Item = Record>,
    ) -> Result<(usize, bool), StageError> {
        let batch_size = self.batch_size;
        let (_, out) = self
            .ports
            .get_mut(port.0)
            .ok_or_else(|| StageError::internal(format!("no port #{}", port.0)))?;
        let before = out.buffer.len();
        let room = batch_size.saturating_sub(before).max(1);
        out.buffer.extend(records.take(room));
        let len = out.buffer.len();
        if len == before {
            return Ok((0, false));
        }
        if before == 0 {
            self.last_flush = Instant::now();
        }
        // Reading the clock costs more than a push: a slow source (small buffer) looks
        // at it on every record, a fast one every 32 records (not when the buffer was
        // empty: it was just read).
        let look = before > 0 && (len < 32 || len / 32 > before / 32);
        let send = len >= batch_size || (look && self.last_flush.elapsed() >= MAX_BUFFER_AGE);
        Ok((len - before, send))
    }

    /// Sends every buffered record, then tells the stages reading `port` that no
    /// record this stage sends on it from now on is earlier than `value` (for
    /// captures, a 14-digit capture time): a stage that holds records back until
    /// nothing earlier can come (`prefetch`) may then decide on what it holds.
    /// Values must not go down.
    ///
    /// # Errors
    /// When the downstream stages are gone (the run is stopping).
    pub async fn emit_watermark(
        &mut self,
        port: PortId,
        value: Watermark,
    ) -> Result<(), StageError> {
        self.flush().await?;
        let (_, out) = self
            .ports
            .get(port.0)
            .ok_or_else(|| StageError::internal(format!("no port #{}", port.0)))?;
        for tx in &out.senders {
            let mark = Message::Watermark {
                from: self.index,
                value,
            };
            tx.send(mark).await.map_err(|_| StageError::Stopped)?;
        }
        Ok(())
    }

    /// Emits every record of an [`Emitted`] and logs its rejections and counters.
    ///
    /// # Errors
    /// See [`StageIo::emit`].
    pub async fn emit_all(&mut self, emitted: Emitted) -> Result<(), StageError> {
        self.stage_all(emitted.staged);
        for (name, n) in emitted.counters {
            self.stats.count(&name, n);
        }
        for (name, value) in emitted.metrics {
            self.stats.set_metric(&name, value);
        }
        for (what, why, item) in emitted.missing {
            self.stats.missing(&what, &why, item);
        }
        for why in emitted.warnings {
            self.stats.warn(&why);
        }
        self.reject_all(emitted.rejected).await?;
        // Each run of records for one port, and each whole batch, moves into its
        // buffer a batch at a time; the whole batches go between the records at
        // the place they were pushed.
        let mut batches = emitted.batches.into_iter().peekable();
        let mut records = emitted.records.into_iter().peekable();
        let mut sent = 0;
        loop {
            if let Some((_, port, batch)) = batches.next_if(|(before, _, _)| *before <= sent) {
                self.emit_many(port, batch).await?;
                continue;
            }
            let Some(&(port, _)) = records.peek() else {
                return Ok(());
            };
            let end = batches.peek().map_or(usize::MAX, |(before, _, _)| *before);
            let (_, send) = {
                let mut run = std::iter::from_fn(|| {
                    let (_, record) = records.next_if(|(p, _)| *p == port && sent < end)?;
                    sent += 1;
                    Some(record)
                });
                self.fill(port, &mut run)?
            };
            if send {
                self.flush().await?;
            }
        }
    }

    /// Stages files for the run's publication (see [`crate::publish`]): the
    /// runtime publishes them, with every other sink's, once the run completed.
    fn stage_all(&mut self, staged: Vec<Staged>) {
        if staged.is_empty() {
            return;
        }
        self.publication
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(staged);
    }

    /// Records a rejection in `rejected.jsonl`.
    ///
    /// # Errors
    /// When the rejection log has stopped (the run is stopping).
    pub async fn reject(
        &mut self,
        record: serde_json::Value,
        reason: impl Into<String>,
        location: Option<String>,
    ) -> Result<(), StageError> {
        self.reject_all(vec![RejectedRecord {
            reason: reason.into(),
            location,
            record,
        }])
        .await
    }

    async fn reject_all(&mut self, rejected: Vec<RejectedRecord>) -> Result<(), StageError> {
        if rejected.is_empty() {
            return Ok(());
        }
        self.stats.add_rejected(rejected.len() as u64);
        let stamped = rejected
            .into_iter()
            .map(|r| Rejected {
                stage: self.name.clone(),
                reason: r.reason,
                location: r.location,
                record: r.record,
            })
            .collect();
        self.rejected
            .send(stamped)
            .await
            .map_err(|_| StageError::Stopped)
    }

    /// Sends every buffered record downstream now.
    ///
    /// # Errors
    /// When the downstream stages are gone (the run is stopping).
    pub async fn flush(&mut self) -> Result<(), StageError> {
        for (name, out) in &mut self.ports {
            if out.buffer.is_empty() {
                continue;
            }
            // The next batch fills a buffer that holds it without growing.
            let batch = std::mem::replace(&mut out.buffer, Vec::with_capacity(self.batch_size));
            let n = batch.len() as u64;
            self.stats.add_out(n);
            self.stats.add_port(name, n);
            // Fan-out: every consumer but the last gets a clone.
            if let Some((last, rest)) = out.senders.split_last() {
                for tx in rest {
                    tx.send(Message::Records(batch.clone()))
                        .await
                        .map_err(|_| StageError::Stopped)?;
                }
                last.send(Message::Records(batch))
                    .await
                    .map_err(|_| StageError::Stopped)?;
            }
        }
        self.last_flush = Instant::now();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{Batch, Emitted, PortId, Stage};
    use crate::builtin::small_record;
    use crate::registry::{Port, StageConfig};
    use crate::testing::{context, run_stage};
    use crate::transform::{Transform, TransformStage};
    use crate::{PipelineContext, StageError};
    use tempora_records::{Record, RecordKind};

    const OTHER: PortId = PortId(1);

    /// Where `Mixed` sends record `n`, each way a transform can (a record to a
    /// port, a whole batch, an empty batch), in order; the same however the
    /// input is batched.
    fn route(n: u64, record: &Record) -> Vec<(PortId, Option<Batch>)> {
        let mut sent = Vec::new();
        let port = if n.is_multiple_of(3) {
            OTHER
        } else {
            PortId::DEFAULT
        };
        sent.push((port, None));
        if n.is_multiple_of(5) {
            let to = if n.is_multiple_of(2) {
                OTHER
            } else {
                PortId::DEFAULT
            };
            sent.push((to, Some(vec![record.clone(); 40])));
        }
        if n.is_multiple_of(7) {
            sent.push((PortId::DEFAULT, Some(Vec::new())));
        }
        sent
    }

    fn number(record: &Record) -> u64 {
        match record {
            Record::Capture(c) => c.length.unwrap_or(0),
            _ => 0,
        }
    }

    struct Mixed;

    impl Transform for Mixed {
        fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
            for record in batch {
                for (port, whole) in route(number(&record), &record) {
                    match whole {
                        None => out.records.push((port, record.clone())),
                        Some(whole) => out.push_batch(port, whole),
                    }
                }
            }
            Ok(())
        }
    }

    impl StageConfig for Mixed {
        fn outputs(&self) -> Vec<Port> {
            vec![
                Port::out(RecordKind::Capture),
                Port::named("other", RecordKind::Capture),
            ]
        }
        fn build(&self, _: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
            Ok(Box::new(TransformStage(Mixed)))
        }
    }

    #[tokio::test]
    async fn emitted_records_and_batches_keep_their_order_on_each_port() {
        let dir = tempfile::tempdir().unwrap();
        let input: Vec<Record> = (0..200).map(small_record).collect();
        let mut expected: [Vec<Record>; 2] = [Vec::new(), Vec::new()];
        for record in &input {
            for (port, whole) in route(number(record), record) {
                expected[port.0].extend(whole.unwrap_or_else(|| vec![record.clone()]));
            }
        }
        let output = run_stage(Box::new(Mixed), &context(dir.path()), input, HashMap::new())
            .await
            .unwrap();
        assert_eq!(output.out(), expected[0].as_slice());
        assert_eq!(output.ports["other"], expected[1]);
        let total = (expected[0].len() + expected[1].len()) as u64;
        assert_eq!(output.stats.records_out(), total);
        let ports: HashMap<String, u64> = output.stats.ports().into_iter().collect();
        assert_eq!(ports["out"], expected[0].len() as u64);
        assert_eq!(ports["other"], expected[1].len() as u64);
    }
}
