//! The CDX query API (`/cdx/search/cdx`) as the real server answers it:
//! `url` + `matchType`, `from`/`to`, `output=json`, `fl`, repeated `filter`,
//! `collapse` (adjacent rows only), `limit`, and `showResumeKey`/`resumeKey`
//! paging with keys shaped like the recorded ones (`com%2Ccnn%29%2F+2001041400593%3A`),
//! and `showNumPages=true` (with `pageSize`): the number of pages of index blocks
//! of [`BLOCK_LINES`] lines that the URL range spans, as a bare number.

use regex::Regex;

use crate::corpus::{Corpus, MockCapture};
use crate::surt::{MatchType, UrlMatcher};

/// Every field the index has, in its default order.
pub const FIELDS: [&str; 7] = [
    "urlkey",
    "timestamp",
    "original",
    "mimetype",
    "statuscode",
    "digest",
    "length",
];

/// Index lines in one block, as in the Archive's ZipNum index.
pub const BLOCK_LINES: usize = 3000;

/// Blocks per page when `pageSize` is not given (the Archive's server uses 50).
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// An answer before it goes on the wire.
#[derive(Debug, Clone)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// Body (uncompressed).
    pub body: Vec<u8>,
}

impl Answer {
    fn text(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".into(), "text/plain;charset=UTF-8".into())],
            body: body.into().into_bytes(),
        }
    }
}

/// The blocked-site answer, as recorded: 403 and `X-Archive-Wayback-Runtime-Error`.
pub fn blocked() -> Answer {
    let message = "org.archive.util.io.RuntimeIOException: org.archive.wayback.exception.AdministrativeAccessControlException: Blocked Site Error";
    let mut answer = Answer::text(403, format!("{message}\n"));
    answer
        .headers
        .push(("X-Archive-Wayback-Runtime-Error".into(), message.into()));
    answer
}

struct Filter {
    field: usize,
    negate: bool,
    regex: Regex,
}

/// The order of the rows a CDX query answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RowOrder {
    /// Index order: urlkey, then timestamp, then the rest of the line.
    #[default]
    Index,
    /// Each page's rows in an order the seed and the query draw; which rows a
    /// page holds, and its resume key, those of index order.
    Page(u64),
    /// The rows of the whole listing (every page of the query) in an order the
    /// seed and the query (but its `resumeKey`) draw, cut into pages of `limit`:
    /// a row may come on any page, each page's resume key leads to the next.
    Listing(u64),
}

/// Answers one CDX query against `corpus`; `is_blocked` tells whether a urlkey is excluded.
pub fn answer(corpus: &Corpus, query: &str, is_blocked: impl Fn(&str) -> bool) -> Answer {
    answer_in(corpus, query, is_blocked, RowOrder::Index)
}

/// Answers one CDX query against `corpus` as [`answer`] does, with its rows in
/// `order`.
pub fn answer_in(
    corpus: &Corpus,
    query: &str,
    is_blocked: impl Fn(&str) -> bool,
    order: RowOrder,
) -> Answer {
    match run(corpus, query, is_blocked, order) {
        Ok(answer) => answer,
        Err(message) => Answer::text(400, message),
    }
}

/// Which rows a query selects, paging aside: its URLs, window, filters and
/// collapse.
struct Selection {
    matcher: UrlMatcher,
    from: Option<String>,
    to: Option<String>,
    filters: Vec<Filter>,
    collapses: Vec<(usize, Option<usize>)>,
}

/// Rows a selection listed.
struct Selected {
    rows: Vec<[String; 7]>,
    /// Rows beyond the limit follow.
    more: bool,
    /// A blocked urlkey matched.
    blocked_hit: bool,
}

impl Selection {
    /// The rows in index order from `resume` (a decoded resume key) on, at
    /// most `limit`; `collapse` starts again here, as on every page of the real
    /// server.
    fn rows(
        &self,
        corpus: &Corpus,
        is_blocked: impl Fn(&str) -> bool,
        resume: Option<&str>,
        limit: Option<usize>,
    ) -> Selected {
        let mut selected = Selected {
            rows: Vec::new(),
            more: false,
            blocked_hit: false,
        };
        let mut last_values: Vec<Option<String>> = vec![None; self.collapses.len()];
        for (key, capture) in corpus.rows() {
            if !self.matcher.matches(key) {
                continue;
            }
            if is_blocked(key) {
                selected.blocked_hit = true;
                continue;
            }
            let ts = capture.timestamp.as_str();
            if self.from.as_deref().is_some_and(|f| ts < f)
                || self.to.as_deref().is_some_and(|t| ts > t)
                || resume.is_some_and(|r| format!("{key} {ts}").as_str() < r)
            {
                continue;
            }
            let row = row_of(key, capture);
            if !self
                .filters
                .iter()
                .all(|f| f.regex.is_match(&row[f.field]) != f.negate)
                || self.collapsed(&row, &mut last_values)
            {
                continue;
            }
            if limit.is_some_and(|l| selected.rows.len() >= l) {
                selected.more = true;
                break;
            }
            selected.rows.push(row);
        }
        selected
    }

