//! Our fixture corpus through `exclude` -> `conflicts` -> `split`, each stage run
//! with the engine's harness on the previous one's output, compared with a golden
//! file. `UPDATE_GOLDEN=1 cargo test -p tempora-filter --test selection_golden`
//! rewrites the file; review its diff before committing.

mod common;

use std::collections::HashMap;

use common::{as_article, ctx, fixture, fixture_articles, options, run_with_facts};
use serde_json::json;
use tempora_engine::testing::run_stage;
use tempora_engine::{PipelineContext, Rejected, Windows};
use tempora_filter::{ConflictsConfig, ExcludeConfig};
use tempora_records::Record;
use tempora_split::SplitConfig;

/// The paper's sets for BBC under `cutoff`, as `[pipeline.sets]` writes them:
/// in-distribution 2010-2017, future after the cutoff.
fn temposum(cutoff: &str) -> PipelineContext {
    let sets = options(
        r#"in_distribution = { from = "2010-01-01", to = "2017-12-31" }
future = { from = "after_cutoff" }"#,
    );
    let mut ctx = ctx(cutoff);
    ctx.windows = Windows::from_table(&sets, ctx.cutoff).unwrap();
    ctx
}

struct Selection {
    /// Per set name, the ids that landed there.
    sets: HashMap<String, Vec<Record>>,
    /// Every rejection, with the stage that made it.
    rejected: Vec<(&'static str, Rejected)>,
}

async fn select(ctx: &PipelineContext) -> Selection {
    let exclude = ExcludeConfig::configure(
        options(&format!(
            "xsum_split = {:?}",
            fixture("exclude/xsum-split.json")
        )),
        ctx,
    )
    .unwrap();
    let unseen = run_stage(Box::new(exclude), ctx, fixture_articles(), HashMap::new())
        .await
        .unwrap();

    let conflicts = ConflictsConfig::configure(options("facts = \"facts\""), ctx).unwrap();
    let selected = run_with_facts(Box::new(conflicts), ctx, unseen.out().to_vec())
        .await
        .unwrap();

    let split = SplitConfig::configure(toml::Table::new(), ctx).unwrap();
    let split = run_stage(
        Box::new(split),
        ctx,
        selected.out().to_vec(),
        HashMap::new(),
    )
    .await
    .unwrap();

    let mut rejected: Vec<(&str, Rejected)> = unseen
        .rejected
        .into_iter()
        .map(|r| ("exclude", r))
        .collect();
    rejected.extend(selected.rejected.into_iter().map(|r| ("conflicts", r)));
    Selection {
        sets: split.ports.into_iter().collect(),
        rejected,
    }
}

/// One line per fixture article, in input order: where it ended and why.
fn outcomes(selection: &Selection) -> Vec<serde_json::Value> {
    fixture_articles()
        .iter()
        .map(|r| {
            let id = &as_article(r).id;
            if let Some((stage, rej)) = selection
                .rejected
                .iter()
                .find(|(_, rej)| rej.record["id"] == **id)
            {
                return json!({"id": id, "rejected_by": stage, "reason": rej.reason});
            }
            let (set, kept) = selection
                .sets
                .iter()
                .find_map(|(set, records)| {
                    records
                        .iter()
                        .map(as_article)
                        .find(|a| &a.id == id)
                        .map(|a| (set, a))
                })
                .unwrap_or_else(|| panic!("article {id} vanished"));
            let facts: Vec<String> = kept
                .facts
                .iter()
                .map(|m| {
                    let names: Vec<String> = m
                        .mentions
                        .iter()
                        .map(|n| {
                            format!(
                                "{}:{:?}@{}",
                                n.entity,
                                n.name,
                                if n.field == tempora_records::TextField::Document {
                                    "doc"
                                } else {
                                    "summary"
                                }
                            )
                        })
                        .collect();
                    format!(
                        "{} {} {}{} [{}]",
                        m.fact.subject.id,
                        m.fact.relation,
                        m.fact.object.id,
                        if m.after_change { " after_change" } else { "" },
                        names.join(", ")
                    )
                })
                .collect();
            json!({"id": id, "set": set, "split": kept.split, "facts": facts})
        })
        .collect()
}

#[tokio::test]
async fn the_fixture_corpus_matches_the_golden_selection() {
    let selection = select(&temposum("2019-12-31")).await;
    let actual: String = outcomes(&selection)
        .iter()
        .map(|v| format!("{v}\n"))
        .collect();
    let golden_path = fixture("conflicts/golden.jsonl");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden_path, &actual).unwrap();
    }
    let golden = std::fs::read_to_string(&golden_path).unwrap();
    // Compared as JSON values: key order depends on serde_json's features.
    for (i, (a, g)) in actual.lines().zip(golden.lines()).enumerate() {
        let a: serde_json::Value = serde_json::from_str(a).unwrap();
        let g: serde_json::Value = serde_json::from_str(g).unwrap();
        assert_eq!(a, g, "line {} of {}", i + 1, golden_path.display());
    }
    assert_eq!(actual.lines().count(), golden.lines().count());
}

#[tokio::test]
async fn every_rejection_names_its_list_or_criterion() {
    let selection = select(&temposum("2019-12-31")).await;
    assert!(!selection.rejected.is_empty());
    for (stage, rej) in &selection.rejected {
        let ok = match *stage {
            "exclude" => {
                rej.reason.starts_with("in XSum ") || rej.reason.starts_with("in CNN/DailyMail ")
            }
            _ => {
                rej.reason.starts_with("criterion 1 failed")
                    || rej.reason.starts_with("criterion 2 failed")
            }
        };
        assert!(ok, "{stage}: {}", rej.reason);
    }
}

#[tokio::test]
async fn the_brief_example_lands_in_future() {
    let selection = select(&temposum("2019-12-31")).await;
    let future: Vec<&str> = selection.sets["future"]
        .iter()
        .map(|r| as_article(r).id.as_str())
        .collect();
    assert!(future.contains(&"60000002"), "{future:?}");
    let reason = |id: &str| {
        selection
            .rejected
            .iter()
            .find(|(_, r)| r.record["id"] == id)
            .map(|(_, r)| r.reason.clone())
            .unwrap_or_default()
    };
    assert!(reason("60000003").starts_with("criterion 2 failed"));
    assert!(reason("60000004").starts_with("criterion 1 failed"));
    assert!(reason("60000005").starts_with("criterion 1 failed"));
}

#[tokio::test]
async fn a_later_cutoff_moves_an_article_from_future_to_in_distribution() {
    let in_set = |selection: &Selection, set: &str, id: &str| {
        selection.sets[set].iter().any(|r| as_article(r).id == id)
    };
    // 60000006 was published on 2020-03-23. Default windows follow the cutoff.
    let paper = select(&ctx("2019-12-31")).await;
    assert!(in_set(&paper, "future", "60000006"));
    let later = select(&ctx("2020-06-30")).await;
    assert!(in_set(&later, "in_distribution", "60000006"));
    assert!(!in_set(&later, "future", "60000006"));
    // The facts still hold for that cutoff (every pair changed after it), so the
    // selection itself is the same.
    let kept = |s: &Selection| s.sets.values().map(Vec::len).sum::<usize>();
    assert_eq!(kept(&paper), kept(&later));
}
