//! `tempora harness`: the demo's sets written as lm-evaluation-harness tasks, read
//! back here as the harness reads them (the subset of YAML the command writes),
//! without Python: each task names its set's own file by an absolute path, holds
//! the fields the harness needs, keeps a prompt of quotes and line breaks as
//! written, and a rerun writes the same bytes; what cannot be exported is refused,
//! named.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::bin::tempora_in;
use common::demo::run_into;
use common::said::said;
use serde_json::{json, Value};

/// The YAML `tempora harness` writes, read back: each scalar by its path
/// (`dataset_kwargs.data_files.test`, `generation_kwargs.until.0`), a quoted
/// one as the JSON string it is, an unquoted one as JSON (numbers, booleans).
/// Panics on anything else, so a line of another shape fails the test.
fn read_yaml(text: &str) -> BTreeMap<String, Value> {
    let mut values = BTreeMap::new();
    // The keys of the open mappings, by indentation; and the items seen per list.
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut items: BTreeMap<String, usize> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let indent = line.len() - line.trim_start().len();
        path.retain(|(i, _)| *i < indent);
        let parent: Vec<&str> = path.iter().map(|(_, k)| k.as_str()).collect();
        let mut entry = line.trim_start();
        let mut keys = parent.join(".");
        if let Some(item) = entry.strip_prefix("- ") {
            let n = items.entry(keys.clone()).or_insert(0);
            keys = format!("{keys}.{n}");
            *n += 1;
            path.push((indent, keys.rsplit('.').next().unwrap().to_string()));
            entry = item;
        }
        let (key, value) = match entry.split_once(": ") {
            Some((k, v)) if !k.starts_with('"') => (Some(k), v),
            _ => (None, entry),
        };
        let key = key.map(|k| k.trim_end_matches(':'));
        let name = match key {
            Some(k) if keys.is_empty() => k.to_string(),
            Some(k) => format!("{keys}.{k}"),
            None => keys.clone(),
        };
        if let Some(mapping) = entry.strip_suffix(':').filter(|_| key.is_none()) {
            path.push((indent + 1, mapping.to_string()));
            continue;
        }
        let value: Value = serde_json::from_str(value)
            .unwrap_or_else(|e| panic!("{line:?}: not a quoted string or a number: {e}"));
        values.insert(name, value);
    }
    values
}

