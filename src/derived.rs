//! The files a run makes from its other outputs: the manifest's inputs
//! (`manifest.inputs.json`), the commitment to a withheld part (`withheld.json`)
//! and the dataset card (`README.md`). Made in the engine's preview of the
//! folder as the run will publish it, and published in the same journal as the
//! sets (see `tempora_engine::publish`): a killed run leaves the old folder or
//! the new one, never new sets beside an old card or a withheld part without its
//! commitment.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use tempora_engine::{Derive, Derived};
use tempora_manifest::inputs::{ManifestInputs, INPUTS_FILE};
use tempora_report::card::Card;
use tempora_sink::release::{Commitment, Withhold, WithholdOption, COMMITMENT};

use crate::monthly::{ReleaseFolder, RELEASE_FILE};

/// What a run that publishes a manifest writes beside it as its pins
/// (`manifest.inputs.json`).
#[derive(Clone)]
pub enum ManifestPins {
    /// Those of this run (`tempora run`).
    OfThisRun,
    /// The original run's (`tempora rebuild`: the set is that run's).
    Original(Box<ManifestInputs>),
}

/// What the derived files need to know of the run.
pub struct Of {
    /// The output folder (the preview's paths are said as its own in messages).
    pub out: PathBuf,
    /// The manifest's pins, when the run publishes a manifest.
    pub pins: Option<ManifestPins>,
    /// What the stages declare (site profiles' digests), for the pins.
    pub declared: std::collections::BTreeMap<String, String>,
    /// Whether the run publishes the manifest's facts file.
    pub facts: bool,
    /// The withheld part, when the pipeline holds one back.
    pub release: Option<WithholdOption>,
    /// The monthly release the run makes, whose record (`release.json`) it
    /// publishes with it.
    pub monthly: Option<ReleaseFolder>,
}

/// The card a run made, once it has published (none without Parquet output).
pub type MadeCard = Arc<Mutex<Option<Card>>>;

/// The hook that makes the files of `of`, and where the card it made is kept.
pub fn derive(of: Of) -> (Derive, MadeCard) {
    let made: MadeCard = Arc::default();
    let card = made.clone();
    let hook = move |dir: &Path| {
        make(&of, dir, &card).map_err(|e| {
            // The preview is the folder as it will be: say the folder.
            format!("{e:#}").replace(&dir.display().to_string(), &of.out.display().to_string())
        })
    };
    (Derive(Arc::new(hook)), made)
}

fn make(of: &Of, dir: &Path, card: &MadeCard) -> anyhow::Result<Derived> {
    let mut derived = Derived::default();
    if let Some(pins) = &of.pins {
        write_manifest_inputs(dir, pins, &of.declared, of.facts)?;
        derived.written.push(INPUTS_FILE.into());
    }
    if let Some(folder) = &of.monthly {
        write_release_record(dir, folder)?;
        derived.written.push(RELEASE_FILE.into());
    }
    match &of.release {
        Some(option) => {
            let withhold = Withhold::load(option).map_err(anyhow::Error::msg)?;
            Commitment::of_folder(dir, &withhold)
                .and_then(|c| c.write(dir))
                .with_context(|| format!("cannot write {COMMITMENT}"))?;
            derived.written.push(COMMITMENT.into());
        }
        // A stale commitment goes (the preview's is a link: removing it leaves
        // the folder as it is until the publication).
        None if dir.join(COMMITMENT).is_file() => {
            std::fs::remove_file(dir.join(COMMITMENT))?;
            derived.removed.push(COMMITMENT.into());
        }
        None => {}
    }
    if has_parquet(dir) {
        let made = tempora_report::card::write_card(dir).context("dataset card")?;
        derived.written.push("README.md".into());
        *card
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(made);
    }
    Ok(derived)
}

/// Writes `manifest.inputs.json` in `dir`: the original's, or this run's from
/// its `run.json`.
fn write_manifest_inputs(
    dir: &Path,
    pins: &ManifestPins,
    declared: &std::collections::BTreeMap<String, String>,
    facts: bool,
) -> anyhow::Result<()> {
    let inputs = match pins {
        ManifestPins::Original(inputs) => (**inputs).clone(),
        ManifestPins::OfThisRun => {
            let path = dir.join("run.json");
            let run: serde_json::Value = serde_json::from_slice(
                &std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?,
            )
            .with_context(|| format!("{} is not JSON", path.display()))?;
            ManifestInputs::of_run(&run, declared.clone(), facts)
        }
    };
    inputs
        .write(dir)
        .with_context(|| format!("cannot write the manifest's inputs ({INPUTS_FILE})"))
}

/// Writes `release.json` in `dir`: the release, and the run that makes it
/// (its name, from its `run.json`).
fn write_release_record(dir: &Path, folder: &ReleaseFolder) -> anyhow::Result<()> {
    let path = dir.join("run.json");
    let run: serde_json::Value = serde_json::from_slice(
        &std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?,
    )
    .with_context(|| format!("{} is not JSON", path.display()))?;
    let name = run.get("run").and_then(serde_json::Value::as_str);
    let mut json = serde_json::to_vec_pretty(&folder.record(name.unwrap_or_default()))?;
    json.push(b'\n');
    std::fs::write(dir.join(RELEASE_FILE), json)
        .with_context(|| format!("cannot write {RELEASE_FILE}"))
}

/// Whether any `*.parquet` file lies under `dir` (the card's configs point at
/// Parquet: a folder without has no card).
fn has_parquet(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.filter_map(Result::ok).any(|e| {
        let path = e.path();
        if path.is_dir() {
            has_parquet(&path)
        } else {
            path.extension().is_some_and(|x| x == "parquet")
        }
    })
}
