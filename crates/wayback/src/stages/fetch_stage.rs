//! `wayback-fetch`: fetches captures as pages (transform; `capture -> page`).

use std::path::PathBuf;

use crate::archive;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    parse_options, DescribeContext, Estimate, OptionError, Peers, PipelineContext, Port, PortId,
    Requests, Stage, StageConfig, StageError, StageIo, StagePlan,
};
use tempora_records::counters::FetchCount;
use tempora_records::{Capture, Page, Record, RecordKind};

use super::cdx_options::CdxOptions;
use super::describe::{hours_at, options_of, playback_rate, politeness};
use super::options::{ArchiveOptions, ArchiveSetting};
use crate::crawl::{Crawl, PageSink, Tally};
use crate::fetch::FetchConfig;
use crate::output::{Known, Output};
use tempora_engine::WrittenDuration;

/// Options of `wayback-fetch`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct FetchOptions {
    /// Most page requests in flight at once. The Archive's `playback_rate` spaces
    /// the sends; what is in flight is that rate times the answer time (480 a minute
    /// at 3 s an answer: 24), so this bound only caps it.
    #[serde(default = "default_concurrency")]
    #[schemars(default = "default_concurrency")]
    pub concurrency: usize,
    /// Follow a capture-to-capture redirect only this close to the requested capture time.
    #[serde(default = "default_distance")]
    #[schemars(default = "default_distance")]
    pub max_redirect_distance: WrittenDuration,
    /// Most redirects followed for one capture (loops are caught before).
    #[serde(default = "default_max_redirects")]
    #[schemars(default = "default_max_redirects")]
    pub max_redirects: usize,
    /// Largest page accepted, in bytes after decompression; larger ones fail with a reason.
    #[serde(default = "default_max_body")]
    #[schemars(default = "default_max_body")]
    pub max_body_bytes: u64,
    /// Directory for WARC/1.1 files of the fetched pages (`<stage>-<start>-<n>.warc.gz`); needed with `state`.
    #[serde(default)]
    pub warc_out: Option<PathBuf>,
    /// SQLite crawl state (the same file as `wayback-cdx`'s is fine): what was fetched, what failed and why.
    #[serde(default)]
    pub state: Option<PathBuf>,
    /// Pages made durable (WARC fsync + state commit) at least this often.
    #[serde(default = "default_commit_every")]
    #[schemars(default = "default_commit_every")]
    pub commit_every: usize,
    /// The Wayback Machine and its politeness: a table, or the name of the wayback
    /// stage whose table this one shares (`archive = "captures"`); see `wayback-cdx`.
    /// Page requests, redirects and retries count against the playback pool.
    #[serde(default)]
    #[schemars(with = "Option<ArchiveOptions>")]
    pub archive: ArchiveSetting,
    /// The `wayback-cdx` stages upstream, found when the plan links the stages:
    /// the dry run counts which of their captures the WARC files already hold.
    #[serde(skip)]
    #[schemars(skip)]
    upstream: Vec<CdxOptions>,
}

const fn default_concurrency() -> usize {
    32
}
fn default_distance() -> WrittenDuration {
    WrittenDuration::days(7)
}
const fn default_max_redirects() -> usize {
    10
}
const fn default_max_body() -> u64 {
    16 * 1024 * 1024
}
const fn default_commit_every() -> usize {
    64
}

/// Parses the options of `wayback-fetch`.
///
/// # Errors
/// Unknown, missing or mistyped options.
pub fn configure(
    table: toml::Table,
    _ctx: &PipelineContext,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    Ok(Box::new(parse_options::<FetchOptions>(table)?))
}

impl FetchOptions {
    fn problems(&self) -> Vec<OptionError> {
        let mut out = Vec::new();
        if self.state.is_some() && self.warc_out.is_none() {
            out.push(OptionError::at("warc_out", "needed with `state`: a capture counts as fetched only once its page is in an fsynced WARC file".into(),
            ));
        }
        if self.concurrency == 0 || self.commit_every == 0 {
            out.push(OptionError::at(
                "concurrency",
                "`concurrency` and `commit_every` must be at least 1".into(),
            ));
        }
        out.extend(self.archive.problems());
        out
    }
}

#[async_trait(?Send)]
impl StageConfig for FetchOptions {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Page)]
    }

    fn check(&self, _ctx: &PipelineContext) -> Vec<OptionError> {
        self.problems()
    }

    fn shared(&self) -> Option<&dyn std::any::Any> {
        Some(&self.archive)
    }

    fn link(&mut self, peers: &Peers<'_>) -> Vec<OptionError> {
        self.upstream = peers
            .iter()
            .filter(|p| peers.is_downstream(p.name, peers.me()))
            .filter_map(|p| p.config::<CdxOptions>().cloned())
            .collect();
        self.archive.link(peers)
    }

    async fn describe(&self, ctx: &DescribeContext<'_>) -> StagePlan {
        plan(self, ctx)
    }

    fn operational(&self) -> &'static [&'static str] {
        &[
            "archive",
            "state",
            "warc_out",
            "concurrency",
            "commit_every",
        ]
    }

    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        if let Some(problem) = self.problems().into_iter().next() {
            return Err(StageError::input(problem.message));
        }
        Ok(Box::new(FetchStage {
            options: self.clone(),
            known: if ctx.mode == tempora_engine::RunMode::Incremental {
                Known::Skip
            } else {
                Known::Replay
            },
        }))
    }
}

struct FetchStage {
    options: FetchOptions,
    /// A pipeline that makes its outputs anew sends a stored page on again; an
    /// incremental one, whose outputs hold it already, leaves it out.
    known: Known,
}

