//! The Wayback Machine's formats: its 14-digit timestamps with the
//! `Memento-Datetime` and WARC dates around them ([`timestamp`]).
//!
//! Plain functions on strings: no I/O, no network, no state. The crates that
//! read or write these formats share them here, so they agree with each other
//! and with the real Archive without depending on the crawler.

pub mod timestamp;
