//! The registry of stage kinds: what each kind is, which records it accepts and
//! emits, its documented options, and how to configure it from its TOML table.
//!
//! The engine knows no stage crate; the binary assembles the registry from each
//! crate's `kinds()`.

use std::fmt::Write as _;
use std::path::PathBuf;

use chrono::NaiveDate;
use serde::de::DeserializeOwned;

use crate::dry_run::{DescribeContext, StagePlan};
use crate::error::StageError;
use crate::peers::{AsAny, Peers};
use crate::records::RecordKind;
use crate::runs::RunId;
use crate::stage::Stage;
use crate::windows::Windows;

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
}

impl Port {
    /// Name of the default port.
    pub const DEFAULT: &'static str = "out";

    /// The default port carrying `kind`.
    pub fn out(kind: RecordKind) -> Self {
        Self {
            name: Self::DEFAULT.to_string(),
            kind,
        }
    }

    /// A named port.
    pub fn named(name: impl Into<String>, kind: RecordKind) -> Self {
        Self {
            name: name.into(),
            kind,
        }
    }
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

impl PipelineContext {
    /// The settings of a pipeline named `name` with `cutoff`, its sets the default
    /// ones, its output in `out`: for tests and tools that run stages outside a
    /// pipeline file.
    pub fn new(name: &str, cutoff: NaiveDate, out: PathBuf) -> Self {
        Self {
            name: name.to_string(),
            cutoff,
            windows: Windows::default_for(cutoff),
            out,
            channel_capacity: 256,
            run: RunId::default(),
        }
    }
}

/// The `[pipeline]` settings every stage may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineContext {
    /// Pipeline name.
    pub name: String,
    /// Knowledge cutoff; stages default their dates to it.
    pub cutoff: NaiveDate,
    /// The date windows of the sets (`[pipeline.sets]`, resolved against the
    /// cutoff; without that table, `in_distribution` up to the cutoff and `future`
    /// after it): every stage that needs dates follows them.
    pub windows: Windows,
    /// Output directory: sinks, `run.json` and `rejected.jsonl` go here.
    pub out: PathBuf,
    /// Records per channel.
    pub channel_capacity: usize,
    /// This run: its start and name (the `{run}` and `{date}` of sink paths). Set when
    /// the run starts; until then, the time the pipeline was read.
    pub run: RunId,
}

/// A stage's parsed options: what validation needs to know about it, and how to build it.
#[async_trait::async_trait(?Send)]
pub trait StageConfig: AsAny + Send {
    /// Output ports, the default (`out`) first when there is one. Sinks have none.
    fn outputs(&self) -> Vec<Port>;

    /// Called once every stage is configured, before the graph is checked: a stage
    /// that acts for others (or shares a resource with them) reads their resolved
    /// options from `peers`. Returns `(key, message)` for each problem.
    fn link(&mut self, _peers: &Peers<'_>) -> Vec<(Option<String>, String)> {
        Vec::new()
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

    /// Whether each run of this stage brings only what is new since its last run (a
    /// nightly crawl with `incremental = true`). A pipeline with such a stage keeps
    /// every earlier run's outputs: the runtime refuses to replace them.
    fn incremental(&self) -> bool {
        false
    }

    /// Non-empty files under `pipeline.out` that this run would replace rather than add
    /// to (a sink in `replace` mode whose path names no run), with the option naming
    /// each. Asked at setup of an incremental pipeline only.
    fn replaced_files(&self, _ctx: &PipelineContext) -> Vec<(String, PathBuf)> {
        Vec::new()
    }

    /// Checks that need more than types: `(key, message)` for each problem.
    fn check(&self, _ctx: &PipelineContext) -> Vec<(Option<String>, String)> {
        Vec::new()
    }

    /// What the stage will ask of the outside world (its queries, politeness and
    /// cost), for `tempora run --dry-run`. Touches the network only when
    /// `ctx.online` (`--estimate`). Default: nothing to declare.
    async fn describe(&self, _ctx: &DescribeContext<'_>) -> StagePlan {
        StagePlan::default()
    }

    /// Builds the running stage. May touch the environment (open files, databases).
    ///
    /// # Errors
    /// When a resource cannot be opened; the runtime names the stage.
    fn build(self: Box<Self>, ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError>;
}

/// Parses a kind's options from the stage's TOML table (without `kind` and `inputs`).
pub type ConfigureFn =
    fn(toml::Table, &PipelineContext) -> Result<Box<dyn StageConfig>, Vec<OptionError>>;

/// A problem with one option of a stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    /// The option, when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

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
    /// JSON schema of its options (from their `///` docs, via schemars).
    pub options: fn() -> schemars::Schema,
    /// Parses its options.
    pub configure: ConfigureFn,
}

/// Parses a stage's options into `T` (a `deny_unknown_fields` struct).
///
/// # Errors
/// The deserializer's message, with the key path of the unknown, missing or
/// mistyped option (`sets[1].from`).
pub fn parse_options<T: DeserializeOwned>(table: toml::Table) -> Result<T, Vec<OptionError>> {
    deserialize_located(toml::Value::Table(table)).map_err(|e| vec![e])
}

/// Deserializes `value`, naming the key path of the first problem: the path serde
/// was at (`sets[1].from`), or for a missing or unknown field, that field under it.
pub(crate) fn deserialize_located<T: DeserializeOwned>(
    value: toml::Value,
) -> Result<T, OptionError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let message = e.inner().message().trim().to_string();
        let mut key = e.path().to_string();
        if key == "." {
            key.clear();
        }
        // serde names the field itself only in these messages, in backticks; any other
        // message may quote a value ("unknown variant `facts`"), which is no key.
        let named = ["missing field `", "unknown field `"]
            .iter()
            .find_map(|prefix| message.strip_prefix(prefix))
            .and_then(|rest| rest.split('`').next());
        if let Some(field) = named {
            if key.rsplit(['.', '[']).next() != Some(field) {
                key = if key.is_empty() {
                    field.to_string()
                } else {
                    format!("{key}.{field}")
                };
            }
        }
        OptionError {
            key: (!key.is_empty()).then_some(key),
            message,
        }
    })
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

