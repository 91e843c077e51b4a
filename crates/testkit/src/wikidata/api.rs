//! The Wikibase API (`/w/api.php`) as MediaWiki answers it, for
//! `action=wbgetentities` with `ids`, `props`, `languages`, `maxlag`.
//!
//! MediaWiki's JSON (formatversion 1): compact, `/` not escaped
//! (`FormatJson` sets `JSON_UNESCAPED_SLASHES`), non-ASCII as `\uXXXX` unless
//! `utf8=1` or `formatversion=2`, `<`, `>`, `&` left as they are (the API
//! passes `XMLMETA_OK`). Errors are HTTP 200 with `{"error":{...},"servedby":..}`
//! and a `MediaWiki-API-Error` header; a `maxlag` error adds `Retry-After`
//! (`max(maxlag, 5)`) and `X-Database-Lag` (the lag, whole seconds), as
//! `ApiMain::checkMaxLag` does.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::cdx::Answer;

/// Ids one request may ask for (`apihighlimits` raises it to 500; this mock has no bots).
pub const IDS_LIMIT: usize = 50;

const SERVED_BY: &str = "mw-api-ext.mock.1";
const HOST: &str = "10.64.0.1";
const USAGE: &str = "See http://127.0.0.1/w/api.php for API usage. Subscribe to the mediawiki-api-announce mailing list at &lt;https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce.lists.wikimedia.org/&gt; for notice of API deprecations and breaking changes.";

/// What the API module needs from the model.
pub(crate) struct ApiView<'a> {
    pub entities: &'a BTreeMap<String, Value>,
    /// The replication lag now, seconds.
    pub lag: f64,
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    // MediaWiki takes the last value of a repeated parameter.
    params
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The answer to one API request with these (decoded) parameters.
pub(crate) fn answer(view: &ApiView<'_>, params: &[(String, String)]) -> Answer {
    let utf8 = param(params, "utf8").is_some_and(|v| !v.is_empty() && v != "0")
        || param(params, "formatversion") == Some("2");
    let action = param(params, "action").unwrap_or("help");
    if action != "wbgetentities" {
        return error(
            "badvalue",
            &format!("Unrecognized value for parameter \"action\": {action}."),
            &[],
            utf8,
        );
    }
    if let Some(maxlag) = param(params, "maxlag") {
        let Ok(maxlag) = maxlag.trim().parse::<i64>() else {
            return error(
                "badinteger",
                &format!("Invalid value \"{maxlag}\" for integer parameter \"maxlag\"."),
                &[],
                utf8,
            );
        };
        if view.lag > maxlag as f64 {
            let lag = view.lag;
            let mut answer = error(
                "maxlag",
                &format!("Waiting for {HOST}: {lag} seconds lagged."),
                &[
                    ("host", Value::from(HOST)),
                    ("lag", number(lag)),
                    ("type", Value::from("db")),
                ],
                utf8,
            );
            answer
                .headers
                .push(("Retry-After".into(), maxlag.max(5).to_string()));
            answer
                .headers
                .push(("X-Database-Lag".into(), (lag as i64).to_string()));
            return answer;
        }
    }
    let ids: Vec<&str> = param(params, "ids")
        .map(|v| v.split('|').filter(|s| !s.is_empty()).collect())
        .unwrap_or_default();
    if ids.is_empty() {
        return error(
            "param-missing",
            "Either provide the item \"ids\" or pairs of \"sites\" and \"titles\" for corresponding pages",
            &[],
            utf8,
        );
    }
    if ids.len() > IDS_LIMIT {
        return error(
            "toomanyvalues",
            &format!("Too many values supplied for parameter \"ids\". The limit is {IDS_LIMIT}."),
            &[
                ("limit", Value::from(IDS_LIMIT)),
                ("lowlimit", Value::from(IDS_LIMIT)),
                ("highlimit", Value::from(500)),
            ],
            utf8,
        );
    }
    let props: Vec<&str> = param(params, "props")
        .unwrap_or("info|sitelinks|aliases|labels|descriptions|claims|datatype")
        .split('|')
        .collect();
    let languages: Option<Vec<&str>> = param(params, "languages").map(|v| v.split('|').collect());

    let mut out = String::from("{\"entities\":{");
    let mut seen: Vec<String> = Vec::new();
    for raw in ids {
        let id = raw.trim().to_ascii_uppercase();
        if !is_entity_id(&id) {
            return error(
                "no-such-entity",
                &format!("Could not find an entity with the ID \"{raw}\"."),
                &[("id", Value::from(raw))],
                utf8,
            );
        }
        if seen.contains(&id) {
            continue;
        }
        if !seen.is_empty() {
            out.push(',');
        }
        write_string(&mut out, &id, utf8);
        out.push(':');
        match view.entities.get(&id) {
            Some(entity) => write_entity(&mut out, entity, &props, languages.as_deref(), utf8),
            None => {
                out.push_str("{\"id\":");
                write_string(&mut out, &id, utf8);
                out.push_str(",\"missing\":\"\"}");
            }
        }
        seen.push(id);
    }
    out.push_str("},\"success\":1}");
    json_answer(out)
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

fn is_entity_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some('Q' | 'P' | 'L'))
        && id.len() > 1
        && chars.all(|c| c.is_ascii_digit())
        && !id[1..].starts_with('0')
}

