//! What is checked before any stage of a run starts, where a refusal leaves
//! everything as it was: the output folder, an incremental pipeline's earlier
//! nights (no sink replaces their files) and the configuration that built them
//! (its fingerprint, see [`crate::fingerprint`]).

use std::path::PathBuf;

use crate::context::{PipelineContext, RunMode};
use crate::error::StageError;
use crate::fingerprint::Fingerprint;
use crate::plan::Plan;

/// An error before any stage runs.
#[derive(Debug, thiserror::Error)]
pub enum PreflightError {
    /// The output directory cannot be created or written.
    #[error("output directory {path} is not writable: {source}")]
    OutDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A sink of an incremental pipeline would replace what an earlier run wrote.
    #[error(
        "stage `{stage}` would replace {}, which holds the records of earlier runs (its `{key}`), \
         and this pipeline is incremental (stage `{incremental}` has `incremental = true`: each \
         run brings only what is new). Set `mode = \"append\"` on stage `{stage}` to add each \
         run's records to the file, or put `{{run}}` in its `{key}` to give each run a file of its own",
        path.display()
    )]
    WouldReplace {
        /// The sink.
        stage: String,
        /// Its option that names the file.
        key: String,
        /// The file.
        path: PathBuf,
        /// The stage that makes the pipeline incremental.
        incremental: String,
    },
    /// Another run holds the output directory, or what a killed run left there
    /// cannot be removed.
    #[error(transparent)]
    Claim(#[from] crate::out_dir::ClaimError),
    /// An incremental folder was built with another configuration than this run's.
    #[error(
        "{} was built by an incremental pipeline with another configuration, and this run \
         would add records made this way to records made that way. What changed:\n  {}\n\
         Ways on: give this configuration a new `pipeline.out` (the crawl state is shared, \
         nothing is fetched again), or run it with `--rebuild` to make the whole accumulated \
         set anew from the crawl state with this configuration (it replaces what earlier \
         nights added), or put the settings back",
        out.display(),
        changes.join("\n  ")
    )]
    ConfigChanged {
        /// The output folder.
        out: PathBuf,
        /// Each setting that changed: `key: was X, now Y`.
        changes: Vec<String>,
    },
    /// A stage could not be built.
    #[error("stage `{stage}`: {source}")]
    Build {
        /// Stage name.
        stage: String,
        /// Why.
        source: StageError,
    },
}

/// The fingerprint of an incremental pipeline's configuration, refused when the
/// folder was built with another one (unless `rebuild`).
pub(crate) fn same_configuration(
    plan: &Plan,
    rebuild: bool,
    inputs: &[crate::input_files::InputFile],
) -> Result<Fingerprint, PreflightError> {
    let now = Fingerprint::of(plan, inputs);
    let out = &plan.context.out;
    let recorded = Fingerprint::recorded(out).map_err(|e| PreflightError::OutDir {
        path: out.clone(),
        source: std::io::Error::other(e),
    })?;
    if let Some(before) = recorded.filter(|_| !rebuild) {
        let changes = now.changes_since(&before);
        if !changes.is_empty() {
            return Err(PreflightError::ConfigChanged {
                out: out.clone(),
                changes,
            });
        }
    }
    Ok(now)
}

/// Claims this run's folder `runs/<run>/` and checks that no sink of what is new
/// would replace an earlier run's file (a rebuild replaces them on purpose); on a
/// refusal the (empty) folder is removed again. A sink that reads no incremental
/// stage (the facts, read whole each run) writes a snapshot, which each run
/// replaces.
pub(crate) fn keep_earlier_runs(
    plan: &Plan,
    context: &mut PipelineContext,
) -> Result<PathBuf, PreflightError> {
    let out = context.out.clone();
    let rebuild = context.mode == RunMode::Rebuild;
    let folder = context
        .run
        .claim_folder(&out)
        .map_err(|source| PreflightError::OutDir {
            path: out.join(crate::runs::RUNS_DIR),
            source,
        })?;
    // The run's own files are kept in its folder, and a path another stage names
    // as it is (`facts.jsonl`) is that stage's: a sink path like `{split}.jsonl`
    // matches them too without writing them.
    let not_its_own = |stage: &str| -> Vec<PathBuf> {
        let others = plan.stages.iter().filter(|s| s.name != stage);
        let named = others.flat_map(|s| s.config.writes());
        let named = named.filter(|(_, t)| !t.contains('{'));
        ["run.json", "rejected.jsonl"]
            .into_iter()
            .map(|name| out.join(name))
            .chain(named.map(|(_, t)| out.join(t)))
            .collect()
    };
    for stage in plan.stages.iter().filter(|_| !rebuild) {
        let Some(incremental) = plan.brings_only_new_by(&stage.name) else {
            continue;
        };
        let replaced = stage.config.replaced_files(context);
        let others = not_its_own(&stage.name);
        if let Some((key, path)) = replaced.into_iter().find(|(_, p)| !others.contains(p)) {
            let _ = std::fs::remove_dir(&folder);
            return Err(PreflightError::WouldReplace {
                stage: stage.name.clone(),
                key,
                path,
                incremental: incremental.to_string(),
            });
        }
    }
    Ok(folder)
}
