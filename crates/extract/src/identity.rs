//! Article identity from the URL alone, by the site profile: which site, which
//! article (BBC's numeric id, CNN's path), or why the URL is not an article's, and
//! what the id tells about the publication date. The crawl decides with it
//! before fetching; extraction names its articles with the same id.

use chrono::NaiveDate;
use tempora_records::CanonicalUrl;

use crate::profile::SiteProfile;
use crate::rejection::Rejection;

/// An article of a site, whatever host, port, scheme or query its URL had.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArticleKey {
    /// Site name (`bbc`, `cnn`), the Article's `source`.
    pub site: String,
    /// The article id, as extraction gives it.
    pub id: String,
}

impl SiteProfile {
    /// The article id of `url`: group 1 of the first `id` pattern matching its
    /// path (the path of the one URL normalizer, [`CanonicalUrl`]: scheme, host,
    /// port and query play no part).
    pub fn article_id(&self, url: &str) -> Option<String> {
        let url = CanonicalUrl::parse(url);
        let path = url.path();
        self.id
            .iter()
            .find_map(|re| {
                re.captures(path)
                    .and_then(|c| c.get(1))
                    .map(|m| m.as_str().to_string())
            })
            .filter(|id| !id.is_empty())
    }

    /// The article `url` is a page of, or why it is none: a `reject` rule on the
    /// URL (live, gallery, video, index pages) or no article id in it.
    ///
    /// # Errors
    /// The reason the URL is not an article's, keyed as extraction keys it (the
    /// rule's `key`, or `no_article_id`).
    pub fn identify(&self, url: &str) -> Result<ArticleKey, Rejection> {
        if let Some(rule) = self
            .reject
            .iter()
            .find(|r| r.url.as_ref().is_some_and(|re| re.is_match(url)))
        {
            return Err(Rejection::new(rule.key.clone(), rule.reason.clone()));
        }
        let id = self.article_id(url).ok_or_else(|| {
            Rejection::new(
                "no_article_id",
                format!("no {} article id in the URL", self.site),
            )
        })?;
        Ok(ArticleKey {
            site: self.site.clone(),
            id,
        })
    }

