//! Knowledge-conflict matching at scale: 200,000 names against news-like text.
//!
//! `cargo bench -p tempora-filter --bench matching`
//!
//! - `build/matcher_200k_names`: the name matcher alone (`MatcherBuilder::add`
//!   for each name, then `build`) over the ~210,000 distinct names of the facts
//!   below. Goal: under 1 s.
//! - `build/dictionary`: everything `conflicts` does before the first article:
//!   entities, position heads and qualifiers, the matcher.
//! - `scan/select`: the stage's per-article work (both texts scanned, heads
//!   resolved, both criteria, fact matches built), in bytes of article text per
//!   second on one core. Goal: at least 100 MB/s.
//! - `scan/matcher`: the scan alone.
//! - `scan/raw_find_iter`: the baseline, side by side: the aho-corasick crate's
//!   default `AhoCorasick` over the same names (exact case) and the same text,
//!   counting `find_iter` matches, with no word boundaries, folding or resolution.
//!
//! - `scan_given/*`: the same three over real articles, when
//!   `TEMPORA_BENCH_ARTICLES` names a file of them (the output of `tempora
//!   extract`, one article per line).
//!
//! Facts and text are generated from a fixed seed: 100,000 holders (a label and
//! an alias each) of 4,800 positions ("<Title> of <Country>", alias
//! "<Country>n <Title>"), and 600 articles of 500 words with about four holders
//! and two offices named in each, the way news names them.

use chrono::NaiveDate;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use tempora_filter::conflicts::facts::EvolvingFact;
use tempora_filter::conflicts::matcher::{MatcherBuilder, NameUse};
use tempora_filter::conflicts::{select, ConflictsOptions, Dictionary, PositionNames, Verdict};
use tempora_records::{Article, EntityRef, Fact};

/// xorshift64*: a fixed-seed generator, enough to spread names and words.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const SYLLABLES: &[&str] = &[
    "ka", "ro", "lin", "mar", "te", "vos", "ban", "dri", "el", "sun", "ha", "gor", "pe", "ti",
    "lu", "mon", "ser", "ad", "zo", "qui", "ber", "na", "fal", "wen", "os", "rik", "ta", "mel",
    "ju", "dor",
];
const TITLES: &[&str] = &[
    "President",
    "Prime Minister",
    "Minister of Finance",
    "Minister of Health",
    "Mayor",
    "Governor",
    "Minister of Defence",
    "Speaker",
    "Chancellor",
    "Minister of Justice",
    "Foreign Minister",
    "Minister of the Interior",
    "Attorney General",
    "Chief Justice",
    "Minister of Education",
    "Minister of Agriculture",
    "Secretary of State",
    "Vice President",
    "Deputy Prime Minister",
    "Minister of Energy",
    "Minister of Transport",
    "Minister of Labour",
    "Central Bank Governor",
    "Minister of Culture",
    "Minister of Trade",
    "Chief of Staff",
    "Army Chief",
    "Police Commissioner",
    "Minister of Housing",
    "Minister of Environment",
    "Minister of Tourism",
    "Ombudsman",
    "Auditor General",
    "Minister of Science",
    "Minister of Sport",
    "Minister of Fisheries",
    "Minister of Mines",
    "Minister of Water",
    "Minister of Youth",
    "Minister of Defence Procurement",
];
const WORDS: &[&str] = &[
    "the",
    "government",
    "said",
    "on",
    "Tuesday",
    "that",
    "it",
    "would",
    "review",
    "plans",
    "for",
    "new",
    "housing",
    "in",
    "the",
    "capital",
    "after",
    "protests",
    "over",
    "rising",
    "prices",
    "and",
    "a",
    "report",
    "by",
    "officials",
    "found",
    "spending",
    "had",
    "fallen",
    "short",
    "of",
    "targets",
    "set",
    "last",
    "year",
    "while",
    "opposition",
    "leaders",
    "called",
    "vote",
    "parliament",
    "week",
    "people",
    "were",
    "told",
    "to",
    "expect",
    "delays",
    "services",
    "across",
    "country",
    "as",
    "talks",
    "continued",
    "the",
    "of",
    "to",
    "in",
    "is",
    "was",
    "he",
    "she",
    "they",
    "with",
    "from",
    "at",
    "an",
    "be",
    "has",
    "have",
    "not",
    "but",
    "this",
    "which",
    "also",
    "more",
    "than",
    "about",
    "into",
    "could",
    "after",
    "Reuters",
    "Monday",
    "police",
    "election",
    "minister",
    "president",
    "economy",
    "inflation",
    "bank",
    "rates",
    "health",
    "hospital",
    "workers",
    "strike",
    "union",
    "court",
    "judge",
    "ruling",
    "border",
    "military",
    "troops",
    "ceasefire",
    "agreement",
    "summit",
    "leaders",
    "trade",
    "deal",
    "tariffs",
    "energy",
    "gas",
    "oil",
    "climate",
    "floods",
    "storm",
    "weather",
    "football",
    "match",
    "season",
];

