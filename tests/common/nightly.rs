//! The command line of `pipelines/nightly-bbc.toml` pointed at a mock Archive,
//! shared by the tests that kill it and fill its disk, and of the pipelines
//! that read the pages it kept with the facts of a mock Wikidata.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use tempora_testkit::MockWikidata;

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

/// `--set KEY=VALUE` added to `args`.
pub fn set(args: &mut Vec<String>, key: &str, value: String) {
    args.push("--set".into());
    args.push(format!("{key}={value}"));
}

/// `tempora run FILE` (a pipeline reading the crawl's pages, as
/// `pipelines/nightly-bbc-sets.toml`) over the WARC files the crawl ([`args`])
/// kept in `dir`, into `out`.
pub fn sets_args(file: &str, dir: &Path, out: &Path) -> Vec<String> {
    let mut args: Vec<String> = vec!["run".into(), file.into(), "--progress".into(), "off".into()];
    set(
        &mut args,
        "pipeline.out",
        format!("{:?}", out.display().to_string()),
    );
    let warc = dir.join("warc/*.warc.gz").display().to_string();
    set(&mut args, "stages.pages.paths", format!("[{warc:?}]"));
    args
}

/// The `facts` stage of `args` (`wikidata-live`) reading `wd` into the reading
/// `dir/wikidata.json.gz`, without pauses, and read again on every run (cron
/// runs it a day apart, a test seconds apart).
pub fn live_facts(args: &mut Vec<String>, dir: &Path, wd: &MockWikidata) {
    let reading = dir.join("wikidata.json.gz").display().to_string();
    for (key, value) in [
        ("stages.facts.reading", format!("{reading:?}")),
        (
            "stages.facts.query_endpoint",
            format!("{:?}", wd.sparql_endpoint()),
        ),
        (
            "stages.facts.api_endpoint",
            format!("{:?}", wd.api_endpoint()),
        ),
        ("stages.facts.query_rate", "60000".into()),
        ("stages.facts.api_rate", "60000".into()),
        ("stages.facts.refresh_after", "\"0s\"".into()),
    ] {
        set(args, key, value);
    }
}

/// `tempora ARGS` from the repository's root with the contact the Archive and
/// Wikidata ask for and the variables `env` (a lab's files).
pub fn tempora(args: &[String], env: &[(&str, PathBuf)]) -> Output {
    super::bin::command(Path::new(env!("CARGO_MANIFEST_DIR")))
        .env("TEMPORA_CONTACT", "tests@example.org")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .args(args)
        .output()
        .unwrap()
}
