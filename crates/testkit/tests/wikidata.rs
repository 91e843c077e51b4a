//! The mock Wikidata over real HTTP: SPARQL evaluated on the entities' RDF,
//! `wbgetentities` as MediaWiki answers it, maxlag, the User-Agent policy,
//! edits seen by both services, faults.

use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
use tempora_testkit::{Fault, FaultRule, MockWikidata, Outcome, RequestKind, Target};

const UA: &str = "TemporaTests/0.1 (https://example.org/tempora; tempora@example.org)";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .user_agent(UA)
        .build()
        .expect("client")
}

fn item(id: &str, qid: u64) -> Value {
    json!({"entity-type": "item", "numeric-id": qid, "id": id})
}

fn time_snak(property: &str, time: &str, precision: u64) -> Value {
    json!({"snaktype": "value", "property": property, "datavalue": {"value": {
        "time": time, "timezone": 0, "before": 0, "after": 0, "precision": precision,
        "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}, "type": "time"},
        "datatype": "time"})
}

fn item_snak(property: &str, id: &str) -> Value {
    let qid: u64 = id[1..].parse().expect("numeric id");
    json!({"snaktype": "value", "property": property,
        "datavalue": {"value": item(id, qid), "type": "wikibase-entityid"},
        "datatype": "wikibase-item"})
}

/// A "position held" statement with a start (and maybe an end) qualifier.
fn position(id: &str, n: u32, office: &str, start: &str, end: Option<&str>, rank: &str) -> Value {
    let mut qualifiers = json!({"P580": [time_snak("P580", start, 11)]});
    if let Some(end) = end {
        qualifiers["P582"] = json!([time_snak("P582", end, 11)]);
    }
    json!({"mainsnak": item_snak("P39", office), "type": "statement",
        "qualifiers": qualifiers, "id": format!("{id}${n:08}-0000-0000-0000-000000000000"),
        "rank": rank})
}

fn person(id: &str, label: &str, positions: Vec<Value>, born: (&str, u64)) -> Value {
    json!({"type": "item", "id": id,
        "labels": {"en": {"language": "en", "value": label},
                   "fr": {"language": "fr", "value": format!("{label} (fr)")},
                   "de": {"language": "de", "value": format!("{label} (de)")}},
        "descriptions": {"en": {"language": "en", "value": "politician/lawyer"},
                         "fr": {"language": "fr", "value": "homme politique américain"}},
        "aliases": {"en": [{"language": "en", "value": format!("{label} alias")}]},
        "claims": {"P39": positions,
                   "P569": [{"mainsnak": time_snak("P569", born.0, born.1), "type": "statement",
                             "id": format!("{id}$B0000000-0000-0000-0000-000000000000"), "rank": "normal"}]},
        "sitelinks": {"enwiki": {"site": "enwiki", "title": label, "badges": []}}})
}

fn entities() -> Vec<Value> {
    vec![
        person(
            "Q6279",
            "Joe Biden",
            vec![
                position(
                    "Q6279",
                    1,
                    "Q11696",
                    "+2021-01-20T00:00:00Z",
                    Some("+2025-01-20T00:00:00Z"),
                    "normal",
                ),
                // A wrong claim, kept deprecated.
                position(
                    "Q6279",
                    2,
                    "Q11696",
                    "+2020-11-07T00:00:00Z",
                    None,
                    "deprecated",
                ),
            ],
            ("+1942-00-00T00:00:00Z", 9),
        ),
        person(
            "Q76",
            "Barack Obama",
            vec![position(
                "Q76",
                1,
                "Q11696",
                "+2009-01-20T00:00:00Z",
                Some("+2017-01-20T00:00:00Z"),
                "normal",
            )],
            ("+1961-08-04T00:00:00Z", 11),
        ),
        {
            let mut v = person(
                "Q22686",
                "Donald Trump",
                vec![
                    position(
                        "Q22686",
                        1,
                        "Q11696",
                        "+2017-01-20T00:00:00Z",
                        Some("+2021-01-20T00:00:00Z"),
                        "normal",
                    ),
                    position(
                        "Q22686",
                        2,
                        "Q11696",
                        "+2025-01-20T00:00:00Z",
                        None,
                        "normal",
                    ),
                ],
                ("+1946-06-14T00:00:00Z", 11),
            );
            v["lastrevid"] = json!(2_000_000_000u64);
            v["modified"] = json!("2025-02-01T12:00:00Z");
            v
        },
        json!({"type": "item", "id": "Q11696",
            "labels": {"en": {"language": "en", "value": "President of the United States"}},
            "claims": {}}),
    ]
}

async fn sparql_json(wd: &MockWikidata, query: &str) -> Value {
    let response = client()
        .get(wd.sparql_endpoint())
        .query(&[("query", query)])
        .header("Accept", "application/sparql-results+json")
        .send()
        .await
        .expect("sparql request");
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        content_type.starts_with("application/sparql-results+json"),
        "{content_type}"
    );
    response.json().await.expect("json results")
}

async fn wbgetentities(wd: &MockWikidata, params: &[(&str, &str)]) -> reqwest::Response {
    client()
        .get(wd.api_endpoint())
        .query(params)
        .send()
        .await
        .expect("api request")
}

fn bindings(results: &Value) -> Vec<Value> {
    results["results"]["bindings"]
        .as_array()
        .expect("bindings")
        .clone()
}

#[tokio::test]
async fn sparql_filters_on_a_qualifier_date_and_reads_the_version() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let trump_rev = wd.entity("Q22686").unwrap()["lastrevid"].as_u64().unwrap();
    assert_eq!(trump_rev, 2_000_000_000);
    let biden_rev = wd.entity("Q6279").unwrap()["lastrevid"].as_u64().unwrap();
    assert!(
        biden_rev > trump_rev,
        "assigned revisions come after the given ones"
    );

    let query = r#"SELECT ?person ?start ?rev WHERE {
        ?person p:P39 ?st .
        ?st ps:P39 wd:Q11696 ; pq:P580 ?start ; wikibase:rank wikibase:NormalRank .
        FILTER(?start >= "2020-01-01T00:00:00Z"^^xsd:dateTime)
        ?person schema:version ?rev .
    } ORDER BY ?start"#;
    let results = sparql_json(&wd, query).await;
    assert_eq!(results["head"]["vars"], json!(["person", "start", "rev"]));
    let rows = bindings(&results);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(
        rows[0]["person"],
        json!({"type": "uri", "value": "http://www.wikidata.org/entity/Q6279"})
    );
    assert_eq!(
        rows[0]["start"],
        json!({"type": "literal", "datatype": "http://www.w3.org/2001/XMLSchema#dateTime",
               "value": "2021-01-20T00:00:00Z"})
    );
    assert_eq!(
        rows[0]["rev"],
        json!({"type": "literal", "datatype": "http://www.w3.org/2001/XMLSchema#integer",
               "value": biden_rev.to_string()})
    );
    assert_eq!(
        rows[1]["person"]["value"],
        "http://www.wikidata.org/entity/Q22686"
    );
    assert_eq!(rows[1]["start"]["value"], "2025-01-20T00:00:00Z");
    assert_eq!(rows[1]["rev"]["value"], "2000000000");

    // The same by POST, a form body and format=json, prefixes declared.
    let declared = format!(
        "PREFIX wd: <http://www.wikidata.org/entity/>\nPREFIX p: <http://www.wikidata.org/prop/>\n{query}"
    );
    let response = client()
        .post(wd.sparql_endpoint())
        .form(&[("query", declared.as_str()), ("format", "json")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let posted: Value = response.json().await.unwrap();
    assert_eq!(posted, results);
    let log = wd.log().requests();
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].method, "POST");
    assert_eq!(log[1].kind, RequestKind::Sparql);
    assert_eq!(log[1].query.as_deref(), Some(declared.as_str()));
    assert_eq!(log[1].outcome, Outcome::Status(200));
}

