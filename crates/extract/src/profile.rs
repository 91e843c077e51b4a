//! Site profiles: how to recognise each page layout of a news site and where its
//! title, reference summary, body and publication date are. Profiles are data
//! (`config/sites/<site>.toml`), so a site or a layout is added without Rust code.
//!
//! The shipped profiles are compiled into the binary; a directory of `*.toml` files
//! can add sites or replace a shipped site of the same name.

use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use tempora_records::SummarySource;

pub use crate::compile::parse_profile;
pub use crate::id_dates::IdDates;
use crate::index::Sel;

/// The profiles shipped with Tempora, as `(file name, TOML text)`.
pub const SHIPPED: [(&str, &str); 2] = [
    ("bbc.toml", include_str!("../../../config/sites/bbc.toml")),
    ("cnn.toml", include_str!("../../../config/sites/cnn.toml")),
];

/// A profile that cannot be used, naming the file and the field.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file is not valid TOML or does not match the profile schema.
    #[error("{file}: {message}")]
    Syntax {
        /// The profile file.
        file: String,
        /// The TOML parser's message (it names line, column and key).
        message: String,
    },
    /// A selector, pattern or combination of fields is wrong.
    #[error("{file}: `{field}`: {message}")]
    Field {
        /// The profile file.
        file: String,
        /// Path of the field, e.g. `layouts[1].summary.select`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The profile directory could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Which of the elements a summary selector matches make the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Take {
    /// The first match (after stripping).
    #[default]
    First,
    /// Exactly one match, else the page is rejected (the XSum scripts' rule).
    Single,
    /// Every match, one per line (CNN story highlights).
    All,
}

/// A compiled site profile.
#[derive(Debug)]
pub struct SiteProfile {
    /// Site name, the Article's `source`.
    pub site: String,
    /// The publisher's name as people know it (`BBC`, `CNN`): the dataset card
    /// names the publishers of the sets' articles by it. Without it, the card
    /// names the site and its hosts.
    pub publisher: Option<String>,
    /// Host suffixes that belong to the site (`bbc.co.uk` matches `news.bbc.co.uk`).
    pub hosts: Vec<String>,
    /// Other hosts that serve the same stories under the same paths as the first
    /// of `hosts` (CNN's `edition.cnn.com`, `us.cnn.com`): a URL on one of them is
    /// the same story when training-set URL lists are compared.
    pub editions: Vec<String>,
    /// Patterns whose first group, matched on the URL's path alone (no scheme,
    /// host or query), is the article id.
    pub id: Vec<Regex>,
    /// The list of the `exclude` stage that names this site's articles by id
    /// (`xsum_split`: XSum's split file lists BBC ids), matched against the
    /// article's id and the id its URL gives.
    pub exclude_ids: Option<String>,
    /// BibTeX of the dataset whose style this site's sets follow (XSum for BBC,
    /// CNN/DailyMail for CNN): the dataset card cites it for sets holding the
    /// site's articles.
    pub citation: Option<String>,
    /// What numeric ids tell about the publication day (`id_dates`), when they grow with it.
    pub id_dates: Option<IdDates>,
    /// Where the page carries its description (`summary_fallback = "description"`).
    pub description: Vec<Sel>,
    /// Elements never part of a summary or body, on every layout.
    pub strip: Vec<Sel>,
    /// Body paragraphs matching any of these are dropped ("Read more", share lines).
    pub drop_paragraphs: Vec<Regex>,
    /// Body paragraphs that are nothing but a link (related stories) are dropped.
    pub drop_link_paragraphs: bool,
    /// Elements dropped with their content before parsing, for speed: only those
    /// that never hold a title, summary, body paragraph or date of the site.
    pub skip_elements: Vec<String>,
    /// Elements of `skip_elements` kept on pages whose URL matches (where they do
    /// hold article text, as BBC Sport's fact boxes are asides).
    pub keep_elements: Vec<KeepElements>,
    /// A dateline at the start of the first paragraph; group 1 is the dateline.
    pub dateline: Option<Regex>,
    /// Pages that are not articles, with the reason.
    pub reject: Vec<RejectRule>,
    /// How the Article's `section` is read off the URL, tried in order.
    pub sections: Vec<SectionRule>,
    /// The section of pages no `sections` rule names.
    pub section: String,
    /// Where the publication date is, tried after the layout's own rules.
    pub dates: Vec<DateRule>,
    /// What stands in for a missing summary on layouts with `fallback = true`, unless
    /// the pipeline's `summary_fallback` names one for the site.
    pub summary_fallback: crate::fallback::SummaryFallback,
    /// Layouts, tried in order; the first recognised one extracts the page.
    pub layouts: Vec<Layout>,
}

