//! The `wikidata-live` stage and `tempora facts --live`, run as a user runs
//! them, against the testkit's model of Wikidata's services on 127.0.0.1: a run
//! pins its reading (its SHA-256 in `run.json`'s inputs), a rerun
//! reads the pin and sends nothing, a refresh whose services fail completes
//! with the last reading's facts and exit 23, and the dry run states the
//! queries and reads without sending one.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tempora_testkit::{Fault, FaultRule, MockWikidata, Target};

/// The demo's 17 entities, served by the model.
async fn services() -> MockWikidata {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/wikidata/tests/fixtures/demo-dump.json"),
    )
    .unwrap();
    MockWikidata::start(tempora_testkit::wikidata::read_entities(&text))
        .await
        .unwrap()
}

/// A pipeline in `dir` that writes the live facts to `facts.jsonl`.
fn pipeline(dir: &Path, wd: &MockWikidata) -> PathBuf {
    let path = dir.join("live.toml");
    std::fs::write(
        &path,
        format!(
            r#"[pipeline]
name = "live"
cutoff = 2019-12-31
out = "{out}"

[stages.facts]
kind = "wikidata-live"
reading = "{reading}"
contact = "tests@example.org"
query_endpoint = "{query}"
api_endpoint = "{api}"
query_rate = 60000
api_rate = 60000

[stages.write]
kind = "jsonl"
inputs = ["facts"]
path = "facts.jsonl"
"#,
            out = dir.join("out").display(),
            reading = dir.join("state/wd.json.gz").display(),
            query = wd.sparql_endpoint(),
            api = wd.api_endpoint(),
        ),
    )
    .unwrap();
    path
}

async fn tempora(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_tempora"))
            .env("RUST_LOG", "warn")
            .args(&args)
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn run_args(file: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "run".to_string(),
        file.display().to_string(),
        "--progress".into(),
        "off".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn run_json(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("out/run.json")).unwrap()).unwrap()
}

/// The lines of a JSONL file, sorted.
fn lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

#[tokio::test]
async fn a_run_pins_its_reading_and_a_rerun_reads_the_pin_not_the_services() {
    let wd = services().await;
    let dir = tempfile::tempdir().unwrap();
    let file = pipeline(dir.path(), &wd);
    let out = tempora(run_args(&file, &[])).await;
    assert!(out.status.success(), "{}", said(&out));
    let facts = std::fs::read(dir.path().join("out/facts.jsonl")).unwrap();
    assert!(!facts.is_empty());
    // The same facts as the demo's dump gives (the same entities).
    let dump = dir.path().join("dump-facts.jsonl");
    let read = tempora(vec![
        "facts".into(),
        "pipelines/demo/wikidata.json.gz".into(),
        "-q".into(),
        "-o".into(),
        dump.display().to_string(),
    ])
    .await;
    assert!(read.status.success(), "{}", said(&read));
    assert_eq!(lines(&dir.path().join("out/facts.jsonl")), lines(&dump));
    // run.json: the reading, its SHA-256 as an input, the requests as cost.
    let run = run_json(dir.path());
    let stage = &run["stages"][0];
    let reading = &stage["metrics"]["reading"];
    assert_eq!(reading["refreshed"], true);
    let input = run["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["option"] == "reading")
        .expect("the reading is among the inputs");
    assert_eq!(input["sha256"], reading["sha256"]);
    assert!(
        run["cost"].to_string().contains("wikidata_query"),
        "{}",
        run["cost"]
    );
    // The facts per relation, counted as the dump's stage counts them.
    let per_relation = ["P39", "P1308"].map(|r| stage["counters"][format!("facts {r}")].as_u64());
    assert_eq!(
        per_relation.iter().flatten().sum::<u64>(),
        stage["counters"]["facts"].as_u64().unwrap(),
        "{}",
        stage["counters"]
    );
    assert!(stage["metrics"]["relations"]["P1308"]["statements"].as_u64() > Some(0));

    // A rerun reads the pin: not one request, the same bytes.
    wd.log().clear();
    let again = tempora(run_args(&file, &[])).await;
    assert!(again.status.success(), "{}", said(&again));
    assert!(wd.log().requests().is_empty(), "{:?}", wd.log().requests());
    assert_eq!(
        std::fs::read(dir.path().join("out/facts.jsonl")).unwrap(),
        facts
    );
    assert_eq!(
        run_json(dir.path())["stages"][0]["metrics"]["reading"]["refreshed"],
        false
    );
}

#[tokio::test]
async fn a_refresh_the_services_refuse_completes_with_the_last_facts_and_says_so() {
    let wd = services().await;
    let dir = tempfile::tempdir().unwrap();
    let file = pipeline(dir.path(), &wd);
    let first = tempora(run_args(&file, &[])).await;
    assert!(first.status.success(), "{}", said(&first));
    let facts = std::fs::read(dir.path().join("out/facts.jsonl")).unwrap();
    let reading = std::fs::read(dir.path().join("state/wd.json.gz")).unwrap();
    // The query service answers an error page from now on.
    wd.add_fault(FaultRule::new(Target::Sparql, Fault::ErrorPage200, 1000));
    let refresh = tempora(run_args(
        &file,
        &["--set", "stages.facts.refresh_after=\"0s\""],
    ))
    .await;
    let text = said(&refresh);
    assert_eq!(refresh.status.code(), Some(23), "{text}");
    assert!(
        text.contains("the facts are those of the reading of"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("out/facts.jsonl")).unwrap(),
        facts
    );
    assert_eq!(
        std::fs::read(dir.path().join("state/wd.json.gz")).unwrap(),
        reading
    );
    let run = run_json(dir.path());
    assert!(
        run["warnings"].to_string().contains("could not be read"),
        "{}",
        run["warnings"]
    );

    // `tempora facts --live` falls back the same way, and says so.
    let cli = tempora(vec![
        "facts".into(),
        "--live".into(),
        "--reading".into(),
        dir.path().join("state/wd.json.gz").display().to_string(),
        "--contact".into(),
        "tests@example.org".into(),
        "--query-endpoint".into(),
        wd.sparql_endpoint(),
        "--api-endpoint".into(),
        wd.api_endpoint(),
        "-o".into(),
        dir.path().join("cli.jsonl").display().to_string(),
    ])
    .await;
    assert_eq!(cli.status.code(), Some(23), "{}", said(&cli));
    assert_eq!(
        lines(&dir.path().join("cli.jsonl")),
        lines(&dir.path().join("out/facts.jsonl"))
    );
}

#[tokio::test]
async fn the_dry_run_states_queries_and_reads_and_sends_nothing() {
    let wd = services().await;
    let dir = tempfile::tempdir().unwrap();
    let file = pipeline(dir.path(), &wd);
    let dry = tempora(run_args(&file, &["--dry-run"])).await;
    let text = said(&dry);
    assert!(dry.status.success(), "{text}");
    for expected in [
        "Wikidata query",
        "Wikidata API",
        "tests@example.org",
        "no reading yet",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(wd.log().requests().is_empty());
    // Without a contact the stage is refused, naming the key.
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("contact = \"tests@example.org\"\n", "");
    std::fs::write(&file, text).unwrap();
    let refused = tempora(vec!["validate".into(), file.display().to_string()]).await;
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    assert!(
        said(&refused).contains("stages.facts.contact"),
        "{}",
        said(&refused)
    );
}
