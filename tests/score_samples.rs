//! `tempora score` on lm-evaluation-harness samples files (`--log_samples`), as
//! the harness writes them for the demo's sets: one file per task, a results
//! file per run that names the model, one line per document and filter. The
//! files are written here in the harness's shape (`doc` is the set's row as the
//! harness read it, dates with a time after them), so no Python is needed.

mod common;

use std::path::{Path, PathBuf};

use common::bin::tempora_in;
use common::demo::run_into;
use common::jsonl::lines;
use common::said::said;
use serde_json::{json, Value};
use tempora_score::tables::Summary;

/// The run's date, as the harness names its files.
const DATE: &str = "2026-11-29T10-14-36.472379";

/// The demo run into `dir/out`: its output folder.
fn demo(dir: &Path) -> PathBuf {
    let out = dir.join("out");
    run_into(&out, &[]);
    out
}

/// The articles of a set file of the demo, as the harness's `doc`: the row, its
/// date read back with a time (as `datasets` reads dates from JSON).
fn docs(out: &Path, set: &str) -> Vec<Value> {
    let mut docs = lines(&out.join(format!("{set}.jsonl")));
    for doc in &mut docs {
        let day = doc["published"].as_str().unwrap().to_string();
        doc["published"] = json!(format!("{day} 00:00:00"));
    }
    docs
}

/// One line of samples, its keys in the harness's order.
fn sample(doc_id: usize, doc: &Value, resps: Value, filtered: Value, filter: &str) -> String {
    json!({
        "doc_id": doc_id,
        "doc": doc,
        "target": doc["summary"].as_str().map(str::to_string),
        "arguments": {"gen_args_0": {"arg_0": "Summarize the article.", "arg_1": {"until": ["\n\n"]}}},
        "resps": resps,
        "filtered_resps": filtered,
        "filter": filter,
        "metrics": ["bypass"],
        "doc_hash": "0",
        "prompt_hash": "0",
        "target_hash": "0",
        "bypass": null,
    })
    .to_string()
}

/// Writes `lines` as `dir/name`: its path.
fn write(dir: &Path, name: &str, lines: &[String]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.display().to_string()
}

