//! The `conflicts` stage run alone, with our fixture facts as its side input.

mod common;

use std::collections::HashMap;

use common::{article, as_article, ctx, fixture, options, run_with_facts};
use tempora_engine::testing::{run_stage, StageOutput};
use tempora_engine::{StageConfig, StageError};
use tempora_filter::ConflictsConfig;
use tempora_records::{Record, TextField};

const BIDEN_DOC: &str = "Joe Biden, the President of the United States, signed a series of \
    executive orders at the White House on Wednesday.\nThe orders pause new leases for drilling.";

fn config(toml_text: &str) -> Box<dyn StageConfig> {
    Box::new(ConflictsConfig::configure(options(toml_text), &ctx("2019-12-31")).unwrap())
}

async fn run(extra: &str, input: Vec<Record>) -> StageOutput {
    run_with_facts(
        config(&format!("facts = \"facts\"\n{extra}")),
        &ctx("2019-12-31"),
        input,
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_2021_biden_article_is_kept_with_its_facts_and_mentions() {
    let input = vec![article(
        "1",
        "2021-01-28",
        "President Biden has signed orders.",
        BIDEN_DOC,
    )];
    let out = run("", input).await;
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    let kept = as_article(&out.out()[0]);
    let facts: Vec<(&str, &str, &str, bool)> = kept
        .facts
        .iter()
        .map(|m| {
            (
                m.fact.subject.id.as_str(),
                m.fact.relation.as_str(),
                m.fact.object.id.as_str(),
                m.after_change,
            )
        })
        .collect();
    // Biden holds the office (P1308 of the office, P39 of Biden); Trump is not named.
    assert_eq!(
        facts,
        [
            ("Q11696", "P1308", "Q6279", true),
            ("Q6279", "P39", "Q11696", true)
        ]
    );
    let mentions: Vec<(&str, &str, TextField)> = kept.facts[0]
        .mentions
        .iter()
        .map(|m| (m.entity.as_str(), m.name.as_str(), m.field))
        .collect();
    assert_eq!(
        mentions,
        [
            (
                "Q11696",
                "President of the United States",
                TextField::Document
            ),
            ("Q11696", "President", TextField::Summary),
            ("Q6279", "Joe Biden", TextField::Document),
            ("Q6279", "Biden", TextField::Summary),
        ]
    );
    assert_eq!(out.stats.counters()["kept_after_change"], 1);
}

#[tokio::test]
async fn without_a_summary_mention_criterion_2_fails() {
    let input = vec![article(
        "2",
        "2021-01-28",
        "New leases are paused under orders signed on Wednesday.",
        BIDEN_DOC,
    )];
    let out = run("", input).await;
    assert!(out.out().is_empty());
    assert_eq!(out.rejected.len(), 1);
    assert!(
        out.rejected[0]
            .reason
            .starts_with("criterion 2 failed: the summary names no"),
        "{:?}",
        out.rejected
    );
    assert_eq!(out.rejected[0].record["id"], "2");
    assert_eq!(out.stats.counters()["rejected_criterion_2"], 1);
}

#[tokio::test]
async fn naming_only_the_subject_fails_criterion_1_and_says_what_was_named() {
    let input = vec![article(
        "3",
        "2021-02-10",
        "Joe Biden's dog is back in Delaware.",
        "Joe Biden's dog Major was moved back to Delaware.",
    )];
    let out = run("", input).await;
    let reason = &out.rejected[0].reason;
    assert!(reason.starts_with("criterion 1 failed"), "{reason}");
    assert!(reason.contains("only Joe Biden (Q6279)"), "{reason}");
    assert_eq!(out.stats.counters()["rejected_criterion_1"], 1);
}

/// An article that says "Bidenomics" and names the office, not Biden.
fn bidenomics() -> Vec<Record> {
    let doc = "Bidenomics is the name given to plans of the President of the United States.";
    vec![article(
        "4",
        "2021-06-01",
        "Bidenomics divides economists.",
        doc,
    )]
}

#[tokio::test]
async fn bidenomics_is_not_biden() {
    let out = run("", bidenomics()).await;
    let reason = &out.rejected[0].reason;
    assert!(
        reason.contains("only President of the United States (Q11696)"),
        "{reason}"
    );
    assert!(!reason.contains("Biden ("), "{reason}");
}

#[tokio::test]
async fn bidenomics_names_biden_when_whole_words_are_off() {
    let out = run("whole_words = false", bidenomics()).await;
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    let kept = as_article(&out.out()[0]);
    let mentions = &kept.facts[0].mentions;
    assert!(
        mentions
            .iter()
            .any(|m| m.entity == "Q6279" && m.name == "Biden" && m.field == TextField::Summary),
        "{mentions:?}"
    );
}

#[tokio::test]
async fn facts_that_did_not_change_do_not_count() {
    // Macron's office has one holder in the fixture: not an evolving pair.
    let doc = "Emmanuel Macron, the President of France, spoke in Paris.";
    let out = run(
        "",
        vec![article("5", "2021-05-01", "Emmanuel Macron spoke.", doc)],
    )
    .await;
    assert!(
        out.rejected[0]
            .reason
            .contains("no name of an evolving fact"),
        "{:?}",
        out.rejected
    );
}

#[tokio::test]
async fn the_prime_minister_counts_when_the_country_is_named() {
    let summary = "Boris Johnson has ordered people to stay at home.";
    let with_uk = "The prime minister, Boris Johnson, said people in the UK must stay at home.";
    let without = "The prime minister, Boris Johnson, said people must stay at home.";
    let input = vec![
        article("6", "2020-03-23", summary, with_uk),
        article("7", "2020-03-23", summary, without),
    ];

    let out = run("", input.clone()).await;
    let kept: Vec<&str> = out
        .out()
        .iter()
        .map(|r| as_article(r).id.as_str())
        .collect();
    assert_eq!(kept, ["6"]);
    let facts = &as_article(&out.out()[0]).facts;
    assert_eq!(facts.len(), 1);
    assert!(!facts[0].after_change, "published before the 2022 change");

    let full = run("position_names = \"full\"", input.clone()).await;
    assert!(full.out().is_empty());
    let head = run("position_names = \"head\"", input.clone()).await;
    assert_eq!(head.out().len(), 2);
    let exact = run("case_sensitive = true", input).await;
    assert!(
        exact.out().is_empty(),
        "'prime minister' is not 'Prime Minister' with exact case"
    );
}

#[tokio::test]
async fn a_title_before_a_holder_counts_without_the_country() {
    let summary = "Vice President Kamala Harris casts the deciding vote.";
    let harris = "Vice President Kamala Harris cast the tie-breaking vote in the Senate.";
    let kept = run("", vec![article("12", "2021-03-06", summary, harris)]).await;
    let facts: Vec<(&str, &str)> = as_article(&kept.out()[0])
        .facts
        .iter()
        .map(|m| (m.fact.subject.id.as_str(), m.fact.object.id.as_str()))
        .collect();
    assert_eq!(facts, [("Q11699", "Q10853588")]);
    // Not when the name after the title is not a holder of that office.
    let doc = "President Emmanuel Macron spoke to Joe Biden on Tuesday.";
    let out = run(
        "",
        vec![article(
            "13",
            "2021-05-01",
            "Joe Biden spoke to Paris.",
            doc,
        )],
    )
    .await;
    assert!(
        out.rejected[0].reason.contains("only Joe Biden (Q6279)"),
        "{:?}",
        out.rejected
    );
    let full = run(
        "position_names = \"full\"",
        vec![article("12", "2021-03-06", summary, doc)],
    )
    .await;
    assert!(full.out().is_empty());
}

#[tokio::test]
async fn other_offices_and_other_qualifiers_are_not_the_head() {
    let summary = "Boris Johnson has named a new deputy prime minister.";
    let input = vec![
        article(
            "8",
            "2021-09-15",
            summary,
            "Boris Johnson has made Dominic Raab deputy prime minister of the UK government.",
        ),
        article(
            "9",
            "2021-09-15",
            summary,
            "Boris Johnson met the prime minister of Canada in the UK.",
        ),
    ];
    let out = run("position_names = \"head\"", input).await;
    assert!(out.out().is_empty(), "{:?}", out.out());
    assert!(out
        .rejected
        .iter()
        .all(|r| r.reason.starts_with("criterion 1 failed")));
}

#[tokio::test]
async fn aliases_and_short_names_follow_the_options() {
    // "Joe" (3 characters) is an alias of Biden; "Biden" is an alias too.
    let doc = "Joe spoke as President of the United States.";
    let input = vec![article("10", "2021-03-01", "Biden spoke.", doc)];
    assert!(run("", input.clone()).await.out().is_empty());
    assert_eq!(
        run("min_name_chars = 3", input.clone()).await.out().len(),
        1
    );
    let labels_only = run("min_name_chars = 3\nuse_aliases = false", input).await;
    assert!(labels_only.out().is_empty());
}

#[tokio::test]
async fn summary_same_fact_ties_criterion_2_to_the_named_fact() {
    // The document names Biden as president; the summary names only Merkel.
    let input = vec![article(
        "11",
        "2021-03-01",
        "Angela Merkel welcomed the orders.",
        BIDEN_DOC,
    )];
    assert_eq!(run("", input.clone()).await.out().len(), 1);
    let strict = run("summary_same_fact = true", input).await;
    assert!(
        strict.rejected[0]
            .reason
            .contains("of the 2 fact(s) the document names"),
        "{:?}",
        strict.rejected
    );
}

#[tokio::test]
async fn a_facts_file_gives_the_same_selection_as_the_side_input() {
    let input = common::fixture_articles();
    let side = run("", input.clone()).await;
    let file_config = config(&format!(
        "facts_file = {:?}",
        fixture("conflicts/facts.jsonl")
    ));
    let file = run_stage(file_config, &ctx("2019-12-31"), input, HashMap::new())
        .await
        .unwrap();
    assert_eq!(side.out(), file.out());
    assert_eq!(side.rejected.len(), file.rejected.len());
}

#[tokio::test]
async fn facts_for_another_cutoff_stop_the_run() {
    let late = ctx("2021-06-30");
    let config = Box::new(ConflictsConfig::configure(options("facts = \"facts\""), &late).unwrap());
    let err = run_with_facts(config, &late, Vec::new()).await.unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("side input `facts`, fact #1")
            && msg.contains("on or before the pipeline cutoff 2021-06-30"),
        "{msg}"
    );
}

#[tokio::test]
async fn bad_facts_files_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let err = run_file(&missing).await.unwrap_err();
    assert!(
        matches!(err, StageError::Input { .. }) && err.to_string().contains("missing.jsonl"),
        "{err}"
    );

    let broken = dir.path().join("facts.jsonl");
    let good = std::fs::read_to_string(fixture("conflicts/facts.jsonl")).unwrap();
    let first = good.lines().next().unwrap();
    std::fs::write(
        &broken,
        format!(
            "{first}\n\n{}\n",
            first.replace("\"relation\"", "\"relatio\"")
        ),
    )
    .unwrap();
    let msg = run_file(&broken).await.unwrap_err().to_string();
    assert!(
        msg.contains("facts.jsonl:3: not a fact") && msg.contains("relation"),
        "{msg}"
    );

    let parquet = dir.path().join("facts.parquet");
    std::fs::write(&parquet, "PAR1").unwrap();
    let msg = run_file(&parquet).await.unwrap_err().to_string();
    assert!(
        msg.contains("facts.parquet") && msg.contains("JSONL"),
        "{msg}"
    );
}

