//! Loading a pipeline file: TOML syntax (errors with line and column), `--set`
//! overrides, `${VAR}` from the environment, TOML dates turned into ISO strings,
//! the line of every key, and the `[pipeline]` table. The stage graph is checked
//! by [`crate::plan`], which reports the problems found here with its own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Deserialize;

use crate::error::{ConfigError, ConfigErrors};
use crate::key_path::{KeyPath, Override};
use crate::options::deserialize_located;

/// A pipeline file after overrides and `${VAR}` substitution, not yet validated.
#[derive(Debug, Clone)]
pub struct PipelineFile {
    /// Path as given (for messages).
    pub path: String,
    /// The resolved document. An unset `${VAR}` stays as written.
    pub table: toml::Table,
    /// Problems found while resolving (a bad `--set`, an unset variable, an impossible
    /// date); [`crate::Plan::new`] reports them with the rest.
    pub problems: Vec<ConfigError>,
    /// The line of every key of the file as written.
    pub lines: KeyLines,
    /// The `--set KEY.PATH=VALUE` overrides, as given.
    pub overrides: Vec<String>,
    /// The run day and the dates written relative to it, once
    /// [`PipelineFile::resolve_dates`] resolved them (`run.json`'s `dates`).
    pub dates: Option<crate::dates::RunDates>,
}

/// The line where each key path (`stages.split.sets[1].from`) is written.
#[derive(Debug, Clone, Default)]
pub struct KeyLines {
    lines: HashMap<String, usize>,
}

impl KeyLines {
    /// Reads the key lines of `text` (empty when it is not TOML).
    pub fn of(text: &str) -> Self {
        let mut lines = HashMap::new();
        if let Ok(doc) = toml::de::DeTable::parse(text) {
            let at = |offset: usize| line_column(text, offset).0;
            record_table(doc.get_ref(), "", &at, &mut lines);
        }
        Self { lines }
    }

    /// The line of `path`, or of the nearest enclosing key that is written in the file
    /// (a missing option is reported at its stage's table). A stage the file does
    /// not write (one a `--set` made) has no line: the first stage's is not its.
    pub fn find(&self, path: &str) -> Option<usize> {
        let mut path = path;
        loop {
            if let Some(line) = self.lines.get(path) {
                return Some(*line);
            }
            path = &path[..path.rfind(['.', '['])?];
            if path == "stages" {
                return None;
            }
        }
    }
}

fn record_table(
    table: &toml::de::DeTable<'_>,
    prefix: &str,
    at: &impl Fn(usize) -> usize,
    lines: &mut HashMap<String, usize>,
) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.get_ref().to_string()
        } else {
            format!("{prefix}.{}", key.get_ref())
        };
        // A table header's key span is the header; a dotted key's is the first use.
        lines
            .entry(path.clone())
            .or_insert_with(|| at(key.span().start));
        record_value(value.get_ref(), &path, at, lines);
    }
}

fn record_value(
    value: &toml::de::DeValue<'_>,
    path: &str,
    at: &impl Fn(usize) -> usize,
    lines: &mut HashMap<String, usize>,
) {
    match value {
        toml::de::DeValue::Table(t) => record_table(t, path, at, lines),
        toml::de::DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let path = format!("{path}[{i}]");
                lines.insert(path.clone(), at(item.span().start));
                record_value(item.get_ref(), &path, at, lines);
            }
        }
        _ => {}
    }
}

