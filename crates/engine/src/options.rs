//! A stage's options: parsed from its TOML table with the key path of the
//! first bad value, and documented from their schema for `tempora stages`.

use serde::de::DeserializeOwned;

/// A problem with one option of a stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    /// The option, when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl OptionError {
    /// A problem with the option `key`.
    pub fn at(key: &str, message: String) -> Self {
        Self {
            key: Some(key.to_string()),
            message,
        }
    }

    /// A problem with the options as a whole (no one option is at fault).
    pub fn whole(message: String) -> Self {
        Self { key: None, message }
    }
}

/// Parses a stage's options into `T` (a `deny_unknown_fields` struct).
///
/// # Errors
/// The deserializer's message, with the key path of the unknown, missing or
/// mistyped option (`sets[1].from`).
pub fn parse_options<T: DeserializeOwned>(table: toml::Table) -> Result<T, Vec<OptionError>> {
    deserialize_located(toml::Value::Table(table)).map_err(|e| vec![e])
}

/// Deserializes `value`, naming the key path of the first problem: the path serde
/// was at (`sets[1].from`), or for a missing or unknown field, that field under it.
pub(crate) fn deserialize_located<T: DeserializeOwned>(
    value: toml::Value,
) -> Result<T, OptionError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let message = e.inner().message().trim().to_string();
        let mut key = e.path().to_string();
        if key == "." {
            key.clear();
        }
        // serde names the field itself only in these messages, in backticks; any other
        // message may quote a value ("unknown variant `facts`"), which is no key.
        let named = ["missing field `", "unknown field `"]
            .iter()
            .find_map(|prefix| message.strip_prefix(prefix))
            .and_then(|rest| rest.split('`').next());
        if let Some(field) = named {
            if key.rsplit(['.', '[']).next() != Some(field) {
                key = if key.is_empty() {
                    field.to_string()
                } else {
                    format!("{key}.{field}")
                };
            }
        }
        OptionError {
            key: (!key.is_empty()).then_some(key),
            message: with_date_format(message),
        }
    })
}

/// chrono's words for a value that is not a date, with the format it wants.
const NOT_A_DATE: [&str; 5] = [
    "expected a formatted date string",
    "input contains invalid characters",
    "premature end of input",
    "trailing input",
    "input is out of range",
];

/// A message about a value that is not a date names the format expected.
fn with_date_format(message: String) -> String {
    if NOT_A_DATE.iter().any(|words| message.contains(words)) {
        format!("not a date ({message}): write it YYYY-MM-DD, such as 2023-12-31")
    } else {
        message
    }
}

/// One documented option of a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionDoc {
    /// The key.
    pub name: String,
    /// Its type in words.
    pub ty: String,
    /// Its default, as JSON, when it has one.
    pub default: Option<String>,
    /// Whether it must be given.
    pub required: bool,
    /// Its `///` doc.
    pub doc: String,
}

/// Reads the options of a kind out of its JSON schema.
pub fn option_docs(schema: &schemars::Schema) -> Vec<OptionDoc> {
    let value = schema.as_value();
    let required: Vec<&str> = value
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let Some(props) = value.get("properties").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, prop)| OptionDoc {
            name: name.clone(),
            ty: type_name(prop, value),
            default: prop
                .get("default")
                .filter(|d| !d.is_null())
                .map(|d| d.to_string()),
            required: required.contains(&name.as_str()),
            doc: prop
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or("")
                .to_string(),
        })
        .collect()
}

fn type_name(prop: &serde_json::Value, root: &serde_json::Value) -> String {
    if let Some(reference) = prop.get("$ref").and_then(|r| r.as_str()) {
        let target = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| root.get("$defs")?.get(name));
        return match target {
            Some(t) if t.get("enum").is_some() || t.get("oneOf").is_some() => {
                enum_values(t).unwrap_or_else(|| "string".into())
            }
            Some(t) => type_name(t, root),
            None => "table".into(),
        };
    }
    if let Some(values) = enum_values(prop) {
        return values;
    }
    if let Some(one) = prop
        .get("anyOf")
        .or_else(|| prop.get("oneOf"))
        .and_then(|a| a.as_array())
    {
        let names: Vec<String> = one
            .iter()
            .map(|s| type_name(s, root))
            .filter(|n| n != "null")
            .collect();
        return names.join(" or ");
    }
    let format = prop.get("format").and_then(|f| f.as_str());
    match (prop.get("type"), format) {
        (_, Some("date")) => "date".into(),
        (Some(serde_json::Value::String(t)), _) if t == "array" => {
            let item = prop
                .get("items")
                .map(|i| type_name(i, root))
                .unwrap_or_else(|| "value".into());
            format!("list of {item}")
        }
        (Some(serde_json::Value::String(t)), _) => match t.as_str() {
            "object" => "table".into(),
            other => other.into(),
        },
        (Some(serde_json::Value::Array(ts)), _) => ts
            .iter()
            .filter_map(|t| t.as_str())
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "value".into(),
    }
}

fn enum_values(schema: &serde_json::Value) -> Option<String> {
    if let Some(values) = schema.get("enum").and_then(|e| e.as_array()) {
        let names: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        return Some(names.join(" \\| "));
    }
    let variants = schema.get("oneOf")?.as_array()?;
    let names: Option<Vec<String>> = variants
        .iter()
        .map(|v| v.get("const").map(|c| c.to_string()))
        .collect();
    names.map(|n| n.join(" \\| "))
}