/// A rule that recognises a non-article page.
#[derive(Debug)]
pub struct RejectRule {
    /// The whole URL matches this pattern.
    pub url: Option<Regex>,
    /// Or the page has an element matching this selector.
    pub select: Option<Sel>,
    /// But not when the page has an element matching this one (an article's
    /// introduction on a match page that also carries live text or tables).
    pub unless: Option<Sel>,
    /// What kind of page it is, as a stable key (`live_page`, `world_service`):
    /// the counter `rejected: <key>` in `run.json`.
    pub key: String,
    /// The reason written to `rejected.jsonl`.
    pub reason: String,
}

/// Elements not skipped on the pages whose URL matches.
#[derive(Debug)]
pub struct KeepElements {
    /// The pattern, matched on the page's whole URL.
    pub url: Regex,
    /// Element names, each one of the site's `skip_elements`.
    pub names: Vec<String>,
}

/// A rule naming the section of the pages whose URL matches.
#[derive(Debug)]
pub struct SectionRule {
    /// The pattern, matched on the whole URL.
    pub url: Regex,
    /// The section; without it, group 1 of the match, lowercased.
    pub name: Option<String>,
}

impl SiteProfile {
    /// The attributes the profile's date rules read, its layouts' included.
    pub(crate) fn date_attributes(&self) -> impl Iterator<Item = &str> {
        let layouts = self.layouts.iter().flat_map(|l| &l.dates);
        self.dates.iter().chain(layouts).filter_map(|r| match r {
            DateRule::Element { attr, .. } => attr.as_deref(),
            DateRule::JsonLd(_) | DateRule::Url(_) => None,
        })
    }

    /// Every selector of the profile, its layouts' included.
    pub(crate) fn selectors(&self) -> Vec<&Sel> {
        fn dates(rules: &[DateRule]) -> impl Iterator<Item = &Sel> {
            rules.iter().filter_map(|r| match r {
                DateRule::Element { select, .. } => Some(select),
                DateRule::JsonLd(_) | DateRule::Url(_) => None,
            })
        }
        let mut all: Vec<&Sel> = self.description.iter().chain(&self.strip).collect();
        for rule in &self.reject {
            all.extend(rule.select.iter().chain(&rule.unless));
        }
        all.extend(dates(&self.dates));
        for layout in &self.layouts {
            all.extend(
                layout
                    .detect
                    .iter()
                    .chain(&layout.title)
                    .chain(&layout.strip),
            );
            all.push(&layout.summary.select);
            all.push(&layout.body);
            all.extend(dates(&layout.dates));
            if let Some(parts) = &layout.dateline_parts {
                all.extend(parts.location.iter());
                all.push(&parts.source);
            }
        }
        all
    }

    /// Whether `host` (lowercase) is one of the site's hosts or a subdomain of one.
    pub fn serves(&self, host: &str) -> bool {
        self.hosts.iter().any(|domain| {
            host == domain
                || host
                    .strip_suffix(domain.as_str())
                    .is_some_and(|sub| sub.ends_with('.'))
        })
    }

    /// The elements skipped before parsing the page at `url`: `skip_elements`
    /// without those a matching `keep_elements` rule keeps.
    pub fn skip_for(&self, url: &str) -> std::borrow::Cow<'_, [String]> {
        let kept: Vec<&String> = self
            .keep_elements
            .iter()
            .filter(|k| k.url.is_match(url))
            .flat_map(|k| &k.names)
            .collect();
        if kept.is_empty() {
            return std::borrow::Cow::Borrowed(&self.skip_elements);
        }
        std::borrow::Cow::Owned(
            self.skip_elements
                .iter()
                .filter(|name| !kept.contains(name))
                .cloned()
                .collect(),
        )
    }

    /// The section of the page at `url`: the first `sections` rule that matches
    /// (and, without a fixed name, captures a non-empty group 1), else `section`.
    pub fn section_of(&self, url: &str) -> String {
        self.sections
            .iter()
            .find_map(|rule| {
                let caps = rule.url.captures(url)?;
                match &rule.name {
                    Some(name) => Some(name.clone()),
                    None => caps
                        .get(1)
                        .map(|m| m.as_str().to_lowercase())
                        .filter(|s| !s.is_empty()),
                }
            })
            .unwrap_or_else(|| self.section.clone())
    }
}

