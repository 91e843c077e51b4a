//! Lexical novelty ("Lexical Repetitions Lead to Rote Learning", Choubey et al.,
//! Findings of EMNLP 2023): how much a test set's reference summaries repeat the
//! training summaries, and training subsets that limit repetition.

pub mod tokens;

use tempora_engine::StageKind;

/// The stage kinds this crate registers.
pub fn kinds() -> Vec<StageKind> {
    Vec::new()
}
