//! The part of a URL extraction needs to pick a site profile: the host.

/// The lowercase host of `url` (without port or credentials); empty when there is none.
pub fn host(url: &str) -> String {
    let Some((_, rest)) = url.split_once("://") else {
        return String::new();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    authority
        .split(':')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Whether `host` is `domain` or one of its subdomains.
pub fn host_in(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|sub| sub.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_without_port_or_credentials() {
        let url = "https://User@WWW.BBC.co.uk:443/news/uk-1?x=1#top";
        assert_eq!(host(url), "www.bbc.co.uk");
        assert_eq!(host("no scheme"), "");
    }

    #[test]
    fn subdomains_belong_to_their_domain_only() {
        assert!(host_in("news.bbc.co.uk", "bbc.co.uk"));
        assert!(host_in("bbc.co.uk", "bbc.co.uk"));
        assert!(!host_in("notbbc.co.uk", "bbc.co.uk"));
        assert!(!host_in("", "bbc.co.uk"));
    }
}
