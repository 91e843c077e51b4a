//! The Wikidata the shipped pipelines read in the tests: the news-site model's
//! entities with its sport and business pairs, and an organization whose chair
//! changed (`P488`, which the model lacks), so every relation a shipped
//! pipeline names has statements and none is warned of as missing.
#![allow(dead_code)]

use serde_json::Value;
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
    company["aliases"] = serde_json::json!({});
    company["claims"] = serde_json::json!({ "P488": statements });
    company
}
