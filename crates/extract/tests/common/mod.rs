//! Helpers shared by the integration tests: our fixture pages, their manifest, and
//! running the `extract` stage on them.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use tempora_engine::testing::{context, run_stage, StageOutput};
use tempora_records::{Capture, Page, Record};

/// What the manifest says about one fixture page.
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    pub url: String,
    pub timestamp: String,
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The manifest, file -> entry, in file order.
pub fn manifest() -> BTreeMap<String, Entry> {
    let text = std::fs::read_to_string(fixtures().join("manifest.json")).unwrap();
    let raw: BTreeMap<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    raw.into_iter()
        .filter(|(k, _)| !k.starts_with('_'))
        .map(|(k, v)| (k, serde_json::from_value(v).unwrap()))
        .collect()
}

/// A fetched page as the crawler would emit it.
pub fn page(body: Vec<u8>, url: &str, timestamp: &str, content_type: Option<&str>) -> Record {
    Record::Page(Box::new(Page {
        capture: Capture {
            url: url.to_string(),
            timestamp: timestamp.parse().unwrap(),
            status: Some(200),
            mime: "text/html".into(),
            digest: "SHA1".into(),
            length: None,
            source: "pages".into(),
        },
        body,
        content_type: content_type.map(str::to_string),
        final_url: url.to_string(),
        memento_datetime: None,
    }))
}

/// The fixture `file` (a manifest key) as a page record.
pub fn fixture_page(file: &str) -> Record {
    let entry = manifest()
        .remove(file)
        .unwrap_or_else(|| panic!("{file} not in manifest"));
    let body = std::fs::read(fixtures().join(file)).unwrap();
    page(body, &entry.url, &entry.timestamp, None)
}

/// An `extract` stage configured from TOML options.
pub fn configure(
    options: &str,
) -> Result<Box<dyn tempora_engine::StageConfig>, Vec<tempora_engine::OptionError>> {
    let kind = tempora_extract::kinds()
        .into_iter()
        .find(|k| k.name == "extract")
        .unwrap();
    let table: toml::Table = toml::from_str(options).unwrap();
    let dir = tempfile::tempdir().unwrap();
    (kind.configure)(table, &context(dir.path()))
}

/// Runs the stage with `options` on `input`.
pub async fn run(options: &str, input: Vec<Record>) -> StageOutput {
    let config = configure(options).unwrap_or_else(|e| panic!("{e:?}"));
    let dir = tempfile::tempdir().unwrap();
    run_stage(config, &context(dir.path()), input, HashMap::new())
        .await
        .unwrap()
}

/// The articles of a stage output.
pub fn articles(out: &StageOutput) -> Vec<tempora_records::Article> {
    out.out()
        .iter()
        .map(|r| match r {
            Record::Article(a) => (**a).clone(),
            other => panic!("not an article: {other:?}"),
        })
        .collect()
}
