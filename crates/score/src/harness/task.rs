//! lm-evaluation-harness tasks for a folder of sets (`tempora harness`): one YAML
//! per set, so that the harness runs a model over the set's own file, and a group
//! YAML that names them all, so that one `--tasks` name runs every set.
//!
//! Each task reads its set's file by its absolute, canonical path (the harness
//! resolves a relative `data_files` against its working folder, not the YAML's):
//! the set's Parquet copy when the folder holds one (its schema is declared, so
//! `datasets` infers no type and dates stay `YYYY-MM-DD`), else the file the set
//! was found as. It is a `generate_until` task over the prompt ([`DEFAULT_PROMPT`]
//! or a Jinja template of the user's), with the set's `summary` as target and no
//! metric of the harness's own: `bypass`, which needs `--log_samples`, so that
//! the harness only writes what the model generated, and `tempora score` reads
//! those samples.
//!
//! The YAML is written here, not by a YAML library: every string is written as a
//! JSON string, a valid YAML double-quoted scalar ([`quote`]), so a prompt with
//! quotes, colons, braces or line breaks comes back as written. Each file opens
//! with comments that say what made it and how to run and score it. The same sets
//! and options give the same bytes.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::ScoreError;

/// The prompt of a task unless `--prompt` gives another: the article, asked for
/// in one sentence, as XSum's reference summaries are (and as the harness's own
/// CNN/DailyMail task asks, "Summarize the following article:"). One prompt for
/// every source keeps systems comparable across sites; the score judges the
/// claims a summary makes, not its overlap with the reference.
pub const DEFAULT_PROMPT: &str =
    "Summarize the following news article in one sentence.\n\n{{document}}\n\nSummary:";

/// The most tokens a model generates per summary unless `--max-gen-toks` says.
pub const DEFAULT_MAX_GEN_TOKS: u32 = 128;

/// Where generation stops unless `--until` says: a blank line, as the harness's
/// own tasks stop when they name no stop (its `fewshot_delimiter`), which ends a
/// base model's answer before it writes on. An instruction-tuned model run with
/// the chat template is exported with none (`--no-until`, `until: []`): the
/// harness cuts a response at the first stop string, and a chat answer may open
/// with a blank line ("Here is a summary:", a blank line, the summary); every
/// model backend of the harness then stops at the model's end of sequence.
pub const DEFAULT_UNTIL: &str = "\n\n";

/// The first line of every file written here; a file that does not open with it
/// is not overwritten.
const MARK: &str = "# Written by `tempora harness`";

/// A prompt: a Jinja template over a set's columns, and the file it came from
/// (none for [`DEFAULT_PROMPT`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The template.
    pub text: String,
    /// Its file.
    pub file: Option<PathBuf>,
}

impl Default for Prompt {
    fn default() -> Self {
        Self {
            text: DEFAULT_PROMPT.to_string(),
            file: None,
        }
    }
}

impl Prompt {
    /// The prompt in `path`, without the line break that ends the file (editors
    /// add one; a prompt that ends with one asks for it).
    ///
    /// # Errors
    /// The file cannot be read, is not UTF-8, or holds nothing but white space.
    pub fn read(path: &Path) -> Result<Self, ScoreError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScoreError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if text.trim().is_empty() {
            return Err(ScoreError::File {
                path: path.to_path_buf(),
                message: "the prompt is empty: write a Jinja template over the set's columns, \
                          such as `Summarize this article: {{document}}`"
                    .into(),
            });
        }
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        Ok(Self {
            text: text.to_string(),
            file: Some(path.to_path_buf()),
        })
    }

    /// Where the prompt comes from, in words.
    fn origin(&self) -> String {
        match &self.file {
            Some(file) => format!("from {}", file.display()),
            None => "Tempora's default (`--prompt FILE` sets another)".into(),
        }
    }
}

/// What the tasks hold besides their sets.
#[derive(Debug, Clone)]
pub struct Options {
    /// The tasks' names start with it (`tempora_demo`: `tempora_demo_future`), and
    /// it names the group.
    pub prefix: String,
    /// The prompt.
    pub prompt: Prompt,
    /// `generation_kwargs.max_gen_toks`.
    pub max_gen_toks: u32,
    /// `generation_kwargs.until`; none for `until: []` (the model's end of
    /// sequence, for chat models).
    pub until: Vec<String>,
    /// What wrote the files, named in their comments (`tempora 0.1.0`).
    pub made_by: String,
}

