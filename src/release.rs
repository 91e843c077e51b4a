//! `[pipeline.release]`, wired into `tempora run`: a withheld part of each set
//! (`withhold`, `key`) and a monthly release (`month`, `version`, `reveal`).
//! The table is read with the file's other problems (a key that cannot be read
//! is one, before any request); the withheld part is offered to every stage
//! that writes files when the file is prepared (`crate::prepare`), and the
//! folder's commitment (`withheld.json`) is published with the sets
//! (`crate::derived`); a monthly release's folder is `crate::monthly`'s.

use std::path::PathBuf;

use tempora_engine::{ConfigError, PipelineFile};
use tempora_sink::release::{Withhold, WithholdOption};

/// The keys `[pipeline.release]` takes.
const KEYS: [&str; 5] = ["withhold", "key", "month", "version", "reveal"];

/// `[pipeline.release]`, checked.
#[derive(Debug, Clone, Default)]
pub struct ReleaseSettings {
    /// The withheld part, when the table holds one back (its `scope` the
    /// release's name in a monthly release).
    pub withhold: Option<WithholdOption>,
    /// The monthly release, when the table names a `month`.
    pub monthly: Option<Monthly>,
}

/// A monthly release as `[pipeline.release]` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Monthly {
    /// The month, `YYYY-MM` (a relative `month` is resolved before).
    pub month: String,
    /// 1 for the release, 2 and on for its corrections.
    pub version: u32,
    /// When a withheld part is revealed.
    pub reveal: Reveal,
}

impl Monthly {
    /// The release's name, its folder in the collection: `2026-11`, or
    /// `2026-11.v2` for a correction.
    pub fn name(&self) -> String {
        tempora_report::card::releases::ReleaseName {
            month: self.month.clone(),
            version: self.version,
        }
        .to_string()
    }
}

/// When a monthly release's withheld part is revealed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reveal {
    /// When the next release is made (LiveBench's practice): the newest
    /// release is the one held back.
    NextRelease,
    /// Only by `tempora reveal`.
    Never,
}

impl Reveal {
    /// As written in the table and in `release.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NextRelease => "next_release",
            Self::Never => "never",
        }
    }
}

/// The file's `[pipeline.release]`, checked; each problem is added to the
/// file's problems and its part left out.
pub fn settings(file: &mut PipelineFile) -> ReleaseSettings {
    let Some(table) = file
        .table
        .get("pipeline")
        .and_then(|p| p.get("release"))
        .cloned()
    else {
        return ReleaseSettings::default();
    };
    let mut problems = Vec::new();
    let mut problem = |key: &str, message: String| {
        problems.push(ConfigError::pipeline(&format!("release.{key}"), message));
    };
    let Some(table) = table.as_table() else {
        problem(
            "",
            "must be a table: `[pipeline.release]` with `withhold` and `key`, or `month`".into(),
        );
        file.problems.extend(problems);
        return ReleaseSettings::default();
    };
    if let Some(unknown) = table.keys().find(|k| !KEYS.contains(&k.as_str())) {
        problem(
            unknown,
            format!(
                "unknown key `{unknown}`: `[pipeline.release]` takes {}",
                KEYS.map(|k| format!("`{k}`")).join(", ")
            ),
        );
    }
    let monthly = monthly(table, &mut problem);
    let withhold = withhold(table, monthly.as_ref(), &mut problem);
    file.problems.extend(problems);
    let withhold = withhold.and_then(|option| match Withhold::load(&option) {
        Ok(_) => Some(option),
        Err(message) if message.starts_with("`withhold`") => {
            file.problems
                .push(ConfigError::pipeline("release.withhold", message));
            None
        }
        // The key file is the environment's, as an input file is: a draft
        // still shows the plan.
        Err(message) => {
            file.problems
                .push(ConfigError::pipeline("release.key", message).about_environment());
            None
        }
    });
    ReleaseSettings { withhold, monthly }
}

/// `withhold` and `key`, when the table holds a part back (a monthly release
/// need not); the share is checked with the key, by [`Withhold::load`].
fn withhold(
    table: &toml::Table,
    monthly: Option<&Monthly>,
    problem: &mut impl FnMut(&str, String),
) -> Option<WithholdOption> {
    let share = match table.get("withhold") {
        Some(toml::Value::Float(f)) => *f,
        #[allow(clippy::cast_precision_loss)]
        Some(toml::Value::Integer(i)) => *i as f64,
        Some(_) => {
            problem(
                "withhold",
                "a share of the articles to hold back, e.g. 0.2 (1: the whole release)".into(),
            );
            return None;
        }
        None if table.contains_key("key") => {
            problem(
                "withhold",
                "missing: the share of the articles to hold back, e.g. `withhold = 0.2`".into(),
            );
            return None;
        }
        None if table.contains_key("month") => return None,
        None => {
            problem(
                "withhold",
                "missing: the share of the articles to hold back, e.g. `withhold = 0.2`, or a \
                 monthly release's `month`"
                    .into(),
            );
            return None;
        }
    };
    let Some(key) = table.get("key").and_then(toml::Value::as_str) else {
        problem("key", "missing: the secret key file that chooses what is held back, e.g. `key = \"release.key\"`".into());
        return None;
    };
    Some(WithholdOption {
        share,
        key: PathBuf::from(key),
        scope: monthly.map(Monthly::name),
    })
}

