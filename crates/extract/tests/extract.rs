//! The `extract` stage's behaviour on our fixture pages and on bad input: summary
//! fallbacks, the Wayback viewer, charsets, non-articles, options and profiles.

mod common;

use tempora_records::Record;

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
async fn fallback_title_pairs_the_whole_document_with_the_headline() {
    let run = |fallback: &'static str| async move {
        let out = common::run(
            &format!("summary_fallback = \"{fallback}\""),
            vec![common::fixture_page(CNN_2022)],
        )
        .await;
        common::articles(&out).remove(0)
    };
    let titled = run("title").await;
    let described = run("description").await;
    assert_eq!(titled.summary, titled.title);
    assert_eq!(
        titled.summary_source,
        Some(tempora_records::SummarySource::Title)
    );
    // Unlike `lead`, nothing leaves the document.
    assert_eq!(titled.document, described.document);
    assert_eq!(
        described.summary_source,
        Some(tempora_records::SummarySource::Description)
    );
    assert_eq!(
        run("lead").await.summary_source,
        Some(tempora_records::SummarySource::Lead)
    );
}

#[tokio::test]
async fn pages_with_highlights_keep_them_whatever_the_fallback() {
    let out = common::run(
        r#"summary_fallback = "title""#,
        vec![common::fixture_page("pages/cnn/zn-body-2021-harris.html")],
    )
    .await;
    let a = &common::articles(&out)[0];
    assert_ne!(a.summary, a.title);
    assert_eq!(
        a.summary_source,
        Some(tempora_records::SummarySource::Highlights)
    );
    // CNN's section is the URL's own.
    assert_eq!((a.source.as_str(), a.section.as_str()), ("cnn", "politics"));
}

#[tokio::test]
async fn every_bbc_section_is_source_bbc_with_its_section_counted() {
    let files = [
        ("pages/bbc/story-body-2014-biden.html", "news"),
        ("pages/bbc/sport-story-body-2015-football.html", "sport"),
        ("pages/bbc/sport-qa-2021-tennis.html", "sport"),
        ("pages/bbc/sport-articles-2024-golf.html", "sport"),
        ("pages/bbc/sport-stm-2009-cricket-cp1252.html", "sport"),
        ("pages/bbc/newsround-2019-climate.html", "newsround"),
        ("pages/bbc/newsbeat-2016-festival.html", "newsbeat"),
        ("pages/bbc/cymrufyw-2016-eisteddfod.html", "cymrufyw"),
        ("pages/bbc/newyddion-2012-ysgol.html", "cymrufyw"),
    ];
    let input = files.iter().map(|(f, _)| common::fixture_page(f)).collect();
    let out = common::run("", input).await;
    assert!(out.rejected.is_empty(), "{:?}", out.rejected);
    let articles = common::articles(&out);
    assert_eq!(articles.len(), files.len());
    for (a, (file, section)) in articles.iter().zip(files) {
        assert_eq!(a.source, "bbc", "{file}");
        assert_eq!(a.section, section, "{file}");
        assert_eq!(
            a.summary_source,
            Some(tempora_records::SummarySource::Intro),
            "{file}"
        );
    }
    let counters = out.stats.counters();
    for (section, n) in [
        ("news", 1),
        ("sport", 4),
        ("newsround", 1),
        ("newsbeat", 1),
        ("cymrufyw", 2),
    ] {
        assert_eq!(
            counters.get(&format!("section bbc/{section}")),
            Some(&n),
            "{counters:?}"
        );
    }
}

#[tokio::test]
async fn sport_pages_keep_fact_boxes_and_drop_pull_quotes_players_and_other_dates() {
    let out = common::run(
        "",
        vec![common::fixture_page(
            "pages/bbc/sport-story-body-2015-football.html",
        )],
    )
    .await;
    let a = &common::articles(&out)[0];
    let lines: Vec<&str> = a.document.lines().collect();
    // The summary is the introduction, not repeated in the document.
    assert!(a.summary.starts_with("Kettering Rovers have been saved"));
    assert!(!a.document.contains("have been saved from liquidation"));
    // The fact box is story text, as XSum keeps it.
    assert!(
        lines.contains(&"5 March - A winding-up order is granted"),
        "{lines:?}"
    );
    // The pull quote repeats a paragraph: it appears once.
    assert_eq!(a.document.matches("one bad week").count(), 1, "{lines:?}");
    for gone in [
        "Media playback",
        "Rockingham Lane since",
        "How the crisis",
        "Fixtures to be honoured",
        "BBC Sport",
    ] {
        assert!(!a.document.contains(gone), "{gone} in {lines:?}");
    }
    // The page's own date, not a related story's (5 March).
    assert_eq!(a.published.to_string(), "2015-03-14");
}

