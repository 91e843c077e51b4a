//! The training sets' lists: XSum's split file (BBC ids per subset) and
//! CNN/DailyMail's URL list files, loaded into lookup tables.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_engine::CanonicalUrl;
use tempora_wayback_format::wayback_url::original_url;

use crate::error::FilterError;

/// A subset of XSum's official split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum XsumSubset {
    /// The training set (90%).
    Train,
    /// The validation set (5%).
    Validation,
    /// The test set (5%).
    Test,
}

impl XsumSubset {
    /// Every subset.
    pub const ALL: [XsumSubset; 3] = [Self::Train, Self::Validation, Self::Test];

    /// The key in the split file.
    pub fn key(self) -> &'static str {
        match self {
            Self::Train => "train",
            Self::Validation => "validation",
            Self::Test => "test",
        }
    }
}

/// An id in the split file: a string (as published) or, in some copies, a number.
#[derive(Deserialize)]
#[serde(untagged)]
enum XsumId {
    Text(String),
    Number(u64),
}

/// XSum's BBC ids, each with the subset it is in.
#[derive(Debug, Default)]
pub struct XsumIds {
    ids: HashMap<String, XsumSubset>,
}

impl XsumIds {
    /// Loads the subsets `subsets` of the split file
    /// (`XSum-TRAINING-DEV-TEST-SPLIT-90-5-5.json`: `{"train": [ids], "validation":
    /// [...], "test": [...]}`).
    ///
    /// # Errors
    /// When the file cannot be read, is not such an object, or lacks a subset asked for.
    pub fn load(path: &Path, subsets: &[XsumSubset]) -> Result<Self, FilterError> {
        let text = std::fs::read_to_string(path).map_err(|source| FilterError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mut lists: HashMap<String, Vec<XsumId>> =
            serde_json::from_str(&text).map_err(|source| FilterError::Json {
                path: path.to_path_buf(),
                what: "not an XSum split file (an object of id lists: train, validation, test)",
                source,
            })?;
        let mut ids = HashMap::new();
        for &subset in subsets {
            let Some(list) = lists.remove(subset.key()) else {
                let mut found: Vec<&str> = lists.keys().map(String::as_str).collect();
                found.sort_unstable();
                return Err(FilterError::MissingSubset {
                    path: path.to_path_buf(),
                    subset: subset.key().to_string(),
                    found: found.join(", "),
                });
            };
            for id in list {
                let id = match id {
                    XsumId::Text(s) => s.trim().to_string(),
                    XsumId::Number(n) => n.to_string(),
                };
                ids.entry(id).or_insert(subset);
            }
        }
        Ok(Self { ids })
    }

    /// The subset holding the BBC article with this id or URL, if any. The id is
    /// checked as given and as the numeric suffix of the URL (`...-35232142`), which
    /// is how XSum names BBC stories.
    pub fn find(&self, id: &str, url: &str) -> Option<(XsumSubset, String)> {
        let from_url = bbc_numeric_suffix(url);
        [Some(id), from_url]
            .into_iter()
            .flatten()
            .find_map(|key| self.ids.get(key).map(|s| (*s, key.to_string())))
    }

    /// Number of ids loaded.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no id was loaded.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// The trailing run of digits of a BBC story URL's last path segment
/// (`/news/uk-politics-35232142` -> `35232142`).
fn bbc_numeric_suffix(url: &str) -> Option<&str> {
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or(url)
        .trim_end_matches('/');
    let last = path.rsplit('/').next()?;
    // The id is the whole segment or follows the last `-` (`/news/articles/c0abc123`
    // ids end in digits too, but are not numeric ids).
    let digits = last.rsplit('-').next().unwrap_or(last);
    // Short numbers are not story ids (`/news/10318089` is; `/2/` is not).
    (digits.len() >= 6 && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// CNN/DailyMail URLs, normalized, each with the list file it came from.
#[derive(Debug, Default)]
pub struct UrlLists {
    files: Vec<String>,
    urls: HashMap<String, usize>,
}

impl UrlLists {
    /// Loads URL list files (one URL per line, as in the CNN/DailyMail
    /// `url_lists/*.txt`; Wayback URLs are reduced to the original URL).
    ///
    /// # Errors
    /// When a file cannot be read.
    pub fn load(paths: &[PathBuf]) -> Result<Self, FilterError> {
        let mut lists = Self::default();
        for path in paths {
            let text = std::fs::read_to_string(path).map_err(|source| FilterError::Read {
                path: path.clone(),
                source,
            })?;
            let file = lists.files.len();
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            lists.files.push(name);
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                lists.urls.entry(normalize_url(line)).or_insert(file);
            }
        }
        Ok(lists)
    }

    /// The name of the list file holding `url`, if any.
    pub fn find(&self, url: &str) -> Option<&str> {
        let file = *self.urls.get(&normalize_url(url))?;
        self.files.get(file).map(String::as_str)
    }

    /// Number of distinct URLs loaded.
    pub fn len(&self) -> usize {
        self.urls.len()
    }

    /// Whether no URL was loaded.
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }
}

/// Reduces a URL to what identifies the story: the original URL inside a Wayback
/// URL (`http://web.archive.org/web/2015...id_/http://...`), then the page it
/// names ([`CanonicalUrl::page`]: no scheme, port 80/443, `www.`, query,
/// fragment, trailing `index.html` or `/`; the host lowercased, the path kept as
/// is), with CNN's editions `edition.` and `us.` folded onto `cnn.com` (they serve
/// the same stories under the same paths).
pub fn normalize_url(url: &str) -> String {
    let url = original_url(url).unwrap_or(url);
    let canonical = CanonicalUrl::parse(url);
    if CNN_EDITIONS.contains(&canonical.host()) {
        canonical.with_host("cnn.com").page()
    } else {
        canonical.page()
    }
}

/// CNN hosts that serve `cnn.com`'s stories under the same paths (`www.` is
/// dropped by [`CanonicalUrl`] already).
const CNN_EDITIONS: [&str; 2] = ["edition.cnn.com", "us.cnn.com"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_removes_what_does_not_name_the_story() {
        let canonical = "cnn.com/2015/04/01/europe/france-germanwings-plane-crash-main";
        for url in [
            "http://web.archive.org/web/20150401100102id_/http://www.cnn.com/2015/04/01/europe/france-germanwings-plane-crash-main/",
            "https://www.cnn.com/2015/04/01/europe/france-germanwings-plane-crash-main/index.html",
            "http://edition.cnn.com/2015/04/01/europe/france-germanwings-plane-crash-main/index.html?eref=rss_topstories",
            "HTTP://WWW.CNN.COM:80/2015/04/01/europe/france-germanwings-plane-crash-main#comments",
            "cnn.com/2015/04/01/europe/france-germanwings-plane-crash-main",
            "https://us.cnn.com/2015/04/01/europe/france-germanwings-plane-crash-main/index.html?iid=ob_lockedrail",
            "https://Edition.CNN.com/2015/04/01/europe/france-germanwings-plane-crash-main/index.htm",
        ] {
            assert_eq!(normalize_url(url), canonical, "{url}");
        }
        // The path is case-sensitive and other subdomains are other sites.
        assert_ne!(
            normalize_url("http://www.cnn.com/2015/A"),
            normalize_url("http://www.cnn.com/2015/a")
        );
        assert_eq!(normalize_url("http://money.cnn.com/x/"), "money.cnn.com/x");
        assert_eq!(
            normalize_url("http://edition.bbc.com/x"),
            "edition.bbc.com/x"
        );
    }

    #[test]
    fn bbc_ids_come_from_the_url_suffix() {
        assert_eq!(
            bbc_numeric_suffix("https://www.bbc.co.uk/news/uk-politics-35232142"),
            Some("35232142")
        );
        assert_eq!(
            bbc_numeric_suffix("https://www.bbc.com/news/10318089?x=1"),
            Some("10318089")
        );
        assert_eq!(
            bbc_numeric_suffix("https://www.bbc.com/news/articles/c4ng1x7pz2po"),
            None
        );
        assert_eq!(
            bbc_numeric_suffix("https://www.bbc.com/news/articles/c0abc1234567"),
            None
        );
        assert_eq!(bbc_numeric_suffix("http://news.bbc.co.uk/2/hi/"), None);
    }
}
