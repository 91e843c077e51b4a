//! The one URL normalizer of Tempora: when two spellings of a URL name the same page.
//!
//! [`CanonicalUrl::parse`] drops what never names a page: surrounding white
//! space, the scheme (`http`, `https`, any other, or a protocol-relative `//`),
//! user info, the default ports `:80` and `:443`, a leading `www.` (or `www2.`
//! ...) when a domain is left after it, and the `#fragment`. The host is
//! lowercased; the path keeps its case; the query is kept apart
//! ([`host`](CanonicalUrl::host), [`path`](CanonicalUrl::path),
//! [`query`](CanonicalUrl::query)), so keys for other needs are built on it.
//!
//! [`CanonicalUrl::page`] is the page a URL names (`bbc.co.uk/news/uk-1`): the
//! **query dropped** (tracking such as `?eref=rss` or `?ns_source=...`), a
//! trailing `index.html`/`index.htm` and trailing `/` dropped, the path's case
//! kept (news sites' paths are case-sensitive). Exclusion lists compare URLs by
//! it.

/// A URL without what does not name the page (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CanonicalUrl {
    host: String,
    path: String,
    query: Option<String>,
}

impl CanonicalUrl {
    /// Reduces `url` (absolute, protocol-relative or without a scheme).
    pub fn parse(url: &str) -> Self {
        let url = url.trim();
        let url = url.split('#').next().unwrap_or(url);
        let rest = strip_scheme(url);
        let (authority, path_and_query) =
            rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
        let (path, query) = match path_and_query.split_once('?') {
            Some((path, query)) => (path, Some(query.to_string())),
            None => (path_and_query, None),
        };
        let host = authority.rsplit('@').next().unwrap_or(authority);
        let host = host
            .strip_suffix(":80")
            .or_else(|| host.strip_suffix(":443"))
            .unwrap_or(host)
            .to_ascii_lowercase();
        Self {
            host: strip_www(&host).to_string(),
            path: if path.is_empty() { "/" } else { path }.to_string(),
            query,
        }
    }

    /// The host: lowercase, without user info, default port or `www.` (another
    /// port stays, as `host:port`).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The path as written, `/` at least.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The query, without its `?`.
    pub fn query(&self) -> Option<&str> {
        self.query.as_deref()
    }

    /// The same URL on another host (lowercased), e.g. a site's edition
    /// subdomain folded onto its main one.
    #[must_use]
    pub fn with_host(mut self, host: &str) -> Self {
        self.host = host.to_ascii_lowercase();
        self
    }

    /// The page named: `https://www.bbc.co.uk/news/uk-1/?at=rss#top` ->
    /// `bbc.co.uk/news/uk-1` (query, `index.html` and trailing `/` dropped, the
    /// path's case kept).
    pub fn page(&self) -> String {
        let path = ["index.html", "index.htm"]
            .iter()
            .find_map(|index| self.path.strip_suffix(index))
            .unwrap_or(&self.path);
        format!("{}{}", self.host, path.trim_end_matches('/'))
    }
}

/// `https://x`, `ftp://x`, `//x` -> `x`; a URL without a scheme is returned as it is.
fn strip_scheme(url: &str) -> &str {
    if let Some(rest) = url.strip_prefix("//") {
        return rest;
    }
    match url.split_once("://") {
        Some((scheme, rest))
            if scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            rest
        }
        _ => url,
    }
}

/// `www.`, `www2.` ... are not part of the site, unless nothing but a top-level
/// domain would be left.
fn strip_www(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix("www") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if let Some(after) = rest[digits..].strip_prefix('.') {
            if after.contains('.') {
                return after;
            }
        }
    }
    host
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str) -> String {
        CanonicalUrl::parse(url).page()
    }

    #[test]
    fn scheme_port_www_case_and_fragment_never_matter() {
        let same = [
            "http://www.bbc.co.uk/news/uk-1",
            "https://www.bbc.co.uk/news/uk-1",
            "HTTP://WWW.BBC.CO.UK:80/news/uk-1",
            "https://bbc.co.uk:443/news/uk-1",
            "//www.bbc.co.uk/news/uk-1",
            "bbc.co.uk/news/uk-1",
            " www2.bbc.co.uk/news/uk-1#comments ",
            "http://user:pw@www.bbc.co.uk/news/uk-1",
        ];
        for url in same {
            assert_eq!(page(url), "bbc.co.uk/news/uk-1", "{url}");
        }
    }

    #[test]
    fn the_page_drops_query_index_and_trailing_slash_but_keeps_path_case() {
        for url in [
            "https://www.cnn.com/2015/04/01/europe/crash/",
            "http://cnn.com/2015/04/01/europe/crash/index.html?eref=rss_topstories",
            "cnn.com/2015/04/01/europe/crash/index.htm",
        ] {
            assert_eq!(page(url), "cnn.com/2015/04/01/europe/crash", "{url}");
        }
        assert_ne!(page("cnn.com/2015/A"), page("cnn.com/2015/a"));
        assert_eq!(page("http://money.cnn.com/x/"), "money.cnn.com/x");
        // A port other than the defaults is another server.
        assert_eq!(page("cnn.com:8080/x"), "cnn.com:8080/x");
        // `www.` alone before a top-level domain is the site's name.
        assert_eq!(page("www.com/x"), "www.com/x");
        let folded = CanonicalUrl::parse("http://edition.CNN.com/x").with_host("CNN.com");
        assert_eq!(folded.page(), "cnn.com/x");
        assert_eq!(folded.query(), None);
        let parsed = CanonicalUrl::parse("https://www.bbc.com/News?a=1");
        assert_eq!(
            (parsed.host(), parsed.path(), parsed.query()),
            ("bbc.com", "/News", Some("a=1"))
        );
    }
}
