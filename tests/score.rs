//! `tempora score` end to end: the demo's predictions scored as a user runs it,
//! bad predictions named, and the judge checked on the minimal pairs Tempora makes
//! (the demo's, and those of the shipped TempoSum pipelines against the testkit's
//! models of BBC and CNN): every `outdated` edit gets an `outdated` claim covering
//! its span, every `non_verifiable` one a `never` or `unknown` claim and no
//! `current` one there, and no reference summary an `outdated` or `never` claim.
//!
//! The figures: `cargo test --release --test score -- --nocapture` prints them.

mod common;

use common::said::said;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::bin::tempora_in;

use common::temposum::{bbc, bbc_lab, cnn, run_shipped, Lab};
use tempora_records::{Claim, MinimalPair, Verdict};
use tempora_score::job::{read_facts, read_set, SetArticle, SetPart};
use tempora_score::Judge;
use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};
use tempora_testkit::MockWayback;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pipelines/demo.toml");
const PREDICTIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pipelines/demo/predictions");

/// The demo run into a fresh folder: its output folder.
fn demo(dir: &Path) -> PathBuf {
    demo_with(dir, &[])
}

/// The demo run into `dir/out` with more `--set` overrides.
fn demo_with(dir: &Path, overrides: &[&str]) -> PathBuf {
    let out = dir.join("out");
    let set = format!("pipeline.out=\"{}\"", out.display());
    let mut args = vec!["run", DEMO, "--progress", "off", "--set", &set];
    for o in overrides {
        args.extend(["--set", o]);
    }
    // The demo's paths are relative to the repository.
    let run = tempora_in(Path::new(env!("CARGO_MANIFEST_DIR")), &args);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    out
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_demo_predictions_are_scored_as_the_guide_shows() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let stale = format!("{PREDICTIONS}/stale.jsonl");
    let fresh = format!("{PREDICTIONS}/fresh.csv");
    let args = [
        "score",
        out.to_str().unwrap(),
        "--predictions",
        &stale,
        "--predictions",
        &fresh,
    ];
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let scores = lines(&out.join("scores/scores.jsonl"));
    // Three systems of three summaries each.
    assert_eq!(scores.len(), 9);
    let verdicts = |system: &str| -> Vec<(String, String)> {
        scores
            .iter()
            .filter(|s| s["system"] == system)
            .flat_map(|s| s["claims"].as_array().unwrap().clone())
            .map(|c| {
                (
                    c["text"].as_str().unwrap().to_string(),
                    c["verdict"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let stale_verdicts = verdicts("stale");
    assert!(
        stale_verdicts.contains(&("Vice President Joe Biden".into(), "outdated".into())),
        "{stale_verdicts:?}"
    );
    assert!(
        stale_verdicts.contains(&("senator kamala harris".into(), "outdated".into())),
        "lowercased: {stale_verdicts:?}"
    );
    assert!(
        stale_verdicts.contains(&("president donald trump".into(), "outdated".into())),
        "{stale_verdicts:?}"
    );
    assert!(
        stale_verdicts.contains(&("US Vice President Joe Biden".into(), "current".into())),
        "in 2014 he was: {stale_verdicts:?}"
    );
    for (claim, verdict) in verdicts("fresh").iter().chain(&verdicts("reference")) {
        assert_eq!(verdict, "current", "{claim}");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("scores/summary.json")).unwrap()).unwrap();
    let row = |system: &str, set: &str| {
        summary["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["system"] == system && r["set"] == set)
            .cloned()
            .unwrap_or_else(|| panic!("no row {system}/{set}: {summary}"))
    };
    assert_eq!(row("stale", "future")["outdated_rate"], 1.0);
    assert_eq!(row("stale", "in_distribution")["outdated_rate"], 0.0);
    assert_eq!(row("fresh", "all")["outdated_rate"], 0.0);
    assert_eq!(row("reference", "future")["current_share"], 1.0);
    let stdout = String::from_utf8_lossy(&run.stdout);
    // What the guide shows of this command is what it prints.
    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/guide.md")).unwrap();
    let shown = guide
        .split("```\nreference / future")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .map(|rest| format!("reference / future{rest}"))
        .expect("the guide shows the demo's scores");
    for line in shown
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "...")
    {
        assert!(
            stdout.lines().any(|l| l == line),
            "the guide shows {line:?}; the command printed:\n{stdout}"
        );
    }
    // The same inputs in another order give the same bytes.
    let first = std::fs::read(out.join("scores/scores.jsonl")).unwrap();
    let reversed = dir.path().join("reversed.jsonl");
    let mut rows: Vec<String> = std::fs::read_to_string(&stale)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    rows.reverse();
    std::fs::write(&reversed, rows.join("\n") + "\n").unwrap();
    let args = [
        "score",
        out.to_str().unwrap(),
        "--predictions",
        &fresh,
        "--predictions",
        reversed.to_str().unwrap(),
        "--system",
        "fresh",
        "--system",
        "stale",
    ];
    let again = tempora_in(dir.path(), &args);
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    assert_eq!(
        std::fs::read(out.join("scores/scores.jsonl")).unwrap(),
        first
    );
}

#[test]
fn predictions_of_any_data_set_carry_their_dates() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let predictions = dir.path().join("any.jsonl");
    std::fs::write(
        &predictions,
        "{\"id\": \"a\", \"summary\": \"Vice President Joe Biden spoke in Kiev.\", \"published\": \"2014-04-21\"}\n\
         {\"id\": \"b\", \"summary\": \"Vice President Joe Biden spoke in Kiev.\", \"published\": \"2021-04-21\"}\n\
         {\"id\": \"c\", \"summary\": \"\", \"published\": \"2021-04-21\"}\n",
    )
    .unwrap();
    let facts = out.join("facts.jsonl");
    let scores = dir.path().join("scores");
    let args = [
        "score",
        "--facts",
        facts.to_str().unwrap(),
        "--predictions",
        predictions.to_str().unwrap(),
        "--out",
        scores.to_str().unwrap(),
    ];
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let rows = lines(&scores.join("scores.jsonl"));
    let verdict = |id: &str| {
        let row = rows.iter().find(|r| r["id"] == id).unwrap();
        row["claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["verdict"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(verdict("a"), ["current"]);
    assert_eq!(verdict("b"), ["outdated"]);
    assert!(verdict("c").is_empty(), "an empty summary has no claim");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(scores.join("summary.json")).unwrap()).unwrap();
    let row = &summary["rows"][0];
    assert_eq!(
        (row["summaries"].as_u64(), row["with_claim"].as_u64()),
        (Some(3), Some(2))
    );
}

#[test]
fn bad_predictions_are_named_and_nothing_is_dropped_silently() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let set = out.to_str().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    // An id the set does not hold: listed, counted, exit 23; the rest scored.
    let unknown = write(
        "unknown.jsonl",
        "{\"id\": \"55738746\", \"summary\": \"President Joe Biden spoke.\"}\n{\"id\": \"999\", \"summary\": \"x\"}\n",
    );
    let run = tempora_in(dir.path(), &["score", set, "--predictions", &unknown]);
    assert_eq!(run.status.code(), Some(23), "{}", said(&run));
    assert!(
        said(&run).contains("unknown.jsonl: 1 predictions with an id the set does not hold, not scored: 999 (line 2)"),
        "{}",
        said(&run)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("scores/summary.json")).unwrap()).unwrap();
    assert_eq!(summary["unmatched"][0]["count"], 1);
    assert_eq!(
        summary["unmatched"][0]["ids"][0],
        serde_json::json!([2, "999"])
    );
    assert_eq!(
        lines(&out.join("scores/scores.jsonl"))
            .iter()
            .filter(|s| s["system"] == "unknown")
            .count(),
        1
    );
    // A duplicate id is refused, naming the line.
    let twice = write(
        "twice.jsonl",
        "{\"id\": \"55738746\", \"summary\": \"a\"}\n{\"id\": \"55738746\", \"summary\": \"b\"}\n",
    );
    let run = tempora_in(dir.path(), &["score", set, "--predictions", &twice]);
    assert_eq!(run.status.code(), Some(1), "{}", said(&run));
    assert!(
        said(&run).contains("twice.jsonl:2: id \"55738746\" again (first on line 1)"),
        "{}",
        said(&run)
    );
    // A missing column, with file and line.
    let no_summary = write("cols.csv", "id,text\n55738746,a\n");
    let run = tempora_in(dir.path(), &["score", set, "--predictions", &no_summary]);
    assert_eq!(run.status.code(), Some(1), "{}", said(&run));
    assert!(
        said(&run).contains("cols.csv:1: no column `summary` (the header has: id, text)"),
        "{}",
        said(&run)
    );
    // A missing date without a set, with file and line.
    let undated = write("undated.jsonl", "{\"id\": \"a\", \"summary\": \"b\"}\n");
    let facts = out.join("facts.jsonl");
    let run = tempora_in(
        dir.path(),
        &[
            "score",
            "--facts",
            facts.to_str().unwrap(),
            "--predictions",
            &undated,
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{}", said(&run));
    assert!(
        said(&run).contains("undated.jsonl:1: no `published` date"),
        "{}",
        said(&run)
    );
    // Usage: no set and no facts; names that do not pair with the files.
    let run = tempora_in(dir.path(), &["score", "--predictions", &undated]);
    assert_eq!(run.status.code(), Some(2), "{}", said(&run));
    let run = tempora_in(
        dir.path(),
        &[
            "score",
            set,
            "--predictions",
            &undated,
            "--system",
            "a",
            "--system",
            "b",
        ],
    );
    assert_eq!(run.status.code(), Some(2), "{}", said(&run));
}

/// An article of the set that a system has no prediction for is counted and
/// listed per system (summary.json, stderr), and the command exits 23.
#[test]
fn articles_without_a_prediction_are_counted_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let one = dir.path().join("one.jsonl");
    std::fs::write(
        &one,
        "{\"id\": \"55738746\", \"summary\": \"President Joe Biden spoke.\"}\n",
    )
    .unwrap();
    let fresh = format!("{PREDICTIONS}/fresh.csv");
    let args = [
        "score",
        out.to_str().unwrap(),
        "--predictions",
        one.to_str().unwrap(),
        &fresh,
    ];
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(23), "{}", said(&run));
    let told = said(&run);
    assert!(
        told.contains("one.jsonl (system `one`): no prediction for 2 of the set's 3 articles, not scored: /2021/03/06/politics/kamala-harris-tie-breaking-vote-covid-relief, 27123456 (all in "),
        "{told}"
    );
    assert!(
        !told.contains("fresh.csv (system"),
        "fresh covers the set: {told}"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("scores/summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["missing"],
        serde_json::json!([{
            "system": "one",
            "file": one.display().to_string(),
            "count": 2,
            "of": 3,
            "ids": ["/2021/03/06/politics/kamala-harris-tie-breaking-vote-covid-relief", "27123456"],
        }])
    );
    // The card says so under the table.
    let card = tempora_in(dir.path(), &["card", out.to_str().unwrap()]);
    assert_eq!(card.status.code(), Some(0), "{}", said(&card));
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        readme.contains("`one` left out 2 of the set's 3 articles"),
        "{readme}"
    );
}

/// One `--predictions` takes several files (a shell glob), `--system` several
/// names in the same order; counts that do not pair are bad usage naming both.
#[test]
fn one_predictions_option_takes_several_files_and_names_pair_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let set = out.to_str().unwrap();
    let mut files: Vec<String> = std::fs::read_dir(PREDICTIONS)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    let mut args = vec!["score", set, "--predictions"];
    args.extend(files.iter().map(String::as_str));
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    for system in ["fresh", "stale", "reference"] {
        assert!(
            stdout.contains(&format!("{system} / all: 3 summaries")),
            "{stdout}"
        );
    }
    // Names in order, also in one option.
    args.extend(["--system", "b-fresh", "a-stale"]);
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains(
            "a-stale / future: 2 summaries, 2 with a claim, 3 claims; outdated rate 100.0 %"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "b-fresh / future: 2 summaries, 2 with a claim, 3 claims; outdated rate 0.0 %"
        ),
        "{stdout}"
    );
    // The set folder after the files is taken for one of them, and named.
    let mut after = vec!["score", "--predictions"];
    after.extend(files.iter().map(String::as_str));
    after.push(set);
    let run = tempora_in(dir.path(), &after);
    assert_eq!(run.status.code(), Some(2), "{}", said(&run));
    assert!(
        said(&run).contains(
            "is a folder, not a predictions file: give the set folder before `--predictions`"
        ),
        "{}",
        said(&run)
    );
    // The set folder after the names is taken for a name, and named.
    let mut after = vec!["score", "--predictions"];
    after.extend(files.iter().map(String::as_str));
    after.extend(["--system", "a", "b", set]);
    let run = tempora_in(dir.path(), &after);
    assert_eq!(run.status.code(), Some(2), "{}", said(&run));
    assert!(
        said(&run).contains("is a folder, not a system's name: give the set folder before"),
        "{}",
        said(&run)
    );
    // One name for two files.
    args.pop();
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(2), "{}", said(&run));
    assert!(
        said(&run).contains("1 `--system` names for 2 `--predictions` files"),
        "{}",
        said(&run)
    );
}

