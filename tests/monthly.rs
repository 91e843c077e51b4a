//! Monthly releases as cron makes them: `pipelines/nightly-bbc.toml` crawls the
//! testkit's model of BBC News in the Archive once, then
//! `pipelines/monthly-bbc.toml` makes a month's release from the pages it kept
//! and the facts of the testkit's Wikidata as read that day, asking the Archive
//! nothing. A release is held back whole until the next month's is made, which
//! reveals it; once out it never changes, not when a fact changes, not when it
//! is run again (refused, naming it); a correction is a version of its own; a
//! month with no article is published empty; a release whose first attempt
//! failed is finished on that attempt's run day; the collection published
//! without the publishers' text rebuilds a release byte for byte.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::SystemTime;

use chrono::{Datelike as _, Months, NaiveDate};
use serde_json::Value;
use tempora_sink::release::{hex, read_key, scoped_key, sha256_file, sha256_hex};
use tempora_testkit::{MockWayback, MockWikidata};

use common::nightly::{live_facts, set, sets_args, tempora};
use common::said::said;
use common::temposum::bbc;
use common::wikidata::{before_and_after, positions};

const MONTHLY: &str = "pipelines/monthly-bbc.toml";

/// The crawl's folder (its WARC files, the facts' reading, the release key),
/// the testkit's services, and the collection of releases in it.
struct Lab {
    dir: tempfile::TempDir,
    archive: MockWayback,
    wd: MockWikidata,
    /// The nightly crawl's `run.json`.
    crawl: Value,
}

impl Lab {
    /// The services (Wikidata with one office changed so far), a release key,
    /// and one night's crawl of the model.
    async fn start() -> Self {
        let archive = MockWayback::start(bbc().corpus.clone()).await.unwrap();
        let (before, _) = before_and_after();
        let wd = MockWikidata::start(before).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("monthly.key"), [5u8; 32]).unwrap();
        let crawled = dir.path().join("crawl");
        let args = common::nightly::args(&archive.endpoint(), dir.path(), &crawled);
        let mut lab = Self {
            dir,
            archive,
            wd,
            crawl: Value::Null,
        };
        lab.ok(&args);
        lab.crawl = json(&crawled.join("run.json"));
        lab
    }

    fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The collection of releases.
    fn out(&self) -> PathBuf {
        self.dir().join("releases")
    }

    /// A release's folder.
    fn release(&self, name: &str) -> PathBuf {
        self.out().join(name)
    }

    /// The collection's card.
    fn card(&self) -> String {
        std::fs::read_to_string(self.out().join("README.md")).unwrap()
    }

    /// `tempora ARGS` with the BBC lab's variables.
    fn tempora(&self, args: &[String]) -> Output {
        tempora(args, &bbc().env)
    }

    /// `tempora ARGS`, which must succeed; what it said.
    fn ok(&self, args: &[String]) -> String {
        let out = self.tempora(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", said(&out));
        said(&out)
    }

    /// The shipped monthly pipeline run on `as_of`, into the collection, with
    /// the lab's key and `extra` `--set`s.
    fn monthly(&self, as_of: NaiveDate, extra: &[(&str, &str)]) -> Vec<String> {
        let mut args = sets_args(MONTHLY, self.dir(), &self.out());
        live_facts(&mut args, self.dir(), &self.wd);
        let key = self.dir().join("monthly.key").display().to_string();
        set(&mut args, "pipeline.release.key", format!("{key:?}"));
        for (key, value) in extra {
            set(&mut args, key, (*value).to_string());
        }
        args.extend(["--as-of".into(), as_of.to_string()]);
        args
    }

    /// The Archive's requests so far.
    fn archive_requests(&self) -> usize {
        self.archive.log().requests().len()
    }
}

/// The first day of `month` (`YYYY-MM`).
fn first_day(month: &str) -> NaiveDate {
    NaiveDate::parse_from_str(&format!("{month}-01"), "%Y-%m-%d").unwrap()
}

/// The month after `month`, `YYYY-MM`.
fn next_month(month: &str) -> String {
    (first_day(month) + Months::new(1))
        .format("%Y-%m")
        .to_string()
}

