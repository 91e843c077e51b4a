//! `tempora harness SET_DIR --out DIR`: the sets of a folder as
//! lm-evaluation-harness tasks, written by `tempora_score::harness::task`.

use std::path::{Path, PathBuf};

use tempora_engine::UsageError;
use tempora_score::harness::task::{self, Export, Options, Prompt, SetInput};

use crate::exit::{Failure, Outcome};

/// Write an lm-evaluation-harness task per set of a folder (a YAML each, reading
/// the set's own file), and a group of them all, so a model's summaries come from
/// the harness (`--log_samples`) and `tempora score` judges them.
#[derive(Debug, clap::Args)]
pub struct HarnessArgs {
    /// The set folder (`out/demo`): its sets as `tempora score` finds them.
    #[arg(value_name = "SET_DIR")]
    pub set: PathBuf,
    /// The folder to write the YAML files to (created if missing); give it to the
    /// harness as `--include_path`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The tasks' names start with it and it names their group (default:
    /// `tempora_` and the set folder's name): `PREFIX_future`, ...
    #[arg(long = "name", value_name = "PREFIX")]
    pub name: Option<String>,
    /// A file holding the prompt: a Jinja template over the set's columns, such as
    /// `Summarize: {{document}}` (default: a one-sentence summary of `document`).
    #[arg(long, value_name = "FILE")]
    pub prompt: Option<PathBuf>,
    /// The most tokens the model generates per summary.
    #[arg(long, value_name = "N", default_value_t = task::DEFAULT_MAX_GEN_TOKS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_gen_toks: u32,
    /// Where generation stops (default: a blank line, which ends a base model's
    /// answer); may be given again.
    #[arg(long, value_name = "TEXT", conflicts_with = "no_until")]
    pub until: Vec<String>,
    /// No stop string (`until: []`): generation ends at the model's end of
    /// sequence, or `--max-gen-toks`. For instruction-tuned models, run with
    /// `--apply_chat_template`: the harness cuts an answer at the first stop
    /// string, and a chat answer may open with a blank line ("Here is a
    /// summary:", a blank line, the summary), which the default would cut to
    /// nothing or that preamble, scored as a summary with no claim.
    #[arg(long)]
    pub no_until: bool,
}

/// Runs `tempora harness`: writes the files and prints them, with the command
/// lines that run and score the tasks.
///
/// # Errors
/// Bad usage (no such set folder, a folder with no set file, `--out` a file, a bad
/// `--name`, an empty `--until`, a prompt that is empty or names no column); a set
/// that cannot be read; a file of the same name that `tempora harness` did not
/// write for this folder; a file that cannot be written.
pub fn run(args: &HarnessArgs) -> Outcome {
    super::output_folder(&args.set)?;
    if args.out.exists() && !args.out.is_dir() {
        return Err(UsageError::new(format!(
            "--out {}: is a file, not a folder: give the folder to write the tasks to",
            args.out.display()
        ))
        .into());
    }
    let options = options(args)?;
    let folder = canonical(&args.set)?;
    let sets = sets_of(&folder)?;
    let created = !args.out.exists();
    std::fs::create_dir_all(&args.out).map_err(|e| {
        Failure::Failed(anyhow::anyhow!(
            "{}: cannot create: {e}",
            args.out.display()
        ))
    })?;
    let written = canonical(&args.out).and_then(|out| export(&folder, &out, &sets, &options));
    if written.is_err() && created {
        // Only the folder made here, still empty, is removed.
        let _ = std::fs::remove_dir(&args.out);
    }
    let (export, written, out) = written?;
    tell(&export, &written, (&out, &folder), &options.until);
    Ok(())
}

