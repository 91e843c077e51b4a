//! The judge against hand-labelled claims of real system summaries: precision and
//! recall per verdict, and the two figures (of claims judged `outdated`
//! or `never`, the share wrong by the facts and by the human labels; of claims
//! wrong by the facts, the share judged so).
//!
//! `TEMPORA_SCORE_LABELS=DIR cargo run --release -p tempora-score --example labels`
//!
//! The labelled data is not in the repository (its sources' licences): DIR holds
//! - `facts.jsonl`: facts as `tempora facts` writes them (an entity without an id
//!   gets `X:<label>`, so hand-made facts keep their people and offices apart);
//! - `predictions.jsonl`: one summary a line, `id`, `system`, `summary`,
//!   `published` (YYYY-MM-DD), and `document` where the source has the article;
//! - `gold.jsonl`: one line per prediction, `id`, `system` and `claims`, each with
//!   `start` and `end` (characters), `text`, `truth` (the verdict the facts give,
//!   by hand) and `human_wrong` (the source's human label of that claim: true,
//!   false or null where it says nothing of it).
//!
//! A judged claim matches the gold claim of the same summary that its span
//! overlaps most; unmatched gold claims are missed, unmatched judged ones spurious.
//! Every miss, spurious claim and differing verdict is printed with its reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Deserialize;
use tempora_records::{Claim, Fact, Verdict};
use tempora_score::Judge;

#[derive(Deserialize)]
struct Prediction {
    id: String,
    system: String,
    summary: String,
    published: NaiveDate,
    #[serde(default)]
    document: Option<String>,
}

#[derive(Deserialize)]
struct Gold {
    id: String,
    system: String,
    claims: Vec<GoldClaim>,
}

#[derive(Deserialize, Clone)]
struct GoldClaim {
    start: usize,
    end: usize,
    text: String,
    truth: String,
    human_wrong: Option<bool>,
}

