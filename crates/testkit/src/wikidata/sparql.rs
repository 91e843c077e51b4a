//! The Wikidata Query Service (`/sparql`): queries evaluated for real by
//! Oxigraph on an in-memory store of the entities' RDF ([`super::rdf`]), with
//! WDQS's predefined prefixes, its result formats and its failure answers
//! (a 400 with the parser's message, a 500 `TimeoutException` for a query
//! whose result is over the configured limit).

use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use serde_json::Value;

use super::rdf;
use crate::cdx::Answer;

/// The entities' RDF, kept in step with the model.
pub(crate) struct SparqlStore {
    store: Store,
    rdf: rdf::Rdf,
}

impl SparqlStore {
    pub(crate) fn new(rdf: rdf::Rdf) -> Self {
        Self {
            // An in-memory store cannot fail to open.
            store: Store::new().unwrap_or_else(|e| panic!("in-memory store: {e}")),
            rdf,
        }
    }

    /// Puts an entity's triples, taking out those of `old` (its version before,
    /// if any): an entity's triples are a function of its JSON, so they are made
    /// again to be taken out rather than kept twice (a model of 100,000 players
    /// would hold gigabytes of copies).
    pub(crate) fn put(&mut self, entity: &Value, old: Option<&Value>) {
        if let Some(old) = old {
            self.remove(old);
        }
        for quad in &rdf::entity_quads(entity, self.rdf) {
            let _ = self.store.insert(quad);
        }
    }

    /// Takes out the triples of `entity` (as it is in the model).
    pub(crate) fn remove(&mut self, entity: &Value) {
        for quad in rdf::entity_quads(entity, self.rdf) {
            let _ = self.store.remove(&quad);
        }
    }

    /// A handle on the same store (Oxigraph's store is shared and snapshot-isolated).
    pub(crate) fn handle(&self) -> Store {
        self.store.clone()
    }
}

/// How results are written.
#[derive(Debug, Clone, Copy)]
enum Format {
    Results(QueryResultsFormat),
}

/// The format asked by `format=` or `Accept` (WDQS answers XML by default).
fn format_of(format_param: Option<&str>, accept: Option<&str>) -> Format {
    match format_param {
        Some("json") => return Format::Results(QueryResultsFormat::Json),
        Some("xml") => return Format::Results(QueryResultsFormat::Xml),
        _ => {}
    }
    for media in accept.unwrap_or("").split(',') {
        let media = media.split(';').next().unwrap_or("").trim();
        let format = match media {
            "application/sparql-results+json" | "application/json" => QueryResultsFormat::Json,
            "application/sparql-results+xml" | "application/xml" => QueryResultsFormat::Xml,
            "text/tab-separated-values" => QueryResultsFormat::Tsv,
            "text/csv" => QueryResultsFormat::Csv,
            _ => continue,
        };
        return Format::Results(format);
    }
    Format::Results(QueryResultsFormat::Xml)
}

fn text(status: u16, body: String) -> Answer {
    Answer {
        status,
        headers: vec![("Content-Type".into(), "text/plain;charset=utf-8".into())],
        body: body.into_bytes(),
    }
}

/// What WDQS answers when its 60 s run out.
fn timeout(query: &str) -> Answer {
    text(
        500,
        format!(
            "SPARQL-QUERY: queryStr={query}\njava.util.concurrent.TimeoutException\n\tat java.util.concurrent.FutureTask.get(FutureTask.java:205)\n\tat com.bigdata.rdf.sail.webapp.BigdataServlet.submitApiTask(BigdataServlet.java:292)\n\tat com.bigdata.rdf.sail.webapp.QueryServlet.doSparqlQuery(QueryServlet.java:678)\n"
        ),
    )
}

