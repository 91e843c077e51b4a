//! Per-stage counters, shared between the running stage, the progress display and
//! `run.json`. Plain atomics: a stage bumps them once per batch, not per record.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Counters of one stage.
#[derive(Debug, Default)]
pub struct StageStats {
    records_in: AtomicU64,
    records_out: AtomicU64,
    rejected: AtomicU64,
    progress_pos: AtomicU64,
    progress_len: AtomicU64,
    progress_is_bytes: AtomicBool,
    finished: AtomicBool,
    ports: Mutex<Vec<(String, u64)>>,
    counters: Mutex<BTreeMap<String, u64>>,
    metrics: Mutex<BTreeMap<String, serde_json::Value>>,
    missing: Mutex<Option<Missing>>,
    digests: Mutex<Vec<(String, String)>>,
    pinned: Mutex<Vec<(String, std::path::PathBuf)>>,
    warnings: Mutex<Vec<String>>,
}

/// What a stage could not produce in this run and a rerun may (a page the
/// Archive did not serve after every attempt): the run's outputs lack it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Missing {
    /// The stage.
    pub stage: String,
    /// What is missing, plural (`pages`).
    pub what: String,
    /// Why, and what to do: `could not be fetched; run the same command again to
    /// retry them`.
    pub why: String,
    /// How many.
    pub count: u64,
    /// The first [`MISSING_LISTED`] of them in sorted order (not in the order the
    /// run met them, which concurrent fetches decide), each with its reason.
    pub items: Vec<String>,
}

/// How many missing items `run.json` lists (all are counted, and rejected.jsonl has each).
pub const MISSING_LISTED: usize = 1000;

