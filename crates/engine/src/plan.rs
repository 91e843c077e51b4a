//! Validation: turns a [`PipelineFile`] into a [`Plan`] — every stage configured,
//! every input and side input resolved to a port of the right record kind, no
//! cycle, no two sinks on one path, input files present. All problems are
//! collected and returned together, each naming its stage, key path and line;
//! a problem of a stage's options does not hide one of its inputs.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Component, Path};

use crate::config::PipelineFile;
use crate::context::PipelineContext;
use crate::error::{Concern, ConfigError, ConfigErrors};
use crate::peers::Peers;
use crate::registry::{Port, Registry, Role, SideInput, StageConfig};
use crate::runs::RunId;
use crate::windows::Windows;

/// A reference to a port: `stage` (its `out` port) or `stage.port`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PortRef {
    /// Producing stage.
    pub stage: String,
    /// Port name.
    pub port: String,
}

impl PortRef {
    fn parse(text: &str) -> Self {
        match text.split_once('.') {
            Some((stage, port)) => Self {
                stage: stage.to_string(),
                port: port.to_string(),
            },
            None => Self {
                stage: text.to_string(),
                port: Port::DEFAULT.to_string(),
            },
        }
    }
}

impl std::fmt::Display for PortRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.port == Port::DEFAULT {
            f.write_str(&self.stage)
        } else {
            write!(f, "{}.{}", self.stage, self.port)
        }
    }
}

/// A configured stage, ready to build.
pub struct PlannedStage {
    /// Name in the file.
    pub name: String,
    /// Its kind's name.
    pub kind: String,
    /// Source, transform or sink.
    pub role: Role,
    /// Ports it reads.
    pub inputs: Vec<PortRef>,
    /// Its output ports.
    pub outputs: Vec<Port>,
    /// Side inputs and the port each comes from.
    pub side_inputs: Vec<(SideInput, PortRef)>,
    /// Records its input channel holds (the pipeline's unless the stage overrides).
    pub channel_capacity: usize,
    /// The parsed options; taken when the stage is built.
    pub config: Option<Box<dyn StageConfig>>,
}

/// A validated pipeline.
pub struct Plan {
    /// The pipeline file's path.
    pub file: String,
    /// `[pipeline]` settings.
    pub context: PipelineContext,
    /// Stages in an order where every producer precedes its consumers.
    pub stages: Vec<PlannedStage>,
    /// The resolved pipeline document (after `--set` and `${VAR}`), for `run.json`.
    pub resolved: toml::Table,
}

/// Keys the engine reads from a stage table; the rest goes to the kind.
const ENGINE_KEYS: [&str; 3] = ["kind", "inputs", "channel_capacity"];

impl Plan {
    /// Validates `file` against `registry`.
    ///
    /// # Errors
    /// Every problem found, each naming stage, key and line.
    pub fn new(file: PipelineFile, registry: &Registry) -> Result<Plan, ConfigErrors> {
        match Self::draft(file, registry) {
            Ok((plan, missing)) if missing.is_empty() => Ok(plan),
            Ok((plan, missing)) => Err(ConfigErrors {
                file: plan.file,
                errors: missing,
            }),
            Err(e) => Err(e),
        }
    }