async fn run_file(path: &std::path::Path) -> Result<StageOutput, StageError> {
    let config = config(&format!("facts_file = {path:?}"));
    assert_eq!(config.reads()[0].1, path);
    run_stage(config, &ctx("2019-12-31"), Vec::new(), HashMap::new()).await
}

#[test]
fn options_need_exactly_one_source_of_facts() {
    let ctx = ctx("2019-12-31");
    let errors = ConflictsConfig::configure(options(""), &ctx).unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("facts"));
    let errors =
        ConflictsConfig::configure(options("facts = \"f\"\nfacts_file = \"f.jsonl\""), &ctx)
            .unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("facts_file"));
    let errors =
        ConflictsConfig::configure(options("facts = \"f\"\nmin_name_chars = 0"), &ctx).unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("min_name_chars"));
    let errors =
        ConflictsConfig::configure(options("facts = \"f\"\nposition_names = \"short\""), &ctx)
            .unwrap_err();
    assert!(errors[0].message.contains("short"), "{errors:?}");
    let errors =
        ConflictsConfig::configure(options("facts = \"f\"\ncase = true"), &ctx).unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("case"));

    let config = ConflictsConfig::configure(options("facts = \"facts\""), &ctx).unwrap();
    let side = config.side_inputs();
    assert_eq!(
        (side[0].key.as_str(), side[0].from.as_str()),
        ("facts", "facts")
    );
    assert!(config.reads().is_empty());
}

