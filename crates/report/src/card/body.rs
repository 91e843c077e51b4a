//! The card's Markdown body: the release, what the sets are, how they were built
//! (all from `run.json` and the files), the report's main tables, the fields, the
//! licence note and the citations.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;
use tempora_extract::SiteProfile;
use tempora_records::RecordKind;

use super::layout::{Config, RunJson};
use super::{CardError, EmptySet};
use crate::markdown::{cell, code};
use crate::read::{Format, SetFile};

/// Relations the `wikidata` stage reads when its options name none.
const DEFAULT_RELATIONS: &str = "position held (P39), officeholder (P1308)";

/// The body of the card of `dir`: `all` its configs as read, files with no
/// rows included (they are said, but are no split: see [`super::loadable`]).
pub(super) fn render(dir: &Path, run: &RunJson, all: &[Config]) -> Result<String, CardError> {
    let configs = &super::loadable(all);
    let mut md = String::new();
    let pipeline = run.text("/pipeline").unwrap_or("tempora");
    let cutoff = run
        .text("/config/pipeline/cutoff")
        .unwrap_or("(not stated)");
    let _ = writeln!(
        md,
        "# {}\n\nNews summarization test sets split by publication date around the knowledge \
         cutoff {}, built with Tempora in the manner of TempoSum: \
         articles published after the cutoff that state facts which changed after it \
         (knowledge conflicts), so a model cannot have memorized them.\n",
        cell(pipeline),
        code(cutoff)
    );
    let text = super::text::files_with_text(dir)?;
    release(&mut md, run, &text);
    super::health::render(&mut md, dir, run);
    loading(&mut md, configs, all);
    sets(&mut md, dir, run, all)?;
    super::withheld::render(&mut md, dir);
    // A rebuilt set is the original's: its card says how that was built.
    let origin = run.value.get("rebuilt_from").map(|pinned| RunJson {
        path: run.path.clone(),
        value: pinned.clone(),
    });
    built(&mut md, dir, origin.as_ref().unwrap_or(run), configs)?;
    let manifest = configs.iter().any(|c| c.name == "manifest");
    super::text::render(&mut md, &text, manifest);
    rebuild(&mut md, dir, all);
    tables(&mut md, dir, configs)?;
    fields(&mut md, all);
    licence_and_citation(&mut md, dir, run, configs)?;
    Ok(md)
}

