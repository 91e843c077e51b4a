//! The crawler's readers of outside bytes, fuzzed: CDX answers (JSON and plain
//! text), archived feeds and sitemaps, and WARC files (plain and gzip), each
//! from valid samples broken the ways real bytes break, and from arbitrary
//! bytes. No panic; a bad answer is an error naming where it came from.
//! `PROPTEST_CASES=100000 cargo test -p tempora-wayback --test fuzz` runs longer.

mod common;

use std::io::Write as _;

use common::sample_page;
use proptest::prelude::*;
use tempora_testkit::fuzz::{broken, config};
use tempora_testkit::synthetic;
use tempora_wayback::cdx::parse_page;
use tempora_wayback::feeds::parse_feed;
use tempora_wayback::warc::{gzip, page_from_record, response_record, WarcFileReader};

const CDX_URL: &str = "http://127.0.0.1:1/cdx/search/cdx?url=bbc.co.uk/news/*";

fn cdx_samples() -> Vec<Vec<u8>> {
    vec![
        br#"[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],
["uk,co,bbc)/news/uk-1","20150601083000","http://www.bbc.co.uk/news/uk-1","text/html","200","AAAA","1234"],
["uk,co,bbc)/news/uk-2","20150602083000","https://www.bbc.co.uk/news/uk-2?at=1","text/html","301","BBBB","-"],
[],
["dWssY28sYmJjKS9uZXdzL3VrLTIgMjAxNTA2MDIwODMwMDA="]]
"#
        .to_vec(),
        b"uk,co,bbc)/news/uk-1 20150601083000 http://www.bbc.co.uk/news/uk-1 text/html 200 AAAA 1234\n\
uk,co,bbc)/news/uk-2 20150602083000 http://www.bbc.co.uk/news/uk-2 text/html - BBBB -\n\
\n\
dWssY28sYmJjKS9uZXdzL3VrLTI=\n"
            .to_vec(),
    ]
}

fn feed_samples() -> Vec<Vec<u8>> {
    let start = chrono::NaiveDate::from_ymd_opt(2021, 3, 1)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .unwrap();
    let items = synthetic::articles(3, start, 90);
    vec![
        synthetic::rss_feed(&items).into_bytes(),
        synthetic::news_sitemap(&items).into_bytes(),
        br#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>CNN</title>
<entry><title>A &amp; B</title><link href="https://edition.cnn.com/2021/03/01/world/a/index.html"/>
<published>2021-03-01T09:00:00Z</published><summary type="html">&lt;p&gt;x&lt;/p&gt;</summary></entry>
</feed>"#
            .to_vec(),
    ]
}

fn warc_samples() -> Vec<Vec<u8>> {
    let records: Vec<Vec<u8>> = (0..3).map(|i| response_record(&sample_page(i))).collect();
    let plain = records.concat();
    let members: Vec<u8> = records.iter().flat_map(|r| gzip(r)).collect();
    vec![plain.clone(), members, gzip(&plain)]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cdx_answers_never_panic_and_errors_name_the_request(body in broken(cdx_samples())) {
        if let Err(e) = parse_page(&body, CDX_URL) {
            prop_assert!(e.to_string().contains(CDX_URL), "{e}");
        }
    }

    #[test]
    fn feeds_never_panic(body in broken(feed_samples()), xml in any::<bool>()) {
        let content_type = xml.then_some("application/rss+xml; charset=utf-8");
        if let Ok(feed) = parse_feed(&body, content_type) {
            // What a feed gives is what the crawl acts on: links, never empty ones.
            for item in feed.items {
                prop_assert!(!item.link.is_empty());
            }
        }
    }

    #[test]
    fn warc_files_never_panic_and_errors_name_the_file_and_offset(bytes in broken(warc_samples())) {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&bytes).unwrap();
        file.flush().unwrap();
        let reader = WarcFileReader::open(file.path(), 1 << 20).unwrap();
        // A reader stops after an error; a bounded number of records either way.
        for record in reader.take(64) {
            match record {
                Ok(record) => {
                    let _ = page_from_record(&record, "warc", 1 << 20);
                }
                Err(e) => {
                    let message = e.to_string();
                    prop_assert!(message.contains(&file.path().display().to_string()), "{message}");
                }
            }
        }
    }
}
