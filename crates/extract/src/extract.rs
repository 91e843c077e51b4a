//! One page in, one article or one rejection out: the steps every site shares,
//! driven by the site's profile.

use std::collections::HashSet;

use tempora_records::{Article, SummarySource, Timestamp};

pub use crate::fallback::{FallbackChoice, SummaryFallback};
use crate::fields::{ParsedPage, SummaryFound};
use crate::identity::ArticleKey;
use crate::index::{Sel, Vocabulary};
use crate::profile::{Layout, SiteProfile};
use crate::prune::{prune, AttrKeep};
pub use crate::rejection::Rejection;
use crate::text::split_first_sentence;
use crate::wayback;

/// A page to extract: its decoded HTML and what the crawl knows about it.
#[derive(Debug, Clone, Copy)]
pub struct PageInput<'a> {
    /// The decoded HTML.
    pub html: &'a str,
    /// The original URL of the capture (may be a viewer URL, or empty when unknown).
    pub url: &'a str,
    /// The capture's time, when known.
    pub captured: Option<Timestamp>,
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

/// Extracts articles with a set of site profiles.
#[derive(Debug)]
pub struct Extractor {
    profiles: Vec<SiteProfile>,
    forced: Option<usize>,
    /// The fallback of each profile, by index: the pipeline's choice, else the profile's.
    fallbacks: Vec<SummaryFallback>,
    min_document_chars: usize,
    canonical: [Sel; 2],
    viewer: Sel,
    /// The keys of every selector above and in the profiles: what a page's index holds.
    vocabulary: Vocabulary,
    /// The attributes the selectors and date rules read, kept when the page is
    /// pruned (`None`: every attribute, when a selector's cannot be told).
    attrs: Option<AttrKeep>,
}

