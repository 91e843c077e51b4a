//! The `exclude` stage run alone on our fixture lists.

mod common;

use std::collections::HashMap;

use common::{article, as_article, ctx, fixture, options};
use tempora_engine::testing::{run_stage, StageOutput};
use tempora_engine::{StageConfig, StageError};
use tempora_filter::ExcludeConfig;
use tempora_records::{Article, Record};

fn config(toml_text: &str) -> Box<dyn StageConfig> {
    Box::new(ExcludeConfig::configure(options(toml_text), &ctx("2019-12-31")).unwrap())
}

fn lists_toml(extra: &str) -> String {
    format!(
        "xsum_split = {:?}\ncnndm_urls = [{:?}, {:?}]\n{extra}",
        fixture("exclude/xsum-split.json"),
        fixture("exclude/cnndm-train-urls.txt"),
        fixture("exclude/cnndm-test-urls.txt"),
    )
}

async fn run(config: Box<dyn StageConfig>, input: Vec<Record>) -> Result<StageOutput, StageError> {
    run_stage(config, &ctx("2019-12-31"), input, HashMap::new()).await
}

fn cnn(url: &str) -> Record {
    let mut a: Article = as_article(&article("x", "2015-04-01", "s", "d")).clone();
    a.source = "cnn".into();
    a.id = url.into();
    a.url = url.into();
    Record::Article(Box::new(a))
}

fn kept_ids(out: &StageOutput) -> Vec<String> {
    out.out().iter().map(|r| as_article(r).id.clone()).collect()
}

#[tokio::test]
async fn xsum_articles_are_rejected_with_their_subset() {
    let input = vec![
        article("35232142", "2016-01-04", "s", "d"),
        article("36100004", "2016-05-01", "s", "d"),
        article("99999999", "2016-05-01", "s", "d"),
    ];
    let out = run(config(&lists_toml("")), input).await.unwrap();
    assert_eq!(kept_ids(&out), ["99999999"]);
    let reasons: Vec<&str> = out.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(
        reasons,
        ["in XSum train (id 35232142)", "in XSum test (id 36100004)"]
    );
    assert!(out
        .rejected
        .iter()
        .all(|r| r.stage == "under_test" && r.record["id"].is_string()));
    let counters = out.stats.counters();
    assert_eq!(counters["excluded_xsum_train"], 1);
    assert_eq!(counters["excluded_xsum_test"], 1);
}

#[tokio::test]
async fn the_url_suffix_counts_when_the_id_is_not_numeric() {
    let mut a = as_article(&article("c0abc123", "2016-01-04", "s", "d")).clone();
    a.url = "https://www.bbc.com/news/uk-politics-36100003".into();
    let out = run(config(&lists_toml("")), vec![Record::Article(Box::new(a))])
        .await
        .unwrap();
    assert_eq!(out.rejected[0].reason, "in XSum validation (id 36100003)");
}

#[tokio::test]
async fn only_the_chosen_xsum_subsets_are_excluded() {
    let input = vec![
        article("35232142", "2016-01-04", "s", "d"),
        article("36100005", "2016-05-01", "s", "d"),
    ];
    let out = run(config(&lists_toml("xsum_subsets = [\"test\"]")), input)
        .await
        .unwrap();
    assert_eq!(kept_ids(&out), ["35232142"]);
}

#[tokio::test]
async fn xsum_ids_apply_to_bbc_articles_only() {
    let mut a = as_article(&article("35232142", "2016-01-04", "s", "d")).clone();
    a.source = "other".into();
    a.url = "https://example.org/35232142".into();
    let out = run(config(&lists_toml("")), vec![Record::Article(Box::new(a))])
        .await
        .unwrap();
    assert_eq!(out.out().len(), 1);
}

#[tokio::test]
async fn cnn_dailymail_urls_match_after_normalization() {
    let input = vec![
        cnn("https://www.cnn.com/2015/04/01/europe/alps-rescue-mountain-main/index.html"),
        cnn("http://cnn.com/2015/04/01/europe/alps-rescue-mountain-main?sr=twCNN"),
        cnn("https://edition.cnn.com/2014/10/08/world/ferry-timetable-change/"),
        cnn("https://www.cnn.com/2015/04/02/us/library-late-book-returned"),
        cnn("https://www.cnn.com/2015/04/02/us/library-late-book-returned-again/index.html"),
    ];
    let out = run(config(&lists_toml("")), input).await.unwrap();
    assert_eq!(
        kept_ids(&out),
        ["https://www.cnn.com/2015/04/02/us/library-late-book-returned-again/index.html"]
    );
    let reasons: Vec<&str> = out.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "in CNN/DailyMail cnndm-train-urls.txt",
            "in CNN/DailyMail cnndm-train-urls.txt",
            "in CNN/DailyMail cnndm-train-urls.txt",
            "in CNN/DailyMail cnndm-test-urls.txt",
        ]
    );
    assert_eq!(
        out.stats.counters()["excluded_cnndm_cnndm-train-urls.txt"],
        3
    );
}

