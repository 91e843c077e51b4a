//! `tempora pairs`: the `minimal-pairs` stage on files, with the stage's pair maker.

use crate::exit::Outcome;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::NaiveDate;
use tempora_engine::spill::Keyed;
use tempora_engine::UsageError;
use tempora_filter::conflicts::facts::read_facts_file;
use tempora_filter::pairs::Catalogue;
use tempora_filter::pairs::{default_fact_errors, pair_maker, Outcome as Made};
use tempora_records::{Article, Record};

/// Write outdated-fact minimal pairs (BUMP-style records) for articles that went
/// through `conflicts`.
#[derive(Debug, clap::Args)]
pub struct PairsArgs {
    /// Articles as JSON lines, with `facts` (a `jsonl` sink's output after `conflicts`).
    #[arg(long, value_name = "FILE.jsonl")]
    pub articles: PathBuf,
    /// Evolving facts as JSON lines (`tempora facts -o FILE.jsonl`).
    #[arg(long, value_name = "FILE.jsonl")]
    pub facts: PathBuf,
    /// Knowledge cutoff the facts were computed for.
    #[arg(long, value_name = "DATE", default_value = "2019-12-31")]
    pub cutoff: NaiveDate,
    /// A folder of more relation catalogue entries (`*.toml`), beside the shipped
    /// ones (the `minimal-pairs` stage's `catalogue` option).
    #[arg(long, value_name = "DIR")]
    pub catalogue: Option<PathBuf>,
    /// Output file (.jsonl), sorted as the `jsonl` sink sorts; written under a
    /// temporary name and renamed when complete.
    #[arg(short, long, value_name = "FILE.jsonl")]
    pub output: PathBuf,
}

/// Runs `tempora pairs`.
///
/// # Errors
/// A `.parquet` output, an unreadable file, a line that is not an article or a
/// fact (naming file, line and field), facts made for another cutoff, an
/// unwritable output.
pub fn run(args: PairsArgs) -> Outcome {
    if args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        return Err(UsageError::new(format!(
            "{}: `tempora pairs` writes JSONL only; Parquet goes through a pipeline with a \
             `minimal-pairs` stage and a `parquet` sink (`tempora run`)",
            args.output.display()
        ))
        .into());
    }
    let catalogue = Catalogue::load(args.catalogue.as_deref()).context("--catalogue")?;
    let facts = read_facts_file(&args.facts)?;
    let maker = pair_maker(facts, args.cutoff, default_fact_errors(), &catalogue)?;
    let mut lines = Vec::new();
    let mut counts = BTreeMap::<&str, u64>::new();
    for (line_no, article) in read_articles(&args.articles)? {
        let (outcome, pairs) = maker.pairs(&article);
        *counts.entry(outcome.counter()).or_default() += 1;
        if outcome == Made::Pairs {
            tracing::debug!(line = line_no, pairs = pairs.len(), "pairs made");
        }
        for pair in pairs {
            let record = Record::Pair(Box::new(pair));
            let mut line = Vec::new();
            record.write_json(&mut line)?;
            lines.push(Keyed {
                key: record.sort_key(),
                line,
            });
        }
    }
    // The `jsonl` sink's order: by sort key, then by the whole line.
    lines.sort_unstable();
    write_lines(&args.output, &lines)?;
    let counts: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    eprintln!(
        "{} pairs ({}); wrote {}",
        lines.len(),
        counts.join(", "),
        args.output.display()
    );
    Ok(())
}

/// The articles of a JSONL file with their line numbers; blank lines skipped.
fn read_articles(path: &Path) -> anyhow::Result<Vec<(usize, Article)>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut articles = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{}:{}: cannot read", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let article = serde_json::from_str(&line)
            .with_context(|| format!("{}:{}: not an article", path.display(), i + 1))?;
        articles.push((i + 1, article));
    }
    Ok(articles)
}

