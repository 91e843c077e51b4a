//! Facts from Wikidata's live services, against the testkit's model of them on
//! 127.0.0.1 (a real SPARQL engine over the entities' RDF, and `wbgetentities`
//! as MediaWiki answers it): the same facts as the dump path on the same
//! entities, byte for byte; a later reading that reads only what changed and
//! equals a first reading; faults retried; a service down leaves the last
//! reading, whole.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::Value;
use tempora_engine::{OnError, StageStats};
use tempora_records::Fact;
use tempora_testkit::{Fault, FaultRule, MockWikidata, RequestKind, Target};
use tempora_wikidata::live::reading;
use tempora_wikidata::live::stage::{LiveConfig, LiveOptions, Pinned};
use tempora_wikidata::{read_facts, FactsQuery};
use tokio_util::sync::CancellationToken;

/// The demo dump's entities, and people whose starts test the discovery's
/// edges: a start of year precision in the year after the cutoff, one in the
/// cutoff's own year (no change), one far in the future, a decade's precision.
fn entities() -> Vec<Value> {
    let mut text = common::demo_text();
    for line in [
        common::person_line(
            "Q900001",
            "Ada Year",
            &[
                ("Q14211", ("+2012-06-01T00:00:00Z", 11), None),
                ("Q4970706", ("+2020-00-00T00:00:00Z", 9), None),
            ],
        ),
        common::person_line(
            "Q900002",
            "Bo Sameyear",
            &[
                ("Q14211", ("+2019-02-01T00:00:00Z", 11), None),
                ("Q4970706", ("+2019-11-00T00:00:00Z", 10), None),
            ],
        ),
        common::person_line(
            "Q900003",
            "Cy Future",
            &[
                ("Q11699", ("+2015-01-01T00:00:00Z", 11), None),
                ("Q11696", ("+2031-01-20T00:00:00Z", 11), None),
            ],
        ),
        common::person_line(
            "Q900004",
            "Di Decade",
            &[
                ("Q11699", ("+2011-03-01T00:00:00Z", 11), None),
                ("Q11696", ("+2020-00-00T00:00:00Z", 8), None),
            ],
        ),
    ] {
        text = text.replacen("\n]", &format!(",\n{line}\n]"), 1);
    }
    tempora_testkit::wikidata::read_entities(&text)
}

fn query() -> FactsQuery {
    common::query(OnError::Skip)
}

fn config(wd: &MockWikidata, reading: &Path) -> LiveConfig {
    let q = query();
    let options = LiveOptions {
        reading: reading.to_path_buf(),
        contact: Some("tests@example.org".into()),
        user_agent: None,
        refresh_after: None,
        query_endpoint: wd.sparql_endpoint(),
        api_endpoint: wd.api_endpoint(),
        // The services' own limits are the model's; the tests need no pacing.
        query_rate: 60_000.0,
        api_rate: 60_000.0,
        maxlag: 5,
        relations: q.relations.clone(),
        catalogue: None,
        languages: q.languages.clone(),
        cutoff: Some(q.cutoff),
        on_error: q.on_error,
    };
    LiveConfig::new(options, q.cutoff).unwrap()
}

async fn pin(config: &LiveConfig) -> Result<Pinned, tempora_engine::StageError> {
    let stats = Arc::new(StageStats::default());
    config
        .pinned_reading(&stats, &CancellationToken::new(), true)
        .await
        .map(|p| p.expect("not stopped"))
}

/// The facts of a dump (or a reading), in the canonical order, as JSON lines.
fn facts_of(dump: &Path) -> String {
    let stats = StageStats::default();
    let mut read = read_facts(
        &dump.display().to_string(),
        &query(),
        &stats,
        &Arc::new(AtomicBool::new(false)),
        &mut |_| {},
    )
    .unwrap();
    read.facts.sort_by(Fact::canonical_cmp);
    read.facts
        .iter()
        .map(|f| serde_json::to_string(f).unwrap() + "\n")
        .collect()
}

/// The entities the model holds now (with the revisions it gave them), as a
/// dump file in `dir`.
fn dump_of(wd: &MockWikidata, ids: &[String], dir: &Path, name: &str) -> PathBuf {
    let lines: Vec<String> = ids
        .iter()
        .filter_map(|id| wd.entity(id))
        .map(|e| e.to_string())
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, format!("[\n{}\n]\n", lines.join(",\n"))).unwrap();
    path
}