    /// Whether `row` repeats the row before in every collapse field.
    fn collapsed(&self, row: &[String; 7], last_values: &mut [Option<String>]) -> bool {
        let mut duplicate = !self.collapses.is_empty();
        for (i, (field, len)) in self.collapses.iter().enumerate() {
            let value: String = match len {
                Some(n) => row[*field].chars().take(*n).collect(),
                None => row[*field].clone(),
            };
            if last_values[i].as_deref() != Some(value.as_str()) {
                duplicate = false;
            }
            last_values[i] = Some(value);
        }
        duplicate
    }
}

// Long on purpose: the CDX server's query semantics (parameters, match type,
// dates, filters, collapse, paging, output) in the order the server applies
// them, as its documentation lists them, so the model reads against the spec.
fn run(
    corpus: &Corpus,
    query: &str,
    is_blocked: impl Fn(&str) -> bool,
    order: RowOrder,
) -> Result<Answer, String> {
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let all = |name: &'static str| {
        params
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };

    let url = get("url").ok_or("missing url")?;
    let match_type = match get("matchType") {
        Some(m) => Some(MatchType::parse(m).ok_or_else(|| format!("bad matchType {m}"))?),
        None => None,
    };
    let selection = Selection {
        matcher: UrlMatcher::new(url, match_type),
        from: get("from").map(|f| pad(f, '0')),
        to: get("to").map(|t| pad(t, '9')),
        filters: all("filter").map(parse_filter).collect::<Result<_, _>>()?,
        collapses: all("collapse")
            .map(parse_collapse)
            .collect::<Result<_, _>>()?,
    };
    let json = get("output") == Some("json");
    let fields: Vec<usize> = match get("fl") {
        Some(fl) => fl
            .split(',')
            .map(|f| field_index(f).ok_or_else(|| format!("unknown field {f}")))
            .collect::<Result<_, _>>()?,
        None => (0..FIELDS.len()).collect(),
    };
    let limit: Option<usize> = match get("limit") {
        Some(l) => Some(l.parse().map_err(|_| format!("bad limit {l}"))?),
        None => None,
    };
    if get("showNumPages") == Some("true") {
        return page_count(corpus, &selection.matcher, get("pageSize"), is_blocked);
    }
    let show_resume = get("showResumeKey") == Some("true");
    let resume = get("resumeKey").map(decode_resume_key);
    let (rows, resume_key) = match order {
        RowOrder::Index | RowOrder::Page(_) => {
            let selected = selection.rows(corpus, &is_blocked, resume.as_deref(), limit);
            if selected.blocked_hit && selected.rows.is_empty() {
                return Ok(blocked());
            }
            let mut rows = selected.rows;
            // Like the real server, a full page carries a resume key even when nothing follows.
            let full = limit.is_some_and(|l| l > 0 && rows.len() == l);
            let resume_key = (show_resume && (selected.more || full))
                .then(|| rows.last().map(|r| next_key(&r[0], &r[1])))
                .flatten();
            if let RowOrder::Page(seed) = order {
                crate::order::shuffle(&mut rows, crate::order::draw(seed, query));
            }
            (rows, resume_key)
        }
        RowOrder::Listing(seed) => {
            let selected = selection.rows(corpus, &is_blocked, None, None);
            if selected.blocked_hit && selected.rows.is_empty() {
                return Ok(blocked());
            }
            let listing = without_resume_key(&params);
            let page = ListingPage::of(selected.rows, seed, &listing, resume.as_deref(), limit);
            (page.rows, page.resume_key.filter(|_| show_resume))
        }
    };
    let body = if json {
        json_body(&rows, &fields, resume_key.as_deref())
    } else {
        text_body(&rows, &fields, resume_key.as_deref())
    };
    let mut answer = Answer::text(200, body);
    if json {
        answer.headers[0].1 = "application/json".into();
    }
    answer.headers.push(("X-location".into(), "cdx".into()));
    Ok(answer)
}

