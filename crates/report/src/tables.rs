//! The report's tables, aggregated with polars from one frame of per-article
//! statistics (one row per article) and one of fact entities (one row per article
//! and entity). Every table is sorted, so the same input gives the same bytes.

use std::collections::BTreeMap;

use polars::prelude::*;
use serde::Serialize;

use crate::fragments::NOVEL_NGRAM_SIZES;
use crate::read::Role;
use crate::stats::ArticleRow;

/// Mean and median of a statistic over a set's articles (`None` when no article
/// has a value).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeanMedian {
    /// Arithmetic mean.
    pub mean: Option<f64>,
    /// Median (the mean of the two middle values for an even count).
    pub median: Option<f64>,
}

/// The dataset characteristics of one set (CDEvalSumm; Grusky et al.).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetStats {
    /// Articles in the set.
    pub articles: usize,
    /// Extractive fragment coverage.
    pub coverage: MeanMedian,
    /// Extractive fragment density.
    pub density: MeanMedian,
    /// Compression: article tokens / summary tokens.
    pub compression: MeanMedian,
    /// Mean percent of novel n-grams, by n (`"1"` to `"4"`).
    pub novel_ngrams: BTreeMap<String, Option<f64>>,
    /// Median percent of novel n-grams, by n.
    pub novel_ngrams_median: BTreeMap<String, Option<f64>>,
    /// Summary length in tokens.
    pub summary_tokens: MeanMedian,
    /// Article length in tokens.
    pub article_tokens: MeanMedian,
}

/// Articles of one source, set and year.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Count {
    /// News source (`null` when the records name none).
    pub source: Option<String>,
    /// Set.
    pub set: String,
    /// Year of publication (`null` when undated).
    pub year: Option<i32>,
    /// Articles.
    pub articles: usize,
}

/// An entity of the evolving facts and the articles that state a fact of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntityCount {
    /// Wikidata id.
    pub id: String,
    /// Label.
    pub label: String,
    /// Articles, over every set.
    pub articles: usize,
}

/// One novelty bin of a set, from the articles' `novelty` fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BinCount {
    /// Set.
    pub set: String,
    /// The bin's label (`0-15`).
    pub bin: Option<String>,
    /// `T_nov`, `T_sim` or none.
    pub tag: Option<String>,
    /// Articles in the bin.
    pub articles: usize,
    /// Lowest overlap in the bin, percent.
    pub overlap_min: Option<f64>,
    /// Highest overlap in the bin, percent.
    pub overlap_max: Option<f64>,
}

/// Every aggregate of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Tables {
    /// Per set, by name.
    pub sets: BTreeMap<String, SetStats>,
    /// Articles per source, set and year, sorted by source, set, year.
    pub counts: Vec<Count>,
    /// Positions of the evolving facts, most articles first.
    pub positions: Vec<EntityCount>,
    /// People of the evolving facts, most articles first.
    pub people: Vec<EntityCount>,
    /// Novelty bins of the scored articles, by set and overlap.
    pub bins: Vec<BinCount>,
}

/// Per-article columns, named for the frame.
const STATS: [&str; 5] = [
    "coverage",
    "density",
    "compression",
    "summary_tokens",
    "article_tokens",
];

fn novel_column(n: usize) -> String {
    format!("novel_{n}")
}

