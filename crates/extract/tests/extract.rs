//! The `extract` stage's behaviour on our fixture pages and on bad input: summary
//! fallbacks, the Wayback viewer, charsets, non-articles, options and profiles.

mod common;

use tempora_engine::Record;

const CNN_2022: &str = "pages/cnn/article-content-2022-no-highlights.html";

#[tokio::test]
async fn fallback_none_rejects_pages_without_highlights() {
    let out = common::run(
        r#"summary_fallback = "none""#,
        vec![common::fixture_page(CNN_2022)],
    )
    .await;
    assert!(out.out().is_empty());
    assert_eq!(out.rejected.len(), 1);
    assert!(
        out.rejected[0].reason.contains("no reference summary"),
        "{}",
        out.rejected[0].reason
    );
    // The page's capture is logged, not its (large) body.
    assert!(out.rejected[0].record.get("body").is_none());
    assert_eq!(out.rejected[0].record["timestamp"], "20220817010203");
}

#[tokio::test]
async fn fallback_description_takes_the_og_description_and_keeps_the_document() {
    let out = common::run(
        r#"summary_fallback = "description""#,
        vec![common::fixture_page(CNN_2022)],
    )
    .await;
    let a = &common::articles(&out)[0];
    assert_eq!(
        a.summary,
        "President Joe Biden signed the Inflation Reduction Act into law on Tuesday, capping a long legislative fight."
    );
    // The 2022 layout writes its dateline in its own elements.
    assert_eq!(a.dateline.as_deref(), Some("Washington (CNN)"));
    assert!(
        a.document
            .starts_with("President Joe Biden on Tuesday signed a sweeping climate"),
        "{}",
        a.document
    );
}

#[tokio::test]
async fn fallback_lead_moves_the_first_sentence_into_the_summary() {
    let out = common::run(
        r#"summary_fallback = "lead""#,
        vec![common::fixture_page(CNN_2022)],
    )
    .await;
    let a = &common::articles(&out)[0];
    assert_eq!(
        a.summary,
        "President Joe Biden on Tuesday signed a sweeping climate, health care and tax bill into law, the largest investment in clean energy in US history."
    );
    assert!(
        a.document
            .starts_with("The bill passed Congress without a single Republican vote.\n"),
        "{}",
        a.document
    );
    assert!(!a.document.contains("largest investment"));
}

#[tokio::test]
async fn bbc_layouts_take_no_fallback() {
    // The bold intro *is* BBC's summary: without it the page is rejected whatever the option.
    let file = "pages/bbc/text-block-2021-no-bold-intro.html";
    for fallback in ["description", "lead"] {
        let out = common::run(
            &format!("summary_fallback = \"{fallback}\""),
            vec![common::fixture_page(file)],
        )
        .await;
        assert!(out.out().is_empty(), "{fallback}");
        assert!(out.rejected[0].reason.contains("no reference summary"));
    }
}

#[tokio::test]
async fn highlights_are_one_per_line_and_the_dateline_is_a_field() {
    let out = common::run(
        "",
        vec![common::fixture_page("pages/cnn/zn-body-2021-harris.html")],
    )
    .await;
    let a = &common::articles(&out)[0];
    let lines: Vec<&str> = a.summary.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0],
        "Vice President Kamala Harris casts the deciding vote as the Senate splits 50-50"
    );
    assert_eq!(a.dateline.as_deref(), Some("Washington (CNN)"));
    assert!(a
        .document
        .starts_with("Vice President Kamala Harris cast the tie-breaking vote"));
    assert!(!a.document.contains("(CNN)"));
    assert!(!a.document.contains("Editor's note"), "{}", a.document);
    assert_eq!(
        a.id,
        "/2021/03/06/politics/kamala-harris-tie-breaking-vote-covid-relief/index.html"
    );
}

#[tokio::test]
async fn cnn_2012_drops_editors_notes_related_links_and_dates_from_the_url() {
    let out = common::run(
        "",
        vec![common::fixture_page(
            "pages/cnn/strycntntlft-2012-biden.html",
        )],
    )
    .await;
    let a = &common::articles(&out)[0];
    assert_eq!(a.dateline.as_deref(), Some("Danville, Kentucky (CNN)"));
    assert!(
        a.summary.starts_with("NEW: Vice President Joe Biden calls"),
        "{}",
        a.summary
    );
    for gone in [
        "iReport",
        "Fact check: The vice presidential debate",
        "Video: Debate highlights",
    ] {
        assert!(!a.document.contains(gone), "{gone} in {}", a.document);
    }
    // No date in the page's markup: the URL's /2012/10/11/ gives the day, and no time.
    assert_eq!(a.published.to_string(), "2012-10-11");
    assert_eq!(a.published_at, None);
}

