//! Scaled models of news sites in the Archive, for measuring what a crawl costs
//! and checking that a cheaper crawl keeps the same articles: BBC News here, CNN
//! in [`cnn`]. Both draw their articles' text ([`Topic`]), capture times and
//! Wikidata facts the same way, from the same [`NewsSiteSpec`].
//!
//! The BBC model: several years of articles whose numeric ids grow with their publication date
//! along BBC's real progression (about 8.0M in April 2009, 32M in April 2015,
//! 55.7M in January 2021, 61.9M in June 2022; see [`ID_ANCHORS`]), each captured
//! under host and URL variants (`bbc.co.uk` / `bbc.com`, `www.`, `:80`,
//! http/https, `/mobile/`, tracking queries) and more than once; beside them
//! pages that are not articles (live pages, galleries, index pages); a captured
//! RSS feed listing most articles (title, pubDate, and a description that is
//! the promo line, as on the real feeds: the bold intro on 12% of articles
//! only, see [`ModelArticle::promo`]); an XSum-style split file of excluded ids; and Wikidata facts of a
//! few evolving pairs, which some articles name. Pages use the three layouts
//! BBC News had (`p.introduction` to 2012, `story-body` 2013-2019,
//! `text-block` from 2020) in our own markup. Seeded: the same
//! [`NewsSiteSpec`] gives the same bytes.
//!
//! The evolving pairs are three offices (`P1308`). [`NewsSite::with_sport_and_business`]
//! (and [`cnn::CnnSite::with_sport_and_business`]) adds a club whose manager
//! changed after the cutoff (`P286`), a player who moved club (`P54`) and a
//! company whose chief executive changed (`P169`), in stories filed under BBC
//! Sport and Business (CNN's `sport` and `business`) that name them as news
//! does; [`NewsSite::build`] is the model without them, as it always was.

mod articles;
mod capture_times;
mod captures;
pub mod cnn;
mod facts;
mod feed;
mod ids;
mod nights;
mod page;
mod roles;
mod story;
mod xsum;

use chrono::{Duration, NaiveDate, NaiveDateTime};

use crate::corpus::Corpus;

pub use articles::ModelArticle;
pub use feed::FEED_URL;
pub use ids::{id_at, ID_ANCHORS};
pub use nights::{activity, Change, Nights, NightsSpec};
pub use page::page_html;
pub use story::{Desk, Topic};

use articles::article;
use captures::{add_non_articles, article_captures};
use facts::facts_jsonl;
use feed::feed_captures;
use xsum::xsum_split;

/// What to build (either site's model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewsSiteSpec {
    /// Seed of every random choice.
    pub seed: u64,
    /// First year of publication.
    pub first_year: i32,
    /// Last year of publication.
    pub last_year: i32,
    /// Articles published a month.
    pub articles_per_month: u32,
}

impl Default for NewsSiteSpec {
    /// 2009-2022, 8 articles a month: about 1,300 articles and 5,000 captures.
    fn default() -> Self {
        Self {
            seed: 14,
            first_year: 2009,
            last_year: 2022,
            articles_per_month: 8,
        }
    }
}

impl NewsSiteSpec {
    /// The first moment of each month of publication, in order.
    fn months(&self) -> impl Iterator<Item = NaiveDateTime> {
        (self.first_year..=self.last_year)
            .flat_map(|year| (1..=12).map(move |month| (year, month)))
            .filter_map(|(year, month)| {
                NaiveDate::from_ymd_opt(year, month, 1).and_then(|d| d.and_hms_opt(0, 0, 0))
            })
    }
}

/// What a site model draws month by month: its articles (not yet in order) and
/// the captures that are not articles, with the generator left for what follows.
pub(crate) struct Drawn<A> {
    pub(crate) rng: fastrand::Rng,
    pub(crate) articles: Vec<A>,
    pub(crate) captures: Vec<crate::corpus::MockCapture>,
    pub(crate) non_articles: usize,
}

impl NewsSiteSpec {
    /// Draws each month's articles with `article` (at a time in the month) and
    /// its other captures with `others` (which says how many it added).
    pub(crate) fn draw<A>(
        &self,
        mut article: impl FnMut(&mut fastrand::Rng, NaiveDateTime) -> A,
        mut others: impl FnMut(
            &mut Vec<crate::corpus::MockCapture>,
            &mut fastrand::Rng,
            NaiveDateTime,
        ) -> usize,
    ) -> Drawn<A> {
        let mut rng = fastrand::Rng::with_seed(self.seed);
        let mut articles = Vec::new();
        let mut captures = Vec::new();
        let mut non_articles = 0;
        for start in self.months() {
            for _ in 0..self.articles_per_month {
                let at = published_in(&mut rng, start);
                articles.push(article(&mut rng, at));
            }
            non_articles += others(&mut captures, &mut rng, start);
        }
        Drawn {
            rng,
            articles,
            captures,
            non_articles,
        }
    }
}