/// One row per article of every set.
fn article_frame(sets: &[(String, Vec<ArticleRow>)]) -> PolarsResult<DataFrame> {
    let rows = || {
        sets.iter()
            .flat_map(|(name, rows)| rows.iter().map(move |r| (name, r)))
    };
    let set: Vec<&str> = rows().map(|(n, _)| n.as_str()).collect();
    let source: Vec<Option<&str>> = rows().map(|(_, r)| r.source.as_deref()).collect();
    let year: Vec<Option<i32>> = rows().map(|(_, r)| r.year).collect();
    let stat = |f: fn(&ArticleRow) -> f64| rows().map(|(_, r)| f(r)).collect::<Vec<f64>>();
    let mut columns = vec![
        Column::new("set".into(), set),
        Column::new("source".into(), source),
        Column::new("year".into(), year),
        Column::new(STATS[0].into(), stat(|r| r.stats.extractiveness.coverage)),
        Column::new(STATS[1].into(), stat(|r| r.stats.extractiveness.density)),
        Column::new(
            STATS[2].into(),
            stat(|r| r.stats.extractiveness.compression),
        ),
        Column::new(STATS[3].into(), stat(|r| r.stats.summary_tokens as f64)),
        Column::new(STATS[4].into(), stat(|r| r.stats.article_tokens as f64)),
    ];
    for (i, n) in NOVEL_NGRAM_SIZES.into_iter().enumerate() {
        let values: Vec<Option<f64>> = rows().map(|(_, r)| r.stats.novel[i]).collect();
        columns.push(Column::new(novel_column(n).into(), values));
    }
    let overlap: Vec<Option<f64>> = rows()
        .map(|(_, r)| r.novelty.as_ref().map(|n| n.overlap))
        .collect();
    let bin: Vec<Option<&str>> = rows()
        .map(|(_, r)| r.novelty.as_ref().and_then(|n| n.bin.as_deref()))
        .collect();
    let tag: Vec<Option<&str>> = rows()
        .map(|(_, r)| r.novelty.as_ref().and_then(|n| n.tag.as_deref()))
        .collect();
    columns.push(Column::new("overlap".into(), overlap));
    columns.push(Column::new("bin".into(), bin));
    columns.push(Column::new("tag".into(), tag));
    DataFrame::new_infer_height(columns)
}

/// One row per article and fact entity.
fn entity_frame(sets: &[(String, Vec<ArticleRow>)]) -> PolarsResult<DataFrame> {
    let entities = || {
        sets.iter()
            .flat_map(|(_, rows)| rows.iter())
            .flat_map(|r| &r.entities)
    };
    let role: Vec<&str> = entities().map(|e| e.role.as_str()).collect();
    let id: Vec<&str> = entities().map(|e| e.id.as_str()).collect();
    let label: Vec<&str> = entities().map(|e| e.label.as_str()).collect();
    df!("role" => role, "id" => id, "label" => label)
}

/// Aggregates the sets' articles (each set's rows in file order) into the report's
/// tables; `top` limits the positions and people listed.
///
/// # Errors
/// polars' error (a bug: the frames are built here).
pub fn aggregate(sets: &[(String, Vec<ArticleRow>)], top: usize) -> PolarsResult<Tables> {
    let articles = article_frame(sets)?;
    Ok(Tables {
        sets: set_stats(&articles)?,
        counts: counts(&articles)?,
        positions: entity_counts(&entity_frame(sets)?, Role::Position, top)?,
        people: entity_counts(&entity_frame(sets)?, Role::Person, top)?,
        bins: bins(&articles)?,
    })
}

// polars marks its eager group-by aggregations deprecated in favour of its lazy
// engine; the lazy engine is a query planner and optimiser (polars-plan,
// polars-expr, polars-mem-engine) that took a tenth of a cold build for these four
// aggregations. The eager ones share the lazy engine's kernels (`agg_mean`,
// `agg_median`, `agg_min`, ...), so the numbers are the same.
#[allow(deprecated)]
fn set_stats(articles: &DataFrame) -> PolarsResult<BTreeMap<String, SetStats>> {
    let mut names: Vec<String> = STATS.iter().map(|s| (*s).to_string()).collect();
    names.extend(NOVEL_NGRAM_SIZES.map(novel_column));
    let groups = articles
        .group_by(["set"])?
        .select(names.iter().map(String::as_str));
    // Both frames have the groups in the same order, with their key first.
    let (mut means, medians) = (groups.mean()?, groups.median()?);
    means.with_column(group_rows(&groups))?;
    let set = strings(&means, "set")?;
    let count = counts_of(&means, "articles")?;
    let mut values: BTreeMap<String, Vec<Option<f64>>> = BTreeMap::new();
    for name in &names {
        for (stat, frame) in [("mean", &means), ("median", &medians)] {
            let key = format!("{name}_{stat}");
            values.insert(key.clone(), floats(frame, &key)?);
        }
    }
    let at = |name: &str, i: usize| MeanMedian {
        mean: values[&format!("{name}_mean")][i],
        median: values[&format!("{name}_median")][i],
    };
    let mut out = BTreeMap::new();
    for (i, name) in set.into_iter().enumerate() {
        let novel = |stat: &str| {
            NOVEL_NGRAM_SIZES
                .iter()
                .map(|n| {
                    let key = format!("{}_{stat}", novel_column(*n));
                    (n.to_string(), values[&key][i])
                })
                .collect()
        };
        out.insert(
            name.unwrap_or_default(),
            SetStats {
                articles: count[i],
                coverage: at("coverage", i),
                density: at("density", i),
                compression: at("compression", i),
                novel_ngrams: novel("mean"),
                novel_ngrams_median: novel("median"),
                summary_tokens: at("summary_tokens", i),
                article_tokens: at("article_tokens", i),
            },
        );
    }
    Ok(out)
}