fn word(rng: &mut Rng, syllables: u64) -> String {
    let n = 2 + rng.next() % syllables;
    let mut w: String = (0..n).map(|_| rng.pick(SYLLABLES)).collect();
    w[..1].make_ascii_uppercase();
    w
}

fn entity(id: String, label: String, aliases: Vec<String>) -> EntityRef {
    EntityRef {
        id,
        label: Some(label),
        aliases,
    }
}

/// 120 countries and 40 titles make 4,800 positions; 100,000 holders spread over
/// them (about 21 each), each with a label and an alias.
fn synthetic_facts(rng: &mut Rng) -> (Vec<EvolvingFact>, Vec<String>, Vec<(String, String)>) {
    let countries: Vec<String> = (0..120).map(|_| word(rng, 2)).collect();
    let mut positions = Vec::new();
    let mut offices = Vec::new();
    for (c, country) in countries.iter().enumerate() {
        for (t, title) in TITLES.iter().enumerate() {
            let label = format!("{title} of {country}");
            let alias = format!("{country}n {title}");
            positions.push(entity(format!("QP{c}_{t}"), label, vec![alias]));
            offices.push((title.to_string(), country.clone()));
        }
    }
    let changed = NaiveDate::from_ymd_opt(2021, 1, 20).unwrap_or_default();
    let mut people = Vec::new();
    let facts = (0..100_000u32)
        .map(|i| {
            let (first, last) = (word(rng, 2), word(rng, 3));
            let label = format!("{first} {last}");
            let alias = format!("{first} {} {last}", word(rng, 1));
            people.push(label.clone());
            let holder = entity(format!("Q{i}"), label, vec![alias]);
            let position = positions[(rng.next() % positions.len() as u64) as usize].clone();
            EvolvingFact {
                fact: Fact {
                    subject: position,
                    relation: "P1308".into(),
                    object: holder,
                    start: Some("2021-01-20".into()),
                    end: None,
                    replaces: None,
                    replaced_by: None,
                    rank: "normal".into(),
                    valid_at_cutoff: false,
                    pair_changed: Some("2021-01-20".into()),
                },
                changed,
            }
        })
        .collect();
    (facts, people, offices)
}

/// News-like articles of 500 words: common words, about four holders and two
/// offices ("the minister of health of X", "Xn foreign minister", "the mayor"
/// with X named elsewhere).
fn synthetic_articles(
    rng: &mut Rng,
    people: &[String],
    offices: &[(String, String)],
    n: usize,
) -> Vec<Article> {
    let pick = |rng: &mut Rng, len: usize| (rng.next() % len as u64) as usize;
    (0..n)
        .map(|i| {
            let mut document = String::new();
            for w in 0..500 {
                match w % 125 {
                    10 | 70 => document.push_str(&people[pick(rng, people.len())]),
                    40 => {
                        let (title, country) = &offices[pick(rng, offices.len())];
                        match rng.next() % 3 {
                            0 => document
                                .push_str(&format!("the {} of {country}", title.to_lowercase())),
                            1 => document.push_str(&format!("{country}n {}", title.to_lowercase())),
                            _ => document
                                .push_str(&format!("the {} said {country}", title.to_lowercase())),
                        }
                    }
                    _ => document.push_str(rng.pick(WORDS)),
                }
                document.push(if w % 40 == 39 { '\n' } else { ' ' });
            }
            let summary = format!(
                "{} has promised to {} the {} after talks in {}.",
                people[pick(rng, people.len())],
                rng.pick(WORDS),
                rng.pick(WORDS),
                offices[pick(rng, offices.len())].1,
            );
            Article {
                id: i.to_string(),
                url: format!("https://www.bbc.co.uk/news/world-{i}"),
                source: "bbc".into(),
                section: "news".into(),
                published: NaiveDate::from_ymd_opt(2021, 6, 1).unwrap_or_default(),
                published_at: None,
                published_source: None,
                captured: Some("20210601000000".parse().unwrap()),
                title: String::new(),
                summary,
                summary_source: Some(tempora_records::SummarySource::Intro),
                document,
                dateline: None,
                facts: Vec::new(),
                relations: Vec::new(),
                split: None,
                novelty: None,
                archived_url: None,
                digest: None,
                payload_sha1: None,
            }
        })
        .collect()
}

