//! Our minimal-pairs corpus (`tests/fixtures/pairs/`) through `conflicts` ->
//! `minimal-pairs`, compared with a golden file, and the promises every pair keeps
//! checked on each. `UPDATE_GOLDEN=1 cargo test -p tempora-filter --test
//! pairs_golden` rewrites the file; review its diff before committing.

mod common;

use std::collections::HashMap;

use common::{ctx, fixture, options};
use tempora_engine::testing::{run_stage, StageOutput};
use tempora_filter::{ConflictsConfig, MinimalPairsConfig};
use tempora_records::{Article, Fact, FactError, MinimalPair, Record};

fn read<T: serde::de::DeserializeOwned>(relative: &str) -> Vec<T> {
    std::fs::read_to_string(fixture(relative))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn facts() -> Vec<Record> {
    fact_records("pairs/facts.jsonl")
}

fn fact_records(relative: &str) -> Vec<Record> {
    read::<Fact>(relative)
        .into_iter()
        .map(|f| Record::Fact(Box::new(f)))
        .collect()
}

fn article_records(relative: &str) -> Vec<Record> {
    read::<Article>(relative)
        .into_iter()
        .map(|a| Record::Article(Box::new(a)))
        .collect()
}

async fn run_pairs(input: Vec<Record>) -> StageOutput {
    run_through(facts(), input, "facts = \"facts\"").await
}

/// `input` through `conflicts` and `minimal-pairs` (with the options
/// `pairs_options`), both taking `facts` as their side input.
async fn run_through(facts: Vec<Record>, input: Vec<Record>, pairs_options: &str) -> StageOutput {
    let ctx = ctx("2019-12-31");
    let side = || HashMap::from([("facts".to_string(), facts.clone())]);
    let conflicts = ConflictsConfig::configure(options("facts = \"facts\""), &ctx).unwrap();
    let kept = run_stage(Box::new(conflicts), &ctx, input, side())
        .await
        .unwrap();
    let pairs = MinimalPairsConfig::configure(options(pairs_options), &ctx).unwrap();
    run_stage(Box::new(pairs), &ctx, kept.out().to_vec(), side())
        .await
        .unwrap()
}

/// The pairs of a run, in the order of their sort keys.
fn sorted_pairs(out: &StageOutput) -> Vec<MinimalPair> {
    let mut records = out.out().to_vec();
    records.sort_by_cached_key(Record::sort_key);
    records
        .into_iter()
        .map(|r| match r {
            Record::Pair(p) => *p,
            other => panic!("not a pair: {other:?}"),
        })
        .collect()
}

async fn corpus_pairs() -> (Vec<MinimalPair>, StageOutput) {
    let out = run_pairs(article_records("pairs/articles.jsonl")).await;
    (sorted_pairs(&out), out)
}

fn of<'a>(pairs: &'a [MinimalPair], article: &str) -> Vec<&'a MinimalPair> {
    pairs.iter().filter(|p| p.article_id == article).collect()
}

fn find<'a>(
    pairs: &'a [MinimalPair],
    article: &str,
    relation: &str,
    error: FactError,
) -> &'a MinimalPair {
    pairs
        .iter()
        .find(|p| p.article_id == article && p.fact.relation == relation && p.fact_error == error)
        .unwrap_or_else(|| panic!("no {relation} {error:?} pair for {article}: {pairs:#?}"))
}

#[tokio::test]
async fn pairs_match_the_golden_file() {
    let (pairs, out) = corpus_pairs().await;
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    check_golden(&pairs, "pairs/golden.jsonl");
}

#[tokio::test]
async fn every_edit_is_one_contiguous_span_and_nothing_else() {
    let (pairs, _) = corpus_pairs().await;
    assert!(pairs.len() >= 10, "{pairs:#?}");
    one_span_each(&pairs);
    let (pairs, _) = roles_pairs(Some("pairs/roles/catalogue")).await;
    assert!(pairs.len() >= 10, "{pairs:#?}");
    one_span_each(&pairs);
}

