//! The `extract` stage: pages in, articles out, rejections with their reason.

use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tempora_engine::{
    parse_options, Batch, Emitted, OptionError, PipelineContext, Port, Role, Stage, StageConfig,
    StageError, StageKind, Transform, TransformStage,
};
use tempora_records::counters::ExtractCount;
use tempora_records::{Record, RecordKind};
use tempora_wayback_format::digest::sha1_base32;

use crate::charset::decode_html;
use crate::extract::{Extractor, FallbackChoice, PageInput, Rejection};
use crate::profile::load_profiles;

/// Options of the `extract` stage.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct ExtractOptions {
    /// Sites whose profiles may extract pages, each page's site chosen by its URL host;
    /// `["auto"]` allows every profile. Pages of other sites are rejected.
    #[serde(default = "default_sites")]
    pub sites: Vec<String>,
    /// What stands in for the summary where a layout allows it and the page has none
    /// (CNN pages without story highlights, most of them after 2017; BBC pages of
    /// 2020 on without a bold intro, many of 2024 on): `none` rejects the page
    /// (`no_summary`, `no_bold_intro`), `description` takes the meta description,
    /// `lead` the body's first sentence and `first_paragraph` its first paragraph
    /// (either removed from the document), `title` the headline. `title` reproduces
    /// TempoSum's released CNN sets, which pair each document with its title. One
    /// value for every site, or a table per site (`{ bbc = "first_paragraph", cnn =
    /// "title" }`); a site not named keeps its profile's `summary_fallback` (`none`
    /// in the shipped profiles). Each article's `summary_source` records which it got.
    #[serde(default)]
    pub summary_fallback: Option<FallbackChoice>,
    /// Directory of more site profiles (`*.toml`, the format of `config/sites/`);
    /// a site of the same name replaces the shipped one.
    #[serde(default)]
    pub profiles: Option<PathBuf>,
    /// Pages whose document (body without the summary) has fewer characters are rejected.
    #[serde(default = "default_min_document_chars")]
    pub min_document_chars: usize,
}

fn default_sites() -> Vec<String> {
    vec!["auto".to_string()]
}

const fn default_min_document_chars() -> usize {
    100
}

impl Default for ExtractOptions {
    fn default() -> Self {
        Self {
            sites: default_sites(),
            summary_fallback: None,
            profiles: None,
            min_document_chars: default_min_document_chars(),
        }
    }
}

impl ExtractOptions {
    /// The extractor these options describe: profiles loaded, sites checked.
    ///
    /// # Errors
    /// A profile that does not compile, or a site no profile has; each names its option.
    pub fn extractor(&self) -> Result<Extractor, OptionError> {
        let mut profiles = load_profiles(self.profiles.as_deref()).map_err(|e| OptionError {
            key: Some("profiles".into()),
            message: e.to_string(),
        })?;
        let auto = self.sites.is_empty() || self.sites.iter().any(|s| s == "auto");
        if !auto {
            let known: Vec<String> = profiles.iter().map(|p| p.site.clone()).collect();
            if let Some(unknown) = self.sites.iter().find(|s| !known.contains(s)) {
                return Err(OptionError {
                    key: Some("sites".into()),
                    message: format!(
                        "unknown site `{unknown}` (known: auto, {})",
                        known.join(", ")
                    ),
                });
            }
            profiles.retain(|p| self.sites.contains(&p.site));
        }
        Extractor::new(
            profiles,
            None,
            self.summary_fallback.as_ref(),
            self.min_document_chars,
        )
        .map_err(|message| OptionError {
            key: Some("summary_fallback".into()),
            message,
        })
    }
}

/// The registered kind.
pub fn kind() -> StageKind {
    StageKind {
        name: ExtractCount::STAGE_KIND,
        about: "Extracts articles (title, reference summary, body, publication date) from archived news pages with per-site layout profiles",
        role: Role::Transform,
        accepts: &[RecordKind::Page],
        emits: "out: article",
        requests: &[],
        in_rebuild: tempora_engine::InRebuild::Reads,
        incremental_option: None,
        options: || schemars::schema_for!(ExtractOptions),
        configure,
    }
}

fn configure(
    table: toml::Table,
    _ctx: &PipelineContext,
) -> Result<Box<dyn StageConfig>, Vec<OptionError>> {
    let options: ExtractOptions = parse_options(table)?;
    let extractor = options.extractor().map_err(|e| vec![e])?;
    Ok(Box::new(ExtractConfig {
        profiles: options.profiles,
        extractor: Arc::new(extractor),
    }))
}

/// The `extract` stage, configured: its site profiles loaded and checked.
pub struct ExtractConfig {
    profiles: Option<PathBuf>,
    extractor: Arc<Extractor>,
}

impl ExtractConfig {
    /// The extractor the stage runs (and `prefetch` names articles with).
    pub fn extractor(&self) -> &Arc<Extractor> {
        &self.extractor
    }
}

impl StageConfig for ExtractConfig {
    fn outputs(&self) -> Vec<Port> {
        vec![Port::out(RecordKind::Article)]
    }

    fn reads(&self) -> Vec<(String, PathBuf)> {
        self.profiles
            .iter()
            .map(|p| ("profiles".to_string(), p.clone()))
            .collect()
    }