/// The facts in another order (as another dump would give them) select the same
/// articles with the same facts and mentions in the same order, and reject the
/// others with the same words.
#[tokio::test]
async fn the_facts_order_changes_no_output() {
    let input = common::fixture_articles();
    let ctx = ctx("2019-12-31");
    let with = |facts: Vec<Record>| {
        let input = input.clone();
        let ctx = ctx.clone();
        async move {
            let side = HashMap::from([("facts".to_string(), facts)]);
            let out = run_stage(config("facts = \"facts\""), &ctx, input, side)
                .await
                .unwrap();
            let rejected: Vec<String> = out
                .rejected
                .iter()
                .map(|r| serde_json::to_string(r).unwrap())
                .collect();
            (out.out().to_vec(), rejected)
        }
    };
    let facts = common::fixture_facts();
    let first = with(facts.clone()).await;
    assert!(
        first.0.iter().any(|r| as_article(r).facts.len() > 1),
        "the fixtures hold an article with several facts"
    );
    let mut reversed = facts.clone();
    reversed.reverse();
    assert_eq!(with(reversed).await, first);
    let mut rotated = facts;
    rotated.rotate_left(7);
    assert_eq!(with(rotated).await, first);
}

/// A club's head coach (`P286`: club -> person) who changed after the cutoff.
fn coach_fact(person: (&str, &str), start: &str, end: Option<&str>, valid: bool) -> Record {
    let fact = serde_json::json!({
        "subject": { "id": "Q9200001", "label": "Harwick Rovers F.C.", "aliases": ["Harwick Rovers"] },
        "relation": "P286",
        "object": { "id": person.0, "label": person.1, "aliases": [] },
        "start": start, "end": end, "rank": "normal",
        "valid_at_cutoff": valid, "pair_changed": "2020-06-01",
    });
    Record::Fact(Box::new(serde_json::from_value(fact).unwrap()))
}