/// The number of rows of each group, in the groups' order, as column `articles`.
fn group_rows(groups: &GroupBy) -> Column {
    let mut count = groups.get_groups().group_count().into_column();
    count.rename("articles".into());
    count
}

fn counts(articles: &DataFrame) -> PolarsResult<Vec<Count>> {
    let keys = ["source", "set", "year"];
    let groups = articles.group_by(keys)?;
    let mut frame = DataFrame::new_infer_height(groups.keys())?;
    frame.with_column(group_rows(&groups))?;
    let frame = frame.sort(keys, SortMultipleOptions::default())?;
    let source = strings(&frame, "source")?;
    let set = strings(&frame, "set")?;
    let year: Vec<Option<i32>> = frame.column("year")?.i32()?.iter().collect();
    let count = counts_of(&frame, "articles")?;
    Ok((0..frame.height())
        .map(|i| Count {
            source: source[i].clone(),
            set: set[i].clone().unwrap_or_default(),
            year: year[i],
            articles: count[i],
        })
        .collect())
}

#[allow(deprecated)]
fn entity_counts(entities: &DataFrame, role: Role, top: usize) -> PolarsResult<Vec<EntityCount>> {
    let mask = entities.column("role")?.str()?.equal(role.as_str());
    let entities = entities.filter(&mask)?;
    let groups = entities.group_by(["id"])?;
    let mut frame = groups.clone().select(["label"]).min()?;
    frame.with_column(group_rows(&groups))?;
    // An entity's label is the same in every record; the first in sort order
    // keeps the choice stable if one differs.
    let frame = frame
        .sort(
            ["articles", "id"],
            SortMultipleOptions::default().with_order_descending_multi([true, false]),
        )?
        .head(Some(top));
    let id = strings(&frame, "id")?;
    let label = strings(&frame, "label_min")?;
    let count = counts_of(&frame, "articles")?;
    Ok((0..frame.height())
        .map(|i| EntityCount {
            id: id[i].clone().unwrap_or_default(),
            label: label[i].clone().unwrap_or_default(),
            articles: count[i],
        })
        .collect())
}

#[allow(deprecated)]
fn bins(articles: &DataFrame) -> PolarsResult<Vec<BinCount>> {
    let scored = articles.filter(&articles.column("overlap")?.is_not_null())?;
    let groups = scored.group_by(["set", "bin", "tag"])?.select(["overlap"]);
    let mut frame = groups.min()?;
    frame.with_column(groups.max()?.column("overlap_max")?.clone())?;
    frame.with_column(group_rows(&groups))?;
    let frame = frame.sort(
        ["set", "overlap_min", "bin"],
        SortMultipleOptions::default(),
    )?;
    let set = strings(&frame, "set")?;
    let bin = strings(&frame, "bin")?;
    let tag = strings(&frame, "tag")?;
    let count = counts_of(&frame, "articles")?;
    let low = floats(&frame, "overlap_min")?;
    let high = floats(&frame, "overlap_max")?;
    Ok((0..frame.height())
        .map(|i| BinCount {
            set: set[i].clone().unwrap_or_default(),
            bin: bin[i].clone(),
            tag: tag[i].clone(),
            articles: count[i],
            overlap_min: low[i],
            overlap_max: high[i],
        })
        .collect())
}

fn strings(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<String>>> {
    Ok(frame
        .column(name)?
        .str()?
        .iter()
        .map(|s| s.map(str::to_string))
        .collect())
}

fn floats(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<f64>>> {
    let column = frame.column(name)?.cast(&DataType::Float64)?;
    Ok(column.f64()?.iter().map(|v| v.map(round6)).collect())
}

/// Rounded to 6 decimals: the report's numbers do not depend on the last bits of a
/// sum's order.
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn counts_of(frame: &DataFrame, name: &str) -> PolarsResult<Vec<usize>> {
    let column = frame.column(name)?.cast(&DataType::UInt64)?;
    Ok(column
        .u64()?
        .iter()
        .map(|n| usize::try_from(n.unwrap_or(0)).unwrap_or(usize::MAX))
        .collect())
}
