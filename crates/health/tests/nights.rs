//! The check's defaults on a long run of ordinary nights of a modelled news site,
//! and on the failures it is for. A night here is the figures one run records:
//! articles kept per section, captures listed per URL pattern, pages rejected,
//! summaries per source, pages failed, page requests; drawn with the variation
//! real nights have:
//! - weekends and holidays as the testkit's model of the site has them
//!   ([`activity`]: 0.7 at weekends, as UK news sites' feeds counted in 2023;
//!   0.5 on holidays);
//! - the Archive's index 12 to 24 hours behind (reported by Save Page Now users),
//!   and on 3% of nights not moved at all, caught up the night after;
//! - counts drawn Poisson, shares binomial; a bad night for the Archive (8% of
//!   pages failed) on 5% of nights.

use std::collections::BTreeMap;

use chrono::{Duration, NaiveDate, NaiveDateTime};
use tempora_health::figures::{Share, KEPT, PAGES_FAILED};
use tempora_health::{check::compare, HealthSettings, RunFigures, Status};
use tempora_testkit::newssite::activity;

/// Articles a weekday: BBC published about 226 stories a day in September 2023
/// (Press Gazette), about a fifth of them sport (4 of the 20 URLs of XSum's
/// sample list).
const NEWS: f64 = 170.0;
const SPORT: f64 = 50.0;

struct Site {
    rng: fastrand::Rng,
    frontier: NaiveDateTime,
    last: Option<NaiveDateTime>,
    night: i64,
}

/// What breaks on a night.
#[derive(Clone, Copy, PartialEq)]
enum Night {
    Ordinary,
    /// News pages come in a layout no profile reads.
    NewLayout,
    /// The Archive stopped capturing BBC Sport.
    NoSport,
}

impl Site {
    fn new(seed: u64) -> Self {
        Self {
            rng: fastrand::Rng::with_seed(seed),
            frontier: day(0),
            last: None,
            night: 0,
        }
    }

    fn poisson(&mut self, mean: f64) -> u64 {
        // Knuth's method, in pieces so exp(-mean) stays representable.
        let mut n = 0;
        let mut left = mean;
        while left > 0.0 {
            let step = left.min(30.0);
            left -= step;
            let limit = (-step).exp();
            let mut p = 1.0;
            loop {
                p *= self.rng.f64();
                if p <= limit {
                    break;
                }
                n += 1;
            }
        }
        n
    }

    fn binomial(&mut self, n: u64, p: f64) -> u64 {
        (0..n).filter(|_| self.rng.f64() < p).count() as u64
    }

    /// The next night's figures.
    fn night(&mut self, what: Night) -> RunFigures {
        self.night += 1;
        let now = day(self.night) + Duration::hours(2);
        let stalled = self.rng.f64() < 0.03;
        if !stalled {
            let lag = Duration::minutes(self.rng.i64(12 * 60..24 * 60));
            self.frontier = self.frontier.max(now - lag);
        }
        let listed_until = self.frontier;
        // The articles of the days between the last frontier and this one.
        let days_covered = self.covered_days(listed_until);
        let volume: f64 = days_covered.iter().map(|(d, f)| activity(*d) * f).sum();
        let news = self.poisson(NEWS * volume);
        let sport = if what == Night::NoSport {
            0
        } else {
            self.poisson(SPORT * volume)
        };
        let pages = news + sport + self.poisson(2.0 * volume);
        let unrecognised = pages - news - sport;
        let (news_kept, news_lost) = if what == Night::NewLayout {
            (0, news)
        } else {
            (news, 0)
        };
        let kept = news_kept + sport;
        let mut counts = BTreeMap::new();
        counts.insert(KEPT.to_string(), kept);
        counts.insert("articles bbc/news".to_string(), news_kept);
        counts.insert("articles bbc/sport".to_string(), sport);
        let listed_news = news + unrecognised + self.poisson(5.0 * volume);
        let listed_sport = if what == Night::NoSport {
            0
        } else {
            sport + self.poisson(2.0 * volume)
        };
        counts.insert("captures listed bbc.co.uk/news/*".to_string(), listed_news);
        counts.insert(
            "captures listed bbc.co.uk/sport/*".to_string(),
            listed_sport,
        );
        counts.insert("captures listed".to_string(), listed_news + listed_sport);
        let failure_rate = if self.rng.f64() < 0.05 { 0.08 } else { 0.01 };
        let requested = pages + self.binomial(pages, failure_rate);
        let mut shares = BTreeMap::new();
        shares.insert(
            "pages read".to_string(),
            Share {
                of: pages,
                n: pages,
            },
        );
        shares.insert("articles read".to_string(), Share { of: kept, n: kept });
        shares.insert(
            "pages rejected as not_recognised".to_string(),
            Share {
                of: unrecognised + news_lost,
                n: pages,
            },
        );
        let og = self.binomial(kept, 0.12);
        shares.insert(
            "summaries from og_description".to_string(),
            Share { of: og, n: kept },
        );
        shares.insert(
            "summaries from intro".to_string(),
            Share {
                of: kept - og,
                n: kept,
            },
        );
        shares.insert(
            PAGES_FAILED.to_string(),
            Share {
                of: requested - pages,
                n: requested,
            },
        );
        RunFigures {
            run: format!("night-{:05}", self.night),
            listed_until: Some(listed_until),
            lists: true,
            counts,
            shares,
            requests: Share {
                of: requested,
                n: kept,
            },
            baseline: true,
        }
    }

