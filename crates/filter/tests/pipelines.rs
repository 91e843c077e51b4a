//! The repository's TempoSum pipelines: their `exclude`, `conflicts` and `split`
//! tables parse, and the cutoff moves the windows as the files promise.

use std::path::{Path, PathBuf};

use tempora_engine::{OptionError, PipelineContext, PipelineFile};
use tempora_filter::{ConflictsConfig, ExcludeConfig};
use tempora_split::SplitConfig;

const PIPELINES: [&str; 3] = ["temposum-bbc.toml", "temposum-cnn.toml", "future-2024.toml"];

fn pipeline(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../pipelines")
        .join(name)
}

/// Loads a pipeline as the engine does (overrides, `${VAR}`, dates as strings)
/// and configures this crate's stages in it; returns the split stage.
fn configure(name: &str, overrides: &[&str]) -> Result<SplitConfig, Vec<OptionError>> {
    for var in [
        "WIKIDATA_DUMP",
        "XSUM_SPLIT",
        "CNNDM_URL_LISTS",
        "XSUM_TRAIN_SUMMARIES",
        "CNNDM_TRAIN_SUMMARIES",
    ] {
        std::env::set_var(var, format!("/data/{var}"));
    }
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let file = PipelineFile::load(&pipeline(name), &overrides).unwrap();
    let settings = file.settings().unwrap();
    let ctx = PipelineContext {
        name: name.into(),
        cutoff: settings.cutoff,
        out: "out".into(),
        channel_capacity: 16,
        run: tempora_engine::RunId::default(),
    };
    let stages = file.table["stages"].as_table().unwrap();
    let mut split = None;
    for (stage, value) in stages {
        let mut table = value.as_table().unwrap().clone();
        let kind = table.remove("kind").unwrap();
        table.remove("inputs");
        match kind.as_str().unwrap() {
            "exclude" => {
                ExcludeConfig::configure(table, &ctx)
                    .unwrap_or_else(|e| panic!("{name} {stage}: {e:?}"));
            }
            "conflicts" => {
                ConflictsConfig::configure(table, &ctx)
                    .unwrap_or_else(|e| panic!("{name} {stage}: {e:?}"));
            }
            "split" => split = Some(SplitConfig::configure(table, &ctx)),
            _ => {}
        }
    }
    split.expect("a split stage")
}

fn windows(config: &SplitConfig) -> Vec<(String, Option<String>, Option<String>)> {
    config
        .windows()
        .windows()
        .iter()
        .map(|w| {
            (
                w.name.clone(),
                w.from.map(|d| d.to_string()),
                w.to.map(|d| d.to_string()),
            )
        })
        .collect()
}

fn window(
    name: &str,
    from: Option<&str>,
    to: Option<&str>,
) -> (String, Option<String>, Option<String>) {
    (name.into(), from.map(String::from), to.map(String::from))
}

#[test]
fn every_pipeline_configures_its_filter_and_split_stages() {
    for name in PIPELINES {
        let split = configure(name, &[]).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(split.windows().windows().len(), 2, "{name}");
    }
}

#[test]
fn the_paper_windows_and_what_a_cutoff_override_moves() {
    let bbc = configure("temposum-bbc.toml", &[]).unwrap();
    assert_eq!(
        windows(&bbc),
        [
            window("in_distribution", Some("2010-01-01"), Some("2017-12-31")),
            window("future", Some("2020-01-01"), Some("2022-12-31")),
        ]
    );
    let cnn = configure("temposum-cnn.toml", &[]).unwrap();
    assert_eq!(
        windows(&cnn)[0],
        window("in_distribution", Some("2012-01-01"), Some("2015-12-31"))
    );

    let later = configure("temposum-bbc.toml", &["pipeline.cutoff=2021-06-30"]).unwrap();
    assert_eq!(
        windows(&later)[1],
        window("future", Some("2021-07-01"), Some("2022-12-31"))
    );

    // Past the end of the crawl the future window would be empty: refused, with the reason.
    let errors = configure("temposum-bbc.toml", &["pipeline.cutoff=2023-06-30"]).unwrap_err();
    assert!(
        errors[0]
            .message
            .contains("starts on 2023-07-01, after its end 2022-12-31"),
        "{errors:?}"
    );
    let moved = configure(
        "temposum-bbc.toml",
        &[
            "pipeline.cutoff=2023-06-30",
            "stages.split.sets.1.to=2024-12-31",
        ],
    )
    .unwrap();
    assert_eq!(
        windows(&moved)[1],
        window("future", Some("2023-07-01"), Some("2024-12-31"))
    );
}

#[test]
fn future_2024_follows_the_cutoff_at_both_ends() {
    let default = configure("future-2024.toml", &[]).unwrap();
    assert_eq!(
        windows(&default),
        [
            window("in_distribution", Some("2022-01-01"), Some("2023-12-31")),
            window("future", Some("2024-01-01"), None),
        ]
    );
    let moved = configure("future-2024.toml", &["pipeline.cutoff=2024-06-30"]).unwrap();
    assert_eq!(
        windows(&moved),
        [
            window("in_distribution", Some("2022-01-01"), Some("2024-06-30")),
            window("future", Some("2024-07-01"), None),
        ]
    );
}
