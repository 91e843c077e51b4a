//! Replay of captures (`/web/<timestamp>id_/<url>`) as the real Wayback answers:
//! the capture itself with `Memento-Datetime`; a `302 FOUND` with
//! `X-Archive-Redirect-Reason` to the nearest capture when the timestamp is not
//! exact; archived redirects with their `Location` rewritten into the archive at
//! the same timestamp; 404 for what was never archived; the "excluded" page with
//! status 200 for a blocked site.

use chrono::NaiveDateTime;
use tempora_wayback_format::urlkey::urlkey_of;
use tempora_wayback_format::wayback_url::ReplayPath;

use crate::cdx::Answer;
use crate::corpus::{Corpus, MockCapture};

/// A replay answer and whether its body may be gzip-compressed in transit.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Status, headers and uncompressed body.
    pub answer: Answer,
    /// The capture asks to be served gzip-compressed.
    pub gzip: bool,
}

/// The Wayback's own HTML page (status 200 for "excluded", 404 for "not archived").
pub fn wayback_page(status: u16, message: &str) -> Answer {
    let body = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n  <head>\n    <title>Wayback Machine</title>\n  </head>\n  <body>\n    <div class=\"row toprow web\">\n      <p>{message}</p>\n    </div>\n  </body>\n</html>\n"
    );
    Answer {
        status,
        headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
        body: body.into_bytes(),
    }
}

/// Answers a replay request. `base` is the server's own URL (for `Location`).
pub fn answer(
    corpus: &Corpus,
    base: &str,
    path_and_query: &str,
    is_blocked: impl Fn(&str) -> bool,
) -> Replay {
    let plain = |answer| Replay {
        answer,
        gzip: false,
    };
    let Some(replay) = ReplayPath::parse(path_and_query) else {
        return plain(wayback_page(
            404,
            "Wayback Machine doesn't have that page archived.",
        ));
    };
    let key = urlkey_of(replay.original);
    if is_blocked(&key) {
        return plain(wayback_page(
            200,
            "This URL has been excluded from the Wayback Machine.",
        ));
    }
    let captures = corpus.of_key(&key);
    let requested = parse_time(replay.timestamp);
    let nearest = captures
        .iter()
        .map(|(_, c)| c)
        .min_by_key(|c| match (c.time(), requested) {
            (Some(t), Some(r)) => (t - r).num_seconds().unsigned_abs(),
            _ => u64::MAX,
        });
    let Some(capture) = nearest else {
        return plain(wayback_page(
            404,
            "Wayback Machine doesn't have that page archived.",
        ));
    };
    if capture.timestamp != pad(replay.timestamp) {
        let location = format!(
            "{base}/web/{}{}/{}",
            capture.timestamp, replay.flags, capture.url
        );
        return plain(Answer {
            status: 302,
            headers: vec![
                ("Content-Type".into(), "text/plain; charset=utf-8".into()),
                ("Location".into(), location),
                (
                    "X-Archive-Redirect-Reason".into(),
                    format!("found capture at {}", capture.timestamp),
                ),
            ],
            body: Vec::new(),
        });
    }
    serve(corpus, base, &key, capture, replay.flags)
}