/// Writes the lines through the engine's atomic write (a temporary file renamed
/// into place).
fn write_lines(path: &Path, lines: &[Keyed]) -> anyhow::Result<()> {
    tempora_engine::runtime::write_atomically(path, |out| {
        for keyed in lines {
            out.write_all(&keyed.line)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(file: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/demo-golden")
            .join(file)
    }

    /// `--catalogue` reads a relation only the folder declares: the athlete's
    /// sponsor tied to her by "athlete" is swapped for the one before; a folder
    /// that is not there is refused, naming the option.
    #[test]
    fn a_catalogue_folder_declares_a_relation_the_pairs_read() {
        let roles =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/filter/tests/fixtures/pairs/roles");
        let facts: Vec<serde_json::Value> = std::fs::read_to_string(roles.join("facts.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|f: &serde_json::Value| f["subject"]["id"] == "Q9500201")
            .collect();
        let mention = |entity: &str, name: &str, field: &str| serde_json::json!({ "entity": entity, "name": name, "field": field });
        let matches: Vec<serde_json::Value> = facts
            .iter()
            .map(|f| {
                let (sponsor, name) = (&f["object"]["id"], &f["object"]["label"]);
                let mut mentions = vec![
                    mention("Q9500201", "Mara Quist", "document"),
                    mention("Q9500201", "Mara Quist", "summary"),
                    mention(
                        sponsor.as_str().unwrap(),
                        name.as_str().unwrap(),
                        "document",
                    ),
                ];
                if sponsor == "Q9500001" {
                    mentions.push(mention("Q9500001", "Strideon", "summary"));
                }
                serde_json::json!({ "fact": f, "mentions": mentions, "after_change": true })
            })
            .collect();
        let article = serde_json::json!({
            "id": "62000008", "url": "https://www.bbc.co.uk/sport/athletics/62000008",
            "source": "bbc", "published": "2021-06-02", "captured": "20210602120000",
            "title": "Quist signs",
            "summary": "Strideon athlete Mara Quist will race at the championships.",
            "document": "Mara Quist joined Strideon Sports after years with Velocita.",
            "facts": matches,
        });
        let dir = tempfile::tempdir().unwrap();
        let (articles, facts_file) = (dir.path().join("a.jsonl"), dir.path().join("f.jsonl"));
        std::fs::write(&articles, format!("{article}\n")).unwrap();
        let lines: String = facts.iter().map(|f| format!("{f}\n")).collect();
        std::fs::write(&facts_file, lines).unwrap();
        let args = |catalogue: PathBuf| PairsArgs {
            articles: articles.clone(),
            facts: facts_file.clone(),
            cutoff: "2019-12-31".parse().unwrap(),
            catalogue: Some(catalogue),
            output: dir.path().join("p.jsonl"),
        };
        run(args(roles.join("catalogue"))).unwrap();
        let written = std::fs::read_to_string(dir.path().join("p.jsonl")).unwrap();
        let pairs: Vec<serde_json::Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let outdated = pairs
            .iter()
            .find(|p| p["fact_error"] == "outdated")
            .unwrap();
        assert_eq!(
            outdated["edited_summary"],
            "Velocita athlete Mara Quist will race at the championships."
        );
        let err = run(args(dir.path().join("none"))).unwrap_err();
        assert!(format!("{err:#}").contains("--catalogue"), "{err:#}");
    }

    /// Pairs of the same key (an article given twice, with another document) come
    /// out as a `jsonl` sink writes them: by their lines, not in input order.
    #[test]
    fn pairs_of_one_key_are_ordered_as_the_sink_orders_them() {
        let dir = tempfile::tempdir().unwrap();
        let articles = std::fs::read_to_string(golden("future.jsonl")).unwrap();
        let mut input = String::new();
        for line in articles.lines() {
            let mut article: serde_json::Value = serde_json::from_str(line).unwrap();
            let document = article["document"].as_str().unwrap();
            article["document"] = format!("~{document}").into();
            input.push_str(&format!("{article}\n"));
        }
        input.push_str(&articles);
        let (input_file, output) = (dir.path().join("a.jsonl"), dir.path().join("p.jsonl"));
        std::fs::write(&input_file, input).unwrap();
        run(PairsArgs {
            articles: input_file,
            facts: golden("facts.jsonl"),
            cutoff: "2019-12-31".parse().unwrap(),
            catalogue: None,
            output: output.clone(),
        })
        .unwrap();
        let written = std::fs::read_to_string(&output).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        let once = std::fs::read_to_string(golden("pairs.jsonl")).unwrap();
        assert_eq!(lines.len(), 2 * once.lines().count());
        let id =
            |line: &str| serde_json::from_str::<serde_json::Value>(line).unwrap()["id"].clone();
        for twins in lines.chunks(2) {
            assert_eq!(id(twins[0]), id(twins[1]));
            // Given second, written first: its line sorts first.
            assert!(!twins[0].contains("\"article\":\"~"), "{}", twins[0]);
            assert!(twins[1].contains("\"article\":\"~"), "{}", twins[1]);
        }
    }
}
