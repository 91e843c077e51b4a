//! The check on a nightly sets pipeline's runs (`pipelines/nightly-bbc-sets.toml`),
//! read from `run.json` as the runtime writes it: the facts read from
//! Wikidata's services, the entities a refresh read again, the facts that
//! changed, and the articles
//! each set selected. Ordinary nights, drawn Poisson around steady levels,
//! raise nothing; a reading that lost most facts, or a set that lost most of
//! its articles, is found on its night.

use serde_json::{json, Value};
use tempora_health::figures::{ENTITIES_CHANGED, FACTS_CHANGED, FACTS_READ, SELECTED};
use tempora_health::{check::compare, HealthSettings, RunFigures, Status};

fn poisson(rng: &mut fastrand::Rng, mean: f64) -> u64 {
    let limit = (-mean).exp();
    let (mut n, mut p) = (0, 1.0);
    loop {
        p *= rng.f64();
        if p <= limit {
            return n;
        }
        n += 1;
    }
}

/// A night's `run.json`: the live facts stage and the split, as the stages
/// write them.
fn night(n: usize, facts: u64, changed: u64, future: u64, in_distribution: u64) -> Value {
    json!({
        "run": format!("2026-11-{:02}T023000Z", n + 1),
        "status": "completed",
        "stages": [
            { "name": "facts", "kind": "wikidata-live", "records_out": facts,
              "metrics": { "refresh": { "queries": 20, "reads": 3, "found": 900, "objects": 300,
                                        "changed": changed, "unchanged": 1200 - changed,
                                        "dropped": 0, "facts_changed": changed / 3,
                                        "lag_pauses": 0 } } },
            { "name": "split", "kind": "split", "records_out": future + in_distribution,
              "ports": { "future": future, "in_distribution": in_distribution, "unassigned": 0 } },
        ],
        "cost": {},
    })
}

fn ordinary(rng: &mut fastrand::Rng, n: usize) -> Value {
    night(
        n,
        poisson(rng, 600.0),
        poisson(rng, 30.0),
        poisson(rng, 25.0),
        poisson(rng, 40.0),
    )
}

fn check_last(runs: &[Value]) -> tempora_health::Health {
    let settings = HealthSettings::default();
    let figures: Vec<RunFigures> = runs.iter().map(RunFigures::of_run).collect();
    let (last, earlier) = figures.split_last().unwrap();
    let first = earlier.len().saturating_sub(settings.runs);
    compare(last, &earlier[first..], &settings)
}

#[test]
fn the_figures_of_a_sets_night_are_read_from_its_run_json() {
    let figures = RunFigures::of_run(&night(0, 612, 31, 24, 40));
    assert_eq!(figures.counts[FACTS_READ], 612);
    assert_eq!(figures.counts[ENTITIES_CHANGED], 31);
    assert_eq!(figures.counts[FACTS_CHANGED], 10);
    assert_eq!(figures.counts[&format!("{SELECTED} future")], 24);
    assert_eq!(figures.counts[&format!("{SELECTED} in_distribution")], 40);
    assert!(!figures
        .counts
        .contains_key(&format!("{SELECTED} unassigned")));
}

#[test]
fn ordinary_nights_pass_and_a_lost_reading_or_set_is_found() {
    let mut rng = fastrand::Rng::with_seed(48);
    let mut alarms = 0;
    let mut runs: Vec<Value> = Vec::new();
    for n in 0..200 {
        runs.push(ordinary(&mut rng, n));
        if runs.len() > 5 && check_last(&runs).status == Status::Warn {
            alarms += 1;
        }
    }
    assert_eq!(alarms, 0, "ordinary nights raised findings");
    let found = |bad: Value| {
        let mut runs = runs.clone();
        runs.push(bad);
        let health = check_last(&runs);
        assert_eq!(health.status, Status::Warn, "{health:?}");
        health
            .findings
            .iter()
            .map(|f| f.figure.clone())
            .collect::<Vec<_>>()
    };
    // A reading that kept a tenth of the facts.
    assert_eq!(found(night(200, 60, 30, 25, 40)), [FACTS_READ]);
    // The future set lost its articles (a set window written wrong).
    assert_eq!(
        found(night(200, 600, 30, 2, 40)),
        [format!("{SELECTED} future")]
    );
}
