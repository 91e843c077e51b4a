//! The fetcher against the loopback mock: redirects, loops, charsets, caps, errors.

mod common;

use tempora_http::politeness::RequestClass;
use tempora_records::Capture;
use tempora_testkit::{Corpus, Fault, FaultRule, MockCapture, MockWayback, Target};
use tempora_wayback::fetch::Fetched;

fn capture(url: &str, ts: &str) -> Capture {
    Capture {
        url: url.into(),
        timestamp: ts.parse().unwrap(),
        status: Some(200),
        mime: "text/html".into(),
        digest: String::new(),
        length: None,
        source: "captures".into(),
    }
}

fn page(f: Fetched) -> tempora_records::Page {
    match f {
        Fetched::Page(p) => *p,
        Fetched::Failed { reason, .. } => panic!("failed: {reason}"),
    }
}

fn failure(f: Fetched) -> (String, bool) {
    match f {
        Fetched::Failed { reason, permanent } => (reason, permanent),
        Fetched::Page(p) => panic!("expected a failure, got a page of {}", p.final_url),
    }
}

const A: &str = "http://www.bbc.co.uk/news/uk-1";
const B: &str = "http://www.bbc.co.uk/news/uk-2";

#[tokio::test]
async fn archived_redirect_then_capture_redirect_within_distance() {
    // The site redirected A to B at the capture time; B was captured an hour later.
    let server = MockWayback::start(Corpus::new([
        MockCapture::redirect(A, "20150101000000", 301, B),
        MockCapture::html(B, "20150101010000", "<p>B</p>"),
    ]))
    .await
    .unwrap();
    let fetcher = common::fetcher(&server.endpoint(), common::quick(RequestClass::Page, 0.0));
    let p = page(fetcher.fetch(&capture(A, "20150101000000")).await.unwrap());
    assert_eq!(p.final_url, B);
    assert_eq!(p.body, b"<p>B</p>");
    assert_eq!(
        p.memento_datetime.as_deref(),
        Some("Thu, 01 Jan 2015 01:00:00 GMT")
    );
    assert_eq!(
        p.capture.url, A,
        "the page keeps the capture that was asked for"
    );
    assert_eq!(server.log().requests().len(), 3);
}

#[tokio::test]
async fn redirects_too_far_and_loops_fail_with_their_reason() {
    let server = MockWayback::start(Corpus::new([
        MockCapture::html(A, "20160101000000", "later"),
        MockCapture::redirect("http://x.org/1", "20150101000000", 302, "http://x.org/2"),
        MockCapture::redirect("http://x.org/2", "20150101000000", 302, "http://x.org/1"),
    ]))
    .await
    .unwrap();
    let fetcher = common::fetcher(&server.endpoint(), common::quick(RequestClass::Page, 0.0));
    let (reason, permanent) = failure(fetcher.fetch(&capture(A, "20150101000000")).await.unwrap());
    assert!(
        reason.contains("over max_redirect_distance") && reason.contains("20160101000000"),
        "{reason}"
    );
    assert!(permanent);
    let (reason, _) = failure(
        fetcher
            .fetch(&capture("http://x.org/1", "20150101000000"))
            .await
            .unwrap(),
    );
    assert!(reason.contains("redirect loop"), "{reason}");
}

#[tokio::test]
async fn archived_charset_is_kept_with_the_raw_bytes() {
    let latin1 = b"<html><body>caf\xe9 na\xefve</body></html>".to_vec();
    let server = MockWayback::start(Corpus::new([MockCapture::html(
        A,
        "20100101000000",
        latin1.clone(),
    )
    .with_content_type("text/html; charset=iso-8859-1")]))
    .await
    .unwrap();
    let fetcher = common::fetcher(&server.endpoint(), common::quick(RequestClass::Page, 0.0));
    let p = page(fetcher.fetch(&capture(A, "20100101000000")).await.unwrap());
    assert_eq!(
        p.body, latin1,
        "raw bytes as archived (gzip in transit undone)"
    );
    // The extract stage decodes the bytes by this header (tempora_extract::charset).
    assert_eq!(
        p.content_type.as_deref(),
        Some("text/html; charset=iso-8859-1")
    );
}

