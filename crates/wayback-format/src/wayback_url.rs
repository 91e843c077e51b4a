//! Wayback URLs: the Archive's replay URLs, `https://web.archive.org/web/<timestamp><flags>/<original>`,
//! which wrap the URL of the page archived. [`ReplayPath`] reads their path as
//! written, for every reader (the crawler following a redirect, the mock Archive
//! answering a request); [`original_url`] unwraps a whole Wayback URL, the
//! viewer's links included.

/// A replay path, `/web/<timestamp><flags>/<original>`, as written: no part is
/// checked beyond its shape (the timestamp may be partial or no time at all,
/// the flags anything), each reader asks what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayPath<'a> {
    /// The digits after `/web/` (at least one), e.g. `20150102030405` or `2015`.
    pub timestamp: &'a str,
    /// What follows the digits up to the next `/`: `id_` (the raw capture),
    /// `im_`, ..., or nothing (the viewer).
    pub flags: &'a str,
    /// The rest, not empty: the archived URL as written.
    pub original: &'a str,
}

impl<'a> ReplayPath<'a> {
    /// Reads `/web/20150102030405id_/http://x/y?z`; `None` for a path that does
    /// not start with `/web/` and digits, or has nothing after their `/`.
    pub fn parse(path: &'a str) -> Option<Self> {
        let rest = path.strip_prefix("/web/")?;
        let (head, original) = rest.split_once('/')?;
        let digits = head.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || original.is_empty() {
            return None;
        }
        let (timestamp, flags) = head.split_at(digits);
        Some(Self {
            timestamp,
            flags,
            original,
        })
    }
}

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
    let replay = ReplayPath::parse(&url[at..])?;
    // No flags, or two lowercase letters and `_` (`id_`, `im_`, `js_` ...).
    let flags = replay.flags.as_bytes();
    let known_flags = flags.is_empty()
        || (flags.len() == 3 && flags[..2].iter().all(u8::is_ascii_lowercase) && flags[2] == b'_');
    (replay.timestamp.len() <= 14 && known_flags).then_some(replay.original)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_paths_split_into_timestamp_flags_and_original() {
        assert_eq!(
            ReplayPath::parse("/web/20150102030405id_/http://x.org/y?z=1"),
            Some(ReplayPath {
                timestamp: "20150102030405",
                flags: "id_",
                original: "http://x.org/y?z=1",
            })
        );
        assert_eq!(
            ReplayPath::parse("/web/2015/x.org/"),
            Some(ReplayPath {
                timestamp: "2015",
                flags: "",
                original: "x.org/",
            })
        );
        for other in [
            "/web/id_/http://x.org/",
            "/web/2015id_/",
            "/web/2015",
            "web/2015/http://x.org/",
            "/about",
        ] {
            assert_eq!(ReplayPath::parse(other), None, "{other}");
        }
    }

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
