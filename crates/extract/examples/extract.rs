//! Extraction through the library, without building the `tempora` binary: the
//! shipped site profiles chosen by URL, each profile's own summary fallback, one
//! Article JSON line per page on stdout, each rejection on stderr.
//! `cargo run -p tempora-extract --release --example extract -- [--url U] [--captured T] FILE.html...`
//! (`tempora extract` has every option).

use std::error::Error;

use tempora_extract::{load_profiles, Extractor, PageInput};
use tempora_records::Timestamp;

const USAGE: &str = "usage: extract [--url URL] [--captured TIMESTAMP] FILE.html...";

fn main() -> Result<(), Box<dyn Error>> {
    let (mut url, mut captured, mut files) = (String::new(), None, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--url" => url = args.next().ok_or(USAGE)?,
            "--captured" => captured = Some(args.next().ok_or(USAGE)?.parse::<Timestamp>()?),
            _ => files.push(arg),
        }
    }
    if files.is_empty() || (files.len() > 1 && !(url.is_empty() && captured.is_none())) {
        return Err(USAGE.into());
    }
    let extractor = Extractor::new(load_profiles(None)?, None, None, 100)?;
    for file in &files {
        let html = tempora_extract::charset::decode_html(&std::fs::read(file)?, None);
        let page = PageInput {
            html: &html,
            url: &url,
            captured,
        };
        match extractor.extract(page) {
            Ok(x) => println!("{}", serde_json::to_string(&x.article)?),
            Err(r) => eprintln!("{file}: rejected: {}", r.reason),
        }
    }
    Ok(())
}