/// One entity as `wbgetentities` writes it: info first, then the asked props,
/// terms only in the asked languages.
fn write_entity(
    out: &mut String,
    entity: &Value,
    props: &[&str],
    languages: Option<&[&str]>,
    utf8: bool,
) {
    let has = |p: &str| props.contains(&p);
    let mut fields: Vec<(&str, Value)> = Vec::new();
    let get = |k: &str| entity.get(k).cloned();
    if has("info") {
        for key in ["pageid", "ns", "title", "lastrevid", "modified"] {
            if let Some(v) = get(key) {
                fields.push((key, v));
            }
        }
    }
    if let Some(v) = get("type") {
        fields.push(("type", v));
    }
    if has("datatype") {
        if let Some(v) = get("datatype") {
            fields.push(("datatype", v));
        }
    }
    if let Some(v) = get("id") {
        fields.push(("id", v));
    }
    for key in ["labels", "descriptions", "aliases"] {
        if has(key) {
            let mut terms = get(key).unwrap_or_else(|| Value::Object(Default::default()));
            if let (Some(langs), Value::Object(map)) = (languages, &mut terms) {
                map.retain(|lang, _| langs.contains(&lang.as_str()));
            }
            fields.push((key, terms));
        }
    }
    for key in ["claims", "sitelinks"] {
        if has(key) {
            fields.push((
                key,
                get(key).unwrap_or_else(|| Value::Object(Default::default())),
            ));
        }
    }
    out.push('{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key, utf8);
        out.push(':');
        write_value(out, value, utf8);
    }
    out.push('}');
}

/// A MediaWiki API error (formatversion 1, `errorformat=bc`).
pub(crate) fn error(code: &str, info: &str, data: &[(&str, Value)], utf8: bool) -> Answer {
    let mut out = String::from("{\"error\":{\"code\":");
    write_string(&mut out, code, utf8);
    out.push_str(",\"info\":");
    write_string(&mut out, info, utf8);
    for (key, value) in data {
        out.push(',');
        write_string(&mut out, key, utf8);
        out.push(':');
        write_value(&mut out, value, utf8);
    }
    out.push_str(",\"*\":");
    write_string(&mut out, USAGE, utf8);
    out.push_str("},\"servedby\":");
    write_string(&mut out, SERVED_BY, utf8);
    out.push('}');
    let mut answer = json_answer(out);
    answer
        .headers
        .push(("MediaWiki-API-Error".into(), code.to_string()));
    answer
}

fn json_answer(body: String) -> Answer {
    Answer {
        status: 200,
        headers: vec![
            (
                "Content-Type".into(),
                "application/json; charset=utf-8".into(),
            ),
            (
                "Cache-Control".into(),
                "private, must-revalidate, max-age=0".into(),
            ),
        ],
        body: body.into_bytes(),
    }
}

/// `value` as PHP's `json_encode` writes it with MediaWiki's flags.
pub fn write_value(out: &mut String, value: &Value, utf8: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => write_string(out, s, utf8),
        Value::Array(list) => {
            out.push('[');
            for (i, v) in list.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, v, utf8);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k, utf8);
                out.push(':');
                write_value(out, v, utf8);
            }
            out.push('}');
        }
    }
}

/// A JSON string as PHP writes it: `/` as is, non-ASCII as `\uXXXX`
/// (lowercase hex, surrogate pairs) unless `utf8`.
pub fn write_string(out: &mut String, s: &str, utf8: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if c.is_ascii() || utf8 => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_mediawiki_does() {
        let mut out = String::new();
        write_string(&mut out, "Écosse/𝄞 <b>&\"", false);
        assert_eq!(out, r#""\u00c9cosse/\ud834\udd1e <b>&\"""#);
        out.clear();
        write_string(&mut out, "Écosse/", true);
        assert_eq!(out, "\"Écosse/\"");
    }

    #[test]
    fn entity_ids_are_checked() {
        assert!(is_entity_id("Q42"));
        assert!(is_entity_id("P580"));
        assert!(!is_entity_id("Q"));
        assert!(!is_entity_id("Q042"));
        assert!(!is_entity_id("foo"));
    }
}