#[tokio::test]
async fn year_precision_times_are_normalized_to_valid_datetimes() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let results = sparql_json(
        &wd,
        "SELECT ?born (YEAR(?born) AS ?year) WHERE { wd:Q6279 wdt:P569 ?born }",
    )
    .await;
    let rows = bindings(&results);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["born"]["value"], "1942-01-01T00:00:00Z");
    assert_eq!(
        rows[0]["born"]["datatype"],
        "http://www.w3.org/2001/XMLSchema#dateTime"
    );
    assert_eq!(
        rows[0]["year"]["value"], "1942",
        "a typed, valid xsd:dateTime"
    );
}

#[tokio::test]
async fn deprecated_statements_show_through_their_rank_not_as_truthy() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let results = sparql_json(
        &wd,
        "SELECT ?st ?start WHERE { wd:Q6279 p:P39 ?st . ?st wikibase:rank wikibase:DeprecatedRank ; pq:P580 ?start }",
    )
    .await;
    let rows = bindings(&results);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        rows[0]["st"]["value"],
        "http://www.wikidata.org/entity/statement/Q6279-00000002-0000-0000-0000-000000000000"
    );
    assert_eq!(rows[0]["start"]["value"], "2020-11-07T00:00:00Z");
    // Truthy: only the normal-rank statement's value, once.
    let truthy = sparql_json(
        &wd,
        "SELECT (COUNT(*) AS ?n) WHERE { wd:Q6279 wdt:P39 wd:Q11696 }",
    )
    .await;
    assert_eq!(bindings(&truthy)[0]["n"]["value"], "1");
    let all = sparql_json(&wd, "SELECT (COUNT(*) AS ?n) WHERE { wd:Q6279 p:P39 ?st }").await;
    assert_eq!(bindings(&all)[0]["n"]["value"], "2");
}

