//! The card's Markdown body: the release, what the sets are, how they were built
//! (all from `run.json` and the files), the report's main tables, the fields, the
//! licence note and the citations.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;
use tempora_records::RecordKind;

use super::layout::{Config, RunJson};
use super::CardError;
use crate::markdown::{cell, code};
use crate::read::{Format, SetFile};

/// Relations the `wikidata` stage reads when its options name none.
const DEFAULT_RELATIONS: &str = "P39, P1308";

pub(super) fn render(dir: &Path, run: &RunJson, configs: &[Config]) -> Result<String, CardError> {
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
    release(&mut md, run);
    super::health::render(&mut md, dir, run);
    loading(&mut md, configs);
    sets(&mut md, run, configs);
    super::withheld::render(&mut md, dir);
    // A rebuilt set is the original's: its card says how that was built.
    let origin = run.value.get("rebuilt_from").map(|pinned| RunJson {
        path: run.path.clone(),
        value: pinned.clone(),
    });
    built(&mut md, dir, origin.as_ref().unwrap_or(run), configs)?;
    rebuild(&mut md, configs);
    tables(&mut md, dir, configs)?;
    fields(&mut md, configs);
    licence_and_citation(&mut md, dir, run, configs)?;
    Ok(md)
}

fn release(md: &mut String, run: &RunJson) {
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

/// How a lab rebuilds the sets from the manifest, when the folder has one.
fn rebuild(md: &mut String, configs: &[Config]) {
    if !configs.iter().any(|c| c.name == "manifest") {
        return;
    }
    md.push_str(
        "## Rebuilding the sets\n\n\
         The publishers' text is not redistributed. The `manifest` config (`manifest.jsonl`, \
         with `manifest.inputs.json` beside it, and `manifest.facts.jsonl` where the sets \
         were matched with evolving facts) lists each article without it: the Internet Archive capture it was read from (`timestamp`, \
         `archived_url`), the digests of its bytes and of what was read from them, its set, \
         its novelty bin and the evolving facts it names (Wikidata, CC0). Anyone can rebuild \
         the same files from it, with no listing, dump or exclusion list:\n\n\
         ```sh\ntempora rebuild manifest.jsonl --out rebuilt --contact you@example.org\n```\n\n\
         It fetches each capture once, at the Archive's limits, and names every article it \
         cannot rebuild as listed (a capture no longer served, bytes that changed, a page \
         the current extractor reads otherwise).\n\n",
    );
}

fn loading(md: &mut String, configs: &[Config]) {
    md.push_str("## Loading\n\n```python\nimport datasets\n");
    md.push_str("sets = datasets.load_dataset(\"PATH\")            # the default config: the sets as splits\n");
    for c in configs.iter().filter(|c| c.name != "sets") {
        let _ = writeln!(md, "{0} = datasets.load_dataset(\"PATH\", \"{0}\")", c.name);
    }
    md.push_str("```\n\n`PATH` is this folder, or `USER/REPO` once it is on the Hub.\n\n");
    md.push_str("| config | split | rows | files |\n|---|---|---:|---|\n");
    for c in configs {
        for (split, files) in &c.splits {
            let rows: u64 = files.iter().map(|f| f.rows).sum();
            let names: Vec<String> = files.iter().map(|f| code(&f.path)).collect();
            let _ = writeln!(
                md,
                "| {} | {} | {rows} | {} |",
                c.name,
                cell(split),
                names.join(", ")
            );
        }
    }
    md.push('\n');
}

fn sets(md: &mut String, run: &RunJson, configs: &[Config]) {
    md.push_str("## What the sets are\n\n");
    let _ =
        writeln!(
        md,
        "Each set is a window of publication dates; `future` starts after the knowledge cutoff \
         {}. An article is kept when its document names both sides of an evolving Wikidata fact \
         and its summary names one of them.\n",
        code(run.text("/config/pipeline/cutoff").unwrap_or("(not stated)"))
    );
    let rows: BTreeMap<&str, u64> = configs
        .iter()
        .filter(|c| c.name == "sets")
        .flat_map(|c| &c.splits)
        .map(|(split, files)| (split.as_str(), files.iter().map(|f| f.rows).sum()))
        .collect();
    md.push_str("| set | from | to | articles |\n|---|---|---|---:|\n");
    let windows = run
        .value
        .pointer("/config/pipeline/sets")
        .and_then(Value::as_object);
    for (name, window) in windows.into_iter().flatten() {
        let date = |key: &str| window.get(key).and_then(Value::as_str).unwrap_or("open");
        let n = rows.get(name.as_str()).copied().unwrap_or(0);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {n} |",
            cell(name),
            date("from"),
            date("to")
        );
    }
    md.push('\n');
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

/// The input files `run.json` lists for a stage's option, with date and checksum.
fn inputs(run: &RunJson, stage: &str, key: &str) -> Vec<String> {
    run.value
        .get("inputs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| {
            i.get("stage").and_then(Value::as_str) == Some(stage)
                && i.get("option").and_then(Value::as_str) == Some(key)
        })
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
    sources_and_sections(md, dir, configs)?;
    for (name, stage) in run.stages_of("wikidata") {
        let dump = inputs(run, name, "dump");
        let dump = if dump.is_empty() {
            option(stage, "dump").unwrap_or_default()
        } else {
            dump.join(", ")
        };
        let relations = option(stage, "relations").unwrap_or_else(|| DEFAULT_RELATIONS.into());
        let _ = writeln!(
            md,
            "- **Evolving facts** (stage `{name}`): Wikidata dump {dump}; relations {relations}. \
             A dump's date is in its file name (`latest-all` is the day it was downloaded)."
        );
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
    for (name, _) in run.stages_of("exclude") {
        let mut lists = inputs(run, name, "xsum_split");
        lists.extend(inputs(run, name, "cnndm_urls"));
        let _ =
            writeln!(
            md,
            "- **Exclusion lists** (stage `{name}`): articles in XSum or CNN/DailyMail are left \
             out: {}.",
            if lists.is_empty() { "none given".into() } else { lists.join(", ") }
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

/// Articles per source and section, from the sets' Parquet files.
fn sources_and_sections(md: &mut String, dir: &Path, configs: &[Config]) -> Result<(), CardError> {
    let mut counts: BTreeMap<(String, String), u64> = BTreeMap::new();
    for file in configs
        .iter()
        .filter(|c| c.name == "sets")
        .flat_map(|c| &c.splits)
        .flat_map(|(_, f)| f)
    {
        let path = dir.join(&file.path);
        let column = |name: &str| {
            let f = std::fs::File::open(&path).map_err(CardError::io(&path))?;
            tempora_sink::parquet::read_text_column(f, name).map_err(|e| CardError::NotOutput {
                path: path.clone(),
                reason: format!("cannot read column `{name}`: {e}"),
            })
        };
        for (source, section) in column("source")?.into_iter().zip(column("section")?) {
            *counts
                .entry((source.unwrap_or_default(), section.unwrap_or_default()))
                .or_default() += 1;
        }
    }
    let listed: Vec<String> = counts
        .iter()
        .map(|((source, section), n)| format!("{} {} ({n})", code(source), code(section)))
        .collect();
    let _ = writeln!(
        md,
        "- **Sources and sections** (articles): {}.",
        listed.join(", ")
    );
    Ok(())
}

fn tables(md: &mut String, dir: &Path, configs: &[Config]) -> Result<(), CardError> {
    let sets: Vec<SetFile> = configs
        .iter()
        .filter(|c| c.name == "sets")
        .flat_map(|c| &c.splits)
        .flat_map(|(split, files)| {
            files.iter().map(|f| SetFile {
                name: split.clone(),
                path: dir.join(&f.path),
                format: Format::Parquet,
            })
        })
        .collect();
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
    let discovery = crate::read::Discovery {
        sets,
        ..crate::read::Discovery::default()
    };
    let mut report = crate::assemble(discovery, tables, run, Vec::new(), Vec::new());
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
    let all = tempora_sink::schema::markdown();
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
fn site_profiles(run: &RunJson) -> Vec<tempora_extract::SiteProfile> {
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
    md.push_str(
        "## Licence\n\nThe articles, summaries and titles are the original publishers' work \
         (BBC, CNN, ...), retrieved from the Internet Archive; their licences and terms apply, \
         as they do to XSum and CNN/DailyMail, and the data is for research. The Wikidata facts \
         are CC0. Tempora's own code is MIT OR Apache-2.0.\n\n## Citation\n\n\
         Cite TempoSum for the method, the dataset whose style each source follows, and \
         Choubey et al. for the novelty partition:\n\n```bibtex\n",
    );
    md.push_str(TEMPOSUM);
    let mut sources: Vec<String> = Vec::new();
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
    // Each site's own dataset (its profile's `citation`): those of the sites in
    // the sets, or of every site when the sets name none.
    for profile in site_profiles(run) {
        let cited = sources.is_empty() || sources.contains(&profile.site);
        if let (true, Some(citation)) = (cited, &profile.citation) {
            md.push_str(citation);
        }
    }
    if configs.iter().any(|c| c.name == "novelty") {
        md.push_str(CHOUBEY);
    }
    md.push_str("```\n");
    Ok(())
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
