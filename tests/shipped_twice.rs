//! Every pipeline in `pipelines/` runs twice in a row, as a user reruns it, and
//! the second run exits 0 with the outputs the file documents. Each runs in a
//! folder of its own holding a copy of `pipelines/` (so its relative paths, the
//! demo's inputs, `out/` and `state/`, are as from a clone), with the
//! environment variables its header documents pointing at the testkit's models:
//! the Archive (BBC and CNN), Wikidata's dump and live services. Besides those
//! variables, a run is told only where the services are and to send at once.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempora_testkit::{Corpus, MockWayback, MockWikidata};

use common::temposum::{bbc, cnn};
use common::tree::tree;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The testkit's services, and the files the pipelines' variables name.
struct Models {
    archive: MockWayback,
    wikidata: MockWikidata,
    files: tempfile::TempDir,
}

impl Models {
    async fn start() -> Self {
        let (bbc, cnn) = (bbc(), cnn());
        let both = bbc.corpus.rows().iter().chain(cnn.corpus.rows());
        let archive = MockWayback::start(Corpus::new(both.map(|(_, c)| c.clone())))
            .await
            .unwrap();
        // With every relation the shipped pipelines name.
        let entities = common::wikidata::entities();
        let files = tempfile::tempdir().unwrap();
        let lines: Vec<String> = entities.iter().map(ToString::to_string).collect();
        let dump = format!("[\n{}\n]\n", lines.join(",\n"));
        std::fs::write(files.path().join("wikidata.json"), dump).unwrap();
        let wikidata = MockWikidata::start(entities).await.unwrap();
        Self {
            archive,
            wikidata,
            files,
        }
    }

    /// The value of the environment variable `name` a pipeline documents.
    fn variable(&self, name: &str) -> String {
        let lab_file = |lab: &common::temposum::Lab| {
            lab.env
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, p)| p.display().to_string())
        };
        match name {
            "WIKIDATA_DUMP" => self
                .files
                .path()
                .join("wikidata.json")
                .display()
                .to_string(),
            "TEMPORA_CONTACT" => "tests@example.org".to_string(),
            _ => lab_file(bbc())
                .or_else(|| lab_file(cnn()))
                .unwrap_or_else(|| panic!("no model gives ${name}")),
        }
    }

    /// Where the services are, and no pause between requests: `--set` overrides
    /// for each stage of `file` that reads one.
    fn services(&self, file: &toml::Table) -> Vec<String> {
        let mut set = Vec::new();
        for (name, stage) in file["stages"].as_table().unwrap() {
            match stage["kind"].as_str().unwrap() {
                "wayback-cdx" | "wayback-feeds" => {
                    let archive = format!("stages.{name}.archive");
                    set.push(format!("{archive}.endpoint={:?}", self.archive.endpoint()));
                    set.push(format!("{archive}.cdx_rate=0"));
                    set.push(format!("{archive}.playback_rate=0"));
                }
                "wikidata-live" => {
                    let wd = &self.wikidata;
                    set.push(format!(
                        "stages.{name}.query_endpoint={:?}",
                        wd.sparql_endpoint()
                    ));
                    set.push(format!(
                        "stages.{name}.api_endpoint={:?}",
                        wd.api_endpoint()
                    ));
                    set.push(format!("stages.{name}.query_rate=60000"));
                    set.push(format!("stages.{name}.api_rate=60000"));
                }
                _ => {}
            }
        }
        set
    }
}

