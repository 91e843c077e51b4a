//! Writes a `.warc.gz` from a directory of HTML files and a manifest, for an
//! offline demo that the `warc` stage reads like a crawl:
//!
//! `cargo run -p tempora-wayback --features testing --example make_warc -- DIR MANIFEST.jsonl OUT.warc.gz`
//!
//! See `tempora_wayback::makewarc` for the manifest format.

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [dir, manifest, out] = args.as_slice() else {
        anyhow::bail!("usage: make_warc DIR MANIFEST.jsonl OUT.warc.gz");
    };
    let n = tempora_wayback::makewarc::warc_from_dir(dir, manifest, out)?;
    println!("{}: {n} pages", out.display());
    Ok(())
}
