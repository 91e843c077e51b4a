//! The subcommands that run one crate's work on files, outside a pipeline. Each
//! module holds one subcommand's arguments and its `run`: it checks the arguments,
//! calls the crate's library functions (the ones its pipeline stage calls) and
//! prints what they did.

pub mod card;
pub mod cdx;
pub mod diversify;
pub mod eval_extract;
pub mod extract;
pub mod facts;
pub mod harness;
pub mod novelty;
pub mod pairs;
pub mod publish;
pub mod rebuild;
pub mod report;
pub mod reveal;
pub mod score;

use std::path::Path;

use tempora_engine::UsageError;

/// Checks that `dir`, the output folder a command reads (`reveal`, `card`,
/// `report`, `score`'s SET_DIR), exists: a missing one is bad usage (exit 2),
/// named, the same in every command.
///
/// # Errors
/// `dir` is not a folder.
pub fn output_folder(dir: &Path) -> Result<(), UsageError> {
    if dir.is_dir() {
        return Ok(());
    }
    Err(UsageError::new(format!(
        "no such folder: {} (give the output folder of `tempora run`)",
        dir.display()
    )))
}
