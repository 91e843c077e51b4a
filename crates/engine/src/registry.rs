//! The registry of stage kinds: what each kind is, which records it accepts and
//! emits, its documented options, and how to configure it from its TOML table.
//!
//! The engine knows no stage crate; the binary assembles the registry from each
//! crate's `kinds()`.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::context::PipelineContext;
use crate::cost::RequestKind;
use crate::describe::{DescribeContext, StagePlan};
use crate::error::StageError;
use crate::options::{option_docs, OptionError};
use crate::peers::{AsAny, Peers};
use crate::stage::Stage;
use tempora_records::RecordKind;

/// Where a kind sits in a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Produces records; has no `inputs`.
    Source,
    /// Consumes and produces records.
    Transform,
    /// Consumes records and writes them out; has no output ports.
    Sink,
}

impl Role {
    /// Lowercase name for listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Transform => "transform",
            Self::Sink => "sink",
        }
    }
}

/// An output port: a name (`out` for the default) and the kind of its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// Port name; `inputs = ["stage.name"]` selects it, `inputs = ["stage"]` selects `out`.
    pub name: String,
    /// Kind of the records it carries.
    pub kind: RecordKind,
    /// It carries one of the `[pipeline.sets]`: a pipeline where no stage reads it
    /// would lose the set's records, and is refused.
    pub set: bool,
}

impl Port {
    /// Name of the default port.
    pub const DEFAULT: &'static str = "out";

    /// The default port carrying `kind`.
    pub fn out(kind: RecordKind) -> Self {
        Self {
            name: Self::DEFAULT.to_string(),
            kind,
            set: false,
        }
    }

    /// A named port.
    pub fn named(name: impl Into<String>, kind: RecordKind) -> Self {
        Self {
            name: name.into(),
            kind,
            set: false,
        }
    }

    /// The port of the set `name` of `[pipeline.sets]`, which some stage must read.
    pub fn set(name: impl Into<String>, kind: RecordKind) -> Self {
        Self {
            set: true,
            ..Self::named(name, kind)
        }
    }
}

/// What one input of a stage carries, as the plan resolved it (see
/// [`StageConfig::read_ports`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadPort {
    /// The kind of its records.
    pub kind: RecordKind,
    /// The sets of `[pipeline.sets]` whose records it carries, sorted: the set
    /// of a set port ([`Port::set`]), else every set read by the stages before
    /// it, through their inputs (not side inputs).
    pub sets: Vec<String>,
}

/// A side input: the whole output of another stage's port, delivered before the stage starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideInput {
    /// The option that names it (e.g. `facts`); the stage asks for it by this key.
    pub key: String,
    /// `stage` or `stage.port`.
    pub from: String,
    /// The record kind the stage expects.
    pub kind: RecordKind,
}

/// A stage's parsed options: what validation needs to know about it, and how to build it.
#[async_trait::async_trait(?Send)]
pub trait StageConfig: AsAny + Send {
    /// Output ports, the default (`out`) first when there is one. Sinks have none.
    fn outputs(&self) -> Vec<Port>;

    /// Called once every stage is configured, before the graph is checked: a stage
    /// that acts for others (or shares a resource with them) reads their resolved
    /// options from `peers`. Returns each problem, with the option at fault when
    /// one is.
    fn link(&mut self, _peers: &Peers<'_>) -> Vec<OptionError> {
        Vec::new()
    }

    /// Told, once the graph is checked, what each of its inputs carries, in the
    /// order of `inputs` (an input naming no port is left out): a sink writes an
    /// empty file for a set that brings nothing. Default: ignores it.
    fn read_ports(&mut self, _ports: &[ReadPort]) {}

    /// What this stage shares with the stages that name it instead of writing
    /// their own (a wayback stage's Archive options): they read it through
    /// [`Peer::shared`](crate::Peer::shared) when linked. Default: nothing.
    fn shared(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// The path-template fields its records carry that records before it may
    /// lack (`split`, `novelty`, `relation`: see
    /// [`Record::template_field`](tempora_records::Record::template_field)): a
    /// sink whose path names one checks that a stage before it gives it. Default:
    /// none.
    fn gives_fields(&self) -> &'static [&'static str] {
        &[]
    }

