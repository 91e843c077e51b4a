//! Polite HTTP to the services Tempora reads: the Internet Archive (CDX search
//! and playback) and Wikidata (its query service and API).
//!
//! In: an endpoint, a `User-Agent` with the operator's contact, a
//! [`RequestClass`] and its [`Politeness`]. Out: [`Answer`]s with their bodies
//! read and decoded. Promises: every request of a host and class waits for its
//! send slot (the class's rate) and for the host's gate (closed by a 429 for its
//! `Retry-After`, or by refused connections); 5xx answers, timeouts and cut
//! bodies are retried with backoff; bodies are capped. What an answer means is
//! the caller's to decide: this crate knows the services only by their
//! published limits ([`politeness`]).

pub mod client;
pub mod error;
pub mod politeness;

pub use client::{user_agent, Answer, Client, GetError};
pub use error::HttpError;
pub use politeness::{Politeness, RequestClass};