/// `month`, `version` and `reveal`: a monthly release.
fn monthly(table: &toml::Table, problem: &mut impl FnMut(&str, String)) -> Option<Monthly> {
    let Some(month) = table.get("month") else {
        for key in ["version", "reveal"] {
            if table.contains_key(key) {
                problem(
                    key,
                    "only a monthly release has it: add `month` (e.g. `month = \"run_month - 1 month\"`)".into(),
                );
            }
        }
        return None;
    };
    let month = match month.as_str().filter(|m| is_month(m)) {
        Some(m) => m.to_string(),
        None => {
            problem(
                "month",
                format!(
                    "`{}` is not a month: `YYYY-MM`, or a date relative to the run \
                     (`run_month - 1 month`: the month before the run's)",
                    month
                        .as_str()
                        .map_or_else(|| month.to_string(), str::to_string)
                ),
            );
            return None;
        }
    };
    let version = match table.get("version") {
        None => 1,
        Some(toml::Value::Integer(v)) if *v >= 1 => u32::try_from(*v).unwrap_or(u32::MAX),
        Some(v) => {
            problem(
                "version",
                format!("`{v}` is not a version: 1 for the release, 2 and on for its corrections"),
            );
            return None;
        }
    };
    let reveal = match table.get("reveal").map(toml::Value::as_str) {
        None | Some(Some("next_release")) => Reveal::NextRelease,
        Some(Some("never")) => Reveal::Never,
        Some(other) => {
            problem(
                "reveal",
                format!(
                    "`{}` is not a choice: `next_release` (the withheld part is revealed when \
                     the next release is made) or `never` (only by `tempora reveal`)",
                    other.unwrap_or("?")
                ),
            );
            return None;
        }
    };
    Some(Monthly {
        month,
        version,
        reveal,
    })
}

/// Whether `text` is a month, `YYYY-MM` (a release's name of version 1).
fn is_month(text: &str) -> bool {
    use tempora_report::card::releases::ReleaseName;
    matches!(ReleaseName::parse(text), Some(Ok(name)) if name.version == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(table: &str) -> (ReleaseSettings, Vec<String>) {
        let text = format!("[pipeline]\ncutoff = 2019-12-31\n[pipeline.release]\n{table}\n");
        let mut file = PipelineFile::parse("p.toml", &text, &[]).unwrap();
        let settings = settings(&mut file);
        let problems = file.problems.iter().map(ToString::to_string).collect();
        (settings, problems)
    }

    #[test]
    fn a_month_makes_a_release_named_by_its_month_and_version() {
        let (settings, problems) = read("month = \"2026-11\"");
        assert!(problems.is_empty(), "{problems:?}");
        let monthly = settings.monthly.unwrap();
        assert_eq!(monthly.name(), "2026-11");
        assert_eq!(monthly.reveal, Reveal::NextRelease);
        assert!(settings.withhold.is_none());
        let (settings, problems) = read("month = \"2026-11\"\nversion = 2\nreveal = \"never\"");
        assert!(problems.is_empty(), "{problems:?}");
        let monthly = settings.monthly.unwrap();
        assert_eq!(
            (monthly.name(), monthly.reveal),
            ("2026-11.v2".into(), Reveal::Never)
        );
    }

    #[test]
    fn bad_months_versions_and_reveals_are_refused_with_their_key() {
        for (table, key) in [
            ("month = \"2026-13\"", "pipeline.release.month"),
            ("month = \"november\"", "pipeline.release.month"),
            (
                "month = \"2026-11\"\nversion = 0",
                "pipeline.release.version",
            ),
            (
                "month = \"2026-11\"\nreveal = \"later\"",
                "pipeline.release.reveal",
            ),
            (
                "version = 2\nwithhold = 0.2\nkey = \"k\"",
                "pipeline.release.version",
            ),
            ("key = \"k\"", "pipeline.release.withhold"),
            ("mont = \"2026-11\"", "pipeline.release.mont"),
        ] {
            let (_, problems) = read(table);
            assert!(
                problems.iter().any(|p| p.contains(key)),
                "{table}: {problems:?}"
            );
        }
    }

    #[test]
    fn a_monthly_withheld_part_is_chosen_by_the_releases_own_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("release.key");
        std::fs::write(&key, [7u8; 32]).unwrap();
        let (settings, problems) = read(&format!(
            "month = \"2026-11\"\nversion = 2\nwithhold = 1\nkey = {:?}",
            key.display().to_string()
        ));
        assert!(problems.is_empty(), "{problems:?}");
        let withhold = settings.withhold.unwrap();
        assert_eq!(withhold.scope.as_deref(), Some("2026-11.v2"));
        assert!((withhold.share - 1.0).abs() < f64::EPSILON);
    }
}
