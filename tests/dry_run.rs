//! `tempora run --dry-run` end to end: the plan of a crawl before it runs, from
//! stated assumptions (no network) or from the CDX server's counts (`--estimate`,
//! against the mock Wayback Machine on 127.0.0.1).

use std::path::Path;
use std::process::{Command, Output};

use tempora_testkit::{Corpus, MockCapture, MockWayback};
use tempora_wayback::cdx::INDEX_LINES_PER_BLOCK;
use tempora_wayback::stages::describe::{
    ASSUMED_LINES_PER_COLLAPSED_ROW, ASSUMED_LISTED_PER_PATTERN_DAY,
};

const UNSET: &str = "TEMPORA_DRY_RUN_TEST_UNSET";

/// January 2020.
const JANUARY: &str = "from = 2020-01-01\nto = 2020-01-31";

/// A crawl of two URL patterns in `window`, and a stage reading a file named by an
/// environment variable.
fn write_pipeline(dir: &Path, endpoint: &str, window: &str) -> String {
    let text = format!(
        r#"[pipeline]
name = "dry"
cutoff = 2019-12-31
out = "{out}"

[stages.saved]
kind = "jsonl-source"
paths = ["${{{UNSET}}}"]
record = "article"

[stages.captures]
kind = "wayback-cdx"
urls = ["example.org/news/*", "example.org/sport/*"]
{window}
limit = 1000
archive = {{ endpoint = "{endpoint}", cdx_rate = 10, playback_rate = 30 }}

[stages.pages]
kind = "wayback-fetch"
inputs = ["captures"]
archive = "captures"

[stages.write]
kind = "jsonl"
inputs = ["saved"]
path = "a.jsonl"
"#,
        out = dir.join("out").display()
    );
    let path = dir.join("dry.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn dry_run(pipeline: &str, extra: &[&str], unset: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.args(["run", pipeline, "--dry-run"]).args(extra);
    cmd.env("RUST_LOG", "warn");
    if unset {
        cmd.env_remove(UNSET);
    } else {
        cmd.env(UNSET, pipeline);
    }
    cmd.output().unwrap()
}

/// The number printed right before `what` on the line that holds `anchor`.
fn number_before(text: &str, anchor: &str, what: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.contains(anchor))
        .unwrap_or_else(|| panic!("no line with {anchor:?} in:\n{text}"));
    let at = line
        .find(what)
        .unwrap_or_else(|| panic!("no {what:?} in {line:?}"));
    let digits: String = line[..at]
        .trim_end()
        .rsplit(' ')
        .next()
        .unwrap()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number before {what:?} in {line:?}"))
}

#[test]
fn the_plan_is_shown_before_missing_variables_and_the_exit_is_2() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 9 of 127.0.0.1: a request would fail, and none is made.
    let pipeline = write_pipeline(dir.path(), "http://127.0.0.1:9", JANUARY);
    let o = dry_run(&pipeline, &[], true);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // Stages in order, with their inputs.
    let stage_line = |name: &str, rest: &str| {
        text.lines()
            .position(|l| {
                let mut words = l.split_whitespace().skip(1);
                words.next() == Some(name) && words.collect::<Vec<_>>().join(" ") == rest
            })
            .unwrap_or_else(|| panic!("no stage line `{name} {rest}` in:\n{text}"))
    };
    let order = [
        stage_line("saved", "jsonl-source"),
        stage_line("captures", "wayback-cdx"),
        stage_line("pages", "wayback-fetch <- captures"),
        stage_line("write", "jsonl <- saved"),
    ];
    // Producers before consumers.
    assert!(order[0] < order[3] && order[1] < order[2], "{text}");

    // Each CDX query with its window, filters and collapse; the politeness.
    for query in ["CDX example.org/news/*", "CDX example.org/sport/*"] {
        let line = text.lines().find(|l| l.contains(query)).expect(&text);
        for part in [
            "window 2020-01-01 to 2020-01-31",
            "filters statuscode:200, mimetype:text/html",
            "collapse urlkey",
            "rows a request 1000",
        ] {
            assert!(line.contains(part), "{part:?} not in {line:?}");
        }
    }
    assert!(text.contains("CDX rate: 10 requests a minute"), "{text}");
    assert!(text.contains("page rate: 30 requests a minute"), "{text}");
    assert!(text.contains("at least 60s"), "{text}");

    // The estimate follows from the assumption it states.
    let listed = ASSUMED_LISTED_PER_PATTERN_DAY * 31;
    assert!(text.contains(&format!("assumed {ASSUMED_LISTED_PER_PATTERN_DAY} captures listed a day per pattern over 31 days")), "{text}");
    // January 2020 is listed in two chunks of the 30-day grid (from 1996-01-01):
    // the 1st to the 24th, the 25th to the 31st; each pattern a request per 1,000
    // rows of each chunk.
    let per_day = ASSUMED_LISTED_PER_PATTERN_DAY;
    assert_eq!(
        number_before(&text, "estimate: ", "CDX"),
        2 * ((per_day * 24).div_ceil(1000) + (per_day * 7).div_ceil(1000))
    );
    assert_eq!(number_before(&text, "estimate: ", "captures"), 2 * listed);
    assert_eq!(
        number_before(&text, "estimate of the run", "page"),
        2 * listed
    );

    // The problem comes after the plan, with its key path and line.
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).expect(&text);
    let problems = line_of("1 problem to fix");
    let missing = line_of(&format!(
        "line 8: stages.saved.paths[0]: environment variable `{UNSET}` is not set"
    ));
    assert!(
        line_of("estimate of the run") < problems && problems < missing,
        "{text}"
    );
}

