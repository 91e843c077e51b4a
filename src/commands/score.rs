//! `tempora score`: a model's summaries judged claim by claim against the facts at
//! each article's date, with the judge of `tempora_score`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use tempora_engine::UsageError;
use tempora_relations::Catalogue;
use tempora_score::bootstrap::Bootstrap;
use tempora_score::inputs::FactsFile;
use tempora_score::job::{self, SetPart, SystemPredictions, REFERENCE};
use tempora_score::predictions::{self, Columns, Dates, ReadFile};
use tempora_score::tables::{Summary, ALL_SETS};
use tempora_score::Judge;

use crate::exit::{self, Failure, Outcome};

/// Judge every office-holder claim ("President Joe Biden") in a model's summaries
/// against the facts at each article's date: current, outdated, former, not_yet,
/// never or unknown.
///
/// With SET_DIR (a set's output folder), predictions are joined by `id` to its
/// articles (dates and facts from the set's files) and the set's own summaries are
/// scored as the system `reference`. Without it, give `--facts`; every prediction
/// then carries its `published` date (YYYY-MM-DD), and a `document` if it has one.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// A set's output folder (`out/demo`): its article files (`future.jsonl`, ...),
    /// and its `facts.jsonl` unless `--facts` is given.
    #[arg(value_name = "SET_DIR")]
    pub set: Option<PathBuf>,
    /// The systems' summaries: JSON lines, CSV, TSV or Parquet (by extension), with
    /// the columns `id` and `summary`; or lm-evaluation-harness samples files
    /// (`--log_samples`: `samples_<task>_<date>.jsonl`, known by their lines), each
    /// document's `doc.id` with its first filtered response. Takes several files
    /// (`--predictions preds/*`), and may be given again.
    #[arg(long = "predictions", value_name = "FILE", num_args = 1..)]
    pub predictions: Vec<PathBuf>,
    /// The system name of each predictions file, in the same order (default: for
    /// harness samples, the model the run's results file names, else the name of
    /// their folder, which the harness names after the model; else the file's
    /// stem). Files of one name are one system (one samples file per task). Takes
    /// several names, and may be given again.
    #[arg(long = "system", value_name = "NAME", num_args = 1..)]
    pub systems: Vec<String>,
    /// The facts (JSON lines or Parquet, as `tempora facts` or a pipeline's
    /// `facts.jsonl` writes them). Default with SET_DIR: its `facts.jsonl`, else its
    /// `manifest.facts.jsonl`.
    #[arg(long, value_name = "FILE")]
    pub facts: Option<PathBuf>,
    /// Where to write `scores.jsonl`, `scores.parquet`, `summary.json` and
    /// `scores.md` (default: SET_DIR/scores, or ./scores without a set).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The id column of the predictions.
    #[arg(long, value_name = "NAME", default_value = "id")]
    pub id_column: String,
    /// The summary column of the predictions.
    #[arg(long, value_name = "NAME", default_value = "summary")]
    pub summary_column: String,
    /// The publication date column (YYYY-MM-DD), read without SET_DIR.
    #[arg(long, value_name = "NAME", default_value = "published")]
    pub published_column: String,
    /// The article text column, read when present (a surname counts for the person
    /// the article names in full).
    #[arg(long, value_name = "NAME", default_value = "document")]
    pub document_column: String,
    /// Do not score the set's own summaries as the system `reference`.
    #[arg(long)]
    pub no_reference: bool,
    /// Bootstrap resamples for each rate's and each difference's 95 % interval
    /// (over articles, percentile); 0 for no interval, at most 1,000,000.
    #[arg(long, value_name = "N", default_value_t = tempora_score::bootstrap::RESAMPLES,
          value_parser = clap::value_parser!(u32).range(..=1_000_000))]
    pub resamples: u32,
    /// The bootstrap's seed: the same seed, the same intervals.
    #[arg(long, value_name = "N", default_value_t = tempora_score::bootstrap::SEED)]
    pub seed: u64,
    /// A folder of more relation catalogue entries (`*.toml`), beside the
    /// shipped ones: a relation it declares is judged by its role words.
    #[arg(long, value_name = "DIR")]
    pub catalogue: Option<PathBuf>,
}

