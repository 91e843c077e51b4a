//! Article filters: training-set exclusion (`exclude`) and the knowledge-conflict
//! selection of TempoSum (`conflicts`).
//!
//! In: articles. Out: the articles that pass, unchanged by `exclude`, with
//! `Article.facts` filled in by `conflicts`. Promises: every article that does not
//! pass is rejected with a reason naming the list or criterion that failed (nothing
//! is dropped silently), and counted in `run.json`; list and facts files are read
//! once, before the first article; matching is one Aho-Corasick pass per text over
//! every name of every evolving fact, on word boundaries only.

pub mod conflicts;
pub mod error;
pub mod exclude;

use tempora_engine::{RecordKind, Role, StageConfig, StageKind};

pub use conflicts::{ConflictsConfig, ConflictsOptions, PositionNames};
pub use error::FilterError;
pub use exclude::{ExcludeConfig, ExcludeOptions};

/// The stage kinds this crate registers: `exclude`, `conflicts`.
pub fn kinds() -> Vec<StageKind> {
    vec![
        StageKind {
        name: "exclude",
        about: "Drops articles that are in XSum or CNN/DailyMail (training data of summarization models)",
        role: Role::Transform,
        accepts: &[RecordKind::Article],
        emits: "out: article",
        options: || schemars::schema_for!(ExcludeOptions),
        configure: |table, ctx| {
            ExcludeConfig::configure(table, ctx).map(|c| Box::new(c) as Box<dyn StageConfig>)
        },
    },
        StageKind {
            name: "conflicts",
            about: "Keeps articles whose document names an evolving fact and whose summary names one of its entities (TempoSum)",
            role: Role::Transform,
            accepts: &[RecordKind::Article],
            emits: "out: article (with `facts`)",
            options: || schemars::schema_for!(ConflictsOptions),
            configure: |table, ctx| {
                ConflictsConfig::configure(table, ctx).map(|c| Box::new(c) as Box<dyn StageConfig>)
            },
        },
    ]
}