#[tokio::test]
async fn a_wrong_content_encoding_is_tolerated() {
    let server = MockWayback::start(Corpus::new([MockCapture::html(
        A,
        "20150101000000",
        "<p>plain</p>",
    )
    .plain()]))
    .await
    .unwrap();
    server.add_fault(FaultRule::new(Target::Replay, Fault::WrongEncoding, 1));
    let fetcher = common::fetcher(&server.endpoint(), common::quick(RequestClass::Page, 0.0));
    let p = page(fetcher.fetch(&capture(A, "20150101000000")).await.unwrap());
    assert_eq!(p.body, b"<p>plain</p>");
}

#[tokio::test]
async fn missing_blocked_archived_errors_and_oversize_are_permanent_failures() {
    let server = MockWayback::start(Corpus::new([
        MockCapture::html(
            "http://www.reddit.com/r/x",
            "20150129034904",
            "Too Many Requests",
        )
        .with_status(429),
        MockCapture::html("http://nationalpost.com/health/", "20170929002712", "np"),
        MockCapture::html(A, "20150101000000", vec![b'x'; 2 << 20]),
    ]))
    .await
    .unwrap();
    server.block_site("nationalpost.com");
    let fetcher = common::fetcher(&server.endpoint(), common::quick(RequestClass::Page, 0.0));
    let cases = [
        (
            capture("http://nowhere.example.org/", "20150101000000"),
            "not archived",
        ),
        (
            capture("http://nationalpost.com/health/", "20170929002712"),
            "excluded from the Wayback Machine",
        ),
        (
            capture("http://www.reddit.com/r/x", "20150129034904"),
            "archived answer itself is HTTP 429",
        ),
        (capture(A, "20150101000000"), "larger than max_body_bytes"),
    ];
    for (c, expected) in cases {
        let (reason, permanent) = failure(fetcher.fetch(&c).await.unwrap());
        assert!(reason.contains(expected), "{}: {reason}", c.url);
        assert!(permanent, "{reason}");
    }
    // An archived 429 is the site's answer, not the Archive's: no pause was taken.
    assert!(server.log().pause_violations().is_empty());
}

#[tokio::test]
async fn five_hundreds_and_cut_bodies_are_retried_then_reported() {
    let server = MockWayback::start(Corpus::new([MockCapture::html(
        A,
        "20150101000000",
        vec![b'a'; 5000],
    )]))
    .await
    .unwrap();
    server.add_fault(FaultRule::new(Target::Replay, Fault::Unavailable, 2));
    server.add_fault(FaultRule::new(Target::Replay, Fault::Truncate, 1));
    let fetcher = common::fetcher(&server.endpoint(), common::quick(RequestClass::Page, 0.0));
    let p = page(fetcher.fetch(&capture(A, "20150101000000")).await.unwrap());
    assert_eq!(p.body.len(), 5000);
    assert_eq!(server.log().requests().len(), 4);

    server.add_fault(FaultRule::new(Target::Replay, Fault::Unavailable, 10));
    let (reason, permanent) = failure(fetcher.fetch(&capture(A, "20150101000000")).await.unwrap());
    assert!(
        reason.contains("HTTP 503") && reason.contains("4 attempts"),
        "{reason}"
    );
    assert!(!permanent, "a later run may try again");
}

#[tokio::test]
async fn repeated_resets_stop_the_run_with_a_clear_message() {
    let server = MockWayback::start(Corpus::new([MockCapture::html(A, "20150101000000", "a")]))
        .await
        .unwrap();
    server.add_fault(FaultRule::new(
        Target::Any,
        Fault::Block(std::time::Duration::from_secs(30)),
        1,
    ));
    let fetcher = common::fetcher(&server.endpoint(), common::quick(RequestClass::Page, 0.0));
    let err = fetcher
        .fetch(&capture(A, "20150101000000"))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("refused or reset 3 connections") && text.contains("blocked this IP"),
        "{text}"
    );
}
