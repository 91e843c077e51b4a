//! The shipped TempoSum pipelines (`temposum-bbc`, `temposum-cnn`) as the
//! tests run them against the testkit's Archive models, and their published
//! files as the tests compare them.
//! Shared by the `rerun`, `rebuild` and `input_order_temposum` tests (each test
//! binary uses a part).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tempora_testkit::newssite::cnn::CnnSite;
use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};
use tempora_testkit::Corpus;

/// The shipped CNN pipeline file.
const CNN_SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pipelines/temposum-cnn.toml");

/// A site's model and the files its shipped pipeline reads, built once.
pub struct Lab {
    /// The shipped pipeline file.
    pub shipped: &'static str,
    /// The model's captures.
    pub corpus: Corpus,
    /// The facts (`facts.jsonl`), exclusion lists and training summaries.
    pub files: tempfile::TempDir,
    /// The variables the pipeline's `${...}` name, each with its file or folder in `files`.
    pub env: Vec<(&'static str, PathBuf)>,
}

/// The BBC model: facts, XSum's split, training summaries (every other model
/// summary, so overlaps vary).
pub fn bbc() -> &'static Lab {
    static LAB: OnceLock<Lab> = OnceLock::new();
    LAB.get_or_init(|| bbc_lab(NewsSite::build(&NewsSiteSpec::default())))
}

/// The lab of a BBC model `site` (as [`bbc`] makes of the default one).
pub fn bbc_lab(site: NewsSite) -> Lab {
    let files = tempfile::tempdir().unwrap();
    std::fs::write(files.path().join("facts.jsonl"), &site.facts).unwrap();
    let split = files.path().join("xsum-split.json");
    std::fs::write(&split, &site.xsum_split).unwrap();
    let train: String = site
        .articles
        .iter()
        .step_by(2)
        .map(|a| format!("{}\n", a.summary))
        .collect();
    let summaries = files.path().join("train.txt");
    std::fs::write(&summaries, train).unwrap();
    Lab {
        shipped: super::crawl_model::SHIPPED,
        corpus: site.corpus,
        files,
        env: vec![("XSUM_SPLIT", split), ("XSUM_TRAIN_SUMMARIES", summaries)],
    }
}

/// The CNN model: facts, CNN/DailyMail's URL lists, training highlights as in
/// its Hugging Face split (JSONL, field `highlights`; every other model summary).
pub fn cnn() -> &'static Lab {
    static LAB: OnceLock<Lab> = OnceLock::new();
    LAB.get_or_init(|| {
        let site = CnnSite::build(&NewsSiteSpec::default());
        let files = tempfile::tempdir().unwrap();
        std::fs::write(files.path().join("facts.jsonl"), &site.facts).unwrap();
        let lists = files.path().join("url_lists");
        std::fs::create_dir(&lists).unwrap();
        site.url_lists.write_to(&lists).unwrap();
        let train: String = site
            .articles
            .iter()
            .step_by(2)
            .map(|a| {
                let record = serde_json::json!({ "article": a.lead, "highlights": a.summary() });
                format!("{record}\n")
            })
            .collect();
        let summaries = files.path().join("train.jsonl");
        std::fs::write(&summaries, train).unwrap();
        Lab {
            shipped: CNN_SHIPPED,
            corpus: site.corpus,
            files,
            env: vec![
                ("CNNDM_URL_LISTS", lists),
                ("CNNDM_TRAIN_SUMMARIES", summaries),
            ],
        }
    })
}

impl Lab {
    /// The same lab with its files' lines in the order `keys` gives: the facts,
    /// the exclusion lists (XSum's split: each of its lists) and the training
    /// summaries.
    pub fn permuted(&self, keys: &[u64]) -> Lab {
        let files = tempfile::tempdir().unwrap();
        permute_files(self.files.path(), files.path(), keys);
        let env = self
            .env
            .iter()
            .map(|(name, path)| {
                let rel = path.strip_prefix(self.files.path()).unwrap();
                (*name, files.path().join(rel))
            })
            .collect();
        Lab {
            shipped: self.shipped,
            corpus: self.corpus.clone(),
            files,
            env,
        }
    }
}

