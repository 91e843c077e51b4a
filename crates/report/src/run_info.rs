//! What the report takes from `run.json`: the run's identity, its per-stage
//! counts, and the novelty stage's bin tables.
//!
//! The bin tables are the `bins` metric of a stage of kind `novelty` (or
//! `manifest-novelty`), one per set, read as the novelty stage writes it
//! ([`NoveltyBins`]). A `run.json` of an earlier version, whose metric has
//! another shape, is read by shape: any metric whose value is a list of objects
//! with a `count` and a `range` (or `bin`) label, and optionally a `tag`, or an
//! object of such lists, one per set. The report lists them in pipeline order,
//! and by metric name within a stage.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tempora_records::counters::{NoveltyBins, NOVELTY_BINS};

use crate::error::ReportError;

/// One stage's counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageCounts {
    /// Stage name.
    pub name: String,
    /// Its kind.
    pub kind: String,
    /// Records received.
    pub records_in: Option<u64>,
    /// Records sent on.
    pub records_out: Option<u64>,
    /// Records rejected.
    pub rejected: Option<u64>,
}

/// One bin of a novelty bin table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunBin {
    /// Its label (`0-15`).
    pub range: String,
    /// Records in it.
    pub count: u64,
    /// `T_nov`, `T_sim` or none.
    pub tag: Option<String>,
}

/// A novelty bin table of `run.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunBinTable {
    /// The novelty stage.
    pub stage: String,
    /// The metric (and, for a table per set, `metric.set`).
    pub metric: String,
    /// Its bins.
    pub bins: Vec<RunBin>,
}

/// What the report shows of `run.json`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct RunInfo {
    /// Pipeline name.
    pub pipeline: Option<String>,
    /// Tempora version that ran it.
    pub version: Option<String>,
    /// How the run ended.
    pub status: Option<String>,
    /// The knowledge cutoff of the resolved configuration.
    pub cutoff: Option<String>,
    /// Start time.
    pub started_at: Option<String>,
    /// End time.
    pub ended_at: Option<String>,
    /// Per stage, in pipeline order.
    pub stages: Vec<StageCounts>,
    /// The novelty stages' bin tables.
    pub novelty_bins: Vec<RunBinTable>,
}

/// Reads `run.json`; `None` when the file does not exist.
///
/// # Errors
/// The file cannot be read or is not a JSON object.
pub fn read_run_info(path: &Path) -> Result<Option<RunInfo>, ReportError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReportError::io(path)(e)),
    };
    let bad = |message: String| ReportError::RunJson {
        path: path.to_path_buf(),
        message,
    };
    let run: Value = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
    if !run.is_object() {
        return Err(bad("not a JSON object".into()));
    }
    let mut info = RunInfo {
        pipeline: text(run.get("pipeline")),
        version: text(run.get("version")),
        status: text(run.get("status")),
        cutoff: text(run.pointer("/config/pipeline/cutoff")),
        started_at: text(run.get("started_at")),
        ended_at: text(run.get("ended_at")),
        ..RunInfo::default()
    };
    for stage in run
        .get("stages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let counts = StageCounts {
            name: text(stage.get("name")).unwrap_or_default(),
            kind: text(stage.get("kind")).unwrap_or_default(),
            records_in: stage.get("records_in").and_then(Value::as_u64),
            records_out: stage.get("records_out").and_then(Value::as_u64),
            rejected: stage.get("rejected").and_then(Value::as_u64),
        };
        // `manifest-novelty` stands in for `novelty` in a rebuild, with its bins.
        if counts.kind == "novelty" || counts.kind == "manifest-novelty" {
            info.novelty_bins
                .extend(novelty_bins(&counts.name, stage.get("metrics")));
        }
        info.stages.push(counts);
    }
    Ok(Some(info))
}

/// A JSON text as an owned string.
fn text(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_string)
}

/// The bin tables of the novelty stage `stage`, from its `metrics`: the `bins`
/// metric as the stage writes it, one table per set; else, in a `run.json` of
/// an earlier version, every metric shaped as a bin table, sorted by metric
/// name (the key order of a JSON object is not something to rely on).
fn novelty_bins(stage: &str, metrics: Option<&Value>) -> Vec<RunBinTable> {
    let typed = metrics
        .and_then(|m| m.get(NOVELTY_BINS))
        .and_then(|bins| NoveltyBins::deserialize(bins).ok());
    if let Some(per_set) = typed {
        return per_set
            .into_iter()
            .map(|(set, bins)| RunBinTable {
                stage: stage.to_string(),
                metric: format!("{NOVELTY_BINS}.{set}"),
                bins: bins
                    .into_iter()
                    .map(|bin| RunBin {
                        range: bin.range,
                        count: bin.count as u64,
                        tag: bin.tag,
                    })
                    .collect(),
            })
            .collect();
    }
    let table = |metric: String, bins| RunBinTable {
        stage: stage.to_string(),
        metric,
        bins,
    };
    let mut tables = Vec::new();
    for (metric, value) in metrics.and_then(Value::as_object).into_iter().flatten() {
        if let Some(bins) = bin_table(value) {
            tables.push(table(metric.clone(), bins));
        } else if let Some(per_set) = value.as_object() {
            for (set, value) in per_set {
                if let Some(bins) = bin_table(value) {
                    tables.push(table(format!("{metric}.{set}"), bins));
                }
            }
        }
    }
    tables.sort_by(|a, b| a.metric.cmp(&b.metric));
    tables
}