    /// Side inputs the stage needs.
    fn side_inputs(&self) -> Vec<SideInput> {
        Vec::new()
    }

    /// Input files that must exist before the run starts, with the option naming each.
    fn reads(&self) -> Vec<(String, PathBuf)> {
        Vec::new()
    }

    /// Output path templates (relative to `pipeline.out`) with the option naming each.
    fn writes(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Options that change how the stage works, not what it produces (politeness,
    /// state files, concurrency): left out of an incremental folder's fingerprint
    /// (see [`crate::fingerprint`]), so changing them needs no rebuild.
    fn operational(&self) -> &'static [&'static str] {
        &[]
    }

    /// What else, besides its options and input files, decides this stage's
    /// records (a built-in site profile's digest), as `(name, value)` pairs for an
    /// incremental folder's fingerprint.
    fn fingerprint(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Takes the part of each set a pipeline holds back from publication
    /// (`[pipeline.release]`, read by the binary and handed over as it read it):
    /// this stage's files then leave the held-back records out. Returns whether it
    /// took it. A stage that [`writes`](Self::writes) files and does not take it
    /// makes a pipeline with `[pipeline.release]` refuse to start, so a new kind of
    /// sink never publishes what the release holds back. Default: does not.
    fn hold_back(&mut self, _release: &dyn std::any::Any) -> bool {
        false
    }

    /// Non-empty files under `pipeline.out` that this run would replace rather than add
    /// to (a sink in `replace` mode whose path names no run), with the option naming
    /// each. Asked at setup of an incremental pipeline only.
    fn replaced_files(&self, _ctx: &PipelineContext) -> Vec<(String, PathBuf)> {
        Vec::new()
    }

    /// Checks that need more than types: each problem, with the option at fault
    /// when one is.
    fn check(&self, _ctx: &PipelineContext) -> Vec<OptionError> {
        Vec::new()
    }

    /// What the stage will ask of the outside world (its queries, politeness and
    /// cost), for `tempora run --dry-run`. Touches the network only when
    /// `ctx.online` (`--estimate`). Default: nothing to declare.
    async fn describe(&self, _ctx: &DescribeContext<'_>) -> StagePlan {
        StagePlan::default()
    }

    /// Builds the running stage, reading the options (the plan stays whole). May
    /// touch the environment (open files, databases). `ctx` is the plan's context
    /// naming this run.
    ///
    /// # Errors
    /// When a resource cannot be opened; the runtime names the stage.
    fn build(&self, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError>;
}

/// Parses a kind's options from the stage's TOML table (without `kind` and `inputs`).
pub type ConfigureFn =
    fn(toml::Table, &PipelineContext) -> Result<Box<dyn StageConfig>, Vec<OptionError>>;

/// One kind of stage, as registered.
pub struct StageKind {
    /// The `kind = "..."` name.
    pub name: &'static str,
    /// One line: what it does.
    pub about: &'static str,
    /// Source, transform or sink.
    pub role: Role,
    /// Record kinds it accepts on `inputs` (empty for sources).
    pub accepts: &'static [RecordKind],
    /// Its output ports in words, for `tempora stages` (e.g. `out: article`).
    pub emits: &'static str,
    /// The kinds of request it sends to outside services, each counted under
    /// [`RequestKind::counter`] (run.json's `cost`); empty for local work.
    pub requests: &'static [RequestKind],
    /// What a stage of this kind becomes when a set is rebuilt from its manifest.
    pub in_rebuild: InRebuild,
    /// The boolean option that makes a stage of this kind bring only what is new
    /// since its last run (a nightly crawl's `incremental = true`); `None` for a
    /// kind that always makes its output anew. A pipeline with such a stage is
    /// incremental: it keeps every earlier run's outputs. Declared here, read from
    /// the stage's table, so the run's mode is known before any stage is configured.
    pub incremental_option: Option<&'static str>,
    /// JSON schema of its options (from their `///` docs, via schemars).
    pub options: fn() -> schemars::Schema,
    /// Parses its options.
    pub configure: ConfigureFn,
}

/// What a stage of a kind becomes when a set is rebuilt from its manifest
/// (`tempora rebuild`): the manifest stands for what the original run listed,
/// excluded and scored, and holds the facts it matched with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InRebuild {
    /// Runs as it ran (the published files are the original's).
    Runs,
    /// Lists captures: left out; the manifest's captures stand in.
    Lists,
    /// Discovers captures in a way the manifest cannot stand for (feeds): a
    /// rebuild of such a pipeline is refused.
    Discovers,
    /// Fetches captures: fetches the manifest's, with the rebuild's Archive options.
    Fetches,
    /// Decides what the manifest already decided (an exclusion list): passed by.
    PassedBy,
    /// Reads pages into articles: each article is checked against its row after it.
    Reads,
    /// Scores articles against data the rebuild lacks: the rows' scores stand in.
    Scores,
    /// Reads evolving facts from data the rebuild lacks (a dump): the manifest's
    /// facts file stands in.
    ReadsFacts,
    /// Reads pages an earlier crawl kept (WARC files) that the rebuild lacks: a
    /// stage of the [`InRebuild::Fetches`] kind fetches the manifest's captures
    /// in its place.
    ReadsKept,
}

/// The kinds a pipeline may use.
#[derive(Default)]
pub struct Registry {
    kinds: Vec<StageKind>,
}

impl Registry {
    /// A registry of these kinds, listed by name.
    pub fn new(kinds: impl IntoIterator<Item = StageKind>) -> Self {
        let mut kinds: Vec<StageKind> = kinds.into_iter().collect();
        kinds.sort_by_key(|k| k.name);
        Self { kinds }
    }

    /// The kind named `name`.
    pub fn get(&self, name: &str) -> Option<&StageKind> {
        self.kinds.iter().find(|k| k.name == name)
    }

    /// Every kind, by name.
    pub fn kinds(&self) -> &[StageKind] {
        &self.kinds
    }

    /// The request kinds its stage kinds declare, once per key.
    pub fn request_kinds(&self) -> Vec<RequestKind> {
        let mut kinds: Vec<RequestKind> = Vec::new();
        for kind in self.kinds.iter().flat_map(|k| k.requests) {
            if !kinds.iter().any(|k| k.key == kind.key) {
                kinds.push(*kind);
            }
        }
        kinds
    }

    /// Every kind's name, comma-separated (for "unknown kind" errors).
    pub fn names(&self) -> String {
        self.kinds
            .iter()
            .map(|k| k.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The reference of every kind and its options, as Markdown (printed by
    /// `tempora stages`, and kept in README.md by a test).
    pub fn reference(&self) -> String {
        let mut md = String::new();
        for kind in &self.kinds {
            let _ = writeln!(
                md,
                "### `{}` ({})\n\n{}\n",
                kind.name,
                kind.role.as_str(),
                kind.about
            );
            if !kind.accepts.is_empty() {
                let accepts: Vec<&str> = kind.accepts.iter().map(|k| k.as_str()).collect();
                let _ = writeln!(md, "- inputs: {}", accepts.join(", "));
            }
            if !kind.emits.is_empty() {
                let _ = writeln!(md, "- ports: {}", kind.emits);
            }
            let options = option_docs(&(kind.options)());
            if options.is_empty() {
                md.push('\n');
                continue;
            }
            md.push_str("\n| option | type | default | meaning |\n|---|---|---|---|\n");
            for o in options {
                let default = match (&o.default, o.required) {
                    (_, true) => "required".to_string(),
                    (Some(d), _) => format!("`{d}`"),
                    (None, _) => String::new(),
                };
                let _ = writeln!(
                    md,
                    "| `{}` | {} | {} | {} |",
                    o.name,
                    o.ty,
                    default,
                    o.doc.replace('\n', " ").replace('|', "\\|")
                );
            }
            md.push('\n');
        }
        md
    }
}
