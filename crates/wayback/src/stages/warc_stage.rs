//! `warc`: reads WARC files (ours and the Archive's) as pages (source; `out: page`),
//! so a crawl can be rebuilt offline.
//!
//! A page captured before the first day of every window of `[pipeline.sets]`
//! holds no article any set can take (a capture comes after its article's
//! publication: `prefetch`'s `outside_windows`, from the capture time alone), so
//! it is left out before its payload is read: rejected as its capture, without
//! its text, and counted (`skipped_outside_windows`). A folder of WARC files
//! that a crawl keeps adding to is then read whole each run, but only what the
//! sets can hold goes on.

use std::path::PathBuf;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::cost::skipped_counter;
use tempora_engine::{
    parse_options, OptionError, PipelineContext, Port, Stage, StageConfig, StageError, StageIo,
    Windows,
};
use tempora_records::{Capture, Page, Record, RecordKind};
use tokio::sync::mpsc;

use crate::warc::{ArchivedResponse, WarcFileReader, WarcRecord};

/// Options of `warc`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct WarcOptions {
    /// WARC files (`.warc.gz` or `.warc`) to read, in order; globs welcome (`crawl/*.warc.gz`).
    pub paths: Vec<String>,
    /// Largest payload accepted, in bytes; larger records are rejected with a reason.
    #[serde(default = "default_max_body")]
    #[schemars(default = "default_max_body")]
    pub max_body_bytes: u64,
}

const fn default_max_body() -> u64 {
    16 * 1024 * 1024
}

/// Parses the options of `warc`.
///
/// # Errors
/// Unknown, missing or mistyped options.
pub fn configure(
    table: toml::Table,
    _ctx: &PipelineContext,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    Ok(Box::new(parse_options::<WarcOptions>(table)?))
}

fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '['])
}

impl WarcOptions {
    /// Every file the patterns name, each pattern's matches sorted.
    ///
    /// # Errors
    /// A bad pattern, or a pattern that matches nothing.
    pub fn files(&self) -> Result<Vec<PathBuf>, String> {
        let mut files = Vec::new();
        for pattern in &self.paths {
            if !is_glob(pattern) {
                files.push(PathBuf::from(pattern));
                continue;
            }
            let mut matched: Vec<PathBuf> = glob::glob(pattern)
                .map_err(|e| format!("`{pattern}` is not a glob pattern: {e}"))?
                .filter_map(Result::ok)
                .collect();
            if matched.is_empty() {
                return Err(format!("`{pattern}` matches no file"));
            }
            matched.sort();
            files.extend(matched);
        }
        Ok(files)
    }
}

impl StageConfig for WarcOptions {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Page)]
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        // A pattern stands for what it matches; one that matches nothing stands
        // for itself, so the plan names it as a file that is not there.
        let mut files = Vec::new();
        for pattern in &self.paths {
            let one = WarcOptions {
                paths: vec![pattern.clone()],
                ..self.clone()
            };
            match one.files() {
                Ok(matched) => files.extend(matched),
                Err(_) => files.push(PathBuf::from(pattern)),
            }
        }
        files
            .into_iter()
            .map(|p| ("paths".to_string(), p))
            .collect()
    }

    fn check(&self, _ctx: &PipelineContext) -> Vec<OptionError> {
        let mut out = Vec::new();
        if self.paths.is_empty() {
            out.push(OptionError::at(
                "paths",
                "give at least one WARC file or pattern".into(),
            ));
        }
        for p in self.paths.iter().filter(|p| is_glob(p)) {
            if let Err(e) = glob::Pattern::new(p) {
                out.push(OptionError::at(
                    "paths",
                    format!("`{p}` is not a glob pattern: {e}"),
                ));
            }
        }
        out
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(WarcStage {
            options: self.clone(),
            windows: ctx.windows.clone(),
        }))
    }
}

struct WarcStage {
    options: WarcOptions,
    /// The pipeline's sets: a page captured before all of them is left out.
    windows: Windows,
}

enum Item {
    Page(Box<Page>),
    Reject(serde_json::Value, String, String),
    /// A capture no set can hold, with the reason: left out, its page unread.
    OutsideWindows(Box<Capture>, String),
    Skipped,
}