/// The day `day` of the month after `month`: a run day whose month before,
/// the shipped pipeline's release, is `month`.
fn day_after(month: &str, day: u32) -> NaiveDate {
    first_day(&next_month(month)).with_day(day).unwrap()
}

/// The ids of a JSON lines file's records (none when there is no file).
fn ids(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].to_string())
        .collect()
}

fn json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap()
}

/// The rows of a Parquet file.
fn rows(path: &Path) -> u64 {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tempora_sink::parquet::read_footer(file).unwrap().rows
}

/// Every file under `dir`, hidden ones too, with its SHA-256 and the time it
/// was last written.
fn tree(dir: &Path) -> BTreeMap<String, (String, SystemTime)> {
    let mut files = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            let written = entry.metadata().unwrap().modified().unwrap();
            files.insert(rel, (sha256_file(&path).unwrap(), written));
        }
    }
    files
}

/// The bytes of every file under `dir`.
fn size(dir: &Path) -> u64 {
    tree(dir)
        .keys()
        .map(|f| std::fs::metadata(dir.join(f)).unwrap().len())
        .sum()
}

/// The row of the collection card's table of releases for `release`.
fn table_row<'a>(card: &'a str, release: &str) -> &'a str {
    let start = format!("| `{release}` |");
    card.lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no row for {release} in\n{card}"))
}

/// One fresh run over the crawl's pages with the facts as read now: the
/// monthly pipeline without its release, over the months whose releases judge
/// the same pairs evolving as this run's cutoff does (the offices changed from
/// 2020-05-07 on and a release's cutoff is a year before its month: the
/// releases of June 2020 to May 2021), into `lab/name`. The future articles'
/// ids by month.
fn future_by_month(lab: &Lab, name: &str) -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(MONTHLY)).unwrap();
    let mut file: toml::Table = toml::from_str(&text).unwrap();
    file["pipeline"].as_table_mut().unwrap().remove("release");
    let out = lab.dir().join(name);
    let path = out.with_extension("toml");
    std::fs::write(&path, toml::to_string(&file).unwrap()).unwrap();
    let mut args = sets_args(&path.display().to_string(), lab.dir(), &out);
    live_facts(&mut args, lab.dir(), &lab.wd);
    set(&mut args, "pipeline.cutoff", "2020-01-01".into());
    let window = "{from=2020-06-01,to=2021-05-31}";
    set(&mut args, "pipeline.sets.future", window.into());
    lab.ok(&args);
    let mut months: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in std::fs::read_to_string(out.join("future.jsonl"))
        .unwrap()
        .lines()
    {
        let article: Value = serde_json::from_str(line).unwrap();
        let month = article["published"].as_str().unwrap()[..7].to_string();
        let id = article["id"].to_string();
        months.entry(month).or_default().insert(id);
    }
    months
}

/// The first month of `months` whose next month is one too.
fn two_consecutive(months: &BTreeMap<String, BTreeSet<String>>) -> (String, String) {
    let first = months
        .keys()
        .find(|m| months.contains_key(&next_month(m)))
        .unwrap_or_else(|| panic!("no two consecutive months of future articles: {months:?}"));
    (first.clone(), next_month(first))
}