#[tokio::test]
async fn every_spelling_of_a_listed_cnn_story_is_excluded() {
    let variants = [
        "https://www.cnn.com/2015/04/02/us/library-late-book-returned/index.html",
        "http://www.cnn.com/2015/04/02/us/library-late-book-returned/",
        "https://cnn.com/2015/04/02/us/library-late-book-returned",
        "https://edition.cnn.com/2015/04/02/us/library-late-book-returned/index.html",
        "http://us.cnn.com/2015/04/02/us/library-late-book-returned/index.html?iid=ob_lockedrail",
        "http://edition.cnn.com:80/2015/04/02/us/library-late-book-returned/index.htm#x",
    ];
    let input = variants.iter().map(|u| cnn(u)).collect();
    let out = run(config(&lists_toml("")), input).await.unwrap();
    assert!(kept_ids(&out).is_empty());
    assert_eq!(
        out.stats.counters()["excluded_cnndm_cnndm-test-urls.txt"],
        variants.len() as u64
    );
    // Another CNN host is another site's page, not an edition of the story.
    let other = vec![cnn(
        "https://money.cnn.com/2015/04/02/us/library-late-book-returned/index.html",
    )];
    let out = run(config(&lists_toml("")), other).await.unwrap();
    assert_eq!(kept_ids(&out).len(), 1);
}

#[tokio::test]
async fn a_missing_list_file_is_declared_and_named_in_the_error() {
    let missing = fixture("exclude/no-such-list.txt");
    let config = config(&format!("cnndm_urls = [{missing:?}]"));
    assert_eq!(
        config.reads(),
        [("cnndm_urls".to_string(), missing.clone())]
    );
    let err = run(config, vec![article("1", "2016-01-01", "s", "d")])
        .await
        .unwrap_err();
    assert!(matches!(err, StageError::Input { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&missing.display().to_string()),
        "{err}"
    );
}

#[tokio::test]
async fn a_broken_xsum_file_is_an_input_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("split.json");
    std::fs::write(&broken, "{\"train\": [\"1\", ").unwrap();
    let err = run(config(&format!("xsum_split = {broken:?}")), Vec::new())
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("split.json") && msg.contains("line 1"),
        "{msg}"
    );

    let partial = dir.path().join("partial.json");
    std::fs::write(&partial, "{\"train\": [\"1\"]}").unwrap();
    let err = run(config(&format!("xsum_split = {partial:?}")), Vec::new())
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("partial.json") && msg.contains("no `validation` list"),
        "{msg}"
    );
}

#[test]
fn options_need_a_list_and_known_keys() {
    let ctx = ctx("2019-12-31");
    let errors = ExcludeConfig::configure(options(""), &ctx).unwrap_err();
    assert!(
        errors[0].message.contains("nothing to exclude"),
        "{errors:?}"
    );
    let errors = ExcludeConfig::configure(options("xsum = \"x.json\""), &ctx).unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("xsum"));
    let errors = ExcludeConfig::configure(
        options("xsum_split = \"x.json\"\nxsum_subsets = [\"dev\"]"),
        &ctx,
    )
    .unwrap_err();
    assert!(errors[0].message.contains("dev"), "{errors:?}");
    let errors =
        ExcludeConfig::configure(options("xsum_split = \"x.json\"\nxsum_subsets = []"), &ctx)
            .unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("xsum_subsets"));
}

#[test]
fn the_design_example_parses() {
    let config = ExcludeConfig::configure(
        options("xsum_split = \"data/XSum-TRAINING-DEV-TEST-SPLIT-90-5-5.json\""),
        &ctx("2019-12-31"),
    )
    .unwrap();
    assert_eq!(config.reads().len(), 1);
    assert_eq!(config.outputs()[0].name, "out");
}