/// Each file under `from` written under `to` with its lines, or a JSON file's
/// lists, in another order.
fn permute_files(from: &Path, to: &Path, keys: &[u64]) {
    for entry in std::fs::read_dir(from).unwrap().map(Result::unwrap) {
        let (path, target) = (entry.path(), to.join(entry.file_name()));
        if path.is_dir() {
            std::fs::create_dir(&target).unwrap();
            permute_files(&path, &target, keys);
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let permuted = if path.extension().is_some_and(|e| e == "json") {
            super::order::permute_xsum_split(&text, keys)
        } else {
            super::order::permute_lines(&text, keys)
        };
        std::fs::write(target, permuted).unwrap();
    }
}

/// The lab's shipped pipeline, its facts read from the model's JSONL (no dump)
/// and its Archive the mock at `endpoint` (rates off, two attempts a page),
/// with state, WARC files and outputs relative to the folder it runs in (so two
/// folders give comparable files).
pub fn pipeline(lab: &Lab, endpoint: &str) -> String {
    pipeline_listing(lab, endpoint, None)
}

/// [`pipeline`], its CDX requests asking for `limit` rows each when given
/// (small pages: each listing on several pages).
pub fn pipeline_listing(lab: &Lab, endpoint: &str, limit: Option<usize>) -> String {
    let text = std::fs::read_to_string(lab.shipped).unwrap();
    let mut file: toml::Table = toml::from_str(&text).unwrap();
    let facts = lab.files.path().join("facts.jsonl");
    let stages = file["stages"].as_table_mut().unwrap();
    let mut source = toml::toml! { kind = "jsonl-source" record = "fact" };
    source.insert("paths".into(), vec![facts.display().to_string()].into());
    stages.insert("facts".into(), source.into());
    for (_, stage) in stages.iter_mut() {
        let stage = stage.as_table_mut().unwrap();
        if stage.contains_key("state") {
            stage.insert("state".into(), "state/crawl.sqlite".into());
        }
        if stage.contains_key("warc_out") {
            stage.insert("warc_out".into(), "state/warc".into());
        }
    }
    let mut archive = toml::toml! {
        cdx_rate = 0
        playback_rate = 0
        max_attempts = 2
        backoff = "10ms"
        max_backoff = "20ms"
    };
    archive.insert("endpoint".into(), endpoint.into());
    let captures = stages["captures"].as_table_mut().unwrap();
    captures.insert("archive".into(), archive.into());
    if let Some(limit) = limit {
        captures.insert("limit".into(), i64::try_from(limit).unwrap().into());
    }
    stages["pages"]
        .as_table_mut()
        .unwrap()
        .insert("concurrency".into(), 4.into());
    file["pipeline"]["out"] = "out".into();
    toml::to_string(&file).unwrap()
}

/// Runs the lab's shipped pipeline ([`pipeline`]) against the mock at `endpoint`
/// in `dir` (outputs in `dir/out`), and checks that it exits 0.
pub fn run_shipped(lab: &Lab, endpoint: &str, dir: &Path) {
    run_shipped_listing(lab, endpoint, dir, None);
}

/// [`run_shipped`] with CDX pages of `limit` rows when given ([`pipeline_listing`]).
pub fn run_shipped_listing(lab: &Lab, endpoint: &str, dir: &Path, limit: Option<usize>) {
    run_shipped_file(lab, &pipeline_listing(lab, endpoint, limit), dir);
}

/// Runs the pipeline `text` (the lab's, changed by the caller) in `dir` with the
/// lab's variables, and checks that it exits 0.
pub fn run_shipped_file(lab: &Lab, text: &str, dir: &Path) {
    std::fs::write(dir.join("pipeline.toml"), text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tempora"))
        .current_dir(dir)
        .args(["run", "pipeline.toml", "--progress", "off"])
        .envs(lab.env.iter().map(|(k, v)| (k, v)))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every published file of the output folder `out`, by path, but hidden files
/// and those named in `skip`; the card without its release section (the run
/// that wrote it: its name, time, commit and requests).
pub fn published(out: &Path, skip: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    collect(out, out, skip, &mut files);
    if let Some(card) = files.get_mut("README.md") {
        let text = String::from_utf8_lossy(card).into_owned();
        let mut in_release = false;
        *card = text
            .lines()
            .filter(|l| {
                if l.starts_with("## ") {
                    in_release = *l == "## Release";
                }
                !in_release
            })
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes();
    }
    files
}

fn collect(root: &Path, dir: &Path, skip: &[&str], files: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.map(Result::unwrap) {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, skip, files);
        } else if !skip.contains(&name.as_str()) {
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            files.insert(rel, std::fs::read(&path).unwrap());
        }
    }
}