/// The release `month` made on `as_of`: its record, its dates, its articles
/// (`expected`) held back whole, and the collection's card saying so.
fn assert_made_withheld(lab: &Lab, month: &str, as_of: NaiveDate, expected: &BTreeSet<String>) {
    let dir = lab.release(month);
    let record = json(&dir.join("release.json"));
    let want = (month, month, 1, Value::Null, as_of.to_string(), 1.0);
    let got = &record;
    assert_eq!(
        (
            got["release"].as_str().unwrap(),
            got["month"].as_str().unwrap(),
            got["version"].as_u64().unwrap(),
            got["corrects"].clone(),
            got["run_day"].as_str().unwrap().to_string(),
            got["withhold"].as_f64().unwrap(),
        ),
        want,
        "{record}"
    );
    let dates = &json(&dir.join("run.json"))["dates"];
    assert_eq!(dates["run_day"], as_of.to_string(), "{dates}");
    let start = first_day(month);
    let end = first_day(&next_month(month)).pred_opt().unwrap();
    let resolved: Vec<(&str, String)> = dates["relative"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["key"].as_str().unwrap(),
                d["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let cutoff = start - Months::new(12);
    let expected_dates = [
        ("pipeline.release.month", month.to_string()),
        ("pipeline.cutoff", cutoff.to_string()),
        ("pipeline.sets.future.from", start.to_string()),
        ("pipeline.sets.future.to", end.to_string()),
    ];
    assert_eq!(resolved, expected_dates, "{dates}");
    // Held back whole: the published set is empty, the withheld one is the
    // month's articles of a fresh run.
    assert!(dir.join("withheld.json").is_file());
    assert_eq!(std::fs::read(dir.join("future.jsonl")).unwrap().len(), 0);
    assert_eq!(rows(&dir.join("future.parquet")), 0);
    assert_eq!(&ids(&dir.join("withheld/future.jsonl")), expected);
    assert_eq!(
        rows(&dir.join("withheld/future.parquet")),
        expected.len() as u64
    );
    let card = lab.card();
    assert!(
        table_row(&card, month).contains("| 100%, not yet revealed |"),
        "{card}"
    );
    assert!(
        !card.contains(&format!("config_name: \"{month}\"")),
        "{card}"
    );
    assert!(!lab.out().join(format!("reveals/{month}.json")).exists());
}

/// The release `month` revealed by the next one: its record in `reveals/`
/// holds the release's own key (made from the pipeline's), which its
/// commitment names and which chose what it held back, as `tempora reveal`
/// checks on a copy of the folder; the collection's card loads its files.
fn assert_revealed(lab: &Lab, month: &str) {
    let dir = lab.release(month);
    let reveal = json(&lab.out().join(format!("reveals/{month}.json")));
    let commitment = json(&dir.join("withheld.json"));
    assert_eq!(
        (&reveal["schema"], &reveal["release"]),
        (&Value::from("tempora-reveal/1"), &Value::from(month))
    );
    let master = read_key(&lab.dir().join("monthly.key")).unwrap();
    let key = scoped_key(&master, month);
    assert_eq!(reveal["key"].as_str(), Some(hex(&key).as_str()), "{reveal}");
    assert_eq!(commitment["key_sha256"], sha256_hex(&key), "{commitment}");
    assert_eq!(reveal["files"], commitment["files"]);
    for file in commitment["files"].as_array().unwrap() {
        let path = dir.join(file["path"].as_str().unwrap());
        assert_eq!(file["sha256"], sha256_file(&path).unwrap(), "{file}");
    }
    // `tempora reveal` checks the choice on a copy that is no release.
    let copy = lab.dir().join(format!("copy-{month}"));
    let cp = std::process::Command::new("cp")
        .args(["-r", dir.to_str().unwrap(), copy.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(cp.success());
    std::fs::remove_file(copy.join("release.json")).unwrap();
    let master_path = lab.dir().join("monthly.key").display().to_string();
    let copy_path = copy.display().to_string();
    lab.ok(&["reveal".into(), copy_path, "--key".into(), master_path]);
    let card = lab.card();
    assert!(
        table_row(&card, month).contains("100%, revealed on "),
        "{card}"
    );
    let config = format!(
        "- config_name: \"{month}\"\n  data_files:\n  - split: future_withheld\n    path:\n    - \"{month}/withheld/future.parquet\"\n"
    );
    let default = config.replace("\"\n  data_files", "\"\n  default: true\n  data_files");
    assert!(card.contains(&config) || card.contains(&default), "{card}");
}

/// Run again on a day of the month after `month`: refused, naming the
/// release, writing nothing in it; then its correction, `month.v2`.
fn assert_rerun_refused_then_corrected(lab: &Lab, month: &str) {
    let dir = lab.release(month);
    let before = tree(&dir);
    let as_of = day_after(month, 20);
    let refused = lab.tempora(&lab.monthly(as_of, &[]));
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    let named = format!(
        "release {month} is out ({}",
        dir.join("release.json").display()
    );
    assert!(said(&refused).contains(&named), "{}", said(&refused));
    assert!(tree(&dir) == before, "the refused run wrote in {month}");

    lab.ok(&lab.monthly(as_of, &[("pipeline.release.version", "2")]));
    let v2 = format!("{month}.v2");
    let record = json(&lab.release(&v2).join("release.json"));
    assert_eq!(
        (&record["release"], &record["version"], &record["corrects"]),
        (
            &Value::from(v2.as_str()),
            &Value::from(2),
            &Value::from(month)
        ),
        "{record}"
    );
    assert!(tree(&dir) == before, "the correction wrote in {month}");
    let card = lab.card();
    assert!(
        table_row(&card, &v2).contains(&format!("| 2, corrects `{month}` |")),
        "{card}"
    );
}

/// A release whose first attempt, on the 3rd of the month after `month`, does
/// not publish (`broken`, a `--set`, makes it exit `code` saying `why`) and
/// records its run day; finished on the 20th, its dates are resolved on the
/// 3rd again: the cutoff, written here relative to the run day, is the first
/// attempt's.
fn assert_finished_on_its_first_day(
    lab: &Lab,
    month: &str,
    broken: (&str, &str),
    code: i32,
    why: &str,
) {
    let dir = lab.release(month);
    let (first, again) = (day_after(month, 3), day_after(month, 20));
    let cutoff = ("pipeline.cutoff", "\"run - 400 days\"");
    let attempt = lab.tempora(&lab.monthly(first, &[cutoff, broken]));
    assert_eq!(attempt.status.code(), Some(code), "{}", said(&attempt));
    assert!(said(&attempt).contains(why), "{}", said(&attempt));
    let run = json(&dir.join("run.json"));
    assert_eq!(run["dates"]["run_day"], first.to_string(), "{run}");
    assert!(!dir.join("release.json").exists());

    let said = lab.ok(&lab.monthly(again, &[cutoff]));
    assert!(
        said.contains(&format!("first attempted on {first}")),
        "{said}"
    );
    let record = json(&dir.join("release.json"));
    assert_eq!(record["run_day"], first.to_string(), "{record}");
    let run = json(&dir.join("run.json"));
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["dates"]["run_day"], first.to_string(), "{run}");
    let cutoff = (first - chrono::Days::new(400)).to_string();
    let resolved = run["dates"]["relative"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["key"] == "pipeline.cutoff")
        .cloned();
    assert_eq!(
        resolved.as_ref().map(|d| &d["value"]),
        Some(&Value::from(cutoff.as_str())),
        "{run}"
    );
    assert_eq!(run["config"]["pipeline"]["cutoff"], cutoff, "{run}");
}

/// The month `month`, which has no article, made a few days into the next:
/// published all the same, empty, and said to be so by the run's summary and
/// the collection's card.
fn assert_published_empty(lab: &Lab, month: &str) {
    let said = lab.ok(&lab.monthly(day_after(month, 3), &[]));
    let dir = lab.release(month);
    assert_eq!(json(&dir.join("release.json"))["month"], month);
    assert_eq!(std::fs::read(dir.join("future.jsonl")).unwrap().len(), 0);
    assert_eq!(rows(&dir.join("future.parquet")), 0);
    let end = first_day(&next_month(month)).pred_opt().unwrap();
    let sentence = format!("future: empty, no article in its window ({month}-01 to {end})\n");
    assert!(said.contains(&sentence), "{said}");
    // Nothing held back either.
    let committed = json(&dir.join("withheld.json"))["files"].clone();
    let held: Vec<u64> = committed
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rows"].as_u64().unwrap())
        .collect();
    assert!(
        !held.is_empty() && held.iter().all(|r| *r == 0),
        "{committed}"
    );
    let card = lab.card();
    assert!(table_row(&card, month).contains("| no article |"), "{card}");
}

/// Every file under `dir` as text, Parquet files' rows as JSON lines.
fn text_of(dir: &Path) -> String {
    let mut text = String::new();
    for name in tree(dir).keys() {
        let path = dir.join(name);
        let bytes = if name.ends_with(".parquet") {
            let file = std::fs::File::open(&path).unwrap();
            tempora_sink::parquet::read_json_lines(file).unwrap()
        } else {
            std::fs::read(&path).unwrap()
        };
        text.push_str(&String::from_utf8_lossy(&bytes));
    }
    text
}

/// The collection published without the publishers' text (`tempora publish
/// OUT --to PUB`): no title or summary of `month`'s articles in it, and the
/// release's revealed manifest, rebuilt from the Archive in a folder of its
/// own, gives back its sets byte for byte.
fn assert_published_rebuilds(lab: &Lab, month: &str) -> PathBuf {
    let to = lab.dir().join("pub");
    let out = lab.out().display().to_string();
    lab.ok(&[
        "publish".into(),
        out,
        "--to".into(),
        to.display().to_string(),
    ]);
    // Its card loads each revealed release's manifest, and is the card
    // `tempora card` writes of it.
    let card = std::fs::read_to_string(to.join("README.md")).unwrap();
    let config = format!(
        "  data_files:\n  - split: train_withheld\n    path:\n    - \"{month}/withheld/manifest.parquet\"\n"
    );
    assert!(card.contains(&config), "{card}");
    lab.ok(&["card".into(), to.display().to_string()]);
    assert_eq!(std::fs::read_to_string(to.join("README.md")).unwrap(), card);
    // Its rebuild example names a manifest that lists articles: every release
    // is held back whole, so a revealed one's withheld manifest.
    let example = card
        .lines()
        .find_map(|l| l.strip_prefix("tempora rebuild "))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_else(|| panic!("no rebuild example in\n{card}"));
    assert!(example.ends_with("/withheld/manifest.jsonl"), "{example}");
    assert!(
        !common::jsonl::lines(&to.join(example)).is_empty(),
        "{example}"
    );
    let text = text_of(&to);
    let articles = common::jsonl::lines(&lab.release(month).join("withheld/future.jsonl"));
    assert!(!articles.is_empty());
    for article in &articles {
        for field in ["title", "summary"] {
            let said = article[field].as_str().unwrap();
            assert!(!text.contains(said), "{field} published: {said}");
        }
    }
    let manifest = to.join(month).join("withheld/manifest.jsonl");
    let rebuilt = lab.dir().join(format!("rebuilt-{month}"));
    let args: Vec<String> = [
        "rebuild",
        manifest.to_str().unwrap(),
        "--out",
        rebuilt.to_str().unwrap(),
        "--endpoint",
        &lab.archive.endpoint(),
        "--rate",
        "0",
        "--contact",
        "you@example.org",
        "--progress",
        "off",
    ]
    .map(String::from)
    .into();
    lab.ok(&args);
    let dir = lab.release(month);
    for (rebuilt_file, original) in [
        ("future.jsonl", "withheld/future.jsonl"),
        ("future.parquet", "withheld/future.parquet"),
        ("manifest.jsonl", "withheld/manifest.jsonl"),
        ("facts.jsonl", "facts.jsonl"),
        ("facts.parquet", "facts.parquet"),
    ] {
        assert!(
            std::fs::read(rebuilt.join(rebuilt_file)).unwrap()
                == std::fs::read(dir.join(original)).unwrap(),
            "rebuilt {rebuilt_file} is not {month}/{original}"
        );
    }
    to
}

/// What the monthly runs of `releases` cost, beside the nightly crawl's, and
/// their publishable folders' size against the full ones': printed for the
/// issue's note (`--nocapture`). Their requests to the Archive are none.
fn measures(lab: &Lab, releases: &[&str], published: &Path) {
    let crawl = &lab.crawl;
    println!(
        "measures on the testkit's BBC model ({} articles kept by the crawl):\n  \
         the nightly crawl: {:.3} s, requests CDX {}, page {}",
        crawl["cost"]["kept_articles"],
        crawl["seconds"].as_f64().unwrap(),
        crawl["cost"]["requests"]["cdx"],
        crawl["cost"]["requests"]["page"]
    );
    for release in releases {
        let run = json(&lab.release(release).join("run.json"));
        let requests = &run["cost"]["requests"];
        let archive = (&requests["cdx"], &requests["page"]);
        assert_eq!(archive, (&0.into(), &0.into()), "{release}");
        let (full, public) = (size(&lab.release(release)), size(&published.join(release)));
        let rejected = std::fs::metadata(lab.release(release).join("rejected.jsonl"))
            .unwrap()
            .len();
        println!(
            "  release {release}: {:.3} s, requests CDX {}, page {}, Wikidata query {}, \
             Wikidata API {}; publishable folder {public} bytes, full folder {full} bytes \
             ({:.1}%; its rejected.jsonl {rejected} bytes)",
            run["seconds"].as_f64().unwrap(),
            requests["cdx"],
            requests["page"],
            requests["wikidata_query"],
            requests["wikidata_api"],
            100.0 * public as f64 / full as f64
        );
    }
    let (full, public) = (size(&lab.out()), size(published));
    println!(
        "  the collection: publishable folder {public} bytes, full folder {full} bytes ({:.1}%)",
        100.0 * public as f64 / full as f64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_a_month_never_changes_once_out_and_rebuilds_from_its_published_folder() {
    let lab = Lab::start().await;
    let months = future_by_month(&lab, "fresh");
    let (m1, m2) = two_consecutive(&months);
    let crawled = lab.archive_requests();

    // Release m1, made a few days into the next month, held back whole.
    lab.ok(&lab.monthly(day_after(&m1, 3), &[]));
    assert_made_withheld(&lab, &m1, day_after(&m1, 3), &months[&m1]);
    let m1_files = tree(&lab.release(&m1));

    // The other offices' new holders are entered in Wikidata; a month later,
    // release m2 reveals m1 and leaves its folder as it was.
    let (_, all) = before_and_after();
    for position in &positions(&all)[1..] {
        lab.wd.set_entity(position.clone());
    }
    lab.ok(&lab.monthly(day_after(&m2, 3), &[]));
    let m2_articles = ids(&lab.release(&m2).join("withheld/future.jsonl"));
    assert!(m2_articles.is_superset(&months[&m2]), "{m2_articles:?}");
    let facts = |m: &str| common::jsonl::lines(&lab.release(m).join("facts.jsonl")).len();
    assert!(
        facts(&m2) > facts(&m1),
        "m2 judged with the facts as changed"
    );
    assert!(
        tree(&lab.release(&m1)) == m1_files,
        "release m2 wrote in {m1}"
    );
    assert_revealed(&lab, &m1);
    assert!(table_row(&lab.card(), &m2).contains("| 100%, not yet revealed |"));

    assert_rerun_refused_then_corrected(&lab, &m1);
    assert!(!lab.out().join(format!("reveals/{m2}.json")).exists());
    let m3 = next_month(&m2);
    // Two releases whose first attempt did not publish: refused before it ran
    // (its pages are nowhere), failed in a stage (its exclusion list is no JSON).
    let nowhere = lab.dir().join("nowhere/*.warc.gz").display().to_string();
    let pages = format!("[{nowhere:?}]");
    let broken = ("stages.pages.paths", pages.as_str());
    let why = format!("stages.pages.paths: no file matches the pattern {nowhere}");
    assert_finished_on_its_first_day(&lab, &m3, broken, 2, &why);
    let m4 = next_month(&m3);
    let list = lab.dir().join("not-json.json");
    std::fs::write(&list, "our list, not JSON\n").unwrap();
    let list = format!("{:?}", list.display().to_string());
    let broken = ("stages.unseen.xsum_split", list.as_str());
    let why = "failed stage: unseen (input)";
    assert_finished_on_its_first_day(&lab, &m4, broken, 1, why);
    assert_revealed(&lab, &m2);
    // A month of the same facts with no article, as a fresh run finds them now.
    let now = future_by_month(&lab, "fresh-after");
    let empty = (0..12)
        .map(|n| {
            (first_day("2020-06") + Months::new(n))
                .format("%Y-%m")
                .to_string()
        })
        .find(|m| !now.contains_key(m) && ![&m1, &m2, &m3, &m4].contains(&m))
        .unwrap_or_else(|| panic!("every month has articles: {now:?}"));
    assert_published_empty(&lab, &empty);
    assert_eq!(
        lab.archive_requests(),
        crawled,
        "the releases asked the Archive nothing"
    );
    assert!(tree(&lab.release(&m1)) == m1_files);

    let published = assert_published_rebuilds(&lab, &m1);
    measures(&lab, &[&m1, &m2, &m3, &m4, &empty], &published);
}
