//! Validation: turns a [`PipelineFile`] into a [`Plan`] — every stage configured,
//! every input and side input resolved to a port of the right record kind, no
//! cycle, no two sinks on one path, input files present. All problems are
//! collected and returned together, each naming its stage, key path and line;
//! a problem of a stage's options does not hide one of its inputs.

mod configure;
mod dot;
mod files;
mod graph;

use crate::config::PipelineFile;
use crate::context::{PipelineContext, RunMode};
use crate::cost::RequestKind;
use crate::error::{Concern, ConfigError, ConfigErrors};
use crate::registry::{Port, Registry, Role, SideInput, StageConfig};
use crate::runs::RunId;
use crate::windows::Windows;

use configure::{configure_stages, link_stages};
use files::check_files;
pub use files::check_relative;
use graph::{check_graph, topological_order};

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
    /// The parsed options, from which the runtime builds the stage (reading
    /// them, so the plan stays whole).
    pub config: Box<dyn StageConfig>,
    /// It brings only what is new since its last run (its kind's
    /// [`crate::registry::StageKind::incremental_option`] is set).
    pub incremental: bool,
}

/// What a command adds to a pipeline file's own stages, planned with them in the
/// same pass: the part of each set held back, and stages added from what the
/// file's stages are (the binary's manifest stages).
#[derive(Default)]
pub struct Additions<'a> {
    /// The part of each set held back (`[pipeline.release]`, as the binary read
    /// it), offered to every stage that writes files
    /// ([`StageConfig::hold_back`]): a stage that writes files and cannot take it
    /// is a problem of the file.
    pub release: Option<&'a dyn std::any::Any>,
    /// Stages to add once the file's own are configured without a problem, given
    /// those (`[stages.NAME]` tables by name; none added when empty). They are
    /// checked with the rest and recorded in the resolved document.
    #[allow(clippy::type_complexity)]
    pub stages: Option<&'a dyn Fn(&[PlannedStage]) -> toml::Table>,
    /// The run is to make an incremental pipeline's whole set anew
    /// (`tempora run --rebuild`; see [`RunMode::Rebuild`]).
    pub rebuild: bool,
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
    /// The kinds of request the registry's stage kinds declare: `run.json`'s
    /// `cost` names each, sent or not.
    pub request_kinds: Vec<RequestKind>,
    /// The run day and the dates resolved against it, when the file's dates
    /// were resolved ([`PipelineFile::resolve_dates`]): `run.json`'s `dates`.
    pub dates: Option<crate::dates::RunDates>,
}

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
        Self::draft_with(file, registry, &Additions::default())
    }

    /// [`Plan::draft`] of `file` with `additions`: the one planning of a command.
    ///
    /// # Errors
    /// Every problem found when any is about the file itself.
    pub fn draft_with(
        mut file: PipelineFile,
        registry: &Registry,
        additions: &Additions<'_>,
    ) -> Result<(Plan, Vec<ConfigError>), ConfigErrors> {
        let mut errors = Vec::new();
        for key in file.table.keys() {
            if key != "pipeline" && key != "stages" {
                errors.push(ConfigError::file(format!(
                    "unknown top-level table `{key}` (expected [pipeline] and [stages.NAME])"
                )));
            }
        }
        let mut context = pipeline_context(&file, &mut errors);
        // The mode is known before any stage is configured.
        let incremental = configure::incremental_stages(&file.table, registry)
            .next()
            .is_some();
        context.mode = RunMode::of(incremental, additions.rebuild);
        let (mut stages, mut unconfigured) =
            configure_stages(&file.table, registry, &context, &mut errors);
        if let Some(add) = additions.stages.filter(|_| errors.is_empty()) {
            add_stages(&mut file, add(&stages), registry, &context, &mut errors)
                .into_iter()
                .for_each(|added| match added {
                    Ok(stage) => stages.push(stage),
                    Err(stage) => unconfigured.push(stage),
                });
        }
        configure::check_stages(&stages, &context, &mut errors);
        link_stages(&mut stages, &unconfigured, &mut errors);
        if let Some(release) = additions.release {
            hold_back(&mut stages, release, &mut errors);
        }
        let declared: Vec<&str> = file
            .table
            .get("stages")
            .and_then(|s| s.as_table())
            .map(|t| t.keys().map(String::as_str).collect())
            .unwrap_or_default();
        check_graph(&stages, &unconfigured, &declared, registry, &mut errors);
        graph::tell_read_ports(&mut stages);
        let written = context.windows.is_written();
        graph::check_sets_read(&stages, &unconfigured, written, &mut errors);
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
        place_errors(&mut errors, &file);
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
                request_kinds: registry.request_kinds(),
                dates: file.dates,
            },
            errors,
        ))
    }

    /// The first stage that brings only what is new since its last run (see
    /// [`crate::registry::StageKind::incremental_option`]), if any: the pipeline is
    /// then incremental and keeps every earlier run's outputs.
    pub fn incremental_stage(&self) -> Option<&str> {
        self.stages
            .iter()
            .find(|s| s.incremental)
            .map(|s| s.name.as_str())
    }

    /// The stage that makes `stage`'s records only what is new since the last
    /// run: an incremental stage it is, or reads from through its inputs and side
    /// inputs, if any. A stage that reads none (a source of facts, say) brings
    /// its whole output each run, so a file of it holds one run's records, not
    /// records that accumulate.
    pub fn brings_only_new_by(&self, stage: &str) -> Option<&str> {
        let by_name: std::collections::HashMap<&str, &PlannedStage> =
            self.stages.iter().map(|s| (s.name.as_str(), s)).collect();
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![stage];
        while let Some(name) = todo.pop() {
            let Some(planned) = by_name.get(name).filter(|_| seen.insert(name)) else {
                continue;
            };
            if planned.incremental {
                return Some(planned.name.as_str());
            }
            let upstream = planned
                .inputs
                .iter()
                .chain(planned.side_inputs.iter().map(|(_, r)| r));
            todo.extend(upstream.map(|r| r.stage.as_str()));
        }
        None
    }
}

