//! The `jsonl` and `parquet` sources: read records back from files a sink wrote,
//! so downstream stages can be rerun (say, with a new cutoff) without crawling
//! again. Files are read on a blocking thread and handed over in batches through
//! a bounded channel; a line that is not a record of the declared kind is
//! rejected with its file and line (or stops the run with `on_error = "fail"`).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    OnError, OptionError, PipelineContext, Port, PortId, Stage, StageConfig, StageError, StageIo,
};
use tempora_records::{Record, RecordKind};
use tokio::sync::mpsc;

use crate::format::FileFormat;

const fn default_on_error() -> OnError {
    OnError::Skip
}

/// Options of the `jsonl` and `parquet` sources.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct SourceOptions {
    /// Files to read, in order.
    pub paths: Vec<PathBuf>,
    /// The kind of record the files hold: `article`, `fact`, `capture`, `page` or `pair`.
    pub record: RecordKind,
    /// What to do with a line that is not a valid record.
    #[serde(default = "default_on_error")]
    #[schemars(default = "default_on_error")]
    pub on_error: OnError,
}

pub(crate) struct SourceConfig {
    pub(crate) format: &'static dyn FileFormat,
    pub(crate) options: SourceOptions,
}

impl StageConfig for SourceConfig {
    /// Records read from files carry what the files hold.
    fn gives_fields(&self) -> &'static [&'static str] {
        &["split", "novelty", "relation"]
    }

    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(self.options.record)]
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        self.options
            .paths
            .iter()
            .map(|p| ("paths".to_string(), p.clone()))
            .collect()
    }

    fn check(&self, _: &PipelineContext) -> Vec<OptionError> {
        if self.options.paths.is_empty() {
            return vec![OptionError::at("paths", "list at least one file".into())];
        }
        self.kind_mismatch()
            .map(|problem| OptionError::at("record", problem))
            .into_iter()
            .collect()
    }

    fn build(&self, _: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(FileSource {
            format: self.format,
            options: self.options.clone(),
        }))
    }
}

impl SourceConfig {
    /// The first record of the first file is of another kind than `record`
    /// says (every line would be rejected): said before the run, not after it.
    /// Checked for formats read line by line.
    fn kind_mismatch(&self) -> Option<String> {
        if !self.format.streams() {
            return None;
        }
        let path = self.options.paths.iter().find(|p| p.is_file())?;
        let file = std::fs::File::open(path).ok()?;
        let reader = BufReader::new(self.format.read(path, file).ok()?);
        let line = reader
            .lines()
            .map_while(Result::ok)
            .find(|l| !l.trim().is_empty())?;
        let declared = self.options.record;
        if Record::from_json(declared, &line).is_ok() {
            return None;
        }
        let other = RecordKind::ALL
            .into_iter()
            .find(|k| Record::from_json(*k, &line).is_ok())?;
        let a = |k: RecordKind| if k == RecordKind::Article { "an" } else { "a" };
        Some(format!(
            "the first record of {} is {} {other}, not {} {declared}: set `record = \"{other}\"` or read a file of {declared}s",
            path.display(),
            a(other),
            a(declared)
        ))
    }
}

struct FileSource {
    format: &'static dyn FileFormat,
    options: SourceOptions,
}

enum Message {
    Batch(Vec<Record>),
    Reject {
        raw: String,
        reason: String,
        location: String,
    },
    Progress(u64),
}

const BATCH: usize = 256;

#[async_trait]
impl Stage for FileSource {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let total: u64 = self
            .options
            .paths
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        io.stats().set_progress_total(total, true);
        let (tx, mut rx) = mpsc::channel::<Message>(8);
        let reader =
            tokio::task::spawn_blocking(move || read_files(self.format, &self.options, &tx));
        loop {
            let message = tokio::select! {
                () = io.shutdown().cancelled() => break,
                m = rx.recv() => m,
            };
            match message {
                Some(Message::Batch(records)) => {
                    for r in records {
                        io.emit(PortId::DEFAULT, r).await?;
                    }
                }
                Some(Message::Reject {
                    raw,
                    reason,
                    location,
                }) => {
                    io.reject(serde_json::Value::String(raw), reason, Some(location))
                        .await?;
                }
                Some(Message::Progress(bytes)) => io.stats().set_progress(bytes),
                None => break,
            }
        }
        drop(rx);
        io.flush().await?;
        match reader.await {
            Ok(result) => result,
            Err(e) => Err(StageError::internal(format!(
                "the reader thread failed: {e}"
            ))),
        }
    }
}

/// Longest raw line kept in a rejection.
const MAX_REJECTED_CHARS: usize = 10_000;

fn read_files(
    format: &'static dyn FileFormat,
    options: &SourceOptions,
    tx: &mpsc::Sender<Message>,
) -> Result<(), StageError> {
    let mut done_bytes = 0u64;
    for path in &options.paths {
        let file = std::fs::File::open(path).map_err(|e| StageError::io(path, e))?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let content = format.read(path, file)?;
        let unit = format.unit();
        let mut batch = Vec::with_capacity(BATCH);
        for (i, line) in BufReader::with_capacity(1 << 16, content)
            .lines()
            .enumerate()
        {
            let line = line.map_err(|e| {
                StageError::input(format!("{}: {unit} {}: {e}", path.display(), i + 1))
            })?;
            if line.trim().is_empty() {
                continue;
            }
            match Record::from_json(options.record, &line) {
                Ok(record) => batch.push(record),
                Err(e) => {
                    let location = format!("{}:{}", path.display(), i + 1);
                    let reason = format!("not a valid {} record: {e}", options.record);
                    if options.on_error == OnError::Fail {
                        return Err(StageError::input(format!("{location}: {reason}")));
                    }
                    let raw: String = line.chars().take(MAX_REJECTED_CHARS).collect();
                    if tx
                        .blocking_send(Message::Reject {
                            raw,
                            reason,
                            location,
                        })
                        .is_err()
                    {
                        return Ok(());
                    }
                }
            }
            if batch.len() >= BATCH
                && tx
                    .blocking_send(Message::Batch(std::mem::take(&mut batch)))
                    .is_err()
            {
                return Ok(());
            }
        }
        done_bytes += size;
        if tx.blocking_send(Message::Batch(batch)).is_err()
            || tx.blocking_send(Message::Progress(done_bytes)).is_err()
        {
            return Ok(());
        }
    }
    Ok(())
}
