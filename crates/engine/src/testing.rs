//! Runs one stage alone on records given in memory: for stage crates' tests.
//!
//! The stage gets a real [`StageIo`] with bounded channels, exactly as in a
//! pipeline; its output ports and rejections are collected.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::context::PipelineContext;
use crate::error::StageError;
use crate::registry::StageConfig;
use crate::stage::{AfterPublishHooks, Batch, Input, Message, OutPort, StageIo, Watermark};
use crate::stats::StageStats;
use crate::Rejected;
use tempora_records::Record;

/// What a stage produced when run alone.
#[derive(Debug, Default)]
pub struct StageOutput {
    /// Records per output port, in emission order.
    pub ports: BTreeMap<String, Vec<Record>>,
    /// Rejected records.
    pub rejected: Vec<Rejected>,
    /// The stage's counters and metrics.
    pub stats: Arc<StageStats>,
    /// Watermarks per output port, each with the number of records sent before it.
    pub watermarks: BTreeMap<String, Vec<(usize, Watermark)>>,
}

impl StageOutput {
    /// The records of the default port `out`.
    pub fn out(&self) -> &[Record] {
        self.ports.get("out").map(Vec::as_slice).unwrap_or(&[])
    }
}

/// A [`PipelineContext`] for tests: cutoff 2019-12-31, output in `out`.
pub fn context(out: &std::path::Path) -> PipelineContext {
    PipelineContext {
        channel_capacity: 64,
        ..PipelineContext::new(
            "test",
            chrono::NaiveDate::from_ymd_opt(2019, 12, 31).unwrap_or_default(),
            out.to_path_buf(),
        )
    }
}

/// Builds the stage from `config` and runs it on `input`, with `side` inputs keyed
/// by their option name. The shutdown signal never fires.
///
/// # Errors
/// The stage's build or run error.
pub async fn run_stage(
    config: Box<dyn StageConfig>,
    ctx: &PipelineContext,
    input: Vec<Record>,
    side: HashMap<String, Vec<Record>>,
) -> Result<StageOutput, StageError> {
    run_stage_with_shutdown(config, ctx, input, side, CancellationToken::new()).await
}

/// [`run_stage`] with a shutdown token the test controls (to test sources stopping).
///
/// # Errors
/// The stage's build or run error.
pub async fn run_stage_with_shutdown(
    config: Box<dyn StageConfig>,
    ctx: &PipelineContext,
    input: Vec<Record>,
    side: HashMap<String, Vec<Record>>,
    shutdown: CancellationToken,
) -> Result<StageOutput, StageError> {
    let input = input
        .chunks(16)
        .map(|c| Input::Records(c.to_vec()))
        .collect();
    run_stage_io(config, ctx, input, side, shutdown).await
}

/// [`run_stage`] whose input is batches and watermarks, in order (to test a
/// stage that reads watermarks).
///
/// # Errors
/// The stage's build or run error.
pub async fn run_stage_fed(
    config: Box<dyn StageConfig>,
    ctx: &PipelineContext,
    input: Vec<Input>,
    side: HashMap<String, Vec<Record>>,
) -> Result<StageOutput, StageError> {
    run_stage_io(config, ctx, input, side, CancellationToken::new()).await
}

