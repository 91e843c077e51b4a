//! One page in, one article or one rejection out: the steps every site shares,
//! driven by the site's profile.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_engine::{Article, SummarySource};

use crate::fields::{ParsedPage, SummaryFound};
use crate::identity::ArticleKey;
use crate::index::Sel;
use crate::profile::{Layout, SiteProfile};
use crate::prune::prune;
use crate::text::split_first_sentence;
use crate::url::{host, host_in};
use crate::wayback;

/// What stands in for the summary on layouts that allow it (CNN pages without highlights).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum SummaryFallback {
    /// Nothing: the page is rejected with "no reference summary".
    #[default]
    None,
    /// The page's meta / Open Graph description.
    Description,
    /// The first sentence of the body, which is then removed from the document.
    Lead,
    /// The headline (the document stays whole): TempoSum's released CNN sets pair
    /// each document with its title.
    Title,
}

/// A page to extract: its decoded HTML and what the crawl knows about it.
#[derive(Debug, Clone, Copy)]
pub struct PageInput<'a> {
    /// The decoded HTML.
    pub html: &'a str,
    /// The original URL of the capture (may be a viewer URL, or empty when unknown).
    pub url: &'a str,
    /// The capture's 14-digit timestamp (empty when unknown).
    pub captured: &'a str,
}

/// An extracted article and how it was found.
#[derive(Debug, Clone)]
pub struct Extraction {
    /// The article.
    pub article: Article,
    /// `site/layout` that matched.
    pub layout: String,
    /// Whether the summary was a paragraph of the article's text (BBC's intro,
    /// CNN's lead), rather than text beside it (highlights, description).
    pub summary_in_text: bool,
}

/// Why a page gave no article.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// A short, stable category for counters (`no reference summary`, `not an article`, ...).
    pub kind: &'static str,
    /// The full reason for `rejected.jsonl`.
    pub reason: String,
}

impl Rejection {
    fn new(kind: &'static str, reason: impl Into<String>) -> Self {
        Self {
            kind,
            reason: reason.into(),
        }
    }
}

/// Extracts articles with a set of site profiles.
#[derive(Debug)]
pub struct Extractor {
    profiles: Vec<SiteProfile>,
    forced: Option<usize>,
    fallback: SummaryFallback,
    min_document_chars: usize,
    canonical: [Sel; 2],
    viewer: Sel,
}

