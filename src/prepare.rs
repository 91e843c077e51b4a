//! One preparation of a pipeline file for every command that reads one
//! (`validate`, `run`, `run --dry-run`, `graph`, `rebuild`): its
//! `[pipeline.health]` and `[pipeline.release]` tables read once into their
//! types, the manifest's stages added and the release offered to every stage
//! that writes files, all planned in one pass. So what `graph` draws and
//! `--dry-run` lists is what `run` runs, and every command reports the same
//! problems.

use chrono::NaiveDate;
use tempora_engine::plan::PlannedStage;
use tempora_engine::{Additions, ConfigError, ConfigErrors, PipelineFile, Plan, RunDates};
use tempora_health::HealthSettings;
use tempora_sink::release::WithholdOption;

use crate::registry::registry;

/// A pipeline file planned with what the binary adds.
pub struct Prepared {
    /// The plan: the file's stages and the manifest's.
    pub plan: Plan,
    /// Problems of the environment (an unset variable, a missing input file or
    /// release key): shown after a draft's plan, refused by a run.
    pub problems: Vec<ConfigError>,
    /// `[pipeline.health]`, when the file has the table.
    pub health: Option<HealthSettings>,
    /// `[pipeline.release]`'s withheld part, when the file holds part of each
    /// set back.
    pub release: Option<WithholdOption>,
    /// `[pipeline.release]`'s monthly release, when the file makes one: the
    /// output folder is then the release's, in the collection.
    pub monthly: Option<crate::monthly::ReleaseFolder>,
    /// Whether the manifest's stages were added: the run then writes the
    /// manifest's inputs beside them.
    pub manifest: bool,
    /// The file as read, for the record of a refused run.
    file: PipelineFile,
    /// The run day and the dates written relative to it, as resolved on it.
    pub dates: RunDates,
}

/// A file that cannot run: every problem, and the file they are in.
pub struct Refused {
    /// Every problem, each with its key path and line.
    pub errors: ConfigErrors,
    /// The file as read.
    pub file: Box<PipelineFile>,
}

/// Prepares `file`, for a run that makes an incremental pipeline's set anew
/// when `rebuild` (`run --rebuild`): every problem of the file itself refuses
/// it; problems of the environment come back with the plan
/// ([`Prepared::problems`]).
///
/// # Errors
/// Any problem of the file itself.
pub fn prepare(file: PipelineFile, rebuild: bool) -> Result<Prepared, Refused> {
    prepare_on(file, today(), rebuild)
}

/// Today in UTC: the run day unless the command line names one (`--as-of`).
pub fn today() -> NaiveDate {
    chrono::Utc::now().date_naive()
}

/// [`prepare`] with the file's dates relative to the run resolved on `day`
/// first, so everything after reads plain dates ([`Prepared::dates`] says
/// what they became).
///
/// # Errors
/// Any problem of the file itself, an unreadable relative date among them.
pub fn prepare_on(file: PipelineFile, day: NaiveDate, rebuild: bool) -> Result<Prepared, Refused> {
    prepare_at(file, day, rebuild, true)
}

/// [`prepare_on`]; with `follow`, a monthly release whose earlier attempt did
/// not publish is prepared again on the day that attempt resolved its dates on,
/// so finishing it another day makes the same release.
fn prepare_at(
    mut file: PipelineFile,
    day: NaiveDate,
    rebuild: bool,
    follow: bool,
) -> Result<Prepared, Refused> {
    let unresolved = file.clone();
    let dates = file.resolve_dates(day);
    let health = crate::health::settings(&mut file);
    let crate::release::ReleaseSettings {
        withhold: release,
        monthly,
    } = crate::release::settings(&mut file);
    let mut recorded = None;
    let monthly = monthly.map(|m| {
        let share = release.as_ref().map(|r| r.share);
        let folder = crate::monthly::place(&mut file, &m, share, dates.run_day);
        match crate::monthly::check(&folder) {
            Ok(attempt) => recorded = attempt.filter(|d| *d != day),
            Err(refused) => file.problems.push(
                ConfigError::pipeline("release.month", refused.to_string()).about_environment(),
            ),
        }
        // Said once, not again when prepared on a recorded day.
        let others = if follow {
            crate::monthly::unpublished(&folder)
        } else {
            Vec::new()
        };
        for line in others {
            eprintln!("warning: {line}");
        }
        folder
    });
    if let (Some(recorded), Some(folder), true) = (recorded, &monthly, follow) {
        eprintln!(
            "note: release {} was first attempted on {recorded} without being published: \
             its dates are resolved on that day again",
            folder.monthly.name()
        );
        return prepare_at(unresolved, recorded, rebuild, false);
    }
    let added = std::cell::Cell::new(false);
    let add = |stages: &[PlannedStage]| {
        let table = tempora_manifest::attach::stages(stages);
        added.set(!table.is_empty());
        table
    };
    let additions = Additions {
        release: release.as_ref().map(|r| r as &dyn std::any::Any),
        stages: Some(&add),
        rebuild,
    };
    match Plan::draft_with(file.clone(), &registry(), &additions) {
        Ok((plan, problems)) => Ok(Prepared {
            plan,
            problems,
            health,
            release,
            monthly,
            manifest: added.get(),
            file,
            dates,
        }),
        Err(errors) => Err(Refused {
            errors,
            file: Box::new(file),
        }),
    }
}

/// Loads and prepares the file at `path` with `overrides` (`--set`), as
/// [`prepare_on`] on the run day `as_of`, else today.
///
/// # Errors
/// The file cannot be read or is not TOML (no file to record then), or any
/// problem of the file itself.
pub fn load(
    path: &std::path::Path,
    overrides: &[String],
    as_of: Option<NaiveDate>,
    rebuild: bool,
) -> Result<Prepared, Refusal> {
    let file = PipelineFile::load(path, overrides).map_err(Refusal::Unread)?;
    prepare_on(file, as_of.unwrap_or_else(today), rebuild).map_err(Refusal::Refused)
}

/// Why a file named on the command line does not run.
pub enum Refusal {
    /// It cannot be read, or is not TOML.
    Unread(ConfigErrors),
    /// It has problems.
    Refused(Refused),
}

impl Refusal {
    /// Every problem.
    pub fn errors(&self) -> &ConfigErrors {
        match self {
            Self::Unread(errors) | Self::Refused(Refused { errors, .. }) => errors,
        }
    }
}

impl Prepared {
    /// For a command that runs: the plan, refused while any problem is left.
    ///
    /// # Errors
    /// The environment's problems.
    pub fn runnable(self) -> Result<Self, Refused> {
        if self.problems.is_empty() {
            return Ok(self);
        }
        Err(Refused {
            errors: ConfigErrors {
                file: self.plan.file,
                errors: self.problems,
            },
            file: Box::new(self.file),
        })
    }
}