#[test]
fn without_problems_the_dry_run_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = write_pipeline(dir.path(), "http://127.0.0.1:9", JANUARY);
    let o = dry_run(&pipeline, &[], false);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.contains("nothing was run") && !text.contains("problem"),
        "{text}"
    );
    assert!(!dir.path().join("out").exists(), "a dry run writes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn estimate_asks_the_cdx_server_once_per_pattern() {
    // 3,001 news captures span two index blocks, 5 sport captures one.
    let mut captures: Vec<MockCapture> = (0..=INDEX_LINES_PER_BLOCK)
        .map(|i| {
            MockCapture::html(
                &format!("http://example.org/news/{i}"),
                "20200105000000",
                "x",
            )
        })
        .collect();
    captures.extend((0..5).map(|i| {
        MockCapture::html(
            &format!("http://example.org/sport/{i}"),
            "20200105000000",
            "x",
        )
    }));
    let mock = MockWayback::start(Corpus::new(captures)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pipeline = write_pipeline(dir.path(), &mock.endpoint(), "");
    let o = tokio::task::spawn_blocking(move || dry_run(&pipeline, &["--estimate"], false))
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let requests = mock.log().requests();
    assert_eq!(
        requests.len(),
        2,
        "one count request per pattern: {:?}",
        requests.iter().map(|r| &r.target).collect::<Vec<_>>()
    );
    assert!(requests
        .iter()
        .all(|r| r.target.contains("showNumPages=true")));
    assert!(
        text.contains("asked the CDX server: 2 count requests"),
        "{text}"
    );

    // Two and one blocks of index lines, the whole index (no window), the stated
    // index lines per listed capture; rows a request 1000.
    assert!(text.contains("share of days (100% in all)"), "{text}");
    let listed =
        [2, 1].map(|blocks| blocks * INDEX_LINES_PER_BLOCK / ASSUMED_LINES_PER_COLLAPSED_ROW);
    assert_eq!(
        number_before(&text, "estimate: ", "captures"),
        listed.iter().sum::<u64>()
    );
    assert_eq!(
        number_before(&text, "estimate: ", "CDX"),
        listed.iter().map(|n| n.div_ceil(1000)).sum::<u64>()
    );
    assert_eq!(
        number_before(&text, "estimate of the run", "page"),
        listed.iter().sum::<u64>()
    );
}

/// A crawl of `example.org/news/*` in January 2020 into a crawl state and WARC
/// files in `dir`, its pages written to a JSONL file.
fn write_crawl(dir: &Path, endpoint: &str) -> String {
    let text = format!(
        r#"[pipeline]
name = "held"
cutoff = 2019-12-31
out = "{out}"

[stages.captures]
kind = "wayback-cdx"
urls = ["example.org/news/*"]
{JANUARY}
state = "{state}"
archive = {{ endpoint = "{endpoint}", cdx_rate = 6000, playback_rate = 6000 }}

[stages.pages]
kind = "wayback-fetch"
inputs = ["captures"]
archive = "captures"
state = "{state}"
warc_out = "{warc}"

[stages.write]
kind = "jsonl"
inputs = ["pages"]
path = "pages.jsonl"
"#,
        out = dir.join("out").display(),
        state = dir.join("crawl.sqlite").display(),
        warc = dir.join("warc").display(),
    );
    let path = dir.join("held.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_crawl_the_dry_run_counts_no_request_for_the_pages_the_warc_files_hold() {
    let captures: Vec<MockCapture> = (0..7)
        .map(|i| {
            MockCapture::html(
                &format!("http://example.org/news/{i}"),
                &format!("2020010{}120000", i + 1),
                "<html><body><p>held</p></body></html>",
            )
        })
        .collect();
    let mock = MockWayback::start(Corpus::new(captures)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pipeline = write_crawl(dir.path(), &mock.endpoint());
    let (crawl, plan) = tokio::task::spawn_blocking(move || {
        let crawl = Command::new(env!("CARGO_BIN_EXE_tempora"))
            .args(["run", &pipeline])
            .env("RUST_LOG", "warn")
            .output()
            .unwrap();
        (crawl, dry_run(&pipeline, &[], false))
    })
    .await
    .unwrap();
    assert_eq!(
        crawl.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&crawl.stderr)
    );
    let text = String::from_utf8_lossy(&plan.stdout).into_owned();
    assert_eq!(plan.status.code(), Some(0), "{text}");
    // The listing is read back from the state (its 7 captures, not the assumed
    // figure), and the WARC files hold every page: no request of either kind.
    assert_eq!(number_before(&text, "estimate: ", "captures"), 7, "{text}");
    assert!(
        text.contains("7 of the captures listed upstream have their page in the WARC files"),
        "{text}"
    );
    let run = text
        .lines()
        .find(|l| l.contains("estimate of the run"))
        .unwrap_or_else(|| panic!("no run estimate in:\n{text}"));
    assert!(run.contains("estimate of the run: no requests"), "{run}");

    // A month more: only its captures (assumed) are page requests.
    let pipeline = dir.path().join("held.toml").display().to_string();
    let plan = tokio::task::spawn_blocking(move || {
        dry_run(
            &pipeline,
            &["--set", "stages.captures.to=2020-02-29"],
            false,
        )
    })
    .await
    .unwrap();
    let text = String::from_utf8_lossy(&plan.stdout).into_owned();
    assert_eq!(plan.status.code(), Some(0), "{text}");
    let captures = number_before(&text, "estimate: ", "captures");
    assert!(captures > 7, "{text}");
    assert_eq!(
        number_before(&text, "estimate of the run", "page"),
        captures - 7,
        "{text}"
    );
}
