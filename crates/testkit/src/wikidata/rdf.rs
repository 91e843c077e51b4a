//! Wikidata entities (the JSON of the dumps and of `wbgetentities`) as the RDF
//! the Wikidata Query Service holds: the "RDF Dump Format" of Wikibase, munged
//! as WDQS loads it (`schema:version` and `schema:dateModified` on the entity,
//! no `wdata:` node), with simple values only (no `psv:`/`pqv:` value nodes).
//!
//! For an item `wd:Q42`:
//! - `wd:Q42 a wikibase:Item; schema:version "<lastrevid>"^^xsd:integer;
//!   schema:dateModified "<modified>"^^xsd:dateTime`;
//! - each label as `rdfs:label`, `skos:prefLabel` and `schema:name`, each
//!   description as `schema:description`, each alias as `skos:altLabel`;
//! - `wikibase:statements`, `wikibase:sitelinks`, `wikibase:identifiers` counts;
//! - each statement: `wd:Q42 p:P39 wds:<id, $ as ->`, `wds:.. a wikibase:Statement`
//!   (and `wikibase:BestRank` when it is of the best rank), `wikibase:rank
//!   wikibase:NormalRank|PreferredRank|DeprecatedRank`, `ps:P39 <value>`,
//!   `pq:Pn <value>` per qualifier, `prov:wasDerivedFrom wdref:<hash>` with
//!   `wdref:<hash> pr:Pn <value>` per reference;
//! - truthy `wd:Q42 wdt:P39 <value>` for the statements of the best rank of
//!   each property (preferred if any, else normal; never deprecated).
//!
//! Values: items and properties as `wd:` IRIs; times as `xsd:dateTime` with
//! `+` dropped and month and day below the value's precision set to `01`
//! (`+2020-00-00T00:00:00Z`, precision 9, is `2020-01-01T00:00:00Z`), as
//! WDQS does; quantities as their amount, `xsd:decimal`; monolingual text as a
//! language-tagged literal; coordinates as `geo:wktLiteral` `Point(lon lat)`;
//! URLs as IRIs, Commons media as `Special:FilePath` IRIs; anything else as a
//! plain string. `somevalue` is a skolem IRI
//! (`http://www.wikidata.org/.well-known/genid/<hex>`), `novalue` is
//! `wds:.. a wdno:Pn` (and `wd:Q42 a wdno:Pn` when truthy).

