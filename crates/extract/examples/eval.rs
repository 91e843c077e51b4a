//! Scores extraction against a folder of pages with known answers, through the
//! library (the shipped profiles, `description` for pages without a summary):
//! `cargo run -p tempora-extract --release --example eval -- PAGES_DIR` (one folder
//! per site, each with an `expected.json`: file name -> url, title, published, summary)
//! (`tempora eval-extract` has every option).

use std::error::Error;
use std::path::PathBuf;

use tempora_extract::eval::evaluate;
use tempora_extract::SummaryFallback;

fn main() -> Result<(), Box<dyn Error>> {
    let dir: PathBuf = std::env::args().nth(1).ok_or("usage: eval DIR")?.into();
    let report = evaluate(&dir, None, SummaryFallback::Description, 100)?;
    print!("{}", report.to_markdown());
    Ok(())
}
