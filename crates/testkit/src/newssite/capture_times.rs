//! When the Archive took an article's page, on every site's model: first soon
//! after publication, then again (under the same URL or a variant) later.

use chrono::{Duration, NaiveDateTime};

/// The capture times of one article.
pub(super) struct CaptureTimes {
    first: NaiveDateTime,
}

impl CaptureTimes {
    /// The first capture: 5 minutes to 3 days after publication.
    pub(super) fn draw(rng: &mut fastrand::Rng, published: NaiveDateTime) -> Self {
        Self {
            first: published + Duration::minutes(rng.i64(5..3 * 24 * 60)),
        }
    }

    /// The first capture's time.
    pub(super) fn first(&self) -> NaiveDateTime {
        self.first
    }

    /// A later capture: an hour to 200 days after the first.
    pub(super) fn later(&self, rng: &mut fastrand::Rng) -> NaiveDateTime {
        self.first + Duration::hours(rng.i64(1..24 * 200))
    }
}
