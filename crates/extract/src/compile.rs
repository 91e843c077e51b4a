//! Compiling a site profile from its TOML text: the schema as written, checked
//! field by field, into the selectors and patterns of [`SiteProfile`].

use regex::Regex;
use serde::Deserialize;
use tempora_records::SummarySource;

use crate::fallback::SummaryFallback;
use crate::index::Sel;
use crate::profile::{
    DateRule, DatelineParts, IdDates, KeepElements, Layout, ProfileError, RejectRule, SectionRule,
    SiteProfile, SummaryRule, Take,
};

/// One site as written in TOML.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSite {
    site: String,
    #[serde(default)]
    publisher: Option<String>,
    hosts: Vec<String>,
    #[serde(default)]
    editions: Vec<String>,
    id: Vec<String>,
    #[serde(default)]
    exclude_ids: Option<String>,
    #[serde(default)]
    citation: Option<String>,
    #[serde(default)]
    id_dates: Option<RawIdDates>,
    #[serde(default)]
    description: Vec<String>,
    #[serde(default)]
    strip: Vec<String>,
    #[serde(default)]
    drop_paragraphs: Vec<String>,
    #[serde(default)]
    drop_link_paragraphs: bool,
    #[serde(default)]
    skip_elements: Vec<String>,
    #[serde(default)]
    keep_elements: Vec<RawKeep>,
    #[serde(default)]
    dateline: Option<String>,
    #[serde(default)]
    reject: Vec<RawReject>,
    #[serde(default)]
    sections: Vec<RawSection>,
    #[serde(default = "default_section")]
    section: String,
    #[serde(default)]
    dates: Vec<RawDate>,
    #[serde(default)]
    summary_fallback: SummaryFallback,
    layouts: Vec<RawLayout>,
}

