//! Wikidata time values (`"+2021-01-20T00:00:00Z"` with a precision and a calendar).
//!
//! chrono cannot read them: years carry a sign and up to 16 digits, month and day may
//! be `00` when unknown, and the precision (9 year, 10 month, 11 day; coarser values
//! count as years) says how much of the value is meaningful. A value that is less
//! precise than a day compares by its earliest possible day ("2019" is 2019-01-01).
//! Julian-calendar values are converted to the Gregorian day they name for
//! comparisons; the text stays as Wikidata wrote it.

use chrono::{Datelike, NaiveDate};

/// The calendar model of a time value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calendar {
    /// Proleptic Gregorian (`Q1985727`), nearly every modern value.
    Gregorian,
    /// Proleptic Julian (`Q1985786`), used for dates before the Gregorian reform.
    Julian,
}

impl Calendar {
    /// The calendar of a `calendarmodel` URI; unknown models count as Gregorian.
    pub fn from_model(model: &str) -> Self {
        if model.ends_with("/Q1985786") {
            Self::Julian
        } else {
            Self::Gregorian
        }
    }
}

/// How much of a time value is meaningful.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Precision {
    /// A year (Wikidata precision 9, and every coarser precision).
    Year,
    /// A month (precision 10).
    Month,
    /// A day (precision 11, and hours/minutes/seconds, which we cut to the day).
    Day,
}

/// A parsed Wikidata time value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WikiTime {
    /// The year; negative before year 1 (Wikidata has no year 0 for dates, we keep what it says).
    pub year: i64,
    /// 1-12, or 0 when the precision is coarser than a month.
    pub month: u32,
    /// 1-31, or 0 when the precision is coarser than a day.
    pub day: u32,
    /// What the value means.
    pub precision: Precision,
    /// The calendar the value is written in.
    pub calendar: Calendar,
    /// Its earliest possible day, in the proleptic Gregorian calendar: the key for comparisons.
    pub earliest: NaiveDate,
}

/// Why a time value could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// The text is not `±Y-MM-DDThh:mm:ssZ`.
    #[error("malformed time `{0}`")]
    Malformed(String),
    /// The precision is not a number from 0 to 14.
    #[error("time `{time}` has an invalid precision {precision}")]
    Precision {
        /// The value.
        time: String,
        /// The precision as given.
        precision: i64,
    },
    /// Month or day outside the calendar, or a year no calendar library can hold.
    #[error("time `{time}` is out of range: {why}")]
    OutOfRange {
        /// The value.
        time: String,
        /// What is out of range.
        why: String,
    },
}