#[async_trait]
impl Stage for WarcStage {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let files = self.options.files().map_err(StageError::input)?;
        let max_body = self.options.max_body_bytes;
        let source = io.name().to_string();
        let windows = self.windows;
        let (tx, mut rx) = mpsc::channel::<Result<Item, StageError>>(64);
        let reader = tokio::task::spawn_blocking(move || {
            read_files(&files, &source, max_body, &windows, &tx)
        });
        let port = io.port(Port::DEFAULT)?;
        loop {
            let item = tokio::select! {
                biased;
                () = io.shutdown().cancelled() => break,
                item = rx.recv() => item,
            };
            match item {
                None => break,
                Some(Err(e)) => return Err(e),
                Some(Ok(Item::Page(page))) => io.emit(port, Record::Page(page)).await?,
                Some(Ok(Item::Reject(record, reason, location))) => {
                    io.reject(record, reason, Some(location)).await?
                }
                Some(Ok(Item::OutsideWindows(capture, reason))) => {
                    io.stats().count(&skipped_counter("outside_windows"), 1);
                    // Where prefetch names a capture it skips: its time and URL,
                    // not the file's place, which another crawl's order moves.
                    let location = format!("{} {}", capture.timestamp, capture.url);
                    let record = serde_json::to_value(&capture).unwrap_or_default();
                    io.reject(record, reason, Some(location)).await?
                }
                Some(Ok(Item::Skipped)) => io.stats().count("non_response_records", 1),
            }
        }
        drop(rx);
        let _ = reader.await;
        io.flush().await
    }
}

/// Reads every record of every file into `tx`; stops when the receiver is gone.
fn read_files(
    files: &[PathBuf],
    source: &str,
    max_body: u64,
    windows: &Windows,
    tx: &mpsc::Sender<Result<Item, StageError>>,
) {
    for path in files {
        let reader = match WarcFileReader::open(path, max_body) {
            Ok(r) => r,
            Err(e) => {
                let _ = tx.blocking_send(Err(StageError::input(e.to_string())));
                return;
            }
        };
        for record in reader {
            let item = match record {
                Err(e) => {
                    // A cut or corrupt file: report it and go on with the next file.
                    Item::Reject(
                        serde_json::json!({ "file": path.display().to_string() }),
                        e.to_string(),
                        path.display().to_string(),
                    )
                }
                Ok(r) => {
                    let location = format!("{}:{}", path.display(), r.offset);
                    item_of(&r, location, source, max_body, windows)
                }
            };
            if tx.blocking_send(Ok(item)).is_err() {
                return;
            }
        }
    }
}

/// What one record of a file becomes: a page, a capture no set can hold (its
/// payload left undecoded), a rejection, or nothing (not a response).
fn item_of(
    record: &WarcRecord,
    location: String,
    source: &str,
    max_body: u64,
    windows: &Windows,
) -> Item {
    let reject = |reason: String| {
        let about = serde_json::json!({
            "warc_type": record.kind(),
            "target_uri": record.header("WARC-Target-URI"),
        });
        Item::Reject(about, reason, location.clone())
    };
    let response = match ArchivedResponse::read(record, source) {
        Ok(Some(response)) => response,
        Ok(None) => return Item::Skipped,
        Err(reason) => return reject(reason),
    };
    if let Some(reason) = outside_windows(windows, response.capture()) {
        return Item::OutsideWindows(Box::new(response.capture().clone()), reason);
    }
    match response.into_page(max_body) {
        Ok(page) => Item::Page(Box::new(page)),
        Err(reason) => reject(reason),
    }
}

/// Why no set can hold the article of a page of `capture`, when none can: it
/// was published on or before the capture's day, and every window of
/// `[pipeline.sets]` starts after it (a window with an open start holds every
/// page). `prefetch`'s `outside_windows` and its words, from the capture time
/// alone.
fn outside_windows(windows: &Windows, capture: &Capture) -> Option<String> {
    let day = capture.timestamp.time().date();
    (!windows.could_hold(None, Some(day))).then(|| {
        format!("published between open and {day} (capture time): in no window of [pipeline.sets]")
    })
}
