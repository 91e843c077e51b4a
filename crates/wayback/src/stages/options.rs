//! The Archive's options, declared once and shared by every wayback stage: where
//! the Wayback Machine is, who we are, and how polite to be. The Archive limits
//! each IP, not each stage, so a pipeline writes them once, in one stage's
//! `archive` table, and every other stage that talks to the same Archive names
//! that stage (`archive = "captures"`). Two stages that write different tables for
//! one Archive are refused when the plan is made: no stage's option silently
//! caps another's.

use std::path::Path;

use schemars::JsonSchema;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use tempora_engine::{OptionError, Peer, Peers};

use crate::archive::{Archive, DEFAULT_ENDPOINT};
use crate::error::WaybackError;
use tempora_http::politeness::{
    Politeness, ARCHIVE_CDX_LIMIT, ARCHIVE_PLAYBACK_LIMIT, CLIENT_SHARE,
};

use tempora_engine::WrittenDuration;

/// The Wayback Machine one pipeline talks to, and how politely.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct ArchiveOptions {
    /// The Wayback Machine to ask.
    #[serde(default = "default_endpoint")]
    #[schemars(default = "default_endpoint")]
    pub endpoint: String,
    /// Your contact (email or URL), sent in the User-Agent as the Archive asks of crawlers.
    #[serde(default)]
    pub contact: Option<String>,
    /// A whole User-Agent instead of `tempora/<version> (+contact)`.
    #[serde(default)]
    pub user_agent: Option<String>,
    /// CDX search and timemap requests a minute, one pool at the Archive (listings,
    /// article lookups). Default 24: 80% of the Archive's limit of 30 a minute per
    /// IP, as its staff ask client libraries to default to. 0: no limit (tests).
    #[serde(default = "default_cdx_rate")]
    #[schemars(default = "default_cdx_rate")]
    pub cdx_rate: f64,
    /// Playback requests a minute, one pool at the Archive (pages, feeds, and every
    /// redirect and retry). Default 480: 80% of the Archive's limit of 600 a minute
    /// per IP. 0: no limit (tests).
    #[serde(default = "default_playback_rate")]
    #[schemars(default = "default_playback_rate")]
    pub playback_rate: f64,
    /// Shortest pause of every worker after a 429, whatever `Retry-After` says (the
    /// Archive sends none, and firewalls an IP that keeps sending into 429s for a minute).
    #[serde(default = "default_min_pause")]
    #[schemars(default = "default_min_pause")]
    pub min_pause: WrittenDuration,
    /// 429 answers in a row after which the run stops (exit 75: try again later).
    #[serde(default = "default_max_rate_limits")]
    #[schemars(default = "default_max_rate_limits")]
    pub max_rate_limits: u32,
    /// Attempts per request for 5xx answers, timeouts and cut bodies.
    #[serde(default = "default_max_attempts")]
    #[schemars(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// First retry delay; doubles each attempt, with jitter.
    #[serde(default = "default_backoff")]
    #[schemars(default = "default_backoff")]
    pub backoff: WrittenDuration,
    /// Longest retry delay.
    #[serde(default = "default_max_backoff")]
    #[schemars(default = "default_max_backoff")]
    pub max_backoff: WrittenDuration,
    /// Pause of every worker after a refused or reset connection (a likely IP block).
    #[serde(default = "default_block_pause")]
    #[schemars(default = "default_block_pause")]
    pub block_pause: WrittenDuration,
    /// Refused or reset connections in a row after which the run stops (exit 75).
    #[serde(default = "default_max_blocks")]
    #[schemars(default = "default_max_blocks")]
    pub max_blocks: u32,
    /// Timeout of one request.
    #[serde(default = "default_timeout")]
    #[schemars(default = "default_timeout")]
    pub timeout: WrittenDuration,
}

