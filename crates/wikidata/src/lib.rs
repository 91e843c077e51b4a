//! Evolving position-held facts from the Wikidata JSON dump.
//!
//! In: a dump (`latest-all.json.gz` as Wikimedia writes it, `.bz2`, `.zst`, plain
//! JSON, or stdin; one entity per line, `[` first and `]` last), or a facts file
//! written earlier. Out: [`Fact`](tempora_records::Fact) records for every statement
//! of every evolving (subject, relation) pair, with `valid_at_cutoff` and
//! `pair_changed`, names in the configured languages for subjects and objects, in
//! their canonical order (sorted once, by the reader).
//! Promises: the compression is told by magic bytes; gzip members are inflated in
//! parallel where their starts can be found; only lines that contain a configured
//! relation's claim key (a byte search) are parsed as JSON, on all cores; memory is
//! bounded by a fixed number of pieces in flight plus the facts and the names of
//! candidate entities; truncated or corrupt input is an error naming the byte offset
//! and the entities read; a malformed entity line is rejected with its line number
//! (or fails the run, `on_error = "fail"`); a bad date rejects its statement with a
//! reason. Object names may need a second pass over the dump: see [`dump`].
//!
//! Reusing facts: `tempora facts DUMP -o facts.jsonl` (or a first pipeline run with
//! `facts_file` set) writes the facts with a `.meta.json` sidecar; the stage's
//! `facts_file` option emits them instead of reading the dump while the sidecar
//! matches the options and the dump's size and mtime (see [`facts_file`]).

pub mod collect;
pub mod dump;
pub mod entity;
pub mod error;
pub mod evolving;
pub mod facts_file;
pub mod gzip;
pub mod input;
pub mod lines;
pub mod live;
pub mod relations;
pub mod scan;
pub mod stage;
mod taker;
pub mod time;

use tempora_engine::{Role, StageConfig, StageKind};

use tempora_records::RecordKind;

pub use collect::Rejection;
pub use dump::{read_facts, FactsQuery, FactsRead, RelationTally};
pub use error::WikidataError;
pub use stage::{WikidataConfig, WikidataOptions};

/// The stage kinds this crate registers: `wikidata` and `wikidata-live`.
pub fn kinds() -> Vec<StageKind> {
    vec![StageKind {
        name: "wikidata",
        about: "Reads a Wikidata JSON dump (gz, bz2, zst, plain or stdin) or a facts file and emits the evolving facts of its relations (P39 position held and P1308 officeholder unless it names others: property ids or the relation catalogue's names) around the cutoff.",
        role: Role::Source,
        accepts: &[] as &[RecordKind],
        emits: "out: fact",
        requests: &[],
        in_rebuild: tempora_engine::InRebuild::ReadsFacts,
        incremental_option: None,
        options: || schemars::schema_for!(WikidataOptions),
        configure: |table, ctx| {
            WikidataConfig::configure(table, ctx).map(|c| Box::new(c) as Box<dyn StageConfig>)
        },
    }, live::stage::kind()]
}