fn lines<T: for<'a> Deserialize<'a>>(path: &Path) -> Vec<T> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            // Python writes NaN for a missing float: JSON has none.
            let l = l.replace(": NaN", ": null");
            serde_json::from_str(&l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Facts with every missing id filled in as `X:<label>`.
fn facts(path: &Path) -> Vec<Fact> {
    let raw: Vec<serde_json::Value> = lines(path);
    raw.into_iter()
        .map(|mut v| {
            for side in ["subject", "object"] {
                if v[side]["id"].is_null() {
                    let label = v[side]["label"].as_str().unwrap_or("?").to_string();
                    v[side]["id"] = format!("X:{label}").into();
                }
            }
            serde_json::from_value(v).expect("a fact")
        })
        .collect()
}

const FLAGS: [Verdict; 3] = [Verdict::Outdated, Verdict::Never, Verdict::NotYet];

fn main() {
    let Some(dir) = std::env::var_os("TEMPORA_SCORE_LABELS").map(PathBuf::from) else {
        eprintln!("set TEMPORA_SCORE_LABELS to a folder with facts.jsonl, predictions.jsonl and gold.jsonl");
        std::process::exit(2);
    };
    let facts = facts(&dir.join("facts.jsonl"));
    let judge = Judge::new(&facts).expect("the facts index");
    let predictions: Vec<Prediction> = lines(&dir.join("predictions.jsonl"));
    let gold: BTreeMap<(String, String), Vec<GoldClaim>> = lines::<Gold>(&dir.join("gold.jsonl"))
        .into_iter()
        .map(|g| ((g.id, g.system), g.claims))
        .collect();
    // truth -> verdict (or "missed") -> count; "spurious" rows.
    let mut confusion: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut notes = Vec::new();
    let (mut flagged, mut flagged_wrong, mut flagged_human, mut flagged_human_wrong) = (0, 0, 0, 0);
    let (mut wrong, mut wrong_flagged) = (0, 0);
    for p in &predictions {
        let context = judge.context(p.document.as_deref(), []);
        let claims = judge.claims(&p.summary, p.published, &context);
        let golds = gold
            .get(&(p.id.clone(), p.system.clone()))
            .cloned()
            .unwrap_or_default();
        let (pairs, spurious, missed) = pair_up(&golds, &claims);
        for (g, c) in &pairs {
            *confusion
                .entry(g.truth.clone())
                .or_default()
                .entry(c.verdict.as_str().to_string())
                .or_default() += 1;
            let is_flagged = FLAGS.contains(&c.verdict);
            let is_wrong = ["outdated", "never", "not_yet"].contains(&g.truth.as_str());
            if matches!(c.verdict, Verdict::Outdated | Verdict::Never) {
                flagged += 1;
                flagged_wrong += usize::from(is_wrong);
                if let Some(h) = g.human_wrong {
                    flagged_human += 1;
                    flagged_human_wrong += usize::from(h);
                }
            }
            if is_wrong {
                wrong += 1;
                wrong_flagged += usize::from(is_flagged);
            }
            if g.truth != c.verdict.as_str() {
                notes.push(format!(
                    "differs {} [{}] {:?}: gold {}, judged {} ({})",
                    p.id,
                    p.system,
                    c.text,
                    g.truth,
                    c.verdict.as_str(),
                    c.reason
                ));
            }
        }
        for g in missed {
            *confusion
                .entry(g.truth.clone())
                .or_default()
                .entry("missed".into())
                .or_default() += 1;
            if ["outdated", "never", "not_yet"].contains(&g.truth.as_str()) {
                wrong += 1;
            }
            notes.push(format!(
                "missed {} [{}] {:?}: gold {}",
                p.id, p.system, g.text, g.truth
            ));
        }
        for c in spurious {
            *confusion
                .entry("spurious".into())
                .or_default()
                .entry(c.verdict.as_str().to_string())
                .or_default() += 1;
            if matches!(c.verdict, Verdict::Outdated | Verdict::Never) {
                flagged += 1;
            }
            notes.push(format!(
                "spurious {} [{}] {:?}: judged {} ({})",
                p.id,
                p.system,
                c.text,
                c.verdict.as_str(),
                c.reason
            ));
        }
    }
    print_confusion(&confusion);
    let share = |a: usize, b: usize| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    println!(
        "\njudged outdated or never: {flagged}; wrong by the facts {flagged_wrong} ({:.1} %); wrong by the human label {flagged_human_wrong} of {flagged_human} labelled ({:.1} %)",
        share(flagged_wrong, flagged),
        share(flagged_human_wrong, flagged_human)
    );
    println!(
        "wrong by the facts (outdated, never, not_yet): {wrong}; judged so {wrong_flagged} ({:.1} %)\n",
        share(wrong_flagged, wrong)
    );
    for note in notes {
        println!("{note}");
    }
}

/// Gold and judged claims of one summary paired by the largest span overlap;
/// then the judged claims left (spurious) and the gold ones left (missed).
fn pair_up<'g, 'c>(
    golds: &'g [GoldClaim],
    claims: &'c [Claim],
) -> (
    Vec<(&'g GoldClaim, &'c Claim)>,
    Vec<&'c Claim>,
    Vec<&'g GoldClaim>,
) {
    let mut candidates: Vec<(usize, usize, usize)> = Vec::new();
    for (i, g) in golds.iter().enumerate() {
        for (j, c) in claims.iter().enumerate() {
            let overlap = g.end.min(c.end).saturating_sub(g.start.max(c.start));
            if overlap > 0 {
                candidates.push((overlap, i, j));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut used_g, mut used_c) = (vec![false; golds.len()], vec![false; claims.len()]);
    let mut pairs = Vec::new();
    for (_, i, j) in candidates {
        if !used_g[i] && !used_c[j] {
            used_g[i] = true;
            used_c[j] = true;
            pairs.push((&golds[i], &claims[j]));
        }
    }
    let spurious = claims
        .iter()
        .zip(&used_c)
        .filter(|(_, u)| !**u)
        .map(|(c, _)| c)
        .collect();
    let missed = golds
        .iter()
        .zip(&used_g)
        .filter(|(_, u)| !**u)
        .map(|(g, _)| g)
        .collect();
    (pairs, spurious, missed)
}

fn print_confusion(confusion: &BTreeMap<String, BTreeMap<String, usize>>) {
    let columns: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| v.as_str().to_string())
        .chain(["missed".to_string()])
        .collect();
    print!("{:<10}", "gold");
    for c in &columns {
        print!("{c:>10}");
    }
    println!();
    let rows = Verdict::ALL
        .iter()
        .map(|v| v.as_str().to_string())
        .chain(["spurious".to_string()]);
    for row in rows {
        print!("{row:<10}");
        for c in &columns {
            let n = confusion
                .get(&row)
                .and_then(|r| r.get(c))
                .copied()
                .unwrap_or(0);
            print!("{n:>10}");
        }
        println!();
    }
    for v in Verdict::ALL {
        let name = v.as_str();
        let judged: usize = confusion.values().filter_map(|r| r.get(name)).sum();
        let correct = confusion
            .get(name)
            .and_then(|r| r.get(name))
            .copied()
            .unwrap_or(0);
        let truth: usize = confusion.get(name).map_or(0, |r| r.values().sum());
        let pct = |a: usize, b: usize| {
            if b == 0 {
                f64::NAN
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        println!(
            "{name:<10} precision {:>5.1} % ({correct}/{judged})  recall {:>5.1} % ({correct}/{truth})",
            pct(correct, judged),
            pct(correct, truth)
        );
    }
}