fn one_span_each(pairs: &[MinimalPair]) {
    for p in pairs {
        assert_ne!(p.edited_summary, p.reference_summary, "{}", p.id);
        let reference: Vec<char> = p.reference_summary.chars().collect();
        let edited: Vec<char> = p.edited_summary.chars().collect();
        // The span, read with Python's character indexes, is what it says it is.
        let original: String = reference[p.span.start..p.span.end].iter().collect();
        assert_eq!(original, p.span.original, "{}", p.id);
        // Outside the span both texts are the same, byte for byte.
        let prefix: String = reference[..p.span.start].iter().collect();
        let suffix: String = reference[p.span.end..].iter().collect();
        assert_eq!(
            p.edited_summary,
            format!("{prefix}{}{suffix}", p.span.replacement),
            "{}",
            p.id
        );
        // The smallest differing stretch lies inside the span: one edit, not two.
        let same_start = reference
            .iter()
            .zip(&edited)
            .take_while(|(a, b)| a == b)
            .count();
        let same_end = reference
            .iter()
            .rev()
            .zip(edited.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        assert!(same_start >= p.span.start, "{}", p.id);
        assert!(
            reference.len() - same_end.min(reference.len()) <= p.span.end,
            "{}",
            p.id
        );
        // Our documents hold no name inside a longer word, so a plain search agrees
        // with the stage's word-boundary one.
        if p.article.contains(&p.span.replacement) {
            assert_eq!(p.error_type, "Intrinsic Entity Error", "{}", p.id);
        }
        assert!(
            ["Intrinsic Entity Error", "Extrinsic Entity Error"].contains(&p.error_type.as_str())
        );
        assert_ne!(p.fact.stated, p.fact.substituted, "{}", p.id);
    }
}

#[tokio::test]
async fn a_2021_president_joe_biden_summary_gets_the_president_at_the_cutoff() {
    let (pairs, _) = corpus_pairs().await;
    let holder = find(&pairs, "61000001", "P1308", FactError::Outdated);
    assert_eq!(
        holder.edited_summary,
        "President Donald Trump signed orders to rejoin the Paris climate agreement on his \
         first day in office."
    );
    assert_eq!(
        (
            holder.fact.stated.as_str(),
            holder.fact.substituted.as_str()
        ),
        ("Q6279", "Q22686")
    );
    assert_eq!(
        holder.error_type, "Intrinsic Entity Error",
        "Trump is in the document"
    );
    let position = find(&pairs, "61000001", "P39", FactError::Outdated);
    assert!(
        position
            .edited_summary
            .starts_with("Vice President Joe Biden signed orders"),
        "{position:#?}"
    );
    assert_eq!(position.span.original, "President");
    // The controls name values the pairs never held.
    let control = find(&pairs, "61000001", "P1308", FactError::NonVerifiable);
    assert!(!["Q6279", "Q22686", "Q76"].contains(&control.fact.substituted.as_str()));
}

#[tokio::test]
async fn no_pair_without_a_conflict_at_the_cutoff_or_before_it() {
    let (pairs, out) = corpus_pairs().await;
    // Johnson was prime minister at the cutoff already.
    assert!(of(&pairs, "61000002").is_empty(), "{pairs:#?}");
    // 2016 is before the cutoff: nothing stated then was unknowable.
    assert!(of(&pairs, "61000003").is_empty(), "{pairs:#?}");
    let counters = out.stats.counters();
    assert_eq!(counters.get("articles_before_cutoff"), Some(&1));
    assert!(counters
        .get("articles_without_pairs")
        .is_some_and(|n| *n >= 1));
}

#[tokio::test]
async fn possessives_and_titles_stay_grammatical() {
    let (pairs, _) = corpus_pairs().await;
    let possessive = find(&pairs, "61000004", "P1308", FactError::Outdated);
    assert!(
        possessive
            .edited_summary
            .starts_with("Donald Trump's first foreign policy speech"),
        "{possessive:#?}"
    );
    // A bare apostrophe after a name in s takes "'s" after one that is not.
    let bare = find(&pairs, "61000005", "P1308", FactError::Outdated);
    assert!(
        bare.edited_summary
            .starts_with("Mike Pence's vote was not needed"),
        "{bare:#?}"
    );
    assert_eq!(bare.span.original, "Kamala Harris'");
    // A two-word title before a name: the holder and the person's own title.
    let holder = find(&pairs, "61000006", "P1308", FactError::Outdated);
    assert!(holder
        .edited_summary
        .starts_with("Prime Minister Boris Johnson has announced"));
    let title = find(&pairs, "61000006", "P39", FactError::Outdated);
    assert_eq!(title.span.original, "Prime Minister");
    assert!(
        title
            .edited_summary
            .starts_with("International Trade Secretary Liz Truss has announced"),
        "{title:#?}"
    );
}

#[tokio::test]
async fn two_facts_in_one_summary_give_one_pair_each_never_two_edits_in_one() {
    let (pairs, _) = corpus_pairs().await;
    let outdated: Vec<&MinimalPair> = of(&pairs, "61000007")
        .into_iter()
        .filter(|p| p.fact_error == FactError::Outdated)
        .collect();
    let mut facts: Vec<(&str, &str)> = outdated
        .iter()
        .map(|p| (p.fact.subject.as_str(), p.fact.relation.as_str()))
        .collect();
    facts.sort();
    assert_eq!(
        facts,
        [("Q11696", "P1308"), ("Q4970706", "P1308"), ("Q6279", "P39")]
    );
    let reference = &outdated[0].reference_summary;
    for p in &outdated {
        // Exactly one of the two names changed: the other stays in place.
        let kept = ["Olaf Scholz", "Joe Biden"]
            .iter()
            .filter(|n| p.edited_summary.contains(*n))
            .count();
        let changed_in_span = p.span.original.contains("Scholz") as usize
            + p.span.original.contains("Joe Biden") as usize;
        assert!(kept >= 1, "{p:#?}");
        assert!(changed_in_span <= 1, "{p:#?}");
        assert_eq!(&p.reference_summary, reference);
    }
}

#[tokio::test]
async fn records_that_are_not_articles_are_rejected_with_a_reason() {
    let out = run_pairs(facts().into_iter().take(1).collect()).await;
    assert!(out.out().is_empty());
    // `conflicts` rejects it first; the pairs stage never sees it.
    let ctx = ctx("2019-12-31");
    let pairs = MinimalPairsConfig::configure(options("facts = \"facts\""), &ctx).unwrap();
    let side = HashMap::from([("facts".to_string(), facts())]);
    let out = run_stage(
        Box::new(pairs),
        &ctx,
        facts().into_iter().take(1).collect(),
        side,
    )
    .await
    .unwrap();
    assert_eq!(out.rejected.len(), 1);
    assert!(out.rejected[0]
        .reason
        .contains("takes articles, got a fact"));
}

#[test]
fn options_need_exactly_one_facts_origin_and_some_kind_of_error() {
    let ctx = ctx("2019-12-31");
    let keys = |toml: &str| -> Vec<Option<String>> {
        MinimalPairsConfig::configure(options(toml), &ctx)
            .unwrap_err()
            .into_iter()
            .map(|e| e.key)
            .collect()
    };
    assert_eq!(keys(""), [Some("facts".to_string())]);
    assert_eq!(
        keys("facts = \"f\"\nfacts_file = \"x.jsonl\""),
        [Some("facts_file".to_string())]
    );
    assert_eq!(
        keys("facts = \"f\"\nfact_errors = []"),
        [Some("fact_errors".to_string())]
    );
    let unknown =
        MinimalPairsConfig::configure(options("facts = \"f\"\nfact_errors = [\"wrong\"]"), &ctx)
            .unwrap_err();
    assert!(unknown[0].message.contains("wrong"), "{unknown:?}");
}

#[tokio::test]
async fn fact_errors_chooses_the_kinds_written() {
    let articles = article_records("pairs/articles.jsonl");
    let only = "facts = \"facts\"\nfact_errors = [\"outdated\"]";
    let out = run_through(facts(), articles, only).await;
    assert!(!out.out().is_empty());
    for record in out.out() {
        let Record::Pair(p) = record else {
            panic!("not a pair: {record:?}");
        };
        assert_eq!(p.fact_error, FactError::Outdated, "{}", p.id);
    }
    assert_eq!(out.stats.counters().get("pairs_non_verifiable"), None);
}

#[tokio::test]
async fn facts_made_for_an_earlier_cutoff_stop_the_stage_with_the_reason() {
    // The presidency changed on 2021-01-20: facts for cutoff 2019-12-31 are stale
    // for a pipeline whose cutoff is after that.
    let ctx = ctx("2021-06-30");
    let pairs = MinimalPairsConfig::configure(options("facts = \"facts\""), &ctx).unwrap();
    let side = HashMap::from([("facts".to_string(), facts())]);
    let err = run_stage(Box::new(pairs), &ctx, Vec::new(), side)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("--cutoff 2021-06-30"), "{err}");
}