fn default_endpoint() -> String {
    DEFAULT_ENDPOINT.into()
}
fn default_cdx_rate() -> f64 {
    ARCHIVE_CDX_LIMIT * CLIENT_SHARE
}
fn default_playback_rate() -> f64 {
    ARCHIVE_PLAYBACK_LIMIT * CLIENT_SHARE
}
fn default_min_pause() -> WrittenDuration {
    WrittenDuration::seconds(60)
}
const fn default_max_rate_limits() -> u32 {
    10
}
const fn default_max_attempts() -> u32 {
    5
}
fn default_backoff() -> WrittenDuration {
    WrittenDuration::seconds(2)
}
fn default_max_backoff() -> WrittenDuration {
    WrittenDuration::minutes(5)
}
fn default_block_pause() -> WrittenDuration {
    WrittenDuration::minutes(5)
}
const fn default_max_blocks() -> u32 {
    3
}
fn default_timeout() -> WrittenDuration {
    WrittenDuration::minutes(2)
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        Self {
            endpoint: default_endpoint(),
            contact: None,
            user_agent: None,
            cdx_rate: default_cdx_rate(),
            playback_rate: default_playback_rate(),
            min_pause: default_min_pause(),
            max_rate_limits: default_max_rate_limits(),
            max_attempts: default_max_attempts(),
            backoff: default_backoff(),
            max_backoff: default_max_backoff(),
            block_pause: default_block_pause(),
            max_blocks: default_max_blocks(),
            timeout: default_timeout(),
        }
    }
}

fn check_rate(option: &str, rate: f64) -> Result<(), WaybackError> {
    if rate >= 0.0 && rate.is_finite() {
        Ok(())
    } else {
        Err(WaybackError::Config(format!(
            "`{option}` must be 0 or more requests a minute, not {rate}"
        )))
    }
}

impl ArchiveOptions {
    /// The pauses, retries and timeouts (their rate is each client's own).
    ///
    /// # Errors
    /// A count of zero, a bad rate (durations were read with the options).
    pub fn politeness(&self) -> Result<Politeness, WaybackError> {
        if self.max_attempts == 0 || self.max_blocks == 0 || self.max_rate_limits == 0 {
            return Err(WaybackError::Config(
                "`archive.max_attempts`, `max_blocks` and `max_rate_limits` must be at least 1"
                    .into(),
            ));
        }
        check_rate("archive.cdx_rate", self.cdx_rate)?;
        check_rate("archive.playback_rate", self.playback_rate)?;
        Ok(Politeness {
            rate_per_minute: 0.0,
            min_pause: self.min_pause.get(),
            max_attempts: self.max_attempts,
            backoff: self.backoff.get(),
            max_backoff: self.max_backoff.get(),
            block_pause: self.block_pause.get(),
            max_blocks: self.max_blocks,
            max_rate_limits: self.max_rate_limits,
            timeout: self.timeout.get(),
        })
    }

    /// The Archive these options describe, keeping its crawl state in `state`.
    ///
    /// # Errors
    /// See [`ArchiveOptions::politeness`].
    pub fn archive(&self, state: Option<&Path>) -> Result<Archive, WaybackError> {
        Ok(Archive::new(
            &self.endpoint,
            self.contact.as_deref(),
            self.user_agent.as_deref(),
            self.politeness()?,
        )
        .with_state(state))
    }

    /// The Archive's host and port, as its limits apply to them (the endpoint as
    /// written when it does not parse; the client refuses it later).
    fn host(&self) -> String {
        url::Url::parse(&self.endpoint)
            .ok()
            .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)))
            .unwrap_or_else(|| self.endpoint.clone())
    }
}

/// A wayback stage's `archive`: a table of its own, or the name of the stage
/// whose table it shares.
#[derive(Debug, Clone, PartialEq)]
pub enum ArchiveSetting {
    /// `archive = { ... }`, or none (the public Wayback Machine at its defaults).
    Own(ArchiveOptions),
    /// `archive = "captures"`: that stage's table, read when the plan links the stages.
    Shared {
        /// The stage named.
        stage: String,
        /// Its table, once linked.
        options: Option<ArchiveOptions>,
    },
}

