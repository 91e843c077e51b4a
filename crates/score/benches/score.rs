//! Scoring at scale: 100,000 summaries (ten systems) against a set of 10,000
//! articles, with facts of the size a full dump gives (100,000 holdings of 4,800
//! offices, and the offices of 20,000 people), and of sport at the same size
//! (P54 is as large as P39 in Wikidata): 100,000 spells of 30,000 players at
//! 2,400 clubs, and the clubs' 9,600 managers (P286). A fifth of the articles
//! are about a club: "<Club> striker <Name>", "<Name>, the <Club> manager,".
//!
//! `cargo bench -p tempora-score --bench score`
//!
//! - `score/set_100k`: `job::score_set`, the whole of `tempora score SET_DIR`
//!   after reading: every article's context (its document scanned for names in
//!   full), then every summary scanned, its claims found, resolved and judged, and
//!   the scores sorted. One core. Goal: at least 50,000 summaries a second.
//! - `score/set_100k_intervals`: the same, then `job::summarize`: the figures per
//!   system (`summary.json`'s rows, the differences of every pair of systems, the
//!   leaderboard) with the default 1,000 resamples for every rate and every
//!   pair's difference: what `tempora score` does. Goal: at most 10 % over
//!   `set_100k`.
//! - `score/figures_100k`, `score/figures_100k_no_intervals`: `job::summarize`
//!   alone on the same scores, with and without (`--resamples 0`) the
//!   intervals: what the figures and the resamples cost, apart from the noise of
//!   scoring.
//! - `score/conflicts_matcher`: the yardstick, side by side: the conflicts
//!   stage's name matcher (the same word trie, every name of the same facts) scanning
//!   the same summaries and documents, nothing else.
//!
//! Both report bytes of text a second (every summary and every document, which
//! both read once); the bench prints how many summaries that is, so summaries a
//! second = summaries / the time of `set_100k`.
//!
//! Facts and text are generated from a fixed seed. Summaries name people the way
//! news does: "<Country>n <Title> <Name>", "<Name>, the <title>,", "former <title>
//! <Name>", a quarter lowercased, a tenth with no claim, some naming an office's
//! earlier holder.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tempora_filter::conflicts::matcher::{MatcherBuilder, NameUse};
use tempora_records::{EntityRef, Fact, FactMatch};
use tempora_score::bootstrap::Bootstrap;
use tempora_score::inputs::FactsFile;
use tempora_score::job::{score_set, summarize, SetArticle, SystemPredictions};
use tempora_score::predictions::Prediction;
use tempora_score::Judge;

/// xorshift64*: a fixed-seed generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
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
    "Speaker",
    "Chancellor",
    "Foreign Minister",
    "Attorney General",
    "Vice President",
    "Deputy Prime Minister",
    "Secretary of State",
    "Chief Justice",
    "Minister of Defence",
    "Minister of Justice",
    "Minister of Education",
    "Minister of Energy",
    "Minister of Transport",
    "Minister of Trade",
    "Minister of Labour",
    "Minister of Culture",
    "Minister of Housing",
    "Minister of Environment",
    "Minister of Tourism",
    "Minister of Science",
    "Minister of Sport",
    "Minister of Water",
    "Minister of Youth",
    "Minister of Mines",
    "Ombudsman",
    "Auditor General",
    "Police Commissioner",
    "Army Chief",
    "Chief of Staff",
    "Central Bank Governor",
    "Minister of Fisheries",
    "Minister of Agriculture",
    "Minister of the Interior",
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
    "not",
    "but",
    "this",
    "which",
    "also",
    "more",
    "than",
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

fn fact(
    subject: &EntityRef,
    relation: &str,
    object: &EntityRef,
    start: i32,
    end: Option<i32>,
) -> Fact {
    Fact {
        subject: subject.clone(),
        relation: relation.into(),
        object: object.clone(),
        start: Some(format!("{start}-01-20")),
        end: end.map(|e| format!("{e}-01-20")),
        replaces: None,
        replaced_by: None,
        rank: "normal".into(),
        valid_at_cutoff: false,
        pair_changed: None,
    }
}

struct Office {
    entity: EntityRef,
    title: &'static str,
    country: String,
    /// (holder, start year, end year) in order.
    holders: Vec<(usize, i32, Option<i32>)>,
}

struct World {
    facts: Vec<Fact>,
    people: Vec<EntityRef>,
    offices: Vec<Office>,
    clubs: Vec<Club>,
}