fn release(md: &mut String, run: &RunJson, text: &super::text::TextFiles) {
    let name = run.text("/run").unwrap_or("");
    let ended = run.text("/ended_at").unwrap_or("");
    let date = ended.get(..10).unwrap_or(ended);
    let version = run.text("/version").unwrap_or("unknown");
    let commit = run.text("/commit").unwrap_or("unknown");
    let _ = writeln!(
        md,
        "## Release\n\nRelease {} of {} (the run's name is its start in UTC), written by Tempora \
         {} (commit {}). Every run rewrites this card from its files, so the card names the \
         release its files are. To pin it after publishing, tag the Hub revision with the \
         release name (`huggingface-cli tag USER/REPO {} --repo-type dataset`) and load it with \
         `datasets.load_dataset(\"USER/REPO\", revision=\"{}\")`.\n",
        code(name),
        code(date),
        code(version),
        code(commit),
        name.replace('`', "'"),
        name.replace(['`', '"'], "'"),
    );
    // What this run asked of the Archive: a rerun on a crawl state that holds the
    // pages asks for none and makes the same sets, so this is the run's, not the sets'.
    if let Some(cost) = run.value.get("cost") {
        let n = |p: &str| cost.pointer(p).and_then(Value::as_u64).unwrap_or(0);
        let per = cost
            .get("page_requests_per_kept_article")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let _ = writeln!(
            md,
            "Requests to the Archive in this run: {} CDX, {} feed, {} page ({} retried); \
             {} kept articles, {per:.2} page requests per kept article.\n",
            n("/requests/cdx"),
            n("/requests/feed"),
            n("/requests/page"),
            n("/requests/retried"),
            n("/kept_articles"),
        );
    }
    // The run's own records, not the sets': a rebuild of the same sets may reject nothing.
    if let Some(line) = super::text::records_line(text) {
        let _ = writeln!(md, "{line}");
    }
    // Pages the Archive did not serve after every attempt: the sets lack their
    // articles until a rerun fetches them.
    let missing = run
        .value
        .get("missing")
        .and_then(serde_json::Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for m in missing {
        let count = m
            .get("count")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        let what = m
            .get("what")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("items");
        let why = m
            .get("why")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("could not be made");
        let _ = writeln!(
            md,
            "**Incomplete release:** {count} {what} {why}; the sets lack them \
             (`run.json` lists them).\n"
        );
    }
}

/// How a lab rebuilds the sets from the manifest, when the folder has one; and
/// the withheld part from its own manifest once it is revealed.
fn rebuild(md: &mut String, dir: &Path, configs: &[Config]) {
    if !configs.iter().any(|c| c.name == "manifest") {
        return;
    }
    md.push_str(
        "## Rebuilding the sets\n\n\
         The `manifest` config (`manifest.jsonl`, with `manifest.inputs.json` beside it, and \
         `manifest.facts.jsonl` where the sets were matched with evolving facts) lists each \
         article without its text: the Internet Archive capture it was read from (`timestamp`, \
         `archived_url`), the digests of its bytes and of what was read from them, its set, \
         its novelty bin and the evolving facts it names (Wikidata, CC0). Anyone can rebuild \
         the same files from it, with no listing, dump or exclusion list:\n\n\
         ```sh\ntempora rebuild manifest.jsonl --out rebuilt --contact you@example.org\n```\n\n\
         It fetches each capture once, at the Archive's limits, and names every article it \
         cannot rebuild as listed (a capture no longer served, bytes that changed, a page \
         the current extractor reads otherwise).\n\n",
    );
    let withheld_manifest = format!("{}/manifest.jsonl", tempora_sink::release::DIR);
    let committed = tempora_sink::release::Commitment::read(dir)
        .ok()
        .flatten()
        .is_some_and(|c| {
            c.files
                .iter()
                .any(|f| f.path == withheld_manifest && f.rows > 0)
        });
    if committed {
        let _ = writeln!(
            md,
            "The withheld part has a manifest of its own, `{withheld_manifest}` (its SHA-256 \
             above), published when the part is revealed: it rebuilds the withheld files the \
             same way, read with the inputs of this folder (`tempora rebuild \
             {withheld_manifest} --out rebuilt-withheld --contact you@example.org`).\n"
        );
    }
}

/// How to load the `configs` (those `datasets` loads), and a table of the
/// splits of `all`, a split with no rows marked as no split of the configs.
fn loading(md: &mut String, configs: &[Config], all: &[Config]) {
    md.push_str("## Loading\n\n```python\nimport datasets\n");
    let default = super::default_config(configs);
    match default {
        Some("sets") => md.push_str("sets = datasets.load_dataset(\"PATH\")            # the default config: the sets as splits\n"),
        Some("manifest") => md.push_str("manifest = datasets.load_dataset(\"PATH\")        # the default config: the articles without their text\n"),
        Some(other) => {
            let _ = writeln!(md, "{other} = datasets.load_dataset(\"PATH\")  # the default config");
        }
        None => {}
    }
    for c in configs.iter().filter(|c| Some(c.name) != default) {
        let _ = writeln!(md, "{0} = datasets.load_dataset(\"PATH\", \"{0}\")", c.name);
    }
    md.push_str("```\n\n`PATH` is this folder, or `USER/REPO` once it is on the Hub.\n\n");
    md.push_str("| config | split | rows | files |\n|---|---|---:|---|\n");
    let mut empty = false;
    for c in all {
        for (split, files) in &c.splits {
            let rows: u64 = files.iter().map(|f| f.rows).sum();
            let names: Vec<String> = files.iter().map(|f| code(&f.path)).collect();
            empty |= rows == 0;
            let _ = writeln!(
                md,
                "| {} | {}{} | {rows} | {} |",
                c.name,
                cell(split),
                if rows == 0 { " (empty)" } else { "" },
                names.join(", ")
            );
        }
    }
    if empty {
        md.push_str(
            "\nAn empty split's files are here with no rows (pyarrow and pandas read them), but \
             they are no split of the configs: `datasets` cannot load a split with no rows.\n",
        );
    }
    md.push('\n');
}

fn sets(md: &mut String, dir: &Path, run: &RunJson, configs: &[Config]) -> Result<(), CardError> {
    md.push_str("## What the sets are\n\n");
    let _ =
        writeln!(
        md,
        "Each set is a window of publication dates; `future` starts after the knowledge cutoff \
         {}. An article is kept when its document names both sides of an evolving Wikidata fact \
         and its summary names one of them. Its `relations` lists the Wikidata properties of \
         those facts (\"Relations\" below counts them per set): a set's sport part, say, is \
         `sets[\"future\"].filter(lambda a: bool({{\"P54\", \"P286\"}} & set(a[\"relations\"])))`.\n",
        code(run.text("/config/pipeline/cutoff").unwrap_or("(not stated)"))
    );
    let rows = articles_per_set(dir, configs)?;
    md.push_str("| set | from | to | articles |\n|---|---|---|---:|\n");
    for window in run.windows() {
        let day = |d: &Option<String>| d.as_deref().map_or_else(|| "open".into(), cell);
        let n = rows.get(window.name.as_str()).copied().unwrap_or(0);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {n} |",
            cell(&window.name),
            day(&window.from),
            day(&window.to)
        );
    }
    md.push('\n');
    let empty = empty_of(run, configs, &rows);
    if !empty.is_empty() {
        md.push_str("Sets with no article, published as files with no rows:\n\n");
        for set in &empty {
            let _ = writeln!(md, "- {}: {}.", code(&set.name), set.why());
        }
        md.push('\n');
    }
    Ok(())
}

/// The sets of the pipeline with no article (their files have no rows), when
/// the folder lists articles (the sets or the manifest).
///
/// # Errors
/// A manifest file cannot be read.
pub(super) fn empty_sets(
    dir: &Path,
    run: &RunJson,
    configs: &[Config],
) -> Result<Vec<EmptySet>, CardError> {
    let held_back = tempora_sink::release::Commitment::read(dir)
        .ok()
        .flatten()
        .is_some_and(|c| c.revealed.is_none() && c.files.iter().any(|f| f.rows > 0));
    let mut empty = empty_of(run, configs, &articles_per_set(dir, configs)?);
    for set in &mut empty {
        set.held_back = held_back;
    }
    Ok(empty)
}

/// The sets with no article among `rows` (articles per set).
fn empty_of(run: &RunJson, configs: &[Config], rows: &BTreeMap<String, u64>) -> Vec<EmptySet> {
    if !configs
        .iter()
        .any(|c| c.name == "sets" || c.name == "manifest")
    {
        return Vec::new();
    }
    let day = |d: Option<String>| d.unwrap_or_else(|| "open".into());
    run.windows()
        .into_iter()
        .filter(|w| rows.get(&w.name).copied().unwrap_or(0) == 0)
        .map(|w| EmptySet {
            name: w.name,
            window: format!("{} to {}", day(w.from), day(w.to)),
            held_back: false,
        })
        .collect()
}

