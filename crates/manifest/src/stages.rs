//! The manifest's stage kinds: `manifest` (in every run that publishes sets),
//! and for `tempora rebuild`, `manifest-captures`, `manifest-check` and
//! `manifest-novelty`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use tempora_engine::{
    parse_options, Batch, Emitted, PipelineContext, Port, PortId, Role, Stage, StageConfig,
    StageError, StageIo, StageKind, Transform, TransformStage,
};
use tempora_records::counters::{BinCount, NoveltyBins, NOVELTY_BINS};
use tempora_records::{Capture, ManifestEntry, Novelty, Record, RecordKind};

use crate::entry::{capture_key, entry_of, text_sha256};
use crate::read::read_manifest;

/// The stage kinds this crate registers.
pub fn kinds() -> Vec<StageKind> {
    vec![
        StageKind {
            name: "manifest",
            about: "Lists each published article as its manifest row: the capture it was read from, its digests, set, novelty bin and evolving facts, without the publisher's text (added to every pipeline that publishes sets)",
            role: Role::Transform,
            accepts: &[RecordKind::Article],
            emits: "out: manifest",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(NoOptions),
            configure: |table, _| {
                parse_options::<NoOptions>(table)?;
                Ok(Box::new(Of::Entries))
            },
        },
        StageKind {
            name: "manifest-captures",
            about: "Emits the captures a manifest lists, in its order (`tempora rebuild`: no CDX listing)",
            role: Role::Source,
            accepts: &[],
            emits: "out: capture",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(ManifestOptions),
            configure: |table, _| Ok(Box::new(Of::Captures(parse_options(table)?))),
        },
        StageKind {
            name: "manifest-check",
            about: "Passes the articles a manifest lists when read as its row says (`text_sha256`); names every row that is not, and every row that never arrived (`tempora rebuild`)",
            role: Role::Transform,
            accepts: &[RecordKind::Article],
            emits: "out: article",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(ManifestOptions),
            configure: |table, _| Ok(Box::new(Of::Check(parse_options(table)?))),
        },
        StageKind {
            name: "manifest-novelty",
            about: "Sets each article's novelty score, bin and tag from its manifest row (`tempora rebuild`: no training summaries)",
            role: Role::Transform,
            accepts: &[RecordKind::Article],
            emits: "out: article",
            requests: &[],
            in_rebuild: tempora_engine::InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(PinnedOptions),
            configure: |table, _| {
                let options: PinnedOptions = parse_options(table)?;
                Ok(Box::new(Of::Novelty(ManifestOptions {
                    manifest: options.manifest,
                })))
            },
        },
    ]
}

/// The `manifest` stage has no options.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoOptions {}

/// Options of the rebuild's stages.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestOptions {
    /// The manifest (`manifest.jsonl`).
    pub manifest: PathBuf,
}

/// Options of `manifest-novelty`: the manifest, and the options of the
/// `novelty` stage it stands in for, kept as they were (the card describes them).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PinnedOptions {
    /// The manifest (`manifest.jsonl`).
    pub manifest: PathBuf,
    /// The replaced stage's options, unused.
    #[serde(flatten)]
    #[schemars(skip)]
    pub _replaced: toml::Table,
}

/// Each kind's configuration.
enum Of {
    Entries,
    Captures(ManifestOptions),
    Check(ManifestOptions),
    Novelty(ManifestOptions),
}

