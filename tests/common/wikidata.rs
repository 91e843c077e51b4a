//! The Wikidata the shipped pipelines read in the tests: the news-site model's
//! entities with its sport and business pairs, and an organization whose chair
//! changed (`P488`, which the model lacks), so every relation a shipped
//! pipeline names has statements and none is warned of as missing.
#![allow(dead_code)]

use serde_json::{json, Value};
use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};

/// The model's entities, its sport and business pairs, and a chair pair.
pub fn entities() -> Vec<Value> {
    let mut entities = NewsSite::with_sport_and_business(&NewsSiteSpec::default()).entities;
    let company = entities
        .iter()
        .find(|e| {
            e["claims"]["P169"]
                .as_array()
                .is_some_and(|s| !s.is_empty())
        })
        .cloned()
        .expect("the model has a company with chief executives");
    entities.push(chaired(company));
    entities
}

/// [`entities`] before and after the news model's offices changed hands: before,
/// the new holders of every position but the first are left out (one pair has
/// changed so far); after, the whole.
pub fn before_and_after() -> (Vec<Value>, Vec<Value>) {
    let all = entities();
    let before: Vec<Value> = all
        .iter()
        .map(|e| {
            let mut e = e.clone();
            let first = e["id"] == all[0]["id"];
            let held = e.pointer_mut("/claims/P1308").and_then(Value::as_array_mut);
            if let Some(held) = held.filter(|_| !first) {
                held.truncate(1);
            }
            e
        })
        .collect();
    (before, all)
}

/// The positions of `entities` (those with holders, `P1308`).
pub fn positions(entities: &[Value]) -> Vec<Value> {
    entities
        .iter()
        .filter(|e| e["claims"].get("P1308").is_some())
        .cloned()
        .collect()
}

/// An organization whose chairs are `company`'s chief executives: the company
/// line with `P169` made `P488`, under an id and label of its own.
fn chaired(mut company: Value) -> Value {
    const ID: &str = "Q9100071";
    let statements = company["claims"]["P169"].take();
    let mut statements = statements.as_array().cloned().unwrap_or_default();
    for (i, statement) in statements.iter_mut().enumerate() {
        statement["mainsnak"]["property"] = "P488".into();
        statement["id"] = format!("{ID}${i}").into();
    }
    company["id"] = ID.into();
    company["labels"]["en"]["value"] = "Selby Bay Harbour Trust".into();
    company["aliases"] = json!({});
    company["claims"] = json!({ "P488": statements });
    company
}

/// A `P580`/`P582` qualifier of a day.
fn day(property: &str, date: &str) -> Value {
    json!([{
        "snaktype": "value", "property": property, "datatype": "time",
        "datavalue": { "type": "time", "value": {
            "time": format!("+{date}T00:00:00Z"), "timezone": 0, "before": 0, "after": 0,
            "precision": 11, "calendarmodel": "http://www.wikidata.org/entity/Q1985727" } },
    }])
}

/// An entity line of our own, in the dump's shape: `statements` are (property, value, start, end).
pub fn entity_line(
    id: &str,
    label: &str,
    statements: &[(&str, &str, &str, Option<&str>)],
) -> String {
    let mut claims = serde_json::Map::new();
    for (i, (property, value, start, end)) in statements.iter().enumerate() {
        let mut qualifiers = serde_json::Map::new();
        qualifiers.insert("P580".into(), day("P580", start));
        if let Some(end) = end {
            qualifiers.insert("P582".into(), day("P582", end));
        }
        let statement = json!({
            "mainsnak": { "snaktype": "value", "property": property, "datatype": "wikibase-item",
                "datavalue": { "type": "wikibase-entityid", "value": {
                    "entity-type": "item", "numeric-id": value[1..].parse::<u64>().unwrap(), "id": value } } },
            "type": "statement", "qualifiers": qualifiers, "id": format!("{id}${i}"), "rank": "normal",
        });
        claims
            .entry(property.to_string())
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(statement);
    }
    json!({
        "type": "item", "id": id,
        "labels": { "en": { "language": "en", "value": label } },
        "descriptions": {}, "aliases": {}, "claims": claims, "sitelinks": {},
    })
    .to_string()
}