#[tokio::test]
async fn viewer_pages_lose_the_toolbar_and_their_rewritten_urls() {
    let file = "pages/bbc/text-block-2021-biden-viewer.html";
    let body = std::fs::read(common::fixtures().join(file)).unwrap();
    // A viewer URL and no timestamp: both come back from the viewer's own markup.
    let viewer_url = "https://web.archive.org/web/20210121093012/https://www.bbc.co.uk/news/world-us-canada-55738746";
    let out = common::run("", vec![common::page(body, viewer_url, "", None)]).await;
    let a = &common::articles(&out)[0];
    assert_eq!(a.url, "https://www.bbc.co.uk/news/world-us-canada-55738746");
    assert_eq!(a.id, "55738746");
    assert_eq!(a.captured, "20210121093012");
    assert!(a.summary.starts_with("President Joe Biden has signed"));
    assert!(a.document.contains("46th President of the United States"));
    for toolbar in [
        "captures",
        "Wayback Machine",
        "Internet Archive",
        "explainer",
    ] {
        assert!(!a.document.contains(toolbar), "{toolbar} in {}", a.document);
    }
    // The capture time is never the publication date.
    assert_eq!(
        a.published_at.unwrap().to_rfc3339(),
        "2021-01-21T01:58:44+00:00"
    );
}

#[tokio::test]
async fn windows_1252_pages_decode_by_meta_and_by_header() {
    let file = "pages/bbc/stm-2010-brown-cp1252.html";
    let body = std::fs::read(common::fixtures().join(file)).unwrap();
    assert!(
        std::str::from_utf8(&body).is_err(),
        "the fixture must not be UTF-8"
    );
    let url = "http://news.bbc.co.uk/1/hi/uk_politics/8453210.stm";
    let input = vec![
        common::page(body.clone(), url, "20100112143005", None),
        common::page(
            body,
            url,
            "20100112143005",
            Some("text/html; charset=windows-1252"),
        ),
    ];
    let out = common::run("", input).await;
    let articles = common::articles(&out);
    assert_eq!(articles.len(), 2);
    for a in &articles {
        assert!(a.summary.contains("£1bn"), "{}", a.summary);
        assert!(
            a.document.contains("\u{201c}Future Jobs Fund\u{201d}"),
            "{}",
            a.document
        );
        assert!(a.document.contains("café"));
        assert!(
            !a.document.contains("Gordon Brown: "),
            "caption kept: {}",
            a.document
        );
        assert!(!a.document.contains("Bookmark"), "share widget kept");
        assert!(
            !a.document.contains("We will not walk away"),
            "side box kept"
        );
    }
    assert_eq!(articles[0], articles[1]);
}

#[tokio::test]
async fn non_articles_and_bad_input_are_rejected_with_reasons_never_emitted() {
    let html = |s: &str| s.as_bytes().to_vec();
    let two_intros = r#"<html><head><meta property="og:url" content="http://www.bbc.co.uk/news/uk-35000001"><meta name="OriginalPublicationDate" content="2015/12/01 10:00:00"></head><body><div class="story-body"><h1 class="story-body__h1">Headline</h1><p class="story-body__introduction">One.</p><p class="story-body__introduction">Two.</p><p>Body text that is long enough to be an article body, more than one hundred characters in all, surely.</p></div></body></html>"#;
    let no_date = r#"<html><body><div class="story-body"><h1 class="story-body__h1">Headline</h1><p class="story-body__introduction">Intro.</p><p>Body text that is long enough to be an article body, more than one hundred characters in all, surely.</p></div></body></html>"#;
    let cases: Vec<(Record, &str)> = vec![
        (
            common::page(
                Vec::new(),
                "http://www.bbc.co.uk/news/uk-1",
                "20150101000000",
                None,
            ),
            "no bbc article layout",
        ),
        (
            common::page(
                vec![0xff, 0xfe, 0, 1, 2, 0x80],
                "http://www.bbc.co.uk/news/uk-2",
                "20150101000000",
                None,
            ),
            "no bbc article layout",
        ),
        (
            common::page(
                html("<html><body><div class=\"story-body\"><p class=\"story-body__intro"),
                "http://www.bbc.co.uk/news/uk-3",
                "20150101000000",
                None,
            ),
            "no bbc article layout",
        ),
        (
            common::page(
                html(two_intros),
                "http://www.bbc.co.uk/news/uk-35000001",
                "20151201120000",
                None,
            ),
            "exactly one",
        ),
        (
            common::page(
                html(no_date),
                "http://www.bbc.co.uk/news/uk-35000002",
                "20151201120000",
                None,
            ),
            "no publication date",
        ),
        (
            common::page(
                html(no_date),
                "http://www.example.org/news/1",
                "20151201120000",
                None,
            ),
            "no site profile for `www.example.org`",
        ),
        (
            common::page(
                html(no_date),
                "https://www.bbc.co.uk/sport/live/football/123",
                "20151201120000",
                None,
            ),
            "live page",
        ),
        (
            Record::Capture(Box::new(tempora_engine::Capture {
                url: "http://www.bbc.co.uk/news/uk-4".into(),
                timestamp: "20150101000000".into(),
                status: Some(200),
                mime: "text/html".into(),
                digest: "X".into(),
                length: None,
                source: "cdx".into(),
            })),
            "accepts pages",
        ),
    ];
    let (input, reasons): (Vec<Record>, Vec<&str>) = cases.into_iter().unzip();
    let out = common::run("", input).await;
    assert!(out.out().is_empty(), "{:?}", out.out());
    assert_eq!(out.rejected.len(), reasons.len());
    for (rejected, want) in out.rejected.iter().zip(reasons) {
        assert!(
            rejected.reason.contains(want),
            "expected `{want}` in `{}`",
            rejected.reason
        );
    }
}

