//! Matching CDX `url` + `matchType` queries against SURT-style keys (`urlkey`,
//! the sort key of the Wayback CDX index: `uk,co,bbc)/news/x`), the way the real
//! server does. The keys themselves are [`urlkey_of`]'s (built on Tempora's one
//! URL normalizer), the same the crawler keys its captures by.

use tempora_wayback_format::urlkey::urlkey_of;

/// How a CDX `url` is matched against the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchType {
    /// Only this URL.
    Exact,
    /// Every URL under this path.
    Prefix,
    /// Every URL of this host.
    Host,
    /// Every URL of this host and its subdomains.
    Domain,
}

impl MatchType {
    /// Parses a `matchType` value.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "exact" => Some(Self::Exact),
            "prefix" => Some(Self::Prefix),
            "host" => Some(Self::Host),
            "domain" => Some(Self::Domain),
            _ => None,
        }
    }
}

/// A compiled `url` + `matchType` pair.
#[derive(Debug, Clone)]
pub struct UrlMatcher {
    key: String,
    match_type: MatchType,
}

impl UrlMatcher {
    /// As the real server does: a trailing `*` means prefix, a leading `*.` means domain.
    pub fn new(url: &str, match_type: Option<MatchType>) -> Self {
        let (url, implied) = if let Some(u) = url.strip_suffix('*') {
            (u, Some(MatchType::Prefix))
        } else if let Some(u) = url.strip_prefix("*.") {
            (u, Some(MatchType::Domain))
        } else {
            (url, None)
        };
        let match_type = match_type.or(implied).unwrap_or(MatchType::Exact);
        let mut key = urlkey_of(url);
        if match_type == MatchType::Prefix && !url.ends_with('/') && key.ends_with(")/") {
            // `bbc.co.uk*` covers the whole host, not only `/`.
            key.pop();
        }
        Self { key, match_type }
    }

    /// Whether a row with this urlkey belongs to the query.
    pub fn matches(&self, urlkey: &str) -> bool {
        let host_of = |k: &str| k.split(')').next().unwrap_or("").to_string();
        match self.match_type {
            MatchType::Exact => urlkey == self.key,
            MatchType::Prefix => urlkey.starts_with(&self.key),
            MatchType::Host => host_of(urlkey) == host_of(&self.key),
            MatchType::Domain => {
                let host = host_of(&self.key);
                let other = host_of(urlkey);
                other == host || other.starts_with(&format!("{host},"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_types_select_what_the_real_server_selects() {
        let prefix = UrlMatcher::new("bbc.co.uk/news/*", None);
        assert!(prefix.matches("uk,co,bbc)/news/uk-1"));
        assert!(!prefix.matches("uk,co,bbc)/sport/1"));
        let host = UrlMatcher::new("bbc.co.uk", Some(MatchType::Host));
        assert!(host.matches("uk,co,bbc)/sport/1"));
        assert!(!host.matches("uk,co,bbc,news)/x"));
        let domain = UrlMatcher::new("*.bbc.co.uk", None);
        assert!(domain.matches("uk,co,bbc,feeds)/news/rss.xml"));
        assert!(domain.matches("uk,co,bbc)/x"));
        assert!(!domain.matches("uk,co,bbcx)/x"));
        let exact = UrlMatcher::new("http://www.bbc.co.uk/news/uk-1", None);
        assert!(exact.matches("uk,co,bbc)/news/uk-1"));
        assert!(!exact.matches("uk,co,bbc)/news/uk-10"));
    }
}
