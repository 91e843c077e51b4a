//! Building a run's topology from its [`Plan`], before anything runs: the
//! checks that can refuse a run (output folder, an incremental folder's earlier
//! runs and configuration), every stage built from its configuration, and the
//! bounded channels that connect each output port to its consumers' inputs and
//! side inputs. [`crate::runtime`] runs what this builds.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;

use crate::context::{PipelineContext, RunMode};
use crate::fingerprint::Fingerprint;
use crate::input_files::{self, InputFile, NamedInput};
use crate::out_dir::{check_writable, OutDir};
use crate::plan::{Plan, PlannedStage};
use crate::preflight::{keep_earlier_runs, same_configuration, PreflightError};
use crate::run_options::RunOptions;
use crate::run_report::{RunReport, StageFailure};
use crate::runs::RunId;
use crate::stage::{Message, OutPort, Stage};

/// What the checks before a run found and claimed.
pub(crate) struct Prepared {
    /// The plan's context naming this run (its folder claimed).
    pub(crate) context: PipelineContext,
    /// The output folder, held until the run has written its last file.
    pub(crate) out_dir: OutDir,
    /// `runs/<run>/` of an incremental pipeline, where this run's records go.
    pub(crate) run_folder: Option<PathBuf>,
    /// `runs/<run>/` of a pipeline that makes its outputs anew and is reviewed:
    /// where a copy of this run's `run.json` goes, for the next runs' review.
    pub(crate) history_folder: Option<PathBuf>,
    /// The input files stage options name.
    pub(crate) reads: Vec<NamedInput>,
    /// Their description, when an incremental pipeline took it before starting.
    pub(crate) described: Option<Vec<InputFile>>,
    /// An incremental pipeline's configuration, published with its outputs.
    pub(crate) fingerprint: Option<Fingerprint>,
}

/// Checks that the run may start and claims its folders: the output folder is
/// writable and not in use, and an incremental pipeline's earlier runs are kept
/// and were built with this configuration (unless the plan rebuilds them). Names
/// the run (`started_at`) in a copy of the plan's context.
///
/// # Errors
/// See [`PreflightError`]; nothing is claimed then.
pub(crate) fn prepare(
    plan: &Plan,
    started_at: DateTime<Utc>,
    reviewed: bool,
) -> Result<Prepared, PreflightError> {
    let out = plan.context.out.clone();
    check_writable(&out).map_err(|source| PreflightError::OutDir {
        path: out.clone(),
        source,
    })?;
    let out_dir = OutDir::claim(&out)?;
    let mut context = PipelineContext {
        run: RunId::new(started_at),
        ..plan.context.clone()
    };
    let rebuild = context.mode == RunMode::Rebuild;
    // An incremental pipeline adds to its folder, unless it is rebuilt.
    let incremental = plan.incremental_stage().map(str::to_string);
    let run_folder = match &incremental {
        Some(_) => Some(keep_earlier_runs(plan, &mut context)?),
        None => None,
    };
    // A pipeline that makes its outputs anew keeps a history only to be reviewed.
    let history_folder = match (&run_folder, reviewed) {
        (None, true) => {
            Some(
                context
                    .run
                    .claim_folder(&out)
                    .map_err(|source| PreflightError::OutDir {
                        path: out.join(crate::runs::RUNS_DIR),
                        source,
                    })?,
            )
        }
        _ => None,
    };
    let reads = input_files::named_by(plan);
    // An incremental pipeline fingerprints its input files before it starts;
    // run.json records the same description.
    let described = incremental.as_ref().map(|_| input_files::describe(&reads));
    let fingerprint = match (&described, &run_folder) {
        (Some(inputs), Some(folder)) => match same_configuration(plan, rebuild, inputs) {
            Ok(fingerprint) => Some(fingerprint),
            Err(refused) => {
                let _ = std::fs::remove_dir(folder);
                return Err(refused);
            }
        },
        _ => None,
    };
    Ok(Prepared {
        context,
        out_dir,
        run_folder,
        history_folder,
        reads,
        described,
        fingerprint,
    })
}

