//! The `prefetch` stage run alone: each capture it does not pass on is rejected
//! with its reason and counted; one capture per article, the earliest.

mod common;

use std::collections::HashMap;

use common::fixture;
use tempora_engine::testing::{run_stage, StageOutput};
use tempora_engine::{PipelineFile, Plan, Registry, StageConfig};
use tempora_records::{Capture, Record};

fn capture(url: &str, timestamp: &str) -> Record {
    Record::Capture(Box::new(Capture {
        url: url.into(),
        timestamp: timestamp.parse().unwrap(),
        status: Some(200),
        mime: "text/html".into(),
        digest: "D".into(),
        length: None,
        source: "captures".into(),
    }))
}

/// The pipeline around `prefetch`: captures -> wanted -> pages -> articles ->
/// unseen -> split -> write, with `sets` as `[pipeline.sets]`.
fn pipeline(decides_for: &str, sets: &str, exclude: &str) -> String {
    format!(
        r#"
[pipeline]
cutoff = 2019-12-31
[pipeline.sets]
{sets}

[stages.captures]
kind = "test-generate"
count = 0

[stages.wanted]
kind = "prefetch"
inputs = ["captures"]
decides_for = {decides_for}

[stages.pages]
kind = "wayback-fetch"
inputs = ["wanted"]

[stages.articles]
kind = "extract"
inputs = ["pages"]
sites = ["bbc"]

[stages.unseen]
kind = "exclude"
inputs = ["articles"]
{exclude}

[stages.split]
kind = "split"
inputs = ["unseen"]

[stages.write]
kind = "test-count"
inputs = ["split.in_distribution", "split.future"]
"#
    )
}

const SETS: &str = r#"
in_distribution = { from = 2010-01-01, to = 2017-12-31 }
future = { from = "after_cutoff", to = 2022-12-31 }
"#;

fn registry() -> Registry {
    let mut kinds = tempora_engine::builtin::test_kinds();
    kinds.extend(tempora_extract::kinds());
    kinds.extend(tempora_filter::kinds());
    kinds.extend(tempora_split::kinds());
    kinds.extend(tempora_wayback::stages::kinds());
    Registry::new(kinds)
}

/// The plan of `text`, or every problem in words.
fn plan(text: &str) -> Result<Plan, String> {
    let file = PipelineFile::parse("test.toml", text, &[]).map_err(|e| e.to_string())?;
    Plan::new(file, &registry()).map_err(|e| e.to_string())
}

/// Every problem of `text` in words; the plan must fail.
fn problems(text: &str) -> String {
    match plan(text) {
        Ok(_) => panic!("the plan was made:\n{text}"),
        Err(e) => e,
    }
}

/// The `wanted` stage of `text`, linked by the plan, and the pipeline's settings.
fn linked(text: &str) -> (Box<dyn StageConfig>, tempora_engine::PipelineContext) {
    let mut plan = plan(text).unwrap();
    let at = plan.stages.iter().position(|s| s.name == "wanted").unwrap();
    (plan.stages.swap_remove(at).config, plan.context)
}

async fn run(text: &str, input: Vec<Record>) -> StageOutput {
    let (config, ctx) = linked(text);
    run_stage(config, &ctx, input, HashMap::new())
        .await
        .unwrap()
}