/// The harness's folder of one run of the model `org/Model-7B` on the demo's
/// two sets: the future set's samples (a stale summary and an empty response),
/// the in-distribution set's (two repeats, unfiltered), and the results file.
fn harness_run(dir: &Path, out: &Path) -> (String, String) {
    let model = dir.join("harness/org__Model-7B");
    let future = docs(out, "future");
    let stale = "Vice President Joe Biden has signed a series of executive orders.";
    let future = write(
        &model,
        &format!("samples_tempora_demo_future_{DATE}.jsonl"),
        &[
            sample(0, &future[0], json!([[stale]]), json!([stale]), "none"),
            sample(1, &future[1], json!([[""]]), json!([""]), "none"),
        ],
    );
    let old = docs(out, "in_distribution");
    let said = [
        "US Vice President Joe Biden spoke in Kiev.",
        "Another repeat.",
    ];
    let in_distribution = write(
        &model,
        &format!("samples_tempora_demo_in_distribution_{DATE}.jsonl"),
        &[sample(0, &old[0], json!([said]), json!([said]), "none")],
    );
    let results = json!({
        "results": {},
        "config": {"model": "dummy", "model_args": {"pretrained": "org/Model-7B"}},
        "model_source": "dummy",
        "model_name": "org/Model-7B",
        "model_name_sanitized": "org__Model-7B",
    });
    std::fs::write(
        model.join(format!("results_{DATE}.json")),
        results.to_string(),
    )
    .unwrap();
    (future, in_distribution)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn scores(out: &Path) -> Vec<Value> {
    lines(&out.join("scores/scores.jsonl"))
}

/// The two task files of one run are one system, named by the model of the
/// results file: every article of the demo scored once, none lost, an empty
/// response scored as an empty summary; `summary.json` describes each file, and
/// its command to score again works.
#[test]
fn the_task_files_of_one_run_are_one_system_named_by_its_model() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let (future, in_distribution) = harness_run(dir.path(), &out);
    let set = out.to_str().unwrap();
    let args = ["score", set, "--predictions", &future, &in_distribution];
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    // The empty response of a task that stops at a blank line is warned of.
    let warning = format!("warning: {future}: 1 of 2 responses empty, scored as summaries with no claim; the task stops at \"\\n\\n\", where the harness cut each response");
    assert!(said(&run).contains(&warning), "{warning}\n{}", said(&run));
    assert!(
        !said(&run).contains(&format!("warning: {in_distribution}")),
        "{}",
        said(&run)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    for line in [
        "org/Model-7B / future: 2 summaries, 1 with a claim, 1 claims; outdated rate 50.0 %",
        "org/Model-7B / in_distribution: 1 summaries, 1 with a claim, 1 claims; outdated rate 0.0 %",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
    let model: Vec<Value> = scores(&out)
        .into_iter()
        .filter(|s| s["system"] == "org/Model-7B")
        .collect();
    let mut ids: Vec<&str> = model.iter().map(|s| s["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    let mut set_ids: Vec<String> = ["future", "in_distribution"]
        .iter()
        .flat_map(|s| docs(&out, s))
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    set_ids.sort_unstable();
    assert_eq!(ids, set_ids, "every article once");
    let summary_of = |id: &str| {
        model
            .iter()
            .find(|s| s["id"] == id)
            .map(|s| s["summary"].clone())
    };
    assert_eq!(
        summary_of("/2021/03/06/politics/kamala-harris-tie-breaking-vote-covid-relief"),
        Some(json!(""))
    );
    assert_eq!(
        summary_of("27123456"),
        Some(json!("US Vice President Joe Biden spoke in Kiev."))
    );
    let summary = read_json(&out.join("scores/summary.json"));
    assert_eq!(summary["missing"], json!([]));
    assert_eq!(summary["unmatched"], json!([]));
    let files = summary["predictions"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    assert_eq!(files[0]["system"], "org/Model-7B");
    assert_eq!(files[0]["file"], json!(future));
    assert_eq!(files[0]["harness"]["task"], "tempora_demo_future");
    assert_eq!(files[0]["harness"]["model"], "org/Model-7B");
    assert_eq!(files[1]["harness"]["task"], "tempora_demo_in_distribution");
    assert!(files[1]["harness"]["results"]
        .as_str()
        .unwrap()
        .ends_with(&format!("results_{DATE}.json")));
    assert_eq!(files[1]["harness"].get("logged_again"), None);
    // The command to score again, as the card gives it, works and scores the same.
    let before = scores(&out);
    let summary: Summary =
        serde_json::from_slice(&std::fs::read(out.join("scores/summary.json")).unwrap()).unwrap();
    let again = summary.score_again().replace(" DIR ", &format!(" {set} "));
    let words: Vec<&str> = again.split(' ').skip(1).collect();
    let run = tempora_in(dir.path(), &words);
    assert_eq!(run.status.code(), Some(0), "{again}\n{}", said(&run));
    assert_eq!(scores(&out), before);
}

/// A document logged under two filters is scored once, from its first line (the
/// first filter) and its first response, and both stderr and `summary.json` say
/// so; a file is samples by its lines, whatever its name.
#[test]
fn a_document_logged_under_two_filters_is_scored_from_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let future = docs(&out, "future");
    let old = docs(&out, "in_distribution");
    let stale = "Vice President Joe Biden has signed a series of executive orders.";
    let lower = stale.to_lowercase();
    let harris = "Senator Kamala Harris casts the deciding vote.";
    let lines = [
        sample(
            0,
            &future[0],
            json!([[stale, stale]]),
            json!([stale]),
            "none",
        ),
        sample(
            1,
            &future[1],
            json!([[harris, harris]]),
            json!([harris]),
            "none",
        ),
        sample(0, &old[0], json!([["x", "x"]]), json!(["x"]), "none"),
        sample(
            0,
            &future[0],
            json!([[stale, stale]]),
            json!([[lower, lower]]),
            "lowercase",
        ),
        sample(
            1,
            &future[1],
            json!([[harris]]),
            json!([[harris.to_lowercase()]]),
            "lowercase",
        ),
        sample(
            0,
            &old[0],
            json!([["x", "x"]]),
            json!([["x", "x"]]),
            "lowercase",
        ),
    ];
    let file = write(&dir.path().join("model-output"), "output.jsonl", &lines);
    let run = tempora_in(
        dir.path(),
        &["score", out.to_str().unwrap(), "--predictions", &file],
    );
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let note = format!("{file}: 3 documents logged 2 times (filters `none`, `lowercase`): scored the first line of each (filter `none`), its first response");
    assert!(said(&run).contains(&note), "{}", said(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains(
            "model-output / future: 2 summaries, 2 with a claim, 2 claims; outdated rate 100.0 %"
        ),
        "{stdout}"
    );
    let scored: Vec<(String, String)> = scores(&out)
        .into_iter()
        .filter(|s| s["system"] == "model-output")
        .map(|s| {
            (
                s["id"].as_str().unwrap().into(),
                s["summary"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(scored.len(), 3, "{scored:?}");
    assert!(
        scored.contains(&("55738746".into(), stale.into())),
        "{scored:?}"
    );
    let summary = read_json(&out.join("scores/summary.json"));
    let harness = &summary["predictions"][0]["harness"];
    assert_eq!(harness["filters"], json!(["none", "lowercase"]));
    assert_eq!(
        harness["logged_again"],
        json!({"documents": 3, "min_times": 2, "max_times": 2, "scored_filters": ["none"]})
    );
    assert_eq!(
        harness.get("task"),
        None,
        "not named as the harness names it"
    );
    assert!(harness["rule"].as_str().unwrap().contains("first line"));
}

/// Without `model_name`, the model argument names the system (a line of `k=v`
/// in older versions); a results file that is no JSON leaves the samples'
/// folder's name, with a warning; `--system` wins over both.
#[test]
fn the_system_is_named_by_the_results_file_else_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let (future, _) = harness_run(dir.path(), &out);
    let set = out.to_str().unwrap();
    let results = Path::new(&future).with_file_name(format!("results_{DATE}.json"));
    let stdout = |args: &[&str]| {
        let run = tempora_in(dir.path(), args);
        assert_eq!(run.status.code(), Some(23), "{}", said(&run));
        (
            String::from_utf8_lossy(&run.stdout).into_owned(),
            said(&run),
        )
    };
    std::fs::write(
        &results,
        "{\"config\": {\"model_args\": \"pretrained=org/Older,dtype=float16\"}}",
    )
    .unwrap();
    let (named, _) = stdout(&["score", set, "--predictions", &future]);
    assert!(named.contains("org/Older / future: 2 summaries"), "{named}");
    std::fs::write(&results, "{\"model_name\": ").unwrap();
    let (named, told) = stdout(&["score", set, "--predictions", &future]);
    assert!(
        named.contains("org__Model-7B / future: 2 summaries"),
        "{named}"
    );
    assert!(
        told.contains(&format!(
            "warning: {future}: the harness's results file {}: not JSON",
            results.display()
        )),
        "{told}"
    );
    assert!(
        told.contains("; the system is named `org__Model-7B`, after the samples file's folder (`--system NAME` names it)"),
        "{told}"
    );
    let (named, told) = stdout(&["score", set, "--predictions", &future, "--system", "mine"]);
    assert!(named.contains("mine / future: 2 summaries"), "{named}");
    assert!(!told.contains("the system is named"), "{told}");
}

/// Samples without their results file (copied elsewhere): the task files of a
/// folder are one system, named after the folder (as the harness names it
/// after the model), `.` by its own name, each file said on stderr with
/// `--system` as the way to choose; no set is missing from a system.
#[test]
fn samples_without_a_results_file_are_one_system_named_by_their_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let (future, in_distribution) = harness_run(dir.path(), &out);
    std::fs::remove_file(Path::new(&future).with_file_name(format!("results_{DATE}.json")))
        .unwrap();
    let set = out.to_str().unwrap();
    let run = tempora_in(
        dir.path(),
        &["score", set, "--predictions", &future, &in_distribution],
    );
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("org__Model-7B / future: 2 summaries"),
        "{stdout}"
    );
    assert!(
        stdout.contains("org__Model-7B / in_distribution: 1 summaries"),
        "{stdout}"
    );
    assert!(!stdout.contains("samples_"), "{stdout}");
    let told = said(&run);
    for file in [&future, &in_distribution] {
        let warning = format!("warning: {file}: no results file of the harness beside it (`results_<date>.json` of the run) names the model; the system is named `org__Model-7B`, after the samples file's folder (`--system NAME` names it)");
        assert!(told.contains(&warning), "{warning}\n{told}");
    }
    // Given from inside the folder, as `./samples_...`: the folder's own name.
    let model = Path::new(&future).parent().unwrap();
    let name = |p: &str| format!("./{}", Path::new(p).file_name().unwrap().to_str().unwrap());
    let (here, there) = (name(&future), name(&in_distribution));
    let run = tempora_in(model, &["score", set, "--predictions", &here, &there]);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("org__Model-7B / future: 2 summaries"),
        "{stdout}"
    );
}

/// The run's results file given as predictions (a glob of the model's folder)
/// is refused as what it is, over several lines or one, or by its name when it
/// is no JSON; exit 1, as a line that is no JSON.
#[test]
fn a_results_file_given_as_predictions_is_refused_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let (future, _) = harness_run(dir.path(), &out);
    let model = Path::new(&future).parent().unwrap().to_path_buf();
    let results = json!({
        "results": {"tempora_demo_future": {"alias": "tempora_demo_future", "bypass,none": 999}},
        "configs": {"tempora_demo_future": {"task": "tempora_demo_future"}},
        "model_name": "org/Model-7B",
    });
    let pretty = model.join(format!("results_{DATE}.json"));
    std::fs::write(&pretty, serde_json::to_string_pretty(&results).unwrap()).unwrap();
    let one_line = write(&model, "run.json", &[results.to_string()]);
    let broken = write(&model, "results_2026.json", &["{".into()]);
    let set = out.to_str().unwrap();
    for results in [pretty.display().to_string(), one_line, broken] {
        let run = tempora_in(
            dir.path(),
            &["score", set, "--predictions", &future, &results],
        );
        assert_eq!(run.status.code(), Some(1), "{}", said(&run));
        let told = said(&run);
        let refusal = format!("{results}: a results file of lm-evaluation-harness, not samples: give the samples files (`samples_*.jsonl`)");
        assert!(told.contains(&refusal), "{refusal}\n{told}");
    }
}

/// Refused, naming the file and line: a document without an `id` (another
/// task's samples), a document the set does not hold (at the first such line),
/// a line that is no JSON, and an id in two files of one system (naming both,
/// and `--system` to name them apart).
#[test]
fn samples_of_another_task_or_set_are_refused_at_their_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let set = out.to_str().unwrap();
    let future = docs(&out, "future");
    let refused = |name: &str, lines: &[String], expected: &str| {
        let file = write(dir.path(), name, lines);
        let run = tempora_in(dir.path(), &["score", set, "--predictions", &file]);
        assert_eq!(run.status.code(), Some(1), "{}", said(&run));
        let told = said(&run);
        assert!(told.contains(&format!("{file}{expected}")), "{told}");
    };
    let good = sample(0, &future[0], json!([["a"]]), json!(["a"]), "none");
    let gsm = json!({"question": "2 + 2?", "answer": "4"});
    refused(
        "gsm.jsonl",
        &[
            good.clone(),
            sample(1, &gsm, json!([["4"]]), json!(["4"]), "none"),
        ],
        ":2: the document (`doc`) has no `id`: samples of another task?",
    );
    let mut foreign = future[1].clone();
    foreign["id"] = json!(999);
    refused(
        "foreign.jsonl",
        &[
            good.clone(),
            sample(1, &foreign, json!([["b"]]), json!(["b"]), "none"),
            sample(2, &json!({"id": "998"}), json!([["c"]]), json!(["c"]), "none"),
        ],
        ":2: document \"999\" is no article of the set (future, in_distribution): samples of another task or another set?",
    );
    refused(
        "broken.jsonl",
        &[good.clone(), "{\"doc_id\": 1, \"doc\": ".into()],
        ":2: not JSON",
    );
    // The same documents in two files of one model.
    let (first, _) = harness_run(dir.path(), &out);
    let second = Path::new(&first).with_file_name(format!("samples_tempora_again_{DATE}.jsonl"));
    std::fs::copy(&first, &second).unwrap();
    let second = second.display().to_string();
    let run = tempora_in(
        dir.path(),
        &["score", set, "--predictions", &first, &second],
    );
    assert_eq!(run.status.code(), Some(1), "{}", said(&run));
    let told = said(&run);
    assert!(
        told.contains(&format!("{second}:1: id \"55738746\" is also in {first}:1, and both files are the system `org/Model-7B`: one summary per id and system; name them apart with `--system`")),
        "{told}"
    );
    let apart = [
        "score",
        set,
        "--predictions",
        &first,
        &second,
        "--system",
        "a",
        "b",
    ];
    let run = tempora_in(dir.path(), &apart);
    assert_eq!(run.status.code(), Some(23), "{}", said(&run));
}

/// Plain predictions files of one name (two folders' `bart.jsonl`) are one
/// system too, and their lines stay their own in what is not scored.
#[test]
fn plain_files_of_one_name_are_one_system() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let a = write(
        &dir.path().join("a"),
        "bart.jsonl",
        &["{\"id\": \"55738746\", \"summary\": \"President Joe Biden spoke.\"}".into()],
    );
    let b = write(
        &dir.path().join("b"),
        "bart.jsonl",
        &[
            "{\"id\": \"27123456\", \"summary\": \"Joe Biden spoke.\"}".into(),
            "{\"id\": \"404\", \"summary\": \"x\"}".into(),
        ],
    );
    let run = tempora_in(
        dir.path(),
        &["score", out.to_str().unwrap(), "--predictions", &a, &b],
    );
    assert_eq!(run.status.code(), Some(23), "{}", said(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("bart / all: 2 summaries"), "{stdout}");
    let summary = read_json(&out.join("scores/summary.json"));
    assert_eq!(
        summary["unmatched"],
        json!([{"system": "bart", "file": b, "count": 1, "ids": [[2, "404"]]}])
    );
    assert_eq!(summary["missing"][0]["file"], json!(format!("{a}, {b}")));
    assert_eq!(
        summary["missing"][0]["ids"],
        json!(["/2021/03/06/politics/kamala-harris-tie-breaking-vote-covid-relief"])
    );
}

/// Without a set folder, the document gives the date (read back with a time)
/// and the text.
#[test]
fn without_a_set_the_samples_carry_their_dates() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let (future, _) = harness_run(dir.path(), &out);
    let facts = out.join("facts.jsonl");
    let scores_dir = dir.path().join("scores");
    let run = tempora_in(
        dir.path(),
        &[
            "score",
            "--facts",
            facts.to_str().unwrap(),
            "--predictions",
            &future,
            "--out",
            scores_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains(
            "org/Model-7B / all: 2 summaries, 1 with a claim, 1 claims; outdated rate 50.0 %"
        ),
        "{stdout}"
    );
    let first = std::fs::read_to_string(scores_dir.join("scores.jsonl")).unwrap();
    assert!(first.contains("\"published\":\"2021-01-21\""), "{first}");
}