/// A publication time in the month starting at `start` (its first 28 days).
fn published_in(rng: &mut fastrand::Rng, start: NaiveDateTime) -> NaiveDateTime {
    start + Duration::days(rng.i64(0..28)) + Duration::minutes(rng.i64(0..24 * 60))
}

/// The built model.
#[derive(Debug, Clone)]
pub struct NewsSite {
    /// Every capture: articles under their variants, non-articles, feed captures.
    pub corpus: Corpus,
    /// The articles.
    pub articles: Vec<ModelArticle>,
    /// Captures that are not articles (live, galleries, index pages).
    pub non_articles: usize,
    /// XSum-style split file (`{"train": [...], "validation": [...], "test": [...]}`).
    pub xsum_split: String,
    /// Facts of the evolving pairs, one JSON fact record a line (the `wikidata` stage's output).
    pub facts: String,
    /// The Wikidata entities those facts are read from (positions and holders;
    /// clubs, players and companies with their people).
    pub entities: Vec<serde_json::Value>,
}

impl NewsSite {
    /// Builds the model of `spec`: news stories, whose evolving pairs are three
    /// offices (`P1308`).
    pub fn build(spec: &NewsSiteSpec) -> Self {
        Self::build_with(spec, false)
    }

    /// Builds the model of `spec` with sport and business stories too: a club
    /// whose manager changed after the cutoff (`P286`), a player who moved club
    /// (`P54`), a company whose chief executive changed (`P169`), named the way
    /// news names them ("Harwick Rovers manager Edwin Mallory", "Callum Yeo, the
    /// Dunmere striker,"), filed under BBC Sport and Business; `facts` and
    /// `entities` carry their pairs. A separate build, so the tests that count
    /// what the news model gives keep their counts.
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
        articles.sort_by_key(|a| (a.published, a.id));
        articles.dedup_by_key(|a| a.id);
        for a in &articles {
            captures.extend(article_captures(&mut rng, a));
        }
        captures.extend(feed_captures(&articles));
        let corpus = Corpus::new(captures);
        let xsum_split = xsum_split(&articles);
        Self {
            corpus,
            articles,
            non_articles,
            xsum_split,
            facts: facts_jsonl(roles),
            entities: facts::entities(roles),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_spec_builds_the_same_archive() {
        let spec = NewsSiteSpec {
            first_year: 2015,
            last_year: 2015,
            ..NewsSiteSpec::default()
        };
        let (a, b) = (NewsSite::build(&spec), NewsSite::build(&spec));
        assert_eq!(a.corpus.rows(), b.corpus.rows());
        assert_eq!(a.xsum_split, b.xsum_split);
        let other = NewsSite::build(&NewsSiteSpec { seed: 15, ..spec });
        assert_ne!(a.corpus.rows(), other.corpus.rows());
    }

    #[test]
    fn articles_have_variants_and_the_feed_lists_most_of_them() {
        let site = NewsSite::build(&NewsSiteSpec::default());
        let captures = site.corpus.len();
        let articles = site.articles.len();
        assert!(articles > 1000, "{articles}");
        assert!(captures > 2 * articles, "{captures} captures of {articles}");
        let hosts_of = |id: u64| {
            let suffix = id.to_string();
            site.corpus
                .rows()
                .iter()
                .filter(|(_, c)| c.url.split('?').next().unwrap_or("").ends_with(&suffix))
                .map(|(k, _)| k.clone())
                .collect::<std::collections::BTreeSet<_>>()
        };
        let with_variants = site
            .articles
            .iter()
            .filter(|a| hosts_of(a.id).len() > 1)
            .count();
        assert!(with_variants * 2 > articles, "{with_variants}");
        let feeds: Vec<_> = site
            .corpus
            .rows()
            .iter()
            .filter(|(_, c)| c.url == FEED_URL)
            .collect();
        let listed: usize = feeds
            .iter()
            .map(|(_, c)| String::from_utf8_lossy(&c.body).matches("<item>").count())
            .sum();
        assert!(
            listed > articles,
            "{listed} items in {} feed captures",
            feeds.len()
        );
        let in_feed = site.articles.iter().filter(|a| a.in_feed).count();
        assert!(in_feed * 10 > articles * 7, "{in_feed}");
        let split: serde_json::Value = serde_json::from_str(&site.xsum_split).unwrap();
        let excluded = split["train"].as_array().unwrap().len();
        assert!(excluded > 100, "{excluded}");
        assert_eq!(site.facts.lines().count(), 6);
        assert!(site.articles.iter().all(|a| a.desk == Desk::News));
    }

    fn values(text: &str) -> Vec<serde_json::Value> {
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn sport_and_business_add_their_pairs_with_their_relations_and_sides() {
        let site = NewsSite::with_sport_and_business(&NewsSiteSpec::default());
        let facts = values(&site.facts);
        assert_eq!(facts.len(), 12);
        // The news model's facts first, as they were.
        let news = NewsSite::build(&NewsSiteSpec::default());
        assert!(site.facts.starts_with(&news.facts));
        let sides = |relation: &str| -> Vec<(String, String)> {
            facts
                .iter()
                .filter(|f| f["relation"] == relation)
                .map(|f| {
                    let label = |side: &str| f[side]["label"].as_str().unwrap().to_string();
                    (label("subject"), label("object"))
                })
                .collect()
        };
        let pairs = |list: [(&str, &str); 2]| -> Vec<(String, String)> {
            list.iter()
                .map(|(s, o)| (s.to_string(), o.to_string()))
                .collect()
        };
        assert_eq!(
            sides("P286"),
            pairs([
                ("Harwick Rovers F.C.", "Alan Pryor"),
                ("Harwick Rovers F.C.", "Edwin Mallory")
            ])
        );
        assert_eq!(
            sides("P54"),
            pairs([
                ("Callum Yeo", "Marden Wanderers F.C."),
                ("Callum Yeo", "Dunmere Athletic F.C.")
            ])
        );
        assert_eq!(
            sides("P169"),
            pairs([
                ("Selby Foods plc", "Ruth Calder"),
                ("Selby Foods plc", "Zara Whitlock")
            ])
        );
        let club = facts.iter().find(|f| f["relation"] == "P54").unwrap();
        assert_eq!(
            club["object"]["aliases"],
            serde_json::json!(["Marden Wanderers", "Marden"])
        );
        // The dump lines hold the clubs' statements and the values' names.
        let entity = |id: &str| site.entities.iter().find(|e| e["id"] == id).unwrap();
        assert_eq!(
            entity("Q9100041")["claims"]["P286"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            entity("Q9100051")["claims"]["P54"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(entity("Q9100053")["aliases"]["en"][1]["value"], "Dunmere");
        assert_eq!(site.entities.len(), news.entities.len() + 9);
    }

    #[test]
    fn sport_and_business_stories_name_the_value_of_their_day_as_news_does() {
        let site = NewsSite::with_sport_and_business(&NewsSiteSpec::default());
        let after = NaiveDate::from_ymd_opt(2021, 3, 1).unwrap();
        let before = NaiveDate::from_ymd_opt(2020, 8, 1).unwrap();
        let said = |text: &str, from: NaiveDate, to: NaiveDate| {
            site.articles
                .iter()
                .filter(|a| (from..to).contains(&a.published.date()) && a.summary.contains(text))
                .count()
        };
        let (first, last) = (NaiveDate::MIN, NaiveDate::MAX);
        for (text, when) in [
            ("Harwick Rovers manager Edwin Mallory ", (after, last)),
            ("Harwick Rovers manager Alan Pryor ", (first, before)),
            ("Dunmere Athletic striker Callum Yeo ", (after, last)),
            ("Marden Wanderers striker Callum Yeo ", (first, before)),
            ("Callum Yeo, the Marden striker, ", (first, before)),
            ("Selby Foods chief executive Zara Whitlock ", (after, last)),
            ("Selby Foods chief executive Ruth Calder ", (first, before)),
        ] {
            assert!(said(text, when.0, when.1) > 0, "{text}");
            // Never the value of another day.
            let other = if when.0 == first {
                (after, last)
            } else {
                (first, before)
            };
            assert_eq!(said(text, other.0, other.1), 0, "{text}");
        }
        assert_eq!(said("Callum Yeo, the Dunmere striker, ", first, before), 0);
        for a in &site.articles {
            let sport = a.url.contains("/sport/football/");
            assert_eq!(sport, a.desk == Desk::Sport && !a.video, "{}", a.url);
            if a.desk == Desk::Business {
                assert!(a.url.contains("/business-"), "{}", a.url);
            }
        }
        let desks = |desk| site.articles.iter().filter(|a| a.desk == desk).count();
        assert!(desks(Desk::Sport) > 50 && desks(Desk::Business) > 20);
        assert!(desks(Desk::News) * 2 > site.articles.len());
    }
}