/// A list of `{range|bin, count, tag}` objects.
fn bin_table(value: &Value) -> Option<Vec<RunBin>> {
    let list = value.as_array()?;
    if list.is_empty() {
        return None;
    }
    list.iter()
        .map(|bin| {
            let range = bin.get("range").or_else(|| bin.get("bin"))?.as_str()?;
            Some(RunBin {
                range: range.to_string(),
                count: bin.get("count")?.as_u64()?,
                tag: bin.get("tag").and_then(Value::as_str).map(str::to_string),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bin_tables_are_found_flat_and_per_set() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(
            &path,
            r#"{"pipeline":"demo","status":"completed","config":{"pipeline":{"cutoff":"2019-12-31"}},
            "stages":[{"name":"split","kind":"split","records_in":3,"records_out":3,"rejected":0,"metrics":{}},
            {"name":"novelty","kind":"novelty","records_in":2,"records_out":2,"rejected":0,"metrics":{
              "bins":[{"range":"0-50","from":0,"to":50,"count":1,"tag":"T_nov"},{"range":"50-100","count":1,"tag":"T_sim"}],
              "per_set":{"future":[{"bin":"0-100","count":2,"tag":null}]},
              "n":4}}]}"#,
        )
        .unwrap();
        let info = read_run_info(&path).unwrap().unwrap();
        assert_eq!(info.cutoff.as_deref(), Some("2019-12-31"));
        assert_eq!(info.stages.len(), 2);
        assert_eq!(info.novelty_bins.len(), 2);
        assert_eq!(info.novelty_bins[0].bins[0].tag.as_deref(), Some("T_nov"));
        assert_eq!(info.novelty_bins[1].metric, "per_set.future");
        assert_eq!(info.novelty_bins[1].bins[0].count, 2);
        assert!(read_run_info(&dir.path().join("none.json"))
            .unwrap()
            .is_none());
        std::fs::write(&path, "[1").unwrap();
        assert!(read_run_info(&path)
            .unwrap_err()
            .to_string()
            .contains("run.json"));
    }

    /// The novelty stage's `bins` metric, as its own type writes it, is read as
    /// that type: one table per set, and no other metric taken for a table
    /// because of its shape.
    #[test]
    fn the_bins_metric_is_read_as_the_novelty_stage_writes_it() {
        use tempora_records::counters::BinCount;
        let bin = |range: &str, from, to, count, tag: Option<&str>| BinCount {
            range: range.into(),
            from,
            to,
            count,
            tag: tag.map(str::to_string),
        };
        let bins: NoveltyBins = [
            (
                "future".to_string(),
                vec![
                    bin("0-40", 0, 40, 3, Some("T_nov")),
                    bin("40-100", 40, 100, 5, Some("T_sim")),
                ],
            ),
            (
                "in_distribution".to_string(),
                vec![bin("0-100", 0, 100, 7, None)],
            ),
        ]
        .into();
        let run = serde_json::json!({
            "pipeline": "p",
            "stages": [{"name": "nov", "kind": "novelty", "metrics": {
                NOVELTY_BINS: bins,
                "lookalike": [{"range": "0-1", "count": 9}],
            }}],
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, run.to_string()).unwrap();
        let info = read_run_info(&path).unwrap().unwrap();
        type Bin<'a> = (&'a str, u64, Option<&'a str>);
        let tables: Vec<(&str, Vec<Bin>)> = info
            .novelty_bins
            .iter()
            .map(|t| {
                let bins = t
                    .bins
                    .iter()
                    .map(|b| (b.range.as_str(), b.count, b.tag.as_deref()))
                    .collect();
                (t.metric.as_str(), bins)
            })
            .collect();
        assert_eq!(
            tables,
            [
                (
                    "bins.future",
                    vec![("0-40", 3, Some("T_nov")), ("40-100", 5, Some("T_sim"))]
                ),
                ("bins.in_distribution", vec![("0-100", 7, None)]),
            ]
        );
        assert!(info.novelty_bins.iter().all(|t| t.stage == "nov"));
    }
}
