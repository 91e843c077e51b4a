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
///
/// The digits are held in place, not in a `String` of their own: a crawl makes one
/// per capture, and a capture record then costs one allocation less.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "String", into = "String")]
pub struct Timestamp(#[schemars(with = "String")] [u8; 14]);

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
        match <[u8; 14]>::try_from(text.as_bytes()) {
            Ok(digits)
                if digits.iter().all(u8::is_ascii_digit)
                    && NaiveDateTime::parse_from_str(text, FORMAT).is_ok() =>
            {
                Ok(Self(digits))
            }
            _ => Err(NotATimestamp(text.to_string())),
        }
    }

    /// The timestamp of a time (to the second; years 0 to 9999, as 14 digits
    /// hold).
    pub fn of(time: NaiveDateTime) -> Self {
        Self::written(
            time.year().clamp(0, 9999).unsigned_abs(),
            time.month(),
            time.day(),
            time.hour(),
            time.minute(),
            time.second().min(59),
        )
    }

    /// The timestamp of a date and time given by its parts, if they make one.
    pub fn from_parts(
        year: u32,
        month: u32,
        day: u32,
        hour: u32,
        minute: u32,
        second: u32,
    ) -> Option<Self> {
        let date = chrono::NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day);
        (year <= 9999 && date.is_some() && hour < 24 && minute < 60 && second < 60)
            .then(|| Self::written(year, month, day, hour, minute, second))
    }

    /// Writes checked parts digit by digit (a crawl makes one per capture, the
    /// engine's benchmarks one per record).
    fn written(year: u32, month: u32, day: u32, hour: u32, minute: u32, second: u32) -> Self {
        let mut digits = [b'0'; 14];
        let mut put = |at: usize, width: usize, mut n: u32| {
            for k in (at..at + width).rev() {
                digits[k] = b'0' + (n % 10) as u8;
                n /= 10;
            }
        };
        put(0, 4, year);
        put(4, 2, month);
        put(6, 2, day);
        put(8, 2, hour);
        put(10, 2, minute);
        put(12, 2, second);
        Self(digits)
    }

    /// The time it names (UTC).
    pub fn time(&self) -> NaiveDateTime {
        // Checked when it was made.
        NaiveDateTime::parse_from_str(self.as_str(), FORMAT).unwrap_or_default()
    }

    /// Its 14 digits.
    pub fn as_str(&self) -> &str {
        // ASCII digits, checked when it was made.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Timestamp").field(&self.as_str()).finish()
    }
}

impl Deref for Timestamp {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
        t.as_str().to_string()
    }
}

impl PartialEq<str> for Timestamp {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<String> for Timestamp {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Timestamp> for String {
    fn eq(&self, other: &Timestamp) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<&str> for Timestamp {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// An optional [`Timestamp`] as a field of text: its 14 digits, or the empty text
/// for none (an article not read from a capture). Any other text is an error.
pub(crate) mod or_empty {
    use serde::de::Error as _;
    use serde::{Deserialize as _, Deserializer, Serializer};

    use super::Timestamp;

    pub(crate) fn serialize<S: Serializer>(
        value: &Option<Timestamp>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value.as_ref().map_or("", Timestamp::as_str))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Timestamp>, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.is_empty() {
            return Ok(None);
        }
        Timestamp::parse(&text).map(Some).map_err(D::Error::custom)
    }
}

/// Stored as its 14 digits; a stored text that is not one reads as an error.
#[cfg(feature = "sqlite")]
impl rusqlite::ToSql for Timestamp {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        self.as_str().to_sql()
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
        assert_eq!(Timestamp::from_parts(2020, 2, 29, 23, 59, 59), Some(t));
        assert_eq!(Timestamp::from_parts(2021, 2, 29, 0, 0, 0), None);
        assert_eq!(Timestamp::from_parts(2021, 1, 1, 24, 0, 0), None);
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
        assert!(Timestamp::parse("19991231235959").unwrap() < t);
        assert_eq!(format!("{t:?}"), "Timestamp(\"20150102030405\")");
        assert_eq!(String::from(t), "20150102030405");
    }

    #[test]
    fn an_optional_timestamp_is_its_digits_or_the_empty_text() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Row {
            #[serde(with = "or_empty")]
            captured: Option<Timestamp>,
        }
        let some = Row {
            captured: Some(Timestamp::parse("20150102030405").unwrap()),
        };
        let none = Row { captured: None };
        for (row, json) in [
            (&some, r#"{"captured":"20150102030405"}"#),
            (&none, r#"{"captured":""}"#),
        ] {
            assert_eq!(serde_json::to_string(row).unwrap(), json);
            assert_eq!(&serde_json::from_str::<Row>(json).unwrap(), row);
        }
        let err = serde_json::from_str::<Row>(r#"{"captured":"2015"}"#).unwrap_err();
        assert!(err.to_string().contains("not a capture time"), "{err}");
    }

    #[test]
    fn its_schema_is_a_string() {
        let schema = serde_json::to_value(schemars::schema_for!(Timestamp)).unwrap();
        assert_eq!(schema["type"], "string", "{schema}");
    }
}