/// The `[pipeline]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct PipelineSettings {
    /// Pipeline name (default: the file name without `.toml`).
    pub name: Option<String>,
    /// Knowledge cutoff: stages default their dates to it. Written `YYYY-MM-DD`
    /// or relative to the run (`run - 365 days`, see [`crate::dates`]), which
    /// [`PipelineFile::resolve_dates`] turns into a date before it is read.
    #[serde(deserialize_with = "cutoff_date")]
    pub cutoff: NaiveDate,
    /// Output directory (default `out/<name>`), relative to the working directory.
    pub out: Option<PathBuf>,
    /// Records per channel between two stages.
    #[serde(default = "default_channel_capacity")]
    pub channel_capacity: usize,
    /// The sets' date windows, `name = { from, to }` in file order (see
    /// [`crate::windows`]); checked against the cutoff when the plan is made.
    #[serde(default)]
    pub sets: Option<toml::Table>,
    /// `[pipeline.health]`, how an incremental pipeline's runs are checked
    /// against the runs before them: a key the engine lets through, read once
    /// by the binary into `tempora_health::HealthSettings`.
    #[serde(default, rename = "health")]
    _health: serde::de::IgnoredAny,
    /// `[pipeline.release]`, a withheld part of each set: a key the engine lets
    /// through, read once by the binary and offered to the stages that write
    /// files ([`crate::StageConfig::hold_back`]).
    #[serde(default, rename = "release")]
    _release: serde::de::IgnoredAny,
}

/// The cutoff as a date, or a message that lists the forms it takes.
fn cutoff_date<'de, D: serde::Deserializer<'de>>(d: D) -> Result<NaiveDate, D::Error> {
    let value = toml::Value::deserialize(d)?;
    let date = value.as_str().and_then(|text| text.parse().ok());
    date.ok_or_else(|| {
        let written = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string);
        serde::de::Error::custom(format!(
            "`{written}` is not a date: write {}",
            crate::dates::cutoff_forms()
        ))
    })
}

const fn default_channel_capacity() -> usize {
    256
}

/// The pipeline's name: `[pipeline] name`, else the file name without `.toml`.
pub fn pipeline_name(settings: Option<&PipelineSettings>, file: &str) -> String {
    settings
        .and_then(|s| s.name.clone())
        .or_else(|| Some(Path::new(file).file_stem()?.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "pipeline".into())
}

/// The output directory: `[pipeline] out`, else `out/<name>`.
pub fn output_dir(settings: Option<&PipelineSettings>, name: &str) -> PathBuf {
    settings
        .and_then(|s| s.out.clone())
        .unwrap_or_else(|| PathBuf::from("out").join(name))
}

impl PipelineFile {
    /// The output directory the file names ([`output_dir`] of its name), the
    /// defaults standing in for settings that cannot be read.
    pub fn output_dir(&self) -> PathBuf {
        let settings = self.settings().ok();
        output_dir(
            settings.as_ref(),
            &pipeline_name(settings.as_ref(), &self.path),
        )
    }

    /// Reads and resolves a pipeline file. Problems other than syntax are kept in
    /// [`PipelineFile::problems`], to be reported with the plan's.
    ///
    /// # Errors
    /// Unreadable file, TOML syntax (with line and column).
    pub fn load(path: &Path, overrides: &[String]) -> Result<Self, ConfigErrors> {
        let name = path.display().to_string();
        let fail = |errors| ConfigErrors {
            file: name.clone(),
            errors,
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            fail(vec![ConfigError::file(format!(
                "cannot read the file: {e}"
            ))])
        })?;
        Self::parse(&name, &text, overrides)
    }

    /// Resolves a pipeline given as text; `name` is used in messages.
    ///
    /// # Errors
    /// TOML syntax (with line and column): nothing else can be read then. Other
    /// problems are kept in [`PipelineFile::problems`].
    pub fn parse(name: &str, text: &str, overrides: &[String]) -> Result<Self, ConfigErrors> {
        let (mut table, read) = read_toml(text).map_err(|message| ConfigErrors {
            file: name.to_string(),
            errors: vec![ConfigError::file(message)],
        })?;
        let mut problems = Vec::new();
        for o in overrides {
            if let Err(message) = apply_override(&mut table, o) {
                problems.push(ConfigError::file(format!("--set {o}: {message}")));
            }
        }
        resolve_values(&mut table, &mut String::new(), &mut problems);
        Ok(Self {
            path: name.to_string(),
            table,
            problems,
            lines: KeyLines::of(&read),
            overrides: overrides.to_vec(),
            dates: None,
        })
    }

    /// The `[pipeline]` settings.
    ///
    /// # Errors
    /// Missing table, unknown or mistyped keys, a bad date.
    pub fn settings(&self) -> Result<PipelineSettings, Vec<ConfigError>> {
        let Some(value) = self.table.get("pipeline") else {
            return Err(vec![ConfigError::file(
                "missing [pipeline] table (it needs at least `cutoff = YYYY-MM-DD`)",
            )]);
        };
        deserialize_located(value.clone()).map_err(|e| {
            vec![match e.key {
                Some(key) => ConfigError::pipeline(&key, e.message),
                None => ConfigError::file(format!("[pipeline]: {}", e.message)),
            }]
        })
    }
}