    /// Validates `file` against `registry`, but lets problems of the environment
    /// (unset variables, missing input files) through: the plan is returned with
    /// them, so it can be shown before they are fixed.
    ///
    /// # Errors
    /// Every problem found when any is about the file itself.
    pub fn draft(
        file: PipelineFile,
        registry: &Registry,
    ) -> Result<(Plan, Vec<ConfigError>), ConfigErrors> {
        let mut errors = Vec::new();
        for key in file.table.keys() {
            if key != "pipeline" && key != "stages" {
                errors.push(ConfigError::file(format!(
                    "unknown top-level table `{key}` (expected [pipeline] and [stages.NAME])"
                )));
            }
        }
        let settings = file.settings().map_err(|e| errors.extend(e)).ok();
        let name = crate::config::pipeline_name(settings.as_ref(), &file.path);
        let cutoff = settings.as_ref().map(|s| s.cutoff).unwrap_or_default();
        let windows = match settings.as_ref().and_then(|s| s.sets.as_ref()) {
            None => Windows::default_for(cutoff),
            Some(sets) => Windows::from_table(sets, cutoff).unwrap_or_else(|problems| {
                errors.extend(
                    problems
                        .into_iter()
                        .map(|(key, message)| ConfigError::pipeline(&key, message)),
                );
                // The stages are still checked, against the default sets.
                Windows::default_for(cutoff)
            }),
        };
        let context = PipelineContext {
            out: crate::config::output_dir(settings.as_ref(), &name),
            cutoff,
            windows,
            channel_capacity: settings.as_ref().map_or(256, |s| s.channel_capacity),
            name,
            run: RunId::default(),
        };
        if context.channel_capacity == 0 {
            errors.push(ConfigError::pipeline(
                "channel_capacity",
                "must be at least 1",
            ));
        }

        let (mut stages, unconfigured) =
            configure_stages(&file.table, registry, &context, &mut errors);
        link_stages(&mut stages, &mut errors);
        let declared: Vec<&str> = file
            .table
            .get("stages")
            .and_then(|s| s.as_table())
            .map(|t| t.keys().map(String::as_str).collect())
            .unwrap_or_default();
        check_graph(&stages, &unconfigured, &declared, registry, &mut errors);
        check_files(&stages, &mut errors);
        // A value the file resolution already found wrong (an unset variable, an
        // impossible date) is reported once, not again by the stage that reads it.
        errors.retain(|e| !file.problems.iter().any(|p| same_key(p, e)));
        errors.splice(0..0, file.problems.iter().cloned());
        let file_problem =
            |errors: &[ConfigError]| errors.iter().any(|e| e.concern == Concern::File);
        let stages = if file_problem(&errors) {
            stages
        } else {
            topological_order(stages, &mut errors)
        };
        for e in &mut errors {
            e.line = e.path().and_then(|path| file.lines.find(&path));
        }
        errors.sort_by_key(|e| e.line.unwrap_or(0));
        if file_problem(&errors) {
            return Err(ConfigErrors {
                file: file.path,
                errors,
            });
        }
        Ok((
            Plan {
                file: file.path,
                context,
                stages,
                resolved: file.table,
            },
            errors,
        ))
    }

    /// The first stage that brings only what is new since its last run (see
    /// [`StageConfig::incremental`]), if any: the pipeline is then incremental and
    /// keeps every earlier run's outputs. Known until the stages are built.
    pub fn incremental_stage(&self) -> Option<&str> {
        self.stages
            .iter()
            .find(|s| s.config.as_ref().is_some_and(|c| c.incremental()))
            .map(|s| s.name.as_str())
    }