/// `showNumPages=true`: the number of pages of index blocks the URL range
/// spans, `page_size` blocks a page.
fn page_count(
    corpus: &Corpus,
    matcher: &UrlMatcher,
    page_size: Option<&str>,
    is_blocked: impl Fn(&str) -> bool,
) -> Result<Answer, String> {
    let page_size: usize = match page_size {
        Some(p) => p
            .parse()
            .ok()
            .filter(|p| *p >= 1)
            .ok_or_else(|| format!("bad pageSize {p}"))?,
        None => DEFAULT_PAGE_SIZE,
    };
    // Like the real index, the count covers the URL range only: no window,
    // filter or collapse narrows it.
    let lines = corpus
        .rows()
        .iter()
        .filter(|(key, _)| matcher.matches(key) && !is_blocked(key))
        .count();
    let pages = lines.div_ceil(BLOCK_LINES).div_ceil(page_size);
    Ok(Answer::text(200, format!("{pages}\n")))
}

/// The query's parameters but its `resumeKey`: what every page of one listing
/// shares.
fn without_resume_key(params: &[(String, String)]) -> String {
    let mut listing = form_urlencoded::Serializer::new(String::new());
    for (k, v) in params.iter().filter(|(k, _)| k != "resumeKey") {
        listing.append_pair(k, v);
    }
    listing.finish()
}

/// One page of a listing whose rows come in another order ([`RowOrder::Listing`]).
struct ListingPage {
    rows: Vec<[String; 7]>,
    resume_key: Option<String>,
}

impl ListingPage {
    /// The page that starts at `resume` (a key this model gave, decoded) of the
    /// `listed` rows in the order `seed` and `listing` draw. Its resume key has
    /// the recorded shape (the last row's key, moved up) and ends with the
    /// position of the next row (`!<n>`), which the real key's position stands
    /// for.
    fn of(
        mut listed: Vec<[String; 7]>,
        seed: u64,
        listing: &str,
        resume: Option<&str>,
        limit: Option<usize>,
    ) -> Self {
        crate::order::shuffle(&mut listed, crate::order::draw(seed, listing));
        let start = resume
            .and_then(|r| r.rsplit_once('!'))
            .and_then(|(_, at)| at.parse::<usize>().ok())
            .unwrap_or(0)
            .min(listed.len());
        let end = limit.map_or(listed.len(), |l| start.saturating_add(l).min(listed.len()));
        let full = limit.is_some_and(|l| l > 0 && end - start == l);
        let rows = listed[start..end].to_vec();
        let resume_key = (end < listed.len() || full)
            .then(|| {
                rows.last().map(|r| {
                    let key = format!("{} {}!{end}", r[0], r[1]);
                    form_urlencoded::byte_serialize(key.as_bytes()).collect()
                })
            })
            .flatten();
        Self { rows, resume_key }
    }
}

fn row_of(key: &str, c: &MockCapture) -> [String; 7] {
    [
        key.to_string(),
        c.timestamp.clone(),
        c.url.clone(),
        c.mime.clone(),
        c.status.map_or_else(|| "-".to_string(), |s| s.to_string()),
        c.digest.clone(),
        (c.body.len() + 300).to_string(),
    ]
}

fn field_index(name: &str) -> Option<usize> {
    FIELDS.iter().position(|f| *f == name)
}

fn pad(partial: &str, with: char) -> String {
    let mut s: String = partial
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect();
    while s.len() < 14 {
        s.push(with);
    }
    s
}