#[tokio::test]
async fn an_article_carries_the_relations_of_its_conflicts_as_the_facts_give_them() {
    let mut facts = common::fixture_facts();
    facts.push(coach_fact(
        ("Q9200011", "Ada Brennan"),
        "2015-07-01",
        Some("2020-06-01"),
        true,
    ));
    facts.push(coach_fact(
        ("Q9200012", "Ivo Marsh"),
        "2020-06-01",
        None,
        false,
    ));
    let input = vec![
        article(
            "1",
            "2021-01-28",
            "President Biden has signed orders.",
            BIDEN_DOC,
        ),
        article(
            "2",
            "2021-02-02",
            "Ivo Marsh says his side can still go up.",
            "Harwick Rovers manager Ivo Marsh praised his players after the win.\n\
             Joe Biden, the President of the United States, was not at the game.",
        ),
    ];
    let side = HashMap::from([("facts".to_string(), facts)]);
    let out = run_stage(config("facts = \"facts\""), &ctx("2019-12-31"), input, side)
        .await
        .unwrap();
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    let relations: Vec<(&str, Vec<&str>)> = out
        .out()
        .iter()
        .map(as_article)
        .map(|a| {
            (
                a.id.as_str(),
                a.relations.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    // The facts' own properties, each once, sorted: P1308 stays P1308 (the
    // catalogue's role, P39, is not put in its place).
    assert_eq!(
        relations,
        [
            ("1", vec!["P1308", "P39"]),
            ("2", vec!["P1308", "P286", "P39"])
        ]
    );
    // Counted per relation, for the card and the nightly health check.
    let counters = out.stats.counters();
    let kept = |relation: &str| counters[&format!("kept {relation}")];
    assert_eq!((kept("P39"), kept("P1308"), kept("P286")), (2, 2, 1));
    let kept = as_article(&out.out()[1]);
    let mut of_facts: Vec<&str> = kept
        .facts
        .iter()
        .map(|m| m.fact.relation.as_str())
        .collect();
    of_facts.dedup();
    assert!(of_facts.contains(&"P286"), "{of_facts:?}");
}