async fn run_stage_io(
    config: Box<dyn StageConfig>,
    ctx: &PipelineContext,
    input: Vec<Input>,
    side: HashMap<String, Vec<Record>>,
    shutdown: CancellationToken,
) -> Result<StageOutput, StageError> {
    let ports = config.outputs();
    let stage = config.build(ctx)?;
    let stats = Arc::new(StageStats::default());

    let (in_tx, in_rx) = mpsc::channel::<Message>(4);
    let feeder = tokio::spawn(async move {
        for item in input {
            let message = match item {
                Input::Records(batch) => Message::Records(batch),
                Input::Watermark(value) => Message::Watermark { from: 0, value },
            };
            if in_tx.send(message).await.is_err() {
                return;
            }
        }
    });

    let mut side_rx = HashMap::new();
    for (key, records) in side {
        let (tx, rx) = mpsc::channel::<Message>(4);
        tokio::spawn(feed(tx, records));
        side_rx.insert(key, rx);
    }

    let (out_ports, collectors) = collect_ports(&ports);
    let (rej_tx, rej_rx) = mpsc::channel::<Vec<Rejected>>(4);
    let rejected = tokio::spawn(collect_rejected(rej_rx));

    let publication = crate::publish::Publication::default();
    let io = StageIo {
        name: "under_test".into(),
        input: Some(in_rx),
        producers: 1,
        watermarks: HashMap::new(),
        watermark: None,
        stashed: None,
        side: side_rx,
        ports: out_ports,
        rejected: rej_tx,
        stats: stats.clone(),
        shutdown,
        batch_size: 16,
        last_flush: Instant::now(),
        verdict: tokio::sync::watch::channel(Some(true)).1,
        is_sink: ports.is_empty(),
        index: 0,
        after_publish: AfterPublishHooks::default(),
        publication: publication.clone(),
    };
    let hooks = io.after_publish.clone();
    let stopped = io.shutdown.clone();
    let mut result = stage.run(io).await;
    if result.is_ok() && !stopped.is_cancelled() {
        result = publish_as_completed(&ctx.out, &publication, &hooks).await;
    }
    feeder.abort();
    let mut output = StageOutput {
        stats,
        ..StageOutput::default()
    };
    for c in collectors {
        let (name, records, marks) = c
            .await
            .map_err(|e| StageError::internal(format!("collector failed: {e}")))?;
        output.watermarks.insert(name.clone(), marks);
        output.ports.insert(name, records);
    }
    output.rejected = rejected
        .await
        .map_err(|e| StageError::internal(format!("collector failed: {e}")))?;
    result.map(|()| output)
}

/// Every rejection the stage sends.
async fn collect_rejected(mut rx: mpsc::Receiver<Vec<Rejected>>) -> Vec<Rejected> {
    let mut all = Vec::new();
    while let Some(batch) = rx.recv().await {
        all.extend(batch);
    }
    all
}

/// What a port collector returns: the port, its records, its watermarks (after
/// how many records).
type Collected = (String, Vec<Record>, Vec<(usize, Watermark)>);

/// One channel per output port, and a task collecting what it carries.
fn collect_ports(
    ports: &[crate::Port],
) -> (
    Vec<(String, OutPort)>,
    Vec<tokio::task::JoinHandle<Collected>>,
) {
    let mut collectors = Vec::new();
    let mut out_ports = Vec::new();
    for port in ports {
        let (tx, mut rx) = mpsc::channel::<Message>(4);
        out_ports.push((
            port.name.clone(),
            OutPort {
                senders: vec![tx],
                buffer: Vec::new(),
            },
        ));
        let name = port.name.clone();
        collectors.push(tokio::spawn(async move {
            let (mut all, mut marks) = (Vec::new(), Vec::new());
            while let Some(message) = rx.recv().await {
                match message {
                    Message::Records(batch) => all.extend(batch),
                    Message::Watermark { value, .. } => marks.push((all.len(), value)),
                }
            }
            (name, all, marks)
        }));
    }
    (out_ports, collectors)
}

/// What a sink staged is published at once, as by the runtime of a run that
/// completed; with nothing downstream to publish, the stage's hooks run at
/// once, as after sinks that published a completed run.
async fn publish_as_completed(
    out: &std::path::Path,
    publication: &crate::publish::Publication,
    hooks: &AfterPublishHooks,
) -> Result<(), StageError> {
    let staged = std::mem::take(
        &mut *publication
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    crate::publish::publish(out, staged, false, None).map_err(|e| StageError::io(out, e))?;
    let hooks = std::mem::take(
        &mut *hooks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    for (_, hook) in hooks {
        hook().await?;
    }
    Ok(())
}

async fn feed(tx: mpsc::Sender<Message>, records: Vec<Record>) {
    let mut records = records.into_iter().peekable();
    while records.peek().is_some() {
        let batch: Batch = records.by_ref().take(16).collect();
        if tx.send(Message::Records(batch)).await.is_err() {
            return;
        }
    }
}
