//! Scores extraction against a folder of pages with known answers:
//! `cargo run -p tempora-extract --release --example eval -- ../shared/fixtures/pages`.

use clap::Parser;
use tempora_extract::cli::{run_eval, EvalArgs};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: EvalArgs,
}

fn main() -> anyhow::Result<()> {
    run_eval(Cli::parse().args)
}