/// The card and the report show the scores only while the folder holds the set
/// files and facts they were scored on: after a rerun with another cutoff they
/// say why not and how to score again.
#[test]
fn scores_of_an_earlier_run_are_not_shown_as_current() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let set = out.to_str().unwrap();
    let mut args = vec!["score", set, "--predictions"];
    let files = [
        format!("{PREDICTIONS}/stale.jsonl"),
        format!("{PREDICTIONS}/fresh.csv"),
    ];
    args.extend(files.iter().map(String::as_str));
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("scores/summary.json")).unwrap()).unwrap();
    // The digests of the files the scores were made of, as they are now.
    let digest = |name: &str| tempora_sink::release::sha256_file(&out.join(name)).unwrap();
    let sets: Vec<(&str, &str)> = summary["sets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["file"].as_str().unwrap(), s["sha256"].as_str().unwrap()))
        .collect();
    let (future, in_distribution) = (digest("future.jsonl"), digest("in_distribution.jsonl"));
    assert_eq!(
        sets,
        [
            ("future.jsonl", future.as_str()),
            ("in_distribution.jsonl", in_distribution.as_str())
        ]
    );
    assert_eq!(summary["facts_sha256"], digest("facts.jsonl"));
    // The report first: the card links the charts the report drew.
    let shown = |dir: &Path, out: &Path| {
        let report = tempora_in(dir, &["report", out.to_str().unwrap()]);
        assert_eq!(report.status.code(), Some(0), "{}", said(&report));
        let card = tempora_in(dir, &["card", out.to_str().unwrap()]);
        assert_eq!(card.status.code(), Some(0), "{}", said(&card));
        [
            std::fs::read_to_string(out.join("README.md")).unwrap(),
            std::fs::read_to_string(out.join("report.md")).unwrap(),
        ]
    };
    for text in shown(dir.path(), &out) {
        assert!(
            text.contains(
                "| stale | future | 2 | 2 / 2 (100.0 %) | 2 | 3 | 100.0 % [100.0, 100.0] |"
            ),
            "{text}"
        );
        assert!(text.contains("charts/scores-by-system.svg"), "{text}");
    }
    // Another cutoff: other facts, other sets.
    demo_with(dir.path(), &["pipeline.cutoff=2021-02-01"]);
    for text in shown(dir.path(), &out) {
        assert!(!text.contains("| stale | future |"), "{text}");
        assert!(!text.contains("charts/scores"), "{text}");
        assert!(
            text.contains("The scores in `scores/` are of an earlier run of this folder and are not shown: `future.jsonl` changed since they were scored."),
            "{text}"
        );
        // The files by system name, whatever the order they were given in.
        let again = format!(
            "`tempora score DIR --predictions {} {} --system fresh stale`",
            files[1], files[0]
        );
        assert!(text.contains(&again), "{again} in {text}");
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        report["scores"]["stale"],
        "`future.jsonl` changed since they were scored"
    );
    // Scoring again makes them current.
    let run = tempora_in(dir.path(), &args);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    for text in shown(dir.path(), &out) {
        assert!(text.contains("| stale | future |"), "{text}");
        assert!(!text.contains("earlier run of this folder"), "{text}");
    }
}

