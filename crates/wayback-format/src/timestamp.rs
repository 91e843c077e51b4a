//! Wayback timestamps: 14 digits `YYYYMMDDhhmmss` (UTC), partial ones padded,
//! `Memento-Datetime` (RFC 1123) and WARC dates (ISO 8601).

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use tempora_records::Timestamp;

/// Parses a timestamp of 4 to 14 digits, padding the rest with the earliest values.
pub fn parse(timestamp: &str) -> Option<NaiveDateTime> {
    if timestamp.len() < 4 || timestamp.len() > 14 || !timestamp.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let padded = match timestamp.len() {
        4 => format!("{timestamp}0101000000"),
        6 => format!("{timestamp}01000000"),
        n => {
            let mut s = timestamp.to_string();
            s.push_str(&"00000000000000"[n..]);
            s
        }
    };
    NaiveDateTime::parse_from_str(&padded, "%Y%m%d%H%M%S").ok()
}

/// A timestamp of 4 to 14 digits as a UTC time (see [`parse`]).
pub fn to_utc(timestamp: &str) -> Option<DateTime<Utc>> {
    parse(timestamp).map(|t| t.and_utc())
}

/// The 14-digit form of a time.
pub fn format(t: NaiveDateTime) -> String {
    Timestamp::of(t).into()
}

/// A timestamp of 4 to 14 digits as a capture time, padded as [`parse`] does
/// (the Wayback Machine reads `2015` as `20150101000000`).
pub fn padded(timestamp: &str) -> Option<Timestamp> {
    parse(timestamp).map(Timestamp::of)
}

/// The first second of a day.
pub fn day_start(d: NaiveDate) -> String {
    format!("{}000000", d.format("%Y%m%d"))
}

/// The last second of a day.
pub fn day_end(d: NaiveDate) -> String {
    format!("{}235959", d.format("%Y%m%d"))
}

/// `timestamp` plus `seconds` (negative to go back).
pub fn shift(timestamp: &str, seconds: i64) -> Option<String> {
    parse(timestamp).map(|t| format(t + chrono::Duration::seconds(seconds)))
}

/// Seconds between two timestamps (absolute).
pub fn distance(a: &str, b: &str) -> Option<u64> {
    Some((parse(a)? - parse(b)?).num_seconds().unsigned_abs())
}

/// `Memento-Datetime` (RFC 1123, e.g. `Fri, 24 Nov 2017 15:13:15 GMT`) to 14 digits.
pub fn from_memento(value: &str) -> Option<String> {
    DateTime::parse_from_rfc2822(value.trim())
        .ok()
        .map(|t| format(t.with_timezone(&Utc).naive_utc()))
}

/// 14 digits to `Memento-Datetime`.
pub fn to_memento(timestamp: &str) -> Option<String> {
    parse(timestamp).map(|t| t.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
}

/// 14 digits to a WARC date (`2017-11-24T15:13:15Z`).
pub fn to_warc_date(timestamp: &str) -> Option<String> {
    parse(timestamp).map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// A WARC date (ISO 8601, possibly with fractions) to 14 digits.
pub fn from_warc_date(value: &str) -> Option<String> {
    DateTime::parse_from_rfc3339(value.trim())
        .ok()
        .map(|t| format(t.with_timezone(&Utc).naive_utc()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_timestamps_pad_to_the_earliest_second() {
        assert_eq!(parse("2015").map(format).as_deref(), Some("20150101000000"));
        assert_eq!(
            parse("201506").map(format).as_deref(),
            Some("20150601000000")
        );
        assert_eq!(
            parse("2015060112").map(format).as_deref(),
            Some("20150601120000")
        );
        assert!(parse("2015x").is_none());
        assert!(parse("20151301000000").is_none());
        assert!(parse("123").is_none());
    }

    #[test]
    fn memento_and_warc_dates_round_trip() {
        assert_eq!(
            from_memento("Fri, 24 Nov 2017 15:13:15 GMT").as_deref(),
            Some("20171124151315")
        );
        assert_eq!(
            to_memento("20171124151315").as_deref(),
            Some("Fri, 24 Nov 2017 15:13:15 GMT")
        );
        assert_eq!(
            to_warc_date("20171124151315").as_deref(),
            Some("2017-11-24T15:13:15Z")
        );
        assert_eq!(
            from_warc_date("2017-11-24T15:13:15.123Z").as_deref(),
            Some("20171124151315")
        );
        assert_eq!(from_memento("yesterday"), None);
    }

    #[test]
    fn shift_and_distance() {
        assert_eq!(
            shift("20151231235959", 1).as_deref(),
            Some("20160101000000")
        );
        assert_eq!(distance("20150101000000", "20150102000000"), Some(86_400));
    }
}