fn parse_filter(spec: &str) -> Result<Filter, String> {
    let (negate, rest) = match spec.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let (contains, rest) = match rest.strip_prefix('~') {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let (field, pattern) = rest
        .split_once(':')
        .ok_or_else(|| format!("bad filter {spec}"))?;
    let field = field_index(field).ok_or_else(|| format!("bad filter field {field}"))?;
    let pattern = if contains {
        pattern.to_string()
    } else {
        format!("^(?:{pattern})$")
    };
    let regex = Regex::new(&pattern).map_err(|e| format!("bad filter regex {spec}: {e}"))?;
    Ok(Filter {
        field,
        negate,
        regex,
    })
}

fn parse_collapse(spec: &str) -> Result<(usize, Option<usize>), String> {
    let (field, len) = match spec.split_once(':') {
        Some((f, n)) => (
            f,
            Some(n.parse().map_err(|_| format!("bad collapse {spec}"))?),
        ),
        None => (spec, None),
    };
    let field = field_index(field).ok_or_else(|| format!("bad collapse field {field}"))?;
    Ok((field, len))
}

/// The key of the row after `urlkey timestamp`: the last character moved up by one,
/// URL-encoded the way the real server prints it.
fn next_key(urlkey: &str, timestamp: &str) -> String {
    let mut key = format!("{urlkey} {timestamp}").into_bytes();
    if let Some(last) = key.last_mut() {
        *last = last.saturating_add(1);
    }
    form_urlencoded::byte_serialize(&key).collect()
}

/// Clients send the printed key back URL-encoded once more; undo the printed encoding.
fn decode_resume_key(value: &str) -> String {
    form_urlencoded::parse(format!("k={value}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

fn text_body(rows: &[[String; 7]], fields: &[usize], resume: Option<&str>) -> String {
    let mut out = String::new();
    for row in rows {
        let cells: Vec<&str> = fields.iter().map(|&f| row[f].as_str()).collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    if let Some(key) = resume {
        out.push('\n');
        out.push_str(key);
        out.push('\n');
    }
    out
}

fn json_body(rows: &[[String; 7]], fields: &[usize], resume: Option<&str>) -> String {
    if rows.is_empty() {
        return "[]\n".into();
    }
    let mut all: Vec<serde_json::Value> = Vec::with_capacity(rows.len() + 3);
    all.push(fields.iter().map(|&f| FIELDS[f]).collect());
    for row in rows {
        all.push(fields.iter().map(|&f| row[f].as_str()).collect());
    }
    if let Some(key) = resume {
        all.push(serde_json::Value::Array(Vec::new()));
        all.push(serde_json::json!([key]));
    }
    let mut out = String::from("[");
    for (i, v) in all.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str(&v.to_string());
    }
    out.push_str("]\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Corpus {
        let mut captures = Vec::new();
        for (i, ts) in [
            "20010414005939",
            "20010414005939",
            "20010415000000",
            "20010503212618",
        ]
        .iter()
        .enumerate()
        {
            let body = if i < 2 {
                "same".to_string()
            } else {
                format!("p{i}")
            };
            captures.push(MockCapture::html("http://www.cnn.com:80/", ts, body));
        }
        captures.push(MockCapture::revisit(
            "http://www.cnn.com/",
            "20010416000000",
            "X",
        ));
        captures.push(MockCapture::html(
            "http://cnn.com/world/",
            "20010420000000",
            "w",
        ));
        Corpus::new(captures)
    }

    fn body(a: &Answer) -> String {
        String::from_utf8(a.body.clone()).unwrap()
    }

    #[test]
    fn resume_key_has_the_recorded_shape_and_pages_on() {
        let a = answer(&corpus(), "url=cnn.com&limit=1&showResumeKey=true", |_| {
            false
        });
        let text = body(&a);
        assert!(
            text.ends_with("\n\ncom%2Ccnn%29%2F+2001041400593%3A\n"),
            "{text}"
        );
        // Sent back URL-encoded once more, as clients do.
        let key: String =
            form_urlencoded::byte_serialize(b"com%2Ccnn%29%2F+2001041400593%3A").collect();
        let a = answer(
            &corpus(),
            &format!("url=cnn.com&limit=2&showResumeKey=true&resumeKey={key}"),
            |_| false,
        );
        let text = body(&a);
        assert!(text.starts_with("com,cnn)/ 20010415000000 "), "{text}");
    }

    #[test]
    fn json_has_a_header_row_and_the_key_after_an_empty_row() {
        let a = answer(
            &corpus(),
            "url=cnn.com&output=json&fl=timestamp,statuscode&filter=statuscode:200&limit=2&showResumeKey=true",
            |_| false,
        );
        let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
        let rows = v.as_array().unwrap();
        assert_eq!(rows[0], serde_json::json!(["timestamp", "statuscode"]));
        assert_eq!(rows[1], serde_json::json!(["20010414005939", "200"]));
        assert_eq!(rows[3], serde_json::json!([]));
        assert_eq!(rows.len(), 5);
        let empty = answer(&corpus(), "url=nothing.org&output=json", |_| false);
        assert_eq!(body(&empty), "[]\n");
    }

    #[test]
    fn collapse_is_adjacent_only_and_filters_negate() {
        let a = answer(
            &corpus(),
            "url=cnn.com*&collapse=urlkey&fl=timestamp",
            |_| false,
        );
        assert_eq!(body(&a), "20010414005939\n20010420000000\n");
        let a = answer(
            &corpus(),
            "url=cnn.com&collapse=digest&fl=timestamp",
            |_| false,
        );
        assert_eq!(body(&a).lines().count(), 4, "{}", body(&a));
        let a = answer(
            &corpus(),
            "url=cnn.com&filter=!mimetype:warc/revisit&fl=statuscode",
            |_| false,
        );
        assert!(!body(&a).contains('-'));
        let a = answer(
            &corpus(),
            "url=cnn.com&from=200104150&to=20010416&fl=timestamp",
            |_| false,
        );
        assert_eq!(body(&a), "20010415000000\n20010416000000\n");
    }

    #[test]
    fn page_counts_cover_the_url_range_in_blocks() {
        let many: Vec<MockCapture> = (0..BLOCK_LINES + 1)
            .map(|i| MockCapture::html(&format!("http://a.com/{i}"), "20200101000000", "x"))
            .collect();
        let corpus = Corpus::new(many);
        let count = |q: &str| body(&answer(&corpus, q, |_| false));
        assert_eq!(count("url=a.com/*&showNumPages=true&pageSize=1"), "2\n");
        assert_eq!(count("url=a.com/*&showNumPages=true"), "1\n");
        assert_eq!(count("url=b.com/*&showNumPages=true&pageSize=1"), "0\n");
        assert_eq!(
            answer(&corpus, "url=a.com/*&showNumPages=true&pageSize=0", |_| {
                false
            })
            .status,
            400
        );
    }

    /// Captures of two stories under their URL variants (one urlkey, one time
    /// for two of them, one URL and time for two others), out of order.
    fn variants() -> Vec<MockCapture> {
        vec![
            MockCapture::html("http://bbc.co.uk:80/news/b", "20200102000000", "b"),
            MockCapture::redirect(
                "http://www.bbc.co.uk/news/b",
                "20200101000000",
                301,
                "http://www.bbc.co.uk/news/a",
            ),
            MockCapture::html("http://www.bbc.co.uk/news/a", "20200101000000", "a"),
            MockCapture::html("http://bbc.co.uk:80/news/a", "20200101000000", "a"),
            MockCapture::html("http://www.bbc.co.uk/news/b", "20200101000000", "b"),
            MockCapture::html("http://www.bbc.co.uk/news/a", "20200103000000", "a2"),
            MockCapture::html("https://www.bbc.co.uk/news/a", "20200102000000", "a"),
        ]
    }

    #[test]
    fn captures_held_in_any_order_are_listed_in_index_order() {
        let query = "url=bbc.co.uk/news/*&fl=urlkey,timestamp,original,digest";
        let listed = |corpus: &Corpus| body(&answer(corpus, query, |_| false));
        let expected = listed(&Corpus::new(variants()));
        let keys: Vec<(&str, &str)> = expected
            .lines()
            .map(|l| {
                let mut cells = l.split(' ');
                (cells.next().unwrap(), cells.next().unwrap())
            })
            .collect();
        assert_eq!(keys.len(), 7);
        assert!(
            keys.windows(2).all(|w| w[0] <= w[1]),
            "urlkey then timestamp: {expected}"
        );
        for seed in 0..20 {
            let mut given = variants();
            crate::order::shuffle(&mut given, seed);
            assert_eq!(listed(&Corpus::new(given.clone())), expected, "seed {seed}");
            let mut added = Corpus::default();
            for capture in given {
                added.add(capture);
            }
            assert_eq!(listed(&added), expected, "seed {seed}, one by one");
            let held = Corpus::new(variants()).reinserted(seed);
            assert_eq!(listed(&held), expected, "seed {seed}, reinserted");
        }
    }

    #[test]
    fn unsorted_pages_hold_the_same_rows_and_resume_key() {
        let corpus = Corpus::new(variants());
        let query = "url=bbc.co.uk/news/*&output=json&limit=5&showResumeKey=true";
        let rows = |a: &Answer| -> Vec<serde_json::Value> {
            serde_json::from_slice::<Vec<serde_json::Value>>(&a.body).unwrap()
        };
        let sorted = rows(&answer(&corpus, query, |_| false));
        assert_eq!(sorted.len(), 1 + 5 + 2, "header, rows, empty row, key");
        let mut orders = std::collections::BTreeSet::new();
        for seed in 0..10 {
            let unsorted = rows(&answer_in(&corpus, query, |_| false, RowOrder::Page(seed)));
            assert_eq!(unsorted[0], sorted[0], "the header row first");
            assert_eq!(unsorted[6..], sorted[6..], "the resume key of index order");
            let mut body = unsorted[1..6].to_vec();
            orders.insert(format!("{body:?}"));
            body.sort_by_key(|r| (r[0].to_string(), r[1].to_string(), r[2].to_string()));
            assert_eq!(body, sorted[1..6], "seed {seed}: the same rows");
        }
        assert!(orders.len() > 1, "seeds give other orders");
    }

    /// Every page of `query` in `order`, following the resume keys: each page's
    /// rows (the fields `urlkey,timestamp,original`), and the pages asked for.
    fn listing(corpus: &Corpus, query: &str, order: RowOrder) -> (Vec<Vec<String>>, usize) {
        let mut rows = Vec::new();
        let mut resume: Option<String> = None;
        for pages in 1..100 {
            let q = match &resume {
                None => query.to_string(),
                Some(key) => {
                    let sent: String = form_urlencoded::byte_serialize(key.as_bytes()).collect();
                    format!("{query}&resumeKey={sent}")
                }
            };
            let text = body(&answer_in(corpus, &q, |_| false, order));
            let (page, key) = text.split_once("\n\n").unwrap_or((text.as_str(), ""));
            rows.extend(
                page.lines()
                    .map(|l| l.split(' ').map(str::to_string).collect()),
            );
            resume = Some(key.trim().to_string()).filter(|k| !k.is_empty());
            if resume.is_none() {
                return (rows, pages);
            }
        }
        panic!("a listing of {query} that never ends");
    }

    #[test]
    fn a_listing_in_another_order_holds_the_same_rows_across_its_pages() {
        let many: Vec<MockCapture> = (0..40)
            .map(|i| {
                let ts = format!("2020010{}0000{:02}", 1 + i % 3, i);
                MockCapture::html(&format!("http://a.com/{}", i % 17), &ts, "x")
            })
            .collect();
        let corpus = Corpus::new(many);
        let query = "url=a.com/*&fl=urlkey,timestamp,original&limit=7&showResumeKey=true";
        let (sorted, pages) = listing(&corpus, query, RowOrder::Index);
        assert_eq!((sorted.len(), pages), (40, 6));
        let first_page = |rows: &[Vec<String>]| {
            let mut page = rows[..7].to_vec();
            page.sort();
            page
        };
        let mut orders = std::collections::BTreeSet::new();
        let mut moved = false;
        for seed in 0..10 {
            let (mut got, got_pages) = listing(&corpus, query, RowOrder::Listing(seed));
            assert_eq!(got_pages, pages, "seed {seed}: as many pages");
            moved |= first_page(&got) != sorted[..7];
            orders.insert(format!("{got:?}"));
            got.sort();
            assert_eq!(got, sorted, "seed {seed}: every row once");
        }
        assert!(moved, "rows move across pages");
        assert!(orders.len() > 1, "seeds give other orders");
        // Collapse and the window select the listing's rows in index order, as
        // on one page (collapse does not start again on each page), before
        // the order.
        let collapsed = "url=a.com/*&fl=urlkey,timestamp,original&collapse=urlkey&to=20200102";
        let (natural, _) = listing(&corpus, collapsed, RowOrder::Index);
        assert_eq!(natural.len(), 17);
        let paged = format!("{collapsed}&limit=4&showResumeKey=true");
        let (mut other, _) = listing(&corpus, &paged, RowOrder::Listing(3));
        assert_ne!(other, natural);
        other.sort();
        assert_eq!(other, natural);
    }

    #[test]
    fn blocked_and_bad_queries() {
        let a = answer(&corpus(), "url=cnn.com", |_| true);
        assert_eq!(a.status, 403);
        assert!(a
            .headers
            .iter()
            .any(|(k, _)| k == "X-Archive-Wayback-Runtime-Error"));
        assert_eq!(answer(&corpus(), "matchType=exact", |_| false).status, 400);
        assert_eq!(
            answer(&corpus(), "url=x&filter=bogus", |_| false).status,
            400
        );
    }
}