/// A club with its managers and players, one after another (as `Office`).
struct Club {
    entity: EntityRef,
    short: String,
    managers: Vec<(usize, i32, Option<i32>)>,
    players: Vec<(usize, i32, Option<i32>)>,
}

const CLUB_WORDS: &[&str] = &["Rovers", "United", "City", "Athletic", "Wanderers", "Town"];

/// 2,400 clubs; 30,000 players (people after the politicians) with 100,000
/// spells in all, each player's clubs one after another from 1990 (P54 facts,
/// the player the subject), and each club's managers from 1980 (P286, the club
/// the subject).
fn sport(rng: &mut Rng, people: &mut Vec<EntityRef>, facts: &mut Vec<Fact>) -> Vec<Club> {
    let mut clubs: Vec<Club> = (0..2_400)
        .map(|i| {
            let short = format!("{} {}", word(rng, 2), rng.pick(CLUB_WORDS));
            Club {
                entity: entity(
                    format!("QC{i}"),
                    format!("{short} F.C."),
                    vec![short.clone()],
                ),
                short,
                managers: Vec::new(),
                players: Vec::new(),
            }
        })
        .collect();
    let first_player = people.len();
    for i in 0..39_600u32 {
        let (first, last) = (word(rng, 2), word(rng, 3));
        people.push(entity(
            format!("QS{i}"),
            format!("{first} {last}"),
            Vec::new(),
        ));
    }
    for p in 0..30_000usize {
        let person = first_player + p;
        let mut year = 1990 + rng.below(25) as i32;
        for spell in 0..(3 + usize::from(p % 3 == 0)) {
            let c = rng.below(clubs.len());
            let end = year + 1 + rng.below(4) as i32;
            let end = (end <= 2024 || spell < 3).then_some(end);
            facts.push(fact(&people[person], "P54", &clubs[c].entity, year, end));
            clubs[c].players.push((person, year, end));
            year = end.unwrap_or(year + 1);
        }
    }
    let mut manager = first_player + 30_000;
    for club in &mut clubs {
        let mut year = 1980;
        for _ in 0..4 {
            let end = year + 2 + rng.below(10) as i32;
            let end = (end <= 2024).then_some(end);
            facts.push(fact(&club.entity, "P286", &people[manager], year, end));
            club.managers.push((manager, year, end));
            year = end.unwrap_or(year + 1);
            manager += 1;
        }
    }
    clubs
}

/// 120 countries x 40 titles = 4,800 offices; 100,000 holdings by 60,000 people,
/// each office's holders one after another from 1950 (terms of one to five
/// years, the last one open when it runs past 2024), as Wikidata lists them; the
/// first 20,000 people's offices also as P39 facts.
fn world(rng: &mut Rng) -> World {
    let countries: Vec<String> = (0..120).map(|_| word(rng, 2)).collect();
    let mut offices = Vec::new();
    for (c, country) in countries.iter().enumerate() {
        for (t, title) in TITLES.iter().enumerate() {
            let label = format!("{title} of {country}");
            let alias = format!("{country}n {title}");
            offices.push(Office {
                entity: entity(format!("QP{c}_{t}"), label, vec![alias]),
                title,
                country: country.clone(),
                holders: Vec::new(),
            });
        }
    }
    let people: Vec<EntityRef> = (0..60_000u32)
        .map(|i| {
            let (first, last) = (word(rng, 2), word(rng, 3));
            let alias = format!("{first} {} {last}", word(rng, 1));
            entity(format!("Q{i}"), format!("{first} {last}"), vec![alias])
        })
        .collect();
    let mut facts = Vec::new();
    let mut year = vec![1950; offices.len()];
    for holding in 0..100_000usize {
        // An office whose holder is still in office takes no one else.
        let o = loop {
            let o = rng.below(offices.len());
            if offices[o]
                .holders
                .last()
                .is_none_or(|(_, _, end)| end.is_some())
            {
                break o;
            }
        };
        let person = if holding < 60_000 {
            holding
        } else {
            rng.below(60_000)
        };
        let start = year[o];
        let end = start + 1 + rng.below(5) as i32;
        let end = (end <= 2024).then_some(end);
        year[o] = end.unwrap_or(start + 1);
        offices[o].holders.push((person, start, end));
        facts.push(fact(
            &offices[o].entity,
            "P1308",
            &people[person],
            start,
            end,
        ));
        if person < 20_000 {
            facts.push(fact(&people[person], "P39", &offices[o].entity, start, end));
        }
    }
    let mut people = people;
    let clubs = sport(rng, &mut people, &mut facts);
    World {
        facts,
        people,
        offices,
        clubs,
    }
}