/// `tempora harness ARGS` from `dir`: its exit code, stdout and stderr.
fn harness(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = tempora_in(dir, &[&["harness"], args].concat());
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The demo run into `dir/demo`: its folder.
fn demo(dir: &Path) -> PathBuf {
    let out = dir.join("demo");
    run_into(&out, &[]);
    out
}

#[test]
fn the_demo_becomes_a_task_per_set_and_a_group() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    // Relative paths, as a user types them: the task names absolute ones.
    let (code, stdout, stderr) = harness(dir.path(), &["demo", "--out", "tasks"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let tasks = dir.path().join("tasks");
    let mut names = Vec::new();
    for set in ["future", "in_distribution"] {
        let name = format!("tempora_demo_{set}");
        let text = read(&tasks.join(format!("{name}.yaml")));
        let yaml = read_yaml(&text);
        let file = out.canonicalize().unwrap().join(format!("{set}.parquet"));
        assert!(file.is_absolute() && file.is_file());
        let expected = [
            ("task", json!(name)),
            ("dataset_path", json!("parquet")),
            (
                "dataset_kwargs.data_files.test",
                json!(file.display().to_string()),
            ),
            ("test_split", json!("test")),
            ("output_type", json!("generate_until")),
            (
                "doc_to_text",
                json!(tempora_score::harness::task::DEFAULT_PROMPT),
            ),
            ("doc_to_target", json!("summary")),
            ("generation_kwargs.until.0", json!("\n\n")),
            ("generation_kwargs.max_gen_toks", json!(128)),
            ("generation_kwargs.do_sample", json!(false)),
            ("metric_list.0.metric", json!("bypass")),
            ("metadata.version", json!(1)),
        ];
        let expected: BTreeMap<String, Value> = expected
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(yaml, expected, "{text}");
        // The comments say how to run it (with --log_samples) and score it.
        assert!(text.contains("--log_samples"), "{text}");
        assert!(text.contains(&format!("samples_{name}_*.jsonl")), "{text}");
        assert!(stdout.contains(&format!("{name}: ")), "{stdout}");
        names.push(name);
    }
    let group = read_yaml(&read(&tasks.join("tempora_demo.yaml")));
    assert_eq!(group["group"], json!("tempora_demo"));
    assert_eq!(group["task.0"], json!(names[0]));
    assert_eq!(group["task.1"], json!(names[1]));
    assert_eq!(group.len(), 4, "{group:?}");
    assert_eq!(std::fs::read_dir(&tasks).unwrap().count(), 3);
}

#[test]
fn a_prompt_of_quotes_and_line_breaks_is_kept_and_a_rerun_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    demo(dir.path());
    let prompt = "He said: \"{{ title }}\" {a: b} # not a comment\n\t\\ {% if source == 'cnn' %}CNN{% endif %}\u{2028}\n\nArticle: {{document}}\n\nSummary:";
    std::fs::write(dir.path().join("prompt.txt"), format!("{prompt}\n")).unwrap();
    let args = [
        "demo",
        "--out",
        "tasks",
        "--prompt",
        "prompt.txt",
        "--max-gen-toks",
        "64",
        "--until",
        "\n",
        "--until",
        "###",
        "--name",
        "lab-1",
    ];
    let (code, stdout, stderr) = harness(dir.path(), &args);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let path = dir.path().join("tasks/lab-1_future.yaml");
    let first = read(&path);
    let yaml = read_yaml(&first);
    assert_eq!(yaml["doc_to_text"], json!(prompt));
    assert_eq!(yaml["task"], json!("lab-1_future"));
    assert_eq!(yaml["generation_kwargs.max_gen_toks"], json!(64));
    assert_eq!(yaml["generation_kwargs.until.0"], json!("\n"));
    assert_eq!(yaml["generation_kwargs.until.1"], json!("###"));
    assert!(first.contains("prompt.txt"), "{first}");
    assert!(
        !first.contains('\u{2028}'),
        "a YAML reader breaks the line there"
    );
    // Every line is a comment, a key or a list item: the prompt's line breaks
    // and separators are escapes.
    assert!(first
        .lines()
        .all(|l| l.starts_with('#') || l.contains(':') || l.trim_start().starts_with("- ")));
    let group = read(&dir.path().join("tasks/lab-1.yaml"));
    let (code, _, stderr) = harness(dir.path(), &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(read(&path), first);
    assert_eq!(read(&dir.path().join("tasks/lab-1.yaml")), group);
}

/// The words of a shell command line, as `sh` splits them.
fn shell_words(line: &str) -> Vec<String> {
    let run = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s\\n' {line}"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{line}: {}", said(&run));
    String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Folders with a space and a quote in their names: the command lines printed,
/// pasted into a shell, give each folder as one word, as the files' comments do.
#[test]
fn the_command_lines_printed_are_quoted_for_the_shell() {
    let dir = tempfile::tempdir().unwrap();
    let sets = dir.path().join("it's my sets");
    run_into(&sets, &[]);
    let args = ["it's my sets", "--out", "my tasks", "--name", "x"];
    let (code, stdout, stderr) = harness(dir.path(), &args);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let sets = sets.canonicalize().unwrap().display().to_string();
    let tasks = dir.path().join("my tasks").canonicalize().unwrap();
    let tasks = tasks.display().to_string();
    let line = |start: &str| {
        let line = stdout.lines().find_map(|l| l.strip_prefix(start));
        let line = line.unwrap_or_else(|| panic!("no {start:?} line: {stdout}"));
        // The placeholder of the model's folder, which the user replaces.
        shell_words(&line.replace("OUT/<model>/samples_x_*.jsonl", "SAMPLES"))
    };
    let run = line("run:");
    let at = run.iter().position(|w| w == "--include_path").unwrap();
    assert_eq!(run[at + 1], tasks, "{stdout}");
    let score = line("score:");
    assert_eq!(
        score,
        ["tempora", "score", &sets, "--predictions", "SAMPLES"],
        "{stdout}"
    );
    // The same quoting as the comments of the files.
    let yaml = read(&dir.path().join("my tasks/x_future.yaml"));
    for word in [&run[at + 1], &score[2]] {
        let quoted = format!("'{}'", word.replace('\'', r"'\''"));
        assert!(yaml.contains(&quoted), "{quoted}\n{yaml}");
        assert!(stdout.contains(&quoted), "{quoted}\n{stdout}");
    }
}

/// `--no-until`, for instruction-tuned models: no stop string (`until: []`, so
/// the harness stops at the model's end of sequence and cuts nothing), the
/// lines to run with the chat template; the default's comments point to it.
#[test]
fn no_until_writes_no_stop_string_for_chat_models() {
    let dir = tempfile::tempdir().unwrap();
    demo(dir.path());
    let args = ["demo", "--out", "chat", "--no-until"];
    let (code, stdout, stderr) = harness(dir.path(), &args);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let text = read(&dir.path().join("chat/tempora_demo_future.yaml"));
    let yaml = read_yaml(&text);
    assert_eq!(yaml["generation_kwargs.until"], json!([]), "{text}");
    assert!(!yaml.contains_key("generation_kwargs.until.0"), "{text}");
    assert!(
        text.contains("# Stops at: the model's end of sequence"),
        "{text}"
    );
    let chat = "--model_args pretrained=MODEL --apply_chat_template --tasks";
    assert!(text.contains(chat), "{text}");
    assert!(stdout.contains(chat), "{stdout}");
    let (code, stdout, stderr) = harness(dir.path(), &["demo", "--out", "base"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let text = read(&dir.path().join("base/tempora_demo_future.yaml"));
    assert!(
        text.contains("export with `tempora harness --no-until`"),
        "{text}"
    );
    assert!(!text.contains("--apply_chat_template --tasks"), "{text}");
    assert!(!stdout.contains("--apply_chat_template"), "{stdout}");
    let both = ["demo", "--out", "both", "--no-until", "--until", "###"];
    let (code, _, stderr) = harness(dir.path(), &both);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("'--no-until' cannot be used with '--until"),
        "{stderr}"
    );
}

#[test]
fn a_set_without_a_parquet_copy_is_read_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let sets = dir.path().join("jsonl");
    std::fs::create_dir(&sets).unwrap();
    std::fs::copy(out.join("future.jsonl"), sets.join("future.jsonl")).unwrap();
    let (code, stdout, stderr) = harness(dir.path(), &["jsonl", "--out", "tasks"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let future = read_yaml(&read(&dir.path().join("tasks/tempora_jsonl_future.yaml")));
    assert_eq!(future["dataset_path"], json!("json"));
    let file = sets.canonicalize().unwrap().join("future.jsonl");
    assert_eq!(
        future["dataset_kwargs.data_files.test"],
        json!(file.display().to_string())
    );
}

#[test]
fn an_empty_set_gets_no_task() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    run_into(&out, &["--set", "pipeline.sets.future.from=2030-01-01"]);
    let (code, stdout, stderr) = harness(dir.path(), &["demo", "--out", "tasks"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains("future: no article, no task written"),
        "{stderr}"
    );
    assert!(!dir.path().join("tasks/tempora_demo_future.yaml").exists());
    let group = read_yaml(&read(&dir.path().join("tasks/tempora_demo.yaml")));
    assert_eq!(group["task.0"], json!("tempora_demo_in_distribution"));
    assert!(!group.contains_key("task.1"));
}

#[test]
fn what_cannot_be_exported_is_refused_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let root = dir.path();
    let refused = |args: &[&str], words: &[&str]| {
        let (code, stdout, stderr) = harness(root, args);
        assert_eq!(code, Some(2), "{args:?}: {stdout}{stderr}");
        for w in words {
            assert!(stderr.contains(w), "{args:?}: {w:?} not in {stderr}");
        }
    };
    // A published folder: the manifest without the text.
    let publish = tempora_in(root, &["publish", "demo", "--to", "published"]);
    assert!(publish.status.success(), "{}", said(&publish));
    refused(
        &["published", "--out", "tasks"],
        &["no set file", "tempora rebuild"],
    );
    std::fs::write(root.join("a-file"), "").unwrap();
    refused(&["demo", "--out", "a-file"], &["a-file", "is a file"]);
    std::fs::write(root.join("empty.txt"), "\n \n").unwrap();
    refused(
        &["demo", "--out", "tasks", "--prompt", "empty.txt"],
        &["empty.txt", "empty"],
    );
    std::fs::write(root.join("none.txt"), "Sum up {{ text }}").unwrap();
    refused(
        &["demo", "--out", "tasks", "--prompt", "none.txt"],
        &["none.txt", "names no column"],
    );
    refused(
        &["demo", "--out", "tasks", "--name", "a b"],
        &["--name", "`a b`"],
    );
    refused(&["demo", "--out", "tasks", "--until", ""], &["--until"]);
    // Nothing was written by the refusals; the folder made for them is gone.
    assert!(!root.join("tasks").exists());
    // Another folder of the same name exported into the same folder: refused,
    // its tasks would overwrite the first's; with --name they stand side by side.
    let (code, _, stderr) = harness(root, &["demo", "--out", "tasks"]);
    assert_eq!(code, Some(0), "{stderr}");
    let other = root.join("elsewhere/demo");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(out.join("future.jsonl"), other.join("future.jsonl")).unwrap();
    refused(
        &["elsewhere/demo", "--out", "tasks"],
        &["tempora_demo_future.yaml", "another set folder", "--name"],
    );
    let (code, _, stderr) = harness(
        root,
        &["elsewhere/demo", "--out", "tasks", "--name", "other"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(root.join("tasks/other_future.yaml").is_file());
    // A YAML of the user's is never overwritten.
    std::fs::write(root.join("tasks/mine.yaml"), "task: mine\n").unwrap();
    refused(
        &["elsewhere/demo", "--out", "tasks", "--name", "mine"],
        &["mine.yaml", "not written by `tempora harness`"],
    );
    assert_eq!(read(&root.join("tasks/mine.yaml")), "task: mine\n");
}

#[test]
fn the_guide_shows_the_task_the_demo_gets() {
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path());
    let (code, _, stderr) = harness(dir.path(), &["demo", "--out", "tasks"]);
    assert_eq!(code, Some(0), "{stderr}");
    let written = read(&dir.path().join("tasks/tempora_demo_future.yaml"));
    let guide = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide.md"));
    let section = &guide[guide.find("## From a model to a score").unwrap()..];
    let block = &section[section.find("```yaml\n").unwrap() + 8..];
    let block = &block[..block.find("```").unwrap()];
    let shown = block.replace(
        "/home/me/tempora/out/demo",
        &out.canonicalize().unwrap().display().to_string(),
    );
    let keys = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(keys(&shown), keys(&written), "{written}");
}
