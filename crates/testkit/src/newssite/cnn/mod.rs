//! A scaled model of CNN in the Archive, beside the BBC one, for running
//! `pipelines/temposum-cnn.toml` against it.
//!
//! Several years of stories at `cnn.com/YYYY/MM/DD/section/slug/index.html`
//! (before 2012 the older `cnn.com/YYYY/SECTION/MM/DD/dotted.slug/index.html`),
//! each captured more than once under host and URL variants (`www.cnn.com`,
//! `edition.cnn.com`, `us.cnn.com`, `:80`, http/https, a trailing `/` for
//! `index.html`, tracking queries like `?eref=rss_topstories` and `?iid=...`,
//! and the http URL's archived redirect once CNN served https); some stories
//! were first or only captured on the international edition, which the Archive
//! keys apart from `cnn.com`. Beside them, pages under `cnn.com/YYYY/` that are
//! not stories (galleries, videos, the year's index page); CNN/DailyMail's URL
//! lists naming 60% of the stories published by April 2015 ([`UrlLists`]); and
//! the BBC model's Wikidata facts of a few evolving pairs, which some stories
//! name, subject and object both (the text is drawn as the BBC model's).
//! Pages use the layouts CNN had ([`Layout`]): the `cnn_strycntntlft` story
//! column to 2013, `zn-body__paragraph` zones from 2014, `article__content`
//! from October 2022; story highlights until 2016, on half of 2017's stories,
//! none after (the title then stands in as the summary), in our own text with
//! the real pages' markup. Seeded: the same [`NewsSiteSpec`] gives the same bytes.

mod articles;
mod captures;
mod lists;
mod page;

use std::collections::HashSet;

use crate::corpus::Corpus;
use crate::newssite::facts::facts_jsonl;
use crate::newssite::{Drawn, NewsSiteSpec};

pub use articles::{CnnArticle, Layout};
pub use lists::UrlLists;
pub use page::page_html;

use articles::article;
use captures::{add_non_articles, article_captures};

/// The built CNN model.
#[derive(Debug, Clone)]
pub struct CnnSite {
    /// Every capture: stories under their variants, and pages that are not stories.
    pub corpus: Corpus,
    /// The stories, by publication time.
    pub articles: Vec<CnnArticle>,
    /// Captures that are not stories (galleries, videos, index pages).
    pub non_articles: usize,
    /// CNN/DailyMail's URL list files.
    pub url_lists: UrlLists,
    /// Facts of the evolving pairs, one JSON fact record a line (the `wikidata` stage's output).
    pub facts: String,
}

impl CnnSite {
    /// Builds the model of `spec`.
    pub fn build(spec: &NewsSiteSpec) -> Self {
        Self::build_with(spec, false)
    }

    /// Builds the model of `spec` with the sport and business stories of
    /// [`NewsSite::with_sport_and_business`](crate::newssite::NewsSite::with_sport_and_business),
    /// in CNN's `sport` and `business` sections.
    pub fn with_sport_and_business(spec: &NewsSiteSpec) -> Self {
        Self::build_with(spec, true)
    }