/// A set to hand to the harness: its name (`future`) and file.
#[derive(Debug, Clone)]
pub struct SetInput {
    /// The set's name.
    pub name: String,
    /// The file it was found as.
    pub path: PathBuf,
}

/// A file to write: its name in the output folder and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFile {
    /// The task's (or the group's) name; the file is `<name>.yaml`.
    pub name: String,
    /// The set's name (empty for the group).
    pub set: String,
    /// The set file the task reads (empty for the group).
    pub data_file: PathBuf,
    /// The set's articles.
    pub articles: usize,
    /// The YAML.
    pub yaml: String,
}

/// What an export makes: a task per set with articles, the group naming them,
/// and the sets left out for holding no article (the harness cannot run a task
/// of no document).
#[derive(Debug, Clone, Default)]
pub struct Export {
    /// The tasks, in the order of the sets.
    pub tasks: Vec<TaskFile>,
    /// The group of every task.
    pub group: Option<TaskFile>,
    /// Sets with no article.
    pub empty: Vec<String>,
}

/// `name` as part of a task name: ASCII letters, digits, `_` and `-` kept, every
/// other character `_` (`future.T_nov`: `future_T_nov`).
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The tasks' prefix unless `--name` gives one: `tempora_` and the folder's name.
pub fn default_prefix(folder: &Path) -> String {
    let name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.is_empty() {
        "tempora".into()
    } else {
        format!("tempora_{}", sanitize(&name))
    }
}

/// Checks a prefix given with `--name`: not empty, and only ASCII letters, digits,
/// `_` and `-` (it becomes part of file names and the harness's task names).
///
/// # Errors
/// What is wrong with it, in words.
pub fn check_prefix(prefix: &str) -> Result<(), String> {
    if prefix.is_empty() {
        return Err("the name is empty".into());
    }
    if sanitize(prefix) != prefix {
        return Err(format!(
            "`{prefix}` holds a character other than ASCII letters, digits, `_` and `-`"
        ));
    }
    Ok(())
}

/// The file a task reads for a set found as `path`: its Parquet copy beside it
/// when there is one, else `path`.
pub fn data_file(path: &Path) -> PathBuf {
    let is_jsonl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
    let parquet = path.with_extension("parquet");
    if is_jsonl && parquet.is_file() {
        parquet
    } else {
        path.to_path_buf()
    }
}

/// `text` as a YAML double-quoted scalar that is also a JSON string: `"` and `\`
/// escaped, and every character YAML would not keep as written (control
/// characters, DEL and C1 controls, the line and paragraph separators, the byte
/// order mark, U+FFFE and U+FFFF) as a `\uXXXX` escape. A YAML reader gives back
/// `text` exactly.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if escaped(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A character [`quote`] writes as an escape.
fn escaped(c: char) -> bool {
    matches!(
        u32::from(c),
        0..=0x1f | 0x7f..=0x9f | 0x2028 | 0x2029 | 0xfeff | 0xfffe | 0xffff
    )
}

/// The names a Jinja template's expressions and statements (`{{ }}`, `{% %}`)
/// use: every identifier in them, in order, once each.
pub fn template_names(template: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find("{{").into_iter().chain(rest.find("{%")).min() {
        let close = if rest[open..].starts_with("{{") {
            "}}"
        } else {
            "%}"
        };
        let inner = &rest[open + 2..];
        let end = inner.find(close).unwrap_or(inner.len());
        for word in inner[..end].split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let is_name = word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            if is_name && !names.iter().any(|n| n == word) {
                names.push(word.to_string());
            }
        }
        rest = &inner[end..];
    }
    names
}

/// The columns of a set (the fields of its first record) and its articles (its
/// non-blank lines or rows).
fn columns_and_count(path: &Path) -> Result<(Vec<String>, usize), ScoreError> {
    // A file that cannot be read is an error of reading (exit 1), not a refusal.
    let lines = crate::inputs::read_lines(path).map_err(|e| match e {
        ScoreError::File { path, message } => ScoreError::Read {
            path,
            source: std::io::Error::other(message),
        },
        e => e,
    })?;
    let mut records = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((i, first)) = records.next() else {
        return Ok((Vec::new(), 0));
    };
    let value: serde_json::Value = serde_json::from_str(first).map_err(|e| ScoreError::Line {
        path: path.to_path_buf(),
        line: i + 1,
        message: format!("not JSON: {e}"),
    })?;
    let columns = value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    Ok((columns, 1 + records.count()))
}

