//! The Wayback CDX index key, `urlkey` (SURT style: `uk,co,bbc)/news/uk-1`), of a
//! URL as the engine's one normalizer reads it ([`CanonicalUrl`]): host reversed,
//! path **and query kept**, all lowercase, trailing `/` kept — the Archive tells
//! `/a` from `/a/` and `?page=2` from `?page=3`. The crawler keys captures by it
//! and the mock Archive orders its index by it, so both agree with the real server.

use tempora_records::CanonicalUrl;

/// The urlkey of a URL: `http://www.BBC.co.uk:80/News/x?a=1` ->
/// `uk,co,bbc)/news/x?a=1` (see [`urlkey`]).
pub fn urlkey_of(url: &str) -> String {
    urlkey(&CanonicalUrl::parse(url))
}

/// The urlkey of a normalized URL: `bbc.co.uk` + `/News/x` + `a=1` ->
/// `uk,co,bbc)/news/x?a=1` (query and trailing `/` kept, all lowercase; a port
/// other than the defaults kept after the host, `com,cnn:8080)/x`).
pub fn urlkey(url: &CanonicalUrl) -> String {
    let host = url.host();
    let (name, port) = host
        .rsplit_once(':')
        .map_or((host, ""), |(name, port)| (name, port));
    let reversed: Vec<&str> = name
        .split('.')
        .filter(|label| !label.is_empty())
        .rev()
        .collect();
    let mut key = reversed.join(",");
    if !port.is_empty() {
        key.push(':');
        key.push_str(port);
    }
    key.push(')');
    key.push_str(url.path());
    if let Some(query) = url.query() {
        key.push('?');
        key.push_str(query);
    }
    key.make_ascii_lowercase();
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(url: &str) -> String {
        urlkey_of(url)
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
            assert_eq!(key(url), "uk,co,bbc)/news/uk-1", "{url}");
        }
    }

    #[test]
    fn the_urlkey_keeps_query_and_trailing_slash_and_lowercases_all() {
        assert_eq!(key("http://www.bbc.co.uk/News/x/"), "uk,co,bbc)/news/x/");
        assert_ne!(key("bbc.co.uk/news/x/"), key("bbc.co.uk/news/x"));
        assert_eq!(key("cnn.com/x?Page=2#top"), "com,cnn)/x?page=2");
        assert_ne!(key("cnn.com/x?page=2"), key("cnn.com/x?page=3"));
        assert_eq!(key("https://BBC.co.uk"), "uk,co,bbc)/");
        assert_eq!(key("cnn.com?x=1"), "com,cnn)/?x=1");
        // A port other than the defaults is another server.
        assert_eq!(key("cnn.com:8080/x"), "com,cnn:8080)/x");
        // `www.` alone before a top-level domain is the site's name.
        assert_eq!(key("www.com/x"), "com,www)/x");
    }
}