/// The TOML of a pipeline file. An impossible date written bare (`2020-02-30`)
/// stops a TOML parser, which would hide every other problem of the file and
/// name no key: it is read as the quoted string it would otherwise be, and then
/// named with its key path like any impossible date.
///
/// Returns the table and the text as read (lines unchanged).
///
/// # Errors
/// Any other syntax error, with its line and column.
fn read_toml(text: &str) -> Result<(toml::Table, String), String> {
    let mut text = text.to_string();
    loop {
        match toml::from_str(&text) {
            Ok(table) => return Ok((table, text)),
            Err(e) => match e.span().and_then(|span| bare_date_at(&text, span.start)) {
                Some(range) => {
                    let quoted = format!("\"{}\"", &text[range.clone()]);
                    text.replace_range(range, &quoted);
                }
                None => return Err(syntax_error(&text, &e)),
            },
        }
    }
}

/// The bare date-like token (`dddd-dd-dd`) around byte `at`, if there is one.
fn bare_date_at(text: &str, at: usize) -> Option<std::ops::Range<usize>> {
    let token = |b: u8| b.is_ascii_digit() || b == b'-';
    let bytes = text.as_bytes();
    let at = at.min(bytes.len());
    let start = bytes[..at]
        .iter()
        .rposition(|b| !token(*b))
        .map_or(0, |p| p + 1);
    let end = bytes[at..]
        .iter()
        .position(|b| !token(*b))
        .map_or(bytes.len(), |p| at + p);
    let quoted = start > 0 && bytes[start - 1] == b'"';
    (!quoted && looks_like_date(&text[start..end])).then_some(start..end)
}

/// "file:line:column: message" for a TOML syntax error.
fn syntax_error(text: &str, err: &toml::de::Error) -> String {
    let message = err.message().trim();
    match err.span() {
        Some(span) => {
            let (line, column) = line_column(text, span.start);
            format!("line {line}, column {column}: {message}")
        }
        None => message.to_string(),
    }
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Applies `a.b.0.c=value` (or `a.b[0].c=value`); the value is TOML (`2023-06-30`, `42`, `["x"]`) or else a string.
fn apply_override(table: &mut toml::Table, assignment: &str) -> Result<(), String> {
    let Override { path, value, .. } = Override::parse(assignment)?;
    let keys: Vec<&str> = path.keys().collect();
    known_set(table, &keys)?;
    let (last, parents) = keys.split_last().ok_or("empty key")?;
    let mut node = table
        .entry(parents.first().copied().unwrap_or(last).to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if parents.is_empty() {
        *node = value;
        return Ok(());
    }
    for key in parents.iter().skip(1) {
        node = child(node, key, true)?;
    }
    match node {
        toml::Value::Table(t) => {
            t.insert((*last).to_string(), value);
        }
        toml::Value::Array(items) => {
            let slot = index(items, last)?;
            *slot = value;
        }
        _ => return Err(format!("`{path}` does not lead to a table or list")),
    }
    Ok(())
}

/// `pipeline.sets.NAME.KEY` changes a set the file defines: a misspelt name
/// would otherwise add a set of its own, and the errors would then speak of
/// overlapping sets.
fn known_set(table: &toml::Table, keys: &[&str]) -> Result<(), String> {
    let ["pipeline", "sets", name, _, ..] = keys else {
        return Ok(());
    };
    let Some(toml::Value::Table(sets)) = table.get("pipeline").and_then(|p| p.get("sets")) else {
        return Ok(());
    };
    if sets.contains_key(*name) {
        return Ok(());
    }
    let known: Vec<String> = sets.keys().map(|k| format!("`{k}`")).collect();
    Err(format!(
        "the file has no set `{name}` (its sets: {}); a `--set` changes a set the file defines",
        known.join(", ")
    ))
}

/// The `--set` among `overrides` that wrote `path` or the stage it is in, for a
/// problem the file has no line for.
pub fn override_of<'a>(overrides: &'a [String], path: &str) -> Option<&'a str> {
    let path = KeyPath::parse(path).ok()?;
    overrides.iter().map(String::as_str).find(|given| {
        let Ok(o) = Override::parse(given) else {
            return false;
        };
        o.path == path || (o.path.keys().next() == Some("stages") && o.path.table() == path.table())
    })
}