impl WikiTime {
    /// Parses `time` (e.g. `+2019-00-00T00:00:00Z`) at Wikidata `precision` in `calendar`.
    ///
    /// A `00` month or day where the precision asks for one lowers the precision to
    /// what the value really states (Wikidata has such values).
    ///
    /// # Errors
    /// A malformed text, a precision outside 0..=14, a month above 12, a day that the
    /// month does not have, or a year outside chrono's range (about ±262,000).
    pub fn parse(time: &str, precision: i64, calendar: Calendar) -> Result<Self, TimeError> {
        let malformed = || TimeError::Malformed(time.to_string());
        if !(0..=14).contains(&precision) {
            return Err(TimeError::Precision {
                time: time.to_string(),
                precision,
            });
        }
        let (negative, rest) = match time.as_bytes().first() {
            Some(b'+') => (false, &time[1..]),
            Some(b'-') => (true, &time[1..]),
            Some(b'0'..=b'9') => (false, time),
            _ => return Err(malformed()),
        };
        let (date, clock) = rest.split_once('T').ok_or_else(malformed)?;
        if !clock.ends_with('Z')
            || !clock[..clock.len() - 1]
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b':')
        {
            return Err(malformed());
        }
        let mut parts = date.splitn(3, '-');
        let (Some(y), Some(m), Some(d)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(malformed());
        };
        let digits = |s: &str, lengths: std::ops::RangeInclusive<usize>| {
            (lengths.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<i64>().ok())
                .flatten()
        };
        let year = digits(y, 1..=16).ok_or_else(malformed)?;
        let month = digits(m, 2..=2).ok_or_else(malformed)? as u32;
        let day = digits(d, 2..=2).ok_or_else(malformed)? as u32;
        let year = if negative { -year } else { year };
        let out_of_range = |why: String| TimeError::OutOfRange {
            time: time.to_string(),
            why,
        };
        if month > 12 {
            return Err(out_of_range(format!("month {month}")));
        }
        let mut precision = match precision {
            0..=9 => Precision::Year,
            10 => Precision::Month,
            _ => Precision::Day,
        };
        if precision >= Precision::Month && month == 0 {
            precision = Precision::Year;
        }
        if precision == Precision::Day && day == 0 {
            precision = Precision::Month;
        }
        let (month, day) = match precision {
            Precision::Year => (0, 0),
            Precision::Month => (month, 0),
            Precision::Day => (month, day),
        };
        let year32 = i32::try_from(year)
            .ok()
            .filter(|y| (NaiveDate::MIN.year() + 1..NaiveDate::MAX.year()).contains(y))
            .ok_or_else(|| out_of_range(format!("year {year}")))?;
        let (m, d) = (month.max(1), day.max(1));
        let earliest = match calendar {
            Calendar::Gregorian => NaiveDate::from_ymd_opt(year32, m, d),
            Calendar::Julian => julian_to_gregorian(year32, m, d),
        }
        .ok_or_else(|| out_of_range(format!("day {d} does not exist in {year}-{m:02}")))?;
        Ok(Self {
            year,
            month,
            day,
            precision,
            calendar,
            earliest,
        })
    }

    /// ISO 8601 cut to the precision: `2021-01-20`, `2019-06`, `2019`, `-0043`.
    pub fn to_iso(&self) -> String {
        let year = if (0..=9999).contains(&self.year) {
            format!("{:04}", self.year)
        } else if self.year < 0 {
            format!("-{:04}", -self.year)
        } else {
            format!("+{}", self.year)
        };
        match self.precision {
            Precision::Year => year,
            Precision::Month => format!("{year}-{:02}", self.month),
            Precision::Day => format!("{year}-{:02}-{:02}", self.month, self.day),
        }
    }
}