/// Gives each problem the line of its key in `file`, or says which `--set` gave
/// the value, and puts them in the file's order.
fn place_errors(errors: &mut [ConfigError], file: &PipelineFile) {
    for e in errors.iter_mut() {
        e.line = e.path().and_then(|path| file.lines.find(&path));
        if e.line.is_none() {
            let given = e
                .path()
                .and_then(|path| crate::config::override_of(&file.overrides, &path));
            if let Some(given) = given {
                e.message = format!("{} (from --set {given})", e.message);
            }
        }
    }
    errors.sort_by_key(|e| e.line.unwrap_or(0));
}

/// Configures `added` and writes it into `file`'s stages, so the resolved
/// document holds every stage that ran.
fn add_stages(
    file: &mut PipelineFile,
    added: toml::Table,
    registry: &Registry,
    context: &PipelineContext,
    errors: &mut Vec<ConfigError>,
) -> Vec<Result<PlannedStage, configure::Unconfigured>> {
    let Some(stages) = file
        .table
        .get_mut("stages")
        .and_then(toml::Value::as_table_mut)
    else {
        return Vec::new();
    };
    added
        .into_iter()
        .filter_map(|(name, body)| {
            let configured =
                configure::configure_stage(&name, body.as_table()?, registry, context, errors);
            stages.insert(name, body);
            Some(configured)
        })
        .collect()
}

/// Offers `release` to every stage that writes files; one that cannot take it
/// is a problem: it would publish the held-back records.
fn hold_back(
    stages: &mut [PlannedStage],
    release: &dyn std::any::Any,
    errors: &mut Vec<ConfigError>,
) {
    for stage in stages {
        let config = &mut stage.config;
        if config.writes().is_empty() || config.hold_back(release) {
            continue;
        }
        errors.push(ConfigError::stage(
            &stage.name,
            Some("kind"),
            format!(
                "kind `{}` writes files but cannot hold records back, and \
                 `[pipeline.release]` holds back part of each set: its files would \
                 publish what is held back (use a sink that can, or no release)",
                stage.kind
            ),
        ));
    }
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

/// The pipeline's settings (`[pipeline]`) as the stages see them; problems with
/// them go to `errors`, and defaults stand in so the stages are still checked.
fn pipeline_context(file: &PipelineFile, errors: &mut Vec<ConfigError>) -> PipelineContext {
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
        mode: RunMode::Fresh,
    };
    if context.channel_capacity == 0 {
        errors.push(ConfigError::pipeline(
            "channel_capacity",
            "must be at least 1",
        ));
    }
    if let Some(problem) = output_folder_problem(&context.out) {
        errors.push(ConfigError::pipeline("out", problem).about_environment());
    }
    context
}

