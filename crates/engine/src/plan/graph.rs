//! Checking the stage graph (every input and side input names a port that carries
//! what its reader accepts, and there is no cycle), and putting the stages in an
//! order where every producer precedes its consumers.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::error::ConfigError;
use crate::registry::{Port, ReadPort, Registry};

use super::configure::Unconfigured;
use super::{PlannedStage, PortRef};

/// Checks every input and side input, and that the inputs of stages that failed to
/// configure exist. A reference to a declared stage that failed to configure is not
/// reported again (its own error says what is wrong).
pub(super) fn check_graph(
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

/// Refuses a set of `[pipeline.sets]` whose port no stage reads: its records
/// would be counted and then lost. The problem is the set's, at its key path, and
/// names the stages that read the same producer's other sets, where it may be
/// added. `written`: the file has `[pipeline.sets]`; without it, the sets are the
/// default ones, and the way out is to write the table with those it reads.
pub(super) fn check_sets_read(
    stages: &[PlannedStage],
    unconfigured: &[Unconfigured],
    written: bool,
    errors: &mut Vec<ConfigError>,
) {
    let readers_of = |producer: &str, port: &str| -> Vec<&str> {
        let reads = |r: &PortRef| r.stage == producer && r.port == port;
        let planned = stages.iter().filter(|s| {
            s.inputs
                .iter()
                .chain(s.side_inputs.iter().map(|(_, r)| r))
                .any(reads)
        });
        let unplanned = unconfigured.iter().filter(|s| s.inputs.iter().any(reads));
        planned
            .map(|s| s.name.as_str())
            .chain(unplanned.map(|s| s.name.as_str()))
            .collect()
    };
    for producer in stages {
        let sets: Vec<&Port> = producer.outputs.iter().filter(|p| p.set).collect();
        let unread = sets
            .iter()
            .filter(|p| readers_of(&producer.name, &p.name).is_empty());
        for port in unread {
            let mut elsewhere: Vec<String> = sets
                .iter()
                .flat_map(|other| readers_of(&producer.name, &other.name))
                .map(|s| format!("`{s}`"))
                .collect();
            elsewhere.sort_unstable();
            elsewhere.dedup();
            let advice = if elsewhere.is_empty() {
                "add it to the `inputs` of a stage that writes it".to_string()
            } else {
                format!(
                    "the other sets are read by {}: add `{}.{}` to the `inputs` of those that \
                     should take it",
                    elsewhere.join(", "),
                    producer.name,
                    port.name
                )
            };
            let (key, way_out) = if written {
                (format!("sets.{}", port.name), "or remove the set")
            } else {
                (
                    "sets".to_string(),
                    "or write `[pipeline.sets]` with only the sets the pipeline reads (without \
                     it, the sets are the default `in_distribution` and `future`)",
                )
            };
            errors.push(ConfigError::pipeline(
                &key,
                format!(
                    "no stage reads set `{}` (port `{}.{}`), so its records would be lost: \
                     {advice}, {way_out}",
                    port.name, producer.name, port.name
                ),
            ));
        }
    }
}

/// Tells each stage what its inputs carry ([`StageConfig::read_ports`]): each
/// input's record kind and the sets whose records reach it. An input naming no
/// port (reported by [`check_graph`]) is left out.
///
/// [`StageConfig::read_ports`]: crate::registry::StageConfig::read_ports
pub(super) fn tell_read_ports(stages: &mut [PlannedStage]) {
    let told: Vec<Vec<ReadPort>> = {
        let by_name: HashMap<&str, &PlannedStage> =
            stages.iter().map(|s| (s.name.as_str(), s)).collect();
        stages
            .iter()
            .map(|s| {
                let ports = s.inputs.iter().filter_map(|r| port_of(&by_name, r));
                ports
                    .map(|(stage, port)| read_port(&by_name, stage, port))
                    .collect()
            })
            .collect()
    };
    for (stage, ports) in stages.iter_mut().zip(told) {
        stage.config.read_ports(&ports);
    }
}

/// The stage and port `r` names, if both exist.
fn port_of<'a>(
    by_name: &HashMap<&str, &'a PlannedStage>,
    r: &PortRef,
) -> Option<(&'a PlannedStage, &'a Port)> {
    let stage = *by_name.get(r.stage.as_str())?;
    let port = stage.outputs.iter().find(|p| p.name == r.port)?;
    Some((stage, port))
}

