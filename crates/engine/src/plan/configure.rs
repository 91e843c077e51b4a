//! Configuring each stage from its table (kind, inputs, channel capacity, the
//! kind's own options), then linking the configured stages so each can read the
//! others.

use crate::context::PipelineContext;
use crate::error::ConfigError;
use crate::peers::Peers;
use crate::registry::{Registry, Role, SideInput, StageConfig};

use super::{PlannedStage, PortRef};

/// Keys the engine reads from a stage table; the rest goes to the kind.
const ENGINE_KEYS: [&str; 3] = ["kind", "inputs", "channel_capacity"];

/// A stage whose kind or options are wrong: its inputs are still checked.
pub(super) struct Unconfigured {
    pub(super) name: String,
    pub(super) inputs: Vec<PortRef>,
}

fn valid_stage_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

pub(super) fn configure_stages(
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

/// The stage's `kind`, looked up in `registry`; a problem with it goes to `errors`.
fn kind_of<'r>(
    name: &str,
    body: &toml::Table,
    registry: &'r Registry,
    errors: &mut Vec<ConfigError>,
) -> Option<&'r crate::registry::StageKind> {
    let problem = match body.get("kind") {
        Some(toml::Value::String(k)) => match registry.get(k) {
            Some(kind) => return Some(kind),
            None => format!("unknown kind `{k}` (known kinds: {})", registry.names()),
        },
        Some(_) => "must be a string".to_string(),
        None => format!("missing (known kinds: {})", registry.names()),
    };
    errors.push(ConfigError::stage(name, Some("kind"), problem));
    None
}

pub(super) fn configure_stage(
    name: &str,
    body: &toml::Table,
    registry: &Registry,
    context: &PipelineContext,
    errors: &mut Vec<ConfigError>,
) -> Result<PlannedStage, Unconfigured> {
    let kind = kind_of(name, body, registry, errors);
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
        config,
        incremental: brings_only_new(body, kind),
    })
}

/// Whether the stage of `kind` with the table `body` brings only what is new
/// since its last run: its kind's incremental option is `true`. An option of
/// another type is the stage's own configuration's problem to report.
fn brings_only_new(body: &toml::Table, kind: &crate::registry::StageKind) -> bool {
    kind.incremental_option
        .is_some_and(|option| body.get(option) == Some(&toml::Value::Boolean(true)))
}

/// The names of the stages in the pipeline document `table` that bring only
/// what is new since their last run, read before any stage is configured.
pub(super) fn incremental_stages<'t>(
    table: &'t toml::Table,
    registry: &'t Registry,
) -> impl Iterator<Item = &'t str> {
    table
        .get("stages")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
        .filter(|(_, body)| {
            body.as_table().is_some_and(|body| {
                let kind = body.get("kind").and_then(toml::Value::as_str);
                kind.and_then(|k| registry.get(k))
                    .is_some_and(|kind| brings_only_new(body, kind))
            })
        })
        .map(|(name, _)| name.as_str())
}

/// Each stage's own checks ([`StageConfig::check`]), once the run's mode is known.
pub(super) fn check_stages(
    stages: &[PlannedStage],
    context: &PipelineContext,
    errors: &mut Vec<ConfigError>,
) {
    for stage in stages {
        for e in stage.config.check(context) {
            errors.push(ConfigError::stage(&stage.name, e.key.as_deref(), e.message));
        }
    }
}

/// Lets each stage read the others ([`StageConfig::link`]); a stage's side inputs
/// are asked again after, since what it read may add some.
pub(super) fn link_stages(
    stages: &mut [PlannedStage],
    unconfigured: &[Unconfigured],
    errors: &mut Vec<ConfigError>,
) {
    for i in 0..stages.len() {
        let (before, rest) = stages.split_at_mut(i);
        let Some((me, after)) = rest.split_first_mut() else {
            continue;
        };
        let problems = {
            let others = || before.iter().chain(after.iter());
            // The graph whole: an unconfigured stage's inputs are edges too.
            let edge = |name: &'_ str, from: &'_ PortRef| (from.stage.clone(), name.to_string());
            let edges: Vec<(String, String)> = others()
                .flat_map(|s| {
                    s.inputs
                        .iter()
                        .chain(s.side_inputs.iter().map(|(_, from)| from))
                        .map(|from| edge(&s.name, from))
                })
                .chain(
                    me.inputs
                        .iter()
                        .chain(me.side_inputs.iter().map(|(_, from)| from))
                        .map(|from| edge(&me.name, from)),
                )
                .chain(
                    unconfigured
                        .iter()
                        .flat_map(|u| u.inputs.iter().map(|from| edge(&u.name, from))),
                )
                .collect();
            let peers = Peers::new(
                &me.name,
                others().map(|s| {
                    let config = &*s.config;
                    let (shared, gives) = (config.shared(), config.gives_fields());
                    let config: &dyn crate::peers::AsAny = config;
                    (s.name.as_str(), s.kind.as_str(), config, shared, gives)
                }),
                edges.iter().map(|(a, b)| (a.as_str(), b.as_str())),
                unconfigured.iter().map(|u| u.name.as_str()),
            );
            me.config.link(&peers)
        };
        for e in problems {
            errors.push(ConfigError::stage(&me.name, e.key.as_deref(), e.message));
        }
        me.side_inputs = side_inputs_of(&*me.config);
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

#[cfg(test)]
mod tests {
    use crate::plan::tests::{messages, validate};

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
}
