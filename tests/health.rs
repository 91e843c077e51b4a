//! `pipelines/nightly-bbc.toml` night after night against the testkit's model of
//! BBC News and Sport in the Archive: ordinary nights raise no finding; the
//! first night BBC's pages come in a layout no profile knows, and the first
//! night the Archive took no BBC Sport page, are findings with their numbers, in
//! the summary, run.json and the card, and the run exits 24.

use std::path::Path;
use std::process::{Command, Output};

use tempora_testkit::newssite::{Change, Nights, NightsSpec};
use tempora_testkit::{Corpus, MockWayback};

/// The shipped nightly pipeline against `server`, its state and outputs in `dir`.
fn night(server: &MockWayback, dir: &Path) -> Output {
    let state = format!("{:?}", dir.join("state.sqlite").display().to_string());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_LOG", "warn")
        .env("TEMPORA_CONTACT", "tests@example.org")
        .args(["run", "pipelines/nightly-bbc.toml", "--progress", "off"]);
    for (key, value) in [
        (
            "pipeline.out",
            format!("{:?}", dir.join("out").display().to_string()),
        ),
        (
            "stages.captures.archive.endpoint",
            format!("{:?}", server.endpoint()),
        ),
        ("stages.captures.archive.cdx_rate", "0".into()),
        ("stages.captures.archive.playback_rate", "0".into()),
        // One listing request a URL pattern a night (operational: the same captures).
        ("stages.captures.chunk_days", "36500".into()),
        ("stages.captures.state", state.clone()),
        ("stages.wanted.state", state.clone()),
        ("stages.pages.state", state),
        (
            "stages.pages.warc_out",
            format!("{:?}", dir.join("warc").display().to_string()),
        ),
    ] {
        cmd.arg("--set").arg(format!("{key}={value}"));
    }
    cmd.output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn health(dir: &Path) -> serde_json::Value {
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("out/run.json")).unwrap()).unwrap();
    run["health"].clone()
}

/// Ten ordinary nights (after three days of history), each checked and each `ok`.
fn ordinary_nights(site: &mut Nights, server: &MockWayback, dir: &Path) {
    for _ in 0..3 {
        for c in site.next_day(Change::None) {
            server.add_capture(c);
        }
    }
    for n in 1..=10 {
        for c in site.next_day(Change::None) {
            server.add_capture(c);
        }
        let out = night(server, dir);
        assert_eq!(out.status.code(), Some(0), "night {n}:\n{}", text(&out));
        let health = health(dir);
        assert_eq!(health["status"], "ok", "night {n}: {health:#}");
        if n == 1 {
            assert!(
                text(&out).contains("health: ok (nothing to compare with"),
                "{}",
                text(&out)
            );
        }
        if n == 10 {
            assert_eq!(health["compared_with"], 9, "{health:#}");
            assert!(
                health["note"].is_null(),
                "every figure judged by night 10: {health:#}"
            );
            assert!(
                text(&out).contains("health: ok (every figure within the last 9 runs' range)"),
                "{}",
                text(&out)
            );
        }
    }
}

fn findings(health: &serde_json::Value) -> Vec<String> {
    health["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["figure"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_layout_no_profile_knows_is_flagged_on_its_first_night() {
    let server = MockWayback::start(Corpus::new([])).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut site = Nights::new(NightsSpec::default());
    tokio::task::block_in_place(|| ordinary_nights(&mut site, &server, dir.path()));

    for c in site.next_day(Change::UnknownLayout) {
        server.add_capture(c);
    }
    let out = tokio::task::block_in_place(|| night(&server, dir.path()));
    let said = text(&out);
    assert_eq!(out.status.code(), Some(24), "{said}");
    let health = health(dir.path());
    assert_eq!(health["status"], "warn", "{health:#}");
    let found = findings(&health);
    for figure in [
        "pages rejected as not_recognised",
        "articles kept",
        "articles bbc/news",
    ] {
        assert!(
            found.contains(&figure.to_string()),
            "{figure} not in {found:?}"
        );
    }
    let share = &health["findings"][found
        .iter()
        .position(|f| f == "pages rejected as not_recognised")
        .unwrap()];
    assert!(share["value"].as_f64().unwrap() > 0.9, "{share:#}");
    assert!(share["expected"].as_f64().unwrap() < 0.1, "{share:#}");
    assert!(said.contains("health: warn:"), "{said}");
    assert!(
        said.contains("finding: pages rejected as not_recognised: 100% this run"),
        "{said}"
    );
    // The card says it too, with the runs' kept articles.
    let card = std::fs::read_to_string(dir.path().join("out/README.md")).unwrap();
    assert!(card.contains("## Refresh health"), "{card}");
    assert!(card.contains("pages rejected as not_recognised"), "{card}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_section_the_archive_stopped_capturing_is_flagged_on_its_first_night() {
    let server = MockWayback::start(Corpus::new([])).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut site = Nights::new(NightsSpec {
        seed: 6,
        ..NightsSpec::default()
    });
    tokio::task::block_in_place(|| ordinary_nights(&mut site, &server, dir.path()));

    for c in site.next_day(Change::NoSport) {
        server.add_capture(c);
    }
    let out = tokio::task::block_in_place(|| night(&server, dir.path()));
    let said = text(&out);
    assert_eq!(out.status.code(), Some(24), "{said}");
    let health = health(dir.path());
    let mut found = findings(&health);
    found.sort();
    assert_eq!(
        found,
        ["articles bbc/sport", "captures listed bbc.co.uk/sport/*"],
        "{health:#}"
    );
    for f in health["findings"].as_array().unwrap() {
        assert_eq!(f["value"], 0.0, "{f:#}");
        assert!(f["expected"].as_f64().unwrap() >= 10.0, "{f:#}");
    }
    assert!(
        said.contains("finding: articles bbc/sport: 0 this run"),
        "{said}"
    );
}
