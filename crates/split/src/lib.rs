//! The temporal splitter: articles in, articles out on one port per named date window.
//!
//! In: articles (with their `published` date). Out: each article on the port of the
//! one set whose window holds its publication date (`split.future`), with
//! `Article.split` set to the set's name; articles in no window go to the port
//! `unassigned` with `split` left empty, and are counted. The windows are the
//! pipeline's (`[pipeline.sets]`, see [`tempora_engine::windows`]), written once
//! for every stage that needs dates. Promises: windows are checked before the run
//! (unique names, `from <= to`, no overlaps, so an article lands in exactly one
//! place); ends may be written as `"cutoff"` or `"after_cutoff"`, so `--set
//! pipeline.cutoff=...` moves the windows together with the evolving facts;
//! without `[pipeline.sets]`, the windows are `in_distribution` (up to and
//! including `pipeline.cutoff`) and `future` (after it). `run.json` gets the metric
//! `sets` (articles per set, `unassigned` included) and `years` (per publication
//! year, articles per set).

pub mod stage;

use tempora_engine::{Role, StageKind};

use tempora_records::RecordKind;

pub use stage::{SplitConfig, SplitOptions};
pub use tempora_engine::windows::{Bound, SetSpec, Window, Windows, UNASSIGNED};

/// The stage kinds this crate registers: `split`.
pub fn kinds() -> Vec<StageKind> {
    vec![StageKind {
        name: "split",
        about: "Assigns each article to the named date window holding its publication date",
        role: Role::Transform,
        accepts: &[RecordKind::Article],
        emits: "one port per set (e.g. `future`), `unassigned`: article",
        requests: &[],
        in_rebuild: tempora_engine::InRebuild::Runs,
        incremental_option: None,
        options: || schemars::schema_for!(SplitOptions),
        configure: |table, ctx| {
            SplitConfig::configure(table, ctx)
                .map(|c| Box::new(c) as Box<dyn tempora_engine::StageConfig>)
        },
    }]
}