impl Extractor {
    /// An extractor choosing among `profiles` by URL host. With `forced`, that site
    /// is used for pages whose host belongs to no profile (files without a URL).
    /// `fallback` is what stands in for a missing summary where a layout allows it;
    /// a site it does not name (or all, without it) keeps its profile's
    /// `summary_fallback`.
    ///
    /// # Errors
    /// A forced site or a site of `fallback` that no profile has.
    pub fn new(
        profiles: Vec<SiteProfile>,
        forced: Option<&str>,
        fallback: Option<&FallbackChoice>,
        min_document_chars: usize,
    ) -> Result<Self, String> {
        let known = || {
            let names: Vec<&str> = profiles.iter().map(|p| p.site.as_str()).collect();
            names.join(", ")
        };
        if let Some(FallbackChoice::PerSite(sites)) = fallback {
            if let Some(site) = sites
                .keys()
                .find(|s| !profiles.iter().any(|p| &p.site == *s))
            {
                return Err(format!(
                    "`{site}` is not a site extracted here (sites: {})",
                    known()
                ));
            }
        }
        let fallbacks = profiles
            .iter()
            .map(|p| {
                fallback
                    .and_then(|f| f.for_site(&p.site))
                    .unwrap_or(p.summary_fallback)
            })
            .collect();
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
        let canonical = [
            parse(r#"link[rel="canonical"]"#)?,
            parse(r#"meta[property="og:url"], meta[name="og:url"]"#)?,
        ];
        let viewer = parse(wayback::VIEWER_ELEMENTS)?;
        let mut vocabulary = Vocabulary::default();
        let ours = canonical
            .iter()
            .chain([&viewer, crate::fields::json_ld_selector()]);
        for sel in ours.chain(profiles.iter().flat_map(SiteProfile::selectors)) {
            vocabulary.add(sel);
        }
        let attrs = vocabulary.attributes().map(|names| {
            let dated = profiles.iter().flat_map(SiteProfile::date_attributes);
            AttrKeep::new(names.iter().map(String::as_str).chain(dated))
        });
        Ok(Self {
            profiles,
            forced,
            fallbacks,
            min_document_chars,
            canonical,
            viewer,
            vocabulary,
            attrs,
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
        self.profiles.iter().find(|p| p.serves(&host))
    }

    /// The article a capture's URL names, by the profile of its host, before any
    /// page is read (see [`SiteProfile::identify`]).
    ///
    /// # Errors
    /// Why the URL is not an article's: no profile for its host, a `reject` rule,
    /// no article id; with the same keys extraction rejects the page with.
    pub fn identify(&self, url: &str) -> Result<ArticleKey, Rejection> {
        let url = wayback::unrewrite(url.trim());
        self.profile_for(&url)
            .ok_or_else(|| {
                Rejection::new(
                    "no_site_profile",
                    format!("no site profile for `{}`", host(&url)),
                )
            })?
            .identify(&url)
    }

    /// The profile of the site named `site`.
    pub fn profile(&self, site: &str) -> Option<&SiteProfile> {
        self.profiles.iter().find(|p| p.site == site)
    }

    /// What stands in for a missing summary on `site`'s layouts that allow it.
    pub fn fallback(&self, site: &str) -> SummaryFallback {
        self.profiles
            .iter()
            .position(|p| p.site == site)
            .and_then(|i| self.fallbacks.get(i).copied())
            .unwrap_or_default()
    }

    /// Extracts one page: finds its site, rejects what the site's rules name,
    /// picks the layout, then reads the headline, summary, text, date and id.
    ///
    /// # Errors
    /// A [`Rejection`] saying why the page gives no article.
    pub fn extract(&self, page: PageInput<'_>) -> Result<Extraction, Rejection> {
        let Located {
            site,
            mut parsed,
            url,
            page_url,
            capture,
        } = self.locate(page)?;
        check_reject_rules(site, &parsed, &url)?;
        let layout = matching_layout(site, &parsed, &url)?;
        let name = format!("{}/{}", site.site, layout.name);
        parsed.strip(&site.strip);
        parsed.strip(&layout.strip);

        let title = parsed
            .first_value(&layout.title)
            .ok_or_else(|| Rejection::new("no_title", format!("{name}: no headline found")))?;
        let summary = self.summary(&parsed, site, layout, &title, &name)?;
        let text = article_text(&parsed, site, layout, summary, &name)?;
        self.check_document(&text.document, &name)?;

        let urls = [url.as_str(), page_url.as_str()];
        let (published, published_source) = parsed
            .published(layout.dates.iter().chain(&site.dates), &urls)
            .ok_or_else(|| {
                Rejection::new(
                    "no_date",
                    format!("{name}: no publication date on the page or in its URL"),
                )
            })?;
        let id = site.article_id(&url).ok_or_else(|| {
            Rejection::new("no_article_id", format!("{name}: no article id in `{url}`"))
        })?;
        let section = site.section_of(&url);
        let captured = page.captured.or_else(|| {
            capture
                .as_ref()
                .and_then(|c| Timestamp::parse(&c.timestamp).ok())
        });

        Ok(Extraction {
            article: Article {
                id,
                url,
                source: site.site.clone(),
                section,
                published: published.date,
                published_at: published.at,
                published_source: Some(published_source),
                captured,
                title,
                summary: text.summary,
                summary_source: Some(text.summary_source),
                document: text.document,
                dateline: text.dateline,
                facts: Vec::new(),
                relations: Vec::new(),
                split: None,
                novelty: None,
                archived_url: None,
                digest: None,
                payload_sha1: None,
            },
            layout: name,
            summary_in_text: text.summary_in_text,
        })
    }

    /// Parses the page and finds its site and URL. The site is known from the URL
    /// before parsing, so its `skip_elements` can be pruned; a page without URL is
    /// parsed whole and named by its canonical link. A page saved through the
    /// Wayback viewer loses the viewer's toolbar, and its capture's URL stands in
    /// for a missing one.
    fn locate(&self, page: PageInput<'_>) -> Result<Located<'_>, Rejection> {
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
        let known = self.profile_for(&page_url);
        let skip = known.map_or(std::borrow::Cow::Borrowed(&[][..]), |p| {
            p.skip_for(&page_url)
        });
        let parsed = ParsedPage::new(
            &prune(&html, &skip, self.attrs.as_ref()),
            &[&self.viewer],
            Some(&self.vocabulary),
        );
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
                    "no_site_profile",
                    format!("no site profile for `{}`", host(&lookup_url)),
                )
            })?;
        let url = match canonical {
            Some(c) if site.serves(&host(&c)) => c,
            _ => lookup_url,
        };
        Ok(Located {
            site,
            parsed,
            url,
            page_url,
            capture,
        })
    }

    /// Rejects a document with no text, or shorter than `min_document_chars`.
    fn check_document(&self, document: &str, name: &str) -> Result<(), Rejection> {
        let chars = document.chars().count();
        if chars == 0 {
            return Err(Rejection::new(
                "no_text",
                format!("{name}: no article text (a video, gallery or index page?)"),
            ));
        }
        if chars < self.min_document_chars {
            return Err(Rejection::new(
                "document_too_short",
                format!(
                    "{name}: document has {chars} characters, fewer than min_document_chars = {}",
                    self.min_document_chars
                ),
            ));
        }
        Ok(())
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
                "ambiguous_summary",
                format!("{name}: no reference summary ({n} elements match the summary selector, the layout takes exactly one)"),
            )),
            SummaryFound::Missing if !layout.fallback => Err(no_summary(name)),
            SummaryFound::NotBold if !layout.fallback => Err(no_bold_intro(name, None)),
            found @ (SummaryFound::Missing | SummaryFound::NotBold) => {
                let missing = || match found {
                    SummaryFound::NotBold => no_bold_intro(name, Some(&site.site)),
                    _ => no_summary(name),
                };
                let from_body = |source| Summary {
                    text: None,
                    elements: HashSet::new(),
                    source,
                };
                match self.fallback(&site.site) {
                    SummaryFallback::None => Err(missing()),
                    SummaryFallback::Description => parsed
                        .first_value(&site.description)
                        .map(|text| beside(text, SummarySource::Description))
                        .ok_or_else(missing),
                    SummaryFallback::Title => Ok(beside(title.to_string(), SummarySource::Title)),
                    SummaryFallback::Lead => Ok(from_body(SummarySource::Lead)),
                    SummaryFallback::FirstParagraph => {
                        Ok(from_body(SummarySource::FirstParagraph))
                    }
                }
            }
        }
    }
}

