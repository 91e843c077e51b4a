//! What a run shows while it works: one indicatif bar per stage on a terminal
//! (bytes and ETA where a stage declared its total, records otherwise), or a
//! plain log line per stage every few seconds when stderr is not a terminal.
//!
//! The display runs on its own thread, so async runs and blocking commands
//! (`tempora facts`) share it. Bars and log lines do not tear: the bars on screen
//! are registered here, and [`log_writer`] (the binary's `tracing` writer) and
//! [`suspend`] hide them while a line is written, then draw them again.

use std::io::IsTerminal as _;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

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
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The bars on screen, if any.
static SHOWN: Mutex<Option<MultiProgress>> = Mutex::new(None);

impl Progress {
    /// Starts showing `stages`.
    pub fn start(mode: ProgressMode, stages: Vec<(String, Arc<StageStats>)>) -> Self {
        let every = match mode {
            ProgressMode::Off => {
                return Self {
                    stop: None,
                    thread: None,
                }
            }
            ProgressMode::Auto if std::io::stderr().is_terminal() => None,
            ProgressMode::Auto => Some(Duration::from_secs(10)),
            ProgressMode::Log(every) => Some(every),
        };
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || match every {
                None => bars(&stages, &stopped),
                Some(every) => log_lines(&stages, every, &stopped),
            })
            // Without a thread there is no display; the run goes on without it.
            .ok();
        Self {
            stop: Some(stop),
            thread,
        }
    }

    /// Stops the display; the bars show their final counts. Returns at once but
    /// for the last draw.
    pub fn finish(mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            // The display thread only draws; if it panicked there is nothing to report.
            let _ = thread.join();
        }
    }
}

/// Registers the bars on screen (`None`: no more bars).
fn show(bars: Option<MultiProgress>) {
    *SHOWN.lock().unwrap_or_else(PoisonError::into_inner) = bars;
}

/// Runs `f`, which writes to stderr, with the progress bars hidden, then draws them
/// again; without bars it just runs `f`.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner).clone();
    match shown {
        Some(bars) => bars.suspend(f),
        None => f(),
    }
}

/// Whether log lines may carry colour codes: only on a terminal, and not when
/// `NO_COLOR` is set to anything (<https://no-color.org>).
pub fn colour_on_stderr() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Where log lines go: stderr, each line written whole while the bars are hidden.
/// The binary gives it to `tracing_subscriber` (`.with_writer(log_writer)`).
pub fn log_writer() -> LogWriter {
    LogWriter
}

/// Writes to stderr through [`suspend`]; see [`log_writer`].
#[derive(Debug, Clone, Copy, Default)]
pub struct LogWriter;

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // `tracing_subscriber` writes each event with one `write_all`: one line, one call.
        suspend(|| std::io::stderr().lock().write_all(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
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

fn bars(stages: &[(String, Arc<StageStats>)], stop: &mpsc::Receiver<()>) {
    let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(4));
    show(Some(multi.clone()));
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
    loop {
        let stopping = !matches!(
            stop.recv_timeout(Duration::from_millis(250)),
            Err(RecvTimeoutError::Timeout)
        );
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
            show(None);
            return;
        }
    }
}

fn log_lines(stages: &[(String, Arc<StageStats>)], every: Duration, stop: &mpsc::Receiver<()>) {
    while let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(every) {
        for (name, stats) in stages {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A terminal that keeps its lines, as a screen shows them.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<(Vec<String>, usize)>>);

    impl Screen {
        fn shown(&self) -> String {
            self.0.lock().unwrap().0.join("\n")
        }

        fn at_cursor(&self, f: impl FnOnce(&mut String)) -> std::io::Result<()> {
            let mut screen = self.0.lock().unwrap();
            let (lines, row) = &mut *screen;
            if lines.len() <= *row {
                lines.resize(*row + 1, String::new());
            }
            f(&mut lines[*row]);
            Ok(())
        }
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
            let mut screen = self.0.lock().unwrap();
            screen.1 = screen.1.saturating_sub(n);
            Ok(())
        }
        fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
            self.0.lock().unwrap().1 += n;
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)?;
            self.0.lock().unwrap().1 += 1;
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.at_cursor(|line| line.push_str(s))
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.at_cursor(String::clear)
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_line_written_through_suspend_finds_no_bar_on_screen() {
        let screen = Screen::default();
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::term_like(Box::new(
            screen.clone(),
        )));
        let bar = multi.add(ProgressBar::new_spinner());
        bar.set_message("extract in 10");
        bar.tick();
        assert!(
            screen.shown().contains("extract in 10"),
            "{}",
            screen.shown()
        );

        show(Some(multi.clone()));
        let during = suspend(|| screen.shown());
        show(None);
        assert!(!during.contains("extract in 10"), "{during}");
        assert!(screen.shown().contains("extract in 10"), "drawn again");
        // Without bars registered, the line is written as is.
        assert_eq!(suspend(|| 7), 7);
    }
}