    fn build_with(spec: &NewsSiteSpec, roles: bool) -> Self {
        let Drawn {
            mut rng,
            mut articles,
            mut captures,
            non_articles,
        } = spec.draw(|rng, at| article(rng, at, roles), add_non_articles);
        articles.sort_by(|a, b| (a.published, &a.path).cmp(&(b.published, &b.path)));
        // Two stories of a day under one headline and section are one URL: the first stays.
        let mut paths = HashSet::new();
        articles.retain(|a| paths.insert(a.path.clone()));
        for a in &articles {
            captures.extend(article_captures(&mut rng, a));
        }
        let url_lists = UrlLists::draw(spec.seed, &articles);
        Self {
            corpus: Corpus::new(captures),
            articles,
            non_articles,
            url_lists,
            facts: facts_jsonl(roles),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::OnceLock;

    use chrono::{Datelike, NaiveDate};

    use super::*;
    use crate::newssite::Topic;

    fn site() -> &'static CnnSite {
        static SITE: OnceLock<CnnSite> = OnceLock::new();
        SITE.get_or_init(|| CnnSite::build(&NewsSiteSpec::default()))
    }

    /// The story path a captured URL names: no scheme, host, port, query,
    /// `index.html` or trailing `/`.
    fn path_of(url: &str) -> &str {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let path = rest.find('/').map_or("", |i| &rest[i..]);
        let path = path.split('?').next().unwrap_or(path);
        path.trim_end_matches("index.html").trim_end_matches('/')
    }

    #[test]
    fn the_same_spec_builds_the_same_archive() {
        let spec = NewsSiteSpec {
            first_year: 2015,
            last_year: 2015,
            ..NewsSiteSpec::default()
        };
        let (a, b) = (CnnSite::build(&spec), CnnSite::build(&spec));
        assert_eq!(a.corpus.rows(), b.corpus.rows());
        assert_eq!(a.url_lists, b.url_lists);
        let other = CnnSite::build(&NewsSiteSpec { seed: 15, ..spec });
        assert_ne!(a.corpus.rows(), other.corpus.rows());
    }

    #[test]
    fn stories_are_captured_more_than_once_under_their_variants() {
        let site = site();
        let articles = site.articles.len();
        assert!(articles > 1000, "{articles}");
        let rows = site.corpus.rows();
        let mut urls: std::collections::HashMap<&str, Vec<&str>> = Default::default();
        for (_, c) in rows {
            urls.entry(path_of(&c.url)).or_default().push(&c.url);
        }
        let of = |a: &CnnArticle| urls.get(a.path.as_str()).cloned().unwrap_or_default();
        assert!(site.articles.iter().all(|a| !of(a).is_empty()));
        let again = site.articles.iter().filter(|a| of(a).len() > 1).count();
        assert!(again * 10 > articles * 7, "{again} of {articles}");
        for variant in [
            "http://www.cnn.com/",
            "https://www.cnn.com/",
            "://edition.cnn.com/",
            "://us.cnn.com/",
            "http://www.cnn.com:80/",
            "?eref=rss_topstories",
            "?iid=",
        ] {
            assert!(
                rows.iter().any(|(_, c)| c.url.contains(variant)),
                "{variant}"
            );
        }
        assert!(rows
            .iter()
            .any(|(_, c)| c.url.ends_with('/') && c.url.contains("/20")));
        assert!(rows.iter().any(|(_, c)| c.status == Some(301)));
        // Some stories are on the international edition only: a `cnn.com/...`
        // listing never sees them.
        let edition_only = site
            .articles
            .iter()
            .filter(|a| of(a).iter().all(|u| u.contains("://edition.")))
            .count();
        assert!(
            edition_only > 0 && edition_only * 10 < articles,
            "{edition_only}"
        );
        // Pages that are not stories, under the year.
        assert!(site.non_articles > 100, "{}", site.non_articles);
        for kind in ["/gallery/", "/video/"] {
            assert!(rows
                .iter()
                .any(|(k, _)| k.starts_with("com,cnn)/20") && k.contains(kind)));
        }
        assert!(rows.iter().any(|(k, _)| k == "com,cnn)/2015/"));
    }

    #[test]
    fn layouts_follow_the_years_and_highlights_end_in_2017() {
        let site = site();
        let mut seen = BTreeSet::new();
        for a in &site.articles {
            let html = page_html(a, "www.cnn.com");
            let year = a.published.year();
            let (layout, marker) = match a.layout {
                Layout::StoryColumn => ("column", "class=\"cnn_strycntntlft\""),
                Layout::ZoneBody => ("zones", "class=\"zn-body__paragraph\""),
                Layout::ArticleContent => ("content", "class=\"article__content\""),
            };
            assert!(html.contains(marker), "{}: {layout}", a.url);
            let expected = match year {
                ..=2013 => "column",
                2014..=2021 => "zones",
                _ if a.published.month() < 10 => "zones",
                _ => "content",
            };
            assert_eq!(layout, expected, "{}", a.url);
            match year {
                ..=2016 => assert!(!a.highlights.is_empty(), "{}", a.url),
                2018.. => assert!(a.highlights.is_empty(), "{}", a.url),
                _ => {}
            }
            let listed = html.contains("cnnStryHghLght\">\n<li>")
                || html.contains("el__storyhighlights__list\"><li");
            assert_eq!(listed, !a.highlights.is_empty(), "{}", a.url);
            seen.insert((layout, a.highlights.is_empty()));
        }
        let both_2017 = site
            .articles
            .iter()
            .filter(|a| a.published.year() == 2017)
            .map(|a| a.highlights.is_empty())
            .collect::<BTreeSet<_>>();
        assert_eq!(both_2017.len(), 2);
        assert_eq!(seen.len(), 4, "{seen:?}");
        // Each host's page names itself.
        let a = &site.articles[0];
        assert!(page_html(a, "edition.cnn.com").contains(&a.url_on("edition.cnn.com")));
    }

    #[test]
    fn the_url_lists_exclude_some_in_distribution_stories_and_no_later_one() {
        let site = site();
        let lists = &site.url_lists;
        let lines: Vec<&str> = [&lists.train, &lists.val, &lists.test]
            .iter()
            .flat_map(|t| t.lines())
            .collect();
        assert!(lines
            .iter()
            .all(|l| l.starts_with("http://web.archive.org/web/") && l.contains("id_/http://")));
        assert!(lines.iter().any(|l| l.contains("dailymail.co.uk")));
        assert!(lists.train.lines().count() > 10 * lists.val.lines().count());
        assert!(!lists.test.is_empty() && !lists.val.is_empty());
        let last = NaiveDate::from_ymd_opt(2015, 4, 30).unwrap();
        let in_distribution: Vec<&CnnArticle> = site
            .articles
            .iter()
            .filter(|a| (2012..=2015).contains(&a.published.year()))
            .collect();
        let listed = in_distribution
            .iter()
            .filter(|a| lists.listed.contains(&a.path))
            .count();
        assert!(
            listed * 4 > in_distribution.len() && listed * 3 < in_distribution.len() * 2,
            "{listed} of {}",
            in_distribution.len()
        );
        for a in &site.articles {
            let named = lines
                .iter()
                .filter(|l| l.contains(&format!("cnn.com{}/", a.path)))
                .count();
            assert_eq!(
                named,
                usize::from(lists.listed.contains(&a.path)),
                "{}",
                a.path
            );
            assert!(a.published.date() <= last || named == 0, "{}", a.path);
        }
    }

    #[test]
    fn some_stories_name_both_sides_of_an_evolving_fact_in_both_sets() {
        let site = site();
        let facts: Vec<serde_json::Value> = site
            .facts
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(facts.len(), 6);
        let label =
            |f: &serde_json::Value, side: &str| f[side]["label"].as_str().unwrap().to_string();
        let states = |a: &CnnArticle| {
            let document = format!("{}\n{}", a.lead, a.paragraphs.join("\n"));
            facts.iter().any(|f| {
                document.contains(&label(f, "subject"))
                    && document.contains(&label(f, "object"))
                    && a.summary().contains(&label(f, "object"))
            })
        };
        for years in [2012..=2015, 2020..=2022] {
            let stating: Vec<&CnnArticle> = site
                .articles
                .iter()
                .filter(|a| years.contains(&a.published.year()) && states(a))
                .collect();
            assert!(stating.len() > 10, "{years:?}: {}", stating.len());
            assert!(stating.iter().all(|a| a.topic == Topic::Fact));
        }
    }

    #[test]
    fn sport_and_business_stories_are_filed_in_their_sections() {
        let spec = NewsSiteSpec {
            first_year: 2020,
            last_year: 2022,
            ..NewsSiteSpec::default()
        };
        let site = CnnSite::with_sport_and_business(&spec);
        assert_eq!(site.facts.lines().count(), 12);
        let sport: Vec<&CnnArticle> = site
            .articles
            .iter()
            .filter(|a| a.desk == crate::newssite::Desk::Sport)
            .collect();
        assert!(!sport.is_empty());
        for a in &sport {
            assert_eq!(a.section, "sport");
            assert!(a.path.contains("/sport/"), "{}", a.path);
        }
        assert!(site
            .articles
            .iter()
            .any(|a| a.summary().contains("Selby Foods chief executive")));
        // Without them, the model is the news model.
        let news = CnnSite::build(&spec);
        assert!(news
            .articles
            .iter()
            .all(|a| a.desk == crate::newssite::Desk::News));
        assert_eq!(news.facts.lines().count(), 6);
    }
}
