//! A relation Tempora has never heard of, added as a catalogue entry and
//! nothing else: a museum's director (`P1037`, director / manager), declared in
//! a folder of the test's own. Its facts are read from a dump by name, its
//! articles are selected and carry it, minimal pairs swap its holder, and
//! `tempora score --catalogue` judges "Harbour Museum director X" as a claim of
//! it; the shipped catalogue alone sees no claim there.

mod common;

use std::path::Path;
use std::process::Output;

use common::bin::tempora_in;
use common::jsonl::lines;
use common::said::said;
use common::wikidata::entity_line;
use tempora_testkit::{Corpus, MockCapture, MockWayback};

const ENTRY: &str = r#"
name = "director"
property = "P1037"
label = "director / manager"
person = "object"
other = "museum"
classes = ["Q33506"]
role = "director of {other}"
words = [{ word = "director", plural = "directors" }]
"#;

const PROFILE: &str = r#"
site = "courier"
publisher = "The Selby Courier"
hosts = ["selbycourier.example"]
id = ['/story/(\d{4,})/?$']
dates = [{ json_ld = "datePublished" }]

[[layouts]]
name = "courier-story"
detect = [".cr-story"]
title = ["h1.cr-headline"]
summary = { select = "p.cr-standfirst", source = "intro" }
body = [".cr-body p"]
"#;

/// A story of `day` (YYYY-MM-DD) whose standfirst is `summary`.
fn page(id: u32, day: &str, summary: &str) -> String {
    let paragraph = |n: u32| {
        format!(
            "<p>Paragraph {n}: the Harbour Museum's director Tomas Grey, who took over from \
             Ada Vell in the spring, showed the press round the new maritime gallery, which \
             holds the town's old lifeboat and the charts of the inner basin.</p>"
        )
    };
    format!(
        "<!DOCTYPE html>\n<html><head><title>Story {id} | Selby Courier</title>\n\
         <script type=\"application/ld+json\">{{\"@type\":\"NewsArticle\",\"datePublished\":\"{day}T08:00:00Z\"}}</script>\n\
         </head><body><div class=\"cr-story\"><h1 class=\"cr-headline\">Museum story {id}</h1>\n\
         <p class=\"cr-standfirst\">{summary}</p>\n\
         <div class=\"cr-body\">{}{}{}</div></div></body></html>\n",
        paragraph(1),
        paragraph(2),
        paragraph(3)
    )
}

fn pipeline(endpoint: &str) -> String {
    format!(
        r#"[pipeline]
name = "museum"
cutoff = 2020-12-31
out = "out"

[stages.facts]
kind = "wikidata"
dump = "dump.json"
relations = ["director"]
catalogue = "relations"

[stages.captures]
kind = "wayback-cdx"
urls = ["selbycourier.example/story/*"]
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
sites = ["courier"]
profiles = "profiles"

[stages.conflicts]
kind = "conflicts"
inputs = ["articles"]
facts = "facts"

[stages.split]
kind = "split"
inputs = ["conflicts"]

[stages.pairs]
kind = "minimal-pairs"
inputs = ["split.future"]
facts = "facts"
catalogue = "relations"

[stages.write]
kind = "jsonl"
inputs = ["split.in_distribution", "split.future"]
path = "{{split}}.jsonl"

[stages.write_parquet]
kind = "parquet"
inputs = ["split.in_distribution", "split.future"]
path = "{{split}}.parquet"

[stages.write_pairs]
kind = "jsonl"
inputs = ["pairs"]
path = "pairs.jsonl"

[stages.write_facts]
kind = "jsonl"
inputs = ["facts"]
path = "facts.jsonl"
"#
    )
}

/// `tempora ARGS` in `dir`, off the runtime's thread (the mock Archive answers
/// on it meanwhile).
fn tempora(dir: &Path, args: &[&str]) -> Output {
    tokio::task::block_in_place(|| tempora_in(dir, args))
}