    /// The shipped profiles of the sites it reads (a profile folder is an input
    /// file, fingerprinted as one): a release that changes how a site is read
    /// changes an incremental folder's records.
    fn fingerprint(&self) -> Vec<(String, String)> {
        if self.profiles.is_some() {
            return Vec::new();
        }
        let sites: Vec<&str> = self
            .extractor
            .profiles()
            .iter()
            .map(|p| p.site.as_str())
            .collect();
        crate::profile::SHIPPED
            .iter()
            .filter(|(file, _)| sites.iter().any(|s| file.strip_suffix(".toml") == Some(s)))
            .map(|(file, text)| {
                (
                    format!("shipped profile {file}"),
                    format!(
                        "sha256 {}",
                        tempora_engine::fingerprint::digest(text.as_bytes())
                    ),
                )
            })
            .collect()
    }

    fn build(&self, _ctx: &PipelineContext) -> Result<Box<dyn Stage>, StageError> {
        Ok(Box::new(TransformStage(ExtractStage::new(
            self.extractor.clone(),
        ))))
    }
}

/// The running stage: each batch is spread over the cores; output keeps input order.
pub struct ExtractStage {
    extractor: Arc<Extractor>,
}

impl ExtractStage {
    /// A stage running `extractor`.
    pub fn new(extractor: Arc<Extractor>) -> Self {
        Self { extractor }
    }
}

impl Transform for ExtractStage {
    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError> {
        let extractor = &*self.extractor;
        let results: Vec<(Record, Result<crate::Extraction, Rejection>)> = batch
            .into_par_iter()
            .map(|record| {
                let result = match &record {
                    Record::Page(page) => extractor
                        .extract(PageInput {
                            html: &decode_html(&page.body, page.content_type.as_deref()),
                            url: &page.capture.url,
                            captured: Some(page.capture.timestamp),
                        })
                        .map(|mut extraction| {
                            archived_at(&mut extraction.article, page);
                            extraction
                        }),
                    other => Err(Rejection::new(
                        "not_a_page",
                        format!("extract accepts pages, got a {}", other.kind()),
                    )),
                };
                (record, result)
            })
            .collect();
        for (record, result) in results {
            match result {
                Ok(extraction) => {
                    let article = &extraction.article;
                    out.count(&ExtractCount::Layout(&extraction.layout).name(), 1);
                    let section = ExtractCount::Section {
                        source: &article.source,
                        section: &article.section,
                    };
                    out.count(&section.name(), 1);
                    if let Some(source) = article.summary_source {
                        out.count(&ExtractCount::SummarySource(source.as_str()).name(), 1);
                    }
                    out.push(Record::Article(Box::new(extraction.article)));
                }
                Err(rejection) => {
                    out.count(&ExtractCount::Rejected(&rejection.kind).name(), 1);
                    reject(out, record, rejection.reason);
                }
            }
        }
        Ok(())
    }
}

/// Rejects a page by its capture: the body (often hundreds of KB) stays out of
/// `rejected.jsonl`; the URL and timestamp find it again.
fn reject(out: &mut Emitted, record: Record, reason: String) {
    let (logged, location) = match record {
        Record::Page(page) => {
            let location = format!("{} @ {}", page.capture.url, page.capture.timestamp);
            (Record::Capture(Box::new(page.capture)), Some(location))
        }
        other => (other, None),
    };
    out.reject(&logged, reason);
    if let Some(last) = out.rejected.last_mut() {
        last.location = location;
    }
}

/// Where the article's page came from in the Archive: the capture's URL and
/// listed digest, and the SHA-1 of the bytes received (what a rebuild from the
/// run's manifest checks its own fetch against).
fn archived_at(article: &mut tempora_records::Article, page: &tempora_records::Page) {
    article.archived_url = Some(page.capture.url.clone());
    article.digest = Some(page.capture.digest.clone());
    article.payload_sha1 = Some(sha1_base32(&page.body));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_documented_with_its_default() {
        let docs = tempora_engine::options::option_docs(&(kind().options)());
        let mut names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "min_document_chars",
                "profiles",
                "sites",
                "summary_fallback"
            ]
        );
        for doc in &docs {
            assert!(!doc.doc.is_empty(), "{} has no doc", doc.name);
            assert!(!doc.required, "{} should be optional", doc.name);
        }
        let default = |name: &str| {
            docs.iter()
                .find(|d| d.name == name)
                .and_then(|d| d.default.clone())
        };
        assert_eq!(default("sites").as_deref(), Some(r#"["auto"]"#));
        // Without it, each site's profile decides.
        assert_eq!(default("summary_fallback"), None);
        assert_eq!(default("min_document_chars").as_deref(), Some("100"));
    }

    #[test]
    fn example_options_round_trip() {
        let text = r#"
sites = ["bbc", "cnn"]
summary_fallback = "lead"
min_document_chars = 250
"#;
        let table: toml::Table = toml::from_str(text).unwrap();
        let options: ExtractOptions = parse_options(table).unwrap();
        assert_eq!(options.sites, ["bbc", "cnn"]);
        assert_eq!(
            options.summary_fallback,
            Some(FallbackChoice::Every(crate::SummaryFallback::Lead))
        );
        assert_eq!(options.min_document_chars, 250);
        let back: toml::Table = toml::from_str(&toml::to_string(&options).unwrap()).unwrap();
        let again: ExtractOptions = parse_options(back).unwrap();
        assert_eq!(again.sites, options.sites);
        let extractor = options.extractor().unwrap();
        assert_eq!(extractor.profiles().len(), 2);
    }
}