/// Checks that the prompt names a column of the set (`set`, `path`, `columns`).
fn check_prompt(
    prompt: &Prompt,
    set: &str,
    path: &Path,
    columns: &[String],
) -> Result<(), ScoreError> {
    let names = template_names(&prompt.text);
    if names.iter().any(|n| columns.contains(n)) {
        return Ok(());
    }
    Err(ScoreError::File {
        path: prompt.file.clone().unwrap_or_else(|| path.to_path_buf()),
        message: format!(
            "the prompt names no column of the set `{set}` ({}): name one in `{{{{ }}}}`, \
             such as {{{{document}}}} (columns: {})",
            path.display(),
            columns.join(", ")
        ),
    })
}

/// The tasks for `sets` of the set folder `folder`, to be written to the folder
/// `out` (both absolute, canonical).
///
/// # Errors
/// A set file that cannot be read, or whose first record is not JSON; a prompt
/// that names no column of a set; two sets whose names give the same task name;
/// no set with an article.
pub fn export(
    folder: &Path,
    out: &Path,
    sets: &[SetInput],
    options: &Options,
) -> Result<Export, ScoreError> {
    let mut export = Export::default();
    for set in sets {
        let file = data_file(&set.path);
        let file = std::fs::canonicalize(&file).map_err(|source| ScoreError::Read {
            path: file.clone(),
            source,
        })?;
        if file.to_str().is_none() {
            return Err(ScoreError::File {
                path: file,
                message: "the path is not UTF-8, which a task's YAML cannot name: \
                          move the set folder to a path of UTF-8"
                    .into(),
            });
        }
        let (columns, articles) = columns_and_count(&file)?;
        if articles == 0 {
            export.empty.push(set.name.clone());
            continue;
        }
        check_prompt(&options.prompt, &set.name, &file, &columns)?;
        let name = format!("{}_{}", options.prefix, sanitize(&set.name));
        if let Some(other) = export.tasks.iter().find(|t| t.name == name) {
            return Err(ScoreError::File {
                path: folder.to_path_buf(),
                message: format!(
                    "the sets `{}` and `{}` would both be the task `{name}`: rename one of their files",
                    other.set, set.name
                ),
            });
        }
        let sha256 = crate::inputs::sha256(&file)?;
        let task = TaskFile {
            yaml: String::new(),
            name,
            set: set.name.clone(),
            data_file: file,
            articles,
        };
        let yaml = task_yaml(&task, &sha256, folder, out, options);
        export.tasks.push(TaskFile { yaml, ..task });
    }
    if export.tasks.is_empty() {
        return Err(ScoreError::File {
            path: folder.to_path_buf(),
            message: format!(
                "no set holds an article (empty: {}): there is nothing for the harness to run",
                export.empty.join(", ")
            ),
        });
    }
    export.group = Some(group_file(&export.tasks, folder, out, options));
    Ok(export)
}

/// `path` for a shell command line: as is when it holds only plain characters,
/// else in single quotes (the files' comments and `tempora harness`'s own lines
/// quote alike).
pub fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@%".contains(c));
    if plain && !text.is_empty() {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The `lm-eval run` option that tasks of the stop strings `until` need: the
/// chat template for tasks of none (`--no-until`, for instruction-tuned models).
pub fn chat_option(until: &[String]) -> &'static str {
    if until.is_empty() {
        " --apply_chat_template"
    } else {
        ""
    }
}

/// What the comments say of the stop strings `until`.
fn stops(until: &[String]) -> String {
    if until.is_empty() {
        return "Stops at: the model's end of sequence or max_gen_toks (`until: []`, --no-until),\n\
                for an instruction-tuned model run with --apply_chat_template."
            .into();
    }
    let quoted: Vec<String> = until.iter().map(|u| quote(u)).collect();
    format!(
        "Stops at: {} (cut there). For an instruction-tuned model run with\n\
         --apply_chat_template, export with `tempora harness --no-until`: a chat\n\
         answer that opens with a blank line would be cut to nothing.",
        quoted.join(", ")
    )
}

/// Comment lines (`# ...`) holding `text`, its control characters escaped so
/// that every line stays a comment.
fn comment(yaml: &mut String, text: &str) {
    for line in text.lines() {
        let line: String = line
            .chars()
            .flat_map(|c| {
                let escape = c.is_control() || escaped(c);
                let shown: Vec<char> = if escape {
                    c.escape_unicode().collect()
                } else {
                    vec![c]
                };
                shown
            })
            .collect();
        yaml.push_str(format!("# {line}").trim_end());
        yaml.push('\n');
    }
}

