//! What the sink crate's tests share.
#![allow(dead_code)]

use tempora_engine::{OptionError, PipelineContext, StageConfig};

/// The stage kind `name` of this crate (`jsonl`, `parquet-source`, ...) configured
/// from `toml`.
pub fn configure(
    name: &str,
    ctx: &PipelineContext,
    toml: &str,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    let kind = tempora_sink::kinds()
        .into_iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("no stage kind `{name}` in the sink crate"));
    (kind.configure)(toml::from_str(toml).unwrap(), ctx)
}
