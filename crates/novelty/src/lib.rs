//! Lexical novelty ("Lexical Repetitions Lead to Rote Learning", Choubey et al.,
//! Findings of EMNLP 2023): how much a test set's reference summaries repeat the
//! training summaries, and training subsets that limit repetition.
//!
//! In: articles (the `novelty` stage) or summary files (`tempora novelty`,
//! `tempora diversify`), and training summaries in JSONL, Parquet or text. Out:
//! each article with `novelty {overlap, bin, tag}`, its set's bin table in
//! `run.json`; for `diversify`, one training subset per threshold. Promises: the
//! same inputs and seed give the same bytes; the training index holds eight bytes
//! per distinct n-gram; a record that cannot be scored is rejected with the reason.
//!
//! Modules: [`tokens`] (the tokenization every lexical statistic shares),
//! [`ngrams`] (the set of distinct n-gram hashes), [`training`] (reading summary
//! files), [`test_records`] (the test records of `tempora novelty`), [`overlap`]
//! (the training index and a summary's score), [`bins`] (novelty bins, and each
//! set's bins tagging its records: the stage and `tempora novelty` both tag
//! through [`bins::SetBins`]), [`diversify`] (the subset walk), [`subsets`] (the
//! files of `tempora diversify`), [`output`] (files written atomically) and
//! [`stage`].
//!
//! Parquet is read through `tempora-sink`, the crate that links polars.

pub mod bins;
pub mod diversify;
mod error;
pub mod ngrams;
pub mod output;
pub mod overlap;
pub mod stage;
pub mod subsets;
pub mod test_records;
pub mod tokens;
pub mod training;

pub use error::NoveltyError;
pub use stage::{NoveltyConfig, NoveltyOptions};

use tempora_engine::{Role, StageKind};

use tempora_records::RecordKind;

/// The stage kinds this crate registers: `novelty`.
pub fn kinds() -> Vec<StageKind> {
    vec![StageKind {
        name: "novelty",
        about: "Scores each article's summary by its n-gram overlap with training summaries and bins each set (T_nov .. T_sim); a barrier: holds every article (on disk) until its input ends",
        role: Role::Transform,
        accepts: &[RecordKind::Article],
        emits: "out: article (with `novelty`)",
        requests: &[],
        in_rebuild: tempora_engine::InRebuild::Scores,
        incremental_option: None,
        options: || schemars::schema_for!(NoveltyOptions),
        configure: |table, ctx| {
            NoveltyConfig::configure(table, ctx)
                .map(|c| Box::new(c) as Box<dyn tempora_engine::StageConfig>)
        },
    }]
}
