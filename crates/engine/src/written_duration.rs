//! A duration option (`60s`, `5m`, `7days`): parsed once, when the pipeline is
//! read, and shown as the user wrote it (the dry run prints `60s`, not `1m`).

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// A duration and the text it was read from. In TOML and in the options' JSON
/// schema it is a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenDuration {
    duration: Duration,
    text: String,
}

impl WrittenDuration {
    /// Reads `text` such as `60s`, `5m`, `100ms`, `7days`.
    ///
    /// # Errors
    /// A text that is no duration, in words that quote it.
    pub fn parse(text: &str) -> Result<Self, String> {
        humantime::parse_duration(text)
            .map(|duration| Self {
                duration,
                text: text.to_string(),
            })
            .map_err(|e| not_a_duration(text, &e))
    }

    /// `n` seconds, written `{n}s`.
    pub fn seconds(n: u64) -> Self {
        Self {
            duration: Duration::from_secs(n),
            text: format!("{n}s"),
        }
    }

    /// `n` minutes, written `{n}m`.
    pub fn minutes(n: u64) -> Self {
        Self {
            duration: Duration::from_secs(n.saturating_mul(60)),
            text: format!("{n}m"),
        }
    }

    /// `n` days, written `1day` or `{n}days`.
    pub fn days(n: u64) -> Self {
        Self {
            duration: Duration::from_secs(n.saturating_mul(86_400)),
            text: if n == 1 {
                "1day".into()
            } else {
                format!("{n}days")
            },
        }
    }

    /// The duration.
    pub fn get(&self) -> Duration {
        self.duration
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// Why `value` is no duration.
fn not_a_duration(value: &str, e: &humantime::DurationError) -> String {
    format!("`{value}` is not a duration like 60s, 5m or 7days: {e}")
}

impl fmt::Display for WrittenDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for WrittenDuration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for WrittenDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(de::Error::custom)
    }
}

impl JsonSchema for WrittenDuration {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        String::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        String::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_once_and_shows_the_text_as_written() {
        let d = WrittenDuration::parse("60s").unwrap();
        assert_eq!(
            (d.get(), d.to_string()),
            (Duration::from_secs(60), "60s".into())
        );
        assert_eq!(WrittenDuration::parse("1m").unwrap().to_string(), "1m");
        assert_eq!(WrittenDuration::seconds(60), d);
        for days in [WrittenDuration::days(1), WrittenDuration::days(30)] {
            assert_eq!(WrittenDuration::parse(days.as_str()), Ok(days.clone()));
        }
        let five = WrittenDuration::minutes(5);
        assert_eq!(WrittenDuration::parse(five.as_str()), Ok(five.clone()));
        assert_eq!(serde_json::to_string(&five).unwrap(), "\"5m\"");
        let err = WrittenDuration::parse("soon").unwrap_err();
        assert!(
            err.starts_with("`soon` is not a duration like 60s, 5m or 7days: "),
            "{err}"
        );
    }

    #[test]
    fn its_schema_is_a_string() {
        assert_eq!(
            schemars::schema_for!(WrittenDuration),
            schemars::schema_for!(String)
        );
    }
}