/// A parsed page with the site it belongs to and the URLs it is known by.
struct Located<'p> {
    /// The profile of the page's site.
    site: &'p SiteProfile,
    /// The page, parsed after pruning the site's `skip_elements`.
    parsed: ParsedPage,
    /// The article's URL: the canonical link when the site serves it, else the page's.
    url: String,
    /// The URL the page was captured at (empty when unknown).
    page_url: String,
    /// What the Wayback viewer says about the capture, for a page saved through it.
    capture: Option<wayback::ViewerCapture>,
}

/// Rejects the page by the first of the site's `reject` rules that names it (by
/// URL or by an element) and whose `unless` element is absent.
fn check_reject_rules(site: &SiteProfile, parsed: &ParsedPage, url: &str) -> Result<(), Rejection> {
    for rule in &site.reject {
        let by_url = rule.url.as_ref().is_some_and(|re| re.is_match(url));
        let by_page = rule.select.as_ref().is_some_and(|s| parsed.has(s));
        let spared = || rule.unless.as_ref().is_some_and(|s| parsed.has(s));
        if (by_url || by_page) && !spared() {
            return Err(Rejection::new(rule.key.clone(), rule.reason.clone()));
        }
    }
    Ok(())
}

/// The first of the site's article layouts whose URL pattern and detecting
/// elements match the page.
fn matching_layout<'s>(
    site: &'s SiteProfile,
    parsed: &ParsedPage,
    url: &str,
) -> Result<&'s Layout, Rejection> {
    site.layouts
        .iter()
        .find(|l| {
            l.url.as_ref().is_none_or(|re| re.is_match(url))
                && l.detect.iter().any(|s| parsed.has(s))
        })
        .ok_or_else(|| {
            Rejection::new(
                "not_recognised",
                format!(
                    "not recognised: no {} article layout matches the page, and no `reject` rule names it",
                    site.site
                ),
            )
        })
}

