//! The check on a nightly sets pipeline's runs (`pipelines/nightly-bbc-sets.toml`),
//! read from `run.json` as the runtime writes it: the facts read from
//! Wikidata's services, the entities a refresh read again, the facts that
//! changed, and the articles
//! each set selected. Ordinary nights, drawn Poisson around steady levels,
//! raise nothing; a reading that lost most facts, or a set that lost most of
//! its articles, is found on its night.

use serde_json::{json, Value};
use tempora_health::figures::{
    ENTITIES_CHANGED, FACTS_CHANGED, FACTS_READ, RELATION_ARTICLES, RELATION_FACTS, SELECTED,
};
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

/// A night of the sport and office sets: the facts per relation the facts
/// stage counted, and the articles per relation `conflicts` kept.
fn relations_night(n: usize, facts: [u64; 2], articles: [u64; 2]) -> Value {
    let mut run = night(n, facts[0] + facts[1], 30, articles[0] + articles[1], 40);
    run["stages"][0]["counters"] = json!({ "facts P39": facts[0], "facts P286": facts[1] });
    let conflicts = json!({ "name": "conflicts", "kind": "conflicts",
        "counters": { "kept": articles[0] + articles[1], "kept_after_change": 3,
                      "kept P39": articles[0], "kept P286": articles[1] } });
    run["stages"].as_array_mut().unwrap().push(conflicts);
    run
}

#[test]
fn each_relation_is_a_figure_and_a_relation_that_lost_its_articles_is_found() {
    let figures = RunFigures::of_run(&relations_night(0, [500, 120], [30, 12]));
    assert_eq!(figures.counts[&format!("{RELATION_FACTS} P286")], 120);
    assert_eq!(figures.counts[&format!("{RELATION_FACTS} P39")], 500);
    assert_eq!(figures.counts[&format!("{RELATION_ARTICLES} P286")], 12);
    assert_eq!(figures.counts[&format!("{RELATION_ARTICLES} P39")], 30);
    assert!(!figures
        .counts
        .keys()
        .any(|k| k.ends_with("kept_after_change")));

    let mut rng = fastrand::Rng::with_seed(56);
    let mut runs: Vec<Value> = (0..30)
        .map(|n| {
            let facts = [poisson(&mut rng, 500.0), poisson(&mut rng, 120.0)];
            let articles = [poisson(&mut rng, 60.0), poisson(&mut rng, 40.0)];
            relations_night(n, facts, articles)
        })
        .collect();
    assert_eq!(check_last(&runs).status, Status::Ok);
    // The sport part is gone (its facts read, its articles not: a matcher lost
    // the clubs), while the set as a whole stays within chance.
    runs.push(relations_night(30, [500, 118], [75, 0]));
    let health = check_last(&runs);
    let found: Vec<&str> = health.findings.iter().map(|f| f.figure.as_str()).collect();
    assert_eq!(found, [format!("{RELATION_ARTICLES} P286")], "{health:?}");
}
