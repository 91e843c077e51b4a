//! `wayback-cdx`: lists captures with the CDX API (source; `out: capture`).

use crate::archive;
use async_trait::async_trait;
use tempora_engine::{
    DescribeContext, OptionError, Peers, PipelineContext, Port, PortId, Stage, StageConfig,
    StageError, StageIo, StagePlan, Watermark,
};
use tempora_records::counters::ListingMetric;
use tempora_records::{Record, RecordKind};

pub use super::cdx_options::{configure, CdxOptions};
use super::windows::uncovered_sets;
use crate::lister::{CdxLister, ListerConfig, Listing};

#[async_trait(?Send)]
impl StageConfig for CdxOptions {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Capture)]
    }

    fn check(&self, ctx: &PipelineContext) -> Vec<OptionError> {
        let mut problems = self.problems();
        problems.extend(uncovered_sets(self.from, self.to, ctx));
        problems
    }

    fn shared(&self) -> Option<&dyn std::any::Any> {
        Some(&self.archive)
    }

    fn link(&mut self, peers: &Peers<'_>) -> Vec<OptionError> {
        self.archive.link(peers)
    }

    async fn describe(&self, ctx: &DescribeContext<'_>) -> StagePlan {
        super::cdx_plan::describe(self, ctx).await
    }

    fn operational(&self) -> &'static [&'static str] {
        &["archive", "state", "limit", "chunk_days"]
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        if let Some(problem) = self.problems().into_iter().next() {
            return Err(StageError::input(problem.message));
        }
        Ok(Box::new(CdxStage {
            // A rebuild reads every listing back from the state, as a pipeline that
            // is not incremental does.
            incremental: self.incremental && (ctx.mode == tempora_engine::RunMode::Incremental),
            options: self.clone(),
        }))
    }
}

struct CdxStage {
    options: CdxOptions,
    /// Hands on only what is new to the state (see [`crate::lister::CdxLister`]).
    incremental: bool,
}

#[async_trait]
impl Stage for CdxStage {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let incremental = self.incremental;
        let o = self.options;
        let (mut lister, state) = lister_of(&o, incremental, &io)?;
        let mut handed = Handed {
            port: io.port(Port::DEFAULT)?,
            max_captures: o.max_captures,
            emitted: 0,
            listed_new: Listed::new(&o.urls),
        };
        loop {
            let step = tokio::select! {
                biased;
                () = io.shutdown().cancelled() => break,
                step = lister.next() => step?,
            };
            let Some(listed) = step else { break };
            handed.hand_on(&mut io, listed).await?;
            if handed.reached_max() {
                break;
            }
        }
        io.flush().await?;
        let stopped_at_max = handed.reached_max();
        handed.listed_new.report(io.stats());
        // Every capture still listed and unfetched was handed on in this run, unless
        // it stopped early: once the run completes, the stages after decided them.
        // (An incremental listing's only: a run that decides everything again hands
        // every listed capture on anyway.)
        let handed_all = !io.shutdown().is_cancelled() && !stopped_at_max;
        if handed_all && incremental {
            let source = io.name().to_string();
            io.after_publish(move || async move {
                state
                    .call(move |c| crate::state::captures::settle(c, &source))
                    .await?;
                Ok(())
            });
        }
        Ok(())
    }
}

/// The stage's listing of its chunked queries, counting its requests in the
/// stage's counters, and the state it records in.
fn lister_of(
    o: &CdxOptions,
    incremental: bool,
    io: &StageIo,
) -> Result<(CdxLister, crate::state::State), StageError> {
    let options = o.archive.options()?;
    let archive = options.archive(o.state.as_deref())?;
    let overlap = o.overlap.get().as_secs();
    let state = archive.state()?;
    let lister = CdxLister::new(
        archive
            .cdx(options.cdx_rate)?
            .counting(io.stats().clone(), archive::CDX),
        state.clone(),
        ListerConfig {
            listing: Listing::Chunked(Box::new(o.listing())),
            keep: o.keep,
            incremental,
            overlap_secs: i64::try_from(overlap).unwrap_or(i64::MAX),
            source: io.name().to_string(),
        },
    );
    Ok((lister, state))
}

