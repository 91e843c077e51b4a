//! What stops a polite client from getting an answer.

/// A request that got no answer, or a client that cannot be made.
#[derive(Debug, Clone, thiserror::Error)]
pub enum HttpError {
    /// The host refused or reset connections again and again: an IP block.
    #[error(
        "{host} refused or reset {blocks} connections in a row: it has probably blocked this IP"
    )]
    Blocked {
        /// Host that blocked us.
        host: String,
        /// Consecutive blocks seen.
        blocks: u32,
    },
    /// The host kept answering 429 after every pause.
    #[error("{host} kept answering 429 Too Many Requests after {pauses} pauses")]
    RateLimited {
        /// Host.
        host: String,
        /// Pauses taken.
        pauses: u32,
    },
    /// A request failed after every retry.
    #[error("{url}: {reason} (after {attempts} attempts)")]
    Exhausted {
        /// URL requested.
        url: String,
        /// Last failure.
        reason: String,
        /// Attempts made.
        attempts: u32,
    },
    /// An endpoint or setting that cannot work.
    #[error("{0}")]
    Config(String),
}
