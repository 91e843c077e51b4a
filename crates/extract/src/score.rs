//! Scoring one extraction against what is known about its page ([`Expected`]),
//! each page's result ([`PageScore`]) and the report over all pages ([`Report`]).

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Deserialize;

use crate::extract::Extraction;
use crate::text::normalize;

/// What is known about one page.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Expected {
    /// The page's URL.
    #[serde(default)]
    pub url: Option<String>,
    /// The headline.
    #[serde(default)]
    pub title: Option<String>,
    /// The publication date, `YYYY-MM-DD`.
    #[serde(default)]
    pub published: Option<String>,
    /// The reference summary.
    #[serde(default)]
    pub summary: Option<String>,
    /// The article's whole text.
    #[serde(default)]
    pub body: Option<String>,
    /// The start of the article's text.
    #[serde(default)]
    pub body_start: Option<String>,
}

/// One page's result.
#[derive(Debug, Clone)]
pub struct PageScore {
    /// `site/file`.
    pub page: String,
    /// The matched layout, or `rejected: reason`.
    pub outcome: String,
    /// Per field: `Some(true)` right, `Some(false)` wrong, `None` unknown.
    pub title: Option<bool>,
    /// See `title`.
    pub summary: Option<bool>,
    /// See `title`.
    pub published: Option<bool>,
    /// Body token F1 (or 0/1 for a known start), when a body is known.
    pub body: Option<f64>,
    /// Expected vs extracted, for each wrong field.
    pub mismatches: Vec<String>,
}

/// Every page's result.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Per page, in folder and file name order.
    pub pages: Vec<PageScore>,
}

pub(crate) fn score(
    page: String,
    expected: &Expected,
    result: Result<Extraction, crate::Rejection>,
) -> PageScore {
    let mut s = PageScore {
        page,
        outcome: String::new(),
        title: None,
        summary: None,
        published: None,
        body: None,
        mismatches: Vec::new(),
    };
    let extraction = match result {
        Ok(x) => x,
        Err(rejection) => {
            s.outcome = format!("rejected: {}", rejection.reason);
            s.title = expected.title.as_ref().map(|_| false);
            s.summary = expected.summary.as_ref().map(|_| false);
            s.published = expected.published.as_ref().map(|_| false);
            s.body = (expected.body.is_some() || expected.body_start.is_some()).then_some(0.0);
            return s;
        }
    };
    let a = &extraction.article;
    s.outcome = extraction.layout.clone();
    let mut exact = |field: &str, want: &Option<String>, got: &str| {
        want.as_ref().map(|w| {
            let ok = normalize(w) == normalize(got);
            if !ok {
                s.mismatches.push(format!(
                    "{field}: expected {w:?}\n{:>width$}got      {got:?}",
                    "",
                    width = field.len() + 2
                ));
            }
            ok
        })
    };
    let title = exact("title", &expected.title, &a.title);
    let summary = exact("summary", &expected.summary, &a.summary);
    let published = exact("published", &expected.published, &a.published.to_string());
    s.title = title;
    s.summary = summary;
    s.published = published;

    let mut text: Vec<&str> = Vec::new();
    if let Some(d) = &a.dateline {
        text.push(d);
    }
    // Answers that give both a summary and a body follow XSum's convention (the
    // body is the document without the summary); a body alone is the whole text.
    if extraction.summary_in_text && expected.summary.is_none() {
        text.push(&a.summary);
    }
    text.push(&a.document);
    let ours = tokens(&text.join("\n"));
    if let Some(body) = &expected.body {
        s.body = Some(f1(&tokens(body), &ours));
    } else if let Some(start) = &expected.body_start {
        let want = tokens(start);
        let ok = ours.len() >= want.len() && ours[..want.len()] == want[..];
        if !ok {
            s.mismatches.push(format!("body start: expected {start:?}"));
        }
        s.body = Some(if ok { 1.0 } else { 0.0 });
    }
    s
}

