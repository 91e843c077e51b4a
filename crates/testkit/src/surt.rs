//! SURT-style URL keys, the sort key of the Wayback CDX index (`urlkey`).
//!
//! The mock needs them to order its index and to match `url` + `matchType`
//! queries the way the real server does: scheme, `www.` and default ports do
//! not matter, the host is reversed (`uk,co,bbc)/news/x`), everything is lowercase.

/// The urlkey of `url`, e.g. `http://www.BBC.co.uk:80/News/x` -> `uk,co,bbc)/news/x`.
pub fn urlkey(url: &str) -> String {
    let lower = url.trim().to_ascii_lowercase();
    let rest = lower
        .split_once("://")
        .map_or(lower.as_str(), |(_, rest)| rest);
    let rest = rest.split('#').next().unwrap_or(rest);
    let (authority, path) = match rest.find(['/', '?']) {
        Some(at) => rest.split_at(at),
        None => (rest, "/"),
    };
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = host
        .strip_suffix(":80")
        .or_else(|| host.strip_suffix(":443"))
        .unwrap_or(host);
    let host = strip_www(host);
    let reversed: Vec<&str> = host.split('.').filter(|p| !p.is_empty()).rev().collect();
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_string()
    };
    format!("{}){}", reversed.join(","), path)
}

/// `www.`, `www2.` ... are not part of the key.
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
        let mut key = urlkey(url);
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
    fn keys_ignore_scheme_www_port_and_case() {
        assert_eq!(urlkey("http://cnn.com:80/"), "com,cnn)/");
        assert_eq!(
            urlkey("https://www.BBC.co.uk/news/uk-1"),
            "uk,co,bbc)/news/uk-1"
        );
        assert_eq!(urlkey("bbc.co.uk/news/uk-1"), "uk,co,bbc)/news/uk-1");
        assert_eq!(urlkey("www2.example.com"), "com,example)/");
        assert_eq!(urlkey("http://www.com/"), "com,www)/");
        assert_eq!(urlkey("http://a.com?x=1#frag"), "com,a)/?x=1");
    }

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