/// What the listing handed on so far, and where: the port, the captures
/// emitted and their most (`max_captures`), and the figures of what is new.
struct Handed {
    port: PortId,
    max_captures: Option<u64>,
    emitted: u64,
    listed_new: Listed,
}

impl Handed {
    /// Hands on one step of the listing: its counts, the query it found blocked
    /// (rejected), its captures (up to `max_captures` in all) and its watermark,
    /// then flushes.
    async fn hand_on(
        &mut self,
        io: &mut StageIo,
        listed: crate::lister::Listed,
    ) -> Result<(), StageError> {
        let stats = io.stats().clone();
        stats.count("cdx_rows", listed.rows);
        stats.count("cached_rows", listed.cached_rows);
        stats.count("duplicates", listed.duplicates);
        if listed.resumed {
            stats.count("resumed", listed.captures.len() as u64);
        }
        if let Some((url, message)) = listed.blocked {
            io.reject(
                serde_json::json!({ "query": url }),
                format!("blocked site: {message}"),
                Some(url),
            )
            .await?;
        }
        self.listed_new
            .add(listed.query.as_deref(), &listed.captures);
        for capture in listed.captures {
            io.emit(self.port, Record::Capture(Box::new(capture)))
                .await?;
            self.emitted += 1;
            if self.reached_max() {
                break;
            }
        }
        if let Some(watermark) = &listed.watermark {
            let time = tempora_wayback_format::timestamp::to_utc(watermark).ok_or_else(|| {
                StageError::internal(format!("watermark `{watermark}` is not a timestamp"))
            })?;
            io.emit_watermark(self.port, Watermark(time)).await?;
        }
        io.flush().await
    }

    /// `max_captures` are handed on: the listing stops.
    fn reached_max(&self) -> bool {
        self.max_captures.is_some_and(|max| self.emitted >= max)
    }
}

/// What the listing handed on that no earlier run had, per URL pattern as the
/// pipeline writes it, and the newest capture among it: the figures a refresh's
/// health check compares with the runs before (metrics `listed`, `listed_until`).
struct Listed {
    counts: Vec<(String, u64)>,
    until: Option<String>,
}

impl Listed {
    fn new(patterns: &[String]) -> Self {
        Self {
            counts: patterns.iter().map(|p| (p.clone(), 0)).collect(),
            until: None,
        }
    }

    /// Counts `captures`, listed by the query for `url` (a pattern with its
    /// `{year}` filled in).
    fn add(&mut self, url: Option<&str>, captures: &[tempora_records::Capture]) {
        let Some(url) = url else { return };
        if let Some((_, n)) = self.counts.iter_mut().find(|(p, _)| lists(p, url)) {
            *n += captures.len() as u64;
        }
        let newest = captures.iter().map(|c| c.timestamp.as_str()).max();
        if let Some(newest) = newest {
            if self.until.as_deref().is_none_or(|u| newest > u) {
                self.until = Some(newest.to_string());
            }
        }
    }

    fn report(self, stats: &tempora_engine::StageStats) {
        let counts: serde_json::Map<String, serde_json::Value> = self
            .counts
            .into_iter()
            .map(|(p, n)| (p, n.into()))
            .collect();
        stats.set_metric(ListingMetric::Listed.name(), counts.into());
        if let Some(until) = self.until {
            stats.set_metric(ListingMetric::ListedUntil.name(), until.into());
        }
    }
}

/// Whether the pattern `pattern` (with a `{year}` or not) became the query URL `url`.
fn lists(pattern: &str, url: &str) -> bool {
    match pattern.split_once("{year}") {
        None => pattern == url,
        Some((before, after)) => url
            .strip_prefix(before)
            .and_then(|rest| rest.strip_suffix(after))
            .is_some_and(|year| year.len() == 4 && year.bytes().all(|b| b.is_ascii_digit())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_counted_under_the_pattern_it_came_from() {
        assert!(lists("bbc.co.uk/news/*", "bbc.co.uk/news/*"));
        assert!(lists("edition.cnn.com/{year}/*", "edition.cnn.com/2021/*"));
        assert!(!lists("edition.cnn.com/{year}/*", "us.cnn.com/2021/*"));
        assert!(!lists("edition.cnn.com/{year}/*", "edition.cnn.com/20x1/*"));
    }
}