/// The article's text, with the summary taken out of it where the summary was
/// its lead or first paragraph.
struct ArticleText {
    /// The summary's text.
    summary: String,
    /// Where the summary came from.
    summary_source: SummarySource,
    /// Whether the summary was a paragraph of the article's text.
    summary_in_text: bool,
    /// The body paragraphs, one a line.
    document: String,
    /// The dateline moved out of the first paragraph, or built from its elements.
    dateline: Option<String>,
}

/// Reads the body paragraphs, moves the dateline out of them, and takes the
/// summary out of them when `summary` asks for the lead or first paragraph.
fn article_text(
    parsed: &ParsedPage,
    site: &SiteProfile,
    layout: &Layout,
    summary: Summary,
    name: &str,
) -> Result<ArticleText, Rejection> {
    let (paragraphs, summary_in_body) = parsed.body(layout, site, &summary.elements);
    let (dateline, mut paragraphs) = split_dateline(site, paragraphs);
    let dateline = dateline.or_else(|| dateline_from_parts(parsed, layout));
    let (summary_text, summary_in_text) = match summary.text {
        Some(text) => (text, summary_in_body),
        None => {
            let taken = if summary.source == SummarySource::FirstParagraph {
                first_paragraph(&mut paragraphs)
            } else {
                lead(&mut paragraphs)
            };
            match taken {
                Some(text) => (text, true),
                None => return Err(no_summary(name)),
            }
        }
    };
    Ok(ArticleText {
        summary: summary_text,
        summary_source: summary.source,
        summary_in_text,
        document: paragraphs.join("\n"),
        dateline,
    })
}

/// The layout's summary must be bold and is not: BBC's page without a bold intro.
fn no_bold_intro(name: &str, site: Option<&str>) -> Rejection {
    let choice = match site {
        Some(site) => format!(
            "; summary_fallback = \"none\" for {site} (`first_paragraph` takes the opening paragraph instead)"
        ),
        None => String::new(),
    };
    Rejection::new(
        "no_bold_intro",
        format!(
            "{name}: no bold introductory sentence (the opening paragraph is not bold){choice}"
        ),
    )
}

struct Summary {
    text: Option<String>,
    elements: HashSet<ego_tree::NodeId>,
    source: SummarySource,
}

fn no_summary(name: &str) -> Rejection {
    Rejection::new("no_summary", format!("{name}: no reference summary"))
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

/// Takes the first paragraph out of the body.
fn first_paragraph(paragraphs: &mut Vec<String>) -> Option<String> {
    (!paragraphs.is_empty()).then(|| paragraphs.remove(0))
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

/// The lowercase host of `url` (without port or credentials; an IPv6 address in
/// brackets); empty when there is none or `url` is no absolute URL.
fn host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_without_port_or_credentials() {
        let url = "https://User@WWW.BBC.co.uk:443/news/uk-1?x=1#top";
        assert_eq!(host(url), "www.bbc.co.uk");
        assert_eq!(host("http://user:pass@Example.org:8080/a"), "example.org");
        assert_eq!(host("http://[2001:DB8::1]:8080/a"), "[2001:db8::1]");
        assert_eq!(host("no scheme"), "");
        assert_eq!(host("file:///tmp/page.html"), "");
    }
}