impl Default for ArchiveSetting {
    fn default() -> Self {
        Self::Own(ArchiveOptions::default())
    }
}

impl<'de> Deserialize<'de> for ArchiveSetting {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Setting;
        impl<'de> Visitor<'de> for Setting {
            type Value = ArchiveSetting;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a table of the Archive's options, or the name of the stage that has it",
                )
            }

            fn visit_str<E: de::Error>(self, stage: &str) -> Result<Self::Value, E> {
                Ok(ArchiveSetting::Shared {
                    stage: stage.to_string(),
                    options: None,
                })
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                ArchiveOptions::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ArchiveSetting::Own)
            }
        }
        deserializer.deserialize_any(Setting)
    }
}

/// Where a stage's Archive options come from, in words for the dry run.
pub(crate) fn source_of(setting: &ArchiveSetting) -> String {
    match setting {
        ArchiveSetting::Own(o) if *o == ArchiveOptions::default() => {
            "the defaults: 80% of the Archive's published per-IP limits".into()
        }
        ArchiveSetting::Own(_) => "this stage's `archive`".into(),
        ArchiveSetting::Shared { stage, .. } => format!("stage `{stage}`'s `archive`"),
    }
}

impl ArchiveSetting {
    /// The options: its own, or the named stage's once linked.
    ///
    /// # Errors
    /// A shared setting not linked yet (a bug: the plan links every stage).
    pub fn options(&self) -> Result<&ArchiveOptions, WaybackError> {
        match self {
            Self::Own(o)
            | Self::Shared {
                options: Some(o), ..
            } => Ok(o),
            Self::Shared {
                stage,
                options: None,
            } => Err(WaybackError::Config(format!(
                "`archive = \"{stage}\"` was not read from that stage before the run"
            ))),
        }
    }

    /// The problems of the options (a shared setting's are its owner's to report).
    pub(crate) fn problems(&self) -> Vec<OptionError> {
        match self {
            Self::Own(o) => o
                .politeness()
                .err()
                .map(|e| OptionError::at("archive", e.to_string()))
                .into_iter()
                .collect(),
            Self::Shared { .. } => Vec::new(),
        }
    }

    /// Reads a shared setting's options from the stage it names, and checks that no
    /// other stage writes other options for the same Archive.
    pub(crate) fn link(&mut self, peers: &Peers<'_>) -> Vec<OptionError> {
        let at = |message: String| OptionError::at("archive", message);
        match self {
            Self::Shared { stage, options } => {
                let Some(peer) = peers.get(stage) else {
                    return peers.missing(stage).map(at).into_iter().collect();
                };
                match setting_of(&peer) {
                    Some(Self::Own(o)) => {
                        *options = Some(o.clone());
                        Vec::new()
                    }
                    Some(Self::Shared { stage: next, .. }) => vec![at(format!(
                        "stage `{stage}` shares the Archive of `{next}` itself: name `{next}`"
                    ))],
                    None => vec![at(format!(
                        "`{stage}` is a `{}` stage: name a wayback stage with an `archive` table",
                        peer.kind
                    ))],
                }
            }
            Self::Own(mine) => {
                // Each pair is reported once, by the stage whose name sorts later.
                let me = peers.me();
                let mut problems = Vec::new();
                for peer in peers.iter().filter(|p| p.name < me) {
                    if let Some(Self::Own(theirs)) = setting_of(&peer) {
                        if theirs.host() == mine.host() && theirs != mine {
                            problems.push(at(format!(
                                "stages `{}` and `{me}` both write Archive options for {}: its \
                                     limits are per IP, so write them once and share them with \
                                     `archive = \"{}\"`",
                                peer.name,
                                mine.host(),
                                peer.name
                            )));
                        }
                    }
                }
                problems
            }
        }
    }
}