/// The config whose files list the articles: the sets, or in a folder without
/// them (`tempora publish`'s), the manifest.
fn articles_config(configs: &[Config]) -> &'static str {
    if configs.iter().any(|c| c.name == "sets") {
        "sets"
    } else {
        "manifest"
    }
}

/// The articles per set: the sets' rows, or the manifest's per `split`.
pub(super) fn articles_per_set(
    dir: &Path,
    configs: &[Config],
) -> Result<BTreeMap<String, u64>, CardError> {
    let mut rows = BTreeMap::new();
    if articles_config(configs) == "sets" {
        for c in configs.iter().filter(|c| c.name == "sets") {
            for (split, files) in &c.splits {
                *rows.entry(split.clone()).or_default() +=
                    files.iter().map(|f| f.rows).sum::<u64>();
            }
        }
        return Ok(rows);
    }
    for file in parquet_files(dir, configs, |c| c.name == "manifest") {
        for split in read_column(&file.path, "split")? {
            *rows.entry(split.unwrap_or_default()).or_default() += 1;
        }
    }
    Ok(rows)
}

/// A text column of a Parquet file of the folder.
fn read_column(path: &Path, name: &str) -> Result<Vec<Option<String>>, CardError> {
    let f = std::fs::File::open(path).map_err(CardError::io(path))?;
    tempora_sink::parquet::read_text_column(f, name).map_err(|e| CardError::NotOutput {
        path: path.to_path_buf(),
        reason: format!("cannot read column `{name}`: {e}"),
    })
}

