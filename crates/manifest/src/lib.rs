//! Sets shared as addresses in the Archive, and rebuilt exactly from them.
//!
//! A future test set is made of BBC's and CNN's text, which their terms do not
//! let a lab hand over. What can be shared is where the text is: a capture in
//! the Internet Archive (its time and the URL it was filed under), the digest of
//! the bytes received, and every decision that put the article in its set (its
//! set, its novelty bin, the evolving facts it names: Wikidata is CC0).
//!
//! In a run: [`attach`] adds to every pipeline that publishes sets a `manifest`
//! stage (articles in, [`ManifestEntry`](tempora_records::ManifestEntry) out)
//! and its sinks: `manifest.jsonl` and `manifest.parquet` (a `manifest` config of
//! the card), and `manifest.facts.jsonl`, the evolving facts the run used.
//! [`inputs`] writes `manifest.inputs.json` beside them: the pipeline as it
//! ran, Tempora's version and commit, the digests of its site profiles and
//! input files.
//!
//! In `tempora rebuild`: [`read`] checks a manifest line by line; [`rebuild`]
//! turns the pinned pipeline into one that lists nothing, fetches exactly the
//! manifest's captures (`manifest-captures`), checks each page against its row
//! (`manifest-check`), takes the facts from `manifest.facts.jsonl` and the
//! decisions that need what a lab may not have (the exclusion lists, the
//! training summaries) from the rows (`manifest-novelty`), and publishes
//! through the pipeline's own sinks.

pub mod attach;
pub mod entry;
pub mod inputs;
pub mod read;
pub mod rebuild;
mod stages;

pub use stages::kinds;
