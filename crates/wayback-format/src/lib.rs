//! The Wayback Machine's formats: the CDX index key of a URL ([`urlkey`], SURT
//! style, built on the engine's [`CanonicalUrl`](tempora_records::CanonicalUrl)),
//! its replay URLs `/web/<timestamp><flags>/<original>` ([`wayback_url`]) and its
//! 14-digit timestamps with the `Memento-Datetime` and WARC dates around them
//! ([`timestamp`]).
//!
//! Plain string handling: no I/O, no network, no state. The crates that
//! read or write these formats share them here, so they agree with each other
//! and with the real Archive without depending on the crawler and its HTTP
//! client: the crawler (`tempora-wayback`) and the mock Archive
//! (`tempora-testkit`, which the crawler's tests depend on) key captures by the
//! same urlkey; the extractor and the exclusion filter unwrap Wayback URLs
//! handed to them.

pub mod digest;
pub mod timestamp;
pub mod urlkey;
pub mod wayback_url;