    /// The stage graph in Graphviz dot.
    pub fn to_dot(&self) -> String {
        let mut dot = format!(
            "digraph \"{}\" {{\n  rankdir=LR;\n",
            escape(&self.context.name)
        );
        for s in &self.stages {
            let shape = match s.role {
                Role::Source => "invhouse",
                Role::Transform => "box",
                Role::Sink => "house",
            };
            let _ = writeln!(
                dot,
                "  \"{}\" [shape={shape}, label=\"{}\\n({})\"];",
                escape(&s.name),
                escape(&s.name),
                escape(&s.kind)
            );
        }
        for s in &self.stages {
            for input in &s.inputs {
                let _ = writeln!(
                    dot,
                    "  \"{}\" -> \"{}\" [label=\"{}\"];",
                    escape(&input.stage),
                    escape(&s.name),
                    escape(&input.port)
                );
            }
            for (side, from) in &s.side_inputs {
                let _ = writeln!(
                    dot,
                    "  \"{}\" -> \"{}\" [style=dashed, label=\"{} (side)\"];",
                    escape(&from.stage),
                    escape(&s.name),
                    escape(&side.key)
                );
            }
        }
        dot.push_str("}\n");
        dot
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Whether two problems are about the same value: the same stage, and one key
/// path inside the other (`paths` and `paths[0]`).
fn same_key(a: &ConfigError, b: &ConfigError) -> bool {
    let inside = |outer: &str, inner: &str| {
        inner == outer
            || inner
                .strip_prefix(outer)
                .is_some_and(|rest| rest.starts_with(['.', '[']))
    };
    match (&a.key, &b.key) {
        (Some(x), Some(y)) => a.stage == b.stage && (inside(x, y) || inside(y, x)),
        _ => false,
    }
}

/// A stage whose kind or options are wrong: its inputs are still checked.
struct Unconfigured {
    name: String,
    inputs: Vec<PortRef>,
}

fn valid_stage_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn configure_stages(
    table: &toml::Table,
    registry: &Registry,
    context: &PipelineContext,
    errors: &mut Vec<ConfigError>,
) -> (Vec<PlannedStage>, Vec<Unconfigured>) {
    let Some(stages) = table.get("stages") else {
        errors.push(ConfigError::file(
            "no stages: add at least one [stages.NAME] table",
        ));
        return (Vec::new(), Vec::new());
    };
    let Some(stages) = stages.as_table() else {
        errors.push(ConfigError::file(
            "`stages` must be a table of [stages.NAME] tables",
        ));
        return (Vec::new(), Vec::new());
    };
    let mut planned = Vec::new();
    let mut unconfigured = Vec::new();
    for (name, value) in stages {
        if !valid_stage_name(name) {
            errors.push(ConfigError::stage(
                name,
                None,
                "stage names may use only letters, digits, `_` and `-`",
            ));
        }
        let Some(body) = value.as_table() else {
            errors.push(ConfigError::stage(name, None, "must be a table"));
            continue;
        };
        match configure_stage(name, body, registry, context, errors) {
            Ok(stage) => planned.push(stage),
            Err(stage) => unconfigured.push(stage),
        }
    }
    (planned, unconfigured)
}

fn configure_stage(
    name: &str,
    body: &toml::Table,
    registry: &Registry,
    context: &PipelineContext,
    errors: &mut Vec<ConfigError>,
) -> Result<PlannedStage, Unconfigured> {
    let kind = match body.get("kind") {
        Some(toml::Value::String(k)) => match registry.get(k) {
            Some(kind) => Some(kind),
            None => {
                errors.push(ConfigError::stage(
                    name,
                    Some("kind"),
                    format!("unknown kind `{k}` (known kinds: {})", registry.names()),
                ));
                None
            }
        },
        Some(_) => {
            errors.push(ConfigError::stage(name, Some("kind"), "must be a string"));
            None
        }
        None => {
            errors.push(ConfigError::stage(
                name,
                Some("kind"),
                format!("missing (known kinds: {})", registry.names()),
            ));
            None
        }
    };
    let inputs = parse_inputs(name, body.get("inputs"), kind.map(|k| k.role), errors);
    let unconfigured = |inputs| Unconfigured {
        name: name.to_string(),
        inputs,
    };
    let Some(kind) = kind else {
        return Err(unconfigured(inputs));
    };
    let channel_capacity = match body.get("channel_capacity") {
        None => context.channel_capacity,
        Some(toml::Value::Integer(n)) if *n >= 1 => usize::try_from(*n).unwrap_or(usize::MAX),
        Some(_) => {
            errors.push(ConfigError::stage(
                name,
                Some("channel_capacity"),
                "must be a positive integer",
            ));
            context.channel_capacity
        }
    };
    let options: toml::Table = body
        .iter()
        .filter(|(k, _)| !ENGINE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let config = match (kind.configure)(options, context) {
        Ok(config) => config,
        Err(problems) => {
            for p in problems {
                errors.push(ConfigError::stage(name, p.key.as_deref(), p.message));
            }
            return Err(unconfigured(inputs));
        }
    };
    for (key, message) in config.check(context) {
        errors.push(ConfigError::stage(name, key.as_deref(), message));
    }
    let outputs = config.outputs();
    let side_inputs = side_inputs_of(&*config);
    Ok(PlannedStage {
        name: name.to_string(),
        kind: kind.name.to_string(),
        role: kind.role,
        inputs,
        outputs,
        side_inputs,
        channel_capacity,
        config: Some(config),
    })
}

/// Lets each stage read the others ([`StageConfig::link`]); a stage's side inputs
/// are asked again after, since what it read may add some.
fn link_stages(stages: &mut [PlannedStage], errors: &mut Vec<ConfigError>) {
    for i in 0..stages.len() {
        let Some(mut config) = stages[i].config.take() else {
            continue;
        };
        let me = stages[i].name.clone();
        let problems = {
            let edges = stages.iter().flat_map(|s| {
                s.inputs
                    .iter()
                    .chain(s.side_inputs.iter().map(|(_, from)| from))
                    .map(move |from| (from.stage.as_str(), s.name.as_str()))
            });
            let peers = Peers::new(
                &me,
                stages.iter().filter_map(|s| {
                    let config = s.config.as_deref()?;
                    let shared = config.shared();
                    let config: &dyn crate::peers::AsAny = config;
                    Some((s.name.as_str(), s.kind.as_str(), config, shared))
                }),
                edges,
            );
            config.link(&peers)
        };
        let stage = &mut stages[i];
        for (key, message) in problems {
            errors.push(ConfigError::stage(&stage.name, key.as_deref(), message));
        }
        stage.side_inputs = side_inputs_of(&*config);
        stage.config = Some(config);
    }
}

/// A configured stage's side inputs, each with the port it reads.
fn side_inputs_of(config: &dyn StageConfig) -> Vec<(SideInput, PortRef)> {
    config
        .side_inputs()
        .into_iter()
        .map(|s| {
            let from = PortRef::parse(&s.from);
            (s, from)
        })
        .collect()
}

fn parse_inputs(
    name: &str,
    value: Option<&toml::Value>,
    role: Option<Role>,
    errors: &mut Vec<ConfigError>,
) -> Vec<PortRef> {
    let list: Vec<PortRef> = match value {
        None => Vec::new(),
        Some(toml::Value::Array(items)) => items
            .iter()
            .filter_map(|item| match item.as_str() {
                Some(s) => Some(PortRef::parse(s)),
                None => {
                    errors.push(ConfigError::stage(
                        name,
                        Some("inputs"),
                        "must be a list of strings",
                    ));
                    None
                }
            })
            .collect(),
        Some(toml::Value::String(s)) => vec![PortRef::parse(s)],
        Some(_) => {
            errors.push(ConfigError::stage(
                name,
                Some("inputs"),
                "must be a list of strings",
            ));
            Vec::new()
        }
    };
    match role {
        Some(Role::Source) if !list.is_empty() => errors.push(ConfigError::stage(
            name,
            Some("inputs"),
            "a source stage takes no inputs",
        )),
        Some(Role::Transform | Role::Sink) if list.is_empty() => errors.push(ConfigError::stage(
            name,
            Some("inputs"),
            "missing: list the stages (or `stage.port`s) this stage reads",
        )),
        _ => {}
    }
    list
}

/// Checks every input and side input, and that the inputs of stages that failed to
/// configure exist. A reference to a declared stage that failed to configure is not
/// reported again (its own error says what is wrong).
fn check_graph(
    stages: &[PlannedStage],
    unconfigured: &[Unconfigured],
    declared: &[&str],
    registry: &Registry,
    errors: &mut Vec<ConfigError>,
) {
    let by_name: HashMap<&str, &PlannedStage> =
        stages.iter().map(|s| (s.name.as_str(), s)).collect();
    let resolve = |r: &PortRef| -> Result<Option<&Port>, String> {
        let Some(producer) = by_name.get(r.stage.as_str()) else {
            if declared.contains(&r.stage.as_str()) {
                return Ok(None);
            }
            return Err(format!("unknown stage `{}`", r.stage));
        };
        producer
            .outputs
            .iter()
            .find(|p| p.name == r.port)
            .map(Some)
            .ok_or_else(|| {
                let ports: Vec<&str> = producer.outputs.iter().map(|p| p.name.as_str()).collect();
                if ports.is_empty() {
                    format!("stage `{}` is a sink and has no output", r.stage)
                } else {
                    format!(
                        "stage `{}` has no port `{}` (its ports: {})",
                        r.stage,
                        r.port,
                        ports.join(", ")
                    )
                }
            })
    };
    for stage in stages {
        let accepts = registry.get(&stage.kind).map_or(&[][..], |k| k.accepts);
        for input in &stage.inputs {
            match resolve(input) {
                Err(e) => errors.push(ConfigError::stage(&stage.name, Some("inputs"), e)),
                Ok(Some(port)) if !accepts.contains(&port.kind) => {
                    let want: Vec<&str> = accepts.iter().map(|k| k.as_str()).collect();
                    errors.push(ConfigError::stage(
                        &stage.name,
                        Some("inputs"),
                        format!(
                            "`{input}` carries {} records but kind `{}` accepts {}",
                            port.kind,
                            stage.kind,
                            want.join(", ")
                        ),
                    ));
                }
                Ok(_) => {}
            }
        }
        for (side, from) in &stage.side_inputs {
            match resolve(from) {
                Err(e) => errors.push(ConfigError::stage(&stage.name, Some(&side.key), e)),
                Ok(Some(port)) if port.kind != side.kind => errors.push(ConfigError::stage(
                    &stage.name,
                    Some(&side.key),
                    format!(
                        "`{from}` carries {} records, expected {}",
                        port.kind, side.kind
                    ),
                )),
                Ok(_) => {}
            }
        }
    }
    for stage in unconfigured {
        for input in &stage.inputs {
            if let Err(e) = resolve(input) {
                errors.push(ConfigError::stage(&stage.name, Some("inputs"), e));
            }
        }
    }
}

fn check_files(stages: &[PlannedStage], errors: &mut Vec<ConfigError>) {
    let mut written: BTreeMap<String, &str> = BTreeMap::new();
    for stage in stages {
        let Some(config) = &stage.config else {
            continue;
        };
        for (key, path) in config.reads() {
            if path.as_os_str() != "-" && !path.exists() {
                errors.push(
                    ConfigError::stage(
                        &stage.name,
                        Some(&key),
                        format!("input file not found: {}", path.display()),
                    )
                    .about_environment(),
                );
            }
        }
        for (key, template) in config.writes() {
            if let Err(e) = check_relative(&template) {
                errors.push(ConfigError::stage(&stage.name, Some(&key), e));
                continue;
            }
            if let Some(other) = written.insert(template.clone(), &stage.name) {
                errors.push(ConfigError::stage(
                    &stage.name,
                    Some(&key),
                    format!("stage `{other}` writes to `{template}` too"),
                ));
            }
        }
    }
}

/// Output paths stay inside `pipeline.out`: relative, without `..`.
pub fn check_relative(path: &str) -> Result<(), String> {
    let p = Path::new(path);
    if p.is_absolute()
        || p.components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "`{path}` must be a relative path inside pipeline.out (no `..`, not absolute)"
        ));
    }
    Ok(())
}