impl StageConfig for Of {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(match self {
            Self::Entries => RecordKind::Manifest,
            Self::Captures(_) => RecordKind::Capture,
            Self::Check(_) | Self::Novelty(_) => RecordKind::Article,
        })]
    }

    /// An article read back as its row says is in its set, with its scores.
    fn gives_fields(&self) -> &'static [&'static str] {
        match self {
            Self::Check(_) => &["split"],
            Self::Novelty(_) => &["split", "novelty"],
            Self::Entries | Self::Captures(_) => &[],
        }
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        match self {
            Self::Entries => Vec::new(),
            Self::Captures(o) | Self::Check(o) | Self::Novelty(o) => {
                vec![("manifest".into(), o.manifest.clone())]
            }
        }
    }

    fn build(&self, _: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        let rows = |o: &ManifestOptions| {
            read_manifest(&o.manifest).map_err(|e| StageError::input(e.to_string()))
        };
        Ok(match self {
            Self::Entries => Box::new(TransformStage(Entries::default())),
            Self::Captures(o) => Box::new(Captures { rows: rows(o)? }),
            Self::Check(o) => Box::new(TransformStage(Check::new(rows(o)?))),
            Self::Novelty(o) => Box::new(TransformStage(PinnedNovelty::new(rows(o)?))),
        })
    }
}

/// `manifest`: one row per published article (an article a pipeline writes
/// from several ports is listed once).
#[derive(Default)]
struct Entries {
    seen: HashSet<(String, String, Option<String>)>,
}

impl Transform for Entries {
    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        for record in batch {
            let Record::Article(a) = &record else {
                out.reject(
                    &record,
                    format!("manifest accepts articles, got a {}", record.kind()),
                );
                continue;
            };
            if !self
                .seen
                .insert((a.source.clone(), a.id.clone(), a.split.clone()))
            {
                continue;
            }
            match entry_of(a) {
                Ok(entry) => out.push(Record::Manifest(Box::new(entry))),
                Err(e) => out.reject(
                    &record,
                    format!("no address in the Archive to list it by: its `captured`: {e}"),
                ),
            }
        }
        Ok(())
    }
}

/// `manifest-captures`: the listed captures, as the CDX index gave them.
struct Captures {
    rows: Vec<ManifestEntry>,
}

#[async_trait]
impl Stage for Captures {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let mut sent = HashSet::new();
        for row in self.rows {
            if io.shutdown().is_cancelled() {
                break;
            }
            if !sent.insert(capture_key(&row.timestamp, &row.archived_url)) {
                continue;
            }
            let capture = Capture {
                url: row.archived_url,
                timestamp: row.timestamp,
                status: Some(200),
                mime: "text/html".into(),
                digest: row.digest,
                length: None,
                source: "manifest".into(),
            };
            io.emit(PortId::DEFAULT, Record::Capture(Box::new(capture)))
                .await?;
        }
        io.flush().await
    }
}

/// Why `manifest-check` names a row.
const NOT_REBUILT: &str =
    "could not be rebuilt as the manifest lists them (each with its reason; the rest is rebuilt)";

/// `manifest-check`: each article against its row.
struct Check {
    rows: HashMap<String, ManifestEntry>,
    seen: HashSet<String>,
}

impl Check {
    fn new(rows: Vec<ManifestEntry>) -> Self {
        let rows = rows
            .into_iter()
            .map(|r| (capture_key(&r.timestamp, &r.archived_url), r))
            .collect();
        Self {
            rows,
            seen: HashSet::new(),
        }
    }
}

/// How a row is named in `run.json`'s list.
fn named(row: &ManifestEntry) -> String {
    format!(
        "{} {} ({} {})",
        row.source, row.id, row.timestamp, row.archived_url
    )
}