/// What `port` of `stage` carries: its kind, and the set ports it is or that
/// lie before it, through the inputs of every stage between (a cycle, reported
/// elsewhere, is walked once).
fn read_port(
    by_name: &HashMap<&str, &PlannedStage>,
    stage: &PlannedStage,
    port: &Port,
) -> ReadPort {
    let mut sets = BTreeSet::new();
    let mut walked = HashSet::new();
    let mut todo = vec![(stage, port)];
    while let Some((stage, port)) = todo.pop() {
        if port.set {
            sets.insert(port.name.clone());
        } else if walked.insert(stage.name.as_str()) {
            todo.extend(stage.inputs.iter().filter_map(|r| port_of(by_name, r)));
        }
    }
    ReadPort {
        kind: port.kind,
        sets: sets.into_iter().collect(),
    }
}

pub(super) fn topological_order(
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
    use tempora_records::RecordKind;

    use crate::builtin::test_kinds;
    use crate::config::PipelineFile;
    use crate::context::PipelineContext;
    use crate::error::StageError;
    use crate::plan::tests::{messages, validate};
    use crate::plan::Plan;
    use crate::registry::{InRebuild, Port, ReadPort, Registry, Role, StageConfig, StageKind};
    use crate::stage::Stage;

    /// A source of two sets and a port of no set, or a sink that keeps what it
    /// was told its inputs carry.
    struct Told(Vec<ReadPort>, bool);

    impl StageConfig for Told {
        fn outputs(&self) -> Vec<Port> {
            if !self.1 {
                return Vec::new();
            }
            vec![
                Port::set("a", RecordKind::Article),
                Port::set("b", RecordKind::Article),
                Port::named("rest", RecordKind::Article),
            ]
        }
        fn read_ports(&mut self, ports: &[ReadPort]) {
            self.0 = ports.to_vec();
        }
        fn build(&self, _: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
            Err(StageError::internal("not built"))
        }
    }

    fn kind(name: &'static str, role: Role, configure: crate::registry::ConfigureFn) -> StageKind {
        StageKind {
            name,
            about: "",
            role,
            accepts: &RecordKind::ALL,
            emits: "",
            requests: &[],
            in_rebuild: InRebuild::Runs,
            incremental_option: None,
            options: || schemars::schema_for!(()),
            configure,
        }
    }

    #[test]
    fn a_stage_is_told_the_kind_and_the_sets_each_input_carries() {
        let mut kinds = test_kinds();
        kinds.extend([
            kind("sets", Role::Source, |_, _| {
                Ok(Box::new(Told(Vec::new(), true)))
            }),
            kind("told", Role::Sink, |_, _| {
                Ok(Box::new(Told(Vec::new(), false)))
            }),
        ]);
        let text = r#"
[pipeline]
cutoff = 2019-12-31
[stages.split]
kind = "sets"
[stages.one]
kind = "test-pass"
inputs = ["split.a"]
[stages.both]
kind = "test-pass"
inputs = ["one", "split.b", "split.rest"]
[stages.gen]
kind = "test-generate"
count = 1
[stages.write]
kind = "told"
inputs = ["both", "split.b", "split.rest", "gen"]
"#;
        let file = PipelineFile::parse("p.toml", text, &[]).unwrap();
        let plan = Plan::new(file, &Registry::new(kinds)).unwrap();
        let write = plan.stages.iter().find(|s| s.name == "write").unwrap();
        let told = &(*write.config).as_any().downcast_ref::<Told>().unwrap().0;
        let sets: Vec<Vec<&str>> = told
            .iter()
            .map(|p| p.sets.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(sets, [vec!["a", "b"], vec!["b"], vec![], vec![]]);
        let kinds: Vec<RecordKind> = told.iter().map(|p| p.kind).collect();
        use RecordKind::{Article, Capture};
        assert_eq!(kinds, [Capture, Article, Article, Capture]);
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
}
