//! Options shared by the wayback stage kinds: where the Archive is, who we are,
//! and how polite to be.

use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::archive::{Archive, DEFAULT_ENDPOINT};
use crate::error::WaybackError;
use crate::politeness::Politeness;
#[cfg(test)]
use crate::politeness::RequestClass;

pub(crate) fn default_endpoint() -> String {
    DEFAULT_ENDPOINT.into()
}

/// Fine-tuning of politeness; the defaults are what the Archive tolerates.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct PolitenessOptions {
    /// Shortest pause of every worker after a 429, whatever `Retry-After` says.
    #[serde(default = "default_min_pause")]
    #[schemars(default = "default_min_pause")]
    pub min_pause: String,
    /// Attempts per request for 5xx answers, timeouts and cut bodies.
    #[serde(default = "default_max_attempts")]
    #[schemars(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// First retry delay; doubles each attempt, with jitter.
    #[serde(default = "default_backoff")]
    #[schemars(default = "default_backoff")]
    pub backoff: String,
    /// Longest retry delay.
    #[serde(default = "default_max_backoff")]
    #[schemars(default = "default_max_backoff")]
    pub max_backoff: String,
    /// Pause of every worker after a refused or reset connection (a likely IP block).
    #[serde(default = "default_block_pause")]
    #[schemars(default = "default_block_pause")]
    pub block_pause: String,
    /// Refused or reset connections in a row after which the run stops.
    #[serde(default = "default_max_blocks")]
    #[schemars(default = "default_max_blocks")]
    pub max_blocks: u32,
    /// 429 answers in a row after which the run stops.
    #[serde(default = "default_max_rate_limits")]
    #[schemars(default = "default_max_rate_limits")]
    pub max_rate_limits: u32,
    /// Timeout of one request.
    #[serde(default = "default_timeout")]
    #[schemars(default = "default_timeout")]
    pub timeout: String,
}

fn default_min_pause() -> String {
    "60s".into()
}
const fn default_max_attempts() -> u32 {
    5
}
fn default_backoff() -> String {
    "2s".into()
}
fn default_max_backoff() -> String {
    "5m".into()
}
fn default_block_pause() -> String {
    "5m".into()
}
const fn default_max_blocks() -> u32 {
    3
}
const fn default_max_rate_limits() -> u32 {
    10
}
fn default_timeout() -> String {
    "2m".into()
}

impl Default for PolitenessOptions {
    fn default() -> Self {
        Self {
            min_pause: default_min_pause(),
            max_attempts: default_max_attempts(),
            backoff: default_backoff(),
            max_backoff: default_max_backoff(),
            block_pause: default_block_pause(),
            max_blocks: default_max_blocks(),
            max_rate_limits: default_max_rate_limits(),
            timeout: default_timeout(),
        }
    }
}

/// The [`Archive`] a wayback stage's options describe: `archive_of!(options)?`.
///
/// Every such options struct has the fields `endpoint`, `contact`,
/// `user_agent`, `politeness`, `rate` and `state`; serde cannot flatten them
/// into one shared struct under `deny_unknown_fields`, so they are read here
/// once instead of at each stage.
macro_rules! archive_of {
    ($options:expr) => {
        $crate::stages::options::archive(
            &$options.endpoint,
            $options.contact.as_deref(),
            $options.user_agent.as_deref(),
            &$options.politeness,
            $options.rate,
            $options.state.as_deref(),
        )
    };
}
pub(crate) use archive_of;

/// The Archive at `endpoint`, asked as `user_agent` or with `contact`, with
/// `politeness` at `rate`, keeping its crawl state in `state`.
///
/// # Errors
/// A politeness duration that does not parse, or a bad rate.
pub(crate) fn archive(
    endpoint: &str,
    contact: Option<&str>,
    user_agent: Option<&str>,
    politeness: &PolitenessOptions,
    rate: f64,
    state: Option<&Path>,
) -> Result<Archive, WaybackError> {
    let politeness = politeness.resolve(rate)?;
    Ok(Archive::new(endpoint, contact, user_agent, politeness).with_state(state))
}

/// Parses a duration such as `60s`, `5m`, `100ms`, `7days`.
///
/// # Errors
/// Names the option and the bad value.
pub fn duration(option: &str, value: &str) -> Result<Duration, WaybackError> {
    humantime::parse_duration(value).map_err(|e| {
        WaybackError::Config(format!(
            "`{option}`: `{value}` is not a duration like 60s, 5m or 7days: {e}"
        ))
    })
}

impl PolitenessOptions {
    /// The politeness at `rate` requests a minute.
    ///
    /// # Errors
    /// A duration that does not parse, or a zero attempt count.
    pub fn resolve(&self, rate: f64) -> Result<Politeness, WaybackError> {
        if self.max_attempts == 0 || self.max_blocks == 0 || self.max_rate_limits == 0 {
            return Err(WaybackError::Config(
                "`politeness.max_attempts`, `max_blocks` and `max_rate_limits` must be at least 1"
                    .into(),
            ));
        }
        Politeness {
            rate_per_minute: 0.0,
            min_pause: duration("politeness.min_pause", &self.min_pause)?,
            max_attempts: self.max_attempts,
            backoff: duration("politeness.backoff", &self.backoff)?,
            max_backoff: duration("politeness.max_backoff", &self.max_backoff)?,
            block_pause: duration("politeness.block_pause", &self.block_pause)?,
            max_blocks: self.max_blocks,
            max_rate_limits: self.max_rate_limits,
            timeout: duration("politeness.timeout", &self.timeout)?,
        }
        .at_rate(rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones_and_bad_values_name_the_option() {
        let p = PolitenessOptions::default().resolve(20.0).unwrap();
        // `tempora cdx` and `wayback-crawl` start from these; the stages from the options.
        assert_eq!(p, Politeness::default_for(RequestClass::Cdx));
        assert_eq!(p.min_pause, Duration::from_secs(60));
        assert_eq!(p.block_pause, Duration::from_secs(300));
        let bad = PolitenessOptions {
            min_pause: "soon".into(),
            ..PolitenessOptions::default()
        };
        let err = bad.resolve(20.0).unwrap_err().to_string();
        assert!(
            err.contains("politeness.min_pause") && err.contains("soon"),
            "{err}"
        );
        let err = PolitenessOptions::default().resolve(-1.0).unwrap_err();
        assert!(err.to_string().contains("`rate`"));
    }
}