fn options() -> ConflictsOptions {
    ConflictsOptions {
        facts: Some("facts".into()),
        facts_file: None,
        case_sensitive: false,
        min_name_chars: 4,
        use_aliases: true,
        whole_words: true,
        position_names: PositionNames::HeadInContext,
        summary_same_fact: false,
    }
}

fn matching(c: &mut Criterion) {
    let mut rng = Rng(0x7e3a_5d1c_9b2f_4e01);
    let (facts, people, offices) = synthetic_facts(&mut rng);
    let options = options();
    let dict = Dictionary::build(facts.clone(), &options).expect("dictionary");
    let stats = dict.stats();
    eprintln!(
        "dictionary: {} facts, {} entities, {} name patterns, matcher {} MiB",
        stats.facts,
        stats.entities,
        stats.patterns,
        stats.matcher_bytes >> 20
    );
    let names: Vec<String> = facts
        .iter()
        .flat_map(|f| {
            f.fact
                .subject
                .names()
                .chain(f.fact.object.names())
                .map(str::to_string)
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    eprintln!("distinct names: {}", names.len());

    let mut build = c.benchmark_group("build");
    build.sample_size(10);
    build.bench_function("matcher_200k_names", |b| {
        b.iter(|| {
            let mut builder = MatcherBuilder::new(true);
            for (i, name) in names.iter().enumerate() {
                builder.add(name, NameUse::Name(i as u32), false);
            }
            builder.build().expect("matcher")
        })
    });
    build.bench_function("dictionary", |b| {
        b.iter_batched(
            || facts.clone(),
            |facts| Dictionary::build(facts, &options).expect("dictionary"),
            BatchSize::LargeInput,
        )
    });
    build.finish();

    let articles = synthetic_articles(&mut rng, &people, &offices, 600);
    let raw = aho_corasick::AhoCorasick::new(&names).expect("automaton");
    scan_group(c, "scan", &dict, &raw, &articles);
    // Real articles, when given: `tempora extract` output (one article per line).
    if let Some(path) = std::env::var_os("TEMPORA_BENCH_ARTICLES") {
        let text = std::fs::read_to_string(&path).expect("TEMPORA_BENCH_ARTICLES");
        let real: Vec<Article> = text
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        scan_group(c, "scan_given", &dict, &raw, &real);
    }
}

/// `select`, the matcher and the baseline over `articles`, in bytes per second.
fn scan_group(
    c: &mut Criterion,
    name: &str,
    dict: &Dictionary,
    raw: &aho_corasick::AhoCorasick,
    articles: &[Article],
) {
    let bytes: usize = articles
        .iter()
        .map(|a| a.document.len() + a.summary.len())
        .sum();
    let kept = articles
        .iter()
        .filter(|a| matches!(select(dict, a, false), Verdict::Keep(_)))
        .count();
    let found: usize = articles
        .iter()
        .map(|a| dict.matcher.scan(&a.document).len() + dict.matcher.scan(&a.summary).len())
        .sum();
    eprintln!(
        "{name}: {} articles, {} KiB, {found} names found, {kept} kept",
        articles.len(),
        bytes >> 10
    );
    let mut scan = c.benchmark_group(name);
    scan.throughput(Throughput::Bytes(bytes as u64));
    scan.bench_function("select", |b| {
        b.iter(|| {
            articles
                .iter()
                .filter(|a| matches!(select(dict, a, false), Verdict::Keep(_)))
                .count()
        })
    });
    scan.bench_function("matcher", |b| {
        b.iter(|| {
            articles
                .iter()
                .map(|a| dict.matcher.scan(&a.document).len() + dict.matcher.scan(&a.summary).len())
                .sum::<usize>()
        })
    });
    scan.bench_function("raw_find_iter", |b| {
        b.iter(|| {
            articles
                .iter()
                .map(|a| raw.find_iter(&a.document).count() + raw.find_iter(&a.summary).count())
                .sum::<usize>()
        })
    });
    scan.finish();
}

criterion_group!(benches, matching);
criterion_main!(benches);