fn topological_order(
    stages: Vec<PlannedStage>,
    errors: &mut Vec<ConfigError>,
) -> Vec<PlannedStage> {
    let index: HashMap<String, usize> = stages
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    let upstream: Vec<Vec<usize>> = stages
        .iter()
        .map(|s| {
            s.inputs
                .iter()
                .chain(s.side_inputs.iter().map(|(_, r)| r))
                .filter_map(|r| index.get(&r.stage).copied())
                .collect()
        })
        .collect();
    let mut indegree: Vec<usize> = upstream.iter().map(Vec::len).collect();
    let mut order = Vec::with_capacity(stages.len());
    let mut ready: Vec<usize> = (0..stages.len()).filter(|&i| indegree[i] == 0).collect();
    ready.reverse();
    while let Some(i) = ready.pop() {
        order.push(i);
        for (j, ups) in upstream.iter().enumerate() {
            for &u in ups {
                if u == i {
                    indegree[j] -= 1;
                    if indegree[j] == 0 {
                        ready.insert(0, j);
                    }
                }
            }
        }
    }
    if order.len() < stages.len() {
        let mut in_cycle: Vec<&str> = (0..stages.len())
            .filter(|i| !order.contains(i))
            .map(|i| stages[i].name.as_str())
            .collect();
        in_cycle.sort_unstable();
        for name in &in_cycle {
            errors.push(ConfigError::stage(
                name,
                Some("inputs"),
                format!("is part of a cycle ({})", in_cycle.join(" -> ")),
            ));
        }
        return stages;
    }
    let mut slots: Vec<Option<PlannedStage>> = stages.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::test_kinds;

    fn validate(stages: &str) -> Result<Plan, ConfigErrors> {
        let text = format!("[pipeline]\ncutoff = 2019-12-31\n{stages}");
        let file = PipelineFile::parse("p.toml", &text, &[]).unwrap();
        Plan::new(file, &Registry::new(test_kinds()))
    }

    fn messages(err: &ConfigErrors) -> Vec<String> {
        err.errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn every_problem_is_reported_at_once_with_stage_and_key() {
        let err = validate(
            r#"
[stages.gen]
kind = "test-generate"
count = 1
colour = "red"
[stages.typo]
kind = "test-generat"
[stages.pass]
kind = "test-pass"
inputs = ["nowhere", "gen.extra", "nocount"]
[stages.pass2]
kind = "test-pass"
inputs = ["pass.extra"]
[stages.missing]
kind = "test-generate"
count = 1
from_file = "/definitely/not/here.json"
[stages.needs]
kind = "test-count"
[stages.nocount]
kind = "test-generate"
"#,
        )
        .err()
        .unwrap();
        let all = messages(&err).join("\n");
        assert!(
            all.contains("stages.gen.colour: unknown field `colour`"),
            "{all}"
        );
        assert!(
            all.contains("stages.typo.kind: unknown kind `test-generat` (known kinds: test-count, test-fail, test-generate, test-pass)"),
            "{all}"
        );
        assert!(
            all.contains("stages.pass.inputs: unknown stage `nowhere`"),
            "{all}"
        );
        assert!(
            all.contains("stage `pass` has no port `extra` (its ports: out)"),
            "{all}"
        );
        assert!(
            all.contains("stages.missing.from_file: input file not found"),
            "{all}"
        );
        assert!(all.contains("stages.needs.inputs: missing"), "{all}");
        assert!(
            all.contains("stages.nocount.count: missing field `count`"),
            "{all}"
        );
        assert_eq!(err.errors.len(), 7, "{all}");
    }

    #[test]
    fn a_stage_with_bad_options_still_has_its_inputs_checked_and_types_name_their_key() {
        let err = validate(
            r#"
[stages.gen]
kind = "test-generate"
count = "many"
[stages.pass]
kind = "test-pass"
inputs = ["nowhere"]
colour = 1
"#,
        )
        .err()
        .unwrap();
        assert_eq!(
            messages(&err),
            [
                "line 6: stages.gen.count: invalid type: string \"many\", expected u64",
                "line 9: stages.pass.inputs: unknown stage `nowhere`",
                "line 10: stages.pass.colour: unknown field `colour`, expected `fail_after`",
            ]
        );
    }

    #[test]
    fn missing_input_files_alone_leave_a_draft_plan() {
        let text = "[pipeline]\ncutoff = 2019-12-31\n[stages.gen]\nkind = \"test-generate\"\ncount = 1\nfrom_file = \"/no/such/file\"\n";
        let registry = Registry::new(test_kinds());
        let file = PipelineFile::parse("p.toml", text, &[]).unwrap();
        let (plan, missing) = Plan::draft(file.clone(), &registry).unwrap();
        assert_eq!(plan.stages.len(), 1);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].concern, Concern::Environment);
        let err = Plan::new(file, &registry).err().unwrap();
        assert_eq!(err.errors, missing);
        // A problem of the file itself stops the draft too.
        let bad =
            PipelineFile::parse("p.toml", &text.replace("count = 1", "count = -1"), &[]).unwrap();
        assert!(Plan::draft(bad, &registry).is_err());
    }

    #[test]
    fn cycles_are_found_and_name_their_stages() {
        let err = validate(
            r#"
[stages.gen]
kind = "test-generate"
count = 1
[stages.a]
kind = "test-pass"
inputs = ["gen", "b"]
[stages.b]
kind = "test-pass"
inputs = ["a"]
"#,
        )
        .err()
        .unwrap();
        let all = messages(&err).join("\n");
        assert!(
            all.contains("stages.a.inputs: is part of a cycle (a -> b)"),
            "{all}"
        );
        assert_eq!(err.errors.len(), 2);
    }

    #[test]
    fn sinks_may_not_share_a_path_or_leave_the_output_directory() {
        let err = validate(
            r#"
[stages.gen]
kind = "test-generate"
count = 1
[stages.one]
kind = "test-count"
inputs = ["gen"]
path = "{split}.jsonl"
[stages.two]
kind = "test-count"
inputs = ["gen"]
path = "{split}.jsonl"
[stages.three]
kind = "test-count"
inputs = ["gen"]
path = "../escape.jsonl"
[stages.four]
kind = "test-count"
inputs = ["gen"]
path = "/etc/passwd"
"#,
        )
        .err()
        .unwrap();
        let all = messages(&err).join("\n");
        assert!(
            all.contains("stages.two.path: stage `one` writes to `{split}.jsonl` too"),
            "{all}"
        );
        assert!(
            all.contains("stages.three.path: `../escape.jsonl` must be a relative path"),
            "{all}"
        );
        assert!(
            all.contains("stages.four.path: `/etc/passwd` must be a relative path"),
            "{all}"
        );
    }

    #[test]
    fn sources_take_no_inputs_and_sinks_have_no_outputs() {
        let err = validate(
            r#"
[stages.gen]
kind = "test-generate"
count = 1
inputs = ["sink"]
[stages.sink]
kind = "test-count"
inputs = ["gen"]
[stages.after]
kind = "test-count"
inputs = ["sink"]
"#,
        )
        .err()
        .unwrap();
        let all = messages(&err).join("\n");
        assert!(
            all.contains("stages.gen.inputs: a source stage takes no inputs"),
            "{all}"
        );
        assert!(
            all.contains("stage `sink` is a sink and has no output"),
            "{all}"
        );
    }

    #[test]
    fn a_valid_plan_is_ordered_producers_first_and_drawn_as_dot() {
        let plan = validate(
            r#"
[stages.sink]
kind = "test-count"
inputs = ["pass"]
[stages.pass]
kind = "test-pass"
inputs = ["gen"]
[stages.gen]
kind = "test-generate"
count = 1
"#,
        )
        .unwrap();
        let order: Vec<&str> = plan.stages.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(order, ["gen", "pass", "sink"]);
        let dot = plan.to_dot();
        assert!(dot.contains("\"gen\" -> \"pass\" [label=\"out\"]"), "{dot}");
        assert_eq!(plan.context.out, std::path::PathBuf::from("out/p"));
    }
}