/// The variables a pipeline file uses (`${NAME}`), each of which its header
/// must document.
fn variables(text: &str) -> BTreeSet<String> {
    let header: String = text
        .lines()
        .take_while(|l| l.starts_with('#') || l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let used: BTreeSet<String> = text
        .split("${")
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
        .collect();
    for name in &used {
        assert!(
            header.contains(name.as_str()),
            "${name} is used but not documented in the file's header"
        );
    }
    used
}

/// A folder of its own with a copy of the repository's `pipelines/`.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(ROOT).join("pipelines"),
        &home.path().join("pipelines"),
    );
    home
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().map(Result::unwrap) {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// `tempora run pipelines/NAME.toml` in `home`, with the variables it documents
/// and the services' overrides, and `extra` arguments.
fn run(models: &Models, home: &Path, name: &str, extra: &[&str]) -> Output {
    let path = format!("pipelines/{name}.toml");
    let text = std::fs::read_to_string(home.join(&path)).unwrap();
    let file: toml::Table = toml::from_str(&text).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(home)
        .env("RUST_LOG", "warn")
        .args(["run", &path, "--progress", "off"]);
    for name in variables(&text) {
        cmd.env(&name, models.variable(&name));
    }
    for value in models.services(&file) {
        cmd.args(["--set", &value]);
    }
    cmd.args(extra).output().unwrap()
}

/// Runs `name` twice in `home`; both must exit 0, and the second must leave the
/// documented `outputs` (under the file's `pipeline.out`), non-empty.
fn twice(models: &Models, home: &Path, name: &str, extra: &[&str], outputs: &[&str]) {
    for attempt in ["first", "second"] {
        let o = run(models, home, name, extra);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}, {attempt} run:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let text = std::fs::read_to_string(home.join(format!("pipelines/{name}.toml"))).unwrap();
    let file: toml::Table = toml::from_str(&text).unwrap();
    let out: PathBuf = home.join(file["pipeline"]["out"].as_str().unwrap());
    for output in outputs {
        let path = out.join(output);
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{name}: {} is missing or empty", path.display());
    }
}

/// The pipelines this test runs are every file of `pipelines/`: a new one must
/// be added here.
#[test]
fn every_shipped_pipeline_is_run_here() {
    let shipped: BTreeSet<String> = std::fs::read_dir(Path::new(ROOT).join("pipelines"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let tested: BTreeSet<String> = [
        "demo",
        "temposum-bbc",
        "temposum-cnn",
        "future-2024",
        "nightly-bbc",
        "nightly-bbc-sets",
        "monthly-bbc",
    ]
    .map(String::from)
    .into();
    assert_eq!(shipped, tested);
}

const SETS: [&str; 5] = [
    "in_distribution.jsonl",
    "future.jsonl",
    "in_distribution.parquet",
    "future.parquet",
    "facts.jsonl",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_and_the_temposum_pipelines_run_twice() {
    let models = Models::start().await;
    let demo = [&SETS[..], &["pairs.jsonl", "README.md", "manifest.jsonl"]].concat();
    twice(&models, home().path(), "demo", &[], &demo);
    let temposum = [&SETS[..], &["README.md", "manifest.jsonl"]].concat();
    twice(&models, home().path(), "temposum-bbc", &[], &temposum);
    twice(&models, home().path(), "temposum-cnn", &[], &temposum);
}

/// `future-2024` is incremental: its sets accumulate night after night, and its
/// facts, read whole each night, are the night's. The models' facts changed in
/// 2020 and 2021, so it runs with the cutoff the file shows how to move, and
/// the in-distribution set's start before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_incremental_future_set_runs_twice() {
    let models = Models::start().await;
    let cutoff = [
        "--set",
        "pipeline.cutoff=2019-12-31",
        "--set",
        "pipeline.sets.in_distribution.from=2016-01-01",
    ];
    let home = home();
    let sets = ["in_distribution.jsonl", "future.jsonl", "facts.jsonl"];
    twice(&models, home.path(), "future-2024", &cutoff, &sets);
    // Each night's new articles as Parquet: the first night's hold them all.
    let runs = home.path().join("out/future-2024/runs");
    let nights: Vec<PathBuf> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(nights.len(), 2, "{nights:?}");
    // Each night's file is there, a night with nothing new published empty.
    let mut rows: Vec<u64> = nights
        .iter()
        .map(|n| tempora_sink::release::rows(&n.join("future.parquet")).unwrap())
        .collect();
    rows.sort_unstable();
    assert!(
        rows[0] == 0 && rows[1] > 0,
        "only the first night has new articles: {rows:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nightly_crawl_and_its_sets_run_twice() {
    let models = Models::start().await;
    let home = home();
    twice(
        &models,
        home.path(),
        "nightly-bbc",
        &[],
        &["articles.jsonl"],
    );
    let sets = [&SETS[..], &["README.md", "manifest.jsonl"]].concat();
    twice(&models, home.path(), "nightly-bbc-sets", &[], &sets);
    monthly_twice(&models, home.path());
}

/// `monthly-bbc` on the nightly crawl's pages, as its header says: the key made
/// once, then the release of the month before the run's. Run again, the
/// release is out: the second run is refused (exit 2), naming it, and leaves
/// every file of the release as it was.
fn monthly_twice(models: &Models, home: &Path) {
    std::fs::write(home.join("state/monthly-bbc.key"), [7u8; 32]).unwrap();
    let as_of = ["--as-of", "2021-02-15"];
    let first = run(models, home, "monthly-bbc", &as_of);
    let said = |o: &Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    assert_eq!(first.status.code(), Some(0), "{}", said(&first));
    let out = home.join("out/monthly-bbc");
    let release = out.join("2021-01");
    for file in [
        "release.json",
        "run.json",
        "withheld.json",
        "manifest.jsonl",
    ] {
        assert!(release.join(file).is_file(), "{file}: {}", said(&first));
    }
    assert!(out.join("README.md").is_file(), "the collection's card");
    let before = tree(&release);
    let second = run(models, home, "monthly-bbc", &as_of);
    assert_eq!(second.status.code(), Some(2), "{}", said(&second));
    assert!(
        said(&second).contains("release 2021-01 is out"),
        "{}",
        said(&second)
    );
    assert_eq!(tree(&release), before, "the release changed");
}