/// Why the output folder cannot be a folder: it, or the nearest of its parents
/// that exists, is a file. (Whether it can be written is tried by the run.)
fn output_folder_problem(out: &std::path::Path) -> Option<String> {
    let mut at = Some(out);
    while let Some(path) = at.filter(|p| !p.as_os_str().is_empty()) {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => return None,
            Ok(_) if path == out => {
                return Some(format!(
                    "{} is a file, not a folder: give `pipeline.out` a folder's path",
                    out.display()
                ))
            }
            Ok(_) => {
                return Some(format!(
                    "{} cannot be made: {} is a file",
                    out.display(),
                    path.display()
                ))
            }
            Err(_) => at = path.parent(),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::test_kinds;

    pub(super) fn validate(stages: &str) -> Result<Plan, ConfigErrors> {
        let text = format!("[pipeline]\ncutoff = 2019-12-31\n{stages}");
        let file = PipelineFile::parse("p.toml", &text, &[]).unwrap();
        Plan::new(file, &Registry::new(test_kinds()))
    }

    pub(super) fn messages(err: &ConfigErrors) -> Vec<String> {
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

    /// Every stage is configured knowing the run's mode, whichever stage makes the
    /// pipeline incremental and wherever it stands in the file: a kind registered
    /// here reports the mode its configuration was given.
    #[test]
    fn every_stage_is_configured_in_the_run_s_mode() {
        let mut kinds = test_kinds();
        kinds.push(crate::registry::StageKind {
            name: "test-mode",
            incremental_option: Some("incremental"),
            configure: |_, ctx| {
                Err(vec![crate::options::OptionError::at(
                    "kind",
                    format!("configured as {:?}", ctx.mode),
                )])
            },
            ..test_kinds().remove(0)
        });
        let registry = Registry::new(kinds);
        let modes = |last: &str, rebuild: bool| {
            let text = format!(
                "[pipeline]\ncutoff = 2019-12-31\n\
                 [stages.a]\nkind = \"test-mode\"\n\
                 [stages.b]\nkind = \"test-mode\"\n{last}\n"
            );
            let file = PipelineFile::parse("p.toml", &text, &[]).unwrap();
            let additions = Additions {
                rebuild,
                ..Additions::default()
            };
            let Err(err) = Plan::draft_with(file, &registry, &additions) else {
                panic!("test-mode never configures");
            };
            let mut said: Vec<String> = err
                .errors
                .iter()
                .filter(|e| e.message.starts_with("configured as"))
                .map(|e| e.message.clone())
                .collect();
            said.dedup();
            said
        };
        assert_eq!(
            modes("incremental = true", false),
            ["configured as Incremental"]
        );
        assert_eq!(modes("incremental = true", true), ["configured as Rebuild"]);
        assert_eq!(modes("incremental = false", true), ["configured as Fresh"]);
        // An option of another type is not incremental (its stage reports it).
        assert_eq!(
            modes("incremental = \"yes\"", false),
            ["configured as Fresh"]
        );
    }

    /// What an incremental stage brings, and every stage that reads it however
    /// far down, is only what is new; a stage that reads no incremental stage
    /// (the facts) brings its whole output each run.
    #[test]
    fn only_what_reads_an_incremental_stage_brings_only_what_is_new() {
        let mut kinds = test_kinds();
        kinds.push(crate::registry::StageKind {
            name: "test-listing",
            incremental_option: Some("incremental"),
            configure: |mut table, ctx| {
                table.remove("incremental");
                (test_kinds()[0].configure)(table, ctx)
            },
            ..test_kinds().remove(0)
        });
        let text = "[pipeline]\ncutoff = 2019-12-31\n\
             [stages.listing]\nkind = \"test-listing\"\ncount = 1\nincremental = true\n\
             [stages.facts]\nkind = \"test-generate\"\ncount = 1\n\
             [stages.pages]\nkind = \"test-pass\"\ninputs = [\"listing\"]\n\
             [stages.both]\nkind = \"test-pass\"\ninputs = [\"facts\", \"pages\"]\n\
             [stages.write]\nkind = \"test-count\"\ninputs = [\"both\"]\n\
             [stages.write_facts]\nkind = \"test-count\"\ninputs = [\"facts\"]\n";
        let file = PipelineFile::parse("p.toml", text, &[]).unwrap();
        let plan = Plan::new(file, &Registry::new(kinds)).unwrap();
        for (stage, by) in [
            ("listing", Some("listing")),
            ("pages", Some("listing")),
            ("both", Some("listing")),
            ("write", Some("listing")),
            ("facts", None),
            ("write_facts", None),
            ("no-such-stage", None),
        ] {
            assert_eq!(plan.brings_only_new_by(stage), by, "{stage}");
        }
    }
}