impl StageStats {
    pub(crate) fn add_in(&self, n: u64) {
        self.records_in.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn add_out(&self, n: u64) {
        self.records_out.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn add_rejected(&self, n: u64) {
        self.rejected.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn add_port(&self, port: &str, n: u64) {
        if let Ok(mut ports) = self.ports.lock() {
            match ports.iter_mut().find(|(name, _)| name == port) {
                Some((_, count)) => *count += n,
                None => ports.push((port.to_string(), n)),
            }
        }
    }

    /// Records sent per output port.
    pub fn ports(&self) -> Vec<(String, u64)> {
        let mut ports = self.ports.lock().map(|p| p.clone()).unwrap_or_default();
        ports.sort();
        ports
    }

    /// Notes one `what` (plural: `pages`) this run could not produce, `why` (the
    /// same for every item of a stage), named by `item`.
    pub fn missing(&self, what: &str, why: &str, item: String) {
        if let Ok(mut missing) = self.missing.lock() {
            let m = missing.get_or_insert_with(|| Missing {
                stage: String::new(),
                what: what.to_string(),
                why: why.to_string(),
                count: 0,
                items: Vec::new(),
            });
            m.count += 1;
            // The smallest MISSING_LISTED items, sorted: a rule of the items.
            let at = m.items.partition_point(|known| *known < item);
            if at < MISSING_LISTED {
                m.items.insert(at, item);
                m.items.truncate(MISSING_LISTED);
            }
        }
    }

    /// Notes that the run, though it may complete, is not what its user wanted
    /// (`why`, in words: "its training set holds no summary"): the run ends
    /// with the "completed with problems" exit code and says so. Said once.
    pub fn warn(&self, why: &str) {
        if let Ok(mut warnings) = self.warnings.lock() {
            if !warnings.iter().any(|w| w == why) {
                warnings.push(why.to_string());
            }
        }
    }

    /// What [`StageStats::warn`] noted.
    pub fn warnings(&self) -> Vec<String> {
        // Sorted: which warning came first is the run's timing, not its inputs.
        let mut warnings = self.warnings.lock().map(|w| w.clone()).unwrap_or_default();
        warnings.sort();
        warnings
    }

    /// The SHA-256 (hex) of the file named by option `option`, which the stage
    /// read whole and hashed as it read: `run.json`'s inputs take it for a file
    /// too large to hash apart (a Wikidata dump).
    pub fn read_whole(&self, option: &str, sha256: String) {
        if let Ok(mut digests) = self.digests.lock() {
            digests.push((option.to_string(), sha256));
        }
    }

    /// Notes that the stage made the file at `path`, named by option `option`,
    /// as its own input and read it (a reading of a live service, pinned):
    /// `run.json`'s inputs describe it as it is when the stage has run.
    pub fn pin(&self, option: &str, path: &std::path::Path) {
        if let Ok(mut pinned) = self.pinned.lock() {
            pinned.push((option.to_string(), path.to_path_buf()));
        }
    }

    /// The files [`StageStats::pin`] noted: (option, path).
    pub fn pinned(&self) -> Vec<(String, std::path::PathBuf)> {
        self.pinned.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// The digests [`StageStats::read_whole`] noted: (option, SHA-256).
    pub fn digests(&self) -> Vec<(String, String)> {
        let mut digests = self.digests.lock().map(|d| d.clone()).unwrap_or_default();
        digests.sort();
        digests
    }

    /// What this stage could not produce, stamped with the stage's `name`.
    pub fn missing_of(&self, name: &str) -> Option<Missing> {
        let mut missing = self.missing.lock().ok()?.clone()?;
        missing.stage = name.to_string();
        Some(missing)
    }

    pub(crate) fn set_finished(&self) {
        self.finished.store(true, Ordering::Relaxed);
    }

    /// Records received.
    pub fn records_in(&self) -> u64 {
        self.records_in.load(Ordering::Relaxed)
    }

    /// Records sent downstream (all ports).
    pub fn records_out(&self) -> u64 {
        self.records_out.load(Ordering::Relaxed)
    }

    /// Records rejected.
    pub fn rejected(&self) -> u64 {
        self.rejected.load(Ordering::Relaxed)
    }

    /// Whether the stage has ended.
    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::Relaxed)
    }

    /// Declares the amount of work, for a progress bar with an ETA (e.g. dump bytes).
    pub fn set_progress_total(&self, total: u64, is_bytes: bool) {
        self.progress_len.store(total, Ordering::Relaxed);
        self.progress_is_bytes.store(is_bytes, Ordering::Relaxed);
    }

    /// Sets how much of the declared work is done.
    pub fn set_progress(&self, done: u64) {
        self.progress_pos.store(done, Ordering::Relaxed);
    }

    /// `(done, total, is_bytes)`; total 0 means unknown.
    pub fn progress(&self) -> (u64, u64, bool) {
        (
            self.progress_pos.load(Ordering::Relaxed),
            self.progress_len.load(Ordering::Relaxed),
            self.progress_is_bytes.load(Ordering::Relaxed),
        )
    }

    /// Adds `n` to a named counter (shown in progress and `run.json`).
    pub fn count(&self, name: &str, n: u64) {
        if let Ok(mut c) = self.counters.lock() {
            *c.entry(name.to_string()).or_default() += n;
        }
    }

    /// Sets a named metric for `run.json` (e.g. a per-year histogram).
    pub fn set_metric(&self, name: &str, value: serde_json::Value) {
        if let Ok(mut m) = self.metrics.lock() {
            m.insert(name.to_string(), value);
        }
    }

    /// The named counters.
    pub fn counters(&self) -> BTreeMap<String, u64> {
        self.counters.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// The named metrics.
    pub fn metrics(&self) -> BTreeMap<String, serde_json::Value> {
        self.metrics.lock().map(|m| m.clone()).unwrap_or_default()
    }
}

/// The counter of `run.json` that says how many records a sink wrote to a file
/// (`file <path relative to pipeline.out>`): written by [`FileWritten::counter`],
/// read back by [`FileWritten::parse`], in every crate that reads `run.json`.
pub struct FileWritten;

impl FileWritten {
    const PREFIX: &'static str = "file ";

    /// The counter's name for `path` (relative to `pipeline.out`).
    pub fn counter(path: &std::path::Path) -> String {
        format!("{}{}", Self::PREFIX, path.display())
    }

    /// The path a counter names, if it is one of these.
    pub fn parse(counter: &str) -> Option<&str> {
        counter.strip_prefix(Self::PREFIX)
    }
}

impl StageReport {
    /// The files the stage wrote, with their records.
    pub fn files_written(&self) -> impl Iterator<Item = (&str, u64)> {
        self.counters
            .iter()
            .filter_map(|(k, v)| Some((FileWritten::parse(k)?, v.as_u64().unwrap_or(0))))
    }
}

/// Counters of one stage in `run.json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StageReport {
    /// Stage name.
    pub name: String,
    /// Its kind.
    pub kind: String,
    /// Records received.
    pub records_in: u64,
    /// Records sent downstream.
    pub records_out: u64,
    /// Records rejected.
    pub rejected: u64,
    /// Records per output port.
    pub ports: serde_json::Map<String, serde_json::Value>,
    /// Wall time from start to end, seconds.
    pub seconds: f64,
    /// The stage's own counters.
    pub counters: serde_json::Map<String, serde_json::Value>,
    /// The stage's own metrics.
    pub metrics: serde_json::Map<String, serde_json::Value>,
    /// What the stage warned of (see [`StageStats::warn`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl StageStats {
    /// The stage's counters as `run.json` has them, for stage `name` of `kind` that
    /// ran for `dt`.
    pub fn report(&self, name: &str, kind: &str, dt: Option<std::time::Duration>) -> StageReport {
        let st = self;
        StageReport {
            name: name.to_string(),
            kind: kind.to_string(),
            records_in: st.records_in(),
            records_out: st.records_out(),
            rejected: st.rejected(),
            ports: st.ports().into_iter().map(|(k, v)| (k, v.into())).collect(),
            seconds: dt.map_or(0.0, |d| d.as_secs_f64()),
            counters: st
                .counters()
                .into_iter()
                .map(|(k, v)| (k, v.into()))
                .collect(),
            metrics: st.metrics().into_iter().collect(),
            warnings: st.warnings(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a stage notes in any order reads back the same: missing items (the
    /// smallest listed), warnings, ports and digests sorted.
    #[test]
    fn what_a_stage_notes_reads_back_in_one_order() {
        let items: Vec<String> = (0..MISSING_LISTED + 50)
            .map(|i| format!("https://example.org/{i:05}"))
            .collect();
        let noted = |order: &[String]| {
            let stats = StageStats::default();
            for item in order {
                stats.missing("pages", "could not be fetched", item.clone());
                stats.warn(&format!("warning {}", &item[item.len() - 1..]));
            }
            for port in ["rejected", "out", "kept"] {
                stats.add_port(port, 1);
            }
            stats.read_whole("dump", "ff".into());
            stats.read_whole("train", "aa".into());
            (
                stats.missing_of("fetch"),
                stats.warnings(),
                stats.ports(),
                stats.digests(),
            )
        };
        let forward = noted(&items);
        let mut reversed = items.clone();
        reversed.reverse();
        reversed.swap(3, 700);
        assert_eq!(noted(&reversed), forward);
        let missing = forward.0.unwrap();
        assert_eq!(missing.count, items.len() as u64);
        assert_eq!(missing.items, items[..MISSING_LISTED]);
        assert_eq!(forward.1.first().map(String::as_str), Some("warning 0"));
        assert_eq!(forward.2[0].0, "kept");
        assert_eq!(forward.3[0].0, "dump");
    }
}
