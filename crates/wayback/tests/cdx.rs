//! The CDX client and the lister against the loopback mock.

mod common;

use tempora_http::politeness::RequestClass;
use tempora_records::Capture;
use tempora_testkit::synthetic::listing_corpus;
use tempora_testkit::{Fault, FaultRule, MockWayback, Target};
use tempora_wayback::cdx::{CdxPage, CdxQuery, PageAnswer};
use tempora_wayback::lister::{CdxLister, Keep, ListerConfig, Listing};
use tempora_wayback::state::State;

fn query(url: &str, page_size: usize, collapse: &[&str]) -> CdxQuery {
    CdxQuery {
        url: url.into(),
        match_type: None,
        from: None,
        to: None,
        filters: vec!["statuscode:200".into(), "mimetype:text/html".into()],
        collapse: collapse.iter().map(|s| s.to_string()).collect(),
        page_size,
    }
}

/// The captures a chunked listing of `bbc.co.uk/news/*` over the days `window`
/// (in chunks of `chunk_days` to start with) hands on, keeping the earliest, and
/// how many watermarks it gave.
async fn list_chunked(
    server: &MockWayback,
    window: (&str, &str),
    chunk_days: u32,
    state: State,
) -> (Vec<Capture>, usize) {
    use tempora_wayback::chunks::{ChunkedListing, Chunking};
    let day = |s: &str| s.parse::<chrono::NaiveDate>().ok();
    let listing = Listing::Chunked(Box::new(ChunkedListing::new(
        Chunking::new(vec![(day(window.0), day(window.1))], chunk_days, 1_000),
        vec!["bbc.co.uk/news/*".into()],
        query("", 1_000, &["urlkey"]),
    )));
    let client = common::cdx_client(&server.endpoint(), common::quick(RequestClass::Cdx, 0.0));
    let mut lister = CdxLister::new(
        client,
        state,
        ListerConfig {
            listing,
            keep: Keep::Earliest,
            incremental: false,
            overlap_secs: 0,
            source: "captures".into(),
        },
    );
    let (mut captures, mut watermarks) = (Vec::new(), 0);
    while let Some(step) = lister.next().await.unwrap() {
        captures.extend(step.captures);
        watermarks += usize::from(step.watermark.is_some());
    }
    (captures, watermarks)
}

async fn list_all(server: &MockWayback, keep: Keep, q: CdxQuery, state: State) -> Vec<Capture> {
    let client = common::cdx_client(&server.endpoint(), common::quick(RequestClass::Cdx, 0.0));
    let mut lister = CdxLister::new(
        client,
        state,
        ListerConfig {
            listing: Listing::Queries(vec![q]),
            keep,
            incremental: false,
            overlap_secs: 0,
            source: "captures".into(),
        },
    );
    let mut all = Vec::new();
    while let Some(step) = lister.next().await.unwrap() {
        all.extend(step.captures);
    }
    all
}

#[tokio::test]
async fn pages_follow_resume_keys_until_the_last_page() {
    let server = MockWayback::start(listing_corpus()).await.unwrap();
    let client = common::cdx_client(&server.endpoint(), common::quick(RequestClass::Cdx, 0.0));
    let q = query("bbc.co.uk/news/*", 2, &[]);
    let mut key: Option<String> = None;
    let mut rows = Vec::new();
    for _ in 0..10 {
        let PageAnswer::Page(page) = client.page(&q, key.as_deref()).await.unwrap() else {
            panic!("blocked")
        };
        rows.extend(page.rows.iter().map(|r| r.timestamp));
        key = page.resume_key;
        if key.is_none() {
            break;
        }
    }
    assert!(key.is_none(), "paging never ended");
    // statuscode:200 drops the revisit and the 301; every other bbc row once, in index order.
    assert_eq!(
        rows,
        [
            "20150101000000",
            "20150102000000",
            "20150103000000",
            "20150101120000",
            "20150105000000"
        ]
    );
    // Every request carried the resume key re-encoded, as clients must.
    let with_key = server
        .log()
        .requests()
        .iter()
        .filter(|r| r.target.contains("resumeKey="))
        .count();
    assert!(with_key >= 2);
}

/// A server that does not sort the rows of a page: `keep` decides on them in
/// index order all the same.
#[tokio::test]
async fn keep_decides_on_index_order_whatever_order_a_page_comes_in() {
    let sorted = MockWayback::start(listing_corpus()).await.unwrap();
    for keep in [Keep::Earliest, Keep::Latest, Keep::All] {
        let q = query("bbc.co.uk/news/*", 100, &[]);
        let want = list_all(&sorted, keep, q.clone(), State::in_memory().unwrap()).await;
        for seed in 0..4 {
            let unsorted = MockWayback::start(listing_corpus()).await.unwrap();
            unsorted.reorder(tempora_testkit::Reorder::PageRows { seed });
            let got = list_all(&unsorted, keep, q.clone(), State::in_memory().unwrap()).await;
            assert_eq!(got, want, "{keep:?}, seed {seed}");
        }
    }
}