/// One place a publication date can be found.
#[derive(Debug)]
pub enum DateRule {
    /// A key of the page's JSON-LD (`datePublished`).
    JsonLd(String),
    /// An element; its attribute (or, by default, its `content`, `datetime` or text).
    Element {
        /// The element.
        select: Sel,
        /// The attribute holding the date.
        attr: Option<String>,
        /// A chrono format; the common formats are recognised without one.
        format: Option<String>,
    },
    /// A pattern on the whole URL whose groups 1, 2, 3 are year, month and day.
    Url(Regex),
}

/// One page layout of a site.
#[derive(Debug)]
pub struct Layout {
    /// Name, reported in counters and rejection reasons.
    pub name: String,
    /// The whole URL must match this pattern (when given).
    pub url: Option<Regex>,
    /// The page has an element matching one of these.
    pub detect: Vec<Sel>,
    /// Headline, first non-empty match of these in order.
    pub title: Vec<Sel>,
    /// The reference summary.
    pub summary: SummaryRule,
    /// The body paragraphs, in document order.
    pub body: Sel,
    /// Elements stripped on this layout (in addition to the site's).
    pub strip: Vec<Sel>,
    /// Date rules tried before the site's.
    pub dates: Vec<DateRule>,
    /// Whether `summary_fallback` may stand in for a missing summary.
    pub fallback: bool,
    /// A dateline written in its own elements rather than at the start of the body.
    pub dateline_parts: Option<DatelineParts>,
}

/// A dateline in its own elements: `Location (Source)`, e.g. `Washington (CNN)`.
#[derive(Debug)]
pub struct DatelineParts {
    /// The place, when the page names one.
    pub location: Option<Sel>,
    /// The news organisation.
    pub source: Sel,
}

/// Where the reference summary is.
#[derive(Debug)]
pub struct SummaryRule {
    /// The summary element(s).
    pub select: Sel,
    /// Which matches make the summary.
    pub take: Take,
    /// The element must be wholly bold (`<b>`/`<strong>`), as BBC's intro sentence is.
    pub bold: bool,
    /// What the summary is, recorded in the Article's `summary_source`.
    pub source: SummarySource,
}

