//! Article filters: training-set exclusion (`exclude`) and the knowledge-conflict
//! selection of TempoSum (`conflicts`); and what is built on the selection:
//! outdated-fact minimal pairs (`minimal-pairs`, see [`pairs`]).
//!
//! In: articles. Out: the articles that pass, unchanged by `exclude`, with
//! `Article.facts` filled in by `conflicts`. Promises: every article that does not
//! pass is rejected with a reason naming the list or criterion that failed
//! ("in XSum train (id 35232142)", "criterion 2 failed: ...") and counted in
//! `run.json`, so nothing is dropped silently; list and facts files are read once,
//! before the first article, and a missing one is an input error naming it.
//!
//! `prefetch` makes the decisions of `extract`, `exclude` and `split` that a
//! capture's URL and time already allow for certain, before its page is fetched
//! (see [`prefetch`]), reading those stages' options from the plan. For that it
//! depends on `tempora-extract` (article identity from the site profiles); no stage
//! crate depends on this one.
//!
//! `exclude` drops BBC articles whose id (or URL suffix) is in XSum's split file
//! (the subsets chosen, all by default) and any article whose URL is in a
//! CNN/DailyMail url list, comparing original URLs after [`exclude::normalize_url`]
//! (Wayback prefix, scheme, `www.`, query, fragment, trailing `index.html` removed).
//!
//! `conflicts` keeps an article when (1) its document names both the subject and
//! the object of an evolving fact and (2) its summary names the subject or object
//! of an evolving fact (TempoSum, section 3.2.2; `summary_same_fact` ties (2) to a
//! fact of (1)). Evolving facts are those with a `pair_changed`, which must fall
//! after `pipeline.cutoff` (facts made for another cutoff stop the run). Names are
//! labels and aliases (`use_aliases`, `min_name_chars`, `case_sensitive`); a
//! position is also found by its unqualified head in context ("the prime minister"
//! with the UK named, "President Joe Biden"): see [`PositionNames`] for the choices
//! and what each did to the kept articles on our data.
//!
//! Matching ([`conflicts::matcher`], [`conflicts::words`]): every name in one
//! trie whose alphabet is words, walked from the word starts of a text that a
//! first-word filter lets through, one hash lookup per word; each name a walk
//! proposes is then compared with the text, byte for byte, and its word
//! boundaries checked. The classic tool is one Aho-Corasick automaton; this is
//! the goto graph of one, over words instead of bytes and
//! without failure links (a match only starts at a word start, so walks are
//! anchored). The byte-level automaton of the aho-corasick crate, walked the same
//! way, took 1.3 s to build and missed the cache at every byte of a name: 0.20-0.26x
//! its own `find_iter` on the per-article work.
//!
//! Speed: `cargo bench -p tempora-filter --bench matching` (100,000 facts, 212,633
//! name patterns, 600 synthetic news articles of 1.9 MiB naming ~34 dictionary
//! names each; one core of the shared 2-core machine; three runs). The baseline
//! is the aho-corasick crate's `find_iter` over the same names and text in the
//! same run: raw substrings, with no word boundaries, case folding or
//! resolution. The machine's load moves every figure by 10-40% between runs, so
//! the ratios are the figures to read:
//! - matching, the name scan (`scan/matcher`): 1.23-1.37x the baseline,
//!   156-169 MiB/s = 163-178 MB/s (goal: 100 MB/s);
//! - the whole per-article work (`scan/select`: both texts scanned, heads
//!   resolved, both criteria, rejection reasons written): 0.87-0.99x the
//!   baseline, 110-126 MiB/s = 116-132 MB/s;
//! - 21 real archived BBC and CNN articles (`TEMPORA_BENCH_ARTICLES`: real pages
//!   through `tempora extract`; not in the repository): `select` 328-364 MiB/s,
//!   1.1-1.5x the baseline (real text names far fewer dictionary entries);
//! - building the matcher from 209,173 names (`build/matcher_200k_names`, adding
//!   every name included): 0.24-0.32 s (goal: under 1 s); everything before the
//!   first article (`build/dictionary`): 0.26-0.37 s. The byte-level automaton
//!   took 1.3 s and 2.0 s.
//!
//! How: words are found 64 bytes at a time (eight per step, as bit masks) and
//! hashed eight bytes per multiply; the walks go in rounds, each round fetching
//! the table slots of the next one ahead so their cache misses overlap; a slot is
//! 16 bytes with the name that ends there inline; the proposals' records and
//! texts are fetched ahead the same way; the lists a scan works in are kept per
//! thread. Where timing is too noisy to compare two versions, `valgrind
//! --tool=callgrind` on the bench binary counts instructions.

pub mod conflicts;
pub mod error;
pub mod exclude;
pub mod pairs;
pub mod prefetch;

use tempora_engine::{Role, StageConfig, StageKind};

use tempora_records::RecordKind;

pub use conflicts::{ConflictsConfig, ConflictsOptions, PositionNames};
pub use error::FilterError;
pub use exclude::{ExcludeConfig, ExcludeOptions};
pub use pairs::{MinimalPairsConfig, MinimalPairsOptions};
pub use prefetch::{PrefetchConfig, PrefetchOptions};

/// The stage kinds this crate registers: `exclude`, `conflicts`, `minimal-pairs`,
/// `prefetch`.
pub fn kinds() -> Vec<StageKind> {
    vec![
        StageKind {
        name: "exclude",
        about: "Drops articles that are in XSum or CNN/DailyMail (training data of summarization models)",
        role: Role::Transform,
        accepts: &[RecordKind::Article],
        emits: "out: article",
        requests: &[],
        in_rebuild: tempora_engine::InRebuild::PassedBy,
        incremental_option: None,
        options: || schemars::schema_for!(ExcludeOptions),
        configure: |table, ctx| {
            ExcludeConfig::configure(table, ctx).map(|c| Box::new(c) as Box<dyn StageConfig>)
        },
    },
        StageKind {
            name: tempora_records::counters::RelationArticles::STAGE_KIND,
            about: "Keeps articles whose document names an evolving fact and whose summary names one of its entities (TempoSum)",
            role: Role::Transform,
            accepts: &[RecordKind::Article],
            emits: "out: article (with `facts`)",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(ConflictsOptions),
            configure: |table, ctx| {
                ConflictsConfig::configure(table, ctx).map(|c| Box::new(c) as Box<dyn StageConfig>)
            },
        },
        StageKind {
            name: "minimal-pairs",
            about: "Writes minimal pairs for judging faithfulness metrics (BUMP): each future article's summary with one evolving fact's mention replaced by its value at the cutoff (`outdated`) or by a value it never had (`non_verifiable`)",
            role: Role::Transform,
            accepts: &[RecordKind::Article],
            emits: "out: pair",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(MinimalPairsOptions),
            configure: |table, ctx| {
                MinimalPairsConfig::configure(table, ctx).map(|c| Box::new(c) as Box<dyn StageConfig>)
            },
        },
        StageKind {
            name: "prefetch",
            about: "Decides before fetching what a capture states for certain, for the stages it names (`decides_for`): not an article, a duplicate of an article, excluded, outside every window of the sets; passes on one capture per article to fetch",
            role: Role::Transform,
            accepts: &[RecordKind::Capture],
            emits: "out: capture",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Lists,
            incremental_option: None,
            options: || schemars::schema_for!(PrefetchOptions),
            configure: prefetch::configure,
        },
    ]
}