/// How the judge did on one set of pairs.
#[derive(Debug, Default)]
struct PairFigures {
    outdated: (usize, usize),
    non_verifiable: (usize, usize),
    references: (usize, usize),
    /// Pairs whose edit a claim with a written title covers (the rest are bare
    /// names, judged as the article's office).
    titled: usize,
    misses: Vec<String>,
    /// Pairs judged as their edit says, of all, by the relation of the fact.
    by_relation: BTreeMap<String, (usize, usize)>,
}

impl PairFigures {
    fn share(done: (usize, usize)) -> f64 {
        if done.1 == 0 {
            1.0
        } else {
            done.0 as f64 / done.1 as f64
        }
    }

    fn print(&self, what: &str) {
        println!(
            "{what}: outdated edits judged outdated {}/{} ({:.1} %), non-verifiable edits judged never or unknown {}/{} ({:.1} %), references with no outdated or never claim {}/{} ({:.1} %); {} edits under a written title",
            self.outdated.0,
            self.outdated.1,
            100.0 * Self::share(self.outdated),
            self.non_verifiable.0,
            self.non_verifiable.1,
            100.0 * Self::share(self.non_verifiable),
            self.references.0,
            self.references.1,
            100.0 * Self::share(self.references),
            self.titled,
        );
        for miss in &self.misses {
            println!("  miss: {miss}");
        }
    }

