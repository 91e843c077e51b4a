//! Article ids: BBC's numeric ids grow with the publication date, and the
//! model interpolates them between days where the real id is known.

use chrono::{NaiveDate, NaiveDateTime};

/// BBC News article ids at known publication days (archived pages of 2009-2022
/// and the survey: about 8.0M in April 2009, 32M in April 2015, 55.7M in
/// January 2021, 61.9M in June 2022): the model interpolates ids between them.
pub const ID_ANCHORS: [(i32, u32, u32, u64); 11] = [
    (2009, 4, 21, 8_011_268),
    (2010, 6, 6, 10_249_066),
    (2011, 3, 31, 12_921_632),
    (2012, 10, 16, 19_957_138),
    (2013, 2, 21, 21_528_631),
    (2014, 1, 8, 25_654_437),
    (2015, 4, 12, 32_275_608),
    (2016, 11, 1, 37_834_404),
    (2020, 10, 13, 54_528_983),
    (2021, 1, 15, 55_700_000),
    (2022, 6, 21, 61_896_381),
];

/// BBC's article id at a publication time, interpolated between [`ID_ANCHORS`]
/// (and extended along the nearest segment outside them).
pub fn id_at(t: NaiveDateTime) -> u64 {
    let points: Vec<(f64, f64)> = ID_ANCHORS
        .iter()
        .filter_map(|&(y, m, d, id)| {
            let day = NaiveDate::from_ymd_opt(y, m, d)?;
            Some((days(day.and_hms_opt(0, 0, 0)?), id as f64))
        })
        .collect();
    let x = days(t);
    let seg = points
        .windows(2)
        .position(|w| x < w[1].0)
        .unwrap_or(points.len() - 2);
    let ((x0, y0), (x1, y1)) = (points[seg], points[seg + 1]);
    let y = y0 + (x - x0) * (y1 - y0) / (x1 - x0);
    y.max(1_000_000.0) as u64
}

fn days(t: NaiveDateTime) -> f64 {
    t.and_utc().timestamp() as f64 / 86_400.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_real_progression() {
        let at = |y, m, d| {
            NaiveDate::from_ymd_opt(y, m, d)
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .unwrap()
        };
        assert_eq!(id_at(at(2009, 4, 21)), 8_011_268);
        let mid_2018 = id_at(at(2018, 6, 1));
        assert!(mid_2018 > 32_275_608 && mid_2018 < 54_528_983, "{mid_2018}");
        assert!(id_at(at(2022, 6, 1)) < 61_896_381);
    }
}
