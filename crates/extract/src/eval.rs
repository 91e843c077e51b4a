//! Scores extraction against pages with known answers.
//!
//! A folder holds one sub-folder per site (its name picks the profile when a page's
//! URL is unknown). Answers come from `expected.json` (file name -> `url`, `title`,
//! `published`, `summary`), from `<page>.expected.json` (`url`, `body`, or goose's
//! `expected.{title, cleaned_text}`) and from `<page>.expected-text.txt` (the body).
//! A field that is absent is unknown and not scored.
//!
//! Scores: title, summary and date by exact match after whitespace normalization;
//! the body by token F1 (lowercase alphanumeric tokens) against the article's text
//! as a reader sees it (dateline, the summary when it is a paragraph of the text,
//! then the document), or, when the answers give the summary too, against the
//! dateline and document alone (XSum's pairs: the body is the text after the
//! summary); goose's `cleaned_text`, a start of the text, by prefix.
//! goose reports the `<title>` element, so its site suffix (" - CNN.com") is cut
//! before comparing with the headline.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::extract::{Extractor, FallbackChoice, PageInput, SummaryFallback};
use crate::profile::load_profiles;
use crate::score::score;
pub use crate::score::{Expected, PageScore, Report};

/// goose3's expectation files.
#[derive(Debug, Deserialize)]
struct GooseFile {
    url: Option<String>,
    expected: GooseExpected,
}

#[derive(Debug, Deserialize)]
struct GooseExpected {
    title: Option<String>,
    cleaned_text: Option<String>,
}

/// Errors of the evaluation: unreadable folders or answer files.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A file or folder could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An answer file is not the JSON this module knows.
    #[error("{path}: {message}")]
    Format {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The profiles or the extractor could not be set up.
    #[error("{0}")]
    Setup(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> EvalError + '_ {
    move |source| EvalError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, EvalError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|e| EvalError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The answers known for every `*.html` page of a site folder.
///
/// # Errors
/// An unreadable folder or a malformed answer file.
pub fn expectations(site_dir: &Path) -> Result<BTreeMap<String, Expected>, EvalError> {
    let mut known: HashMap<String, Expected> = HashMap::new();
    let index = site_dir.join("expected.json");
    if index.exists() {
        let map: BTreeMap<String, serde_json::Value> = read_json(&index)?;
        for (file, value) in map.into_iter().filter(|(k, _)| !k.starts_with('_')) {
            let e: Expected = serde_json::from_value(value).map_err(|e| EvalError::Format {
                path: index.clone(),
                message: format!("entry `{file}`: {e}"),
            })?;
            known.insert(file, e);
        }
    }
    let mut pages = BTreeMap::new();
    for entry in std::fs::read_dir(site_dir).map_err(io(site_dir))? {
        let path = entry.map_err(io(site_dir))?.path();
        let Some(file) = path
            .file_name()
            .and_then(|f| f.to_str())
            .map(str::to_string)
        else {
            continue;
        };
        let Some(stem) = file.strip_suffix(".html") else {
            continue;
        };
        let mut e = known.remove(&file).unwrap_or_default();
        let side = site_dir.join(format!("{stem}.expected.json"));
        if side.exists() {
            let value: serde_json::Value = read_json(&side)?;
            if value.get("expected").is_some() {
                let goose: GooseFile =
                    serde_json::from_value(value).map_err(|err| EvalError::Format {
                        path: side.clone(),
                        message: err.to_string(),
                    })?;
                e.url = e.url.or(goose.url);
                e.title = e
                    .title
                    .or(goose.expected.title.map(|t| cut_site_suffix(&t)));
                e.body_start = goose.expected.cleaned_text;
            } else {
                let more: Expected =
                    serde_json::from_value(value).map_err(|err| EvalError::Format {
                        path: side.clone(),
                        message: err.to_string(),
                    })?;
                e.url = e.url.or(more.url);
                e.body = more.body;
            }
        }
        let text = site_dir.join(format!("{stem}.expected-text.txt"));
        if text.exists() {
            e.body = Some(std::fs::read_to_string(&text).map_err(io(&text))?);
        }
        pages.insert(file, e);
    }
    Ok(pages)
}

fn cut_site_suffix(title: &str) -> String {
    for suffix in [
        " - CNN.com",
        " - CNN",
        " | CNN",
        " - BBC News",
        " | BBC News",
    ] {
        if let Some(t) = title.strip_suffix(suffix) {
            return t.to_string();
        }
    }
    title.to_string()
}

/// Scores every site folder of `dir`, or `dir` itself when it holds pages (a site
/// folder given directly, e.g. `pages/bbc`).
///
/// # Errors
/// An unreadable folder or answer file, or profiles that do not compile.
pub fn evaluate(
    dir: &Path,
    profiles_dir: Option<&Path>,
    fallback: SummaryFallback,
    min_document_chars: usize,
) -> Result<Report, EvalError> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let holds_pages = entries
        .iter()
        .any(|p| p.is_file() && p.extension().is_some_and(|x| x == "html"));
    let mut sites: Vec<PathBuf> = if holds_pages {
        vec![dir.to_path_buf()]
    } else {
        entries.into_iter().filter(|p| p.is_dir()).collect()
    };
    sites.sort();
    let mut report = Report::default();
    for site_dir in sites {
        let site = site_dir
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default()
            .to_string();
        let profiles = load_profiles(profiles_dir).map_err(|e| EvalError::Setup(e.to_string()))?;
        let forced = profiles
            .iter()
            .any(|p| p.site == site)
            .then_some(site.as_str());
        let choice = FallbackChoice::from(fallback);
        let extractor = Extractor::new(profiles, forced, Some(&choice), min_document_chars)
            .map_err(EvalError::Setup)?;
        for (file, expected) in expectations(&site_dir)? {
            let path = site_dir.join(&file);
            let bytes = std::fs::read(&path).map_err(io(&path))?;
            let html = crate::charset::decode_html(&bytes, None);
            let result = extractor.extract(PageInput {
                html: &html,
                url: expected.url.as_deref().unwrap_or(""),
                captured: None,
            });
            report
                .pages
                .push(score(format!("{site}/{file}"), &expected, result));
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_folder_given_directly_is_scored_as_that_site() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("bbc");
        std::fs::create_dir(&dir).unwrap();
        let page = r#"<html><head><meta property="rnews:datePublished" content="2016/10/18 15:10:00"></head><body>
<article class="story"><h1 class="story-headline">Wasps sign winger</h1><div class="story-body sp-story-body">
<p class="sp-story-body__introduction">Wasps have signed a winger.</p>
<p>He scored 97 tries in 140 league games and has never played a full match of union before this season.</p></div></article></body></html>"#;
        std::fs::write(dir.join("sport.html"), page).unwrap();
        std::fs::write(
            dir.join("expected.json"),
            r#"{"sport.html": {"url": "http://www.bbc.co.uk/sport/rugby-union/37654321", "summary": "Wasps have signed a winger.", "published": "2016-10-18"}}"#,
        )
        .unwrap();
        for folder in [dir.as_path(), root.path()] {
            let report = evaluate(folder, None, SummaryFallback::None, 10).unwrap();
            assert_eq!(report.pages.len(), 1, "{}", folder.display());
            let p = &report.pages[0];
            assert_eq!(p.page, "bbc/sport.html");
            assert_eq!((p.summary, p.published), (Some(true), Some(true)));
        }
    }

    #[test]
    fn goose_titles_lose_the_site_suffix() {
        assert_eq!(cut_site_suffix("Democrats win - CNN.com"), "Democrats win");
        assert_eq!(cut_site_suffix("No suffix"), "No suffix");
    }
}