/// The Gregorian day of a Julian-calendar date (via the Julian day number).
fn julian_to_gregorian(year: i32, month: u32, day: u32) -> Option<NaiveDate> {
    let days_in_month = [
        31,
        if year % 4 == 0 { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if day > *days_in_month.get(month as usize - 1)? {
        return None;
    }
    // Julian calendar to Julian day number (Meeus, Astronomical Algorithms, ch. 7).
    let (y, m) = if month <= 2 {
        (i64::from(year) - 1, i64::from(month) + 12)
    } else {
        (i64::from(year), i64::from(month))
    };
    let jdn =
        (1461 * (y + 4716)).div_euclid(4) + (153 * (m + 1)).div_euclid(5) + i64::from(day) - 1524;
    // JDN 1_721_426 is 0001-01-01 in the proleptic Gregorian calendar (day 1 from CE).
    let from_ce = i32::try_from(jdn - 1_721_425).ok()?;
    NaiveDate::from_num_days_from_ce_opt(from_ce)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(time: &str, precision: i64) -> Result<WikiTime, TimeError> {
        WikiTime::parse(time, precision, Calendar::Gregorian)
    }

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn day_month_and_year_precision() {
        let v = t("+2021-01-20T00:00:00Z", 11).unwrap();
        assert_eq!(
            (v.to_iso(), v.earliest),
            ("2021-01-20".into(), day(2021, 1, 20))
        );
        let v = t("+2019-06-00T00:00:00Z", 10).unwrap();
        assert_eq!(
            (v.to_iso(), v.earliest),
            ("2019-06".into(), day(2019, 6, 1))
        );
        let v = t("+2019-00-00T00:00:00Z", 9).unwrap();
        assert_eq!((v.to_iso(), v.earliest), ("2019".into(), day(2019, 1, 1)));
        // A year-precision value with a month and day written still means the year.
        let v = t("+2019-07-04T00:00:00Z", 9).unwrap();
        assert_eq!((v.to_iso(), v.earliest), ("2019".into(), day(2019, 1, 1)));
    }

    #[test]
    fn coarser_than_year_counts_as_year_and_finer_than_day_as_day() {
        assert_eq!(t("+1900-00-00T00:00:00Z", 7).unwrap().to_iso(), "1900");
        assert_eq!(
            t("+2020-03-04T12:30:00Z", 14).unwrap().to_iso(),
            "2020-03-04"
        );
    }

    #[test]
    fn zero_parts_lower_the_precision() {
        assert_eq!(
            t("+2019-00-00T00:00:00Z", 11).unwrap().precision,
            Precision::Year
        );
        assert_eq!(t("+2019-05-00T00:00:00Z", 11).unwrap().to_iso(), "2019-05");
    }

    #[test]
    fn negative_and_eleven_digit_years() {
        let v = t("-0043-03-15T00:00:00Z", 11).unwrap();
        assert_eq!((v.year, v.to_iso()), (-43, "-0043-03-15".into()));
        let v = t("+00000002001-01-01T00:00:00Z", 11).unwrap();
        assert_eq!((v.year, v.to_iso()), (2001, "2001-01-01".into()));
        let v = t("-00000010000-00-00T00:00:00Z", 9).unwrap();
        assert_eq!(v.to_iso(), "-10000");
    }

    #[test]
    fn julian_dates_compare_by_their_gregorian_day() {
        // Washington was born 11 February 1731 (Julian) = 22 February 1732 (Gregorian
        // year numbering started in January; Wikidata writes the Julian day in its own year).
        let v = WikiTime::parse("+1732-02-11T00:00:00Z", 11, Calendar::Julian).unwrap();
        assert_eq!(v.earliest, day(1732, 2, 22));
        assert_eq!(v.to_iso(), "1732-02-11");
        assert_eq!(v.calendar, Calendar::Julian);
        let v = WikiTime::parse("+1900-02-29T00:00:00Z", 11, Calendar::Julian).unwrap();
        assert_eq!(v.earliest, day(1900, 3, 13));
        assert_eq!(
            Calendar::from_model("http://www.wikidata.org/entity/Q1985786"),
            Calendar::Julian
        );
    }

    #[test]
    fn malformed_and_out_of_range_values_are_errors() {
        for bad in [
            "",
            "2019",
            "+2019-01-01",
            "+20x9-01-01T00:00:00Z",
            "+2019-1-01T00:00:00Z",
            "x2019-01-01T00:00:00Z",
        ] {
            assert!(matches!(t(bad, 11), Err(TimeError::Malformed(_))), "{bad}");
        }
        assert!(matches!(
            t("+2019-13-01T00:00:00Z", 11),
            Err(TimeError::OutOfRange { .. })
        ));
        assert!(matches!(
            t("+2019-02-30T00:00:00Z", 11),
            Err(TimeError::OutOfRange { .. })
        ));
        assert!(matches!(
            t("+13798000000-00-00T00:00:00Z", 3),
            Err(TimeError::OutOfRange { .. })
        ));
        assert!(matches!(
            t("+99999999999999999999-00-00T00:00:00Z", 9),
            Err(TimeError::Malformed(_))
        ));
        assert!(matches!(
            t("+2019-01-01T00:00:00Z", 15),
            Err(TimeError::Precision { .. })
        ));
        let err = t("+2019-02-30T00:00:00Z", 11).unwrap_err().to_string();
        assert!(err.contains("day 30 does not exist in 2019-02"), "{err}");
    }
}
