//! Wayback URLs: the Archive's replay URLs, `https://web.archive.org/web/<timestamp><flags>/<original>`,
//! which wrap the URL of the page archived.

/// The original URL inside a Wayback URL: `https://web.archive.org/web/20150401100102id_/http://www.cnn.com/x`
/// (also `//web.archive.org/...`, `archive.org/...` and the viewer's relative
/// `/web/<timestamp>/...` links) -> `http://www.cnn.com/x`; `None` for any other URL.
/// The original is returned as written (the viewer may have collapsed its `//`).
pub fn original_url(url: &str) -> Option<&str> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let mut at = 0;
    for scheme in ["https:", "http:"] {
        if lower.starts_with(scheme) {
            at = scheme.len();
            break;
        }
    }
    if lower[at..].starts_with("//") {
        at += 2;
        if lower[at..].starts_with("web.") {
            at += "web.".len();
        }
        if !lower[at..].starts_with("archive.org/") {
            return None;
        }
        at += "archive.org".len();
    } else if at > 0 {
        return None;
    } else if lower.starts_with("web.archive.org/") || lower.starts_with("archive.org/") {
        at = lower.find('/').unwrap_or(0);
    }
    let rest = url[at..].strip_prefix("/web/")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if !(1..=14).contains(&digits) {
        return None;
    }
    let rest = &rest[digits..];
    let flag = rest.as_bytes();
    let rest = if flag.len() > 3 && flag[..2].iter().all(u8::is_ascii_lowercase) && flag[2] == b'_'
    {
        &rest[3..]
    } else {
        rest
    };
    rest.strip_prefix('/')
        .filter(|original| !original.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wayback_urls_give_their_original() {
        let original = "http://www.bbc.co.uk/news/uk-politics-1";
        for wrapped in [
            "https://web.archive.org/web/20150102030405/http://www.bbc.co.uk/news/uk-politics-1",
            "HTTP://WEB.ARCHIVE.ORG/web/20150102030405id_/http://www.bbc.co.uk/news/uk-politics-1",
            "//web.archive.org/web/2015/http://www.bbc.co.uk/news/uk-politics-1",
            "web.archive.org/web/20150102030405im_/http://www.bbc.co.uk/news/uk-politics-1",
            "http://archive.org/web/20150102030405/http://www.bbc.co.uk/news/uk-politics-1",
            "/web/20150102030405/http://www.bbc.co.uk/news/uk-politics-1",
        ] {
            assert_eq!(original_url(wrapped), Some(original), "{wrapped}");
        }
        assert_eq!(
            original_url("/web/20150102030405/http:/www.bbc.co.uk/x"),
            Some("http:/www.bbc.co.uk/x")
        );
        for other in [
            original,
            "https://example.org/web/20150102030405/http://x",
            "/web/notatimestamp/http://x",
            "/web/123456789012345/http://x",
            "https://web.archive.org/web/20150102030405/",
            "https://web.archive.org/about",
        ] {
            assert_eq!(original_url(other), None, "{other}");
        }
    }
}
