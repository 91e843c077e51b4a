//! Helpers shared by the end-to-end tests.

pub mod bin;
pub mod crawl_model;
pub mod demo;
pub mod jsonl;
pub mod nightly;
pub mod order;
pub mod said;
pub mod temposum;
pub mod tree;
pub mod wikidata;
