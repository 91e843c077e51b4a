//! Runs the mock Wayback Machine on 127.0.0.1 with a synthetic news site, for
//! benchmarks and manual tests: `mock-wayback [ARTICLES] [PAGE_BYTES]`.
//! Prints the endpoint on the first line and serves until killed.

use chrono::NaiveDate;
use tempora_testkit::{synthetic, Corpus, MockWayback};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let size: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let start = NaiveDate::from_ymd_opt(2015, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or_default();
    let corpus = Corpus::new(
        synthetic::articles(count, start, 7)
            .iter()
            .map(|a| synthetic::article_capture(a, 30, size)),
    );
    let server = MockWayback::start(corpus).await?;
    println!("{}", server.endpoint());
    tokio::signal::ctrl_c().await?;
    eprintln!(
        "mock-wayback: {} requests served",
        server.log().requests().len()
    );
    Ok(())
}