    /// The days the article with `id` can have been published on, from the
    /// profile's `id_dates`; `(None, None)` when the site's ids tell nothing.
    pub fn published_bounds(&self, id: &str) -> (Option<NaiveDate>, Option<NaiveDate>) {
        match (&self.id_dates, id.parse::<u64>()) {
            (Some(dates), Ok(n)) => dates.bounds(n),
            _ => (None, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{load_profiles, parse_profile, SHIPPED};

    fn bbc() -> SiteProfile {
        load_profiles(None)
            .unwrap()
            .into_iter()
            .find(|p| p.site == "bbc")
            .unwrap()
    }

    #[test]
    fn variants_of_an_article_are_one_article() {
        let bbc = bbc();
        let key = bbc
            .identify("http://www.bbc.co.uk/news/uk-politics-35232142")
            .unwrap();
        assert_eq!(key.id, "35232142");
        for url in [
            "https://www.bbc.com/news/uk-politics-35232142",
            "http://bbc.co.uk:80/news/uk-politics-35232142?at_medium=RSS&at_campaign=KARANGA",
            "http://www.bbc.co.uk/news/mobile/uk-politics-35232142",
        ] {
            assert_eq!(bbc.identify(url).as_ref(), Ok(&key), "{url}");
        }
    }

    #[test]
    fn every_spelling_of_a_cnn_story_url_is_one_article() {
        let profiles = load_profiles(None).unwrap();
        let cnn = profiles.iter().find(|p| p.site == "cnn").unwrap();
        let id = "/2015/04/01/europe/germanwings-crash-main";
        for url in [
            "http://www.cnn.com/2015/04/01/europe/germanwings-crash-main/index.html",
            "https://www.cnn.com/2015/04/01/europe/germanwings-crash-main/index.html",
            "https://www.cnn.com/2015/04/01/europe/germanwings-crash-main/",
            "https://www.cnn.com/2015/04/01/europe/germanwings-crash-main",
            "http://cnn.com/2015/04/01/europe/germanwings-crash-main/index.htm",
            "https://edition.cnn.com/2015/04/01/europe/germanwings-crash-main/index.html",
            "https://us.cnn.com/2015/04/01/europe/germanwings-crash-main/index.html?iid=ob_lockedrail_topeditorial",
            "http://edition.cnn.com:80/2015/04/01/europe/germanwings-crash-main/?eref=rss_topstories#comments",
            "HTTPS://WWW.CNN.COM/2015/04/01/europe/germanwings-crash-main//",
        ] {
            assert_eq!(cnn.article_id(url).as_deref(), Some(id), "{url}");
        }
        // The older shape, upper case kept (CNN's paths are case-sensitive).
        assert_eq!(
            cnn.article_id("http://edition.cnn.com/2010/WORLD/africa/03/20/nigeria.violence/index.html?iref=allsearch")
                .as_deref(),
            Some("/2010/WORLD/africa/03/20/nigeria.violence")
        );
        assert_ne!(
            cnn.article_id("https://www.cnn.com/2015/A/b"),
            cnn.article_id("https://www.cnn.com/2015/a/b")
        );
    }

    #[test]
    fn pages_that_are_not_articles_say_why() {
        let bbc = bbc();
        let live = bbc.identify("https://www.bbc.co.uk/news/live/uk-politics-50000001");
        assert_eq!(
            live,
            Err(Rejection::new("live_page", "live page, not an article"))
        );
        let gallery = bbc.identify("http://www.bbc.co.uk/news/in-pictures-30000011");
        assert_eq!(gallery.unwrap_err().kind, "gallery");
        let index = bbc
            .identify("http://www.bbc.co.uk/news/world/europe")
            .unwrap_err();
        assert_eq!(index.kind, "no_article_id");
        assert!(index.reason.contains("no bbc article id"), "{index:?}");
        // Each World Service language, feature section and long-form page under its own key.
        for (url, key) in [
            (
                "https://www.bbc.com/mundo/noticias-america-latina-68000001",
                "world_service",
            ),
            (
                "https://www.bbc.com/zhongwen/simp/world-68000002",
                "world_service",
            ),
            (
                "https://www.bbc.co.uk/persian/articles/c0abc123def4",
                "world_service",
            ),
            (
                "http://news.bbc.co.uk/hi/arabic/news/newsid_8011000/8011000.stm",
                "world_service",
            ),
            (
                "https://www.bbc.com/future/article/20190101-why-we-sleep",
                "feature_section",
            ),
            (
                "http://www.bbc.com/travel/story/20150101-a-river-town",
                "feature_section",
            ),
            (
                "https://www.bbc.com/worklife/article/20200101-the-commute",
                "feature_section",
            ),
            (
                "https://www.bbc.com/culture/article/20240301-a-film",
                "feature_section",
            ),
            (
                "https://www.bbc.co.uk/news/extra/aBcD3fGh1j/the-crossing",
                "longform",
            ),
        ] {
            assert_eq!(bbc.identify(url).unwrap_err().kind, key, "{url}");
        }
        // English pages whose path merely contains a language's name stay articles.
        for url in [
            "https://www.bbc.co.uk/news/world-latin-america-68000003",
            "https://www.bbc.co.uk/news/uk-wales-arabic-68000004",
            "https://www.bbc.com/news/articles/c0mundo12345",
        ] {
            assert!(bbc.identify(url).is_ok(), "{url}");
        }
    }

    #[test]
    fn id_dates_that_do_not_grow_or_are_no_day_are_refused_by_field() {
        let text = SHIPPED[0].1;
        let shrinking = text.replace(
            "{ id = 8011268, date = 2009-04-21 }",
            "{ id = 8011268, date = 2019-04-21 }",
        );
        let err = parse_profile("bbc.toml", &shrinking)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`id_dates.points`") && err.contains("must grow"),
            "{err}"
        );
        let no_day = text.replace("date = 2009-04-21", "date = 10:00:00");
        let err = parse_profile("bbc.toml", &no_day).unwrap_err().to_string();
        assert!(err.contains("`id_dates.points[0].date`"), "{err}");
    }

    #[test]
    fn bbc_ids_bound_the_publication_day() {
        let bbc = bbc();
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        // 2015-04-12 is a known point; margins on both sides.
        let (lo, hi) = bbc.published_bounds("32275608");
        assert!(lo.unwrap() < day(2015, 4, 12) && hi.unwrap() > day(2015, 4, 12));
        assert!(lo.unwrap() > day(2014, 12, 1) && hi.unwrap() < day(2015, 8, 1));
        // Between known points, and beyond the last one (a lower bound only).
        let (lo, hi) = bbc.published_bounds("45000000");
        assert!(lo.unwrap() > day(2017, 1, 1) && hi.unwrap() < day(2020, 6, 1));
        let (lo, hi) = bbc.published_bounds("70000000");
        assert!(lo.is_some() && hi.is_none());
        assert_eq!(bbc.published_bounds("c0abc123"), (None, None));
    }
}
