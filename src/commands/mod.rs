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
pub mod novelty;
pub mod pairs;
pub mod rebuild;
pub mod report;
pub mod reveal;
pub mod score;
