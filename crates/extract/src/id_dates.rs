//! What a site's article ids tell about publication days: ids grow with
//! publication (BBC's numeric ids do), so known points bound an id's day.

use chrono::{Days, NaiveDate};

/// Known ids at known publication days: ids grow with publication (BBC's numeric
/// ids do), so an id bounds its day from below and above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdDates {
    /// `(id, day)`, sorted by id.
    pub points: Vec<(u64, NaiveDate)>,
    /// Days added on each side of the interpolated day.
    pub margin_days: u64,
}

impl IdDates {
    /// The days an article with numeric `id` can have been published on:
    /// interpolated linearly between the two known points around it, widened by
    /// the margin. Below the first point only an upper bound is known, above the
    /// last only a lower one.
    pub fn bounds(&self, id: u64) -> (Option<NaiveDate>, Option<NaiveDate>) {
        let margin = Days::new(self.margin_days);
        let at = self.points.partition_point(|&(known, _)| known <= id);
        match (
            at.checked_sub(1).map(|i| self.points[i]),
            self.points.get(at),
        ) {
            (Some((lo_id, lo_day)), Some(&(hi_id, hi_day))) => {
                let span = (hi_day - lo_day).num_days() as f64;
                let share = (id - lo_id) as f64 / (hi_id - lo_id).max(1) as f64;
                let day = lo_day + chrono::Duration::days((span * share).round() as i64);
                (day.checked_sub_days(margin), day.checked_add_days(margin))
            }
            (Some((_, lo_day)), None) => (lo_day.checked_sub_days(margin), None),
            (None, Some(&(_, hi_day))) => (None, hi_day.checked_add_days(margin)),
            (None, None) => (None, None),
        }
    }
}
