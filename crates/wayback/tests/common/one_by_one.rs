//! A [`PageSink`] that hands captures over one at a time, as a selective stage
//! upstream (`prefetch`) does, and keeps what comes back. Shared by the pace
//! test and the pace benchmark.

use std::collections::VecDeque;

use async_trait::async_trait;
use tempora_engine::StageError;
use tempora_records::{Capture, Page};
use tempora_wayback::crawl::PageSink;

/// Captures in, one a batch; pages and failures kept.
pub struct OneByOne {
    /// What is still to hand over.
    pub captures: VecDeque<Capture>,
    /// Pages, in the order they came.
    pub pages: Vec<Page>,
    /// Failures with their reasons.
    pub failed: Vec<(Capture, String)>,
}

impl OneByOne {
    /// Hands over `captures`.
    pub fn new(captures: Vec<Capture>) -> Self {
        Self {
            captures: captures.into(),
            pages: Vec::new(),
            failed: Vec::new(),
        }
    }
}

#[async_trait]
impl PageSink for OneByOne {
    async fn page(&mut self, page: Page) -> Result<(), StageError> {
        self.pages.push(page);
        Ok(())
    }
    async fn failed(&mut self, capture: Capture, reason: String) -> Result<(), StageError> {
        self.failed.push((capture, reason));
        Ok(())
    }
    async fn flush(&mut self) -> Result<(), StageError> {
        Ok(())
    }
    fn stopping(&self) -> bool {
        false
    }
    async fn next_captures(&mut self) -> Result<Option<Vec<Capture>>, StageError> {
        Ok(self.captures.pop_front().map(|c| vec![c]))
    }
}
