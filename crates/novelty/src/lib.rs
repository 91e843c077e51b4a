//! Placeholder for the `novelty` stage crate; its issue fills it in.

use tempora_engine::StageKind;

/// The stage kinds this crate registers.
pub fn kinds() -> Vec<StageKind> {
    Vec::new()
}
