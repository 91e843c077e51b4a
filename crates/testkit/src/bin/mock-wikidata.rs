//! Runs the mock Wikidata (Query Service and Wikibase API) on 127.0.0.1 for
//! manual tests: `mock-wikidata FILE [PORT]`, FILE being JSON lines of
//! entities, a Wikidata JSON dump (or its head), or a `wbgetentities` answer,
//! gzipped or not. Prints the SPARQL and API endpoints and serves until killed.
//! `--lean` (anywhere): the query service leaves out external ids and
//! references (`Rdf::Lean`), for a model of 100,000 entities of real size.

use std::io::Read as _;

use tempora_testkit::wikidata::rdf::Rdf;
use tempora_testkit::wikidata::read_entities;
use tempora_testkit::MockWikidata;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let rdf = if all.iter().any(|a| a == "--lean") {
        Rdf::Lean
    } else {
        Rdf::Whole
    };
    let mut args = all.into_iter().filter(|a| a != "--lean");
    let Some(path) = args.next() else {
        eprintln!("usage: mock-wikidata FILE [PORT] [--lean]");
        std::process::exit(2);
    };
    let port: u16 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let raw = std::fs::read(&path)?;
    let text = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(raw.as_slice()).read_to_string(&mut text)?;
        text
    } else {
        String::from_utf8_lossy(&raw).into_owned()
    };
    let entities = read_entities(&text);
    drop(text); // A model of 100,000 entities: the text is gigabytes.
    eprintln!("mock-wikidata: {} entities from {path}", entities.len());
    let server = MockWikidata::start_with(port, entities, rdf).await?;
    println!("{}", server.sparql_endpoint());
    println!("{}", server.api_endpoint());
    tokio::signal::ctrl_c().await?;
    eprintln!(
        "mock-wikidata: {} requests served",
        server.log().requests().len()
    );
    Ok(())
}