/// Our sport and business corpus (`tests/fixtures/pairs/roles/`): a club's
/// manager (P286), a player's club (P54), a company's chief executive (P169), a
/// society's chair (P488), and an athlete's sponsor (P859), a relation only the
/// test's catalogue folder declares. `catalogue`: the `minimal-pairs` stage's
/// option.
async fn roles_pairs(catalogue: Option<&str>) -> (Vec<MinimalPair>, StageOutput) {
    let mut toml = "facts = \"facts\"\n".to_string();
    if let Some(dir) = catalogue {
        let dir = fixture(dir);
        toml.push_str(&format!("catalogue = {:?}\n", dir.display().to_string()));
    }
    let facts = fact_records("pairs/roles/facts.jsonl");
    let out = run_through(facts, article_records("pairs/roles/articles.jsonl"), &toml).await;
    (sorted_pairs(&out), out)
}

fn check_golden(pairs: &[MinimalPair], file: &str) {
    let text: String = pairs
        .iter()
        .map(|p| serde_json::to_string(p).unwrap() + "\n")
        .collect();
    let golden = fixture(file);
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(&golden, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    assert!(
        text == want,
        "pairs differ from {}:\n{text}",
        golden.display()
    );
}

#[tokio::test]
async fn sport_and_business_pairs_match_the_golden_file() {
    let (pairs, out) = roles_pairs(Some("pairs/roles/catalogue")).await;
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    check_golden(&pairs, "pairs/roles/golden.jsonl");
}

/// The pair's edited summary, what its span replaced and with what.
fn edit_of(p: &MinimalPair) -> (&str, &str, &str) {
    (
        p.edited_summary.as_str(),
        p.span.original.as_str(),
        p.span.replacement.as_str(),
    )
}

#[tokio::test]
async fn a_clubs_new_manager_gets_the_manager_before_and_another_clubs_manager() {
    let (pairs, _) = roles_pairs(None).await;
    let outdated = find(&pairs, "62000001", "P286", FactError::Outdated);
    assert_eq!(
        edit_of(outdated),
        (
            "Kestrel Vale manager Owen Marsh says her side must learn quickly after a heavy \
             home defeat.",
            "Carla Dunne",
            "Owen Marsh"
        )
    );
    assert_eq!(outdated.error_type, "Intrinsic Entity Error");
    assert_eq!(
        (
            outdated.fact.subject.as_str(),
            outdated.fact.substituted.as_str()
        ),
        ("Q9200001", "Q9200101")
    );
    // Another club's manager (Pennock's or Marlow Heath's), never Kestrel Vale's.
    let control = find(&pairs, "62000001", "P286", FactError::NonVerifiable);
    assert!(
        ["Q9200103", "Q9200104"].contains(&control.fact.substituted.as_str()),
        "{control:#?}"
    );
    assert_eq!(control.span.original, "Carla Dunne");
    // Published after the cutoff but before the change: nothing to swap.
    assert!(of(&pairs, "62000006").is_empty(), "{pairs:#?}");
}

#[tokio::test]
async fn a_player_who_moved_gets_the_club_before_written_in_the_same_form() {
    let (pairs, _) = roles_pairs(None).await;
    // "<club> <position word> <player>": the club named with as many words.
    let outdated = find(&pairs, "62000002", "P54", FactError::Outdated);
    assert_eq!(
        edit_of(outdated),
        (
            "Pennock United striker Tomas Reyna scored twice as his new club climbed to \
             fourth in the table.",
            "Kestrel Vale",
            "Pennock United"
        )
    );
    assert_eq!(outdated.span.start, 0);
    assert_eq!(
        (
            outdated.fact.stated.as_str(),
            outdated.fact.substituted.as_str()
        ),
        ("Q9200001", "Q9200002"),
        "the club, not the national team he joined later and the document names"
    );
    let control = find(&pairs, "62000002", "P54", FactError::NonVerifiable);
    assert_eq!(
        edit_of(control).0,
        "Marlow Heath striker Tomas Reyna scored twice as his new club climbed to fourth in \
         the table."
    );
    assert_eq!(control.error_type, "Extrinsic Entity Error");
    // "<player>, the <club> <position word>": the one-word name for the one-word name.
    let apposition = find(&pairs, "62000003", "P54", FactError::Outdated);
    assert_eq!(
        edit_of(apposition),
        (
            "Tomas Reyna, the Pennock striker, will miss four matches with a hamstring injury.",
            "Kestrel",
            "Pennock"
        )
    );
    let control = find(&pairs, "62000003", "P54", FactError::NonVerifiable);
    assert_eq!(control.span.replacement, "Marlow Heath");
    // A club in the summary that no role word ties to the player is not his
    // club's claim ("Kestrel Vale beat ... with a goal from Tomas Reyna").
    assert!(of(&pairs, "62000007").is_empty(), "{pairs:#?}");
}

#[tokio::test]
async fn a_companys_chief_executive_and_a_societys_chair_get_the_holder_before() {
    let (pairs, _) = roles_pairs(None).await;
    let ceo = find(&pairs, "62000004", "P169", FactError::Outdated);
    assert_eq!(
        edit_of(ceo),
        (
            "Corran Foods chief executive Ruth Ames has promised to keep all twelve of the \
             firm's bakeries open.",
            "Anil Dorrance",
            "Ruth Ames"
        )
    );
    let control = find(&pairs, "62000004", "P169", FactError::NonVerifiable);
    assert_eq!(
        (
            control.span.replacement.as_str(),
            control.fact.substituted.as_str()
        ),
        ("Hana Pryce", "Q9300103"),
        "the one other company's chief executive"
    );
    let chair = find(&pairs, "62000005", "P488", FactError::Outdated);
    assert_eq!(
        edit_of(chair),
        (
            "Loxley Building Society chairwoman Martin Coyle said members would get a vote on \
             the planned merger.",
            "Sunita Hale",
            "Martin Coyle"
        )
    );
    let control = find(&pairs, "62000005", "P488", FactError::NonVerifiable);
    assert_eq!(control.span.replacement, "Paul Ember");
    assert_eq!(control.error_type, "Extrinsic Entity Error");
}

#[tokio::test]
async fn a_relation_declared_only_by_a_catalogue_folder_makes_pairs_by_its_entry() {
    let (pairs, out) = roles_pairs(Some("pairs/roles/catalogue")).await;
    // The folder's entry: the athlete is the subject, "athlete" ties the sponsor to her.
    let outdated = find(&pairs, "62000008", "P859", FactError::Outdated);
    assert_eq!(
        edit_of(outdated),
        (
            "Velocita athlete Mara Quist will race in the club's colours at next month's \
             championships.",
            "Strideon",
            "Velocita"
        )
    );
    let control = find(&pairs, "62000008", "P859", FactError::NonVerifiable);
    assert_eq!(control.span.replacement, "Arkwell");
    // Named where no role word ties it to her: no claim, no pair.
    assert!(of(&pairs, "62000009").is_empty(), "{pairs:#?}");
    assert_eq!(out.stats.counters().get("articles_with_pairs"), Some(&6));

    // Without the folder the relation is read by the generic rule: its value (the
    // object) is replaced wherever the summary names it.
    let (generic, _) = roles_pairs(None).await;
    let untied = find(&generic, "62000009", "P859", FactError::Outdated);
    assert_eq!(
        untied.edited_summary,
        "Mara Quist won the national 800m title in new Velocita spikes."
    );
    // The shipped relations pair the same either way.
    let shipped = |p: &&MinimalPair| p.fact.relation != "P859";
    let with: Vec<&MinimalPair> = pairs.iter().filter(shipped).collect();
    let without: Vec<&MinimalPair> = generic.iter().filter(shipped).collect();
    assert_eq!(with, without);
}

#[test]
fn a_catalogue_folder_that_cannot_be_used_is_refused_at_its_key() {
    let ctx = ctx("2019-12-31");
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none");
    let toml = format!(
        "facts = \"f\"\ncatalogue = {:?}",
        missing.display().to_string()
    );
    let errors = MinimalPairsConfig::configure(options(&toml), &ctx).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].key.as_deref(), Some("catalogue"));
    assert!(errors[0].message.contains("none"), "{errors:?}");
    std::fs::write(
        dir.path().join("bad.toml"),
        "name = \"x\"\nproperty = \"Q5\"\n",
    )
    .unwrap();
    let toml = format!(
        "facts = \"f\"\ncatalogue = {:?}",
        dir.path().display().to_string()
    );
    let errors = MinimalPairsConfig::configure(options(&toml), &ctx).unwrap_err();
    assert_eq!(errors[0].key.as_deref(), Some("catalogue"));
    assert!(errors[0].message.contains("bad.toml"), "{errors:?}");
}
