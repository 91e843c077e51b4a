//! A site Tempora has never heard of, added as a profile and nothing else: a
//! made-up newspaper, the Harbour Gazette, with its own markup, ids, an edition
//! host and a citation, crawled from the mock Archive end to end. Its articles
//! are extracted by its profile, its edition's URL is the same story when the
//! exclusion list is compared, and the dataset card cites its dataset.

mod common;

use std::process::Command;

use common::jsonl::lines;
use common::said::said;
use tempora_testkit::{Corpus, MockCapture, MockWayback};

const PROFILE: &str = r#"
site = "gazette"
publisher = "The Harbour Gazette"
hosts = ["harbourgazette.example"]
editions = ["intl.harbourgazette.example"]
id = ['/story/(\d{4,})/?$']
dates = [{ json_ld = "datePublished" }]
citation = """
@misc{harbour-gazette-2024,
  title = {The Harbour Gazette Summaries},
  year = {2024}
}
"""

[[layouts]]
name = "gz-story"
detect = [".gz-story"]
title = ["h1.gz-headline"]
summary = { select = "p.gz-standfirst", source = "intro" }
body = [".gz-body p"]
"#;

fn page(id: u32, day: u32) -> String {
    let paragraph = |n: u32| {
        format!(
            "<p>Paragraph {n} of story {id}: the harbour board met on Tuesday to discuss the \
             new ferry timetable, the cost of dredging the inner basin and the plans for the \
             old fish market, which traders say has been neglected for years.</p>"
        )
    };
    format!(
        "<!DOCTYPE html>\n<html><head><title>Story {id} | Harbour Gazette</title>\n\
         <script type=\"application/ld+json\">{{\"@type\":\"NewsArticle\",\"datePublished\":\"2024-03-{day:02}T08:00:00Z\"}}</script>\n\
         </head><body><div class=\"gz-story\"><h1 class=\"gz-headline\">Harbour board story {id}</h1>\n\
         <p class=\"gz-standfirst\">The harbour board has approved plan {id} for the quay.</p>\n\
         <div class=\"gz-body\">{}{}{}</div></div></body></html>\n",
        paragraph(1),
        paragraph(2),
        paragraph(3)
    )
}

fn pipeline(endpoint: &str) -> String {
    format!(
        r#"[pipeline]
name = "gazette"
cutoff = 2023-12-31
out = "out"

[stages.captures]
kind = "wayback-cdx"
urls = ["harbourgazette.example/story/*", "intl.harbourgazette.example/story/*"]
state = "state.sqlite"
archive = {{ endpoint = "{endpoint}", contact = "tests@example.org", cdx_rate = 0, playback_rate = 0 }}

[stages.pages]
kind = "wayback-fetch"
inputs = ["captures"]
state = "state.sqlite"
warc_out = "warc"
archive = "captures"

[stages.articles]
kind = "extract"
inputs = ["pages"]
sites = ["gazette"]
profiles = "profiles"

[stages.unseen]
kind = "exclude"
inputs = ["articles"]
cnndm_urls = ["list.txt"]
profiles = "profiles"

[stages.split]
kind = "split"
inputs = ["unseen"]

[stages.write]
kind = "jsonl"
inputs = ["split.in_distribution", "split.future"]
path = "{{split}}.jsonl"

[stages.write_parquet]
kind = "parquet"
inputs = ["split.in_distribution", "split.future"]
path = "{{split}}.parquet"
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_made_up_site_is_added_as_a_profile_and_nothing_else() {
    let mut captures: Vec<MockCapture> = (1..=5)
        .map(|i| {
            let id = 10_000 + i;
            MockCapture::html(
                &format!("https://www.harbourgazette.example/story/{id}"),
                &format!("202403{:02}120000", i + 1),
                page(id, i),
            )
        })
        .collect();
    // One story only on the edition host; the CNN/DailyMail-style list names it
    // on the site's own host.
    captures.push(MockCapture::html(
        "https://intl.harbourgazette.example/story/10006",
        "20240310120000",
        page(10_006, 9),
    ));
    let server = MockWayback::start(Corpus::new(captures)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("profiles")).unwrap();
    std::fs::write(dir.path().join("profiles/gazette.toml"), PROFILE).unwrap();
    std::fs::write(
        dir.path().join("list.txt"),
        "http://harbourgazette.example/story/10006\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pipeline.toml"),
        pipeline(&server.endpoint()),
    )
    .unwrap();

    let out = tokio::task::block_in_place(|| {
        Command::new(env!("CARGO_BIN_EXE_tempora"))
            .current_dir(dir.path())
            .args(["run", "pipeline.toml", "--progress", "off"])
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    });
    let said = said(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");

    let future = lines(&dir.path().join("out/future.jsonl"));
    let ids: Vec<&str> = future.iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["10001", "10002", "10003", "10004", "10005"], "{said}");
    for a in &future {
        assert_eq!(a["source"], "gazette");
        assert_eq!(a["section"], "news");
        assert_eq!(a["summary_source"], "intro");
        let id = a["id"].as_str().unwrap();
        assert_eq!(
            a["summary"],
            format!("The harbour board has approved plan {id} for the quay.")
        );
        assert!(a["document"]
            .as_str()
            .unwrap()
            .starts_with("Paragraph 1 of story"));
    }
    // The edition's story is the list's: excluded.
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/run.json")).unwrap()).unwrap();
    let unseen = run["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "unseen")
        .unwrap();
    assert_eq!(
        unseen["counters"]["excluded_cnndm_list.txt"], 1,
        "{unseen:#}"
    );

    // The card cites the site's dataset, and no other site's.
    let card = std::fs::read_to_string(dir.path().join("out/README.md")).unwrap();
    assert!(card.contains("@misc{harbour-gazette-2024,"), "{card}");
    assert!(
        !card.contains("narayan-etal-2018") && !card.contains("hermann-etal-2015"),
        "{card}"
    );
    // Its licence names the site's publisher, as its profile does, and no other
    // site; its summaries are told by what they are, not as another site's;
    // its exclusion line names the one list it was given.
    let licence = card
        .lines()
        .find(|l| l.starts_with("The articles, summaries and titles are"))
        .unwrap_or_else(|| panic!("no licence line in {card}"));
    assert!(
        licence.contains("are the work of The Harbour Gazette, retrieved"),
        "{licence}"
    );
    assert!(
        card.contains("says what each is): `gazette` `intro` (5)."),
        "{card}"
    );
    for other in ["BBC", "XSum", "bbc.co.uk"] {
        assert!(!card.contains(other), "{other} in {card}");
    }
    let excluded = card
        .lines()
        .find(|l| l.starts_with("- **Exclusion lists** (stage `unseen`)"))
        .unwrap_or_else(|| panic!("no exclusion line in {card}"));
    assert!(
        excluded.contains("articles listed in CNN/DailyMail's URL lists `list.txt` (modified"),
        "{excluded}"
    );
    assert!(!excluded.contains("XSum"), "{excluded}");
}
