//! A capture's time as the Wayback Machine writes it.

use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

use chrono::{Datelike as _, NaiveDateTime, Timelike as _};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A capture time: a UTC second written as the 14 digits `YYYYMMDDhhmmss`, as
/// the CDX API lists captures and replay URLs name them (`/web/<timestamp>/<url>`).
/// Only a real date and time reads as one; timestamps order in time. It reads as
/// its 14 digits wherever a `&str` is wanted.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(try_from = "String", into = "String")]
pub struct Timestamp(String);

/// Why a text is not a [`Timestamp`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a capture time (14 digits YYYYMMDDhhmmss, a real date and time)")]
pub struct NotATimestamp(pub String);

const FORMAT: &str = "%Y%m%d%H%M%S";

impl Timestamp {
    /// Reads 14 digits that form a real date and time.
    ///
    /// # Errors
    /// Any other text.
    pub fn parse(text: &str) -> Result<Self, NotATimestamp> {
        let digits = text.len() == 14 && text.bytes().all(|b| b.is_ascii_digit());
        if digits && NaiveDateTime::parse_from_str(text, FORMAT).is_ok() {
            Ok(Self(text.to_string()))
        } else {
            Err(NotATimestamp(text.to_string()))
        }
    }

    /// The timestamp of a time (to the second; years 0 to 9999, as 14 digits
    /// hold). Written digit by digit: a crawl makes one per capture.
    pub fn of(time: NaiveDateTime) -> Self {
        let mut digits = String::with_capacity(14);
        for (n, width) in [
            (time.year().clamp(0, 9999).unsigned_abs(), 4),
            (time.month(), 2),
            (time.day(), 2),
            (time.hour(), 2),
            (time.minute(), 2),
            (time.second().min(59), 2),
        ] {
            for k in (0..width).rev() {
                digits.push(char::from(b'0' + (n / 10u32.pow(k) % 10) as u8));
            }
        }
        Self(digits)
    }

    /// The time it names (UTC).
    pub fn time(&self) -> NaiveDateTime {
        // Checked when it was made.
        NaiveDateTime::parse_from_str(&self.0, FORMAT).unwrap_or_default()
    }

    /// Its 14 digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Timestamp {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Timestamp {
    type Err = NotATimestamp;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for Timestamp {
    type Error = NotATimestamp;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text)
    }
}

impl From<Timestamp> for String {
    fn from(t: Timestamp) -> Self {
        t.0
    }
}

impl PartialEq<str> for Timestamp {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<String> for Timestamp {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<Timestamp> for String {
    fn eq(&self, other: &Timestamp) -> bool {
        self == &other.0
    }
}

impl PartialEq<&str> for Timestamp {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// Stored as its 14 digits; a stored text that is not one reads as an error.
#[cfg(feature = "sqlite")]
impl rusqlite::ToSql for Timestamp {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        self.0.to_sql()
    }
}

#[cfg(feature = "sqlite")]
impl rusqlite::types::FromSql for Timestamp {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let text = value.as_str()?;
        Self::parse(text).map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_real_time_in_14_digits_is_a_timestamp() {
        let t = Timestamp::parse("20200229235959").unwrap();
        assert_eq!(t.as_str(), "20200229235959");
        assert_eq!(Timestamp::of(t.time()), t);
        let early = Timestamp::parse("00010102030405").unwrap();
        assert_eq!(Timestamp::of(early.time()), early);
        for bad in [
            "",
            "2020",
            "20200230000000",
            "20201301000000",
            "2020022923595",
            "202002292359590",
            "2020-02-29T23:59",
        ] {
            let err = Timestamp::parse(bad).unwrap_err();
            assert!(err.to_string().contains("14 digits"), "{err}");
        }
    }

    #[test]
    fn reads_and_writes_as_its_digits_and_orders_in_time() {
        let t: Timestamp = serde_json::from_str("\"20150102030405\"").unwrap();
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"20150102030405\"");
        let err = serde_json::from_str::<Timestamp>("\"2015-01-02\"").unwrap_err();
        assert!(err.to_string().contains("not a capture time"), "{err}");
        let later = Timestamp::parse("20150102030406").unwrap();
        assert!(t < later);
    }
}