#[tokio::test]
async fn truncated_pages_never_panic() {
    // Every fixture cut at a dozen places, some inside multi-byte characters.
    let mut input = Vec::new();
    for (file, entry) in common::manifest() {
        let body = std::fs::read(common::fixtures().join(&file)).unwrap();
        for k in 1..=12 {
            let cut = body.len() * k / 13 + k % 3;
            input.push(common::page(
                body[..cut.min(body.len())].to_vec(),
                &entry.url,
                &entry.timestamp,
                None,
            ));
        }
    }
    let n = input.len();
    let out = common::run("", input).await;
    assert_eq!(out.out().len() + out.rejected.len(), n);
    for a in common::articles(&out) {
        assert!(!a.summary.is_empty() && !a.document.is_empty() && !a.title.is_empty());
    }
}

#[tokio::test]
async fn min_document_chars_rejects_stubs() {
    let file = "pages/bbc/av-2022-video.html";
    let out = common::run(
        "min_document_chars = 1000",
        vec![common::fixture_page(file)],
    )
    .await;
    assert!(out.out().is_empty());
    assert!(
        out.rejected[0]
            .reason
            .contains("fewer than min_document_chars = 1000"),
        "{}",
        out.rejected[0].reason
    );
}

#[tokio::test]
async fn sites_option_restricts_profiles() {
    let input = vec![
        common::fixture_page("pages/bbc/text-block-2020-johnson.html"),
        common::fixture_page("pages/cnn/zn-body-2021-harris.html"),
    ];
    let out = common::run(r#"sites = ["cnn"]"#, input).await;
    let articles = common::articles(&out);
    assert_eq!(articles.len(), 1);
    assert_eq!(articles[0].source, "cnn");
    assert!(
        out.rejected[0].reason.contains("no site profile"),
        "{}",
        out.rejected[0].reason
    );
}

#[test]
fn bad_options_name_their_key() {
    let err = |options: &str| match common::configure(options) {
        Ok(_) => panic!("accepted: {options}"),
        Err(errors) => errors,
    };
    let e = err(r#"sites = ["bbc", "reuters"]"#);
    assert_eq!(e[0].key.as_deref(), Some("sites"));
    assert!(
        e[0].message.contains("reuters") && e[0].message.contains("known: auto, bbc, cnn"),
        "{}",
        e[0].message
    );
    let e = err(r#"profiles = "/nonexistent/profiles""#);
    assert_eq!(e[0].key.as_deref(), Some("profiles"));
    let e = err(r#"summary_fallback = "first""#);
    assert!(e[0].message.contains("first"), "{}", e[0].message);
    let e = err("min_chars = 3");
    assert_eq!(e[0].key.as_deref(), Some("min_chars"));
}

#[tokio::test]
async fn a_site_is_added_with_a_profile_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("example.toml"),
        r#"
site = "example"
hosts = ["news.example.org"]
id = ['/story/(\d+)$']
dates = [{ select = "time[datetime]" }]
[[layouts]]
name = "plain"
detect = ["article.story"]
title = ["article.story h1"]
summary = { select = "article.story p.standfirst" }
body = ["article.story p"]
"#,
    )
    .unwrap();
    let page = r#"<html><body><article class="story"><h1>Mayor re-elected</h1><time datetime="2022-05-06T09:00:00Z">6 May</time>
<p class="standfirst">The mayor has won a second term.</p><p>Turnout was the highest for twenty years, officials said on Friday evening after the count.</p><p>Her opponent conceded before midnight.</p></article></body></html>"#;
    let options = format!("profiles = {:?}", dir.path().display().to_string());
    let input = vec![common::page(
        page.as_bytes().to_vec(),
        "https://news.example.org/story/42",
        "20220507000000",
        None,
    )];
    let out = common::run(&options, input).await;
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    let a = &common::articles(&out)[0];
    assert_eq!((a.source.as_str(), a.id.as_str()), ("example", "42"));
    assert_eq!(a.summary, "The mayor has won a second term.");
    assert_eq!(a.published.to_string(), "2022-05-06");
}

#[test]
fn cli_refuses_url_with_several_files() {
    let args = tempora_extract::cli::ExtractArgs {
        site: "auto".into(),
        url: Some("http://www.bbc.co.uk/news/uk-1".into()),
        captured: None,
        summary_fallback: tempora_extract::SummaryFallback::None,
        profiles: None,
        min_document_chars: 100,
        files: vec!["a.html".into(), "b.html".into()],
    };
    let err = tempora_extract::cli::run(args).unwrap_err().to_string();
    assert!(err.contains("one FILE"), "{err}");
}