#[tokio::test]
async fn bad_queries_and_big_results_fail_as_wdqs_does() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let response = client()
        .get(wd.sparql_endpoint())
        .query(&[
            ("query", "SELECT ?x WHERE { ?x wdt:P31 "),
            ("format", "json"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body = response.text().await.unwrap();
    assert!(body.contains("MalformedQueryException"), "{body}");

    wd.limit_results(3);
    let few = sparql_json(&wd, "SELECT DISTINCT ?p WHERE { ?p p:P39 ?st }").await;
    assert_eq!(bindings(&few).len(), 3);
    let response = client()
        .get(wd.sparql_endpoint())
        .query(&[
            ("query", "SELECT ?st WHERE { ?p p:P39 ?st }"),
            ("format", "json"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 500);
    let body = response.text().await.unwrap();
    assert!(
        body.contains("java.util.concurrent.TimeoutException"),
        "{body}"
    );
}

#[tokio::test]
async fn wbgetentities_filters_props_and_languages_and_marks_missing_ids() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let response = wbgetentities(
        &wd,
        &[
            ("action", "wbgetentities"),
            ("ids", "Q6279|Q999999999"),
            ("props", "info|labels|descriptions"),
            ("languages", "en|fr"),
            ("format", "json"),
        ],
    )
    .await;
    assert_eq!(response.status(), 200);
    let raw = response.text().await.unwrap();
    // MediaWiki's JSON: non-ASCII escaped, slashes not.
    assert!(raw.contains(r"am\u00e9ricain"), "{raw}");
    assert!(raw.contains("politician/lawyer"), "{raw}");
    let v: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(v["success"], 1);
    let biden = &v["entities"]["Q6279"];
    let keys: Vec<&str> = biden
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "pageid",
            "ns",
            "title",
            "lastrevid",
            "modified",
            "type",
            "id",
            "labels",
            "descriptions"
        ]
    );
    assert_eq!(biden["title"], "Q6279");
    assert_eq!(biden["ns"], 0);
    let labels: Vec<&str> = biden["labels"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(labels, ["en", "fr"]);
    assert_eq!(
        v["entities"]["Q999999999"],
        json!({"id": "Q999999999", "missing": ""})
    );

    let claims_only = wbgetentities(
        &wd,
        &[
            ("action", "wbgetentities"),
            ("ids", "Q76"),
            ("props", "claims"),
            ("format", "json"),
        ],
    )
    .await;
    let v: Value = claims_only.json().await.unwrap();
    let keys: Vec<&str> = v["entities"]["Q76"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["type", "id", "claims"]);

    // POST with a form body, as clients do for long id lists.
    let posted: Value = client()
        .post(wd.api_endpoint())
        .form(&[
            ("action", "wbgetentities"),
            ("ids", "Q76|Q6279"),
            ("props", "info"),
            ("format", "json"),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = posted["entities"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(ids, ["Q76", "Q6279"], "in the order asked");
    let last = wd.log().requests().pop().unwrap();
    assert_eq!(
        (last.method.as_str(), last.kind),
        ("POST", RequestKind::Api)
    );
    assert!(last
        .params
        .contains(&("ids".to_string(), "Q76|Q6279".to_string())));
    assert_eq!(
        v["entities"]["Q76"]["claims"]["P39"][0]["qualifiers"]["P580"][0]["datavalue"]["value"]
            ["time"],
        "+2009-01-20T00:00:00Z"
    );
}

#[tokio::test]
async fn wbgetentities_refuses_more_than_fifty_ids_and_unknown_actions() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let ids: Vec<String> = (1..=51).map(|n| format!("Q{n}")).collect();
    let ids = ids.join("|");
    let response = wbgetentities(
        &wd,
        &[
            ("action", "wbgetentities"),
            ("ids", &ids),
            ("format", "json"),
        ],
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["mediawiki-api-error"], "toomanyvalues");
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["error"]["code"], "toomanyvalues");
    assert_eq!(
        v["error"]["info"],
        "Too many values supplied for parameter \"ids\". The limit is 50."
    );
    assert!(v.get("entities").is_none());

    let fifty: Vec<String> = (1..=50).map(|n| format!("Q{n}")).collect();
    let response = wbgetentities(
        &wd,
        &[
            ("action", "wbgetentities"),
            ("ids", &fifty.join("|")),
            ("format", "json"),
        ],
    )
    .await;
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["entities"].as_object().unwrap().len(), 50);

    let response = wbgetentities(
        &wd,
        &[
            ("action", "wbgetentitys"),
            ("ids", "Q76"),
            ("format", "json"),
        ],
    )
    .await;
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["error"]["code"], "badvalue");
}

#[tokio::test]
async fn maxlag_errors_carry_their_headers_until_the_lag_clears() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    wd.set_lag(7, 2);
    let params = [
        ("action", "wbgetentities"),
        ("ids", "Q76"),
        ("props", "info"),
        ("format", "json"),
        ("maxlag", "5"),
    ];
    for _ in 0..2 {
        let response = wbgetentities(&wd, &params).await;
        // MediaWiki answers maxlag with HTTP 200 and the error in the body.
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["retry-after"], "5");
        assert_eq!(response.headers()["x-database-lag"], "7");
        assert_eq!(response.headers()["mediawiki-api-error"], "maxlag");
        let v: Value = response.json().await.unwrap();
        assert_eq!(v["error"]["code"], "maxlag");
        assert_eq!(v["error"]["lag"], 7);
        assert_eq!(v["error"]["type"], "db");
        assert!(v["error"]["info"]
            .as_str()
            .unwrap()
            .ends_with(": 7 seconds lagged."));
    }
    let response = wbgetentities(&wd, &params).await;
    assert!(response.headers().get("x-database-lag").is_none());
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["success"], 1);
    assert!(v["entities"]["Q76"]["lastrevid"].is_u64());

    // A lag under the client's maxlag lets it through.
    wd.set_lag(3, 1);
    let v: Value = wbgetentities(&wd, &params).await.json().await.unwrap();
    assert_eq!(v["success"], 1);
}