/// Runs `tempora score`: exit 0, or 23 when a prediction's id is not in the set
/// or an article of the set has no prediction (each listed in `summary.json`,
/// counted on stderr).
///
/// # Errors
/// Bad usage (no such set folder, no set and no facts, system names that do not
/// pair with the files);
/// a file that cannot be read or a line that is not what it must be (naming file,
/// line and field); an output that cannot be written.
pub fn run(args: &ScoreArgs) -> Outcome<ExitCode> {
    if let Some(dir) = &args.set {
        super::output_folder(dir)?;
    }
    no_folder_in_predictions(args)?;
    check_names(args)?;
    let facts_path = facts_file(args)?;
    let read = read_predictions(args)?;
    let facts = job::read_facts(&facts_path).map_err(failed)?;
    let catalogue = Catalogue::load(args.catalogue.as_deref()).context("--catalogue")?;
    let judge = Judge::with_catalogue(&facts, catalogue).map_err(failed)?;
    let stats = judge.stats();
    tracing::info!(
        facts = facts.len(),
        people = stats.people,
        offices = stats.offices,
        patterns = stats.patterns,
        "facts indexed"
    );
    let (scored, sets, out) = match &args.set {
        Some(dir) => {
            let parts = set_parts(dir)?;
            let articles = job::read_set(&parts).map_err(failed)?;
            job::refuse_foreign_samples(&articles, &read).map_err(failed)?;
            let scored = job::score_set(&judge, &articles, &read, !args.no_reference);
            let sets = job::set_files(&parts, dir).map_err(failed)?;
            let out = args.out.clone();
            (
                scored,
                sets,
                out.unwrap_or_else(|| dir.join(job::SCORES_DIR)),
            )
        }
        None => {
            let out = args.out.clone();
            let scored = job::score_dated(&judge, &read);
            (
                scored,
                Vec::new(),
                out.unwrap_or_else(|| job::SCORES_DIR.into()),
            )
        }
    };
    let facts_file =
        FactsFile::of(&facts_path, args.set.as_deref(), facts.len() as u64).map_err(failed)?;
    let bootstrap = Bootstrap::new(args.resamples, args.seed);
    let summary = job::summarize(&scored, &facts_file, &sets, bootstrap.as_ref());
    job::write(&out, &scored, &summary).map_err(failed)?;
    if let Some(dir) = &args.set {
        tempora_report::scores::remove_charts(dir).map_err(|e| {
            let charts = dir.join(tempora_report::CHARTS_DIR);
            Failure::Failed(anyhow::anyhow!(
                "{}: cannot remove the earlier scores' charts: {e}",
                charts.display()
            ))
        })?;
    }
    Ok(tell(&summary, &out))
}

/// Reads each predictions file and names its system: the files of one name are
/// one system. Says on stderr which line of a harness samples file was scored
/// for a document logged more than once, and warns of its empty responses when
/// its task had stop strings (which may have cut them).
fn read_predictions(args: &ScoreArgs) -> Outcome<Vec<SystemPredictions>> {
    let columns = Columns {
        id: args.id_column.clone(),
        summary: args.summary_column.clone(),
        published: args.published_column.clone(),
        document: args.document_column.clone(),
    };
    let dates = if args.set.is_some() {
        Dates::FromSet
    } else {
        Dates::Required
    };
    let mut named = Vec::with_capacity(args.predictions.len());
    for (i, path) in args.predictions.iter().enumerate() {
        let file = predictions::read_file(path, &columns, dates).map_err(failed)?;
        let name = system_name(args, i, &file)?;
        if let Some(harness) = &file.harness {
            let shown = path.display().to_string();
            if let Some(note) = harness.note(&shown) {
                eprintln!("{note}");
            }
            if let Some(warning) = harness.stop_warning(&shown) {
                eprintln!("warning: {warning}");
            }
        }
        named.push((name, file));
    }
    SystemPredictions::group(named).map_err(failed)
}

/// The system name of the `i`th predictions file: its `--system`, else for
/// samples the model the harness's results file names, else their folder (with a
/// warning); else the file's stem.
fn system_name(args: &ScoreArgs, i: usize, file: &ReadFile) -> Outcome<String> {
    let name = match args.systems.get(i) {
        Some(name) => name.clone(),
        None => {
            let (name, warning) = predictions::default_system(file);
            if let Some(warning) = warning {
                eprintln!("warning: {warning}");
            }
            name
        }
    };
    if name == REFERENCE {
        return Err(UsageError::new(format!(
            "`{REFERENCE}` names the set's own summaries, the leaderboard's control: give {} another `--system` name",
            file.path.display()
        ))
        .into());
    }
    Ok(name)
}