/// What `--set KEY.PATH=VALUE` left in `table` once resolved (after `${VAR}` and
/// dates): the key path and the value it holds, `None` when it holds none.
pub fn applied_override<'a>(
    table: &'a toml::Table,
    assignment: &str,
) -> (String, Option<&'a toml::Value>) {
    match Override::parse(assignment) {
        Ok(o) => (o.path.to_string(), o.path.get(table)),
        Err(_) => (
            assignment
                .split_once('=')
                .map_or(assignment, |(p, _)| p)
                .trim()
                .to_string(),
            None,
        ),
    }
}

fn child<'a>(
    node: &'a mut toml::Value,
    key: &str,
    create: bool,
) -> Result<&'a mut toml::Value, String> {
    match node {
        toml::Value::Table(t) => {
            if !t.contains_key(key) && !create {
                return Err(format!("no key `{key}`"));
            }
            Ok(t.entry(key.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new())))
        }
        toml::Value::Array(items) => index(items, key),
        _ => Err(format!(
            "`{key}` is inside a value that is not a table or list"
        )),
    }
}

fn index<'a>(items: &'a mut [toml::Value], key: &str) -> Result<&'a mut toml::Value, String> {
    let len = items.len();
    let i: usize = key
        .parse()
        .map_err(|_| format!("`{key}` is not a list index"))?;
    items
        .get_mut(i)
        .ok_or_else(|| format!("index {i} is out of range (the list has {len} items)"))
}

/// Substitutes `${VAR}` in every string and turns TOML dates into ISO strings, so
/// stage options can use `chrono::NaiveDate`. Unset variables (left as written) and
/// impossible dates are collected as problems.
fn resolve_values(table: &mut toml::Table, path: &mut String, errors: &mut Vec<ConfigError>) {
    for (key, value) in table.iter_mut() {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        resolve_value(value, path, errors);
        path.truncate(len);
    }
}

fn resolve_value(value: &mut toml::Value, path: &mut String, errors: &mut Vec<ConfigError>) {
    match value {
        toml::Value::String(s) => match substitute_env(s) {
            Ok(new) if looks_like_date(&new) && new.parse::<NaiveDate>().is_err() => errors.push(
                located_error(path, format!("`{new}` is not a valid date (YYYY-MM-DD)")),
            ),
            Ok(new) => *s = new,
            Err(Unset { var, empty }) => errors.push(
                located_error(
                    path,
                    format!(
                        "environment variable `{var}` is {} (used as ${{{var}}})",
                        if empty { "set but empty" } else { "not set" }
                    ),
                )
                .about_environment(),
            ),
        },
        toml::Value::Datetime(d) => *value = toml::Value::String(d.to_string()),
        toml::Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                resolve_value(item, path, errors);
                path.truncate(len);
            }
        }
        toml::Value::Table(t) => resolve_values(t, path, errors),
        _ => {}
    }
}

