//! A withheld part of each set (`[pipeline.release]`), wired into `tempora run`:
//! the table read with the file's other problems (a key that cannot be read is
//! one, before any request), offered to every stage that writes files when the
//! file is prepared (`crate::prepare`); the folder's commitment
//! (`withheld.json`) is published with the sets (`crate::derived`).

use std::path::PathBuf;

use tempora_engine::{ConfigError, PipelineFile};
use tempora_sink::release::{Withhold, WithholdOption};

/// The file's `[pipeline.release]`, checked (its key read); a problem is added to
/// the file's problems and the release left out.
pub fn settings(file: &mut PipelineFile) -> Option<WithholdOption> {
    let table = file.table.get("pipeline")?.get("release")?.clone();
    let mut problem = |key: &str, message: String| {
        file.problems
            .push(ConfigError::pipeline(&format!("release.{key}"), message));
    };
    let Some(table) = table.as_table() else {
        problem(
            "",
            "must be a table: `[pipeline.release]` with `withhold` and `key`".into(),
        );
        return None;
    };
    if let Some(unknown) = table
        .keys()
        .find(|k| !matches!(k.as_str(), "withhold" | "key"))
    {
        problem(
            unknown,
            format!("unknown key `{unknown}`: `[pipeline.release]` takes `withhold` and `key`"),
        );
    }
    let share = match table.get("withhold") {
        Some(toml::Value::Float(f)) => *f,
        #[allow(clippy::cast_precision_loss)]
        Some(toml::Value::Integer(i)) => *i as f64,
        Some(_) => {
            problem(
                "withhold",
                "a share of the articles to hold back, e.g. 0.2".into(),
            );
            return None;
        }
        None => {
            problem(
                "withhold",
                "missing: the share of the articles to hold back, e.g. `withhold = 0.2`".into(),
            );
            return None;
        }
    };
    let Some(key) = table.get("key").and_then(toml::Value::as_str) else {
        problem("key", "missing: the secret key file that chooses what is held back, e.g. `key = \"release.key\"`".into());
        return None;
    };
    let option = WithholdOption {
        share,
        key: PathBuf::from(key),
    };
    match Withhold::load(&option) {
        Ok(_) => Some(option),
        Err(message) if message.starts_with("`withhold`") => {
            problem("withhold", message);
            None
        }
        // The key file is the environment's, as an input file is: a draft
        // still shows the plan.
        Err(message) => {
            file.problems
                .push(ConfigError::pipeline("release.key", message).about_environment());
            None
        }
    }
}