/// Prints the rows (stdout) and what was not scored (stderr): exit 0, or 23 when
/// a prediction named no article or an article had no prediction.
fn tell(summary: &Summary, out: &Path) -> ExitCode {
    for row in &summary.rows {
        println!("{}", row.line());
    }
    println!("wrote {}", out.display());
    warn_empty(summary);
    let all_in = out.join(job::SUMMARY_JSON);
    for unmatched in &summary.unmatched {
        let ids: Vec<String> = unmatched
            .ids
            .iter()
            .map(|(line, id)| format!("{id} (line {line})"))
            .collect();
        eprintln!(
            "{}: {} predictions with an id the set does not hold, not scored: {} (all in {})",
            unmatched.file,
            unmatched.count,
            first_few(&ids),
            all_in.display()
        );
    }
    for missing in &summary.missing {
        eprintln!(
            "{} (system `{}`): no prediction for {} of the set's {} articles, not scored: {} (all in {})",
            missing.file,
            missing.system,
            missing.count,
            missing.of,
            first_few(&missing.ids),
            all_in.display()
        );
    }
    if summary.unmatched.is_empty() && summary.missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        exit::partial()
    }
}

/// A `warning:` line per system with empty summaries, which count as
/// summaries with no claim, so no outdated one: a model that generated nothing,
/// or a stop string that cut its whole answer, would look faultless.
fn warn_empty(summary: &Summary) {
    let mut systems: Vec<&str> = summary.rows.iter().map(|r| r.system.as_str()).collect();
    systems.dedup();
    for system in systems {
        let mine = summary.rows.iter().filter(|r| r.system == system);
        let whole = mine.clone().find(|r| r.set == ALL_SETS);
        let (empty, of) = match whole {
            Some(row) => (row.empty, row.summaries),
            None => mine.fold((0, 0), |(e, n), r| (e + r.empty, n + r.summaries)),
        };
        if empty > 0 {
            eprintln!(
                "warning: `{system}`: {empty} of its {of} summaries are empty, scored as summaries with no claim (a model that generated nothing, or a stop string that cut its whole answer)"
            );
        }
    }
}

/// The first five of `items`, then `...` if there are more.
fn first_few(items: &[String]) -> String {
    let shown = items[..items.len().min(5)].join(", ");
    if items.len() > 5 {
        format!("{shown}, ...")
    } else {
        shown
    }
}

fn failed(e: tempora_score::ScoreError) -> Failure {
    Failure::Failed(e.into())
}

/// `--predictions` and `--system` take every argument after them: a set folder
/// put there is named, not read as a file or taken for a system's name.
fn no_folder_in_predictions(args: &ScoreArgs) -> Outcome {
    let folder = |option: &str, folder: &Path| {
        Err(UsageError::new(format!(
            "{} is a folder, not a {option}: give the set folder before `--predictions` and `--system` (which take every argument after them)",
            folder.display()
        ))
        .into())
    };
    if let Some(dir) = args.predictions.iter().find(|p| p.is_dir()) {
        return folder("predictions file", dir);
    }
    if args.set.is_none() {
        if let Some(dir) = args.systems.iter().map(Path::new).find(|p| p.is_dir()) {
            return folder("system's name", dir);
        }
    }
    Ok(())
}

/// Predictions (or a set) are given, and `--system` names (if any) pair with the
/// files.
fn check_names(args: &ScoreArgs) -> Result<(), Failure> {
    if args.set.is_none() && args.predictions.is_empty() {
        return Err(UsageError::new(
            "give predictions (`--predictions FILE`), and a set folder or `--facts`".to_string(),
        )
        .into());
    }
    if !args.systems.is_empty() && args.systems.len() != args.predictions.len() {
        return Err(UsageError::new(format!(
            "{} `--system` names for {} `--predictions` files: give one per file, in order, or none",
            args.systems.len(),
            args.predictions.len()
        ))
        .into());
    }
    Ok(())
}

/// The facts file: `--facts`, or the set folder's.
fn facts_file(args: &ScoreArgs) -> Result<PathBuf, Failure> {
    if let Some(path) = &args.facts {
        return Ok(path.clone());
    }
    let Some(dir) = &args.set else {
        return Err(UsageError::new(
            "without a set folder, give the facts: `--facts FILE` (`tempora facts -o FILE.jsonl`)"
                .to_string(),
        )
        .into());
    };
    ["facts.jsonl", "manifest.facts.jsonl", "facts.parquet"]
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            UsageError::new(format!(
                "{}: no facts.jsonl or manifest.facts.jsonl: give the facts with `--facts FILE`",
                dir.display()
            ))
            .into()
        })
}

/// The article files of a set folder, as `tempora report` finds them.
fn set_parts(dir: &Path) -> Result<Vec<SetPart>, Failure> {
    let found = tempora_report::read::discover(dir).map_err(|e| {
        Failure::Failed(anyhow::Error::new(e).context(format!("set {}", dir.display())))
    })?;
    Ok(found
        .sets
        .into_iter()
        .map(|s| SetPart {
            name: s.name,
            path: s.path,
        })
        .collect())
}