/// An error at a key path such as `stages.facts.dump`, attributed to its stage.
fn located_error(path: &str, message: String) -> ConfigError {
    let split = |rest: &str| -> (String, Option<String>) {
        match rest.find(['.', '[']) {
            Some(at) => (
                rest[..at].to_string(),
                Some(rest[at..].trim_start_matches('.').to_string()),
            ),
            None => (rest.to_string(), None),
        }
    };
    if let Some(rest) = path.strip_prefix("stages.") {
        let (stage, key) = split(rest);
        return ConfigError::stage(&stage, key.as_deref(), message);
    }
    match path.strip_prefix("pipeline.") {
        Some(key) => ConfigError::pipeline(key, message),
        None => ConfigError::file(format!("`{path}`: {message}")),
    }
}

/// `dddd-dd-dd`: meant as a date, so it must be one.
pub(crate) fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// A variable a string uses that has no value.
#[derive(Debug)]
struct Unset {
    var: String,
    /// Set, to nothing (`VAR=`): as useless as unset, and named so.
    empty: bool,
}

/// Replaces `${VAR}` with the variable's value; `$$` is a literal `$`.
fn substitute_env(s: &str) -> Result<String, Unset> {
    if !s.contains('$') {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("$$") {
            out.push('$');
            rest = after;
        } else if let Some(close) = tail.strip_prefix("${").and_then(|t| t.find('}')) {
            let var = &tail[2..2 + close];
            let value = std::env::var(var).map_err(|_| Unset {
                var: var.to_string(),
                empty: false,
            })?;
            if value.is_empty() {
                return Err(Unset {
                    var: var.to_string(),
                    empty: true,
                });
            }
            out.push_str(&value);
            rest = &tail[3 + close..];
        } else {
            out.push('$');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Concern;

    fn parse(text: &str, sets: &[&str]) -> Result<PipelineFile, ConfigErrors> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        PipelineFile::parse("p.toml", text, &sets)
    }

    #[test]
    fn an_override_is_read_back_as_the_resolved_pipeline_holds_it() {
        let text = "[pipeline]\ncutoff = 2019-12-31\n[stages.split]\nsets = [{from = 2019-01-01}, {from = 2020-01-01}]\n";
        let given = "stages.split.sets.1.from=2021-06-30";
        let file = parse(text, &[given]).unwrap();
        let (key, value) = applied_override(&file.table, given);
        // Recorded as the problems print a key path.
        assert_eq!(key, "stages.split.sets[1].from");
        // A TOML date, turned into the ISO string the stages read.
        assert_eq!(value, Some(&toml::Value::String("2021-06-30".into())));
        // The bracket spelling is the same key, read back the same.
        let brackets = "stages.split.sets[1].from=2021-06-30";
        let file = parse(text, &[brackets]).unwrap();
        assert_eq!(
            applied_override(&file.table, brackets),
            (key, Some(&toml::Value::String("2021-06-30".into())))
        );
        assert_eq!(
            applied_override(&file.table, "stages.split.sets.7.from=x").1,
            None
        );
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let err = parse("[pipeline]\ncutoff = 2019-12-31\nname = \"x\n", &[]).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("p.toml: 1 error"), "{msg}");
        assert!(msg.contains("line 3, column"), "{msg}");
    }

    #[test]
    fn dates_become_iso_strings_and_overrides_apply() {
        let file = parse(
            "[pipeline]\ncutoff = 2019-12-31\n[stages.s]\nkind = \"split\"\nsets = [{ name = \"a\", from = 2010-01-01 }]\n",
            &["pipeline.cutoff=2023-06-30", "stages.s.sets[0].from=2011-02-03", "stages.s.extra=\"x\""],
        )
        .unwrap();
        let settings = file.settings().unwrap();
        assert_eq!(
            settings.cutoff,
            NaiveDate::from_ymd_opt(2023, 6, 30).unwrap()
        );
        let s = &file.table["stages"]["s"];
        assert_eq!(s["sets"][0]["from"].as_str(), Some("2011-02-03"));
        assert_eq!(s["extra"].as_str(), Some("x"));
    }

    #[test]
    fn bad_override_paths_are_errors_not_panics() {
        let text = "[pipeline]\ncutoff = 2019-12-31\n[stages.s]\nsets = [1]\n";
        for bad in ["nokey", "stages.s.sets.5=1", "stages.s.sets.x=1", "a..b=1"] {
            let problems = parse(text, &[bad]).unwrap().problems;
            assert_eq!(problems.len(), 1, "{bad}: {problems:?}");
            assert!(problems[0].to_string().contains(bad), "{bad}: {problems:?}");
        }
    }

    #[test]
    fn unset_variables_are_all_reported_with_stage_and_key() {
        let text = "[pipeline]\ncutoff = 2019-12-31\n[stages.a]\ndump = \"${TEMPORA_TEST_UNSET_A}\"\n[stages.b]\npaths = [\"x/${TEMPORA_TEST_UNSET_B}\"]\n";
        let file = parse(text, &[]).unwrap();
        let errors = &file.problems;
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0].stage.as_deref(), Some("a"));
        assert_eq!(errors[0].key.as_deref(), Some("dump"));
        assert_eq!(errors[1].path().as_deref(), Some("stages.b.paths[0]"));
        assert!(errors[1].message.contains("TEMPORA_TEST_UNSET_B"));
        assert!(errors.iter().all(|e| e.concern == Concern::Environment));
        // Left as written, so a dry run can show where it is used.
        assert_eq!(
            file.table["stages"]["a"]["dump"].as_str(),
            Some("${TEMPORA_TEST_UNSET_A}")
        );
    }

    #[test]
    fn impossible_dates_are_named_wherever_they_are() {
        let text = "[pipeline]\ncutoff = 2019-12-31\n[stages.s]\nsets = [{ name = \"a\", from = \"2019-02-30\" }]\n";
        let file = parse(text, &["pipeline.cutoff=\"2019-13-45\""]).unwrap();
        let all: Vec<String> = file.problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            all,
            [
                "pipeline.cutoff: `2019-13-45` is not a valid date (YYYY-MM-DD)",
                "stages.s.sets[0].from: `2019-02-30` is not a valid date (YYYY-MM-DD)",
            ]
        );
        assert_eq!(file.lines.find("stages.s.sets[0].from"), Some(4));
        assert_eq!(file.lines.find("stages.s.sets[0].to"), Some(4));
        assert_eq!(file.lines.find("stages.s.missing"), Some(3));
        assert_eq!(file.lines.find("nowhere"), None);
    }

    #[test]
    fn substitutes_set_variables_and_escapes() {
        std::env::set_var("TEMPORA_TEST_SET_VAR", "/data");
        assert_eq!(
            substitute_env("${TEMPORA_TEST_SET_VAR}/x").unwrap(),
            "/data/x"
        );
        assert_eq!(substitute_env("cost $$5 and $x").unwrap(), "cost $5 and $x");
    }

    #[test]
    fn settings_reject_unknown_keys_and_need_a_cutoff() {
        let err = parse("[pipeline]\ncutoff = 2019-12-31\ncutof = 1\n", &[])
            .unwrap()
            .settings()
            .unwrap_err();
        assert_eq!(err[0].key.as_deref(), Some("cutof"), "{err:?}");
        let err = parse("[pipeline]\nname = \"x\"\n", &[])
            .unwrap()
            .settings()
            .unwrap_err();
        assert!(err[0].message.contains("cutoff"), "{err:?}");
    }
}