fn write_inputs(dir: &Path) {
    for folder in ["relations", "profiles"] {
        std::fs::create_dir(dir.join(folder)).unwrap();
    }
    std::fs::write(dir.join("relations/director.toml"), ENTRY).unwrap();
    std::fs::write(dir.join("profiles/courier.toml"), PROFILE).unwrap();
    let museum = entity_line(
        "Q9300001",
        "Harbour Museum",
        &[
            ("P1037", "Q9300011", "2012-01-01", Some("2021-05-01")),
            ("P1037", "Q9300012", "2021-05-01", None),
        ],
    );
    let dump = [
        museum,
        entity_line("Q9300011", "Ada Vell", &[]),
        entity_line("Q9300012", "Tomas Grey", &[]),
    ];
    std::fs::write(
        dir.join("dump.json"),
        format!("[\n{}\n]\n", dump.join(",\n")),
    )
    .unwrap();
    std::fs::write(
        dir.join("stale.jsonl"),
        "{\"id\":\"20001\",\"summary\":\"Harbour Museum director Ada Vell has opened a new gallery.\"}\n\
         {\"id\":\"20002\",\"summary\":\"Harbour Museum director Tomas Grey has opened a new gallery.\"}\n",
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relation_declared_only_here_goes_through_every_stage() {
    let summary = "Harbour Museum director Tomas Grey has opened a new maritime gallery.";
    let captures = vec![
        MockCapture::html(
            "https://www.selbycourier.example/story/20001",
            "20220310120000",
            page(20_001, "2022-03-09", summary),
        ),
        MockCapture::html(
            "https://www.selbycourier.example/story/20002",
            "20220412120000",
            page(20_002, "2022-04-11", summary),
        ),
    ];
    let server = MockWayback::start(Corpus::new(captures)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path());
    std::fs::write(
        dir.path().join("pipeline.toml"),
        pipeline(&server.endpoint()),
    )
    .unwrap();
    let run = tempora(dir.path(), &["run", "pipeline.toml", "--progress", "off"]);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));

    // The facts: read by the entry's name, carrying its property.
    let facts = lines(&dir.path().join("out/facts.jsonl"));
    assert_eq!(facts.len(), 2, "{facts:?}");
    assert!(facts.iter().all(|f| f["relation"] == "P1037"));
    // The articles name both sides and carry the relation.
    let future = lines(&dir.path().join("out/future.jsonl"));
    assert_eq!(future.len(), 2, "{}", said(&run));
    for a in &future {
        assert_eq!(a["relations"], serde_json::json!(["P1037"]), "{a}");
    }
    // The pairs put in the director at the cutoff.
    let pairs = lines(&dir.path().join("out/pairs.jsonl"));
    let outdated: Vec<&serde_json::Value> = pairs
        .iter()
        .filter(|p| p["fact_error"] == "outdated")
        .collect();
    assert_eq!(outdated.len(), 2, "{pairs:?}");
    for p in outdated {
        assert_eq!(
            p["edited_summary"],
            "Harbour Museum director Ada Vell has opened a new maritime gallery."
        );
    }
    // The card counts the set's articles by the relation.
    let card = std::fs::read_to_string(dir.path().join("out/README.md")).unwrap();
    assert!(card.contains("P1037"), "{card}");

    // Scored with the folder: the stale summary's claim is outdated, of P1037.
    let score = |extra: &[&str]| {
        let mut args = vec![
            "score",
            "out",
            "--predictions",
            "stale.jsonl",
            "--no-reference",
        ];
        args.extend_from_slice(extra);
        let out = tempora(dir.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", said(&out));
        lines(&dir.path().join("out/scores/scores.jsonl"))
    };
    let scores = score(&["--catalogue", "relations"]);
    let verdicts: Vec<(&str, &str, &str)> = scores
        .iter()
        .flat_map(|s| s["claims"].as_array().unwrap())
        .map(|c| {
            (
                c["person"]["label"].as_str().unwrap(),
                c["relation"].as_str().unwrap(),
                c["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("Ada Vell", "P1037", "outdated"),
            ("Tomas Grey", "P1037", "current")
        ]
    );
    // The shipped catalogue does not know the relation: no claim at all.
    let scores = score(&[]);
    assert!(
        scores
            .iter()
            .all(|s| s["claims"].as_array().unwrap().is_empty()),
        "{scores:?}"
    );
}
