//! Discovery through archived feeds and sitemaps (`wayback-feeds`) against the mock.

use std::collections::HashMap;

use chrono::Duration;
use tempora_engine::testing::{context, run_stage};
use tempora_records::{Capture, Record};
use tempora_testkit::{synthetic, Corpus, MockCapture, MockWayback, RequestKind};
use tempora_wayback::stages::feeds_stage;

const RSS: &str = "http://feeds.bbci.co.uk/news/rss.xml";
const SITEMAP: &str = "https://www.bbc.co.uk/sitemaps/news.xml";

fn start() -> chrono::NaiveDateTime {
    chrono::NaiveDate::from_ymd_opt(2018, 5, 1)
        .and_then(|d| d.and_hms_opt(1, 0, 0))
        .unwrap()
}

/// Three days of articles (every 6 hours), a feed capture at 23:00 each day (and a
/// second one on day one, collapsed away), a news sitemap with two of them, every
/// article captured 30 minutes after publication except the last.
fn corpus() -> (Corpus, Vec<synthetic::SyntheticArticle>) {
    let articles = synthetic::articles(12, start(), 6 * 60);
    let mut captures: Vec<MockCapture> = articles[..11]
        .iter()
        .map(|a| synthetic::article_capture(a, 30, 1500))
        .collect();
    // A later capture of the first article: not the one wanted.
    captures.push(synthetic::article_capture(&articles[0], 60 * 24 * 2, 1500));
    for day in 0..3 {
        let at = start() + Duration::days(day) + Duration::hours(22);
        let items: Vec<_> = articles
            .iter()
            .filter(|a| a.published <= at && a.published > at - Duration::days(1))
            .cloned()
            .collect();
        captures.push(synthetic::xml_capture(
            RSS,
            at,
            &synthetic::rss_feed(&items),
        ));
    }
    captures.push(synthetic::xml_capture(
        RSS,
        start() + Duration::hours(22) + Duration::minutes(30),
        "<rss><channel></channel></rss>",
    ));
    captures.push(synthetic::xml_capture(
        SITEMAP,
        start() + Duration::hours(12),
        &synthetic::news_sitemap(&articles[..2]),
    ));
    (Corpus::new(captures), articles)
}

async fn discover(endpoint: &str, lookup: &str) -> (Vec<Capture>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let table: toml::Table = toml::from_str(&format!(
        "feeds = [\"{RSS}\", \"{SITEMAP}\"]\nlookup = \"{lookup}\"\narchive = {{ endpoint = \"{endpoint}\", cdx_rate = 0, playback_rate = 0 }}\nstate = \"{}\"\n",
        dir.path().join("s.sqlite").display()
    ))
    .unwrap();
    let cfg = feeds_stage::configure(table, &ctx).unwrap();
    assert!(cfg.check(&ctx).is_empty());
    let out = run_stage(cfg, &ctx, Vec::new(), HashMap::new())
        .await
        .unwrap();
    let captures = out
        .out()
        .iter()
        .map(|r| match r {
            Record::Capture(c) => (**c).clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    (
        captures,
        out.rejected.iter().map(|r| r.reason.clone()).collect(),
    )
}

#[tokio::test]
async fn feeds_give_each_article_its_first_capture_after_publication() {
    let (corpus, articles) = corpus();
    let server = MockWayback::start(corpus).await.unwrap();
    let (captures, rejected) = discover(&server.endpoint(), "cdx").await;
    assert_eq!(captures.len(), 11, "{captures:?}");
    for c in &captures {
        let a = articles.iter().find(|a| a.url == c.url).unwrap();
        assert_eq!(
            c.timestamp,
            synthetic::timestamp(a.published + Duration::minutes(30)),
            "{}",
            c.url
        );
    }
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert!(
        rejected[0].contains("no capture of the article"),
        "{rejected:?}"
    );
    // Feed listings (one per feed, one capture a day), then one lookup per article.
    let log = server.log().requests();
    let cdx = log.iter().filter(|r| r.kind == RequestKind::Cdx).count();
    let replays = log.iter().filter(|r| r.kind == RequestKind::Replay).count();
    assert_eq!(cdx, 2 + 12);
    assert_eq!(replays, 3 + 1, "three daily feed captures and the sitemap");
}

#[tokio::test]
async fn redirect_lookup_asks_the_cdx_for_feeds_only() {
    let (corpus, articles) = corpus();
    let server = MockWayback::start(corpus).await.unwrap();
    let (captures, _) = discover(&server.endpoint(), "redirect").await;
    assert_eq!(captures.len(), 12);
    assert!(captures.iter().all(|c| articles
        .iter()
        .any(|a| a.url == c.url && synthetic::timestamp(a.published) == c.timestamp)));
    let cdx = server
        .log()
        .requests()
        .iter()
        .filter(|r| r.kind == RequestKind::Cdx)
        .count();
    assert_eq!(cdx, 2);
}
