//! Dev-only test kit: a mock Wayback Machine on 127.0.0.1 for the crawler's
//! tests and benchmarks.
//!
//! In: a [`Corpus`] of captures we write ([`synthetic`] builds news sites, feeds
//! and sitemaps) and [`FaultRule`]s. Out: a real HTTP server on a free loopback
//! port that answers the CDX query API (`/cdx/search/cdx`: `url`, `matchType`,
//! `from`/`to`, `output=json`, `fl`, `filter`, `collapse`, `limit`,
//! `showResumeKey`/`resumeKey`) and `id_` replay (`/web/<ts>id_/<url>`) with the
//! headers, redirect shapes and resume-key format of the recorded real answers,
//! and logs every request with its arrival time. Promises: it never touches any
//! address but 127.0.0.1; faults fire exactly as many times as asked; the log
//! tells whether a request arrived during a `Retry-After` pause it had asked for.
//! [`MockWayback::enforce`] adds the Archive's per-IP limits ([`ArchiveLimits`]):
//! 429s without `Retry-After` above 30 CDX and 600 playback requests a minute, a
//! firewall for clients that send into them, and answers that take time.
//! [`MockWayback::reorder`] serves the same archive in another order
//! ([`Reorder`]): captures held in another order, replays finishing in another
//! order, a CDX page's rows unsorted, a listing's rows in another order across
//! its pages.
//!
//! [`MockWikidata`] is its sibling for Wikidata's live services: the Query
//! Service (`/sparql`, SPARQL evaluated by Oxigraph on the entities' RDF as
//! WDQS has it) and the Wikibase API (`/w/api.php?action=wbgetentities`), with
//! `maxlag`, WDQS's timeout as a result-size limit, the User-Agent policy, and
//! the same fault rules ([`Target::Sparql`], [`Target::Api`]).
//!
//! Both mocks keep one [`RequestLog`] (`mock.log()`: every request, what the
//! mock did, pauses asked for and broken, requests in flight) and meet one
//! [`FaultRule`] type.

pub mod cdx;
pub mod corpus;
pub mod faults;
pub mod fuzz;
pub mod limits;
pub mod log;
pub mod newssite;
pub mod order;
pub mod replay;
pub mod server;
pub mod surt;
pub mod synthetic;
pub mod wikidata;

pub use corpus::{Corpus, MockCapture};
pub use faults::{Fault, FaultRule, RequestKind, Target};
pub use limits::ArchiveLimits;
pub use log::{Outcome, RequestLog, RequestRecord};
pub use order::Reorder;
pub use server::MockWayback;
pub use tempora_wayback_format::digest::sha1_base32;
pub use wikidata::MockWikidata;