/// Builds every stage of `plan` from its configuration, in plan order.
///
/// # Errors
/// The first stage that cannot be built; `run.json` then records what would have
/// run and why it did not (nothing ran).
pub(crate) fn build_stages(
    plan: &Plan,
    options: &RunOptions,
    prepared: &Prepared,
    started_at: DateTime<Utc>,
    start: Instant,
) -> Result<Vec<Box<dyn Stage>>, PreflightError> {
    let mut stages = Vec::with_capacity(plan.stages.len());
    for planned in &plan.stages {
        match planned.config.build(&prepared.context) {
            Ok(stage) => stages.push(stage),
            Err(source) => {
                let stage = planned.name.clone();
                let mut report = RunReport::of_plan(plan, &prepared.context, options, started_at);
                report.error = Some(StageFailure {
                    stage: Some(stage.clone()),
                    message: source.to_string(),
                    domain: source.domain(),
                });
                report.inputs = prepared
                    .described
                    .clone()
                    .unwrap_or_else(|| input_files::describe(&prepared.reads));
                report.close(start, &plan.context.out);
                return Err(PreflightError::Build { stage, source });
            }
        }
    }
    Ok(stages)
}

/// The channels between stages: one input channel per consumer (every producer
/// it reads sends into it), one per side input, and each output port's senders.
pub(crate) struct Wiring {
    /// Records per message (a batch).
    pub(crate) batch_size: usize,
    inputs: Vec<Option<mpsc::Receiver<Message>>>,
    sides: Vec<HashMap<String, mpsc::Receiver<Message>>>,
    senders: HashMap<(usize, String), Vec<mpsc::Sender<Message>>>,
}

impl Wiring {
    /// The channels of `plan`, each bounded to its consumer's `channel_capacity`
    /// records.
    pub(crate) fn new(plan: &Plan) -> Self {
        let batch_size = (plan.context.channel_capacity / 2).clamp(1, 1024);
        let index: HashMap<&str, usize> = plan
            .stages
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        let slots = |s: &PlannedStage| (s.channel_capacity / batch_size).max(1);
        let mut wiring = Self {
            batch_size,
            inputs: Vec::new(),
            sides: Vec::new(),
            senders: HashMap::new(),
        };
        for (c, s) in plan.stages.iter().enumerate() {
            let input = (!s.inputs.is_empty()).then(|| mpsc::channel(slots(s)));
            for from in &s.inputs {
                if let (Some(&p), Some((tx, _))) = (index.get(from.stage.as_str()), &input) {
                    wiring.sender(p, &from.port, tx.clone());
                }
            }
            wiring.inputs.push(input.map(|(_, rx)| rx));
            let mut sides = HashMap::new();
            for (side, from) in &s.side_inputs {
                let (tx, rx) = mpsc::channel(slots(s));
                if let Some(&p) = index.get(from.stage.as_str()) {
                    wiring.sender(p, &from.port, tx);
                }
                sides.insert(side.key.clone(), rx);
            }
            wiring.sides.push(sides);
            debug_assert_eq!(wiring.inputs.len(), c + 1);
        }
        wiring
    }

    fn sender(&mut self, producer: usize, port: &str, tx: mpsc::Sender<Message>) {
        self.senders
            .entry((producer, port.to_string()))
            .or_default()
            .push(tx);
    }

    /// Stage `i`'s input (none for a source).
    pub(crate) fn take_input(&mut self, i: usize) -> Option<mpsc::Receiver<Message>> {
        self.inputs.get_mut(i).and_then(Option::take)
    }

    /// Stage `i`'s side inputs, by key.
    pub(crate) fn take_sides(&mut self, i: usize) -> HashMap<String, mpsc::Receiver<Message>> {
        self.sides
            .get_mut(i)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Stage `i`'s output ports, each with the senders of its consumers.
    pub(crate) fn take_ports(
        &mut self,
        i: usize,
        planned: &PlannedStage,
    ) -> Vec<(String, OutPort)> {
        planned
            .outputs
            .iter()
            .map(|port| {
                let senders = self
                    .senders
                    .remove(&(i, port.name.clone()))
                    .unwrap_or_default();
                (
                    port.name.clone(),
                    OutPort {
                        senders,
                        buffer: Vec::with_capacity(self.batch_size),
                    },
                )
            })
            .collect()
    }
}