#[tokio::test]
async fn keep_modes_and_local_dedupe() {
    let server = MockWayback::start(listing_corpus()).await.unwrap();
    let earliest = list_all(
        &server,
        Keep::Earliest,
        query("bbc.co.uk/news/*", 1, &["urlkey"]),
        State::in_memory().unwrap(),
    )
    .await;
    let got: Vec<(&str, &str)> = earliest
        .iter()
        .map(|c| (c.url.as_str(), c.timestamp.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("http://www.bbc.co.uk/news/uk-1", "20150101000000"),
            ("http://www.bbc.co.uk/news/uk-2", "20150101120000")
        ]
    );

    let latest = list_all(
        &server,
        Keep::Latest,
        query("bbc.co.uk/news/*", 2, &[]),
        State::in_memory().unwrap(),
    )
    .await;
    let got: Vec<&str> = latest.iter().map(|c| c.timestamp.as_str()).collect();
    assert_eq!(got, ["20150103000000", "20150105000000"]);

    // `all` keeps every new payload: the repeated "a v1" capture is dropped locally.
    let all = list_all(
        &server,
        Keep::All,
        query("bbc.co.uk/news/*", 2, &[]),
        State::in_memory().unwrap(),
    )
    .await;
    assert_eq!(all.len(), 4);
    assert!(all
        .iter()
        .all(|c| c.source == "captures" && c.status == Some(200)));
}

#[tokio::test]
async fn empty_results_blocked_sites_and_html_pages_served_with_200() {
    let server = MockWayback::start(listing_corpus()).await.unwrap();
    let client = common::cdx_client(&server.endpoint(), common::quick(RequestClass::Cdx, 0.0));
    let empty = client
        .page(&query("nothing.example.org", 10, &[]), None)
        .await
        .unwrap();
    assert_eq!(empty, PageAnswer::Page(CdxPage::default()));

    server.block_site("cnn.com");
    match client.page(&query("cnn.com", 10, &[]), None).await.unwrap() {
        PageAnswer::Blocked(message) => {
            assert!(message.contains("Blocked Site Error"), "{message}")
        }
        other => panic!("expected blocked, got {other:?}"),
    }

    server.add_fault(FaultRule::new(Target::Cdx, Fault::ErrorPage200, 2));
    let PageAnswer::Page(page) = client
        .page(&query("bbc.co.uk/news/uk-1", 10, &[]), None)
        .await
        .unwrap()
    else {
        panic!("blocked")
    };
    assert_eq!(
        page.rows.len(),
        3,
        "the HTML pages were retried, never parsed as data"
    );

    server.add_fault(FaultRule::new(Target::Cdx, Fault::ErrorPage200, 10));
    let err = client
        .page(&query("bbc.co.uk/news/uk-1", 10, &[]), None)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("HTML page instead of data"),
        "{err}"
    );
}

#[tokio::test]
async fn a_bad_query_is_an_input_error_naming_the_query() {
    let server = MockWayback::start(listing_corpus()).await.unwrap();
    let client = common::cdx_client(&server.endpoint(), common::quick(RequestClass::Cdx, 0.0));
    let mut q = query("bbc.co.uk", 10, &[]);
    q.filters = vec!["nosuchfield:1".into()];
    let err = client.page(&q, None).await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("HTTP 400") && text.contains("nosuchfield"),
        "{text}"
    );
}

