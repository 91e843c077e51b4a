//! Pages saved through the Wayback Machine's viewer (URLs without `id_`) carry the
//! viewer's toolbar and have every link rewritten to `/web/<timestamp>/<original>`.
//! This module removes the toolbar and undoes the rewriting; raw captures pass
//! through unchanged.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem;
use regex::Regex;
use tempora_wayback_format::wayback_url::original_url;

const TOOLBAR_BEGIN: &str = "<!-- BEGIN WAYBACK TOOLBAR INSERT -->";
const TOOLBAR_END: &str = "<!-- END WAYBACK TOOLBAR INSERT -->";

/// Elements of the viewer that may survive when the toolbar markers are missing.
pub const VIEWER_ELEMENTS: &str = "#wm-ipp-base, #wm-ipp, #wm-ipp-print, #donato";

static WOMBAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"__wm\.wombat\(\s*"([^"]+)"\s*,\s*"(\d{14})""#)
        .unwrap_or_else(|e| unreachable!("constant pattern: {e}"))
});

/// What the viewer says about the capture it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewerCapture {
    /// The original URL of the capture.
    pub url: String,
    /// The capture's 14-digit timestamp.
    pub timestamp: String,
}

/// Whether `html` was saved through the viewer.
pub fn is_viewer_page(html: &str) -> bool {
    memmem::find(html.as_bytes(), TOOLBAR_BEGIN.as_bytes()).is_some()
        || memmem::find(html.as_bytes(), b"__wm.wombat(").is_some()
}

/// The capture named by the viewer's replay script, if the page has one.
pub fn viewer_capture(html: &str) -> Option<ViewerCapture> {
    let at = memmem::find(html.as_bytes(), b"__wm.wombat(")?;
    let mut end = html.len().min(at + 4096);
    while !html.is_char_boundary(end) {
        end -= 1;
    }
    let window = &html[at..end];
    let caps = WOMBAT.captures(window)?;
    Some(ViewerCapture {
        url: unrewrite(&caps[1]).into_owned(),
        timestamp: caps[2].to_string(),
    })
}

/// `html` without the viewer's toolbar (everything between its BEGIN and END markers).
pub fn strip_toolbar(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let Some(begin) = memmem::find(bytes, TOOLBAR_BEGIN.as_bytes()) else {
        return Cow::Borrowed(html);
    };
    let end = memmem::find(&bytes[begin..], TOOLBAR_END.as_bytes())
        .map_or(begin + TOOLBAR_BEGIN.len(), |e| {
            begin + e + TOOLBAR_END.len()
        });
    let mut out = String::with_capacity(html.len());
    out.push_str(&html[..begin]);
    out.push_str(&html[end..]);
    Cow::Owned(out)
}

/// The original URL behind a viewer-rewritten one; other URLs are returned as they are.
pub fn unrewrite(url: &str) -> Cow<'_, str> {
    let trimmed = url.trim();
    match original_url(trimmed) {
        Some(original) => {
            // The viewer sometimes collapses `http://` to `http:/`.
            if let Some(rest) = original
                .strip_prefix("http:/")
                .filter(|r| !r.starts_with('/'))
            {
                Cow::Owned(format!("http://{rest}"))
            } else if let Some(rest) = original
                .strip_prefix("https:/")
                .filter(|r| !r.starts_with('/'))
            {
                Cow::Owned(format!("https://{rest}"))
            } else if original.contains("://") {
                Cow::Owned(original.to_string())
            } else {
                Cow::Owned(format!("http://{original}"))
            }
        }
        None => Cow::Borrowed(trimmed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unrewrites_viewer_urls_in_every_form() {
        let original = "http://www.bbc.co.uk/news/uk-politics-12345678";
        for rewritten in [
            "https://web.archive.org/web/20150102030405/http://www.bbc.co.uk/news/uk-politics-12345678",
            "//web.archive.org/web/20150102030405/http://www.bbc.co.uk/news/uk-politics-12345678",
            "/web/20150102030405/http://www.bbc.co.uk/news/uk-politics-12345678",
            "/web/20150102030405id_/http://www.bbc.co.uk/news/uk-politics-12345678",
            "https://web.archive.org/web/20150102030405/http:/www.bbc.co.uk/news/uk-politics-12345678",
            "/web/20150102030405/www.bbc.co.uk/news/uk-politics-12345678",
        ] {
            assert_eq!(unrewrite(rewritten), original, "{rewritten}");
        }
        assert_eq!(unrewrite(original), original);
        assert_eq!(
            unrewrite(" https://www.cnn.com/a "),
            "https://www.cnn.com/a"
        );
    }

    #[test]
    fn strips_toolbar_between_markers() {
        let html = format!(
            "<body>{TOOLBAR_BEGIN}<div id=\"wm-ipp-base\">captures</div>{TOOLBAR_END}<p>story</p>"
        );
        assert_eq!(strip_toolbar(&html), "<body><p>story</p>");
        assert!(matches!(strip_toolbar("<p>raw</p>"), Cow::Borrowed(_)));
    }

    #[test]
    fn toolbar_without_end_marker_loses_only_the_marker() {
        let html = format!("<body>{TOOLBAR_BEGIN}<p>story</p>");
        assert_eq!(strip_toolbar(&html), "<body><p>story</p>");
    }

    #[test]
    fn reads_capture_from_replay_script() {
        let html = r#"<script>__wm.init("https://web.archive.org/web");
  __wm.wombat("http://www.bbc.co.uk/news/uk-1","20150102030405","https://web.archive.org/","web","/_static/");</script>"#;
        assert!(is_viewer_page(html));
        assert_eq!(
            viewer_capture(html),
            Some(ViewerCapture {
                url: "http://www.bbc.co.uk/news/uk-1".into(),
                timestamp: "20150102030405".into()
            })
        );
        assert_eq!(viewer_capture("<p>raw</p>"), None);
        // The window read after the call may end inside a multi-byte character.
        let long = format!("__wm.wombat(\"x\"{}", "é".repeat(3000));
        assert_eq!(viewer_capture(&long), None);
        assert!(!is_viewer_page("<p>raw</p>"));
    }
}
