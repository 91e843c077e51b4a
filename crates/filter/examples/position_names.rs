//! Measures what each way of matching position names does to the number of kept
//! articles, on a facts JSONL, an articles JSONL and a file of reader judgements
//! (`{id: {"states_evolving_fact": bool}}`).
//!
//! ```text
//! cargo run -p tempora-filter --example position_names            # our fixture corpus
//! cargo run -p tempora-filter --example position_names -- FACTS ARTICLES [MARKED]
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::NaiveDate;
use tempora_filter::conflicts::facts::{evolving_facts, read_facts_file};
use tempora_filter::conflicts::{select, ConflictsOptions, Dictionary, PositionNames, Verdict};
use tempora_records::Article;

/// The ways of matching position names compared, in the tables' order.
const CHOICES: [PositionNames; 3] = [
    PositionNames::Full,
    PositionNames::HeadInContext,
    PositionNames::Head,
];

/// The (`use_aliases`, `case_sensitive`) settings tried with each way; the
/// per-article table shows the first.
const SETTINGS: [(bool, bool); 3] = [(true, false), (false, false), (true, true)];

fn main() -> anyhow::Result<()> {
    let (facts_path, articles_path, marked_path) = input_paths();
    let cutoff = NaiveDate::from_ymd_opt(2019, 12, 31).context("cutoff")?;
    let facts = read_facts_file(&facts_path)?;
    let articles = read_articles(&articles_path)?;
    let marked = read_marked(marked_path.as_deref())?;
    let n_marked = articles
        .iter()
        .filter(|a| marked.get(&a.id) == Some(&true))
        .count();
    println!(
        "{} articles, {} marked as stating an evolving fact\n",
        articles.len(),
        n_marked
    );
    println!("| position_names | use_aliases | case_sensitive | kept | kept and marked | kept, not marked | marked, not kept |");
    println!("|---|---|---|---|---|---|---|");
    let mut per_article: Vec<Vec<bool>> = vec![Vec::new(); articles.len()];
    for position_names in CHOICES {
        for (use_aliases, case_sensitive) in SETTINGS {
            let options = options(position_names, use_aliases, case_sensitive);
            let dict = Dictionary::build(evolving_facts(facts.clone(), cutoff)?, &options)?;
            let verdicts: Vec<bool> = articles
                .iter()
                .map(|a| matches!(select(&dict, a, false), Verdict::Keep(_)))
                .collect();
            if use_aliases && !case_sensitive {
                for (row, kept) in per_article.iter_mut().zip(&verdicts) {
                    row.push(*kept);
                }
            }
            print_row(&options, &articles, &verdicts, &marked, n_marked);
        }
    }
    print_per_article(&articles, &per_article, &marked);
    Ok(())
}

/// The facts, articles and (optional) judgements files: the arguments, else
/// the fixture corpus (whose judgements are used only when no argument is given).
fn input_paths() -> (PathBuf, PathBuf, Option<PathBuf>) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conflicts");
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let facts_path = args
        .first()
        .cloned()
        .unwrap_or_else(|| fixtures.join("facts.jsonl"));
    let articles_path = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| fixtures.join("articles.jsonl"));
    let marked_path = args
        .get(2)
        .cloned()
        .or_else(|| args.is_empty().then(|| fixtures.join("marked.json")));
    (facts_path, articles_path, marked_path)
}

/// The articles of a JSONL file, skipping blank lines.
fn read_articles(path: &Path) -> anyhow::Result<Vec<Article>> {
    let articles: Vec<Article> = std::fs::read_to_string(path)
        .with_context(|| path.display().to_string())?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .with_context(|| path.display().to_string())?;
    Ok(articles)
}

/// Whether readers judged each article to state an evolving fact, by id; none
/// without a judgements file.
fn read_marked(path: Option<&Path>) -> anyhow::Result<HashMap<String, bool>> {
    let Some(p) = path else {
        return Ok(HashMap::new());
    };
    let raw: HashMap<String, serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(p).with_context(|| p.display().to_string())?,
    )?;
    Ok(raw
        .into_iter()
        .map(|(id, v)| (id, v["states_evolving_fact"].as_bool().unwrap_or(false)))
        .collect())
}

/// The options of one row of the table: the given way of matching, four
/// letters at least, whole words.
fn options(
    position_names: PositionNames,
    use_aliases: bool,
    case_sensitive: bool,
) -> ConflictsOptions {
    ConflictsOptions {
        facts: Some("facts".into()),
        facts_file: None,
        case_sensitive,
        min_name_chars: 4,
        use_aliases,
        whole_words: true,
        position_names,
        summary_same_fact: false,
    }
}

/// The configuration name of a way of matching position names (`head_in_context`).
fn name(p: PositionNames) -> Option<String> {
    serde_json::to_value(p)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
}

/// Prints one row of the first table: what `options` keeps, against the judgements.
fn print_row(
    options: &ConflictsOptions,
    articles: &[Article],
    verdicts: &[bool],
    marked: &HashMap<String, bool>,
    n_marked: usize,
) {
    let kept: Vec<&Article> = articles
        .iter()
        .zip(verdicts)
        .filter_map(|(a, k)| k.then_some(a))
        .collect();
    let good = kept
        .iter()
        .filter(|a| marked.get(&a.id) == Some(&true))
        .count();
    let wrong: Vec<&str> = kept
        .iter()
        .filter(|a| marked.get(&a.id) != Some(&true))
        .map(|a| a.id.as_str())
        .collect();
    println!(
        "| `{}` | {} | {} | {} | {good} | {} {:?} | {} |",
        name(options.position_names).unwrap_or_default(),
        options.use_aliases,
        options.case_sensitive,
        kept.len(),
        wrong.len(),
        wrong,
        n_marked - good,
    );
}

/// Prints the second table: which ways of matching keep each article.
fn print_per_article(
    articles: &[Article],
    per_article: &[Vec<bool>],
    marked: &HashMap<String, bool>,
) {
    println!("\nPer article (aliases on, case folded; K = kept):\n");
    let header: Vec<String> = CHOICES.iter().filter_map(|c| name(*c)).collect();
    println!("| article | marked | {} |", header.join(" | "));
    println!("|---|---|{}", "---|".repeat(header.len()));
    for (article, row) in articles.iter().zip(per_article) {
        let cells: Vec<&str> = row.iter().map(|k| if *k { "K" } else { "" }).collect();
        let mark = if marked.get(&article.id) == Some(&true) {
            "yes"
        } else {
            ""
        };
        println!("| {} | {mark} | {} |", article.id, cells.join(" | "));
    }
}