/// The comments that open every file: what made it (`what`, and `about`: more
/// lines on it), for which folder, and how to run the task or group `name` and
/// score its samples.
fn header(
    yaml: &mut String,
    (what, about): (&str, &str),
    folder: &Path,
    out: &Path,
    name: &str,
    options: &Options,
) {
    let mark = MARK.trim_start_matches("# ");
    comment(yaml, &format!("{mark} ({}): {what}.", options.made_by));
    let folder_line = format!("Set folder: {}", quote(&folder.display().to_string()));
    comment(yaml, &folder_line);
    comment(yaml, about);
    let every = if name == options.prefix {
        String::new()
    } else {
        format!("; every set of the folder: --tasks {}", options.prefix)
    };
    let text = format!(
        "Prompt: {}\n\
         {}\n\
         The metric is `bypass`: the harness scores nothing and only logs what the\n\
         model generated, which needs --log_samples; `tempora score` judges it.\n\
         Run (MODEL a Hugging Face model, OUT any folder{every}):\n\
         \x20 lm-eval run --model hf --model_args pretrained=MODEL{} --tasks {name} \\\n\
         \x20   --include_path {} --output_path OUT --log_samples\n\
         Score (OUT/<model>: MODEL with each `/` as `__`):\n\
         \x20 tempora score {} --predictions OUT/<model>/samples_{name}_*.jsonl",
        options.prompt.origin(),
        stops(&options.until),
        chat_option(&options.until),
        shell_word(out),
        shell_word(folder),
    );
    comment(yaml, &text);
}

/// The YAML of one set's task (`sha256`: its file's digest).
fn task_yaml(
    task: &TaskFile,
    sha256: &str,
    folder: &Path,
    out: &Path,
    options: &Options,
) -> String {
    let mut yaml = String::new();
    let what = format!("the lm-evaluation-harness task of the set `{}`", task.set);
    let about = format!(
        "Set file: {} ({} articles, SHA-256 {sha256})",
        task.data_file.display(),
        task.articles
    );
    header(&mut yaml, (&what, &about), folder, out, &task.name, options);
    let format = if task
        .data_file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        "parquet"
    } else {
        "json"
    };
    let file = task.data_file.display().to_string();
    let _ = writeln!(yaml, "task: {}", quote(&task.name));
    let _ = writeln!(yaml, "dataset_path: {}", quote(format));
    let _ = writeln!(
        yaml,
        "dataset_kwargs:\n  data_files:\n    test: {}",
        quote(&file)
    );
    let _ = writeln!(yaml, "test_split: {}", quote("test"));
    let _ = writeln!(yaml, "output_type: {}", quote("generate_until"));
    let _ = writeln!(yaml, "doc_to_text: {}", quote(&options.prompt.text));
    let _ = writeln!(yaml, "doc_to_target: {}", quote("summary"));
    if options.until.is_empty() {
        yaml.push_str("generation_kwargs:\n  until: []\n");
    } else {
        yaml.push_str("generation_kwargs:\n  until:\n");
        for until in &options.until {
            let _ = writeln!(yaml, "    - {}", quote(until));
        }
    }
    let _ = writeln!(yaml, "  max_gen_toks: {}", options.max_gen_toks);
    yaml.push_str("  do_sample: false\n");
    let _ = writeln!(yaml, "metric_list:\n  - metric: {}", quote("bypass"));
    yaml.push_str("metadata:\n  version: 1\n");
    yaml
}

/// The group of every task: one `--tasks` name runs every set.
fn group_file(tasks: &[TaskFile], folder: &Path, out: &Path, options: &Options) -> TaskFile {
    let mut yaml = String::new();
    let what = "the lm-evaluation-harness group of every set's task";
    let name = &options.prefix;
    let about = format!(
        "Sets: {} articles in {} tasks",
        tasks.iter().map(|t| t.articles).sum::<usize>(),
        tasks.len()
    );
    header(&mut yaml, (what, &about), folder, out, name, options);
    let _ = writeln!(yaml, "group: {}", quote(name));
    yaml.push_str("task:\n");
    for task in tasks {
        let _ = writeln!(yaml, "  - {}", quote(&task.name));
    }
    yaml.push_str("metadata:\n  version: 1\n");
    TaskFile {
        name: name.clone(),
        set: String::new(),
        data_file: PathBuf::new(),
        articles: tasks.iter().map(|t| t.articles).sum(),
        yaml,
    }
}