/// WDQS's label service (`SERVICE wikibase:label { bd:serviceParam
/// wikibase:language "en,fr". }`) rewritten as plain SPARQL in its place:
/// each `?xLabel` (`?xDescription`, `?xAltLabel`) the query names, or each
/// `?x rdfs:label ?y` (`schema:description`, `skos:altLabel`) inside the
/// service, is bound to `?x`'s term in the first of the languages that has one;
/// a label falls back to the entity's id (`Q42`), as WDQS does; alt labels are
/// joined with `, ` (in the first language only). A query without the service
/// is returned as it is.
pub fn rewrite_label_service(query: &str) -> String {
    let opening = regex::Regex::new(
        r"(?i)SERVICE\s+(?:wikibase:label|<http://wikiba\.se/ontology#label>)\s*\{",
    )
    .unwrap_or_else(|e| panic!("label service pattern: {e}"));
    let Some(found) = opening.find(query) else {
        return query.to_string();
    };
    // The service's block, braces balanced.
    let mut depth = 1;
    let mut end = None;
    for (i, c) in query[found.end()..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(found.end() + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(end) = end else {
        return query.to_string();
    };
    let inside = &query[found.end()..end];
    let languages: Vec<String> = regex::Regex::new(r#"wikibase:language\s+"([^"]*)""#)
        .ok()
        .and_then(|re| re.captures(inside))
        .map_or_else(
            || vec!["en".to_string()],
            |c| {
                c[1].split(',')
                    .map(|l| l.trim().replace("[AUTO_LANGUAGE]", "en"))
                    .filter(|l| !l.is_empty())
                    .collect()
            },
        );
    // (entity variable, predicate, bound variable)
    let mut wanted: Vec<(String, &str, String)> = Vec::new();
    if let Ok(explicit) =
        regex::Regex::new(r"\?(\w+)\s+(rdfs:label|schema:description|skos:altLabel)\s+\?(\w+)")
    {
        for c in explicit.captures_iter(inside) {
            let predicate = match &c[2] {
                "rdfs:label" => "rdfs:label",
                "schema:description" => "schema:description",
                _ => "skos:altLabel",
            };
            wanted.push((c[1].to_string(), predicate, c[3].to_string()));
        }
    }
    if wanted.is_empty() {
        let rest = format!("{}{}", &query[..found.start()], &query[end + 1..]);
        let variables = regex::Regex::new(r"[?$](\w+)").ok();
        let named: Vec<String> = variables
            .iter()
            .flat_map(|re| re.captures_iter(&rest).map(|c| c[1].to_string()))
            .collect();
        for name in &named {
            for (suffix, predicate) in [
                ("AltLabel", "skos:altLabel"),
                ("Label", "rdfs:label"),
                ("Description", "schema:description"),
            ] {
                if let Some(base) = name.strip_suffix(suffix) {
                    let known = named.iter().any(|n| n == base);
                    let taken = wanted.iter().any(|(_, _, v)| v == name);
                    if known && !taken && !(suffix == "Label" && name.ends_with("AltLabel")) {
                        wanted.push((base.to_string(), predicate, name.clone()));
                    }
                }
            }
        }
    }
    let mut patterns = String::new();
    for (n, (entity, predicate, bound)) in wanted.iter().enumerate() {
        if predicate == &"skos:altLabel" {
            let language = languages.first().map_or("en", String::as_str);
            patterns.push_str(&format!(
                " OPTIONAL {{ SELECT ?{entity} (GROUP_CONCAT(?_alt{n}; separator=\", \") AS ?{bound}) WHERE {{ ?{entity} skos:altLabel ?_alt{n} FILTER(LANG(?_alt{n}) = \"{language}\") }} GROUP BY ?{entity} }}"
            ));
            continue;
        }
        let mut candidates = Vec::new();
        for (l, language) in languages.iter().enumerate() {
            let v = format!("?_term{n}_{l}");
            patterns.push_str(&format!(
                " OPTIONAL {{ ?{entity} {predicate} {v} FILTER(LANG({v}) = \"{language}\") }}"
            ));
            candidates.push(v);
        }
        if predicate == &"rdfs:label" {
            candidates.push(format!(
                "IF(isIRI(?{entity}), STRAFTER(STR(?{entity}), \"http://www.wikidata.org/entity/\"), STR(?{entity}))"
            ));
        }
        if !candidates.is_empty() {
            patterns.push_str(&format!(
                " BIND(COALESCE({}) AS ?{bound})",
                candidates.join(", ")
            ));
        }
    }
    format!(
        "{}{}{}",
        &query[..found.start()],
        patterns,
        &query[end + 1..]
    )
}

/// Evaluates `query` on `store`; a result of more than `limit` rows is a timeout.
/// Blocking (run it off the reactor).
pub(crate) fn answer(
    store: &Store,
    query: &str,
    format_param: Option<&str>,
    accept: Option<&str>,
    limit: Option<usize>,
) -> Answer {
    let mut evaluator = SparqlEvaluator::new();
    for (name, iri) in rdf::PREFIXES {
        evaluator = match evaluator.with_prefix(*name, *iri) {
            Ok(e) => e,
            Err(e) => return text(500, format!("prefix {name}: {e}")),
        };
    }
    let prepared = match evaluator.parse_query(&rewrite_label_service(query)) {
        Ok(p) => p,
        Err(e) => {
            return text(
                400,
                format!(
                    "SPARQL-QUERY: queryStr={query}\njava.util.concurrent.ExecutionException: org.openrdf.query.MalformedQueryException: {e}\n"
                ),
            )
        }
    };
    let results = match prepared.on_store(store).execute() {
        Ok(r) => r,
        Err(e) => {
            return text(
                500,
                format!(
                "SPARQL-QUERY: queryStr={query}\njava.util.concurrent.ExecutionException: {e}\n"
            ),
            )
        }
    };
    let Format::Results(format) = format_of(format_param, accept);
    let limit = limit.unwrap_or(usize::MAX);
    let written: Result<(Vec<u8>, &str), String> = match results {
        QueryResults::Solutions(solutions) => {
            let variables = solutions.variables().to_vec();
            let mut rows = Vec::new();
            for solution in solutions {
                match solution {
                    Ok(s) => rows.push(s),
                    Err(e) => return text(500, format!("SPARQL-QUERY: queryStr={query}\n{e}\n")),
                }
                if rows.len() > limit {
                    return timeout(query);
                }
            }
            (|| {
                let mut writer = QueryResultsSerializer::from_format(format)
                    .serialize_solutions_to_writer(Vec::new(), variables)?;
                for row in &rows {
                    writer.serialize(row)?;
                }
                writer.finish()
            })()
            .map(|body| (body, format.media_type()))
            .map_err(|e| e.to_string())
        }
        QueryResults::Boolean(value) => QueryResultsSerializer::from_format(format)
            .serialize_boolean_to_writer(Vec::new(), value)
            .map(|body| (body, format.media_type()))
            .map_err(|e| e.to_string()),
        QueryResults::Graph(triples) => {
            let mut serializer =
                RdfSerializer::from_format(RdfFormat::Turtle).for_writer(Vec::new());
            let mut count = 0;
            for triple in triples {
                let triple = match triple {
                    Ok(t) => t,
                    Err(e) => return text(500, format!("SPARQL-QUERY: queryStr={query}\n{e}\n")),
                };
                count += 1;
                if count > limit {
                    return timeout(query);
                }
                if let Err(e) = serializer.serialize_triple(&triple) {
                    return text(500, e.to_string());
                }
            }
            serializer
                .finish()
                .map(|body| (body, "text/turtle"))
                .map_err(|e| e.to_string())
        }
    };
    match written {
        Ok((body, media_type)) => Answer {
            status: 200,
            headers: vec![("Content-Type".into(), format!("{media_type};charset=utf-8"))],
            body,
        },
        Err(e) => text(500, e),
    }
}