fn passed(out: &StageOutput) -> Vec<(String, String)> {
    out.out()
        .iter()
        .map(|r| match r {
            Record::Capture(c) => (c.timestamp.to_string(), c.url.clone()),
            other => panic!("not a capture: {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn one_capture_per_article_the_earliest_and_non_articles_are_skipped() {
    let input = vec![
        capture(
            "https://www.bbc.com/news/world-us-canada-55000001",
            "20201120000000",
        ),
        capture(
            "http://www.bbc.co.uk/news/world-us-canada-55000001?at_medium=RSS",
            "20201119000000",
        ),
        capture(
            "http://bbc.co.uk:80/news/world-us-canada-55000001",
            "20201121000000",
        ),
        capture(
            "https://www.bbc.co.uk/news/live/world-us-canada-55000002",
            "20201119000000",
        ),
        capture("https://www.bbc.co.uk/news/world/europe", "20201119000000"),
        capture(
            "https://www.cnn.com/2020/11/19/politics/story/index.html",
            "20201119000000",
        ),
    ];
    let xsum = format!("xsum_split = {:?}", fixture("exclude/xsum-split.json"));
    let out = run(&pipeline(r#"["articles"]"#, SETS, &xsum), input).await;
    assert_eq!(
        passed(&out),
        [(
            "20201119000000".to_string(),
            "http://www.bbc.co.uk/news/world-us-canada-55000001?at_medium=RSS".to_string()
        )]
    );
    let counters = out.stats.counters();
    assert_eq!(counters["skipped_duplicate"], 2);
    assert_eq!(counters["skipped_not_article"], 3);
    // Each kind of page under its own key, as `extract` counts it.
    assert_eq!(counters["not_article: live_page"], 1);
    assert_eq!(counters["not_article: no_article_id"], 1);
    assert_eq!(counters["not_article: no_site_profile"], 1);
    assert_eq!(counters["to_fetch"], 1);
    let reasons: Vec<&str> = out.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert!(
        reasons.contains(&"not an article: live page, not an article"),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("no site profile for `www.cnn.com`")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("no bbc article id")),
        "{reasons:?}"
    );
    assert!(out.rejected.iter().all(|r| r.location.is_some()));
}

#[tokio::test]
async fn a_duplicate_names_the_capture_chosen_whatever_the_order_it_came_in() {
    let urls = [
        (
            "https://www.bbc.com/news/uk-politics-11325640",
            "20101007000000",
        ),
        (
            "http://www.bbc.co.uk/news/mobile/uk-politics-11325640",
            "20101006000000",
        ),
        (
            "http://www.bbc.co.uk/news/uk-politics-11325640",
            "20101005000000",
        ),
        (
            "http://www.bbc.co.uk/news/uk-politics-11325640?at_medium=RSS",
            "20101109000000",
        ),
    ];
    let xsum = format!("xsum_split = {:?}", fixture("exclude/xsum-split.json"));
    let text = pipeline(r#"["articles"]"#, SETS, &xsum);
    let mut rejected = Vec::new();
    for order in [[0, 1, 2, 3], [3, 0, 1, 2], [1, 3, 2, 0], [2, 1, 0, 3]] {
        let input = order
            .iter()
            .map(|&i| capture(urls[i].0, urls[i].1))
            .collect();
        let out = run(&text, input).await;
        assert_eq!(
            passed(&out),
            [(urls[2].1.to_string(), urls[2].0.to_string())]
        );
        let mut reasons: Vec<(Option<String>, String)> = out
            .rejected
            .iter()
            .map(|r| (r.location.clone(), r.reason.clone()))
            .collect();
        reasons.sort();
        assert_eq!(reasons.len(), 3, "{reasons:?}");
        assert!(
            reasons
                .iter()
                .all(|(_, r)| r.ends_with(&format!("{} {}", urls[2].1, urls[2].0))),
            "each duplicate names the capture chosen: {reasons:?}"
        );
        rejected.push(reasons);
    }
    assert!(rejected.windows(2).all(|w| w[0] == w[1]), "{rejected:?}");
}

/// Every spelling of one CNN story's URL: index page or not, host, scheme, query.
const CNN_VARIANTS: [&str; 7] = [
    "https://www.cnn.com/2015/04/02/us/library-late-book-returned/index.html",
    "http://www.cnn.com/2015/04/02/us/library-late-book-returned/",
    "https://cnn.com/2015/04/02/us/library-late-book-returned",
    "https://edition.cnn.com/2015/04/02/us/library-late-book-returned/index.html",
    "http://us.cnn.com/2015/04/02/us/library-late-book-returned/index.html?iid=ob_lockedrail",
    "https://www.cnn.com/2015/04/02/us/library-late-book-returned/index.html?eref=rss_topstories",
    "http://edition.cnn.com:80/2015/04/02/us/library-late-book-returned/index.htm",
];

#[tokio::test]
async fn every_spelling_of_a_cnn_story_is_one_article_to_fetch_and_to_exclude() {
    let text = pipeline(r#"["articles"]"#, SETS, "cnndm_urls = []")
        .replace(r#"sites = ["bbc"]"#, r#"sites = ["cnn"]"#)
        .replace(
            "cnndm_urls = []",
            &format!("xsum_split = {:?}", fixture("exclude/xsum-split.json")),
        );
    let input: Vec<Record> = CNN_VARIANTS
        .iter()
        .enumerate()
        .map(|(i, url)| capture(url, &format!("2015040300000{i}")))
        .collect();
    let out = run(&text, input).await;
    assert_eq!(
        passed(&out),
        [("20150403000000".to_string(), CNN_VARIANTS[0].to_string())]
    );
    assert_eq!(out.stats.counters()["skipped_duplicate"], 6);
    assert!(
        out.rejected.iter().all(|r| r
            .reason
            .contains("cnn article /2015/04/02/us/library-late-book-returned:")),
        "{:?}",
        out.rejected
    );

    // The story is in CNN/DailyMail's list: whichever spelling is captured first,
    // it is excluded before fetching.
    let lists = format!(
        "cnndm_urls = [{:?}]",
        fixture("exclude/cnndm-test-urls.txt")
    );
    let text = pipeline(r#"["articles", "unseen"]"#, SETS, &lists)
        .replace(r#"sites = ["bbc"]"#, r#"sites = ["cnn"]"#);
    for url in CNN_VARIANTS {
        let out = run(&text, vec![capture(url, "20150403000000")]).await;
        assert!(passed(&out).is_empty(), "{url}");
        assert_eq!(out.stats.counters()["skipped_excluded"], 1, "{url}");
    }
}

#[tokio::test]
async fn exclusion_and_windows_decide_before_fetching_with_the_stages_own_options() {
    let xsum = format!("xsum_split = {:?}", fixture("exclude/xsum-split.json"));
    let text = pipeline(r#"["articles", "unseen", "split"]"#, SETS, &xsum);
    let input = vec![
        // In XSum train.
        capture(
            "http://www.bbc.co.uk/news/uk-politics-35232142",
            "20160105000000",
        ),
        // Captured before 2010: published before every window.
        capture("http://www.bbc.co.uk/news/uk-8011268", "20090422000000"),
        // Its id says 2018-2019, captured in 2019: in no window.
        capture("http://www.bbc.co.uk/news/uk-46000001", "20190301000000"),
        // The same id captured in 2021: the id still says 2018-2019.
        capture("https://www.bbc.com/news/uk-46000002", "20210301000000"),
        // Published after the cutoff: fetched, whatever a feed may say of it.
        capture(
            "https://www.bbc.co.uk/news/world-us-canada-55000003",
            "20201201000000",
        ),
        capture(
            "https://www.bbc.co.uk/news/world-us-canada-55000004",
            "20201201000000",
        ),
    ];
    let out = run(&text, input.clone()).await;
    let urls: Vec<String> = passed(&out).into_iter().map(|(_, u)| u).collect();
    assert_eq!(
        urls,
        [
            "https://www.bbc.co.uk/news/world-us-canada-55000003",
            "https://www.bbc.co.uk/news/world-us-canada-55000004"
        ]
    );
    let counters = out.stats.counters();
    assert_eq!(counters["skipped_excluded"], 1);
    assert_eq!(counters["skipped_outside_windows"], 3);
    let reasons: Vec<&str> = out.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("in XSum train (id 35232142)")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("in no window")),
        "{reasons:?}"
    );

    // A new cutoff moves the windows prefetch follows, with no copy to update:
    // the 2019 capture (id of 2018-2019) now falls in `future`.
    let moved = text.replace("cutoff = 2019-12-31", "cutoff = 2017-12-31");
    let out = run(&moved, input.clone()).await;
    assert_eq!(out.stats.counters()["skipped_outside_windows"], 1);

    // Deciding only for `articles`: nothing is excluded or outside a window.
    let out = run(&pipeline(r#"["articles"]"#, SETS, &xsum), input).await;
    assert_eq!(passed(&out).len(), 6);
}

#[test]
fn decides_for_must_name_stages_after_it_of_kinds_it_can_stand_for() {
    let xsum = format!("xsum_split = {:?}", fixture("exclude/xsum-split.json"));
    let err = problems(&pipeline(r#"["articles", "nowhere"]"#, SETS, &xsum));
    assert!(
        err.contains("stages.wanted.decides_for: unknown stage `nowhere`"),
        "{err}"
    );
    let err = problems(&pipeline(r#"["unseen", "split"]"#, SETS, &xsum));
    assert!(err.contains("name the `extract` stage"), "{err}");
    let err = problems(&pipeline(r#"["articles", "pages"]"#, SETS, &xsum));
    assert!(err.contains("`pages` is a `wayback-fetch` stage"), "{err}");
    let err = problems(&pipeline(r#"["articles", "captures"]"#, SETS, &xsum));
    assert!(
        err.contains("`captures` is a `test-generate` stage"),
        "{err}"
    );
    let err = problems(&pipeline("[]", SETS, &xsum));
    assert!(err.contains("stages.wanted.decides_for"), "{err}");
    // An `exclude` stage that prefetch does not feed (it reads `captures` directly).
    let upstream = pipeline(r#"["articles", "unseen"]"#, SETS, &xsum).replace(
        "[stages.unseen]\nkind = \"exclude\"\ninputs = [\"articles\"]",
        "[stages.unseen]\nkind = \"exclude\"\ninputs = [\"captures\"]",
    );
    let err = problems(&upstream);
    assert!(
        err.contains("`unseen` does not read what this stage passes on"),
        "{err}"
    );
    // A stage named whose own options are wrong: its problem alone, at its key,
    // not a second one at `decides_for` ("unknown stage", "name the extract stage").
    let broken = pipeline(r#"["articles", "unseen"]"#, SETS, &xsum)
        .replace("sites = [\"bbc\"]", "sites = [\"bbc\"]\nsights = 1");
    let err = problems(&broken);
    assert!(err.contains("stages.articles.sights"), "{err}");
    assert!(err.contains("1 error"), "{err}");
    assert!(!err.contains("decides_for"), "{err}");
    // Every problem at once, each with its line.
    let err = problems(&pipeline(r#"["nowhere", "pages"]"#, SETS, &xsum));
    assert!(err.contains("3 errors"), "{err}");
    assert!(err.contains("line 17: stages.wanted.decides_for"), "{err}");
}

#[tokio::test]
async fn an_article_is_decided_once_the_watermark_passes_its_capture_and_exactly() {
    use tempora_engine::testing::run_stage_fed;
    use tempora_engine::Input;
    let bbc = |id: u32| format!("https://www.bbc.co.uk/news/uk-{id}");
    let batch = |rs: Vec<Record>| Input::Records(rs);
    let input = vec![
        // Listed in the January chunk: article 52000002, and a late capture of 52000001.
        batch(vec![
            capture(&bbc(52_000_002), "20200110000000"),
            capture(&bbc(52_000_001), "20200120000000"),
        ]),
        mark("20200201000000"),
        // February: an earlier capture of neither can come any more; 52000001's
        // February capture is a duplicate; a new article 52000000.
        batch(vec![
            capture(&bbc(52_000_001), "20200205000000"),
            capture(&bbc(52_000_000), "20200210000000"),
        ]),
    ];
    let xsum = format!("xsum_split = {:?}", fixture("exclude/xsum-split.json"));
    let (config, ctx) = linked(&pipeline(r#"["articles"]"#, SETS, &xsum));
    let out = run_stage_fed(config, &ctx, input, HashMap::new())
        .await
        .unwrap();
    // Decided at the watermark (by id: 52000001, 52000002), then the rest at the
    // end; without the watermark all three would go out at the end, by id.
    assert_eq!(
        passed(&out),
        [
            ("20200120000000".to_string(), bbc(52_000_001)),
            ("20200110000000".to_string(), bbc(52_000_002)),
            ("20200210000000".to_string(), bbc(52_000_000)),
        ]
    );
    assert_eq!(out.stats.counters()["skipped_duplicate"], 1);
}

/// A small deterministic generator (xorshift), for shuffles the test can repeat.
struct Shuffle(u64);

impl Shuffle {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.next(i + 1));
        }
    }
}

#[tokio::test]
async fn the_choice_is_the_same_whatever_order_the_listing_comes_in() {
    use tempora_engine::testing::run_stage_fed;
    use tempora_engine::Input;
    let xsum = format!("xsum_split = {:?}", fixture("exclude/xsum-split.json"));
    let text = pipeline(r#"["articles"]"#, SETS, &xsum);
    let hosts = [
        "https://www.bbc.co.uk",
        "http://www.bbc.com",
        "https://bbc.co.uk",
    ];
    for seed in 1..=8u64 {
        let mut rng = Shuffle(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        // 40 articles, each captured 1-4 times under several hosts, in 2020;
        // some captures at the same second (ties go to the smaller URL).
        let mut captures = Vec::new();
        for id in 0..40u32 {
            for _ in 0..=rng.next(4) {
                let day = 1 + rng.next(28);
                let month = 1 + rng.next(6);
                let second = rng.next(2);
                let url = format!("{}/news/uk-{}", hosts[rng.next(3)], 52_000_000 + id);
                captures.push((format!("2020{month:02}{day:02}00000{second}"), url));
            }
        }
        let records = |cs: &[(String, String)]| cs.iter().map(|(t, u)| capture(u, t)).collect();
        // All at once, in any order.
        let mut all = captures.clone();
        rng.shuffle(&mut all);
        let (config, ctx) = linked(&text);
        let once = run_stage_fed(
            config,
            &ctx,
            vec![Input::Records(records(&all))],
            HashMap::new(),
        )
        .await
        .unwrap();
        // Month by month (every host of a month before the next, in any order
        // within it), a watermark after each month.
        let mut fed = Vec::new();
        for month in 1..=6 {
            let mut chunk: Vec<(String, String)> = captures
                .iter()
                .filter(|(t, _)| t[4..6] == format!("{month:02}"))
                .cloned()
                .collect();
            rng.shuffle(&mut chunk);
            fed.push(Input::Records(records(&chunk)));
            fed.push(mark(&format!("2020{:02}01000000", month + 1)));
        }
        let (config, ctx) = linked(&text);
        let streamed = run_stage_fed(config, &ctx, fed, HashMap::new())
            .await
            .unwrap();
        let sorted = |out: &StageOutput| {
            let mut p = passed(out);
            p.sort();
            p
        };
        assert_eq!(sorted(&streamed), sorted(&once), "seed {seed}");
        // The earliest capture of each article, ties to the smaller URL.
        let mut earliest: std::collections::BTreeMap<String, (String, String)> =
            std::collections::BTreeMap::new();
        for (t, u) in &captures {
            let id = u.rsplit('-').next().unwrap().to_string();
            let e = earliest.entry(id).or_insert_with(|| (t.clone(), u.clone()));
            *e = e.clone().min((t.clone(), u.clone()));
        }
        let mut want: Vec<(String, String)> = earliest.into_values().collect();
        want.sort();
        assert_eq!(sorted(&once), want, "seed {seed}");
    }
}

/// The watermark at a 14-digit capture time.
fn mark(timestamp: &str) -> tempora_engine::Input {
    tempora_engine::Input::Watermark(tempora_engine::Watermark(
        tempora_wayback_format::timestamp::to_utc(timestamp).unwrap(),
    ))
}
