//! Decoding an archived HTML page's bytes to text by the charset its archived
//! `Content-Type` header or its own `<meta charset>` declares. Pages keep their
//! bytes as archived; only extraction reads them as text.

/// Decodes an archived HTML payload to text: by the charset of `content_type` (the
/// archived `Content-Type` header), then a BOM or a `<meta charset>` in the first
/// KiB, then UTF-8 when valid, else Windows-1252 (what browsers assume for old
/// Western pages declared ISO-8859-1).
pub fn decode_html(body: &[u8], content_type: Option<&str>) -> String {
    let declared = content_type
        .and_then(charset_param)
        .or_else(|| sniff_meta_charset(body))
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()));
    // Archived headers are often stale. Text in a single-byte legacy encoding with
    // non-ASCII bytes is almost never valid UTF-8, so valid UTF-8 wins over such a
    // declaration (XSum, too, read every page as UTF-8).
    let utf8 = std::str::from_utf8(body).ok();
    let valid_utf8 = utf8.is_some();
    let encoding = match declared {
        Some(e) if valid_utf8 && e.is_single_byte() && !body.is_ascii() => encoding_rs::UTF_8,
        Some(e) => e,
        None if valid_utf8 => encoding_rs::UTF_8,
        None => encoding_rs::WINDOWS_1252,
    };
    // Valid UTF-8 read as UTF-8 is itself, unless it starts with a BOM (which
    // `decode` removes): no need to check it again.
    if let Some(text) =
        utf8.filter(|t| encoding == encoding_rs::UTF_8 && !t.starts_with('\u{feff}'))
    {
        return text.to_owned();
    }
    let (text, _, _) = encoding.decode(body);
    text.into_owned()
}

fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']).to_string())
    })
}

fn sniff_meta_charset(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(2048)];
    let head = String::from_utf8_lossy(head).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let value: String = head[at..]
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        .collect();
    (!value.is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_by_declared_charset_then_meta_then_utf8() {
        assert_eq!(
            decode_html(b"caf\xe9", Some("text/html; charset=ISO-8859-1")),
            "café"
        );
        assert_eq!(
            decode_html(b"<meta charset=\"windows-1252\">\x93q\x94", None),
            "<meta charset=\"windows-1252\">\u{201c}q\u{201d}"
        );
        assert_eq!(decode_html("café".as_bytes(), None), "café");
        // A stale ISO-8859-1 header on a UTF-8 body: the body wins.
        assert_eq!(
            decode_html("café".as_bytes(), Some("text/html; charset=iso-8859-1")),
            "café"
        );
        // Invalid UTF-8 without a declaration: Windows-1252, never a replacement character.
        assert_eq!(decode_html(b"caf\xe9", None), "café");
        // A UTF-8 BOM goes, whatever the declaration.
        assert_eq!(decode_html("\u{feff}café".as_bytes(), None), "café");
        assert_eq!(
            decode_html(
                "\u{feff}café".as_bytes(),
                Some("text/html; charset=iso-8859-1")
            ),
            "café"
        );
    }

    #[test]
    fn pages_as_the_crawler_keeps_them_decode() {
        // The bytes and header the wayback crate's fetch and WARC tests check it keeps.
        let latin1 = Some("text/html; charset=iso-8859-1");
        let fetched = b"<html><body>caf\xe9 na\xefve</body></html>";
        assert!(decode_html(fetched, latin1).contains("café naïve"));
        let saved = b"<html><head><meta http-equiv=\"Content-Type\" \
            content=\"text/html; charset=iso-8859-1\"><title>Caf\xe9 wins award</title>\
            </head>\n<body><p>The caf\xe9 won";
        assert!(decode_html(saved, latin1).contains("The café won"));
        assert!(decode_html(saved, None).contains("The café won"));
    }
}
