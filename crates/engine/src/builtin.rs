//! Small stage kinds for tests and benchmarks of the engine itself: a counting
//! source, a pass-through transform, a sink that counts (optionally slowly) and a
//! stage that fails. They are registered under `test-*` names only where a test
//! or benchmark asks for them; a user's pipeline never sees them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::PipelineContext;
use crate::error::StageError;
use crate::options::parse_options;
use crate::registry::{Port, Role, StageConfig, StageKind};
use crate::stage::{Batch, Emitted, PortId, Stage, StageIo};
use crate::transform::{Transform, TransformStage};
use tempora_records::{Capture, Record, RecordKind, Timestamp};

/// Options of `test-generate`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateOptions {
    /// How many capture records to emit.
    pub count: u64,
    /// Emit every record this many microseconds apart (0 = as fast as possible).
    #[serde(default)]
    pub interval_us: u64,
    /// A file that must exist (to test validation of input files).
    #[serde(default)]
    pub from_file: Option<std::path::PathBuf>,
}

/// Options of `test-pass` and `test-fail`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PassOptions {
    /// `test-fail` fails after this many records.
    #[serde(default)]
    pub fail_after: u64,
}

/// Options of `test-count`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CountOptions {
    /// Sleep this long per batch (a slow sink).
    #[serde(default)]
    pub delay_ms: u64,
    /// An output path template (to test validation of sink paths); nothing is written.
    #[serde(default)]
    pub path: Option<String>,
}

/// The engine's test kinds.
pub fn test_kinds() -> Vec<StageKind> {
    vec![
        StageKind {
            name: "test-generate",
            about: "Emits `count` small capture records.",
            role: Role::Source,
            accepts: &[],
            emits: "out: capture",
            requests: &[],
            in_rebuild: crate::registry::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(GenerateOptions),
            configure: |t, _| Ok(Box::new(Generate(parse_options(t)?))),
        },
        StageKind {
            name: "test-pass",
            about: "Passes every record through unchanged.",
            role: Role::Transform,
            accepts: &RecordKind::ALL,
            emits: "out: capture",
            requests: &[],
            in_rebuild: crate::registry::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(PassOptions),
            configure: |t, _| Ok(Box::new(Pass(parse_options(t)?, false))),
        },
        StageKind {
            name: "test-fail",
            about: "Passes records through, then fails after `fail_after`.",
            role: Role::Transform,
            accepts: &RecordKind::ALL,
            emits: "out: capture",
            requests: &[],
            in_rebuild: crate::registry::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(PassOptions),
            configure: |t, _| Ok(Box::new(Pass(parse_options(t)?, true))),
        },
        StageKind {
            name: "test-count",
            about: "Counts records (and can be slow).",
            role: Role::Sink,
            accepts: &RecordKind::ALL,
            emits: "",
            requests: &[],
            in_rebuild: crate::registry::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(CountOptions),
            configure: |t, _| Ok(Box::new(Count(parse_options(t)?))),
        },
    ]
}

#[derive(Clone)]
struct Generate(GenerateOptions);

impl StageConfig for Generate {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Capture)]
    }
    fn reads(&self) -> Vec<(String, std::path::PathBuf)> {
        self.0
            .from_file
            .iter()
            .map(|p| ("from_file".to_string(), p.clone()))
            .collect()
    }
    fn build(&self, _: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(self.clone()))
    }
}

/// A capture time for record `i`: second `i % 86,400` of 2000-01-01, so distinct
/// and in order within a day of records. Taken from a table made once, so a
/// record costs what it did when the field was a counter: the engine's
/// benchmarks measure the engine, not the making of timestamps.
fn small_timestamp(i: u64) -> Timestamp {
    static DAY: std::sync::LazyLock<Vec<Timestamp>> = std::sync::LazyLock::new(|| {
        (0..86_400u32)
            .filter_map(|s| Timestamp::from_parts(2000, 1, 1, s / 3600, s / 60 % 60, s % 60))
            .collect()
    });
    let at = usize::try_from(i % 86_400).unwrap_or(0);
    DAY.get(at)
        .cloned()
        .unwrap_or_else(|| Timestamp::of(chrono::NaiveDateTime::default()))
}

/// A small record, as cheap to clone as a record can be.
pub fn small_record(i: u64) -> Record {
    Record::Capture(Box::new(Capture {
        url: String::new(),
        timestamp: small_timestamp(i),
        status: Some(200),
        mime: String::new(),
        digest: String::new(),
        length: Some(i),
        source: String::new(),
    }))
}

/// A fast `test-generate` looks at the shutdown signal once per this many records.
const GENERATE_CHUNK: u64 = 1024;

#[async_trait]
impl Stage for Generate {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let interval = Duration::from_micros(self.0.interval_us);
        let mut i = 0;
        while i < self.0.count && !io.shutdown().is_cancelled() {
            if interval.is_zero() {
                let end = self.0.count.min(i + GENERATE_CHUNK);
                io.emit_many(PortId::DEFAULT, (i..end).map(small_record))
                    .await?;
                i = end;
            } else {
                io.emit(PortId::DEFAULT, small_record(i)).await?;
                tokio::time::sleep(interval).await;
                i += 1;
            }
        }
        io.flush().await
    }
}

struct Pass(PassOptions, bool);

impl StageConfig for Pass {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Capture)]
    }
    fn build(&self, _: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(TransformStage(PassThrough {
            fail_after: self.1.then_some(self.0.fail_after),
            seen: 0,
        })))
    }
}

struct PassThrough {
    fail_after: Option<u64>,
    seen: u64,
}

impl Transform for PassThrough {
    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        self.seen += batch.len() as u64;
        if let Some(limit) = self.fail_after {
            if self.seen > limit {
                return Err(StageError::input(format!(
                    "record {limit} is bad (test failure)"
                )));
            }
        }
        out.push_batch(PortId::DEFAULT, batch);
        Ok(())
    }
}

struct Count(CountOptions);

/// Records counted by every `test-count` sink of this process (tests read it).
pub static COUNTED: AtomicU64 = AtomicU64::new(0);

impl StageConfig for Count {
    fn outputs(&self) -> Vec<Port> {
        Vec::new()
    }
    fn writes(&self) -> Vec<(String, String)> {
        self.0
            .path
            .iter()
            .map(|p| ("path".to_string(), p.clone()))
            .collect()
    }
    fn build(&self, _: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(CountSink {
            delay: Duration::from_millis(self.0.delay_ms),
            counted: Arc::new(AtomicU64::new(0)),
        }))
    }
}

struct CountSink {
    delay: Duration,
    counted: Arc<AtomicU64>,
}

#[async_trait]
impl Stage for CountSink {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        while let Some(batch) = io.recv().await? {
            if !self.delay.is_zero() {
                tokio::time::sleep(self.delay).await;
            }
            self.counted
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
            COUNTED.fetch_add(batch.len() as u64, Ordering::Relaxed);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{small_record, Generate, GenerateOptions, GENERATE_CHUNK};
    use crate::testing::{context, run_stage};

    #[tokio::test]
    async fn test_generate_emits_every_record_in_order_across_its_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let count = 2 * GENERATE_CHUNK + 7;
        let options = GenerateOptions {
            count,
            interval_us: 0,
            from_file: None,
        };
        let output = run_stage(
            Box::new(Generate(options)),
            &context(dir.path()),
            Vec::new(),
            HashMap::new(),
        )
        .await
        .unwrap();
        let expected: Vec<_> = (0..count).map(small_record).collect();
        assert_eq!(output.out(), expected.as_slice());
        assert_eq!(output.stats.records_out(), count);
    }
}