impl Transform for Check {
    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        for record in batch {
            let Record::Article(a) = &record else {
                out.reject(
                    &record,
                    format!("manifest-check accepts articles, got a {}", record.kind()),
                );
                continue;
            };
            let key = capture_key(
                a.captured.as_deref().unwrap_or(""),
                a.archived_url.as_deref().unwrap_or(""),
            );
            let Some(row) = self.rows.get(&key) else {
                out.reject(&record, format!("capture {key} is not in the manifest"));
                continue;
            };
            self.seen.insert(key);
            let payload_same = a.payload_sha1.as_deref() == Some(row.payload_sha1.as_str());
            if text_sha256(a) == row.text_sha256 {
                if !payload_same {
                    // The Archive served other bytes that read the same.
                    out.count("payload changed, read the same", 1);
                }
                out.count("rebuilt", 1);
                out.push(record);
                continue;
            }
            let reason = if payload_same {
                "read otherwise: the same bytes give another article (the site profile or the \
                 extractor changed since the manifest was written)"
                    .to_string()
            } else {
                format!(
                    "its capture changed: the Archive served other bytes (SHA-1 {} where the \
                     manifest has {}), which read otherwise",
                    a.payload_sha1.as_deref().unwrap_or("none"),
                    row.payload_sha1
                )
            };
            let kind = if payload_same {
                "read otherwise"
            } else {
                "capture changed"
            };
            out.count(kind, 1);
            out.missing("articles", NOT_REBUILT, format!("{}: {reason}", named(row)));
            out.reject(&record, reason);
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Emitted) -> Result<tempora_engine::Finish, StageError> {
        let mut gone: Vec<&ManifestEntry> = self
            .rows
            .iter()
            .filter(|(key, _)| !self.seen.contains(*key))
            .map(|(_, row)| row)
            .collect();
        gone.sort_by(|a, b| (&a.source, &a.id).cmp(&(&b.source, &b.id)));
        for row in gone {
            out.count("not served", 1);
            out.missing(
                "articles",
                NOT_REBUILT,
                format!(
                    "{}: no article: the Archive did not serve the capture, or its page gave \
                     none (rejected.jsonl says which)",
                    named(row)
                ),
            );
        }
        Ok(tempora_engine::Finish::Done)
    }
}

/// `manifest-novelty`: the novelty each row pins.
struct PinnedNovelty {
    novelty: HashMap<(String, String), Option<Novelty>>,
    /// Articles per set and bin (from, to, range, tag), for `run.json`'s
    /// `bins` as the `novelty` stage draws it (the card's novelty tables).
    bins: BTreeMap<String, BTreeMap<BinKey, usize>>,
}

/// A novelty bin as `run.json` orders and shows it: from, to, range, tag.
type BinKey = (u32, u32, String, Option<String>);

impl PinnedNovelty {
    fn new(rows: Vec<ManifestEntry>) -> Self {
        Self {
            novelty: rows
                .into_iter()
                .map(|r| ((r.source, r.id), r.novelty))
                .collect(),
            bins: BTreeMap::new(),
        }
    }
}

impl Transform for PinnedNovelty {
    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        for record in batch {
            let mut a = match record {
                Record::Article(a) => a,
                other => {
                    out.reject(&other, "manifest-novelty accepts articles");
                    continue;
                }
            };
            match self.novelty.get(&(a.source.clone(), a.id.clone())) {
                Some(novelty) => {
                    if let Some(n) = novelty {
                        let (from, to) = n.bin.split_once('-').unwrap_or((&n.bin, &n.bin));
                        let bin = (
                            from.parse().unwrap_or(0),
                            to.parse().unwrap_or(0),
                            n.bin.clone(),
                            n.tag.clone(),
                        );
                        let set = a.split.clone().unwrap_or_default();
                        *self.bins.entry(set).or_default().entry(bin).or_default() += 1;
                    }
                    a.novelty = novelty.clone();
                    out.push(Record::Article(a));
                }
                None => {
                    let record = Record::Article(a);
                    out.reject(&record, "not in the manifest");
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Emitted) -> Result<tempora_engine::Finish, StageError> {
        let bins: NoveltyBins = self
            .bins
            .iter()
            .map(|(set, bins)| {
                let counts = bins
                    .iter()
                    .map(|((from, to, range, tag), count)| BinCount {
                        range: range.clone(),
                        from: *from,
                        to: *to,
                        count: *count,
                        tag: tag.clone(),
                    })
                    .collect();
                (set.clone(), counts)
            })
            .collect();
        out.metric(NOVELTY_BINS, serde_json::json!(bins));
        Ok(tempora_engine::Finish::Done)
    }
}