#[tokio::test]
async fn a_rerun_hands_back_unfetched_captures_and_skips_completed_queries() {
    let server = MockWayback::start(listing_corpus()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let state = State::open(&dir.path().join("s.sqlite")).unwrap();
    let first = list_all(
        &server,
        Keep::Earliest,
        query("bbc.co.uk/news/*", 1, &["urlkey"]),
        state.clone(),
    )
    .await;
    assert_eq!(first.len(), 2);
    let requests = server.log().requests().len();
    // Nothing was fetched: the second run hands both back without asking the CDX again.
    let second = list_all(
        &server,
        Keep::Earliest,
        query("bbc.co.uk/news/*", 1, &["urlkey"]),
        state,
    )
    .await;
    assert_eq!(second, first);
    assert_eq!(server.log().requests().len(), requests);
}

/// A site with one article a day, listed over 2015-2016 in chunks that start at
/// 30 days with pages of 1,000 rows: the chunks grow while they list fewer than
/// 500 rows, so the listing asks far fewer CDX requests than 30-day chunks
/// would; it lists every capture; and a rerun on the same state lists the same
/// chunks, each read back from the state without a request.
#[tokio::test]
async fn a_sparse_site_is_listed_in_growing_chunks_that_a_rerun_reads_back() {
    use tempora_testkit::{synthetic, Corpus};
    let start = chrono::NaiveDate::from_ymd_opt(2015, 1, 1)
        .and_then(|d| d.and_hms_opt(6, 0, 0))
        .unwrap();
    let articles = synthetic::articles(730, start, 24 * 60);
    let server = MockWayback::start(Corpus::new(
        articles
            .iter()
            .map(|a| synthetic::article_capture(a, 30, 2_000)),
    ))
    .await
    .unwrap();
    let window = ("2015-01-01", "2016-12-31");
    let server = &server;
    let list = |chunk_days, state| async move {
        let (captures, watermarks) = list_chunked(server, window, chunk_days, state).await;
        (
            captures.into_iter().map(|c| c.url).collect::<Vec<_>>(),
            watermarks,
        )
    };
    let cdx_requests = || server.log().requests().len();
    let state = State::in_memory().unwrap();
    let (captures, watermarks) = list(30, state.clone()).await;
    let grown = cdx_requests();
    assert_eq!(captures.len(), 730, "every article's capture is listed");
    // 30-day chunks would be 25 requests; the chunks grow to 16 times that.
    assert!(grown <= 8, "{grown} CDX requests");
    assert_eq!(watermarks, grown, "a watermark after each chunk");

    server.log().clear();
    let (again, _) = list(30, state).await;
    assert_eq!(again, captures, "the rerun lists the same captures");
    assert_eq!(cdx_requests(), 0, "{:?}", server.log().requests());

    // The window in one chunk lists the same captures.
    let (mut whole, _) = list(0, State::in_memory().unwrap()).await;
    let mut captures = captures;
    whole.sort();
    captures.sort();
    assert_eq!(whole, captures);
}

/// A run with other windows on a state that listed their days reads them back:
/// a window inside what was listed asks nothing, one that reaches past it asks
/// only for the days no listing covered. The listing read back holds every
/// capture a fresh listing of the window holds but the later captures of URLs
/// first captured before the window (see `tempora_wayback::cells`).
#[tokio::test]
async fn a_window_inside_what_was_listed_is_read_back_and_new_days_alone_are_asked_for() {
    use std::collections::BTreeSet;
    use tempora_testkit::{synthetic, Corpus};
    let start = chrono::NaiveDate::from_ymd_opt(2015, 1, 1)
        .and_then(|d| d.and_hms_opt(6, 0, 0))
        .unwrap();
    // An article a day for two and a half years, captured when published and
    // again 60 days later.
    let articles = synthetic::articles(900, start, 24 * 60);
    let server = MockWayback::start(Corpus::new(articles.iter().flat_map(|a| {
        [
            synthetic::article_capture(a, 30, 500),
            synthetic::article_capture(a, 60 * 24 * 60, 500),
        ]
    })))
    .await
    .unwrap();
    let server = &server;
    let list = |from, to, state| async move {
        let (captures, _) = list_chunked(server, (from, to), 30, state).await;
        captures
            .into_iter()
            .map(|c| (c.url, c.timestamp.to_string()))
            .collect::<BTreeSet<_>>()
    };
    let state = State::in_memory().unwrap();
    list("2015-01-01", "2016-12-31", state.clone()).await;
    assert!(!server.log().requests().is_empty());

    // Inside: nothing asked.
    server.log().clear();
    let inside = list("2015-08-10", "2016-03-20", state.clone()).await;
    assert_eq!(
        server.log().requests().len(),
        0,
        "{:?}",
        server.log().requests()
    );
    let fresh = list("2015-08-10", "2016-03-20", State::in_memory().unwrap()).await;
    let first_capture = |url: &str| {
        let a = articles.iter().find(|a| a.url == url).unwrap();
        synthetic::timestamp(a.published + chrono::Duration::minutes(30))
    };
    let window = "20150810000000".."20160321000000";
    assert!(inside.is_subset(&fresh), "{:?}", inside.difference(&fresh));
    // What the fresh listing has more: later captures of URLs first captured
    // before the window, and nothing else.
    let more: Vec<_> = fresh.difference(&inside).collect();
    assert!(!more.is_empty(), "the model has such captures");
    for (url, _) in &more {
        assert!(first_capture(url).as_str() < window.start, "{url}");
    }
    // Every story first captured in the window is there, with that capture.
    let published_inside = articles
        .iter()
        .filter(|a| {
            let t = first_capture(&a.url);
            window.contains(&t.as_str())
        })
        .count();
    assert_eq!(
        inside
            .iter()
            .filter(|(url, t)| window.contains(&t.as_str()) && *t == first_capture(url))
            .count(),
        published_inside
    );
    assert!(published_inside > 200);

    // Past what was listed: only the new days are asked for.
    server.log().clear();
    let beyond = list("2016-06-01", "2017-06-30", state).await;
    let asked = server.log().requests();
    assert!(!asked.is_empty());
    for request in &asked {
        let from = request
            .target
            .split(['?', '&'])
            .find_map(|p| p.strip_prefix("from="))
            .unwrap_or("");
        assert!(from >= "20170101000000", "{}", request.target);
    }
    let fresh = list("2016-06-01", "2017-06-30", State::in_memory().unwrap()).await;
    assert!(beyond.is_subset(&fresh));
    for (url, _) in fresh.difference(&beyond) {
        assert!(first_capture(url).as_str() < "20160601000000", "{url}");
    }
}