#[tokio::test]
async fn sport_match_pages_are_articles_only_with_a_report() {
    let page = |intro: &str| {
        format!(
            r#"<html><head><meta property="rnews:datePublished" content="2017/11/18 17:01:00"></head><body>
<article class="story"><h1 class="story-headline">Corrin 2-2 Whitmoor</h1>
<div class="sp-c-fixture"><span>Corrin</span><span>2</span><span>2</span><span>Whitmoor</span></div>
<div id="lx-stream"><p>Full-time.</p></div>
<div class="story-body sp-story-body">{intro}<p>Corrin came from two goals down to rescue a point with two headers in the final ten minutes of the match.</p>
<table class="sp-story-body__table"><tr><td>Possession</td><td>54%</td></tr></table></div></article></body></html>"#
        )
        .into_bytes()
    };
    let url = "http://www.bbc.co.uk/sport/football/41987654";
    let with_report =
        page(r#"<p class="sp-story-body__introduction">Corrin fought back to draw.</p>"#);
    let input = vec![
        common::page(with_report, url, "20171118180500", None),
        common::page(page(""), url, "20171118180500", None),
    ];
    let out = common::run("", input).await;
    let articles = common::articles(&out);
    assert_eq!(articles.len(), 1, "{:?}", out.rejected);
    assert_eq!(articles[0].summary, "Corrin fought back to draw.");
    assert!(
        out.rejected[0].reason.contains("live text"),
        "{}",
        out.rejected[0].reason
    );
}

#[tokio::test]
async fn sport_non_articles_are_rejected_naming_what_they_are() {
    let html = |s: &str| s.as_bytes().to_vec();
    let gallery = r#"<html><body><article class="story"><h1 class="story-headline">In pictures: the week in sport</h1><div class="gallery"><figure><img src="a.jpg"><figcaption>A diver mid-air over the pool in Budapest during the championships.</figcaption></figure></div></article></body></html>"#;
    let cases = [
        (
            "https://www.bbc.co.uk/sport/football/36123456",
            gallery,
            "picture gallery",
        ),
        (
            "https://www.bbc.co.uk/sport/football/live/44123456",
            "<html></html>",
            "live page",
        ),
        (
            "https://www.bbc.co.uk/sport/av/cricket/44123457",
            "<html></html>",
            "video page",
        ),
        (
            "https://www.bbc.co.uk/sport/football/premier-league/table",
            "<html></html>",
            "tables page",
        ),
        (
            "https://www.bbc.co.uk/sport/football/scores-fixtures/2021-05-01",
            "<html></html>",
            "fixtures",
        ),
        (
            "https://www.bbc.co.uk/sport/football",
            "<html></html>",
            "index page",
        ),
        (
            "https://www.bbc.co.uk/sport/0/football/",
            "<html></html>",
            "index page",
        ),
        (
            "https://www.bbc.co.uk/newsround",
            "<html></html>",
            "index page",
        ),
        (
            "https://www.bbc.co.uk/cymrufyw/gwleidyddiaeth",
            "<html></html>",
            "index page",
        ),
    ];
    let input = cases
        .iter()
        .map(|(url, body, _)| common::page(html(body), url, "20210101000000", None))
        .collect();
    let out = common::run("", input).await;
    assert!(out.out().is_empty(), "{:?}", out.out());
    assert_eq!(out.rejected.len(), cases.len());
    for (rejected, (url, _, want)) in out.rejected.iter().zip(cases) {
        assert!(
            rejected.reason.contains(want),
            "{url}: expected `{want}` in `{}`",
            rejected.reason
        );
    }
}

#[tokio::test]
async fn a_bbc_page_without_a_bold_intro_follows_the_chosen_fallback() {
    // The bold intro *is* BBC's summary (XSum's rule): without it the page has none,
    // and is rejected unless the pipeline chooses what stands in for BBC.
    let file = "pages/bbc/text-block-2021-no-bold-intro.html";
    for options in [
        "",
        r#"summary_fallback = "none""#,
        r#"summary_fallback = { cnn = "title" }"#,
    ] {
        let out = common::run(options, vec![common::fixture_page(file)]).await;
        assert!(out.out().is_empty(), "{options}");
        assert!(
            out.rejected[0]
                .reason
                .contains("no bold introductory sentence"),
            "{options}: {}",
            out.rejected[0].reason
        );
        assert_eq!(
            out.stats.counters().get("rejected: no_bold_intro"),
            Some(&1)
        );
    }
    let page = || vec![common::fixture_page(file)];

    // The opening paragraph stands in, out of the document, and the article says so.
    for options in [
        r#"summary_fallback = "first_paragraph""#,
        r#"summary_fallback = { bbc = "first_paragraph", cnn = "title" }"#,
    ] {
        let out = common::run(options, page()).await;
        let a = &common::articles(&out)[0];
        assert_eq!(
            a.summary_source,
            Some(tempora_records::SummarySource::FirstParagraph),
            "{options}"
        );
        assert!(!a.summary.is_empty() && !a.summary.contains('\n'));
        assert!(!a.document.contains(&a.summary), "{options}");
        assert_eq!(
            out.stats.counters().get("summary_source first_paragraph"),
            Some(&1)
        );
    }
    // A page with its bold intro keeps it whatever the fallback.
    let out = common::run(
        r#"summary_fallback = "first_paragraph""#,
        vec![common::fixture_page(
            "pages/bbc/text-block-2020-johnson.html",
        )],
    )
    .await;
    let a = &common::articles(&out)[0];
    assert_eq!(
        a.summary_source,
        Some(tempora_records::SummarySource::Intro)
    );
    assert_eq!(out.stats.counters().get("summary_source intro"), Some(&1));
}

#[tokio::test]
async fn older_bbc_layouts_take_no_fallback() {
    // A 2009 `.stm` table page whose first paragraph is not bold: the layout allows
    // no fallback (its intro is always bold), whatever the pipeline chooses.
    let page = r#"<html><head><meta name="OriginalPublicationDate" content="2009/04/21 19:50:44"></head><body><table><tr><td class="storybody"><h1>Council approves bridge</h1>
<p>A new bridge over the river has been approved by the council after a two-year campaign.</p>
<p>Work is expected to start in the spring and to last eighteen months, the council said.</p></td></tr></table></body></html>"#;
    let input = vec![common::page(
        page.as_bytes().to_vec(),
        "http://news.bbc.co.uk/2/hi/uk_news/8011001.stm",
        "20090422000000",
        None,
    )];
    let out = common::run(r#"summary_fallback = "first_paragraph""#, input).await;
    assert!(out.out().is_empty());
    assert_eq!(
        out.stats.counters().get("rejected: no_bold_intro"),
        Some(&1),
        "{:?}",
        out.rejected
    );
}

#[test]
fn a_fallback_for_a_site_not_extracted_is_refused() {
    let errors =
        match common::configure("sites = [\"bbc\"]\nsummary_fallback = { cnn = \"title\" }") {
            Ok(_) => panic!("accepted"),
            Err(errors) => errors,
        };
    assert_eq!(errors[0].key.as_deref(), Some("summary_fallback"));
    assert!(errors[0].message.contains("`cnn`"), "{}", errors[0].message);
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
    // The id is the story's path without `index.html`, as its other spellings give it.
    assert_eq!(
        a.id,
        "/2021/03/06/politics/kamala-harris-tie-breaking-vote-covid-relief"
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
    // A viewer URL: the article's URL comes back from the viewer's own markup.
    let viewer_url = "https://web.archive.org/web/20210121093012/https://www.bbc.co.uk/news/world-us-canada-55738746";
    let out = common::run(
        "",
        vec![common::page(body, viewer_url, "20210121093012", None)],
    )
    .await;
    let a = &common::articles(&out)[0];
    assert_eq!(a.url, "https://www.bbc.co.uk/news/world-us-canada-55738746");
    assert_eq!(a.id, "55738746");
    assert_eq!(a.captured.as_deref(), Some("20210121093012"));
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
            Record::Capture(Box::new(tempora_records::Capture {
                url: "http://www.bbc.co.uk/news/uk-4".into(),
                timestamp: "20150101000000".parse().unwrap(),
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

/// A story page in BBC's 2020+ text-block layout: extracted wherever no `reject`
/// rule names its URL.
const BBC_STORY: &str = r#"<html><head><script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2024-03-01T10:00:00Z"}</script></head>
<body><article><h1 id="main-heading">Council approves new bridge</h1>
<div data-component="text-block"><p><b>A new bridge over the river has been approved by the council after a two-year campaign.</b></p></div>
<div data-component="text-block"><p>Work is expected to start in the spring and to last eighteen months, the council said on Friday.</p></div>
<div data-component="text-block"><p>Residents had asked for a crossing since the old ferry stopped running.</p></div>
</article></body></html>"#;

/// A story page in CNN's 2018+ layout with its date in the page.
const CNN_STORY: &str = r#"<html><head><meta property="article:published_time" content="2019-05-01T10:00:00Z"></head>
<body><h1 class="headline__text">Council approves new bridge</h1><div class="article__content">
<p class="paragraph">A new bridge over the river has been approved by the council after a two-year campaign, officials said.</p>
<p class="paragraph">Work is expected to start in the spring and to last eighteen months, the council said on Wednesday.</p>
<p class="paragraph">Residents had asked for a crossing since the old ferry stopped running.</p></div></body></html>"#;

#[tokio::test]
async fn every_page_a_site_does_not_want_says_what_it_is() {
    let cases = [
        (
            "https://www.bbc.com/mundo/noticias-internacional-68000001",
            BBC_STORY,
            "world_service",
        ),
        (
            "https://www.bbc.com/arabic/articles/c0abc123def4",
            BBC_STORY,
            "world_service",
        ),
        (
            "http://www.bbc.co.uk/hindi/news/2012/10/121016_x.shtml",
            BBC_STORY,
            "world_service",
        ),
        (
            "http://news.bbc.co.uk/hi/spanish/news/newsid_8011268/8011268.stm",
            BBC_STORY,
            "world_service",
        ),
        (
            "https://www.bbc.com/future/article/20240301-why-bridges-sway",
            BBC_STORY,
            "feature_section",
        ),
        (
            "https://www.bbc.com/travel/article/20240301-a-town-by-the-river",
            BBC_STORY,
            "feature_section",
        ),
        (
            "https://www.bbc.com/worklife/article/20200101-the-commute",
            BBC_STORY,
            "feature_section",
        ),
        (
            "https://www.bbc.com/culture/article/20240301-a-film-about-bridges",
            BBC_STORY,
            "feature_section",
        ),
        (
            "https://www.bbc.co.uk/news/extra/aBcD3fGh1j/the-river-crossing",
            BBC_STORY,
            "longform",
        ),
        (
            "https://www.bbc.co.uk/news/live/uk-68000002",
            BBC_STORY,
            "live_page",
        ),
        (
            "https://www.bbc.co.uk/news/in-pictures-68000003",
            BBC_STORY,
            "gallery",
        ),
        (
            "https://www.bbc.co.uk/sport/football/av/68000004",
            BBC_STORY,
            "video",
        ),
        (
            "https://www.bbc.com/reel/video/p0abc123/how-bridges-are-built",
            BBC_STORY,
            "video",
        ),
        ("https://www.bbc.co.uk/news/uk", BBC_STORY, "index_page"),
        (
            "https://cnnespanol.cnn.com/2019/05/01/un-puente-nuevo/",
            CNN_STORY,
            "other_language",
        ),
        (
            "https://www.cnn.com/interactive/2019/05/world/bridges/",
            CNN_STORY,
            "interactive",
        ),
        (
            "https://edition.cnn.com/videos/world/2019/05/01/bridge.cnn",
            CNN_STORY,
            "video",
        ),
        (
            "https://www.cnn.com/2019/05/01/world/gallery/bridges/index.html",
            CNN_STORY,
            "gallery",
        ),
        (
            "https://www.cnn.com/world/live-news/bridge-05-01-19/index.html",
            CNN_STORY,
            "live_page",
        ),
        (
            "http://www.cnn.com/TRANSCRIPTS/1905/01/sitroom.01.html",
            CNN_STORY,
            "transcript",
        ),
        ("https://www.cnn.com/politics", CNN_STORY, "index_page"),
        ("http://www.cnn.com/2015/", CNN_STORY, "index_page"),
        (
            "https://edition.cnn.com/2015/04/01/",
            CNN_STORY,
            "index_page",
        ),
        (
            "https://us.cnn.com/2015/04/index.html",
            CNN_STORY,
            "index_page",
        ),
        // Nothing names these: no article id, and a page no layout recognises.
        (
            "https://www.bbc.co.uk/news/topics/c0abc/bridges",
            BBC_STORY,
            "no_article_id",
        ),
        (
            "https://www.bbc.co.uk/news/uk-68000005",
            "<html><body><div class=\"radio-schedule\"><p>Listings</p></div></body></html>",
            "not_recognised",
        ),
    ];
    for (url, html, key) in cases {
        let input = vec![common::page(
            html.as_bytes().to_vec(),
            url,
            "20240302000000",
            None,
        )];
        let out = common::run("", input).await;
        let counters = out.stats.counters();
        assert_eq!(
            counters.get(&format!("rejected: {key}")),
            Some(&1),
            "{url}: {counters:?} {:?}",
            out.rejected
        );
        assert_eq!(out.rejected.len(), 1, "{url}");
    }
    // The same pages at story URLs are articles: the rules, not the markup, reject them.
    for (url, html) in [
        ("https://www.bbc.co.uk/news/uk-68000006", BBC_STORY),
        (
            "https://www.cnn.com/2019/05/01/world/bridge-approved/index.html",
            CNN_STORY,
        ),
    ] {
        let input = vec![common::page(
            html.as_bytes().to_vec(),
            url,
            "20240302000000",
            None,
        )];
        let out = common::run(r#"summary_fallback = "lead""#, input).await;
        assert!(out.rejected.is_empty(), "{url}: {:?}", out.rejected);
    }
}

#[test]
fn prefetch_and_extract_name_a_page_with_the_same_key() {
    let extractor = tempora_extract::ExtractOptions::default()
        .extractor()
        .unwrap();
    for (url, key) in [
        (
            "https://www.bbc.com/mundo/noticias-68000001",
            "world_service",
        ),
        (
            "https://www.bbc.com/future/article/20240301-x",
            "feature_section",
        ),
        ("https://www.bbc.co.uk/news/extra/aBcD3fGh1j/x", "longform"),
        (
            "https://www.cnn.com/interactive/2019/05/world/x/",
            "interactive",
        ),
        (
            "https://www.reuters.com/world/x-2024-03-01/",
            "no_site_profile",
        ),
        (
            "https://www.bbc.co.uk/news/topics/c0abc/bridges",
            "no_article_id",
        ),
    ] {
        let rejection = extractor.identify(url).unwrap_err();
        assert_eq!(rejection.kind, key, "{url}: {}", rejection.reason);
        assert!(!rejection.reason.is_empty());
    }
}

#[tokio::test]
async fn a_date_in_the_url_dates_the_article_only_where_the_page_states_none() {
    let undated = CNN_STORY.replace(
        r#"<meta property="article:published_time" content="2019-05-01T10:00:00Z">"#,
        "",
    );
    let run = |html: String, url: &'static str| async move {
        let input = vec![common::page(html.into_bytes(), url, "20240302000000", None)];
        common::run(r#"summary_fallback = "lead""#, input).await
    };
    // The page's own date wins over its URL's, and says it is the page's.
    let out = run(
        CNN_STORY.to_string(),
        "https://www.cnn.com/2019/04/30/world/bridge/index.html",
    )
    .await;
    let a = &common::articles(&out)[0];
    assert_eq!(a.published.to_string(), "2019-05-01");
    assert_eq!(
        a.published_source,
        Some(tempora_records::PublishedSource::Page)
    );
    assert!(a.published_at.is_some());
    // No date on the page: the URL's, both shapes, day only.
    for (url, day) in [
        (
            "https://edition.cnn.com/2019/04/30/world/bridge/index.html",
            "2019-04-30",
        ),
        (
            "http://www.cnn.com/2010/WORLD/africa/03/20/nigeria.bridge/index.html",
            "2010-03-20",
        ),
        (
            "http://www.cnn.com/2008/US/03/07/bridge.vote/index.html",
            "2008-03-07",
        ),
    ] {
        let out = run(undated.clone(), url).await;
        let a = &common::articles(&out)[0];
        assert_eq!(a.published.to_string(), day, "{url}");
        assert_eq!(
            a.published_source,
            Some(tempora_records::PublishedSource::Url),
            "{url}"
        );
        assert_eq!(a.published_at, None, "{url}");
    }
    // The old shape gives its section too.
    let out = run(
        undated.clone(),
        "http://www.cnn.com/2010/WORLD/africa/03/20/nigeria.bridge/index.html",
    )
    .await;
    assert_eq!(common::articles(&out)[0].section, "world");
    // Neither the page nor the URL: rejected, though the capture has a time.
    for url in [
        "https://www.cnn.com/world/bridge-approved/index.html",
        "https://www.cnn.com/2019/13/45/world/bridge/index.html",
        "https://www.cnn.com/travel/article/2019/05/bridge/index.html",
    ] {
        let out = run(undated.clone(), url).await;
        assert!(out.out().is_empty(), "{url}");
        assert_eq!(
            out.stats.counters().get("rejected: no_date"),
            Some(&1),
            "{url}"
        );
    }
}
