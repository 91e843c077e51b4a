//! The Internet Archive crawler of Tempora.
//!
//! In: URL patterns for the Wayback CDX API (`wayback-cdx`), or archived RSS
//! feeds and news sitemaps (`wayback-feeds`), or local WARC files (`warc`).
//! Out: [`Capture`](tempora_records::Capture) records (what the Archive holds) and
//! [`Page`](tempora_records::Page) records (the raw archived bytes, fetched by
//! `wayback-fetch` through `id_` URLs, or read from WARC files).
//! Promises: politeness per host shared by every worker (by default 80% of the
//! Archive's published limits: 24 CDX and 480 page requests a minute; on a 429 every worker pauses for
//! `Retry-After`, at least 60 s, and sends nothing meanwhile; refused or reset
//! connections back off for minutes and repeated ones stop the run with a clear
//! message); a state in SQLite that lets a rerun continue where the last run
//! stopped and a nightly run ask only for what is new; a capture is marked
//! fetched only once its page is in an `fsync`ed WARC file, so a `SIGKILL` at any
//! moment loses nothing and duplicates nothing (see [`output`]).

pub mod archive;
pub mod cdx;
pub mod cells;
pub mod chunks;
pub mod crawl;
pub mod discover;
pub mod error;
pub mod feeds;
pub mod fetch;
pub mod keep;
pub mod lister;
#[cfg(any(test, feature = "testing"))]
pub mod makewarc;
pub mod output;
pub mod stages;
pub mod state;
pub mod warc;

pub use error::WaybackError;
pub use stages::kinds;