    fn assert_at_least(&self, what: &str, share: f64, least_pairs: usize) {
        self.print(what);
        assert!(self.titled > 0, "{what}: no edit under a title: {self:?}");
        assert!(self.outdated.1 >= least_pairs, "{what}: {self:?}");
        assert!(self.non_verifiable.1 >= least_pairs, "{what}: {self:?}");
        for done in [self.outdated, self.non_verifiable, self.references] {
            assert!(Self::share(done) >= share, "{what}: {self:#?}");
        }
    }
}

/// Judges every pair of `pairs` with the facts and articles of `out`.
fn judge_pairs(out: &Path, pairs: &Path) -> PairFigures {
    let facts = read_facts(&out.join("facts.jsonl")).unwrap();
    let judge = Judge::new(&facts).unwrap();
    let parts: Vec<SetPart> = ["future", "in_distribution"]
        .iter()
        .map(|name| SetPart {
            name: name.to_string(),
            path: out.join(format!("{name}.jsonl")),
        })
        .collect();
    let articles: BTreeMap<String, SetArticle> = read_set(&parts).unwrap();
    let pairs: Vec<MinimalPair> = std::fs::read_to_string(pairs)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut figures = PairFigures::default();
    let context =
        |a: &SetArticle| judge.context(Some(&a.document), a.facts.iter().map(|m| &m.fact));
    for article in articles.values() {
        let claims = judge.claims(&article.summary, article.published, &context(article));
        let wrong = claims
            .iter()
            .any(|c| matches!(c.verdict, Verdict::Outdated | Verdict::Never));
        figures.references.1 += 1;
        figures.references.0 += usize::from(!wrong);
        if wrong {
            figures
                .misses
                .push(format!("reference {}: {}", article.id, describe(&claims)));
        }
    }
    for pair in &pairs {
        let article = &articles[&pair.article_id];
        let claims = judge.claims(&pair.edited_summary, pair.published, &context(article));
        let from = pair.span.start;
        let to = from + pair.span.replacement.chars().count();
        let covering: Vec<&Claim> = claims
            .iter()
            .filter(|c| c.start < to && c.end > from)
            .collect();
        figures.titled += usize::from(covering.iter().any(|c| !c.implied));
        let ok = match pair.fact_error {
            tempora_records::FactError::Outdated => {
                covering.iter().any(|c| c.verdict == Verdict::Outdated)
            }
            tempora_records::FactError::NonVerifiable => {
                covering
                    .iter()
                    .any(|c| matches!(c.verdict, Verdict::Never | Verdict::Unknown))
                    && !covering.iter().any(|c| c.verdict == Verdict::Current)
            }
        };
        let tally = match pair.fact_error {
            tempora_records::FactError::Outdated => &mut figures.outdated,
            tempora_records::FactError::NonVerifiable => &mut figures.non_verifiable,
        };
        tally.1 += 1;
        tally.0 += usize::from(ok);
        let of = figures
            .by_relation
            .entry(pair.fact.relation.clone())
            .or_default();
        of.1 += 1;
        of.0 += usize::from(ok);
        if !ok {
            figures.misses.push(format!(
                "{} ({:?}): {:?}: {}",
                pair.id,
                pair.fact_error,
                pair.edited_summary,
                describe(&claims)
            ));
        }
    }
    figures
}