#[tokio::test]
async fn requests_without_a_proper_user_agent_are_refused() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let bare = reqwest::Client::new(); // reqwest sends no User-Agent by default.
    let response = bare
        .get(wd.sparql_endpoint())
        .query(&[("query", "ASK {}"), ("format", "json")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let response = bare
        .get(wd.api_endpoint())
        .query(&[
            ("action", "wbgetentities"),
            ("ids", "Q76"),
            ("format", "json"),
        ])
        .header("User-Agent", "python-requests/2.31.0")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let response = client()
        .get(wd.sparql_endpoint())
        .query(&[("query", "ASK { wd:Q76 ?p ?o }"), ("format", "json")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let v: Value = response.json().await.unwrap();
    assert_eq!(v["boolean"], true);
    let statuses: Vec<Option<u16>> = wd.log().requests().iter().map(|r| r.status()).collect();
    assert_eq!(statuses, [Some(403), Some(403), Some(200)]);
}

#[tokio::test]
async fn set_entity_changes_the_revision_both_services_see() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let before = wd.entity("Q76").unwrap()["lastrevid"].as_u64().unwrap();
    let edit_time = Utc.with_ymd_and_hms(2026, 3, 1, 9, 30, 0).unwrap();
    wd.set_clock(edit_time);
    let mut edited = entities().swap_remove(1);
    edited["labels"]["en"]["value"] = json!("Barack H. Obama");
    let after = wd.set_entity(edited).unwrap();
    assert!(after > before);
    assert!(after > 2_000_000_000, "greater than any revision before");

    let v: Value = wbgetentities(
        &wd,
        &[
            ("action", "wbgetentities"),
            ("ids", "Q76"),
            ("props", "info|labels"),
            ("languages", "en"),
            ("format", "json"),
        ],
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(v["entities"]["Q76"]["lastrevid"], after);
    assert_eq!(v["entities"]["Q76"]["modified"], "2026-03-01T09:30:00Z");
    assert_eq!(
        v["entities"]["Q76"]["labels"]["en"]["value"],
        "Barack H. Obama"
    );

    let results = sparql_json(
        &wd,
        "SELECT ?rev ?modified ?label WHERE { wd:Q76 schema:version ?rev ; schema:dateModified ?modified ; rdfs:label ?label FILTER(LANG(?label) = \"en\") }",
    )
    .await;
    let rows = bindings(&results);
    assert_eq!(rows.len(), 1, "the old label is gone: {rows:?}");
    assert_eq!(rows[0]["rev"]["value"], after.to_string());
    assert_eq!(rows[0]["modified"]["value"], "2026-03-01T09:30:00Z");
    assert_eq!(rows[0]["label"]["value"], "Barack H. Obama");

    assert!(wd.remove_entity("Q76"));
    let v: Value = wbgetentities(
        &wd,
        &[
            ("action", "wbgetentities"),
            ("ids", "Q76"),
            ("format", "json"),
        ],
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(v["entities"]["Q76"]["missing"], "");
    let gone = sparql_json(&wd, "SELECT * WHERE { wd:Q76 ?p ?o }").await;
    assert!(bindings(&gone).is_empty());
}

#[tokio::test]
async fn faults_fire_on_their_service_only() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    wd.add_fault(FaultRule::new(
        Target::Sparql,
        Fault::RateLimit { retry_after: 1 },
        1,
    ));
    wd.add_fault(FaultRule::new(Target::Api, Fault::Unavailable, 1).after(1));
    let api = [
        ("action", "wbgetentities"),
        ("ids", "Q76"),
        ("format", "json"),
    ];
    assert_eq!(wbgetentities(&wd, &api).await.status(), 200);
    let response = client()
        .get(wd.sparql_endpoint())
        .query(&[("query", "ASK {}"), ("format", "json")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "1");
    assert_eq!(wbgetentities(&wd, &api).await.status(), 503);
    assert_eq!(wbgetentities(&wd, &api).await.status(), 200);
    let kinds: Vec<(RequestKind, Option<u16>)> = wd
        .log()
        .requests()
        .iter()
        .map(|r| (r.kind, r.status()))
        .collect();
    assert_eq!(
        kinds,
        [
            (RequestKind::Api, Some(200)),
            (RequestKind::Sparql, Some(429)),
            (RequestKind::Api, Some(503)),
            (RequestKind::Api, Some(200)),
        ]
    );
    assert!(wd.log().most_in_flight() >= 1);
}

#[tokio::test]
async fn the_label_service_binds_labels_with_language_fallback() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    let results = sparql_json(
        &wd,
        r#"SELECT ?p ?pLabel ?pDescription ?pAltLabel WHERE {
            VALUES ?p { wd:Q76 wd:Q11696 wd:Q404 }
            SERVICE wikibase:label { bd:serviceParam wikibase:language "fr,en". }
        } ORDER BY ?p"#,
    )
    .await;
    let rows = bindings(&results);
    assert_eq!(rows.len(), 3, "{rows:?}");
    // Q11696: no French label, the English one.
    assert_eq!(
        rows[0]["pLabel"],
        json!({"type": "literal", "value": "President of the United States", "xml:lang": "en"})
    );
    assert!(rows[0].get("pDescription").is_none());
    // Q404: no entity, its id.
    assert_eq!(rows[1]["pLabel"]["value"], "Q404");
    // Q76: French first.
    assert_eq!(
        rows[2]["pLabel"],
        json!({"type": "literal", "value": "Barack Obama (fr)", "xml:lang": "fr"})
    );
    assert_eq!(
        rows[2]["pDescription"]["value"],
        "homme politique américain"
    );
    assert!(rows[2].get("pAltLabel").is_none(), "no French alias");

    let explicit = sparql_json(
        &wd,
        r#"SELECT ?name WHERE { BIND(wd:Q76 AS ?p)
            SERVICE wikibase:label { bd:serviceParam wikibase:language "en". ?p rdfs:label ?name . } }"#,
    )
    .await;
    assert_eq!(bindings(&explicit)[0]["name"]["value"], "Barack Obama");

    let aliases = sparql_json(
        &wd,
        r#"SELECT ?p ?pAltLabel WHERE { VALUES ?p { wd:Q76 }
            SERVICE wikibase:label { bd:serviceParam wikibase:language "en". } }"#,
    )
    .await;
    assert_eq!(
        bindings(&aliases)[0]["pAltLabel"]["value"],
        "Barack Obama alias"
    );
}

