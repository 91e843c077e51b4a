//! `tempora extract` without building the whole binary:
//! `cargo run -p tempora-extract --release --example extract -- [--site S] [--url U] FILE.html...`.

use clap::Parser;
use tempora_extract::cli::{run, ExtractArgs};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: ExtractArgs,
}

fn main() -> anyhow::Result<()> {
    run(Cli::parse().args)
}