/// A summary of an article about `club`: its manager or one of its players,
/// in one of the shapes sport news uses.
fn club_summary(rng: &mut Rng, w: &World, club: &Club, manager: bool, who: usize) -> String {
    let name = w.people[who].label.clone().unwrap_or_default();
    let role = if manager {
        "manager"
    } else {
        rng.pick(&["striker", "midfielder", "goalkeeper"])
    };
    let short = &club.short;
    let text = match rng.below(4) {
        0 => format!("{short} {role} {name} {}.", sentence(rng, 14)),
        1 => format!("{name}, the {short} {role}, {}.", sentence(rng, 14)),
        2 => format!("Former {short} {role} {name} {}.", sentence(rng, 14)),
        _ => format!(
            "The {} {short} {role} {name} {}.",
            sentence(rng, 3),
            sentence(rng, 10)
        ),
    };
    if rng.below(4) == 0 {
        text.to_lowercase()
    } else {
        text
    }
}

fn sentence(rng: &mut Rng, words: usize) -> String {
    (0..words)
        .map(|_| rng.pick(WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A summary of an article about `office` on `day`: a claim in one of the
/// shapes news uses, about the holder on that day or an earlier one.
fn summary(rng: &mut Rng, w: &World, office: &Office, holder: usize) -> String {
    let name = w.people[holder].label.clone().unwrap_or_default();
    let title = office.title;
    let lower = title.to_lowercase();
    let country = &office.country;
    let text = match rng.below(10) {
        0 => format!("The {} {}.", sentence(rng, 12), sentence(rng, 8)),
        1 | 2 => format!("{country}n {title} {name} {}.", sentence(rng, 14)),
        3 | 4 => format!("{name}, the {lower}, {}.", sentence(rng, 14)),
        5 => format!("Former {lower} {name} {}.", sentence(rng, 14)),
        6 => format!(
            "The {} {title} {name} {}.",
            sentence(rng, 4),
            sentence(rng, 10)
        ),
        _ => format!(
            "{} {title} of {country} {name} {}.",
            sentence(rng, 3),
            sentence(rng, 12)
        ),
    };
    if rng.below(4) == 0 {
        text.to_lowercase()
    } else {
        text
    }
}

/// What an article is about.
#[derive(Clone, Copy)]
enum About<'a> {
    Office(&'a Office),
    /// A club, and whether the article is about its manager (else a player).
    Club(&'a Club, bool),
}

impl About<'_> {
    fn summary(self, rng: &mut Rng, w: &World, who: usize) -> String {
        match self {
            Self::Office(office) => summary(rng, w, office, who),
            Self::Club(club, manager) => club_summary(rng, w, club, manager, who),
        }
    }
}

/// An article about a club: its manager after the first, or a player whose
/// spell began after the club's first player's; (about, earlier, holder, year).
fn club_article<'a>(rng: &mut Rng, w: &'a World) -> (About<'a>, usize, usize, i32) {
    let club = loop {
        let c = &w.clubs[rng.below(w.clubs.len())];
        if c.players.len() >= 2 {
            break c;
        }
    };
    let manager = rng.below(2) == 0;
    let list = if manager {
        &club.managers
    } else {
        &club.players
    };
    let (holder, start, _) = list[1 + rng.below(list.len() - 1)];
    (About::Club(club, manager), list[0].0, holder, start)
}

struct Workload {
    judge: Judge,
    articles: BTreeMap<String, SetArticle>,
    systems: Vec<SystemPredictions>,
    summary_bytes: usize,
    document_bytes: usize,
    names: Vec<String>,
}

fn workload() -> Workload {
    let mut rng = Rng(0x5eed_2024);
    let w = world(&mut rng);
    let mut articles = BTreeMap::new();
    let mut picks: Vec<(String, About, usize, usize)> = Vec::new();
    for a in 0..10_000usize {
        let (about, earlier, holder, start) = if a % 5 == 4 {
            club_article(&mut rng, &w)
        } else {
            let office = loop {
                let o = &w.offices[rng.below(w.offices.len())];
                if o.holders.len() >= 2 {
                    break o;
                }
            };
            let (holder, start, _) = office.holders[1 + rng.below(office.holders.len() - 1)];
            (About::Office(office), office.holders[0].0, holder, start)
        };
        let published = NaiveDate::from_ymd_opt(start, 6, 1).unwrap_or_default();
        let name = w.people[holder].label.clone().unwrap_or_default();
        let (label, subject) = match about {
            About::Office(o) => (o.entity.label.clone(), &o.entity),
            About::Club(c, _) => (c.entity.label.clone(), &c.entity),
        };
        let document = format!(
            "{} {name} {}. {} {}.",
            sentence(&mut rng, 120),
            sentence(&mut rng, 150),
            label.unwrap_or_default(),
            sentence(&mut rng, 200)
        );
        let facts: Vec<FactMatch> = w
            .facts
            .iter()
            .filter(|f| f.subject.id == subject.id)
            .take(2)
            .map(|f| FactMatch {
                fact: f.clone(),
                mentions: Vec::new(),
                after_change: true,
            })
            .collect();
        let id = format!("a{a}");
        let reference = about.summary(&mut rng, &w, holder);
        picks.push((id.clone(), about, earlier, holder));
        articles.insert(
            id.clone(),
            SetArticle {
                id,
                published,
                summary: reference,
                document,
                facts,
                set: "future".into(),
            },
        );
    }
    let mut systems = Vec::new();
    let mut summary_bytes = 0;
    for s in 0..10 {
        let mut rows = Vec::new();
        for (line, (id, about, earlier, holder)) in picks.iter().enumerate() {
            // Every third summary names the office's earlier holder: outdated.
            let who = if rng.below(3) == 0 { *earlier } else { *holder };
            let text = about.summary(&mut rng, &w, who);
            summary_bytes += text.len();
            rows.push(Prediction {
                line: line + 1,
                id: id.clone(),
                summary: text,
                published: None,
                document: None,
                set: None,
            });
        }
        systems.push(SystemPredictions::one(
            format!("system{s}"),
            format!("system{s}.jsonl"),
            rows,
        ));
    }
    let document_bytes = articles.values().map(|a| a.document.len()).sum();
    let mut names: Vec<String> = w
        .people
        .iter()
        .chain(w.offices.iter().map(|o| &o.entity))
        .chain(w.clubs.iter().map(|c| &c.entity))
        .flat_map(|e| e.names().map(str::to_string).collect::<Vec<_>>())
        .collect();
    names.sort();
    names.dedup();
    Workload {
        judge: Judge::new(&w.facts).expect("the facts index"),
        articles,
        systems,
        summary_bytes,
        document_bytes,
        names,
    }
}

fn bench(c: &mut Criterion) {
    let w = workload();
    let summaries: usize = w.systems.iter().map(|s| s.rows().count()).sum();
    let scored = score_set(&w.judge, &w.articles, &w.systems, false);
    let claims: usize = scored.scores.iter().map(|s| s.claims.len()).sum();
    let mut verdicts = std::collections::BTreeMap::new();
    for claim in scored.scores.iter().flat_map(|s| &s.claims) {
        *verdicts.entry(claim.verdict.as_str()).or_insert(0) += 1;
    }
    println!(
        "{summaries} summaries of {} bytes on average ({} bytes), {} articles ({} bytes of documents), {claims} claims {verdicts:?}",
        w.summary_bytes / summaries.max(1),
        w.summary_bytes,
        w.articles.len(),
        w.document_bytes
    );
    let mut group = c.benchmark_group("score");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(
        (w.summary_bytes + w.document_bytes) as u64,
    ));
    group.bench_function("set_100k", |b| {
        b.iter(|| {
            score_set(&w.judge, &w.articles, &w.systems, false)
                .scores
                .len()
        });
    });
    let facts = FactsFile {
        name: "facts.jsonl".into(),
        sha256: String::new(),
        read: 0,
    };
    let bootstrap = Bootstrap::default();
    group.bench_function("set_100k_intervals", |b| {
        b.iter(|| {
            let scored = score_set(&w.judge, &w.articles, &w.systems, false);
            summarize(&scored, &facts, &[], Some(&bootstrap)).rows.len()
        });
    });
    for (name, bootstrap) in [
        ("figures_100k", Some(&bootstrap)),
        ("figures_100k_no_intervals", None),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| summarize(&scored, &facts, &[], bootstrap).rows.len());
        });
    }
    let mut builder = MatcherBuilder::new(true);
    for (i, name) in w.names.iter().enumerate() {
        builder.add(name, NameUse::Name(i as u32), false);
    }
    let matcher = builder.build().expect("the names index");
    group.bench_function("conflicts_matcher", |b| {
        b.iter(|| {
            let mut found = 0;
            for article in w.articles.values() {
                found += matcher.scan(&article.document).len();
            }
            for system in &w.systems {
                for row in system.rows() {
                    found += matcher.scan(&row.summary).len();
                }
            }
            found
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