#[tokio::test]
async fn resets_and_truncated_bodies_reach_the_client() {
    let wd = MockWikidata::start(entities()).await.unwrap();
    wd.add_fault(FaultRule::new(Target::Sparql, Fault::Reset, 1));
    wd.add_fault(FaultRule::new(Target::Api, Fault::Truncate, 1));
    let sparql = client()
        .get(wd.sparql_endpoint())
        .query(&[("query", "ASK {}"), ("format", "json")])
        .send()
        .await;
    assert!(sparql.is_err(), "reset: {sparql:?}");
    // Half of a small body may not even get past the headers: either way,
    // the client never holds a whole answer.
    let api = client()
        .get(wd.api_endpoint())
        .query(&[
            ("action", "wbgetentities"),
            ("ids", "Q76"),
            ("format", "json"),
        ])
        .send()
        .await;
    let whole = match api {
        Ok(response) => response.bytes().await.is_ok(),
        Err(_) => false,
    };
    assert!(!whole, "the body is cut short");
    let outcomes: Vec<Outcome> = wd.log().requests().into_iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, [Outcome::Reset, Outcome::Truncated(200)]);
    // Both fired once; the next requests are answered.
    let v: Value = wbgetentities(
        &wd,
        &[
            ("action", "wbgetentities"),
            ("ids", "Q76"),
            ("format", "json"),
        ],
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(v["success"], 1);
}
