//! The command line of `pipelines/nightly-bbc.toml` pointed at a mock Archive,
//! shared by the tests that kill it and fill its disk.

#![allow(dead_code)]

use std::path::Path;

/// `tempora run pipelines/nightly-bbc.toml` with the Archive at `endpoint` (its
/// rates off: the mock answers at once), the crawl state and WARC files in `dir`
/// and the outputs in `out`.
pub fn args(endpoint: &str, dir: &Path, out: &Path) -> Vec<String> {
    let state = dir.join("state.sqlite").display().to_string();
    let mut args: Vec<String> = ["run", "pipelines/nightly-bbc.toml", "--progress", "off"]
        .map(String::from)
        .into();
    for (key, value) in [
        ("pipeline.out", out.display().to_string()),
        ("stages.captures.archive.endpoint", endpoint.to_string()),
        ("stages.captures.state", state.clone()),
        ("stages.wanted.state", state.clone()),
        ("stages.pages.state", state),
        (
            "stages.pages.warc_out",
            dir.join("warc").display().to_string(),
        ),
    ] {
        args.push("--set".into());
        args.push(format!("{key}={value:?}"));
    }
    for rate in ["cdx_rate", "playback_rate"] {
        args.push("--set".into());
        args.push(format!("stages.captures.archive.{rate}=0"));
    }
    args
}
