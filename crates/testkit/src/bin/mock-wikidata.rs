//! Runs the mock Wikidata (Query Service and Wikibase API) on 127.0.0.1 for
//! manual tests: `mock-wikidata FILE [PORT]`, FILE being JSON lines of
//! entities, a Wikidata JSON dump (or its head), or a `wbgetentities` answer,
//! gzipped or not. Prints the SPARQL and API endpoints and serves until killed.

use std::io::Read as _;

use tempora_testkit::wikidata::read_entities;
use tempora_testkit::MockWikidata;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: mock-wikidata FILE [PORT]");
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
    eprintln!("mock-wikidata: {} entities from {path}", entities.len());
    let server = MockWikidata::start_on(port, entities).await?;
    println!("{}", server.sparql_endpoint());
    println!("{}", server.api_endpoint());
    tokio::signal::ctrl_c().await?;
    eprintln!(
        "mock-wikidata: {} requests served",
        server.log().requests().len()
    );
    Ok(())
}