use oxigraph::model::{GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use serde_json::Value;

/// The prefixes WDQS predefines, as (name, IRI).
pub const PREFIXES: &[(&str, &str)] = &[
    ("wd", "http://www.wikidata.org/entity/"),
    ("wdt", "http://www.wikidata.org/prop/direct/"),
    ("wdtn", "http://www.wikidata.org/prop/direct-normalized/"),
    ("wds", "http://www.wikidata.org/entity/statement/"),
    ("wdref", "http://www.wikidata.org/reference/"),
    ("wdv", "http://www.wikidata.org/value/"),
    ("wdata", "http://www.wikidata.org/wiki/Special:EntityData/"),
    ("wdno", "http://www.wikidata.org/prop/novalue/"),
    ("p", "http://www.wikidata.org/prop/"),
    ("ps", "http://www.wikidata.org/prop/statement/"),
    ("psv", "http://www.wikidata.org/prop/statement/value/"),
    ("pq", "http://www.wikidata.org/prop/qualifier/"),
    ("pqv", "http://www.wikidata.org/prop/qualifier/value/"),
    ("pr", "http://www.wikidata.org/prop/reference/"),
    ("prv", "http://www.wikidata.org/prop/reference/value/"),
    ("wikibase", "http://wikiba.se/ontology#"),
    ("schema", "http://schema.org/"),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("prov", "http://www.w3.org/ns/prov#"),
    ("geo", "http://www.opengis.net/ont/geosparql#"),
    ("bd", "http://www.bigdata.com/rdf#"),
    ("hint", "http://www.bigdata.com/queryHints#"),
];

const WD: &str = "http://www.wikidata.org/entity/";
const WDS: &str = "http://www.wikidata.org/entity/statement/";
const WDREF: &str = "http://www.wikidata.org/reference/";
const WDT: &str = "http://www.wikidata.org/prop/direct/";
const WDNO: &str = "http://www.wikidata.org/prop/novalue/";
const P: &str = "http://www.wikidata.org/prop/";
const PS: &str = "http://www.wikidata.org/prop/statement/";
const PQ: &str = "http://www.wikidata.org/prop/qualifier/";
const PR: &str = "http://www.wikidata.org/prop/reference/";
const WIKIBASE: &str = "http://wikiba.se/ontology#";
const SCHEMA: &str = "http://schema.org/";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
const SKOS: &str = "http://www.w3.org/2004/02/skos/core#";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
const PROV_DERIVED: &str = "http://www.w3.org/ns/prov#wasDerivedFrom";
const GEO_WKT: &str = "http://www.opengis.net/ont/geosparql#wktLiteral";
const GENID: &str = "http://www.wikidata.org/.well-known/genid/";
const EARTH: &str = "http://www.wikidata.org/entity/Q2";

fn iri(base: &str, local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{base}{local}"))
}

fn typed(value: impl Into<String>, xsd_type: &str) -> Term {
    Literal::new_typed_literal(value, iri(XSD, xsd_type)).into()
}

/// The RDF value of a snak: `None` for a `novalue` snak or a value this model
/// cannot express. `somevalue` becomes a skolem IRI derived from `seed`.
fn snak_value(snak: &Value, seed: &str) -> Option<Term> {
    match snak.get("snaktype").and_then(Value::as_str) {
        Some("somevalue") => Some(iri(GENID, &hex_hash(seed)).into()),
        Some("value") => {
            let datatype = snak.get("datatype").and_then(Value::as_str).unwrap_or("");
            data_value(snak.get("datavalue")?, datatype)
        }
        _ => None,
    }
}

fn data_value(datavalue: &Value, datatype: &str) -> Option<Term> {
    let value = datavalue.get("value")?;
    match datavalue.get("type").and_then(Value::as_str)? {
        "wikibase-entityid" => entity_id_of(value).map(|id| iri(WD, &id).into()),
        "time" => {
            let time = value.get("time")?.as_str()?;
            let precision = value.get("precision").and_then(Value::as_u64).unwrap_or(11);
            Some(typed(wdqs_time(time, precision)?, "dateTime"))
        }
        "quantity" => {
            let amount = value.get("amount")?.as_str()?;
            Some(typed(amount.trim_start_matches('+'), "decimal"))
        }
        "monolingualtext" => {
            let text = value.get("text")?.as_str()?;
            let language = value.get("language")?.as_str()?;
            Literal::new_language_tagged_literal(text, language)
                .ok()
                .map(Into::into)
        }
        "globecoordinate" => {
            let lat = value.get("latitude")?.as_f64()?;
            let lon = value.get("longitude")?.as_f64()?;
            let globe = value.get("globe").and_then(Value::as_str).unwrap_or(EARTH);
            let point = if globe == EARTH {
                format!("Point({lon} {lat})")
            } else {
                format!("<{globe}> Point({lon} {lat})")
            };
            Some(Literal::new_typed_literal(point, NamedNode::new_unchecked(GEO_WKT)).into())
        }
        "string" => {
            let text = value.as_str()?;
            match datatype {
                "url" => NamedNode::new(text).ok().map(Into::into),
                "commonsMedia" => NamedNode::new(format!(
                    "http://commons.wikimedia.org/wiki/Special:FilePath/{}",
                    percent_encode_path(&text.replace(' ', "_"))
                ))
                .ok()
                .map(Into::into),
                _ => Some(Literal::new_simple_literal(text).into()),
            }
        }
        _ => None,
    }
}

/// The id in a `wikibase-entityid` value (`id`, or the numeric id with the
/// letter of its entity type).
pub(crate) fn entity_id_of(value: &Value) -> Option<String> {
    if let Some(id) = value.get("id").and_then(Value::as_str) {
        return Some(id.to_string());
    }
    let number = value.get("numeric-id").and_then(Value::as_u64)?;
    let letter = match value.get("entity-type").and_then(Value::as_str) {
        Some("property") => 'P',
        Some("lexeme") => 'L',
        _ => 'Q',
    };
    Some(format!("{letter}{number}"))
}

/// A Wikibase time value as the `xsd:dateTime` WDQS stores: the sign `+`
/// dropped, a year of more than four digits without its leading zeros, and
/// month and day below the precision (or `00`) set to `01`.
/// `+2020-00-00T00:00:00Z` (precision 9) is `2020-01-01T00:00:00Z`.
pub fn wdqs_time(time: &str, precision: u64) -> Option<String> {
    let (negative, rest) = match time.as_bytes().first()? {
        b'+' => (false, &time[1..]),
        b'-' => (true, &time[1..]),
        _ => (false, time),
    };
    let (date, clock) = rest.split_once('T')?;
    let mut parts = date.splitn(3, '-');
    let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
    if year.is_empty() || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let trimmed = year.trim_start_matches('0');
    let year = if trimmed.len() >= 4 {
        trimmed.to_string()
    } else {
        format!("{trimmed:0>4}")
    };
    let month = if precision < 10 || month == "00" {
        "01"
    } else {
        month
    };
    let day = if precision < 11 || day == "00" {
        "01"
    } else {
        day
    };
    let sign = if negative { "-" } else { "" };
    Some(format!("{sign}{year}-{month}-{day}T{clock}"))
}

fn percent_encode_path(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// 32 hex digits, a stable hash of `seed` (the skolem IRIs' local names).
fn hex_hash(seed: &str) -> String {
    let fnv = |basis: u64| {
        seed.bytes().fold(basis, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    format!(
        "{:016x}{:016x}",
        fnv(0xcbf2_9ce4_8422_2325),
        fnv(0x6c62_272e_07bb_0142)
    )
}

fn rank_of(statement: &Value) -> &str {
    statement
        .get("rank")
        .and_then(Value::as_str)
        .unwrap_or("normal")
}

/// The statement's IRI: its id with `$` as `-`, as the RDF format has it.
fn statement_node(entity_id: &str, property: &str, index: usize, statement: &Value) -> NamedNode {
    let local = statement.get("id").and_then(Value::as_str).map_or_else(
        || format!("{entity_id}-{property}-{index}"),
        |id| id.replace('$', "-"),
    );
    iri(WDS, &local)
}

/// How much of an entity's RDF the model keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rdf {
    /// All of it, as WDQS has it.
    #[default]
    Whole,
    /// All but the statements of external ids and every statement's
    /// references, which no query of Tempora's reads: a model of 100,000
    /// entities of real size in a few gigabytes (the API still answers the
    /// entities whole). Their counts (`wikibase:identifiers`) stay.
    Lean,
}

/// The quads of one entity, in the default graph, whole or [`Rdf::Lean`].
/// Empty for JSON that is not an entity.
pub fn entity_quads(entity: &Value, rdf: Rdf) -> Vec<Quad> {
    let mut triples: Vec<(NamedOrBlankNode, NamedNode, Term)> = Vec::new();
    let Some(id) = entity.get("id").and_then(Value::as_str) else {
        return Vec::new();
    };
    let subject = iri(WD, id);
    let s = || NamedOrBlankNode::from(subject.clone());
    let rdf_type = || NamedNode::new_unchecked(RDF_TYPE);
    let kind = entity.get("type").and_then(Value::as_str).unwrap_or("item");
    let class = match kind {
        "property" => "Property",
        "lexeme" => "Lexeme",
        _ => "Item",
    };
    triples.push((s(), rdf_type(), iri(WIKIBASE, class).into()));
    if kind == "property" {
        property_triples(id, entity, &mut triples);
    }
    if let Some(rev) = entity.get("lastrevid").and_then(Value::as_u64) {
        triples.push((
            s(),
            iri(SCHEMA, "version"),
            typed(rev.to_string(), "integer"),
        ));
    }
    if let Some(modified) = entity.get("modified").and_then(Value::as_str) {
        triples.push((
            s(),
            iri(SCHEMA, "dateModified"),
            typed(modified, "dateTime"),
        ));
    }
    for (term, predicates) in [
        (
            "labels",
            &[
                RDFS_LABEL,
                "http://www.w3.org/2004/02/skos/core#prefLabel",
                "http://schema.org/name",
            ][..],
        ),
        ("descriptions", &["http://schema.org/description"][..]),
    ] {
        for text in terms(entity.get(term)) {
            for predicate in predicates {
                triples.push((s(), NamedNode::new_unchecked(*predicate), text.clone()));
            }
        }
    }
    if let Some(aliases) = entity.get("aliases").and_then(Value::as_object) {
        for list in aliases.values() {
            for text in terms(Some(list)) {
                triples.push((s(), iri(SKOS, "altLabel"), text));
            }
        }
    }
    let claims = entity.get("claims").and_then(Value::as_object);
    let mut statements = 0u64;
    let mut identifiers = 0u64;
    for (property, list) in claims.into_iter().flatten() {
        let Some(list) = list.as_array() else {
            continue;
        };
        statements += list.len() as u64;
        let best = if list.iter().any(|st| rank_of(st) == "preferred") {
            "preferred"
        } else {
            "normal"
        };
        for (index, statement) in list.iter().enumerate() {
            let mainsnak = statement.get("mainsnak").unwrap_or(&Value::Null);
            if mainsnak.get("datatype").and_then(Value::as_str) == Some("external-id") {
                identifiers += 1;
                if rdf == Rdf::Lean {
                    continue;
                }
            }
            let node = statement_node(id, property, index, statement);
            let st = || NamedOrBlankNode::from(node.clone());
            let rank = rank_of(statement);
            let is_best = rank == best;
            triples.push((s(), iri(P, property), node.clone().into()));
            triples.push((st(), rdf_type(), iri(WIKIBASE, "Statement").into()));
            if is_best {
                triples.push((st(), rdf_type(), iri(WIKIBASE, "BestRank").into()));
            }
            let rank_name = match rank {
                "preferred" => "PreferredRank",
                "deprecated" => "DeprecatedRank",
                _ => "NormalRank",
            };
            triples.push((st(), iri(WIKIBASE, "rank"), iri(WIKIBASE, rank_name).into()));
            let seed = format!("{}|main", node.as_str());
            match snak_value(mainsnak, &seed) {
                Some(value) => {
                    if is_best {
                        triples.push((s(), iri(WDT, property), value.clone()));
                    }
                    triples.push((st(), iri(PS, property), value));
                }
                None if is_novalue(mainsnak) => {
                    triples.push((st(), rdf_type(), iri(WDNO, property).into()));
                    if is_best {
                        triples.push((s(), rdf_type(), iri(WDNO, property).into()));
                    }
                }
                None => {}
            }
            let qualifiers = statement.get("qualifiers").and_then(Value::as_object);
            for (qualifier, snaks) in qualifiers.into_iter().flatten() {
                for (n, snak) in snaks.as_array().into_iter().flatten().enumerate() {
                    let seed = format!("{}|{qualifier}|{n}", node.as_str());
                    match snak_value(snak, &seed) {
                        Some(value) => triples.push((st(), iri(PQ, qualifier), value)),
                        None if is_novalue(snak) => {
                            triples.push((st(), rdf_type(), iri(WDNO, qualifier).into()));
                        }
                        None => {}
                    }
                }
            }
            if rdf == Rdf::Whole {
                reference_triples(&node, statement, &mut triples);
            }
        }
    }
    let sitelinks = entity
        .get("sitelinks")
        .and_then(Value::as_object)
        .map_or(0, |m| m.len() as u64);
    for (name, count) in [
        ("statements", statements),
        ("identifiers", identifiers),
        ("sitelinks", sitelinks),
    ] {
        triples.push((
            s(),
            iri(WIKIBASE, name),
            typed(count.to_string(), "integer"),
        ));
    }
    triples
        .into_iter()
        .map(|(s, p, o)| Quad::new(s, p, o, GraphName::DefaultGraph))
        .collect()
}

fn is_novalue(snak: &Value) -> bool {
    snak.get("snaktype").and_then(Value::as_str) == Some("novalue")
}

fn reference_triples(
    node: &NamedNode,
    statement: &Value,
    triples: &mut Vec<(NamedOrBlankNode, NamedNode, Term)>,
) {
    let references = statement.get("references").and_then(Value::as_array);
    for (r, reference) in references.into_iter().flatten().enumerate() {
        let hash = reference.get("hash").and_then(Value::as_str).map_or_else(
            || hex_hash(&format!("{}|ref|{r}", node.as_str())),
            str::to_string,
        );
        let reference_node = iri(WDREF, &hash);
        triples.push((
            node.clone().into(),
            NamedNode::new_unchecked(PROV_DERIVED),
            reference_node.clone().into(),
        ));
        let snaks = reference.get("snaks").and_then(Value::as_object);
        for (property, list) in snaks.into_iter().flatten() {
            for (n, snak) in list.as_array().into_iter().flatten().enumerate() {
                let seed = format!("{hash}|{property}|{n}");
                if let Some(value) = snak_value(snak, &seed) {
                    triples.push((reference_node.clone().into(), iri(PR, property), value));
                }
            }
        }
    }
}

fn property_triples(
    id: &str,
    entity: &Value,
    triples: &mut Vec<(NamedOrBlankNode, NamedNode, Term)>,
) {
    let s = || NamedOrBlankNode::from(iri(WD, id));
    if let Some(datatype) = entity.get("datatype").and_then(Value::as_str) {
        // wikibase-item -> WikibaseItem, external-id -> ExternalId, time -> Time.
        let mut name = String::new();
        for part in datatype.split('-') {
            let mut chars = part.chars();
            if let Some(first) = chars.next() {
                name.extend(first.to_uppercase());
                name.push_str(chars.as_str());
            }
        }
        triples.push((
            s(),
            iri(WIKIBASE, "propertyType"),
            iri(WIKIBASE, &name).into(),
        ));
    }
    for (link, base) in [
        ("directClaim", WDT),
        ("claim", P),
        ("statementProperty", PS),
        ("qualifier", PQ),
        ("reference", PR),
        ("novalue", WDNO),
    ] {
        triples.push((s(), iri(WIKIBASE, link), iri(base, id).into()));
    }
}

/// The language-tagged literals of a `labels`/`descriptions` map or an alias list.
fn terms(value: Option<&Value>) -> Vec<Term> {
    let one = |v: &Value| {
        let text = v.get("value")?.as_str()?;
        let language = v.get("language")?.as_str()?;
        Literal::new_language_tagged_literal(text, language)
            .ok()
            .map(Term::from)
    };
    match value {
        Some(Value::Object(map)) => map.values().filter_map(one).collect(),
        Some(Value::Array(list)) => list.iter().filter_map(one).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_normalized_as_wdqs_does() {
        assert_eq!(
            wdqs_time("+2020-00-00T00:00:00Z", 9).as_deref(),
            Some("2020-01-01T00:00:00Z")
        );
        assert_eq!(
            wdqs_time("+1990-05-00T00:00:00Z", 10).as_deref(),
            Some("1990-05-01T00:00:00Z")
        );
        assert_eq!(
            wdqs_time("+2021-01-20T00:00:00Z", 11).as_deref(),
            Some("2021-01-20T00:00:00Z")
        );
        assert_eq!(
            wdqs_time("-0044-03-15T00:00:00Z", 11).as_deref(),
            Some("-0044-03-15T00:00:00Z")
        );
        assert_eq!(
            wdqs_time("+00000002018-07-04T00:00:00Z", 11).as_deref(),
            Some("2018-07-04T00:00:00Z")
        );
        assert_eq!(wdqs_time("yesterday", 11), None);
    }

    #[test]
    fn entity_ids_from_numeric_ids() {
        let v: Value = serde_json::json!({"entity-type": "property", "numeric-id": 580});
        assert_eq!(entity_id_of(&v).as_deref(), Some("P580"));
    }
}