impl Extractor {
    /// An extractor choosing among `profiles` by URL host. With `forced`, that site
    /// is used for pages whose host belongs to no profile (files without a URL).
    pub fn new(
        profiles: Vec<SiteProfile>,
        forced: Option<&str>,
        fallback: SummaryFallback,
        min_document_chars: usize,
    ) -> Result<Self, String> {
        let forced =
            match forced {
                None => None,
                Some(site) => Some(profiles.iter().position(|p| p.site == site).ok_or_else(
                    || {
                        let known: Vec<&str> = profiles.iter().map(|p| p.site.as_str()).collect();
                        format!("unknown site `{site}` (known: {})", known.join(", "))
                    },
                )?),
            };
        let parse = |css: &str| Sel::parse(css).map_err(|e| format!("selector `{css}`: {e}"));
        Ok(Self {
            profiles,
            forced,
            fallback,
            min_document_chars,
            canonical: [
                parse(r#"link[rel="canonical"]"#)?,
                parse(r#"meta[property="og:url"], meta[name="og:url"]"#)?,
            ],
            viewer: parse(wayback::VIEWER_ELEMENTS)?,
        })
    }

    /// The profiles in use.
    pub fn profiles(&self) -> &[SiteProfile] {
        &self.profiles
    }

    fn profile_for(&self, url: &str) -> Option<&SiteProfile> {
        if let Some(i) = self.forced {
            return self.profiles.get(i);
        }
        let host = host(url);
        self.profiles
            .iter()
            .find(|p| p.hosts.iter().any(|h| host_in(&host, h)))
    }

    /// The article a capture's URL names, by the profile of its host, before any
    /// page is read (see [`SiteProfile::identify`]).
    ///
    /// # Errors
    /// Why the URL is not an article's: no profile for its host, a `reject` rule,
    /// no article id.
    pub fn identify(&self, url: &str) -> Result<ArticleKey, String> {
        let url = wayback::unrewrite(url.trim());
        self.profile_for(&url)
            .ok_or_else(|| format!("no site profile for `{}`", host(&url)))?
            .identify(&url)
    }

    /// The profile of the site named `site`.
    pub fn profile(&self, site: &str) -> Option<&SiteProfile> {
        self.profiles.iter().find(|p| p.site == site)
    }

    /// Extracts one page.
    ///
    /// # Errors
    /// A [`Rejection`] saying why the page gives no article.
    pub fn extract(&self, page: PageInput<'_>) -> Result<Extraction, Rejection> {
        let viewer = wayback::is_viewer_page(page.html);
        let capture = viewer.then(|| wayback::viewer_capture(page.html)).flatten();
        let html = if viewer {
            wayback::strip_toolbar(page.html)
        } else {
            page.html.into()
        };
        let page_url = match (page.url.trim(), &capture) {
            ("", Some(c)) => c.url.clone(),
            (url, _) => wayback::unrewrite(url).into_owned(),
        };
        // The site is known from the URL before parsing, so its `skip_elements` can
        // be pruned; a page without URL is parsed whole and named by its canonical link.
        let known = self.profile_for(&page_url);
        let skip = known.map_or(std::borrow::Cow::Borrowed(&[][..]), |p| {
            p.skip_for(&page_url)
        });
        let mut parsed = ParsedPage::new(&prune(&html, &skip), &[&self.viewer]);
        let canonical = parsed
            .canonical(&self.canonical)
            .map(|c| wayback::unrewrite(&c).into_owned());
        let lookup_url = if page_url.is_empty() {
            canonical.clone().unwrap_or_default()
        } else {
            page_url.clone()
        };
        let site = known
            .or_else(|| self.profile_for(&lookup_url))
            .ok_or_else(|| {
                Rejection::new(
                    "no site profile",
                    format!("no site profile for `{}`", host(&lookup_url)),
                )
            })?;
        let url = match canonical {
            Some(c) if site.hosts.iter().any(|h| host_in(&host(&c), h)) => c,
            _ => lookup_url,
        };

        for rule in &site.reject {
            let by_url = rule.url.as_ref().is_some_and(|re| re.is_match(&url));
            let by_page = rule.select.as_ref().is_some_and(|s| parsed.has(s));
            let spared = || rule.unless.as_ref().is_some_and(|s| parsed.has(s));
            if (by_url || by_page) && !spared() {
                return Err(Rejection::new("not an article", rule.reason.clone()));
            }
        }
        let layout = site
            .layouts
            .iter()
            .find(|l| {
                l.url.as_ref().is_none_or(|re| re.is_match(&url))
                    && l.detect.iter().any(|s| parsed.has(s))
            })
            .ok_or_else(|| {
                Rejection::new(
                    "no known layout",
                    format!(
                        "no {} article layout recognised (index, live or unsupported page)",
                        site.site
                    ),
                )
            })?;
        let name = format!("{}/{}", site.site, layout.name);
        parsed.strip(&site.strip);
        parsed.strip(&layout.strip);

        let title = parsed
            .first_value(&layout.title)
            .ok_or_else(|| Rejection::new("no title", format!("{name}: no headline found")))?;
        let summary = self.summary(&parsed, site, layout, &title, &name)?;
        let (paragraphs, summary_in_body) = parsed.body(layout, site, &summary.elements);
        let (dateline, mut paragraphs) = split_dateline(site, paragraphs);
        let dateline = dateline.or_else(|| dateline_from_parts(&parsed, layout));
        let (summary_text, summary_in_text) = match summary.text {
            Some(text) => (text, summary_in_body),
            None => match lead(&mut paragraphs) {
                Some(text) => (text, true),
                None => return Err(no_summary(&name)),
            },
        };
        let document = paragraphs.join("\n");
        let chars = document.chars().count();
        if chars == 0 {
            return Err(Rejection::new(
                "no article text",
                format!("{name}: no article text (a video, gallery or index page?)"),
            ));
        }
        if chars < self.min_document_chars {
            return Err(Rejection::new(
                "document too short",
                format!(
                    "{name}: document has {chars} characters, fewer than min_document_chars = {}",
                    self.min_document_chars
                ),
            ));
        }

        let urls = [url.as_str(), page_url.as_str()];
        let published = parsed
            .published(layout.dates.iter().chain(&site.dates), &urls)
            .ok_or_else(|| {
                Rejection::new(
                    "no date",
                    format!("{name}: no publication date on the page"),
                )
            })?;
        let id = site
            .article_id(&url)
            .ok_or_else(|| Rejection::new("no id", format!("{name}: no article id in `{url}`")))?;
        let section = site.section_of(&url);
        let captured = match (page.captured.trim(), &capture) {
            ("", Some(c)) => c.timestamp.clone(),
            (ts, _) => ts.to_string(),
        };

        Ok(Extraction {
            article: Article {
                id,
                url,
                source: site.site.clone(),
                section,
                published: published.date,
                published_at: published.at,
                captured,
                title,
                summary: summary_text,
                summary_source: Some(summary.source),
                document,
                dateline,
                facts: Vec::new(),
                split: None,
                novelty: None,
            },
            layout: name,
            summary_in_text,
        })
    }

    /// The summary, or the fallback standing in for it; `text: None` asks for the lead.
    fn summary(
        &self,
        parsed: &ParsedPage,
        site: &SiteProfile,
        layout: &Layout,
        title: &str,
        name: &str,
    ) -> Result<Summary, Rejection> {
        let beside = |text: String, source| Summary {
            text: Some(text),
            elements: HashSet::new(),
            source,
        };
        match parsed.summary(layout) {
            SummaryFound::Text(text, elements) => Ok(Summary {
                text: Some(text),
                elements,
                source: layout.summary.source,
            }),
            SummaryFound::Ambiguous(n) => Err(Rejection::new(
                "no reference summary",
                format!("{name}: no reference summary ({n} elements match the summary selector, the layout takes exactly one)"),
            )),
            SummaryFound::Missing if !layout.fallback => Err(no_summary(name)),
            SummaryFound::Missing => match self.fallback {
                SummaryFallback::None => Err(no_summary(name)),
                SummaryFallback::Description => parsed
                    .first_value(&site.description)
                    .map(|text| beside(text, SummarySource::Description))
                    .ok_or_else(|| no_summary(name)),
                SummaryFallback::Title => Ok(beside(title.to_string(), SummarySource::Title)),
                SummaryFallback::Lead => Ok(Summary {
                    text: None,
                    elements: HashSet::new(),
                    source: SummarySource::Lead,
                }),
            },
        }
    }
}

struct Summary {
    text: Option<String>,
    elements: HashSet<ego_tree::NodeId>,
    source: SummarySource,
}

fn no_summary(name: &str) -> Rejection {
    Rejection::new(
        "no reference summary",
        format!("{name}: no reference summary"),
    )
}

/// Moves a leading dateline (`WASHINGTON (CNN) --`) of the first paragraph into its own field.
fn split_dateline(
    site: &SiteProfile,
    mut paragraphs: Vec<String>,
) -> (Option<String>, Vec<String>) {
    let Some(re) = &site.dateline else {
        return (None, paragraphs);
    };
    let Some(first) = paragraphs.first() else {
        return (None, paragraphs);
    };
    let Some((dateline, end)) = re
        .captures(first)
        .and_then(|c| Some((c.get(1)?.as_str().trim().to_string(), c.get(0)?.end())))
    else {
        return (None, paragraphs);
    };
    let rest = first[end..].trim().to_string();
    if rest.is_empty() {
        paragraphs.remove(0);
    } else {
        paragraphs[0] = rest;
    }
    (Some(dateline), paragraphs)
}

/// `Location (Source)` from a layout's dateline elements.
fn dateline_from_parts(parsed: &ParsedPage, layout: &Layout) -> Option<String> {
    let parts = layout.dateline_parts.as_ref()?;
    let source = parsed.first_value(std::slice::from_ref(&parts.source))?;
    let location = parts
        .location
        .as_ref()
        .and_then(|l| parsed.first_value(std::slice::from_ref(l)));
    Some(match location {
        Some(place) => format!("{place} ({source})"),
        None => format!("({source})"),
    })
}

/// Takes the first sentence of the first paragraph out of the body.
fn lead(paragraphs: &mut Vec<String>) -> Option<String> {
    let first = paragraphs.first()?;
    let (sentence, rest) = split_first_sentence(first);
    let (sentence, rest) = (sentence.to_string(), rest.to_string());
    if rest.is_empty() {
        paragraphs.remove(0);
    } else {
        paragraphs[0] = rest;
    }
    Some(sentence)
}
