//! `tempora facts` without building the whole binary (the binary links polars):
//! `cargo run -p tempora-wikidata --release --example facts -- DUMP -o facts.jsonl`.

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "facts",
    about = "Read the evolving facts of a Wikidata dump into JSONL"
)]
struct Cli {
    #[command(flatten)]
    args: tempora_wikidata::cli::FactsArgs,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = tempora_wikidata::cli::run(cli.args) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