fn serve(corpus: &Corpus, base: &str, key: &str, capture: &MockCapture, flags: &str) -> Replay {
    let payload = if capture.status.is_none() {
        // A revisit serves the payload of the capture it revisits.
        corpus
            .of_key(key)
            .iter()
            .map(|(_, c)| c)
            .find(|c| c.status.is_some() && c.digest == capture.digest)
            .map(|c| c.body.clone())
    } else {
        Some(capture.body.clone())
    };
    let Some(body) = payload else {
        return Replay {
            answer: wayback_page(404, "Wayback Machine doesn't have that page archived."),
            gzip: false,
        };
    };
    let mut headers = vec![
        ("Content-Type".into(), capture.content_type.clone()),
        ("Memento-Datetime".into(), capture.memento_datetime()),
        (
            "Link".into(),
            format!(
                "<{}>; rel=\"original\", <{base}/web/{}/{}>; rel=\"memento\"; datetime=\"{}\"",
                capture.url,
                capture.timestamp,
                capture.url,
                capture.memento_datetime()
            ),
        ),
        ("X-Archive-Src".into(), "mock-00000.warc.gz".into()),
    ];
    if let Some(target) = &capture.location {
        headers.push((
            "Location".into(),
            format!("{base}/web/{}{flags}/{target}", capture.timestamp),
        ));
    }
    if capture.status == Some(429) {
        headers.push(("x-archive-orig-retry-after".into(), "10".into()));
    }
    Replay {
        answer: Answer {
            status: capture.status.unwrap_or(200),
            headers,
            body,
        },
        gzip: capture.gzip,
    }
}

fn pad(timestamp: &str) -> String {
    let mut s = timestamp.to_string();
    while s.len() < 14 {
        s.push('0');
    }
    s
}

fn parse_time(timestamp: &str) -> Option<NaiveDateTime> {
    NaiveDateTime::parse_from_str(&pad(timestamp), "%Y%m%d%H%M%S").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Corpus {
        let page = MockCapture::html("http://www.bbc.co.uk/news/a", "20150101000000", "A");
        let digest = page.digest.clone();
        Corpus::new([
            page,
            MockCapture::revisit("http://www.bbc.co.uk/news/a", "20150201000000", &digest),
            MockCapture::redirect(
                "http://bbc.co.uk/news/old",
                "20150101000000",
                301,
                "http://www.bbc.co.uk/news/a",
            ),
        ])
    }

    fn header<'a>(a: &'a Answer, name: &str) -> Option<&'a str> {
        a.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn exact_capture_has_memento_datetime() {
        let r = answer(
            &corpus(),
            "http://h",
            "/web/20150101000000id_/http://www.bbc.co.uk/news/a",
            |_| false,
        );
        assert_eq!(r.answer.status, 200);
        assert_eq!(r.answer.body, b"A");
        assert_eq!(
            header(&r.answer, "Memento-Datetime"),
            Some("Thu, 01 Jan 2015 00:00:00 GMT")
        );
    }

    #[test]
    fn inexact_timestamp_redirects_to_the_nearest_capture() {
        let r = answer(
            &corpus(),
            "http://h",
            "/web/20150125id_/https://bbc.co.uk/news/a",
            |_| false,
        );
        assert_eq!(r.answer.status, 302);
        assert_eq!(
            header(&r.answer, "Location"),
            Some("http://h/web/20150201000000id_/http://www.bbc.co.uk/news/a")
        );
        assert_eq!(
            header(&r.answer, "X-Archive-Redirect-Reason"),
            Some("found capture at 20150201000000")
        );
    }

    #[test]
    fn revisits_archived_redirects_missing_and_blocked() {
        let r = answer(
            &corpus(),
            "http://h",
            "/web/20150201000000id_/http://www.bbc.co.uk/news/a",
            |_| false,
        );
        assert_eq!(r.answer.body, b"A");
        let r = answer(
            &corpus(),
            "http://h",
            "/web/20150101000000id_/http://bbc.co.uk/news/old",
            |_| false,
        );
        assert_eq!(r.answer.status, 301);
        assert_eq!(
            header(&r.answer, "Location"),
            Some("http://h/web/20150101000000id_/http://www.bbc.co.uk/news/a")
        );
        let r = answer(
            &corpus(),
            "http://h",
            "/web/2015id_/http://nowhere.org/",
            |_| false,
        );
        assert_eq!(r.answer.status, 404);
        let r = answer(
            &corpus(),
            "http://h",
            "/web/2015id_/http://www.bbc.co.uk/news/a",
            |_| true,
        );
        assert_eq!(r.answer.status, 200);
        assert!(header(&r.answer, "Memento-Datetime").is_none());
    }
}
