//! The training sets' lists: XSum's split file (ids per subset) and
//! CNN/DailyMail's URL list files, loaded into lookup tables. Which site a list
//! names, and how, is the site profiles' to say (`exclude_ids`, `id`, `editions`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_records::CanonicalUrl;
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

    /// The subset holding an article known by any of `ids` (its id, the id its
    /// URL gives), with the id found.
    pub fn find(&self, ids: &[&str]) -> Option<(XsumSubset, String)> {
        ids.iter()
            .find_map(|key| self.ids.get(*key).map(|s| (*s, (*key).to_string())))
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

/// CNN/DailyMail URLs, normalized, each with the list file it came from.
#[derive(Debug, Default)]
pub struct UrlLists {
    files: Vec<String>,
    urls: HashMap<String, usize>,
    editions: Editions,
}

/// Hosts that serve another host's stories under the same paths (a site
/// profile's `editions`), each with that host: `edition.cnn.com` -> `cnn.com`.
pub type Editions = Vec<(String, String)>;

impl UrlLists {
    /// Loads URL list files (one URL per line, as in the CNN/DailyMail
    /// `url_lists/*.txt`; Wayback URLs are reduced to the original URL), URLs on
    /// an edition read as on its host.
    ///
    /// # Errors
    /// When a file cannot be read.
    pub fn load(paths: &[PathBuf], editions: Editions) -> Result<Self, FilterError> {
        let mut lists = Self {
            editions,
            ..Self::default()
        };
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
                let url = normalize_url(line, &lists.editions);
                lists.urls.entry(url).or_insert(file);
            }
        }
        Ok(lists)
    }

    /// The name of the list file holding `url`, if any.
    pub fn find(&self, url: &str) -> Option<&str> {
        let file = *self.urls.get(&normalize_url(url, &self.editions))?;
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
/// is), with an edition's host read as the host whose stories it serves.
pub fn normalize_url(url: &str, editions: &Editions) -> String {
    let url = original_url(url).unwrap_or(url);
    let canonical = CanonicalUrl::parse(url);
    match editions
        .iter()
        .find(|(edition, _)| edition == canonical.host())
    {
        Some((_, host)) => canonical.with_host(host).page(),
        None => canonical.page(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the shipped CNN profile says of its editions.
    fn cnn_editions() -> Editions {
        ["edition.cnn.com", "us.cnn.com"]
            .map(|e| (e.to_string(), "cnn.com".to_string()))
            .to_vec()
    }

    #[test]
    fn normalization_removes_what_does_not_name_the_story() {
        let editions = cnn_editions();
        let normalize_url = |url: &str| normalize_url(url, &editions);
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
}
