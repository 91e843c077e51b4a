//! Article extraction: archived news pages in, [`Article`](tempora_records::Article)s
//! with their reference summaries out.
//!
//! In: [`Page`](tempora_records::Page)s (raw captures or pages saved through the
//! Wayback viewer), decoded by their declared charset. Out: one article per page
//! whose layout a site profile recognises: headline, reference summary (BBC's bold
//! introductory sentence as XSum takes it, CNN's story highlights one per line as
//! CNN/DailyMail takes them, or a configured fallback), body one paragraph per line,
//! publication date from the page itself (never the capture time), and the site's
//! article id. Every other page is rejected with a reason: nothing is emitted
//! half-empty. Site layouts are data (`config/sites/*.toml`, compiled in, more from
//! a directory), so a site is added without code. The stage keeps input order and
//! spreads each batch over the cores.

pub mod charset;
mod compile;
mod dates;
pub mod eval;
mod extract;
mod fallback;
mod fields;
mod id_dates;
mod identity;
mod index;
pub mod profile;
mod prune;
mod rejection;
mod score;
mod stage;
mod text;
pub mod wayback;

pub use extract::{Extraction, Extractor, FallbackChoice, PageInput, Rejection, SummaryFallback};
pub use id_dates::IdDates;
pub use identity::ArticleKey;
pub use profile::{load_profiles, ProfileError, SiteProfile};
pub use stage::{ExtractConfig, ExtractOptions, ExtractStage};

use tempora_engine::StageKind;

/// The stage kinds this crate registers: `extract`.
pub fn kinds() -> Vec<StageKind> {
    vec![stage::kind()]
}
