//! Errors of the engine and of stages. Each carries its domain (the user's input,
//! an external service, or a bug of ours) so the CLI can choose the exit code and
//! the words.

use std::fmt;

/// What a reader does with an input line or record it cannot use (a source
/// file's line, a dump's entity): the `on_error` option of every stage and
/// command that reads files.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// Write it to `rejected.jsonl` with its file and line, and go on.
    #[default]
    Skip,
    /// Stop the run with an error naming the file, line and field.
    Fail,
}

impl std::str::FromStr for OnError {
    type Err = String;

    /// `skip` or `fail`, as on a command line.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "skip" => Ok(Self::Skip),
            "fail" => Ok(Self::Fail),
            _ => Err(format!("`{s}` is not `skip` or `fail`")),
        }
    }
}

/// Whose move an error is: it decides the words and the exit code, and `run.json`
/// names it (`input`, `external`, `temporary` or `internal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorDomain {
    /// The user's: fix the data or the configuration.
    Input,
    /// The file system's or a service's: I/O, the network.
    External,
    /// A service asks us to wait: run again later.
    Temporary,
    /// Ours: a bug in Tempora, never reported as the user's mistake.
    Internal,
}

impl fmt::Display for ErrorDomain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Input => "input",
            Self::External => "external",
            Self::Temporary => "temporary",
            Self::Internal => "internal",
        })
    }
}

/// The error behind a [`StageError`], kept as its source.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An error that stops a stage, and with it the run. Each variant holds what is
/// wrong in words and, where another error caused it (an I/O error, the Archive's
/// answer), that error as its [`source`](std::error::Error::source): print it with
/// [`chain`], as `run.json` and the command line do.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// Bad input: a file, record or setting the user can fix. Names what and where.
    #[error("{message}")]
    Input {
        /// What is wrong, and where.
        message: String,
        /// The error that caused it.
        #[source]
        source: Option<Cause>,
    },
    /// An external service or the file system failed.
    #[error("{message}")]
    External {
        /// What failed.
        message: String,
        /// The error that caused it.
        #[source]
        source: Option<Cause>,
    },
    /// An external service asks us to wait (an IP block, a rate limit that outlasts
    /// every pause): nothing is wrong with the data, run again later.
    #[error("{message}")]
    Temporary {
        /// What the service said.
        message: String,
        /// The error that caused it.
        #[source]
        source: Option<Cause>,
    },
    /// A bug in Tempora (a broken invariant).
    #[error("internal error: {message}")]
    Internal {
        /// The broken invariant.
        message: String,
        /// The error that caused it.
        #[source]
        source: Option<Cause>,
    },
    /// Downstream stages are gone because the run is stopping; not a failure of its own.
    #[error("the run is stopping")]
    Stopped,
}

impl StageError {
    /// Bad input the user can fix.
    pub fn input(msg: impl Into<String>) -> Self {
        Self::Input {
            message: msg.into(),
            source: None,
        }
    }

    /// An external failure (I/O, network).
    pub fn external(msg: impl Into<String>) -> Self {
        Self::External {
            message: msg.into(),
            source: None,
        }
    }

    /// A service asks us to wait; the run can be retried later.
    pub fn temporary(msg: impl Into<String>) -> Self {
        Self::Temporary {
            message: msg.into(),
            source: None,
        }
    }

    /// A broken invariant.
    pub fn internal(msg: impl Into<String>) -> Self {
        Self::Internal {
            message: msg.into(),
            source: None,
        }
    }

    /// The same error, caused by `cause` (kept as its source).
    #[must_use]
    pub fn caused_by(self, cause: impl Into<Cause>) -> Self {
        let cause = Some(cause.into());
        match self {
            Self::Input { message, .. } => Self::Input {
                message,
                source: cause,
            },
            Self::External { message, .. } => Self::External {
                message,
                source: cause,
            },
            Self::Temporary { message, .. } => Self::Temporary {
                message,
                source: cause,
            },
            Self::Internal { message, .. } => Self::Internal {
                message,
                source: cause,
            },
            Self::Stopped => Self::Stopped,
        }
    }

    /// Its domain: whose move it is (see [`ErrorDomain`]).
    pub fn domain(&self) -> ErrorDomain {
        match self {
            Self::Input { .. } => ErrorDomain::Input,
            Self::External { .. } => ErrorDomain::External,
            Self::Temporary { .. } => ErrorDomain::Temporary,
            Self::Internal { .. } | Self::Stopped => ErrorDomain::Internal,
        }
    }

    /// An I/O error on `path`: the path in words, the I/O error as the source.
    pub fn io(path: &std::path::Path, err: std::io::Error) -> Self {
        Self::external(path.display().to_string()).caused_by(err)
    }
}