fn default_section() -> String {
    "news".to_string()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIdDates {
    margin_days: u64,
    points: Vec<RawIdDate>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIdDate {
    id: u64,
    date: toml::value::Datetime,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKeep {
    url: String,
    names: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSection {
    url: String,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReject {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    select: Option<String>,
    #[serde(default)]
    unless: Option<String>,
    key: String,
    reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDate {
    #[serde(default)]
    json_ld: Option<String>,
    #[serde(default)]
    select: Option<String>,
    #[serde(default)]
    attr: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    format: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLayout {
    name: String,
    #[serde(default)]
    url: Option<String>,
    detect: Vec<String>,
    title: Vec<String>,
    summary: RawSummary,
    body: Vec<String>,
    #[serde(default)]
    strip: Vec<String>,
    #[serde(default)]
    dates: Vec<RawDate>,
    #[serde(default)]
    fallback: bool,
    #[serde(default)]
    dateline_parts: Option<RawDatelineParts>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDatelineParts {
    #[serde(default)]
    location: Option<String>,
    source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSummary {
    select: String,
    #[serde(default)]
    take: Take,
    #[serde(default)]
    bold: bool,
    #[serde(default = "default_summary_source")]
    source: SummarySource,
}

const fn default_summary_source() -> SummarySource {
    SummarySource::Intro
}

/// Parses and compiles one profile.
///
/// # Errors
/// Bad TOML, an unknown key, a bad selector or pattern; the message names file and field.
pub fn parse_profile(file: &str, text: &str) -> Result<SiteProfile, ProfileError> {
    let raw: RawSite = toml::from_str(text).map_err(|e| ProfileError::Syntax {
        file: file.to_string(),
        message: e.to_string().trim().to_string(),
    })?;
    let c = Compiler { file };
    let layouts = raw
        .layouts
        .iter()
        .enumerate()
        .map(|(i, l)| c.layout(&format!("layouts[{i}]"), l))
        .collect::<Result<Vec<_>, _>>()?;
    if layouts.is_empty() {
        return Err(c.err("layouts", "a site needs at least one layout"));
    }
    if raw
        .publisher
        .as_deref()
        .is_some_and(|p| p.trim().is_empty())
    {
        return Err(c.err("publisher", "a publisher's name cannot be empty"));
    }
    if raw.section.trim().is_empty() {
        return Err(c.err("section", "a section name cannot be empty"));
    }
    let skip_elements = c.element_names("skip_elements", &raw.skip_elements)?;
    let keep_elements = raw
        .keep_elements
        .iter()
        .enumerate()
        .map(|(i, k)| c.keep(&format!("keep_elements[{i}]"), k, &skip_elements))
        .collect::<Result<_, _>>()?;
    Ok(SiteProfile {
        site: raw.site,
        publisher: raw.publisher,
        hosts: raw.hosts.iter().map(|h| h.to_ascii_lowercase()).collect(),
        editions: raw
            .editions
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect(),
        id: c.regexes("id", &raw.id)?,
        exclude_ids: raw.exclude_ids,
        citation: raw.citation,
        id_dates: raw.id_dates.map(|d| c.id_dates(d)).transpose()?,
        description: c.selectors("description", &raw.description)?,
        strip: c.selectors("strip", &raw.strip)?,
        drop_paragraphs: c.regexes("drop_paragraphs", &raw.drop_paragraphs)?,
        drop_link_paragraphs: raw.drop_link_paragraphs,
        skip_elements,
        keep_elements,
        dateline: c.opt_regex("dateline", raw.dateline.as_deref())?,
        reject: raw
            .reject
            .iter()
            .enumerate()
            .map(|(i, r)| c.reject(&format!("reject[{i}]"), r))
            .collect::<Result<_, _>>()?,
        sections: raw
            .sections
            .iter()
            .enumerate()
            .map(|(i, r)| c.section(&format!("sections[{i}]"), r))
            .collect::<Result<_, _>>()?,
        section: raw.section,
        dates: c.dates("dates", &raw.dates)?,
        summary_fallback: raw.summary_fallback,
        layouts,
    })
}

/// A stable counter key: `live_page`, `world_service`.
fn is_reason_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

struct Compiler<'a> {
    file: &'a str,
}

impl Compiler<'_> {
    fn err(&self, field: &str, message: impl Into<String>) -> ProfileError {
        ProfileError::Field {
            file: self.file.to_string(),
            field: field.to_string(),
            message: message.into(),
        }
    }

    fn selector(&self, field: &str, css: &str) -> Result<Sel, ProfileError> {
        Sel::parse(css).map_err(|e| self.err(field, format!("bad selector `{css}`: {e}")))
    }

    fn opt_selector(&self, field: &str, css: Option<&str>) -> Result<Option<Sel>, ProfileError> {
        css.map(|c| self.selector(field, c)).transpose()
    }

    fn opt_regex(&self, field: &str, pattern: Option<&str>) -> Result<Option<Regex>, ProfileError> {
        pattern.map(|p| self.regex(field, p)).transpose()
    }

    fn selectors(&self, field: &str, list: &[String]) -> Result<Vec<Sel>, ProfileError> {
        list.iter()
            .enumerate()
            .map(|(i, css)| self.selector(&format!("{field}[{i}]"), css))
            .collect()
    }

    fn element_names(&self, field: &str, names: &[String]) -> Result<Vec<String>, ProfileError> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let valid = !name.is_empty()
                    && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
                if !valid {
                    return Err(self.err(
                        &format!("{field}[{i}]"),
                        format!("`{name}` is not an element name"),
                    ));
                }
                if ["script", "style", "svg", "noscript"].contains(&name.as_str()) {
                    return Err(self.err(
                        &format!("{field}[{i}]"),
                        format!("`{name}` is always skipped"),
                    ));
                }
                Ok(name.to_ascii_lowercase())
            })
            .collect()
    }

    /// Known (id, day) points: ids and days must both grow, so bounds can be read off.
    fn id_dates(&self, raw: RawIdDates) -> Result<IdDates, ProfileError> {
        let mut points = Vec::with_capacity(raw.points.len());
        for (i, p) in raw.points.iter().enumerate() {
            let day = p
                .date
                .date
                .and_then(|d| {
                    chrono::NaiveDate::from_ymd_opt(d.year.into(), d.month.into(), d.day.into())
                })
                .ok_or_else(|| {
                    self.err(
                        &format!("id_dates.points[{i}].date"),
                        format!("`{}` is not a day like 2015-04-12", p.date),
                    )
                })?;
            points.push((p.id, day));
        }
        points.sort_unstable();
        if points.windows(2).any(|w| w[1].1 < w[0].1) {
            return Err(self.err(
                "id_dates.points",
                "a larger id has an earlier date: ids must grow with publication",
            ));
        }
        Ok(IdDates {
            points,
            margin_days: raw.margin_days,
        })
    }

    fn regex(&self, field: &str, pattern: &str) -> Result<Regex, ProfileError> {
        Regex::new(pattern).map_err(|e| self.err(field, format!("bad pattern: {e}")))
    }

    fn regexes(&self, field: &str, list: &[String]) -> Result<Vec<Regex>, ProfileError> {
        list.iter()
            .enumerate()
            .map(|(i, p)| self.regex(&format!("{field}[{i}]"), p))
            .collect()
    }

    fn reject(&self, field: &str, raw: &RawReject) -> Result<RejectRule, ProfileError> {
        if raw.url.is_none() && raw.select.is_none() {
            return Err(self.err(field, "give `url` or `select`"));
        }
        if !is_reason_key(&raw.key) {
            return Err(self.err(
                &format!("{field}.key"),
                format!(
                    "`{}` is not a reason key: lowercase letters, digits and `_` (e.g. `live_page`)",
                    raw.key
                ),
            ));
        }
        if raw.reason.trim().is_empty() {
            return Err(self.err(&format!("{field}.reason"), "a reason cannot be empty"));
        }
        Ok(RejectRule {
            key: raw.key.clone(),
            url: self.opt_regex(&format!("{field}.url"), raw.url.as_deref())?,
            select: self.opt_selector(&format!("{field}.select"), raw.select.as_deref())?,
            unless: self.opt_selector(&format!("{field}.unless"), raw.unless.as_deref())?,
            reason: raw.reason.clone(),
        })
    }

    fn keep(
        &self,
        field: &str,
        raw: &RawKeep,
        skipped: &[String],
    ) -> Result<KeepElements, ProfileError> {
        let names = self.element_names(&format!("{field}.names"), &raw.names)?;
        if let Some((i, name)) = names.iter().enumerate().find(|(_, n)| !skipped.contains(n)) {
            return Err(self.err(
                &format!("{field}.names[{i}]"),
                format!("`{name}` is not one of `skip_elements`"),
            ));
        }
        Ok(KeepElements {
            url: self.regex(&format!("{field}.url"), &raw.url)?,
            names,
        })
    }

    fn section(&self, field: &str, raw: &RawSection) -> Result<SectionRule, ProfileError> {
        let url = self.regex(&format!("{field}.url"), &raw.url)?;
        match &raw.name {
            Some(name) if name.trim().is_empty() => {
                Err(self.err(&format!("{field}.name"), "a section name cannot be empty"))
            }
            None if url.captures_len() < 2 => Err(self.err(
                field,
                "give `name`, or a `url` pattern whose group 1 is the section",
            )),
            _ => Ok(SectionRule {
                url,
                name: raw.name.clone(),
            }),
        }
    }

    fn dates(&self, field: &str, raw: &[RawDate]) -> Result<Vec<DateRule>, ProfileError> {
        raw.iter()
            .enumerate()
            .map(|(i, d)| self.date(&format!("{field}[{i}]"), d))
            .collect()
    }

    fn date(&self, field: &str, raw: &RawDate) -> Result<DateRule, ProfileError> {
        match (&raw.json_ld, &raw.select, &raw.url) {
            (Some(key), None, None) if raw.attr.is_none() && raw.format.is_none() => {
                Ok(DateRule::JsonLd(key.clone()))
            }
            (None, Some(css), None) => Ok(DateRule::Element {
                select: self.selector(&format!("{field}.select"), css)?,
                attr: raw.attr.clone(),
                format: raw.format.clone(),
            }),
            (None, None, Some(pattern)) if raw.attr.is_none() && raw.format.is_none() => {
                let re = self.regex(&format!("{field}.url"), pattern)?;
                if re.captures_len() < 4 {
                    return Err(self.err(
                        field,
                        "a URL date pattern needs groups for year, month, day",
                    ));
                }
                Ok(DateRule::Url(re))
            }
            _ => Err(self.err(
                field,
                "give exactly one of `json_ld`, `select` (with optional `attr`, `format`) or `url`",
            )),
        }
    }

    fn layout(&self, field: &str, raw: &RawLayout) -> Result<Layout, ProfileError> {
        let f = |name: &str| format!("{field}.{name}");
        if raw.detect.is_empty() {
            return Err(self.err(&f("detect"), "a layout needs at least one detect selector"));
        }
        if raw.title.is_empty() || raw.body.is_empty() {
            return Err(self.err(field, "a layout needs `title` and `body` selectors"));
        }
        Ok(Layout {
            name: raw.name.clone(),
            url: self.opt_regex(&f("url"), raw.url.as_deref())?,
            detect: self.selectors(&f("detect"), &raw.detect)?,
            title: self.selectors(&f("title"), &raw.title)?,
            summary: SummaryRule {
                select: self.selector(&f("summary.select"), &raw.summary.select)?,
                take: raw.summary.take,
                bold: raw.summary.bold,
                source: raw.summary.source,
            },
            // One selector list keeps the matches in document order.
            body: self.selector(&f("body"), &raw.body.join(", "))?,
            strip: self.selectors(&f("strip"), &raw.strip)?,
            dates: self.dates(&f("dates"), &raw.dates)?,
            fallback: raw.fallback,
            dateline_parts: raw
                .dateline_parts
                .as_ref()
                .map(|d| -> Result<_, ProfileError> {
                    Ok(DatelineParts {
                        location: self
                            .opt_selector(&f("dateline_parts.location"), d.location.as_deref())?,
                        source: self.selector(&f("dateline_parts.source"), &d.source)?,
                    })
                })
                .transpose()?,
        })
    }
}