fn ids(entities: &[Value]) -> Vec<String> {
    entities
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

/// The ids each `wbgetentities` request named.
fn api_ids(wd: &MockWikidata) -> Vec<String> {
    let mut ids: Vec<String> = wd
        .log()
        .requests()
        .iter()
        .filter(|r| r.kind == RequestKind::Api && r.status() == Some(200))
        .flat_map(|r| {
            r.params
                .iter()
                .filter(|(k, _)| k == "ids")
                .flat_map(|(_, v)| v.split('|').map(str::to_string).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        })
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn the_live_path_gives_the_dump_path_s_facts_byte_for_byte() {
    let entities = entities();
    let all = ids(&entities);
    let wd = MockWikidata::start(entities).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pinned = pin(&config(&wd, &dir.path().join("state/wd.json.gz")))
        .await
        .unwrap();
    assert!(pinned.refreshed && pinned.problem.is_none());
    let live = facts_of(&dir.path().join("state/wd.json.gz"));
    let dump = facts_of(&dump_of(&wd, &all, dir.path(), "dump.json"));
    assert_eq!(live.lines().count(), 20, "{live}");
    assert_eq!(live, dump);
    // The edges: a year-precision start after the cutoff changes a pair; one in
    // the cutoff's year does not; a start in 2031 does.
    for (id, kept) in [("Q900001", true), ("Q900002", false), ("Q900003", true)] {
        assert_eq!(live.contains(&format!("\"{id}\"")), kept, "{id}:\n{live}");
    }
    // Only what could be a fact was read: entities with a position statement
    // starting from the cutoff's year on (Q900002's, in the cutoff's year,
    // gives no fact), and the objects of the facts; not the others.
    let read = api_ids(&wd);
    for id in ["Q42", "Q64", "Q30"] {
        assert!(!read.contains(&id.to_string()), "{id} read: {read:?}");
    }
    assert!(read.contains(&"Q900002".to_string()), "{read:?}");
    // Every request said who runs it.
    assert!(wd.log().requests().iter().all(|r| r
        .user_agent
        .as_deref()
        .is_some_and(|ua| ua.contains("tests@example.org"))));
    // The reading's sidecar holds its SHA-256 and time.
    let meta = pinned.meta;
    let bytes = std::fs::read(dir.path().join("state/wd.json.gz")).unwrap();
    use sha2::Digest;
    let sha: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(meta.sha256, sha);
    assert_eq!(meta.entities, read.len());
}

#[tokio::test]
async fn a_later_reading_reads_only_what_changed_and_equals_a_first_reading() {
    let entities = entities();
    let wd = MockWikidata::start(entities).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wd.json.gz");
    let first = pin(&config(&wd, &path)).await.unwrap();
    // Overnight: Harris takes a new office after the cutoff, Pence is deleted,
    // a new person appears, and an object's label is edited.
    let mut harris = wd.entity("Q10853588").unwrap();
    let mut held = harris["claims"]["P39"][0].clone();
    held["id"] = "Q10853588$new".into();
    held["mainsnak"]["datavalue"]["value"] =
        serde_json::json!({"entity-type": "item", "numeric-id": 11696, "id": "Q11696"});
    held["qualifiers"]["P580"][0]["datavalue"]["value"]["time"] = "+2026-01-20T00:00:00Z".into();
    harris["claims"]["P39"].as_array_mut().unwrap().push(held);
    wd.set_entity(harris);
    assert!(wd.remove_entity("Q24313"));
    let newcomer: Value = serde_json::from_str(&common::person_line(
        "Q900010",
        "Eve Newcomer",
        &[
            ("Q14211", ("+2018-01-01T00:00:00Z", 11), None),
            ("Q4970706", ("+2024-03-01T00:00:00Z", 11), None),
        ],
    ))
    .unwrap();
    wd.set_entity(newcomer);
    let mut chancellor = wd.entity("Q4970706").unwrap();
    chancellor["labels"]["en"]["value"] = "Federal Chancellor of Germany".into();
    wd.set_entity(chancellor);
    wd.log().clear();

    let second = pin(&config(&wd, &path)).await.unwrap();
    let refresh = second.refresh.clone().unwrap();
    assert_eq!(
        api_ids(&wd),
        ["Q10853588", "Q4970706", "Q900010"],
        "only the changed and the new entities are read again"
    );
    assert_eq!(refresh.changed, 3);
    // Harris's new office adds a fact; Pence's are gone (his own, and none of
    // the vice presidency's, which holds its statements); the newcomer's two.
    assert!(refresh.facts_changed >= 3, "{refresh:?}");
    assert_eq!(refresh.dropped, 1, "{refresh:?}");
    assert_eq!(second.meta.entities, first.meta.entities + 1 - 1);
    // The same as a first reading of the services as they are now.
    let fresh_path = dir.path().join("fresh.json.gz");
    let fresh = pin(&config(&wd, &fresh_path)).await.unwrap();
    assert_eq!(fresh.meta.sha256, second.meta.sha256);
    assert_eq!(
        std::fs::read(&fresh_path).unwrap(),
        std::fs::read(&path).unwrap()
    );
    let facts = facts_of(&path);
    assert!(facts.contains("Eve Newcomer") && facts.contains("Federal Chancellor of Germany"));
    assert!(!facts.contains("Mike Pence"), "Pence is gone:\n{facts}");
    // An unchanged reading asks the query service only.
    wd.log().clear();
    let third = pin(&config(&wd, &path)).await.unwrap();
    assert_eq!(third.meta.sha256, second.meta.sha256);
    assert!(api_ids(&wd).is_empty());
    assert_eq!(third.refresh.unwrap().facts_changed, 0);
}

#[tokio::test]
async fn faults_and_slow_answers_are_waited_out_and_a_query_over_the_time_limit_is_split() {
    let entities = entities();
    let wd = MockWikidata::start(entities.clone()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let clean = pin(&config(&wd, &dir.path().join("clean.json.gz")))
        .await
        .unwrap();
    wd.log().clear();
    wd.add_fault(FaultRule::new(
        Target::Sparql,
        Fault::RateLimit { retry_after: 1 },
        1,
    ));
    wd.add_fault(FaultRule {
        after: 2,
        ..FaultRule::new(Target::Sparql, Fault::Unavailable, 1)
    });
    wd.add_fault(FaultRule {
        after: 1,
        ..FaultRule::new(Target::Api, Fault::Truncate, 1)
    });
    // Slow answers, on both services, are waited for.
    wd.add_fault(FaultRule {
        after: 3,
        ..FaultRule::new(
            Target::Sparql,
            Fault::Slow(std::time::Duration::from_millis(300)),
            2,
        )
    });
    wd.add_fault(FaultRule {
        after: 2,
        ..FaultRule::new(
            Target::Api,
            Fault::Slow(std::time::Duration::from_millis(300)),
            1,
        )
    });
    wd.set_lag(7, 1);
    // A result of more than 3 rows is the service's timeout.
    wd.limit_results(3);
    let faulty = pin(&config(&wd, &dir.path().join("faulty.json.gz")))
        .await
        .unwrap();
    assert_eq!(faulty.meta.sha256, clean.meta.sha256);
    let refresh = faulty.refresh.unwrap();
    assert_eq!(refresh.lag_pauses, 1);
    let requests = wd.log().requests();
    let status = |s: u16| requests.iter().filter(|r| r.status() == Some(s)).count();
    assert_eq!(status(429), 1);
    assert_eq!(status(503), 1);
    assert!(
        status(500) >= 1,
        "some window was over the limit and halved"
    );
    assert!(
        requests.iter().all(|r| !r.during_pause),
        "nothing was sent while the service asked us to wait"
    );
    assert!(
        requests.iter().all(|r| r.in_flight <= 1),
        "one request at a time"
    );
}

#[tokio::test]
async fn a_service_down_leaves_the_last_reading_whole_and_says_so() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wd.json.gz");
    // No reading yet and the API answers an HTML page: nothing to fall back on.
    wd.add_fault(FaultRule::new(Target::Api, Fault::ErrorPage200, 1));
    let err = pin(&config(&wd, &path)).await.unwrap_err().to_string();
    assert!(
        err.contains("wbgetentities") && err.contains("byte") && err.contains("no earlier reading"),
        "{err}"
    );
    assert!(!path.exists(), "nothing half-read is pinned");
    let first = pin(&config(&wd, &path)).await.unwrap();
    let before = std::fs::read(&path).unwrap();
    // A change the services hold, then the API fails after one good read.
    let mut trump = wd.entity("Q22686").unwrap();
    trump["labels"]["en"]["value"] = "Donald J. Trump".into();
    wd.set_entity(trump);
    wd.add_fault(FaultRule::new(Target::Api, Fault::ErrorPage200, 1000));
    let fallback = pin(&config(&wd, &path)).await.unwrap();
    let said = fallback.problem.unwrap();
    assert!(
        said.contains("the facts are those of the reading of"),
        "{said}"
    );
    assert!(!fallback.refreshed);
    assert_eq!(fallback.meta, first.meta);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the last reading, whole"
    );
    assert!(
        reading::load(&path).unwrap().is_some(),
        "and it still reads back"
    );
    // Services that answer, but with nothing: no empty reading replaces it.
    let empty = MockWikidata::start(Vec::new()).await.unwrap();
    let emptied = pin(&config(&empty, &path)).await.unwrap();
    let said = emptied.problem.unwrap();
    assert!(said.contains("found no entity at all"), "{said}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// Real dump lines (`../shared/fixtures/wikidata`, see `tests/reality.rs`):
/// the 49 entities of a dump's head and Putin's API entity, served by the
/// model, give the facts the lines give read as a dump, byte for byte.
#[tokio::test]
#[ignore = "needs ../shared/fixtures/wikidata beside the project"]
async fn real_dump_lines_served_live_give_the_facts_of_the_lines_read_as_a_dump() {
    let shared =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/wikidata");
    let mut lines: Vec<String> = Vec::new();
    for name in ["dump-head-49-entities.json", "Q7747-putin-api-entity.json"] {
        let text = std::fs::read_to_string(shared.join(name)).unwrap();
        lines.extend(
            text.lines()
                .map(|l| l.trim().trim_end_matches(',').to_string())
                .filter(|l| l.starts_with('{')),
        );
    }
    assert_eq!(lines.len(), 50);
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("real.json");
    std::fs::write(&dump, format!("[\n{}\n]\n", lines.join(",\n"))).unwrap();
    let entities: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let wd = MockWikidata::start(entities).await.unwrap();
    let reading = dir.path().join("wd.json.gz");
    pin(&config(&wd, &reading)).await.unwrap();
    let live = facts_of(&reading);
    assert!(
        live.lines().count() >= 21,
        "Putin's facts at least:\n{live}"
    );
    assert_eq!(live, facts_of(&dump));
}
