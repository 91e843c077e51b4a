//! Why a page, or a URL before fetching, gives no article: a stable key for
//! counters and the reason in words.

/// Why a page (or a URL, before fetching) gives no article.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// What kind of page it is, a stable key for counters (`rejected: <key>` in
    /// `run.json`): a profile's `reject` rule key (`live_page`, `world_service`,
    /// ...) for pages the site names as not wanted, else one of [`Rejection::KEYS`].
    pub kind: String,
    /// The full reason for `rejected.jsonl`.
    pub reason: String,
}

impl Rejection {
    /// The keys of rejections that no profile rule names, each with what it means.
    /// `not_recognised` is the one for pages that are truly unknown: a site's page
    /// in none of its layouts and named by none of its `reject` rules.
    pub const KEYS: [(&'static str, &'static str); 11] = [
        ("no_site_profile", "the URL's host belongs to no site profile"),
        ("no_article_id", "the URL holds no article id of its site"),
        ("not_recognised", "no layout of the site recognises the page"),
        ("no_title", "the layout found no headline"),
        ("no_summary", "the layout found no reference summary and no fallback stood in"),
        ("no_bold_intro", "the layout's summary must be bold (BBC's intro), the page's is not, and no fallback stood in"),
        ("ambiguous_summary", "several elements match a summary the layout takes exactly one of"),
        ("no_text", "the page has no article text"),
        ("document_too_short", "the document is shorter than `min_document_chars`"),
        ("no_date", "no publication date on the page or in its URL"),
        ("not_a_page", "the record is not a page"),
    ];

    /// A rejection of kind `kind` (a key) saying `reason`.
    pub fn new(kind: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            reason: reason.into(),
        }
    }
}