/// The stage's input and output as a [`PageSink`].
struct IoSink<'a> {
    io: &'a mut StageIo,
    port: PortId,
    /// Records of the input that are not captures, rejected at the next flush
    /// (taking captures must not await anything but the input, to stay cancel-safe).
    misfits: Vec<Record>,
}

#[async_trait]
impl PageSink for IoSink<'_> {
    async fn page(&mut self, page: Page) -> Result<(), StageError> {
        self.io.emit(self.port, Record::Page(Box::new(page))).await
    }

    async fn failed(&mut self, capture: Capture, reason: String) -> Result<(), StageError> {
        let location = format!("{} {}", capture.timestamp, capture.url);
        let record = serde_json::to_value(&capture).unwrap_or_default();
        self.io.reject(record, reason, Some(location)).await
    }

    fn retry_later(&mut self, capture: &Capture, reason: &str) {
        self.io.stats().missing(
            "pages",
            "could not be fetched; run the same command again to retry them",
            format!("{} {}: {reason}", capture.timestamp, capture.url),
        );
    }

    async fn flush(&mut self) -> Result<(), StageError> {
        for other in std::mem::take(&mut self.misfits) {
            self.io
                .reject(other.to_json(), "wayback-fetch takes captures only", None)
                .await?;
        }
        self.io.flush().await
    }

    fn stopping(&self) -> bool {
        self.io.shutdown().is_cancelled()
    }

    async fn next_captures(&mut self) -> Result<Option<Vec<Capture>>, StageError> {
        let Some(batch) = self.io.recv_cancel_safe().await? else {
            return Ok(None);
        };
        let mut captures = Vec::with_capacity(batch.len());
        for record in batch {
            match record {
                Record::Capture(c) => captures.push(*c),
                other => self.misfits.push(other),
            }
        }
        Ok(Some(captures))
    }
}

#[async_trait]
impl Stage for FetchStage {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let o = self.options;
        let options = o.archive.options()?;
        let archive = options.archive(o.state.as_deref())?;
        let fetcher = archive
            .fetcher(
                options.playback_rate,
                FetchConfig {
                    max_redirect_distance: o.max_redirect_distance.get().as_secs(),
                    max_redirects: o.max_redirects,
                    max_body: o.max_body_bytes,
                },
            )?
            .counting(io.stats().clone(), archive::PAGE);
        let output = Output::open(
            archive.state()?,
            o.warc_out.as_deref(),
            io.name(),
            o.max_body_bytes,
            self.known,
        )
        .await?;
        let mut crawl = Crawl {
            fetcher,
            output: std::sync::Arc::new(output),
            concurrency: o.concurrency,
            commit_every: o.commit_every,
            tally: Tally::default(),
        };
        let port = io.port(Port::DEFAULT)?;
        let mut sink = IoSink {
            io: &mut io,
            port,
            misfits: Vec::new(),
        };
        let refetch = crawl.replay(&mut sink).await?;
        // When stopping, what is left stays listed in the state for the next run.
        crawl.run(refetch, &mut sink).await?;
        sink.flush().await?;
        // The pages count as delivered once the sinks hold them: a run killed or
        // stopped before that replays them.
        let output = crawl.output.clone();
        io.after_publish(move || async move { Ok(output.finish().await?) });
        let tally = crawl.summary();
        let stats = io.stats().clone();
        for (name, n) in [
            (FetchCount::Fetched.name(), tally.fetched),
            (FetchCount::Failed.name(), tally.failed),
            ("skipped", tally.skipped),
            ("replayed", tally.replayed),
            ("to_retry", tally.retryable),
        ] {
            stats.count(name, n);
        }
        Ok(())
    }
}

/// `wayback-fetch`: one page request per capture it receives.
fn plan(o: &FetchOptions, ctx: &DescribeContext<'_>) -> StagePlan {
    let archive = options_of(&o.archive);
    let mut plan = StagePlan {
        politeness: politeness(
            &o.archive,
            &[
                ("page rate", playback_rate(archive.playback_rate)),
                (
                    "in flight",
                    format!(
                        "at most {}: the rate spaces the sends, so what is in flight is the rate times the answer time",
                        o.concurrency
                    ),
                ),
            ],
        ),
        ..StagePlan::default()
    };
    plan.estimate = Some(match ctx.records_in {
        Some(captures) => {
            let mut basis = vec![format!(
                "one request per capture listed upstream; redirects between captures (up to {} each) add requests",
                o.max_redirects
            )];
            let held = held_pages(o);
            if held > 0 {
                basis.push(format!(
                    "{held} of the captures listed upstream have their page in the WARC files \
                     already (the crawl state's fetched captures): read back, no request"
                ));
            }
            let requests = captures.saturating_sub(held);
            Estimate {
                requests: Requests::of(archive::PAGE, requests),
                records_out: Some(captures),
                records_name: "pages".into(),
                hours: hours_at(requests, archive.playback_rate),
                basis,
            }
        }
        None => Estimate {
            basis: vec![
                "one request per capture it receives; the stages upstream cannot say how many"
                    .into(),
            ],
            ..Estimate::default()
        },
    });
    plan
}

/// Pages the WARC files hold of the captures the `wayback-cdx` stages upstream
/// list, by the crawl state they share with this stage (0 without one).
fn held_pages(o: &FetchOptions) -> u64 {
    let Some(state) = o.state.as_deref() else {
        return 0;
    };
    // One capture listed by two stages is one page.
    let mut held = std::collections::HashSet::new();
    for cdx in o
        .upstream
        .iter()
        .filter(|c| c.state.as_deref() == Some(state))
    {
        super::cdx_plan::held_pages(cdx, state, &mut held);
    }
    held.len() as u64
}
