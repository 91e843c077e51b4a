//! What the docs show of commands that run offline, run as shown and held to the
//! figures they quote: the demo's report table and article (docs/guide.md), the
//! dry-run plans of the shipped pipelines (docs/guide.md's new cutoff and
//! benches/README.md's table), the guide's `tempora novelty` command, and
//! `validate`, `graph` and `card` on what the docs apply them to. A doc that
//! drifts from the binary fails here.

use std::path::Path;
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn doc(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap()
}

fn tempora(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tempora"))
        .current_dir(ROOT)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The numbers of a piece of text, commas removed: `884 CDX, 955,746 page
/// requests; about 33.2 hours` is `[884, 955746, 33.2]`.
fn numbers(s: &str) -> Vec<f64> {
    s.split(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .map(|t| t.trim_matches(|c| c == ',' || c == '.').replace(',', ""))
        .filter(|t| !t.is_empty())
        .filter_map(|t| t.parse().ok())
        .collect()
}

/// The demo run into `out`.
fn run_demo(out: &Path) {
    let o = tempora(&[
        "run",
        "pipelines/demo.toml",
        "--progress",
        "off",
        "--set",
        &format!("pipeline.out=\"{}\"", out.display()),
    ]);
    assert!(o.status.success(), "{}", text(&o));
}

/// The CDX requests, page requests and hours of a dry run's closing estimate.
fn dry_run_estimate(args: &[&str]) -> (f64, f64, f64) {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.push("--dry-run");
    let o = tempora(&all);
    let out = text(&o);
    let line = out
        .lines()
        .find(|l| l.starts_with("estimate of the run:"))
        .unwrap_or_else(|| panic!("no estimate of the run in:\n{out}"));
    let n = numbers(line);
    assert!(n.len() >= 3, "{line}");
    (n[0], n[1], n[2])
}

#[test]
fn the_guide_shows_the_demos_report_table_and_article() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    run_demo(&out);
    let guide = doc("docs/guide.md");

    // "`tempora report out/demo` writes ...; part of its table of the run:"
    let o = tempora(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let from = guide.find("`tempora report out/demo` writes").unwrap();
    let rows: Vec<&str> = guide[from..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|---") && !l.starts_with("| stage"))
        .collect();
    assert!(rows.len() >= 3, "the guide's table: {rows:?}");
    for row in rows {
        assert!(
            report.lines().any(|l| l == row),
            "the guide's row {row:?} is not in report.md:\n{report}"
        );
    }

    // "A few fields of the demo's `future.jsonl`": each field the guide quotes
    // whole has the demo's value.
    let start = guide
        .find("A few fields of the demo's `future.jsonl`")
        .unwrap();
    let block = &guide[start..];
    let block = &block[block.find("```json").unwrap()..];
    let block = &block[..block[7..].find("```").unwrap() + 7];
    let quoted = |key: &str| -> String {
        let at = block.find(&format!("\"{key}\": ")).unwrap() + key.len() + 4;
        let rest = &block[at..];
        let end = match rest.strip_prefix('"') {
            Some(string) => string.find('"').unwrap() + 2,
            None => rest.find([',', '}']).unwrap(),
        };
        rest[..end].to_string()
    };
    let id: String = serde_json::from_str(&quoted("id")).unwrap();
    let future = std::fs::read_to_string(out.join("future.jsonl")).unwrap();
    let article: serde_json::Value = future
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|a| a["id"] == id.as_str())
        .unwrap_or_else(|| panic!("the guide's article {id} is not in the demo's future set"));
    for key in [
        "url",
        "source",
        "section",
        "published",
        "title",
        "summary_source",
        "split",
    ] {
        let shown: serde_json::Value = serde_json::from_str(&quoted(key)).unwrap();
        assert_eq!(article[key], shown, "the guide's `{key}` of article {id}");
    }
    let novelty = &article["novelty"];
    for key in ["overlap", "bin", "tag"] {
        let shown: serde_json::Value = serde_json::from_str(&quoted(key)).unwrap();
        assert_eq!(
            novelty[key], shown,
            "the guide's novelty `{key}` of article {id}"
        );
    }
    let summary = quoted("summary");
    let shown = summary.trim_matches('"').trim_end_matches(", ...");
    assert!(
        article["summary"].as_str().unwrap().starts_with(shown),
        "the guide's summary of article {id}: {shown}"
    );

    // The guide's `tempora novelty` command, on this demo's future set.
    let from = guide.find("tempora novelty --train").unwrap();
    let command: String = guide[from..]
        .lines()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
        .replace('\\', " ")
        .replace("out/demo", out.to_str().unwrap());
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let o = tempora(&args);
    assert!(o.status.success(), "{command}: {}", text(&o));
    let written = std::fs::read_to_string(out.join("future.novelty.jsonl")).unwrap();
    assert_eq!(written.lines().count(), future.lines().count(), "{command}");

    // `tempora card OUT` writes the card again from the folder.
    std::fs::remove_file(out.join("README.md")).unwrap();
    let o = tempora(&["card", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(out.join("README.md").exists());
}

#[test]
fn the_guide_and_the_benches_readme_quote_the_dry_runs() {
    // The guide's new cutoff: "for the BBC set with one year after the new
    // cutoff, 884 CDX and 955,746 page requests, about 33 hours ... (the CNN
    // set, ...: 813 CDX and 1,353,828 page requests, 47 hours".
    let guide = doc("docs/guide.md");
    let new_cutoff = [
        "--set",
        "pipeline.cutoff=2023-12-31",
        "--set",
        "pipeline.sets.future.to=2024-12-31",
    ];
    let with = |pipeline: &'static str| {
        let mut args = vec![pipeline];
        args.extend_from_slice(&new_cutoff);
        args
    };
    let bbc = dry_run_estimate(&with("pipelines/temposum-bbc.toml"));
    let cnn = dry_run_estimate(&with("pipelines/temposum-cnn.toml"));
    let said = |anchor: &str| -> Vec<f64> {
        let at = guide.find(anchor).unwrap_or_else(|| panic!("{anchor}"));
        let sentence = &guide[at..];
        let end = sentence.find("hours").unwrap();
        numbers(&sentence[anchor.len()..end])
    };
    let bbc_said = said("for the BBC set with one year after the new cutoff,");
    assert_eq!(bbc_said[..2], [bbc.0, bbc.1], "the guide's BBC plan");
    assert_eq!(bbc_said[2], bbc.2.round(), "the guide's BBC hours");
    let cnn_said = said("hosts:");
    assert_eq!(cnn_said[..2], [cnn.0, cnn.1], "the guide's CNN plan");
    assert_eq!(cnn_said[2], cnn.2.round(), "the guide's CNN hours");

    // benches/README.md's table: fixed plans exactly; open-ended ones (whose
    // sets run to today) at least as large as when the table was written.
    let benches = doc("benches/README.md");
    let table = &benches[benches.find("| pipeline | CDX requests").unwrap()..];
    let rows: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows.len(), 6, "{rows:?}");
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let name = cells[0];
        let file = name.split('`').nth(1).unwrap();
        let pipeline = format!("pipelines/{file}.toml");
        let mut args = vec![pipeline.as_str()];
        if name.contains("cutoff 2023-12-31") || name.contains("the same") {
            args.extend_from_slice(&new_cutoff);
        }
        let (cdx, pages, hours) = dry_run_estimate(&args);
        let quoted: Vec<f64> = cells[1..4].iter().map(|c| numbers(c)[0]).collect();
        if name.contains("open-ended") {
            assert!(
                cdx >= quoted[0] && pages >= quoted[1],
                "{name}: the table says {quoted:?}, the dry run {cdx} {pages}"
            );
        } else {
            assert_eq!(quoted[..2], [cdx, pages], "{name}");
            assert!(
                (quoted[2] - hours).abs() < 0.051,
                "{name}: {quoted:?} vs {hours}"
            );
        }
    }
}

#[test]
fn every_shipped_pipeline_needs_what_the_readme_says_and_draws_its_graph() {
    // The README's table: `| `pipelines/NAME.toml` | builds | `VAR`, `VAR` |`.
    let readme = doc("README.md");
    let table = &readme[readme
        .find("| pipeline | builds | environment variables |")
        .unwrap()..];
    let rows: Vec<(String, Vec<String>)> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
            let file = cells[0].trim_matches('`').to_string();
            let vars = cells[2]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            (file, vars)
        })
        .collect();
    let mut shipped: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("pipelines"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| format!("pipelines/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    shipped.sort();
    let mut listed: Vec<String> = rows.iter().map(|(f, _)| f.clone()).collect();
    listed.sort();
    assert_eq!(
        listed, shipped,
        "the README's table lists every shipped pipeline"
    );
    let every_var: Vec<&String> = rows.iter().flat_map(|(_, v)| v).collect();

    for (name, vars) in &rows {
        // `tempora graph` draws a shipped pipeline without its data.
        let o = tempora(&["graph", name]);
        let dot = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(o.status.success(), "{name}: {}", text(&o));
        let file: toml::Table =
            toml::from_str(&std::fs::read_to_string(Path::new(ROOT).join(name)).unwrap()).unwrap();
        for stage in file["stages"].as_table().unwrap().keys() {
            assert!(
                dot.contains(&format!("\"{stage}\" [")),
                "{name}: no {stage} in\n{dot}"
            );
        }
        // `tempora validate` with none of the variables set names exactly the
        // ones the README lists, and nothing else.
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
        cmd.current_dir(ROOT).args(["validate", name]);
        for var in &every_var {
            cmd.env_remove(var);
        }
        let o = cmd.output().unwrap();
        let said = text(&o);
        // Files under `state/` are another pipeline's (the nightly sets read the
        // nightly crawl's WARC files): missing until it has run; and the monthly
        // release's key, which its user makes once (its header says how).
        let problems: Vec<&str> = said
            .lines()
            .filter(|l| l.starts_with("  - "))
            .filter(|l| !l.contains("no file matches the pattern state/"))
            .filter(|l| !l.contains("cannot read the release key state/"))
            .collect();
        let mut named: Vec<String> = problems
            .iter()
            .map(|l| {
                assert!(l.contains("environment variable"), "{name}: {l}");
                l.split('`').nth(1).unwrap().to_string()
            })
            .collect();
        named.sort();
        named.dedup();
        let mut expected = vars.clone();
        expected.sort();
        assert_eq!(named, expected, "{name}: {said}");
        assert_eq!(
            o.status.code(),
            Some(if vars.is_empty() { 0 } else { 2 }),
            "{said}"
        );
    }
}