/// One documented option of a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionDoc {
    /// The key.
    pub name: String,
    /// Its type in words.
    pub ty: String,
    /// Its default, as JSON, when it has one.
    pub default: Option<String>,
    /// Whether it must be given.
    pub required: bool,
    /// Its `///` doc.
    pub doc: String,
}

/// Reads the options of a kind out of its JSON schema.
pub fn option_docs(schema: &schemars::Schema) -> Vec<OptionDoc> {
    let value = schema.as_value();
    let required: Vec<&str> = value
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let Some(props) = value.get("properties").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, prop)| OptionDoc {
            name: name.clone(),
            ty: type_name(prop, value),
            default: prop
                .get("default")
                .filter(|d| !d.is_null())
                .map(|d| d.to_string()),
            required: required.contains(&name.as_str()),
            doc: prop
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or("")
                .to_string(),
        })
        .collect()
}

fn type_name(prop: &serde_json::Value, root: &serde_json::Value) -> String {
    if let Some(reference) = prop.get("$ref").and_then(|r| r.as_str()) {
        let target = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| root.get("$defs")?.get(name));
        return match target {
            Some(t) if t.get("enum").is_some() || t.get("oneOf").is_some() => {
                enum_values(t).unwrap_or_else(|| "string".into())
            }
            Some(t) => type_name(t, root),
            None => "table".into(),
        };
    }
    if let Some(values) = enum_values(prop) {
        return values;
    }
    if let Some(one) = prop
        .get("anyOf")
        .or_else(|| prop.get("oneOf"))
        .and_then(|a| a.as_array())
    {
        let names: Vec<String> = one
            .iter()
            .map(|s| type_name(s, root))
            .filter(|n| n != "null")
            .collect();
        return names.join(" or ");
    }
    let format = prop.get("format").and_then(|f| f.as_str());
    match (prop.get("type"), format) {
        (_, Some("date")) => "date".into(),
        (Some(serde_json::Value::String(t)), _) if t == "array" => {
            let item = prop
                .get("items")
                .map(|i| type_name(i, root))
                .unwrap_or_else(|| "value".into());
            format!("list of {item}")
        }
        (Some(serde_json::Value::String(t)), _) => match t.as_str() {
            "object" => "table".into(),
            other => other.into(),
        },
        (Some(serde_json::Value::Array(ts)), _) => ts
            .iter()
            .filter_map(|t| t.as_str())
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "value".into(),
    }
}

fn enum_values(schema: &serde_json::Value) -> Option<String> {
    if let Some(values) = schema.get("enum").and_then(|e| e.as_array()) {
        let names: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        return Some(names.join(" \\| "));
    }
    let variants = schema.get("oneOf")?.as_array()?;
    let names: Option<Vec<String>> = variants
        .iter()
        .map(|v| v.get("const").map(|c| c.to_string()))
        .collect();
    names.map(|n| n.join(" \\| "))
}