/// The files of `sets` exported from `folder` and written to `out` (both
/// canonical): what was exported, the paths written and `out`.
fn export(
    folder: &Path,
    out: &Path,
    sets: &[SetInput],
    options: &Options,
) -> Outcome<(Export, Vec<PathBuf>, PathBuf)> {
    let usage = |e: tempora_score::ScoreError| match e {
        tempora_score::ScoreError::File { .. } => Failure::Usage(e.into()),
        e => Failure::Failed(e.into()),
    };
    let export = task::export(folder, out, sets, options).map_err(usage)?;
    task::check_out(out, folder, &export).map_err(usage)?;
    let written = task::write(out, &export).map_err(|e| Failure::Failed(e.into()))?;
    Ok((export, written, out.to_path_buf()))
}

/// The options the files hold, checked.
fn options(args: &HarnessArgs) -> Outcome<Options> {
    let prompt = match &args.prompt {
        Some(file) => Prompt::read(file).map_err(|e| Failure::Usage(e.into()))?,
        None => Prompt::default(),
    };
    if args.until.iter().any(String::is_empty) {
        return Err(UsageError::new(
            "--until is empty: give the text that ends a summary".to_string(),
        )
        .into());
    }
    let until = if args.no_until {
        Vec::new()
    } else if args.until.is_empty() {
        vec![task::DEFAULT_UNTIL.to_string()]
    } else {
        args.until.clone()
    };
    let prefix = match &args.name {
        Some(name) => {
            task::check_prefix(name).map_err(|e| UsageError::new(format!("--name: {e}")))?;
            name.clone()
        }
        None => task::default_prefix(&canonical(&args.set)?),
    };
    Ok(Options {
        prefix,
        prompt,
        max_gen_toks: args.max_gen_toks,
        until,
        made_by: format!("tempora {}", env!("CARGO_PKG_VERSION")),
    })
}

/// `path`, absolute and canonical (the harness reads a relative path from its
/// own working folder).
fn canonical(path: &Path) -> Outcome<PathBuf> {
    std::fs::canonicalize(path)
        .map_err(|e| Failure::Failed(anyhow::anyhow!("{}: {e}", path.display())))
}

/// The sets of `folder`, as `tempora score` finds them; a folder with none (a
/// published one: the manifest without the text) is bad usage, with the way out.
fn sets_of(folder: &Path) -> Outcome<Vec<SetInput>> {
    let found = match tempora_report::read::discover(folder) {
        Ok(found) => found,
        Err(tempora_report::ReportError::NoSets { .. }) => {
            let manifest = folder.join("manifest.jsonl");
            let hint = if manifest.is_file() {
                format!(
                    ": it holds the manifest without the articles' text (a published folder); \
                     rebuild the sets first: `tempora rebuild {} --out DIR`, then `tempora harness DIR`",
                    manifest.display()
                )
            } else {
                String::new()
            };
            return Err(UsageError::new(format!(
                "{}: no set file (JSONL or Parquet whose records have `summary` and `document`){hint}",
                folder.display()
            ))
            .into());
        }
        Err(e) => {
            return Err(Failure::Failed(
                anyhow::Error::new(e).context(format!("set {}", folder.display())),
            ))
        }
    };
    Ok(found
        .sets
        .into_iter()
        .map(|s| SetInput {
            name: s.name,
            path: s.path,
        })
        .collect())
}

/// Prints each file written, the sets left out, and the command lines (for
/// tasks of no stop string, `until`, with the chat template).
fn tell(export: &Export, written: &[PathBuf], (out, folder): (&Path, &Path), until: &[String]) {
    for task in &export.tasks {
        println!(
            "{}: {} articles from {}",
            task.name,
            task.articles,
            task.data_file.display()
        );
    }
    for set in &export.empty {
        eprintln!("{set}: no article, no task written (the harness runs no task of no document)");
    }
    let group = export.group.as_ref().map_or("", |g| g.name.as_str());
    println!("wrote {} files to {}", written.len(), out.display());
    println!(
        "run:   lm-eval run --model hf --model_args pretrained=MODEL{} --tasks {group} \
         --include_path {} --output_path OUT --log_samples",
        task::chat_option(until),
        task::shell_word(out)
    );
    println!(
        "score: tempora score {} --predictions OUT/<model>/samples_{group}_*.jsonl",
        task::shell_word(folder)
    );
}
