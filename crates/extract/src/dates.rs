//! Publication dates as pages write them: ISO 8601 / RFC 3339, BBC's
//! `2009/04/21 19:50:44` (GMT), Unix seconds (`data-seconds`) or milliseconds,
//! plain dates, and JSON-LD values. A time without a zone is taken as UTC, which
//! is what BBC and CNN write.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// A publication date and, when the page states it, the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Published {
    /// The UTC date.
    pub date: NaiveDate,
    /// The UTC time, when known.
    pub at: Option<DateTime<Utc>>,
}

impl Published {
    fn at(at: DateTime<Utc>) -> Self {
        Self {
            date: at.date_naive(),
            at: Some(at),
        }
    }

    fn day(date: NaiveDate) -> Self {
        Self { date, at: None }
    }
}

/// Years a news article can plausibly carry; anything else is a misread value.
const YEARS: std::ops::RangeInclusive<i32> = 1990..=2100;

/// Parses a date written in `format` (a chrono format) or, without one, in any of
/// the common forms.
pub fn parse_date(value: &str, format: Option<&str>) -> Option<Published> {
    let value = value.trim();
    let parsed = match format {
        Some(f) => with_format(value, f),
        None => auto(value),
    }?;
    YEARS
        .contains(&chrono::Datelike::year(&parsed.date))
        .then_some(parsed)
}

fn with_format(value: &str, format: &str) -> Option<Published> {
    if let Ok(at) = DateTime::parse_from_str(value, format) {
        return Some(Published::at(at.with_timezone(&Utc)));
    }
    if let Ok(at) = NaiveDateTime::parse_from_str(value, format) {
        return Some(Published::at(Utc.from_utc_datetime(&at)));
    }
    NaiveDate::parse_from_str(value, format)
        .ok()
        .map(Published::day)
}

fn auto(value: &str) -> Option<Published> {
    if value.is_empty() {
        return None;
    }
    if value.bytes().all(|b| b.is_ascii_digit()) {
        let n: i64 = value.parse().ok()?;
        let at = match value.len() {
            9 | 10 => DateTime::from_timestamp(n, 0)?,
            12 | 13 => DateTime::from_timestamp_millis(n)?,
            8 => {
                return NaiveDate::parse_from_str(value, "%Y%m%d")
                    .ok()
                    .map(Published::day)
            }
            _ => return None,
        };
        return Some(Published::at(at));
    }
    if let Ok(at) = DateTime::parse_from_rfc3339(value) {
        return Some(Published::at(at.with_timezone(&Utc)));
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%z",
        "%Y-%m-%d %H:%M:%S%.f%z",
    ] {
        if let Ok(at) = DateTime::parse_from_str(value, format) {
            return Some(Published::at(at.with_timezone(&Utc)));
        }
    }
    let naive = value.trim_end_matches(['Z', 'z']);
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y/%m/%d %H:%M:%S",
        "%Y/%m/%d %H:%M",
    ] {
        if let Ok(at) = NaiveDateTime::parse_from_str(naive, format) {
            return Some(Published::at(Utc.from_utc_datetime(&at)));
        }
    }
    for format in ["%Y-%m-%d", "%Y/%m/%d"] {
        if let Ok(date) = NaiveDate::parse_from_str(value, format) {
            return Some(Published::day(date));
        }
    }
    None
}

/// A date from year, month and day strings (URL groups).
pub fn from_parts(year: &str, month: &str, day: &str) -> Option<Published> {
    let date = NaiveDate::from_ymd_opt(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?)?;
    YEARS
        .contains(&chrono::Datelike::year(&date))
        .then_some(Published::day(date))
}

/// The first string value of `key` in a JSON-LD document, depth first
/// (`@graph` arrays and nested objects included).
pub fn json_ld_value<'a>(doc: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    match doc {
        serde_json::Value::Object(map) => {
            if let Some(value) = map.get(key).and_then(|v| v.as_str()) {
                return Some(value);
            }
            map.values().find_map(|v| json_ld_value(v, key))
        }
        serde_json::Value::Array(items) => items.iter().find_map(|v| json_ld_value(v, key)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn parses_the_forms_pages_use() {
        let cases = [
            ("2015-04-12T18:53:36.000Z", ymd(2015, 4, 12), true),
            ("2013-11-27T08:36:32Z", ymd(2013, 11, 27), true),
            ("2021-01-20T23:30:00-05:00", ymd(2021, 1, 21), true),
            ("2021-01-20T12:00:00+0000", ymd(2021, 1, 20), true),
            ("2009/04/21 19:50:44", ymd(2009, 4, 21), true),
            ("1428838875", ymd(2015, 4, 12), true),
            ("1428838875000", ymd(2015, 4, 12), true),
            ("2015-04-12", ymd(2015, 4, 12), false),
            ("2015-04-12T18:53:36", ymd(2015, 4, 12), true),
            ("20150412", ymd(2015, 4, 12), false),
        ];
        for (text, date, timed) in cases {
            let p = parse_date(text, None).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(p.date, date, "{text}");
            assert_eq!(p.at.is_some(), timed, "{text}");
        }
    }

    #[test]
    fn offset_times_are_converted_to_utc() {
        let p = parse_date("2021-01-20T23:30:00-05:00", None).unwrap();
        assert_eq!(p.at.unwrap().to_rfc3339(), "2021-01-21T04:30:00+00:00");
    }

    #[test]
    fn rejects_garbage_and_implausible_years() {
        for text in [
            "",
            "yesterday",
            "2015-13-01",
            "0",
            "12",
            "1800-01-01",
            "2015-02-30",
        ] {
            assert_eq!(parse_date(text, None), None, "{text}");
        }
    }

    #[test]
    fn explicit_format() {
        let p = parse_date("21 April 2009", Some("%d %B %Y")).unwrap();
        assert_eq!(p.date, ymd(2009, 4, 21));
        assert_eq!(parse_date("April 2009", Some("%d %B %Y")), None);
    }

    #[test]
    fn url_parts() {
        assert_eq!(
            from_parts("2013", "11", "27").unwrap().date,
            ymd(2013, 11, 27)
        );
        assert_eq!(from_parts("2013", "02", "30"), None);
        assert_eq!(from_parts("x", "1", "1"), None);
    }

    #[test]
    fn json_ld_search_is_depth_first() {
        let doc: serde_json::Value = serde_json::from_str(
            r#"{"@graph":[{"@type":"WebPage"},{"@type":"NewsArticle","datePublished":"2021-01-20"}],"x":{"datePublished":"2000-01-01"}}"#,
        )
        .unwrap();
        assert_eq!(json_ld_value(&doc, "datePublished"), Some("2021-01-20"));
        assert_eq!(json_ld_value(&doc, "dateModified"), None);
    }
}