/// Checks that writing the export into `out` overwrites no file but those
/// `tempora harness` wrote for the same set folder `folder`.
///
/// # Errors
/// A file of a task's name that `tempora harness` did not write for this set
/// folder (another folder's task of the same name, or a file of the user's).
pub fn check_out(out: &Path, folder: &Path, export: &Export) -> Result<(), ScoreError> {
    let ours = format!("# Set folder: {}\n", quote(&folder.display().to_string()));
    for file in export.tasks.iter().chain(export.group.as_ref()) {
        refuse_other(&out.join(format!("{}.yaml", file.name)), &ours)?;
    }
    Ok(())
}

/// Writes the export's files into `out` (which exists), each atomically, once
/// [`check_out`] passes; the paths written, the group's last.
///
/// # Errors
/// A file that cannot be written.
pub fn write(out: &Path, export: &Export) -> Result<Vec<PathBuf>, ScoreError> {
    let mut written = Vec::new();
    for file in export.tasks.iter().chain(export.group.as_ref()) {
        let path = out.join(format!("{}.yaml", file.name));
        tempora_engine::runtime::write_atomically(&path, |w| w.write_all(file.yaml.as_bytes()))
            .map_err(|e| ScoreError::File {
                path: path.clone(),
                message: format!("cannot write: {e}"),
            })?;
        written.push(path);
    }
    Ok(written)
}

/// Refuses to overwrite `path` unless it is missing or was written by `tempora
/// harness` for the same set folder (holds the line `ours`).
fn refuse_other(path: &Path, ours: &str) -> Result<(), ScoreError> {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(ScoreError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if text.starts_with(MARK) && text.contains(ours) {
        return Ok(());
    }
    let whose = if text.starts_with(MARK) {
        "was written by `tempora harness` for another set folder"
    } else {
        "was not written by `tempora harness`"
    };
    Err(ScoreError::File {
        path: path.to_path_buf(),
        message: format!(
            "exists and {whose}: give the tasks another name (`--name PREFIX`) or another `--out` folder"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads back a YAML double-quoted scalar as a JSON string.
    fn unquote(quoted: &str) -> String {
        serde_json::from_str(quoted).unwrap()
    }

    #[test]
    fn quoted_strings_come_back_as_written() {
        let hard = "He said: \"{{document}}\" {a: b} # no comment\n\ttab \\ back\r\u{7f}\u{85}\u{2028}\u{feff}é 日本";
        let quoted = quote(hard);
        assert_eq!(unquote(&quoted), hard);
        let inner = &quoted[1..quoted.len() - 1];
        assert!(inner
            .match_indices('"')
            .all(|(i, _)| inner[..i].ends_with('\\')));
        for c in ['\n', '\r', '\u{7f}', '\u{85}', '\u{2028}', '\u{feff}'] {
            assert!(!quoted.contains(c), "{c:?} written as is");
        }
        assert!(quoted.contains('é') && quoted.contains('日'));
    }

    #[test]
    fn names_of_a_template_are_those_in_its_expressions() {
        let names = template_names(
            "Title: {{ title|trim }} {% if source == 'cnn' %}x{% endif %} text {document}",
        );
        assert_eq!(names, ["title", "trim", "if", "source", "cnn", "endif"]);
        assert!(template_names("no braces {document}").is_empty());
        assert_eq!(template_names("{{document"), ["document"]);
    }

    #[test]
    fn names_are_sanitized_and_prefixes_checked() {
        assert_eq!(sanitize("future.T_nov"), "future_T_nov");
        assert_eq!(default_prefix(Path::new("/x/demo out")), "tempora_demo_out");
        assert!(check_prefix("lab-1_x").is_ok());
        assert!(check_prefix("").is_err());
        assert!(check_prefix("a.b").unwrap_err().contains("`a.b`"));
    }

    #[test]
    fn an_empty_prompt_file_is_refused_and_a_final_line_break_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.txt");
        std::fs::write(&empty, " \n").unwrap();
        let e = Prompt::read(&empty).unwrap_err().to_string();
        assert!(e.contains("empty.txt") && e.contains("empty"), "{e}");
        let one = dir.path().join("one.txt");
        std::fs::write(&one, "Sum up: {{document}}\n\n").unwrap();
        assert_eq!(Prompt::read(&one).unwrap().text, "Sum up: {{document}}\n");
    }
}
