//! What a run shows while it works: one indicatif bar per stage on a terminal
//! (bytes and ETA where a stage declared its total, records otherwise), or a
//! plain log line per stage every few seconds when stderr is not a terminal.

use std::io::IsTerminal as _;
use std::sync::Arc;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio_util::sync::CancellationToken;

use crate::stats::StageStats;

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// Bars on a terminal, log lines otherwise.
    Auto,
    /// Log lines at this interval.
    Log(Duration),
    /// Nothing.
    Off,
}

/// The running display; stopped by [`Progress::finish`].
pub struct Progress {
    stop: CancellationToken,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Progress {
    /// Starts showing `stages`.
    pub fn start(mode: ProgressMode, stages: Vec<(String, Arc<StageStats>)>) -> Self {
        let stop = CancellationToken::new();
        let task = match mode {
            ProgressMode::Off => None,
            ProgressMode::Auto if std::io::stderr().is_terminal() => {
                Some(tokio::spawn(bars(stages, stop.clone())))
            }
            ProgressMode::Auto => Some(tokio::spawn(log_lines(
                stages,
                Duration::from_secs(10),
                stop.clone(),
            ))),
            ProgressMode::Log(every) => Some(tokio::spawn(log_lines(stages, every, stop.clone()))),
        };
        Self { stop, task }
    }

    /// Stops the display; the bars show their final counts.
    pub async fn finish(self) {
        self.stop.cancel();
        if let Some(task) = self.task {
            // The display task only draws; if it failed there is nothing to report.
            let _ = task.await;
        }
    }
}

/// One line per stage: "in 1,234 · out 1,200 · rejected 34 · facts 17".
pub fn summary_line(stats: &StageStats) -> String {
    let mut line = format!(
        "in {} · out {} · rejected {}",
        stats.records_in(),
        stats.records_out(),
        stats.rejected()
    );
    for (name, n) in stats.counters() {
        line.push_str(&format!(" · {name} {n}"));
    }
    line
}

async fn bars(stages: Vec<(String, Arc<StageStats>)>, stop: CancellationToken) {
    let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(4));
    let width = stages.iter().map(|(n, _)| n.len()).max().unwrap_or(8);
    let spinner = ProgressStyle::with_template(&format!("{{spinner}} {{prefix:>{width}}} {{msg}}"))
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    let bytes = ProgressStyle::with_template(&format!(
        "{{spinner}} {{prefix:>{width}}} [{{bar:24}}] {{bytes}}/{{total_bytes}} {{bytes_per_sec}} ETA {{eta}} {{msg}}"
    ))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    let items = ProgressStyle::with_template(&format!(
        "{{spinner}} {{prefix:>{width}}} [{{bar:24}}] {{pos}}/{{len}} ETA {{eta}} {{msg}}"
    ))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    let shown: Vec<ProgressBar> = stages
        .iter()
        .map(|(name, _)| {
            let bar = multi.add(ProgressBar::new_spinner());
            bar.set_style(spinner.clone());
            bar.set_prefix(name.clone());
            bar
        })
        .collect();
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        let stopping = tokio::select! {
            () = stop.cancelled() => true,
            _ = tick.tick() => false,
        };
        for ((_, stats), bar) in stages.iter().zip(&shown) {
            let (done, total, is_bytes) = stats.progress();
            if total > 0 && bar.length() != Some(total) {
                bar.set_length(total);
                bar.set_style(if is_bytes {
                    bytes.clone()
                } else {
                    items.clone()
                });
            }
            if total > 0 {
                bar.set_position(done);
            }
            bar.set_message(summary_line(stats));
            if stats.finished() && !bar.is_finished() {
                bar.finish();
            } else {
                bar.tick();
            }
        }
        if stopping {
            for bar in &shown {
                bar.finish();
            }
            return;
        }
    }
}

async fn log_lines(
    stages: Vec<(String, Arc<StageStats>)>,
    every: Duration,
    stop: CancellationToken,
) {
    let mut tick = tokio::time::interval(every);
    tick.tick().await;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        for (name, stats) in &stages {
            if stats.finished() {
                continue;
            }
            let (done, total, _) = stats.progress();
            if total > 0 {
                let percent = done as f64 * 100.0 / total as f64;
                tracing::info!(stage = %name, progress = format!("{percent:.1}%"), "{}", summary_line(stats));
            } else {
                tracing::info!(stage = %name, "{}", summary_line(stats));
            }
        }
    }
}