    /// The days (and the part of each) between the last frontier reached and `until`.
    fn covered_days(&mut self, until: NaiveDateTime) -> Vec<(NaiveDate, f64)> {
        let from = self
            .last
            .replace(until)
            .unwrap_or(until - Duration::days(1));
        let mut out = Vec::new();
        let mut at = from;
        while at < until {
            let next = (at.date() + Duration::days(1))
                .and_hms_opt(0, 0, 0)
                .unwrap()
                .min(until);
            out.push((at.date(), (next - at).num_seconds() as f64 / 86_400.0));
            at = next;
        }
        out
    }
}

fn day(n: i64) -> NaiveDateTime {
    (NaiveDate::from_ymd_opt(2024, 1, 1).unwrap() + Duration::days(n))
        .and_hms_opt(0, 0, 0)
        .unwrap()
}

/// Each night of `nights` checked against the nights before it, as a run is.
fn checked(nights: &[RunFigures], settings: &HealthSettings) -> Vec<tempora_health::Health> {
    (0..nights.len())
        .map(|i| {
            let first = i.saturating_sub(settings.runs + 1);
            compare(&nights[i], &nights[first..i], settings)
        })
        .collect()
}

fn ordinary(site: &mut Site, n: usize) -> Vec<RunFigures> {
    (0..n).map(|_| site.night(Night::Ordinary)).collect()
}

#[test]
fn ordinary_nights_raise_next_to_no_finding() {
    let settings = HealthSettings::default();
    let mut nights = 0;
    let mut alarms = Vec::new();
    for seed in 1..=6 {
        let mut site = Site::new(seed);
        let run = ordinary(&mut site, 730);
        for (night, health) in run.iter().zip(checked(&run, &settings)) {
            nights += 1;
            if health.status == Status::Warn {
                alarms.push(format!("{}: {:?}", night.run, health.findings));
            }
        }
    }
    let rate = alarms.len() as f64 / nights as f64;
    println!(
        "false alarms with the defaults: {} in {nights} ordinary nights ({:.4}/night)",
        alarms.len(),
        rate
    );
    // Less than one a year of nightly runs.
    for a in &alarms {
        println!("{a}");
    }
    assert!(rate < 1.0 / 365.0, "{rate}: {alarms:#?}");
}

#[test]
fn a_layout_no_profile_reads_is_found_on_its_first_night() {
    let mut site = Site::new(7);
    let mut run = ordinary(&mut site, 40);
    run.push(site.night(Night::NewLayout));
    let health = checked(&run, &HealthSettings::default()).pop().unwrap();
    assert_eq!(health.status, Status::Warn);
    let figures: Vec<&str> = health.findings.iter().map(|f| f.figure.as_str()).collect();
    for figure in [
        "articles bbc/news",
        "articles kept",
        "pages rejected as not_recognised",
    ] {
        assert!(
            figures.contains(&figure),
            "{figure} not in {:#?}",
            health.findings
        );
    }
    let share = health
        .findings
        .iter()
        .find(|f| f.figure == "pages rejected as not_recognised")
        .unwrap();
    assert!(share.value > 0.6 && share.expected < 0.1, "{share:?}");
    assert!(share.message.contains("layout"), "{}", share.message);
}

#[test]
fn a_section_the_archive_stopped_capturing_is_found_on_its_first_night() {
    let mut site = Site::new(8);
    let mut run = ordinary(&mut site, 40);
    run.push(site.night(Night::NoSport));
    let health = checked(&run, &HealthSettings::default()).pop().unwrap();
    assert_eq!(health.status, Status::Warn, "{health:?}");
    let mut figures: Vec<&str> = health.findings.iter().map(|f| f.figure.as_str()).collect();
    figures.sort_unstable();
    assert_eq!(
        figures,
        ["articles bbc/sport", "captures listed bbc.co.uk/sport/*"],
        "{:#?}",
        health.findings
    );
    let sport = &health.findings[0];
    assert_eq!(sport.value, 0.0);
    assert!(
        sport.expected > 5.0 && sport.range[0] <= sport.expected,
        "{sport:?}"
    );
    assert!(
        sport.message.starts_with("articles bbc/sport: 0 this run"),
        "{}",
        sport.message
    );
}

#[test]
fn a_first_run_and_a_young_folder_say_what_they_cannot_judge() {
    let mut site = Site::new(9);
    let run = ordinary(&mut site, 3);
    let checks = checked(&run, &HealthSettings::default());
    assert_eq!(checks[0].status, Status::Ok);
    assert!(
        checks[0]
            .note
            .as_deref()
            .unwrap()
            .starts_with("nothing to compare with"),
        "{:?}",
        checks[0].note
    );
    assert_eq!(checks[2].compared_with, 2);
    assert!(
        checks[2].note.as_deref().unwrap().contains("min_runs"),
        "{:?}",
        checks[2].note
    );
    assert!(
        checks[2].lines()[0].starts_with("health: ok ("),
        "{:?}",
        checks[2].lines()
    );
}

#[test]
fn a_retry_an_hour_after_the_night_raises_nothing() {
    let mut site = Site::new(10);
    let mut run = ordinary(&mut site, 30);
    // The Archive's index moved an hour: a handful of pages, none failing.
    let mut retry = run.last().unwrap().clone();
    retry.run = "night-99999".into();
    retry.listed_until = retry.listed_until.map(|t| t + Duration::hours(1));
    for n in retry.counts.values_mut() {
        *n = (*n / 24).min(2);
    }
    // Two pages, both read, both with their bold intro.
    for share in retry.shares.values_mut() {
        *share = Share { of: 0, n: 2 };
    }
    for read in ["pages read", "articles read", "summaries from intro"] {
        retry.shares.insert(read.into(), Share { of: 2, n: 2 });
    }
    retry.requests = Share { of: 2, n: 2 };
    run.push(retry);
    let health = checked(&run, &HealthSettings::default()).pop().unwrap();
    assert_eq!(health.status, Status::Ok, "{:#?}", health.findings);
}
