//! `[pipeline.health]`: how many earlier runs a run is compared with, and how far
//! a figure must move to be a finding.

use serde::{Deserialize, Serialize};

/// The `[pipeline.health]` table; every key has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HealthSettings {
    /// `false`: runs are not checked.
    pub enabled: bool,
    /// How many of the latest earlier runs a run is compared with (two weeks of
    /// nights: every weekday twice).
    pub runs: usize,
    /// A figure that fewer earlier runs have is not judged.
    pub min_runs: usize,
    /// A count (articles, captures listed) is a finding when it falls below what
    /// the earlier runs lead to expect divided by this; page requests per kept
    /// article when it rises above the earlier runs' median times this. 3: a
    /// holiday or a weekend (about half an ordinary day) is no finding, a section
    /// gone or a layout no profile reads is.
    pub factor: f64,
    /// A share (pages rejected for a reason, summaries from a source, pages
    /// failed) is a finding when it moves by more than this from the earlier runs'
    /// median (0.2: twenty points).
    pub share_change: f64,
    /// ...and by more than this many standard deviations of chance (Poisson for
    /// counts, binomial for shares), so a small run (a retry an hour after the
    /// night's) raises nothing on a handful of pages.
    pub sigmas: f64,
}

impl Default for HealthSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            runs: 14,
            min_runs: 5,
            factor: 3.0,
            share_change: 0.2,
            sigmas: 3.0,
        }
    }
}

impl HealthSettings {
    /// What is wrong with settings of the right types (the binary reads the
    /// `[pipeline.health]` table into them with the engine's located options):
    /// each key and why.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let settings = self;
        let mut problems = Vec::new();
        let mut problem = |key: &'static str, message: String| problems.push((key, message));
        if settings.runs == 0 {
            problem("runs", "must be at least 1 earlier run".into());
        }
        if settings.min_runs == 0 || settings.min_runs > settings.runs {
            problem(
                "min_runs",
                format!("must be between 1 and `runs` ({})", settings.runs),
            );
        }
        if settings.factor.is_nan() || settings.factor <= 1.0 {
            problem("factor", format!("must be above 1, is {}", settings.factor));
        }
        if settings.share_change.is_nan()
            || settings.share_change <= 0.0
            || settings.share_change >= 1.0
        {
            problem(
                "share_change",
                format!(
                    "must be between 0 and 1 (a share), is {}",
                    settings.share_change
                ),
            );
        }
        if settings.sigmas.is_nan() || settings.sigmas < 0.0 {
            problem(
                "sigmas",
                format!("must be 0 or more, is {}", settings.sigmas),
            );
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str) -> Result<HealthSettings, toml::de::Error> {
        toml::from_str(text)
    }

    #[test]
    fn defaults_fill_what_the_table_does_not_say() {
        assert_eq!(settings("").unwrap(), HealthSettings::default());
        let s = settings("runs = 28\nfactor = 4.0").unwrap();
        assert!(s.problems().is_empty());
        assert_eq!((s.runs, s.factor, s.min_runs), (28, 4.0, 5));
    }

    #[test]
    fn each_bad_value_is_named_by_its_key() {
        let s = settings("runs = 3\nmin_runs = 4\nfactor = 0.5\nshare_change = 2.0").unwrap();
        let problems = s.problems();
        let keys: Vec<_> = problems.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["min_runs", "factor", "share_change"], "{problems:?}");
        let err = settings("run = 3").unwrap_err();
        assert!(err.message().contains("unknown field `run`"), "{err:?}");
    }
}
