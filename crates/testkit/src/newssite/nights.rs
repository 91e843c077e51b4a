//! The BBC model night after night, as a nightly crawl meets it: each day the
//! site publishes news and sport stories (fewer at weekends and on holidays), and
//! the Archive indexes that day's captures of them (the first 5 minutes to 3 days
//! after publication, some again later under another host). A day can bring a
//! [`Change`]: pages in a layout no site profile knows, or no capture of BBC
//! Sport at all.

use std::collections::{BTreeMap, HashSet};

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime};

use super::articles::article;
use super::capture_times::CaptureTimes;
use super::page::page_html;
use crate::corpus::MockCapture;
use crate::synthetic::timestamp;

/// What to build.
#[derive(Debug, Clone, PartialEq)]
pub struct NightsSpec {
    /// Seed of every random choice.
    pub seed: u64,
    /// The first day of publication.
    pub first_day: NaiveDate,
    /// News stories published on a weekday (0.7 of it on Saturdays and Sundays,
    /// as UK news sites' feeds counted in 2023; half on holidays).
    pub news_a_day: f64,
    /// Sport stories published on a weekday (BBC Sport: about a fifth of BBC's
    /// stories).
    pub sport_a_day: f64,
}

impl Default for NightsSpec {
    fn default() -> Self {
        Self {
            seed: 5,
            first_day: NaiveDate::from_ymd_opt(2021, 3, 1).unwrap_or_default(),
            news_a_day: 60.0,
            sport_a_day: 25.0,
        }
    }
}

/// What is different about a day's captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing.
    None,
    /// Every page captured that day is in a layout no site profile knows (a redesign).
    UnknownLayout,
    /// The Archive took no page of BBC Sport that day.
    NoSport,
}

/// One pending capture: when the Archive takes it, its URL, the story's page.
struct Pending {
    url: String,
    sport: bool,
    html: String,
}

/// The site, day by day.
pub struct Nights {
    spec: NightsSpec,
    rng: fastrand::Rng,
    /// The next day to publish.
    day: NaiveDate,
    /// Captures not yet taken, by time.
    pending: BTreeMap<NaiveDateTime, Vec<Pending>>,
    ids: HashSet<u64>,
}

impl Nights {
    /// The site before its first day.
    pub fn new(spec: NightsSpec) -> Self {
        Self {
            rng: fastrand::Rng::with_seed(spec.seed),
            day: spec.first_day,
            pending: BTreeMap::new(),
            ids: HashSet::new(),
            spec,
        }
    }

    /// The captures the Archive took on the next day, with `change`.
    pub fn next_day(&mut self, change: Change) -> Vec<MockCapture> {
        let day = self.day;
        self.day = day + Duration::days(1);
        let activity = activity(day);
        let news = self.poisson(self.spec.news_a_day * activity);
        let sport = self.poisson(self.spec.sport_a_day * activity);
        for sport in std::iter::repeat_n(false, news).chain(std::iter::repeat_n(true, sport)) {
            self.publish(day, sport);
        }
        let end = day.and_hms_opt(0, 0, 0).unwrap_or_default() + Duration::days(1);
        let later = self.pending.split_off(&end);
        let taken = std::mem::replace(&mut self.pending, later);
        taken
            .into_iter()
            .flat_map(|(at, pages)| pages.into_iter().map(move |p| (at, p)))
            .filter(|(_, p)| !(p.sport && change == Change::NoSport))
            .map(|(at, p)| {
                let html = if change == Change::UnknownLayout {
                    redesigned(&p.html)
                } else {
                    p.html
                };
                MockCapture::html(&p.url, &timestamp(at), html)
            })
            .collect()
    }

    fn publish(&mut self, day: NaiveDate, sport: bool) {
        let at = day.and_hms_opt(0, 0, 0).unwrap_or_default()
            + Duration::minutes(self.rng.i64(0..24 * 60));
        let mut a = article(&mut self.rng, at, false);
        if a.video || !self.ids.insert(a.id) {
            return;
        }
        if sport {
            a.url = format!("https://www.bbc.co.uk/sport/football/{}", a.id);
        }
        let html = page_html(&a);
        let times = CaptureTimes::draw(&mut self.rng, a.published);
        let mut urls = vec![(a.url.clone(), times.first())];
        if self.rng.u32(0..100) < 40 {
            urls.push((
                a.url.replace("www.bbc.co.uk", "www.bbc.com"),
                times.later(&mut self.rng),
            ));
        }
        for (url, at) in urls {
            self.pending.entry(at).or_default().push(Pending {
                url,
                sport,
                html: html.clone(),
            });
        }
    }

    /// Knuth's method (means here are far below where `exp(-mean)` underflows).
    fn poisson(&mut self, mean: f64) -> usize {
        let limit = (-mean).exp();
        let mut p = 1.0;
        let mut n = 0;
        loop {
            p *= self.rng.f64();
            if p <= limit {
                return n;
            }
            n += 1;
        }
    }
}

/// How much a day publishes, against a weekday: 0.7 on Saturdays and Sundays
/// (UK news sites' feeds, Press Gazette's count of September 2023: Mail Online
/// 0.68, Mirror 0.70), half on Christmas and New Year holidays (an assumption:
/// no count of holiday output was found).
pub fn activity(day: NaiveDate) -> f64 {
    let holiday = matches!((day.month(), day.day()), (12, 24..=26) | (12, 31) | (1, 1));
    if holiday {
        0.5
    } else if day.weekday().num_days_from_monday() >= 5 {
        0.7
    } else {
        1.0
    }
}

/// The page in markup no profile knows: the same text, other elements.
fn redesigned(html: &str) -> String {
    html.replace("data-component=\"text-block\"", "data-block=\"paragraph\"")
        .replace("<main><article>", "<div class=\"story-2030\">")
        .replace("</article></main>", "</div>")
        .replace("id=\"main-heading\"", "class=\"headline-2030\"")
        .replace("\"@type\":\"NewsArticle\"", "\"@type\":\"WebPage\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_bring_captures_and_changes_change_them() {
        let mut site = Nights::new(NightsSpec::default());
        let first = site.next_day(Change::None);
        let second = site.next_day(Change::None);
        assert!(
            !first.is_empty() && second.len() > first.len(),
            "{} {}",
            first.len(),
            second.len()
        );
        let sport = |c: &[MockCapture]| c.iter().filter(|c| c.url.contains("/sport/")).count();
        assert!(sport(&second) > 0);
        let none = site.next_day(Change::NoSport);
        assert_eq!(sport(&none), 0);
        let redesigned = site.next_day(Change::UnknownLayout);
        assert!(redesigned
            .iter()
            .all(|c| !String::from_utf8_lossy(&c.body).contains("text-block")));
        let again = Nights::new(NightsSpec::default()).next_day(Change::None);
        assert_eq!(
            again.iter().map(|c| &c.url).collect::<Vec<_>>(),
            first.iter().map(|c| &c.url).collect::<Vec<_>>()
        );
    }
}