/// Lowercase alphanumeric tokens.
fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Token F1 of `got` against `want` (bags of tokens).
fn f1(want: &[String], got: &[String]) -> f64 {
    if want.is_empty() && got.is_empty() {
        return 1.0;
    }
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for t in want {
        *counts.entry(t).or_default() += 1;
    }
    let mut overlap = 0i64;
    for t in got {
        if let Some(c) = counts.get_mut(t.as_str()).filter(|c| **c > 0) {
            *c -= 1;
            overlap += 1;
        }
    }
    if overlap == 0 {
        return 0.0;
    }
    let precision = overlap as f64 / got.len() as f64;
    let recall = overlap as f64 / want.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

impl Report {
    /// The report as a Markdown table, per page then per field, mismatches below.
    pub fn to_markdown(&self) -> String {
        let mark = |v: Option<bool>| match v {
            Some(true) => "ok",
            Some(false) => "WRONG",
            None => "",
        };
        let mut md = String::from(
            "| page | layout | title | summary | date | body F1 |\n|---|---|---|---|---|---|\n",
        );
        for p in &self.pages {
            let body = p.body.map(|f| format!("{f:.3}")).unwrap_or_default();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                p.page,
                p.outcome.replace('|', "\\|"),
                mark(p.title),
                mark(p.summary),
                mark(p.published),
                body
            );
        }
        md.push_str("\n| field | correct | known | accuracy |\n|---|---|---|---|\n");
        for (name, values) in [
            (
                "title",
                self.pages
                    .iter()
                    .filter_map(|p| p.title)
                    .collect::<Vec<_>>(),
            ),
            (
                "summary",
                self.pages.iter().filter_map(|p| p.summary).collect(),
            ),
            (
                "date",
                self.pages.iter().filter_map(|p| p.published).collect(),
            ),
        ] {
            let right = values.iter().filter(|v| **v).count();
            let _ = writeln!(
                md,
                "| {name} | {right} | {} | {} |",
                values.len(),
                percent(right as f64, values.len())
            );
        }
        let bodies: Vec<f64> = self.pages.iter().filter_map(|p| p.body).collect();
        let mean = bodies.iter().sum::<f64>();
        let _ = writeln!(
            md,
            "| body (mean token F1) | | {} | {} |",
            bodies.len(),
            percent(mean, bodies.len())
        );
        let wrong: Vec<&PageScore> = self
            .pages
            .iter()
            .filter(|p| !p.mismatches.is_empty())
            .collect();
        if !wrong.is_empty() {
            md.push_str("\nMismatches:\n");
            for p in wrong {
                for m in &p.mismatches {
                    let _ = writeln!(md, "- {}: {m}", p.page);
                }
            }
        }
        md
    }

    /// Whether every known title, summary and date is right.
    pub fn all_exact(&self) -> bool {
        self.pages.iter().all(|p| {
            [p.title, p.summary, p.published]
                .iter()
                .all(|v| *v != Some(false))
        })
    }
}

fn percent(sum: f64, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * sum / n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extraction(summary: &str, document: &str) -> Extraction {
        let article = tempora_records::Article {
            id: "1".into(),
            url: "http://www.bbc.co.uk/sport/football/1".into(),
            source: "bbc".into(),
            section: "sport".into(),
            published: chrono::NaiveDate::from_ymd_opt(2016, 1, 1).unwrap_or_default(),
            published_at: None,
            published_source: None,
            captured: None,
            title: "Title".into(),
            summary: summary.into(),
            summary_source: Some(tempora_records::SummarySource::Intro),
            document: document.into(),
            dateline: None,
            facts: Vec::new(),
            relations: Vec::new(),
            split: None,
            novelty: None,
            archived_url: None,
            digest: None,
            payload_sha1: None,
        };
        Extraction {
            article,
            layout: "bbc/sport-story-body".into(),
            summary_in_text: true,
        }
    }

    #[test]
    fn a_body_given_with_its_summary_is_the_text_after_it() {
        let got = || {
            Ok(extraction(
                "Rovers are saved.",
                "The trust paid.\nFans cheered.",
            ))
        };
        let xsum = Expected {
            summary: Some("Rovers are saved.".into()),
            body: Some("The trust paid.\nFans cheered.".into()),
            ..Expected::default()
        };
        let s = score("bbc/a.html".into(), &xsum, got());
        assert_eq!((s.summary, s.body), (Some(true), Some(1.0)));
        // A body alone is the whole text a reader sees, the intro included.
        let whole = Expected {
            body: Some("Rovers are saved. The trust paid. Fans cheered.".into()),
            ..Expected::default()
        };
        assert_eq!(score("bbc/a.html".into(), &whole, got()).body, Some(1.0));
        let after_only = Expected {
            body: xsum.body.clone(),
            ..Expected::default()
        };
        let partial = score("bbc/a.html".into(), &after_only, got())
            .body
            .unwrap_or(1.0);
        assert!(partial < 1.0, "{partial}");
    }

    #[test]
    fn f1_counts_repeated_tokens_once_each() {
        let want = tokens("the cat the hat");
        assert!((f1(&want, &tokens("the cat the hat")) - 1.0).abs() < 1e-9);
        assert!((f1(&want, &tokens("the the the the")) - 0.5).abs() < 1e-9);
        assert_eq!(f1(&want, &tokens("dog")), 0.0);
        assert_eq!(f1(&[], &[]), 1.0);
    }
}
