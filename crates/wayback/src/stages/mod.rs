//! The stage kinds of this crate: `wayback-cdx`, `wayback-feeds`, `wayback-fetch`, `warc`.

pub mod cdx_options;
mod cdx_plan;
pub mod cdx_stage;
pub mod describe;
pub mod feeds_stage;
pub mod fetch_stage;
pub mod options;
pub mod warc_stage;
pub mod windows;

use crate::archive;
use tempora_engine::{Role, StageKind};
use tempora_records::RecordKind;

/// The stage kinds this crate registers.
pub fn kinds() -> Vec<StageKind> {
    vec![
        StageKind {
            name: tempora_records::counters::ListingMetric::STAGE_KIND,
            about: "Lists Wayback captures of URL patterns with the CDX API: polite, resumable, incremental.",
            role: Role::Source,
            accepts: &[],
            emits: "out: capture",
            requests: &[archive::CDX],
            in_rebuild: tempora_engine::InRebuild::Lists,
            incremental_option: Some("incremental"),
            options: || schemars::schema_for!(cdx_stage::CdxOptions),
            configure: cdx_stage::configure,
        },
        StageKind {
            name: "wayback-feeds",
            about: "Finds article captures through archived RSS/Atom feeds and news sitemaps (link, date, title), one lookup per article.",
            role: Role::Source,
            accepts: &[],
            emits: "out: capture, items: article (feed items without a document)",
            requests: &[archive::CDX, archive::FEED],
            in_rebuild: tempora_engine::InRebuild::Discovers,
            incremental_option: Some("incremental"),
            options: || schemars::schema_for!(feeds_stage::FeedsOptions),
            configure: feeds_stage::configure,
        },
        StageKind {
            name: tempora_records::counters::FetchCount::STAGE_KIND,
            about: "Fetches captures as raw archived pages (id_ URLs), politely; optional WARC output; kill-safe with `state`.",
            role: Role::Transform,
            accepts: &[RecordKind::Capture],
            emits: "out: page",
            requests: &[archive::PAGE],
            in_rebuild: tempora_engine::InRebuild::Fetches,
            incremental_option: None,
            options: || schemars::schema_for!(fetch_stage::FetchOptions),
            configure: fetch_stage::configure,
        },
        StageKind {
            name: "warc",
            about: "Reads WARC files (ours and the Archive's) as pages, to rebuild a crawl offline; a page captured before the first day of every set is left out unread, rejected as its capture (`skipped_outside_windows`).",
            role: Role::Source,
            accepts: &[],
            emits: "out: page",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::ReadsKept,
            incremental_option: None,
            options: || schemars::schema_for!(warc_stage::WarcOptions),
            configure: warc_stage::configure,
        },
    ]
}