/// Every profile, shipped ones first, then those of `dir` (a site of the same name
/// replaces the shipped one).
///
/// # Errors
/// A file that cannot be read or compiled, named with the field at fault.
pub fn load_profiles(dir: Option<&Path>) -> Result<Vec<SiteProfile>, ProfileError> {
    let mut profiles = SHIPPED
        .iter()
        .map(|(file, text)| parse_profile(file, text))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(dir) = dir else {
        return Ok(profiles);
    };
    let io = |source| ProfileError::Io {
        path: dir.display().to_string(),
        source,
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|source| ProfileError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let profile = parse_profile(&path.display().to_string(), &text)?;
        profiles.retain(|p| p.site != profile.site);
        profiles.push(profile);
    }
    Ok(profiles)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
site = "example"
hosts = ["example.org"]
id = ['/(\d+)$']
[[layouts]]
name = "plain"
detect = ["article"]
title = ["h1"]
summary = { select = "p.lead" }
body = ["article p"]
"#;

    #[test]
    fn shipped_profiles_compile() {
        let profiles = load_profiles(None).unwrap();
        let names: Vec<&str> = profiles.iter().map(|p| p.site.as_str()).collect();
        assert_eq!(names, ["bbc", "cnn"]);
    }

    #[test]
    fn the_publisher_is_named_by_the_profile_or_by_none() {
        let shipped = load_profiles(None).unwrap();
        let publishers: Vec<Option<&str>> =
            shipped.iter().map(|p| p.publisher.as_deref()).collect();
        assert_eq!(publishers, [Some("BBC"), Some("CNN")]);
        assert_eq!(
            parse_profile("example.toml", MINIMAL).unwrap().publisher,
            None
        );
        let named = MINIMAL.replace(
            "site = \"example\"",
            "site = \"example\"\npublisher = \"The Example\"",
        );
        let p = parse_profile("example.toml", &named).unwrap();
        assert_eq!(p.publisher.as_deref(), Some("The Example"));
        let empty = MINIMAL.replace(
            "site = \"example\"",
            "site = \"example\"\npublisher = \" \"",
        );
        let err = parse_profile("example.toml", &empty)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`publisher`"), "{err}");
    }

    /// The README's example profile, compiled from the README itself, reads the
    /// README's URLs as the README says: `id` on the URL's path alone, `sections`
    /// on the whole URL.
    #[test]
    fn the_readme_example_profile_matches_as_documented() {
        const README: &str = include_str!("../README.md");
        let begin = "<!-- profile-example:begin -->\n```toml\n";
        let start = README.find(begin).expect("the README's example") + begin.len();
        let end = start
            + README[start..]
                .find("```\n<!-- profile-example:end -->")
                .unwrap();
        let p = parse_profile("README.md", &README[start..end]).unwrap();
        let said = README[end..]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for (url, path, id, section) in [
            (
                "https://www.example.org/sport/story/12345?ref=home",
                Some("/sport/story/12345"),
                "12345",
                "sport",
            ),
            ("http://example.org/story/678", None, "678", "news"),
        ] {
            let claim = format!("`{url}` is the article `{id}`");
            assert!(said.contains(&claim), "the README does not say {claim}");
            assert!(said.contains(&format!("in the section `{section}`")));
            assert_eq!(p.article_id(url).as_deref(), Some(id), "{url}");
            assert_eq!(p.section_of(url), section, "{url}");
            if let Some(path) = path {
                assert!(said.contains(&format!("sees the path `{path}`")));
                // Each pattern sees its own part: the id's the path, the section's
                // the whole URL; neither matches the other's.
                assert!(p.id[0].is_match(path) && !p.id[0].is_match(url));
                assert!(p.sections[0].url.is_match(url) && !p.sections[0].url.is_match(path));
            }
        }
        assert_eq!(p.publisher.as_deref(), Some("The Example Times"));
        assert_eq!(p.layouts[0].name, "story");
        // Without a layout's `name`, the profile is refused, naming the key.
        let unnamed = README[start..end].replace("name = \"story\"\n", "");
        let err = parse_profile("README.md", &unnamed)
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing field `name`"), "{err}");
    }

    #[test]
    fn minimal_profile_compiles_with_defaults() {
        let p = parse_profile("example.toml", MINIMAL).unwrap();
        assert_eq!(p.layouts[0].summary.take, Take::First);
        assert!(!p.layouts[0].fallback);
    }

    #[test]
    fn subdomains_belong_to_their_domain_only() {
        let p = parse_profile("example.toml", MINIMAL).unwrap();
        assert!(p.serves("news.example.org"));
        assert!(p.serves("example.org"));
        assert!(!p.serves("notexample.org"));
        assert!(!p.serves(""));
    }

    #[test]
    fn unknown_key_names_file_and_key() {
        let text = MINIMAL.replace("detect =", "detcet = [\"x\"]\ndetect =");
        let err = parse_profile("example.toml", &text)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("example.toml:"), "{err}");
        assert!(err.contains("detcet"), "{err}");
    }

    #[test]
    fn bad_selector_names_the_field() {
        let text = MINIMAL.replace("title = [\"h1\"]", "title = [\"h1\", \"p[\"]");
        let err = parse_profile("example.toml", &text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`layouts[0].title[1]`"), "{err}");
    }

    #[test]
    fn keep_elements_spare_skipped_elements_on_matching_urls() {
        let text = MINIMAL.replace(
            "id = ['/(\\d+)$']",
            "id = ['/(\\d+)$']\nskip_elements = [\"nav\", \"aside\"]\nkeep_elements = [{ url = '/sport/', names = [\"aside\"] }]",
        );
        let p = parse_profile("example.toml", &text).unwrap();
        assert_eq!(
            p.skip_for("https://example.org/news/1").as_ref(),
            ["nav", "aside"]
        );
        assert_eq!(p.skip_for("https://example.org/sport/1").as_ref(), ["nav"]);
        // Only skipped elements can be kept.
        let bad = text.replace("names = [\"aside\"]", "names = [\"footer\"]");
        let err = parse_profile("example.toml", &bad).unwrap_err().to_string();
        assert!(err.contains("`keep_elements[0].names[0]`"), "{err}");
    }

    #[test]
    fn skip_elements_must_be_plain_element_names() {
        for bad in ["\"div.x\"", "\"\"", "\"script\""] {
            let text = MINIMAL.replace(
                "id = ['/(\\d+)$']",
                &format!("id = ['/(\\d+)$']\nskip_elements = [{bad}]"),
            );
            let err = parse_profile("example.toml", &text)
                .unwrap_err()
                .to_string();
            assert!(err.contains("`skip_elements[0]`"), "{bad}: {err}");
        }
    }

    #[test]
    fn date_rule_needs_exactly_one_source() {
        let text = format!("{MINIMAL}\n");
        let text = text.replace(
            "id = ['/(\\d+)$']",
            "id = ['/(\\d+)$']\ndates = [{ json_ld = \"datePublished\", url = \"x\" }]",
        );
        let err = parse_profile("example.toml", &text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`dates[0]`"), "{err}");
    }

    #[test]
    fn url_date_pattern_needs_three_groups() {
        let text = MINIMAL.replace(
            "id = ['/(\\d+)$']",
            "id = ['/(\\d+)$']\ndates = [{ url = '/(\\d{4})/' }]",
        );
        let err = parse_profile("example.toml", &text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("year, month, day"), "{err}");
    }

    #[test]
    fn sections_come_from_a_fixed_name_or_group_one_else_the_default() {
        let text = MINIMAL.replace(
            "id = ['/(\\d+)$']",
            "id = ['/(\\d+)$']\nsection = \"general\"\nsections = [{ url = '/sport/', name = \"sport\" }, { url = '^https?://[^/]+/([A-Za-z]+)/\\d+$' }]",
        );
        let p = parse_profile("example.toml", &text).unwrap();
        assert_eq!(
            p.section_of("https://example.org/sport/football/1"),
            "sport"
        );
        assert_eq!(p.section_of("https://example.org/Travel/12"), "travel");
        assert_eq!(p.section_of("https://example.org/a/b/12"), "general");
        assert_eq!(p.section_of(""), "general");
        let defaulted = parse_profile("example.toml", MINIMAL).unwrap();
        assert_eq!(defaulted.section_of("https://example.org/sport/1"), "news");
    }

    #[test]
    fn a_section_rule_needs_a_name_or_a_group() {
        for (rule, field) in [
            ("{ url = '/sport/' }", "`sections[0]`"),
            ("{ url = '/sport/', name = \" \" }", "`sections[0].name`"),
            ("{ url = '(', name = \"x\" }", "`sections[0].url`"),
        ] {
            let text = MINIMAL.replace(
                "id = ['/(\\d+)$']",
                &format!("id = ['/(\\d+)$']\nsections = [{rule}]"),
            );
            let err = parse_profile("example.toml", &text)
                .unwrap_err()
                .to_string();
            assert!(err.contains(field), "{rule}: {err}");
        }
    }

    #[test]
    fn summary_source_and_reject_unless_compile() {
        let text = MINIMAL
            .replace(
                "summary = { select = \"p.lead\" }",
                "summary = { select = \"li.point\", take = \"all\", source = \"highlights\" }",
            )
            .replace(
                "id = ['/(\\d+)$']",
                "id = ['/(\\d+)$']\nreject = [{ select = \"table\", unless = \"p.lead\", key = \"tables\", reason = \"tables\" }]",
            );
        let p = parse_profile("example.toml", &text).unwrap();
        assert_eq!(p.layouts[0].summary.source, SummarySource::Highlights);
        assert!(p.reject[0].unless.is_some());
        assert_eq!(
            parse_profile("example.toml", MINIMAL).unwrap().layouts[0]
                .summary
                .source,
            SummarySource::Intro
        );
        let bad = text.replace("\"highlights\"", "\"abstract\"");
        assert!(parse_profile("example.toml", &bad).is_err());
    }

    #[test]
    fn directory_profile_replaces_shipped_site_of_same_name() {
        let dir = tempfile::tempdir().unwrap();
        let text = MINIMAL.replace("\"example\"", "\"bbc\"");
        std::fs::write(dir.path().join("bbc.toml"), text).unwrap();
        std::fs::write(dir.path().join("example.toml"), MINIMAL).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
        let profiles = load_profiles(Some(dir.path())).unwrap();
        let names: Vec<&str> = profiles.iter().map(|p| p.site.as_str()).collect();
        assert_eq!(names, ["cnn", "bbc", "example"]);
        let bbc = profiles.iter().find(|p| p.site == "bbc").unwrap();
        assert_eq!(bbc.hosts, ["example.org"]);
    }

    #[test]
    fn missing_directory_is_an_io_error_naming_it() {
        let err = load_profiles(Some(Path::new("/nonexistent/profiles")))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/nonexistent/profiles:"), "{err}");
    }
}