/// A stage option as text: a string, or a list of strings joined.
fn option(stage: &Value, key: &str) -> Option<String> {
    match stage.get(key)? {
        Value::String(s) => Some(code(s)),
        Value::Array(items) => Some(
            items
                .iter()
                .map(|v| code(&v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        other => Some(code(&other.to_string())),
    }
}

/// The relations a facts stage reads, as the card names them: by the shipped
/// catalogue's label (`head coach (P286)`), a name or id it lacks as given.
fn relations(stage: &Value) -> String {
    let Some(Value::Array(given)) = stage.get("relations") else {
        return DEFAULT_RELATIONS.into();
    };
    let catalogue = crate::relations::shipped();
    given
        .iter()
        .map(|v| {
            let given = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            let property = catalogue
                .resolve(std::slice::from_ref(&given))
                .ok()
                .and_then(|ids| ids.into_iter().next());
            match property.filter(|p| catalogue.get(p).is_some()) {
                Some(p) => crate::relations::name(&p),
                None => code(&given),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The card's line for a `wikidata-live` stage: as of which reading of
/// Wikidata's services, pinned where, and whether this run could refresh it.
fn live_facts(md: &mut String, run: &RunJson, name: &str, stage: &Value) {
    let Some(reading) = live_reading(run, name) else {
        return;
    };
    let read_at = read_at(reading).unwrap_or_else(|| "(not stated)".into());
    let entities = reading.get("entities").and_then(Value::as_u64).unwrap_or(0);
    let file = inputs(run, name, "reading").join(", ");
    let endpoints = ["query_endpoint", "api_endpoint"]
        .iter()
        .filter_map(|k| option(stage, k))
        .collect::<Vec<_>>();
    let endpoints = if endpoints.is_empty() {
        "the Wikidata Query Service and the Wikibase API".to_string()
    } else {
        endpoints.join(" and ")
    };
    let relations = relations(stage);
    let _ = write!(
        md,
        "- **Evolving facts** (stage `{name}`): Wikidata as read from its live services \
         ({endpoints}) on {read_at}: {entities} entities, pinned in {file}; relations {relations}."
    );
    let refreshed = reading.get("refreshed").and_then(Value::as_bool) == Some(true);
    let fell_back = run
        .value
        .get("warnings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|w| w.get("stage").and_then(Value::as_str) == Some(name))
        .filter_map(|w| w.get("why").and_then(Value::as_str))
        .any(|why| why.contains("services could not be read"));
    if fell_back {
        md.push_str(" This run could not read the services: its facts are that earlier reading's.");
    } else if !refreshed {
        md.push_str(" This run read the pinned reading, not the services.");
    }
    md.push('\n');
}

/// The `reading` metric of the `wikidata-live` stage `name`: when Wikidata's
/// services were read, how many entities, the pinned file's SHA-256.
fn live_reading<'a>(run: &'a RunJson, name: &str) -> Option<&'a Value> {
    run.value
        .get("stages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|s| s.get("name").and_then(Value::as_str) == Some(name))
        .and_then(|s| s.pointer("/metrics/reading"))
}

/// A reading's time as the card writes it (`2026-11-28 02:31 UTC`).
fn read_at(reading: &Value) -> Option<String> {
    reading
        .get("read_at")
        .and_then(Value::as_str)
        .map(|t| t.get(..16).unwrap_or(t).replace('T', " ") + " UTC")
}

/// The facts a run judged by, one per facts stage: a `wikidata-live` stage's
/// reading (its time and SHA-256), a `wikidata` stage's dump (its SHA-256).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FactsReading {
    /// The stage.
    pub stage: String,
    /// When the live services were read (`2026-11-28 02:31 UTC`); `None` for a dump.
    pub read_at: Option<String>,
    /// The file read (the pinned reading, the dump), as `run.json` names it.
    pub file: Option<String>,
    /// Its SHA-256, where `run.json` records it.
    pub sha256: Option<String>,
}

/// The facts readings of `run`, in the order of its stages.
pub(super) fn facts_readings(run: &RunJson) -> Vec<FactsReading> {
    let text = |v: Option<&Value>, key: &str| {
        v.and_then(|v| v.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut out = Vec::new();
    for (name, stage) in run.config_stages() {
        let (option, live) = match stage.get("kind").and_then(Value::as_str) {
            Some("wikidata") => ("dump", None),
            Some("wikidata-live") => ("reading", live_reading(run, name)),
            _ => continue,
        };
        let input = input_entries(run, name, option).next();
        out.push(FactsReading {
            stage: name.clone(),
            read_at: live.and_then(read_at),
            file: text(input, "path").or_else(|| text(Some(stage), option)),
            sha256: text(live, "sha256").or_else(|| text(input, "sha256")),
        });
    }
    out
}

/// The entries of `run.json`'s `inputs` for a stage's option.
fn input_entries<'a>(
    run: &'a RunJson,
    stage: &'a str,
    key: &'a str,
) -> impl Iterator<Item = &'a Value> {
    run.value
        .get("inputs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(move |i| {
            i.get("stage").and_then(Value::as_str) == Some(stage)
                && i.get("option").and_then(Value::as_str) == Some(key)
        })
}

/// The input files `run.json` lists for a stage's option, with date and checksum.
fn inputs(run: &RunJson, stage: &str, key: &str) -> Vec<String> {
    input_entries(run, stage, key)
        .map(|i| {
            let text = |k: &str| i.get(k).and_then(Value::as_str).unwrap_or("");
            let modified = text("modified");
            let mut s = format!(
                "{} (modified {}",
                code(text("path")),
                modified.get(..10).unwrap_or(modified)
            );
            if let Some(sha) = i.get("sha256").and_then(Value::as_str) {
                let _ = write!(s, ", SHA-256 {}", code(sha));
            }
            s.push(')');
            s
        })
        .collect()
}

/// The line of the dates the pipeline wrote relative to the run, when it
/// wrote any: the run day, and each as written and as the run resolved it.
fn relative_dates(md: &mut String, run: &RunJson) {
    let dates = run
        .value
        .get("dates")
        .and_then(|d| serde_json::from_value::<tempora_engine::RunDates>(d.clone()).ok())
        .filter(|d| !d.relative.is_empty());
    if let Some(dates) = dates {
        let _ = writeln!(
            md,
            "- **Dates relative to the run** (run day {}): {}.",
            dates.run_day,
            dates.lines().join("; ")
        );
    }
}

fn built(md: &mut String, dir: &Path, run: &RunJson, configs: &[Config]) -> Result<(), CardError> {
    md.push_str("## How they were built\n\n");
    let cutoff = run
        .text("/config/pipeline/cutoff")
        .unwrap_or("(not stated)");
    let _ = writeln!(
        md,
        "- **Knowledge cutoff**: {}; the windows above.",
        code(cutoff)
    );
    relative_dates(md, run);
    sources_and_sections(md, dir, configs)?;
    for (name, stage) in run.stages_of("wikidata") {
        let dump = inputs(run, name, "dump");
        let dump = if dump.is_empty() {
            option(stage, "dump").unwrap_or_default()
        } else {
            dump.join(", ")
        };
        let relations = relations(stage);
        let _ = writeln!(
            md,
            "- **Evolving facts** (stage `{name}`): Wikidata dump {dump}; relations {relations}. \
             A dump's date is in its file name (`latest-all` is the day it was downloaded)."
        );
    }
    for (name, stage) in run.stages_of("wikidata-live") {
        live_facts(md, run, name, stage);
    }
    for (name, stage) in run.stages_of("conflicts") {
        if let Some(file) = option(stage, "facts_file") {
            let _ = writeln!(
                md,
                "- **Evolving facts** (stage `{name}`): the facts file {file}."
            );
        }
    }
    for kind in ["wayback-cdx", "wayback-feeds"] {
        for (name, stage) in run.stages_of(kind) {
            let from = option(stage, "from").unwrap_or_else(|| "the first set's start".into());
            let to = option(stage, "to").unwrap_or_else(|| "the last set's end".into());
            let urls = option(stage, "urls")
                .or_else(|| option(stage, "feeds"))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "- **Crawl** (stage `{name}`, {kind}): the Internet Archive's captures of {urls} from {from} to {to}."
            );
        }
    }
    for (name, _) in run.stages_of("warc") {
        let files = inputs(run, name, "paths");
        let _ = writeln!(
            md,
            "- **Archived pages** (stage `{name}`): WARC files {}.",
            files.join(", ")
        );
    }
    for (name, stage) in run.stages_of("exclude") {
        let _ = writeln!(
            md,
            "- **Exclusion lists** (stage `{name}`): {}.",
            exclusions(run, name, stage)
        );
    }
    for (name, stage) in run.stages_of("novelty") {
        let train = inputs(run, name, "train");
        let n = stage.get("n").and_then(Value::as_u64).unwrap_or(4);
        let min_bin = stage.get("min_bin").and_then(Value::as_u64).unwrap_or(100);
        let _ = writeln!(
            md,
            "- **Novelty** (stage `{name}`, Choubey et al. 2023): overlap of each summary's word \
             {n}-grams with the training summaries {}; bins of 5 points, merged until each holds \
             {min_bin} articles; the lowest bin is `T_nov`, the highest `T_sim`.",
            train.join(", ")
        );
    }
    md.push('\n');
    Ok(())
}

/// The `exclude` stage's options that name a training set's list: the option,
/// what its list is, and the option that picks the list's subsets, if any.
const EXCLUSION_LISTS: [(&str, &str, Option<&str>); 2] = [
    ("xsum_split", "XSum's split file", Some("xsum_subsets")),
    ("cnndm_urls", "CNN/DailyMail's URL lists", None),
];

/// What the `exclude` stage `name` left out: the articles of the lists its
/// options gave (as `run.json` describes the files), or that it was given none.
fn exclusions(run: &RunJson, name: &str, stage: &Value) -> String {
    let lists: Vec<String> = EXCLUSION_LISTS
        .iter()
        .filter_map(|(key, what, subsets_key)| {
            let files = inputs(run, name, key);
            let files = if files.is_empty() {
                option(stage, key)?
            } else {
                files.join(", ")
            };
            let subsets = subsets_key
                .and_then(|k| option(stage, k))
                .map_or_else(String::new, |s| format!("the subsets {s} of "));
            Some(format!("{subsets}{what} {files}"))
        })
        .collect();
    if lists.is_empty() {
        "none given, so no article was left out as training data".into()
    } else {
        format!("articles listed in {} are left out", lists.join(" or in "))
    }
}

/// Articles counted by (`source`, the value of another column).
type BySource = BTreeMap<(String, String), u64>;

/// Articles per source and section, and per source and what their summaries
/// are (`summary_source`), from the sets' Parquet files.
fn sources_and_sections(md: &mut String, dir: &Path, configs: &[Config]) -> Result<(), CardError> {
    let listed = |counts: &BySource| {
        if counts.is_empty() {
            return "none published".to_string();
        }
        counts
            .iter()
            .map(|((source, value), n)| format!("{} {} ({n})", code(source), code(value)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let [sections, summaries] = count_by_source(dir, configs, ["section", "summary_source"])?;
    let _ = writeln!(
        md,
        "- **Sources and sections** (articles): {}.",
        listed(&sections)
    );
    let _ = writeln!(
        md,
        "- **Reference summaries** (articles, by source and `summary_source`; \"Fields\" \
         below says what each is): {}.",
        listed(&summaries)
    );
    Ok(())
}

/// The sets' articles counted by `source` and each text column of `columns`
/// (empty where a record has no value), from their Parquet files: each file's
/// `source` is read once.
fn count_by_source<const N: usize>(
    dir: &Path,
    configs: &[Config],
    columns: [&str; N],
) -> Result<[BySource; N], CardError> {
    let mut counts: [BySource; N] = std::array::from_fn(|_| BTreeMap::new());
    let articles = articles_config(configs);
    for file in parquet_files(dir, configs, |c| c.name == articles) {
        let read = |name: &str| read_column(&file.path, name);
        let sources = read("source")?;
        for (column, counts) in columns.iter().zip(&mut counts) {
            for (source, value) in sources.iter().zip(read(column)?) {
                *counts
                    .entry((
                        source.clone().unwrap_or_default(),
                        value.unwrap_or_default(),
                    ))
                    .or_default() += 1;
            }
        }
    }
    Ok(counts)
}

/// The Parquet files of the configs `pick` takes, each named by its split.
fn parquet_files(dir: &Path, configs: &[Config], pick: impl Fn(&Config) -> bool) -> Vec<SetFile> {
    configs
        .iter()
        .filter(|c| pick(c))
        .flat_map(|c| &c.splits)
        .flat_map(|(split, files)| {
            files.iter().map(|f| SetFile {
                name: split.clone(),
                path: dir.join(&f.path),
                format: Format::Parquet,
            })
        })
        .collect()
}

fn tables(md: &mut String, dir: &Path, configs: &[Config]) -> Result<(), CardError> {
    let sets = parquet_files(dir, configs, |c| c.name == "sets");
    if sets.is_empty() {
        return Ok(());
    }
    let analyzed = sets
        .iter()
        .map(|set| Ok((set.name.clone(), crate::stats::analyze_set(set)?)))
        .collect::<Result<Vec<_>, crate::ReportError>>()?;
    let tables = crate::tables::aggregate(&analyzed, crate::TOP_ENTITIES)
        .map_err(crate::ReportError::from)?;
    let run = crate::run_info::read_run_info(&dir.join("run.json"))?;
    // The facts the card counts per relation: the facts configs' files.
    let facts = parquet_files(dir, configs, |c| c.kind == RecordKind::Fact);
    let relations = crate::relations::count(&analyzed, &facts)?;
    let discovery = crate::read::Discovery {
        sets,
        ..crate::read::Discovery::default()
    };
    let mut report = crate::assemble(discovery, tables, run, Vec::new(), Vec::new());
    report.relations = relations;
    report.scores = crate::scores::read(dir)?;
    if let Some(summary) = &report.scores {
        // The charts `tempora report` drew, where it did.
        report.charts = crate::scores::charts(summary)
            .iter()
            .map(|c| format!("{}/{}.svg", crate::CHARTS_DIR, c.name))
            .filter(|c| dir.join(c).is_file())
            .collect();
    }
    md.push_str("## The report's tables\n\n`tempora report DIR` writes these and more (charts, `report.json`).\n\n");
    md.push_str(&crate::markdown::main_tables(&report));
    Ok(())
}

fn fields(md: &mut String, configs: &[Config]) {
    md.push_str("## Fields\n\n");
    let all = tempora_sink::schema_doc::markdown();
    for kind in RecordKind::ALL {
        let users: Vec<&str> = configs
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| c.name)
            .collect();
        if users.is_empty() {
            continue;
        }
        let heading = format!("### `{kind}`\n");
        let Some(start) = all.find(&heading) else {
            continue;
        };
        let section = &all[start + heading.len()..];
        let end = section.find("### `").unwrap_or(section.len());
        let _ = writeln!(
            md,
            "### `{kind}` (configs {})\n{}",
            users.join(", "),
            section[..end].trim_end()
        );
        md.push('\n');
    }
}

/// The site profiles the run's `extract` stages read: the shipped ones and those
/// of their `profiles` folders (the shipped ones alone if a folder is gone).
fn site_profiles(run: &RunJson) -> Vec<SiteProfile> {
    let folder = run
        .stages_of("extract")
        .find_map(|(_, stage)| stage.get("profiles").and_then(Value::as_str));
    tempora_extract::load_profiles(folder.map(Path::new))
        .or_else(|_| tempora_extract::load_profiles(None))
        .unwrap_or_default()
}

fn licence_and_citation(
    md: &mut String,
    dir: &Path,
    run: &RunJson,
    configs: &[Config],
) -> Result<(), CardError> {
    let sources = set_sources(dir, configs)?;
    let profiles = site_profiles(run);
    licence(md, &profiles, &sources);
    md.push_str(
        "## Citation\n\n\
         Cite TempoSum for the method, the dataset whose style each source follows, and \
         Choubey et al. for the novelty partition:\n\n```bibtex\n",
    );
    md.push_str(TEMPOSUM);
    for profile in in_sets(&profiles, &sources) {
        if let Some(citation) = &profile.citation {
            md.push_str(citation);
        }
    }
    if configs.iter().any(|c| c.name == "novelty") {
        md.push_str(CHOUBEY);
    }
    md.push_str("```\n");
    Ok(())
}

/// The sites (`source`) of the sets' articles, from their Parquet files.
fn set_sources(dir: &Path, configs: &[Config]) -> Result<BTreeSet<String>, CardError> {
    let mut sources = BTreeSet::new();
    for file in configs
        .iter()
        .filter(|c| c.name == "sets")
        .flat_map(|c| &c.splits)
        .flat_map(|(_, f)| f)
    {
        let path = dir.join(&file.path);
        let f = std::fs::File::open(&path).map_err(CardError::io(&path))?;
        let column = tempora_sink::parquet::read_text_column(f, "source").map_err(|e| {
            CardError::NotOutput {
                path: path.clone(),
                reason: format!("cannot read column `source`: {e}"),
            }
        })?;
        sources.extend(column.into_iter().flatten());
    }
    Ok(sources)
}

/// The profiles of the sites in the sets, or every profile when the sets name
/// none: whose publishers' terms apply and whose datasets are cited.
fn in_sets<'p>(
    profiles: &'p [SiteProfile],
    sources: &'p BTreeSet<String>,
) -> impl Iterator<Item = &'p SiteProfile> {
    profiles
        .iter()
        .filter(|p| sources.is_empty() || sources.contains(&p.site))
}

/// The licence note: the publishers whose work the articles are (by the names
/// their profiles give, else as the publisher of the site and its hosts) and the
/// datasets of the same sites.
fn licence(md: &mut String, profiles: &[SiteProfile], sources: &BTreeSet<String>) {
    let mut publishers: Vec<String> = in_sets(profiles, sources)
        .map(|p| match (&p.publisher, p.hosts.as_slice()) {
            (Some(name), _) => name.clone(),
            (None, []) => format!("the publisher of {}", code(&p.site)),
            (None, hosts) => format!("the publisher of {} ({})", code(&p.site), hosts.join(", ")),
        })
        .collect();
    // A site in the sets whose profile this card cannot load is named all the same.
    let profiled = |s: &String| profiles.iter().any(|p| &p.site == s);
    publishers.extend(
        sources
            .iter()
            .filter(|s| !profiled(s))
            .map(|s| format!("the publisher of {}", code(s))),
    );
    let work = match publishers.as_slice() {
        [] => "the original publishers' work".to_string(),
        [one] => format!("the work of {one}"),
        [many @ .., last] => format!("the work of {} and {last}", many.join(", ")),
    };
    let datasets = if in_sets(profiles, sources).any(|p| p.citation.is_some()) {
        ", as they do to the datasets whose style the sets follow (cited below)"
    } else {
        ""
    };
    let _ = writeln!(
        md,
        "## Licence\n\nThe articles, summaries and titles are {work}, retrieved from the \
         Internet Archive; their licences and terms apply{datasets}, and the data is for \
         research. The Wikidata facts are CC0. Tempora's own \
         code is MIT OR Apache-2.0.\n"
    );
}

const TEMPOSUM: &str = "@inproceedings{cheang-etal-2023-temposum,
  title = {Can {LM}s Generalize to Future Data? An Empirical Analysis on Text Summarization},
  author = {Cheang, Chi Seng and Chan, Hou Pong and Wong, Derek F. and Liu, Xuebo and Li, Zhaocong and Sun, Yanming and Liu, Shudong and Chao, Lidia S.},
  booktitle = {Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing},
  year = {2023},
  doi = {10.18653/v1/2023.emnlp-main.1007}
}
";

const CHOUBEY: &str = "@inproceedings{choubey-etal-2023-lexical,
  title = {Lexical Repetitions Lead to Rote Learning: Unveiling the Impact of Lexical Overlap in Train and Test Reference Summaries},
  author = {Choubey, Prafulla Kumar and Fabbri, Alexander R. and Xiong, Caiming and Wu, Chien-Sheng},
  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2023},
  year = {2023}
}
";

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tempora_extract::profile::{parse_profile, SHIPPED};

    use super::*;

    /// A run whose stage `unseen` is an `exclude` stage with `options`, which
    /// read the files `inputs` lists as (option, path).
    fn run_excluding(options: Value, inputs: &[(&str, &str)]) -> RunJson {
        let mut stage = json!({ "kind": "exclude", "inputs": ["articles"] });
        stage
            .as_object_mut()
            .unwrap()
            .extend(options.as_object().unwrap().clone());
        let inputs: Vec<Value> = inputs
            .iter()
            .map(|(option, path)| {
                json!({ "stage": "unseen", "option": option, "path": path,
                        "modified": "2024-05-01T00:00:00Z", "sha256": "ab12" })
            })
            .collect();
        RunJson {
            path: "run.json".into(),
            value: json!({
                "config": { "pipeline": { "cutoff": "2019-12-31" }, "stages": { "unseen": stage } },
                "inputs": inputs,
            }),
        }
    }

    /// The card's "Exclusion lists" line of `run`.
    fn exclusion_line(run: &RunJson) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut md = String::new();
        built(&mut md, dir.path(), run, &[]).unwrap();
        md.lines()
            .find(|l| l.starts_with("- **Exclusion lists**"))
            .unwrap_or_else(|| panic!("no exclusion line in\n{md}"))
            .to_string()
    }

    fn profile(file: &str) -> SiteProfile {
        let (_, text) = SHIPPED.iter().find(|(f, _)| *f == file).unwrap();
        parse_profile(file, text).unwrap()
    }

    fn licence_of(profiles: &[SiteProfile], sources: &[&str]) -> String {
        let sources = sources.iter().map(|s| s.to_string()).collect();
        let mut md = String::new();
        licence(&mut md, profiles, &sources);
        md
    }

    #[test]
    fn a_cnndm_list_alone_is_named_and_xsum_is_not() {
        let run = run_excluding(
            json!({ "cnndm_urls": ["lists/all_test.txt"] }),
            &[("cnndm_urls", "lists/all_test.txt")],
        );
        let line = exclusion_line(&run);
        assert_eq!(
            line,
            "- **Exclusion lists** (stage `unseen`): articles listed in CNN/DailyMail's URL \
             lists `lists/all_test.txt` (modified 2024-05-01, SHA-256 `ab12`) are left out."
        );
        assert!(!line.contains("XSum"), "{line}");
    }

    #[test]
    fn an_xsum_split_alone_is_named_with_its_subsets_and_cnndm_is_not() {
        let run = run_excluding(
            json!({ "xsum_split": "xsum.json", "xsum_subsets": ["train", "validation"] }),
            &[("xsum_split", "xsum.json")],
        );
        let line = exclusion_line(&run);
        assert!(
            line.ends_with(
                "articles listed in the subsets `train`, `validation` of XSum's split file \
                 `xsum.json` (modified 2024-05-01, SHA-256 `ab12`) are left out."
            ),
            "{line}"
        );
        assert!(!line.contains("CNN"), "{line}");
    }

    #[test]
    fn both_lists_are_named_each_with_its_files() {
        let run = run_excluding(
            json!({ "xsum_split": "x.json", "cnndm_urls": ["a.txt", "b.txt"] }),
            &[
                ("xsum_split", "x.json"),
                ("cnndm_urls", "a.txt"),
                ("cnndm_urls", "b.txt"),
            ],
        );
        let line = exclusion_line(&run);
        assert!(
            line.contains("XSum's split file `x.json` (modified"),
            "{line}"
        );
        assert!(
            line.contains(
                "or in CNN/DailyMail's URL lists `a.txt` (modified 2024-05-01, \
                 SHA-256 `ab12`), `b.txt` (modified"
            ),
            "{line}"
        );
    }

    #[test]
    fn a_list_run_json_does_not_describe_is_named_from_the_options() {
        let run = run_excluding(json!({ "cnndm_urls": ["a.txt"] }), &[]);
        assert!(
            exclusion_line(&run).ends_with("CNN/DailyMail's URL lists `a.txt` are left out."),
            "{}",
            exclusion_line(&run)
        );
    }

    #[test]
    fn no_list_given_says_so_and_names_no_dataset() {
        let line = exclusion_line(&run_excluding(json!({}), &[]));
        assert_eq!(
            line,
            "- **Exclusion lists** (stage `unseen`): none given, so no article was left out as \
             training data."
        );
    }

    #[test]
    fn the_licence_names_only_the_publishers_of_the_runs_profiles() {
        let bbc_only = licence_of(&[profile("bbc.toml")], &[]);
        assert!(
            bbc_only.contains("are the work of BBC, retrieved"),
            "{bbc_only}"
        );
        assert!(!bbc_only.contains("`bbc`"), "{bbc_only}");
        assert!(!bbc_only.to_lowercase().contains("cnn"), "{bbc_only}");
        assert!(!bbc_only.contains("XSum"), "{bbc_only}");
        assert!(
            bbc_only
                .contains("as they do to the datasets whose style the sets follow (cited below)"),
            "{bbc_only}"
        );
    }

    #[test]
    fn the_licence_names_the_publishers_in_the_sets_or_every_one_when_they_name_none() {
        let both = [profile("bbc.toml"), profile("cnn.toml")];
        let all = licence_of(&both, &[]);
        assert!(
            all.contains("are the work of BBC and CNN, retrieved"),
            "{all}"
        );
        let cnn_sets = licence_of(&both, &["cnn"]);
        assert!(
            cnn_sets.contains("are the work of CNN, retrieved"),
            "{cnn_sets}"
        );
        assert!(!cnn_sets.to_lowercase().contains("bbc"), "{cnn_sets}");
        // A site of the sets whose profile is not loaded is named by its site.
        let gazette = licence_of(&both, &["cnn", "gazette"]);
        assert!(
            gazette.contains("the work of CNN and the publisher of `gazette`, retrieved"),
            "{gazette}"
        );
        // A profile that names no publisher is named by its site and hosts.
        let mut unnamed = profile("cnn.toml");
        unnamed.publisher = None;
        let text = licence_of(&[profile("bbc.toml"), unnamed], &[]);
        assert!(
            text.contains("the work of BBC and the publisher of `cnn` (cnn.com), retrieved"),
            "{text}"
        );
    }

    #[test]
    fn the_licence_speaks_of_datasets_only_when_a_site_follows_one() {
        let mut bare = profile("bbc.toml");
        bare.citation = None;
        let text = licence_of(&[bare], &[]);
        assert!(
            text.contains("their licences and terms apply, and the data is for research"),
            "{text}"
        );
        assert!(!text.contains("datasets"), "{text}");
    }

    /// The card's table of sets, for a run whose `config.pipeline` is `pipeline`.
    fn sets_table(pipeline: Value) -> Vec<String> {
        let run = RunJson {
            path: "run.json".into(),
            value: json!({ "config": { "pipeline": pipeline, "stages": {} } }),
        };
        let mut md = String::new();
        sets(&mut md, Path::new("."), &run, &[]).unwrap();
        md.lines()
            .skip_while(|l| !l.starts_with("| set |"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(str::to_string)
            .collect()
    }

    /// The table of sets gives the days the run used: bounds that name the
    /// cutoff resolved against it, open ends as open, the default sets where the
    /// pipeline wrote none.
    #[test]
    fn the_sets_are_shown_by_the_days_the_run_used() {
        let written = sets_table(json!({ "cutoff": "2020-12-31", "sets": {
            "in_distribution": { "from": "2015-01-01", "to": "cutoff" },
            "future": { "from": "after_cutoff" },
        } }));
        assert_eq!(
            written,
            [
                "| in_distribution | 2015-01-01 | 2020-12-31 | 0 |",
                "| future | 2021-01-01 | open | 0 |",
            ]
        );
        let bounded = sets_table(json!({ "cutoff": "2019-12-31", "sets": {
            "future": { "from": "after_cutoff", "to": "2022-12-31" },
        } }));
        assert_eq!(bounded, ["| future | 2020-01-01 | 2022-12-31 | 0 |"]);
        let default = sets_table(json!({ "cutoff": "2019-12-31" }));
        assert_eq!(
            default,
            [
                "| in_distribution | open | 2019-12-31 | 0 |",
                "| future | 2020-01-01 | open | 0 |",
            ]
        );
        // A record whose bounds do not resolve shows them as written.
        let unknown = sets_table(json!({ "cutoff": "2019-12-31", "sets": {
            "future": { "from": "next_week" },
        } }));
        assert_eq!(unknown, ["| future | next_week | open | 0 |"]);
    }

    /// A run that wrote dates relative to it says so under "How they were
    /// built", with its run day; one that wrote none says nothing of them.
    #[test]
    fn the_dates_relative_to_the_run_are_said_with_the_run_day() {
        let line = |dates: Value| {
            let run = RunJson {
                path: "run.json".into(),
                value: json!({ "dates": dates }),
            };
            let mut md = String::new();
            relative_dates(&mut md, &run);
            md
        };
        let said = line(json!({ "run_day": "2026-11-29", "relative": [
            { "key": "pipeline.cutoff", "written": "run - 365 days", "value": "2025-11-29" },
            { "key": "pipeline.sets.future.from", "written": "run_month", "value": "2026-11-01" },
        ] }));
        assert_eq!(
            said,
            "- **Dates relative to the run** (run day 2026-11-29): `pipeline.cutoff` = \
             `run - 365 days` -> 2025-11-29; `pipeline.sets.future.from` = `run_month` -> \
             2026-11-01.\n"
        );
        assert_eq!(line(json!({ "run_day": "2026-11-29", "relative": [] })), "");
        assert_eq!(line(Value::Null), "");
    }

    /// The card names the relations of a facts stage by the shipped
    /// catalogue's labels; a name or id the catalogue lacks as given.
    #[test]
    fn a_facts_stage_s_relations_are_named_by_their_labels() {
        let stage = json!({ "relations": ["head-coach", "P39", "party-member", "P102"] });
        assert_eq!(
            relations(&stage),
            "head coach (P286), position held (P39), `party-member`, `P102`"
        );
        assert_eq!(
            relations(&json!({})),
            "position held (P39), officeholder (P1308)"
        );
    }

    /// The card names the Wikidata reading its facts are of: when, how many
    /// entities, the pinned file and its SHA-256; and says when a run could not
    /// refresh it.
    #[test]
    fn live_facts_are_named_by_their_reading() {
        let run = |refreshed: bool, warnings: Value| RunJson {
            path: "run.json".into(),
            value: json!({
                "config": { "pipeline": { "cutoff": "2019-12-31" },
                            "stages": { "facts": { "kind": "wikidata-live" } } },
                "stages": [{ "name": "facts", "metrics": { "reading": {
                    "read_at": "2026-11-28T02:31:07.5Z", "entities": 1234,
                    "sha256": "cd34", "refreshed": refreshed } } }],
                "inputs": [{ "stage": "facts", "option": "reading", "path": "state/wd.json.gz",
                             "modified": "2026-11-28T02:31:08Z", "sha256": "cd34" }],
                "warnings": warnings,
            }),
        };
        let line = |run: &RunJson| {
            let dir = tempfile::tempdir().unwrap();
            let mut md = String::new();
            built(&mut md, dir.path(), run, &[]).unwrap();
            md.lines()
                .find(|l| l.starts_with("- **Evolving facts**"))
                .unwrap_or_else(|| panic!("no facts line in\n{md}"))
                .to_string()
        };
        let fresh = line(&run(true, json!([])));
        assert!(
            fresh.contains(
                "on 2026-11-28 02:31 UTC: 1234 entities, pinned in `state/wd.json.gz` \
                            (modified 2026-11-28, SHA-256 `cd34`)"
            ),
            "{fresh}"
        );
        assert!(!fresh.contains("This run"), "{fresh}");
        let pinned = line(&run(false, json!([])));
        assert!(
            pinned.ends_with("This run read the pinned reading, not the services."),
            "{pinned}"
        );
        let fell_back = line(&run(
            false,
            json!([{ "stage": "facts", "why": "Wikidata's services could not be read (HTTP 503)" }]),
        ));
        assert!(
            fell_back.ends_with("its facts are that earlier reading's."),
            "{fell_back}"
        );
    }
}