/// The `archive` setting of a wayback stage: what it shares with the stages
/// that name it.
fn setting_of<'a>(peer: &Peer<'a>) -> Option<&'a ArchiveSetting> {
    peer.shared::<ArchiveSetting>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tempora_http::politeness::RequestClass;

    #[test]
    fn defaults_are_the_archives_limits_less_a_fifth_and_bad_values_name_the_option() {
        let o = ArchiveOptions::default();
        assert_eq!((o.cdx_rate, o.playback_rate), (24.0, 480.0));
        let p = o.politeness().unwrap();
        assert_eq!(
            Politeness {
                rate_per_minute: 24.0,
                ..p.clone()
            },
            Politeness::default_for(RequestClass::Cdx)
        );
        assert_eq!(p.min_pause, Duration::from_secs(60));
        // A bad duration is refused when the options are read, at its key.
        let table = toml::from_str("archive = { min_pause = \"soon\" }").unwrap();
        let err = tempora_engine::parse_options::<Holder>(table)
            .err()
            .unwrap();
        assert_eq!(err[0].key.as_deref(), Some("archive.min_pause"));
        assert!(
            err[0]
                .message
                .starts_with("`soon` is not a duration like 60s, 5m or 7days: "),
            "{err:?}"
        );
        let bad = ArchiveOptions {
            playback_rate: -1.0,
            ..ArchiveOptions::default()
        };
        let err = bad.politeness().unwrap_err().to_string();
        assert!(err.contains("`archive.playback_rate`"), "{err}");
    }

    #[test]
    fn durations_are_strings_in_the_schema_and_shown_as_written() {
        let schema = schemars::schema_for!(ArchiveOptions);
        let o = ArchiveOptions::default();
        for (name, value) in [
            ("min_pause", &o.min_pause),
            ("backoff", &o.backoff),
            ("max_backoff", &o.max_backoff),
            ("block_pause", &o.block_pause),
            ("timeout", &o.timeout),
        ] {
            let field = &schema.as_value()["properties"][name];
            assert_eq!(field["type"], "string", "{name}");
            assert_eq!(field["default"], value.as_str(), "{name}");
            assert!(field["description"].as_str().is_some(), "{name}");
            assert_eq!(WrittenDuration::parse(value.as_str()).as_ref(), Ok(value));
        }
        let texts = [
            &o.min_pause,
            &o.backoff,
            &o.max_backoff,
            &o.block_pause,
            &o.timeout,
        ]
        .map(ToString::to_string);
        assert_eq!(texts, ["60s", "2s", "5m", "5m", "2m"]);
        let written: Holder = toml::from_str("archive = { min_pause = \"1m\" }").unwrap();
        let o = written.archive.options().unwrap();
        assert_eq!(
            (o.min_pause.get(), o.min_pause.to_string()),
            (Duration::from_secs(60), "1m".into())
        );
    }

    #[derive(Deserialize)]
    struct Holder {
        archive: ArchiveSetting,
    }

    #[test]
    fn a_setting_is_a_table_or_a_stage_name() {
        let own: Holder = toml::from_str("archive = { contact = \"me@example.org\" }").unwrap();
        let ArchiveSetting::Own(o) = own.archive else {
            panic!("not a table");
        };
        assert_eq!(o.contact.as_deref(), Some("me@example.org"));
        assert_eq!(o.cdx_rate, 24.0);
        let shared: Holder = toml::from_str("archive = \"captures\"").unwrap();
        assert_eq!(
            shared.archive,
            ArchiveSetting::Shared {
                stage: "captures".into(),
                options: None
            }
        );
        assert!(shared.archive.options().is_err());
        let err = toml::from_str::<Holder>("archive = { rate = 3 }")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("rate"), "{err}");
        assert!(toml::from_str::<Holder>("archive = 3").is_err());
    }
}