/// An error and its sources in one line, `a: b: c`, as a person reads it. A
/// source whose words the text already holds is not repeated (many errors name
/// their cause in their own message too), so an OS error is never said twice.
pub fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        let words = cause.to_string();
        if !words.is_empty() && !text.contains(&words) {
            text.push_str(": ");
            text.push_str(&words);
        }
        next = cause.source();
    }
    text
}

/// A command-line argument that cannot be used (the binary exits 2 for it, and 1 for
/// failures at run time). Subcommands return it inside their `anyhow` errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    /// A usage error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// What a problem of a pipeline file is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concern {
    /// The file itself: the plan cannot be made until it is fixed.
    File,
    /// The machine it runs on (an unset environment variable, a missing input
    /// file): the plan can be shown (`run --dry-run`), the run cannot start.
    Environment,
}

/// One problem in a pipeline file, naming the stage and key where it lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The stage (`None` for `[pipeline]` or the file as a whole).
    pub stage: Option<String>,
    /// The key path within the stage or `[pipeline]` (`sets[1].from`), when the error is about one.
    pub key: Option<String>,
    /// The line of the file where the key (or its nearest enclosing table) is written.
    pub line: Option<usize>,
    /// Whether it is about the file or the environment.
    pub concern: Concern,
    /// What is wrong and, where possible, how to fix it.
    pub message: String,
}

impl ConfigError {
    /// An error about the file as a whole.
    pub fn file(message: impl Into<String>) -> Self {
        Self {
            stage: None,
            key: None,
            line: None,
            concern: Concern::File,
            message: message.into(),
        }
    }

    /// An error about `key` of `[pipeline]`.
    pub fn pipeline(key: &str, message: impl Into<String>) -> Self {
        Self {
            key: Some(key.to_string()),
            ..Self::file(message)
        }
    }

    /// An error about `key` (if any) of stage `stage`.
    pub fn stage(stage: &str, key: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            stage: Some(stage.to_string()),
            key: key.map(str::to_string),
            ..Self::file(message)
        }
    }

    /// The same error, about the environment rather than the file.
    #[must_use]
    pub fn about_environment(self) -> Self {
        Self {
            concern: Concern::Environment,
            ..self
        }
    }

    /// The whole key path: `stages.split.sets[1].from`, `stages.split`, `pipeline.cutoff`.
    pub fn path(&self) -> Option<String> {
        let join = |table: String| match &self.key {
            Some(key) if key.starts_with('[') => format!("{table}{key}"),
            Some(key) => format!("{table}.{key}"),
            None => table,
        };
        match (&self.stage, &self.key) {
            (Some(stage), _) => Some(join(format!("stages.{stage}"))),
            (None, Some(_)) => Some(join("pipeline".into())),
            (None, None) => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        match self.path() {
            Some(path) => write!(f, "{path}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Every problem found in a pipeline file, reported together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigErrors {
    /// The pipeline file.
    pub file: String,
    /// The problems, in the order they were found.
    pub errors: Vec<ConfigError>,
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        write!(
            f,
            "{}: {n} error{}",
            self.file,
            if n == 1 { "" } else { "s" }
        )?;
        for e in &self.errors {
            write!(f, "\n  - {e}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod chain_tests {
    use super::{chain, StageError};

    #[test]
    fn a_stage_error_keeps_its_cause_and_prints_it_once() {
        let os = std::io::Error::from(std::io::ErrorKind::NotFound);
        let os_words = os.to_string();
        let e = StageError::io(std::path::Path::new("in/x.jsonl"), os);
        assert_eq!(e.to_string(), "in/x.jsonl");
        let source = std::error::Error::source(&e).expect("the I/O error is kept");
        assert_eq!(source.to_string(), os_words);
        assert_eq!(chain(&e), format!("in/x.jsonl: {os_words}"));
        // A message that already says its cause does not say it twice.
        let said = StageError::input(format!("in/x.jsonl: {os_words}"))
            .caused_by(std::io::Error::from(std::io::ErrorKind::NotFound));
        assert_eq!(chain(&said), format!("in/x.jsonl: {os_words}"));
    }
}

#[cfg(test)]
mod on_error_tests {
    use super::OnError;

    #[test]
    fn on_error_reads_the_same_from_toml_and_the_command_line() {
        #[derive(serde::Deserialize)]
        struct Options {
            #[serde(default)]
            on_error: OnError,
        }
        let read = |text: &str| toml::from_str::<Options>(text).map(|o| o.on_error);
        assert_eq!(read("").unwrap(), OnError::Skip);
        assert_eq!(read("on_error = \"fail\"").unwrap(), OnError::Fail);
        assert!(read("on_error = \"ignore\"").is_err());
        assert_eq!("skip".parse(), Ok(OnError::Skip));
        assert_eq!("fail".parse(), Ok(OnError::Fail));
        let err = "Fail".parse::<OnError>().unwrap_err();
        assert!(
            err.contains("`Fail`") && err.contains("`skip` or `fail`"),
            "{err}"
        );
    }
}