fn describe(claims: &[Claim]) -> String {
    claims
        .iter()
        .map(|c| {
            format!(
                "[{}..{} {:?} {} ({})]",
                c.start,
                c.end,
                c.text,
                c.verdict.as_str(),
                c.reason
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_demo_pairs_are_judged_as_their_edits_say() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    judge_pairs(&out, &out.join("pairs.jsonl")).assert_at_least("demo", 1.0, 2);
}

/// The lab's shipped pipeline run against its model, then `tempora pairs` on its
/// future set; the pairs judged.
async fn lab_pairs(lab: &'static Lab) -> PairFigures {
    let server = MockWayback::start(lab.corpus.clone()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_shipped(lab, &server.endpoint(), dir.path());
    let out = dir.path().join("out");
    let config: toml::Table =
        toml::from_str(&std::fs::read_to_string(lab.shipped).unwrap()).unwrap();
    let cutoff = config["pipeline"]["cutoff"].to_string();
    let pairs = dir.path().join("pairs.jsonl");
    let made = tempora_in(
        dir.path(),
        &[
            "pairs",
            "--articles",
            "out/future.jsonl",
            "--facts",
            "out/facts.jsonl",
            "--cutoff",
            &cutoff,
            "-o",
            pairs.to_str().unwrap(),
        ],
    );
    assert_eq!(made.status.code(), Some(0), "{}", said(&made));
    judge_pairs(&out, &pairs)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_bbc_models_pairs_are_judged_as_their_edits_say() {
    lab_pairs(bbc())
        .await
        .assert_at_least("temposum-bbc", 0.99, 10);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cnn_models_pairs_are_judged_as_their_edits_say() {
    lab_pairs(cnn())
        .await
        .assert_at_least("temposum-cnn", 0.99, 10);
}

/// The BBC model with its sport and business stories: a club's manager (P286),
/// a player's club (P54) and a company's chief executive (P169) paired and
/// judged beside the offices, each relation on its own.
#[tokio::test(flavor = "multi_thread")]
async fn the_sport_and_business_pairs_are_judged_as_their_edits_say() {
    static LAB: std::sync::OnceLock<Lab> = std::sync::OnceLock::new();
    let lab = LAB.get_or_init(|| {
        let spec = NewsSiteSpec {
            first_year: 2016,
            ..NewsSiteSpec::default()
        };
        bbc_lab(NewsSite::with_sport_and_business(&spec))
    });
    let figures = lab_pairs(lab).await;
    figures.assert_at_least("bbc sport and business", 0.99, 10);
    for relation in ["P286", "P54", "P169"] {
        let of = figures
            .by_relation
            .get(relation)
            .copied()
            .unwrap_or_default();
        println!(
            "  {relation}: {} pairs, {} judged as their edit says",
            of.1, of.0
        );
        assert!(of.1 >= 2, "{relation}: {figures:#?}");
        assert_eq!(of.0, of.1, "{relation}: {figures:#?}");
    }
}

/// Scoring again removes the charts `tempora report` drew of the earlier scores:
/// the card never shows a system's bars beside a table that no longer holds it.
#[test]
fn charts_of_earlier_scores_are_not_shown_beside_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let set = out.to_str().unwrap();
    let (stale, fresh) = (
        format!("{PREDICTIONS}/stale.jsonl"),
        format!("{PREDICTIONS}/fresh.csv"),
    );
    let both = ["score", set, "--predictions", &stale, &fresh];
    assert_eq!(tempora_in(dir.path(), &both).status.code(), Some(0));
    let report = tempora_in(dir.path(), &["report", set]);
    assert_eq!(report.status.code(), Some(0), "{}", said(&report));
    let charts = out.join("charts");
    assert!(charts.join("scores-by-system.svg").is_file());
    assert!(charts.join("scores_stale.svg").is_file());
    // Scored again with one system, before any report.
    let one = tempora_in(dir.path(), &["score", set, "--predictions", &fresh]);
    assert_eq!(one.status.code(), Some(0), "{}", said(&one));
    for gone in [
        "scores-by-system.svg",
        "scores-by-system.png",
        "scores_stale.svg",
    ] {
        assert!(!charts.join(gone).exists(), "{gone} is left");
    }
    assert!(charts.join("coverage.svg").is_file(), "other charts stay");
    let card = tempora_in(dir.path(), &["card", set]);
    assert_eq!(card.status.code(), Some(0), "{}", said(&card));
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(!readme.contains("scores-by-system.svg"), "{readme}");
    assert!(!readme.contains("scores_stale"), "{readme}");
    assert!(readme.contains("| fresh | future |"), "{readme}");
}
