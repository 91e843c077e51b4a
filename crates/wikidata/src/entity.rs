//! One entity line of the dump, read into what the facts need: the entity's names in
//! the configured languages and its statements of the configured relations.
//!
//! Only the parts we use are decoded; the rest is skipped by serde without building
//! values. Wikidata writes an empty map as `[]` (a PHP habit), so every map here
//! also accepts an empty list.

use std::borrow::Cow;
use std::collections::HashMap;

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::time::{Calendar, TimeError, WikiTime};

/// Qualifier: start time.
const START: &str = "P580";
/// Qualifier: end time.
const END: &str = "P582";
/// Qualifier: replaces.
const REPLACES: &str = "P1365";
/// Qualifier: replaced by.
const REPLACED_BY: &str = "P1366";

/// An entity's names in the configured languages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    /// Label in the first configured language that has one.
    pub label: Option<String>,
    /// Labels in the other languages and aliases in all of them, without repeats.
    pub aliases: Vec<String>,
}

/// A bound of a statement's period (start or end qualifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// No such qualifier, or `novalue` (for an end: still held).
    Absent,
    /// `somevalue`: there is a date, nobody knows it.
    Unknown,
    /// A known date.
    Known(WikiTime),
}

/// A statement of one of the configured relations, read from an entity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldStatement {
    /// The relation (`P39`, `P1308`).
    pub relation: String,
    /// Id of the value entity.
    pub object: String,
    /// P580.
    pub start: Bound,
    /// P582.
    pub end: Bound,
    /// P1365, an entity id.
    pub replaces: Option<String>,
    /// P1366, an entity id.
    pub replaced_by: Option<String>,
    /// `preferred` or `normal`.
    pub rank: String,
}

/// A statement that was dropped because a value in it is unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadStatement {
    /// Statement id (`Q6279$...`) when the dump gives one.
    pub statement: Option<String>,
    /// The relation.
    pub relation: String,
    /// Why, naming the qualifier.
    pub reason: String,
}

/// What one candidate line holds for us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedEntity {
    /// `Q6279`.
    pub id: String,
    /// Its names.
    pub names: Names,
    /// Usable statements of the configured relations (deprecated ones and those without
    /// a value entity are left out).
    pub statements: Vec<HeldStatement>,
    /// Statements dropped for a bad value, with the reason.
    pub bad: Vec<BadStatement>,
    /// How many statements the line holds of each configured relation, in the
    /// order of the relations asked for (deprecated and unusable ones included).
    pub held: Vec<u32>,
}

#[derive(Deserialize)]
struct EntityLine<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "map_or_empty_list")]
    labels: HashMap<Cow<'a, str>, &'a RawValue>,
    #[serde(default, borrow, deserialize_with = "map_or_empty_list")]
    aliases: HashMap<Cow<'a, str>, &'a RawValue>,
    #[serde(default, borrow, deserialize_with = "map_or_empty_list")]
    claims: HashMap<Cow<'a, str>, &'a RawValue>,
}

#[derive(Deserialize)]
struct LangValue<'a> {
    #[serde(borrow)]
    value: Cow<'a, str>,
}

#[derive(Deserialize)]
struct Statement<'a> {
    #[serde(borrow)]
    mainsnak: Snak<'a>,
    #[serde(default, borrow, deserialize_with = "map_or_empty_list")]
    qualifiers: HashMap<Cow<'a, str>, Vec<Snak<'a>>>,
    #[serde(borrow)]
    rank: Cow<'a, str>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Snak<'a> {
    #[serde(borrow)]
    snaktype: Cow<'a, str>,
    #[serde(default, borrow)]
    datavalue: Option<DataValue<'a>>,
}

#[derive(Deserialize)]
struct DataValue<'a> {
    #[serde(borrow)]
    value: &'a RawValue,
}

#[derive(Deserialize)]
struct ItemValue<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, rename = "numeric-id")]
    numeric_id: Option<u64>,
    #[serde(default, rename = "entity-type", borrow)]
    entity_type: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct TimeValue<'a> {
    #[serde(borrow)]
    time: Cow<'a, str>,
    precision: i64,
    #[serde(default, borrow)]
    calendarmodel: Option<Cow<'a, str>>,
}

/// Accepts a JSON object, or `[]` for an empty one. (An untagged enum would buffer
/// the value and lose the borrowed strings and raw values.)
fn map_or_empty_list<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    struct MapOrEmpty<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for MapOrEmpty<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object or an empty list")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(MapAccessDeserializer::new(map))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
            match seq.next_element::<IgnoredAny>()? {
                None => Ok(T::default()),
                Some(_) => Err(serde::de::Error::custom(
                    "expected an object, found a non-empty list",
                )),
            }
        }
    }
    d.deserialize_any(MapOrEmpty(PhantomData))
}

/// Reads a candidate line (without its trailing `,`).
///
/// # Errors
/// The JSON error when the line is not an entity (malformed JSON, no `id`, a claim
/// that is not a list of statements).
pub fn parse_entity(
    line: &[u8],
    relations: &[String],
    languages: &[String],
) -> Result<ParsedEntity, serde_json::Error> {
    let entity: EntityLine<'_> = serde_json::from_slice(line)?;
    let names = names(&entity.labels, &entity.aliases, languages)?;
    let mut statements = Vec::new();
    let mut bad = Vec::new();
    let mut held = vec![0u32; relations.len()];
    for (relation, held) in relations.iter().zip(&mut held) {
        let Some(raw) = entity.claims.get(relation.as_str()) else {
            continue;
        };
        let claims: Vec<Statement<'_>> = serde_json::from_str(raw.get())?;
        *held = u32::try_from(claims.len()).unwrap_or(u32::MAX);
        for claim in claims {
            match held_statement(relation, &claim) {
                Ok(Some(s)) => statements.push(s),
                Ok(None) => {}
                Err(reason) => bad.push(BadStatement {
                    statement: claim.id.map(Cow::into_owned),
                    relation: relation.clone(),
                    reason,
                }),
            }
        }
    }
    Ok(ParsedEntity {
        id: entity.id.into_owned(),
        names,
        statements,
        bad,
        held,
    })
}

/// Reads only the names of an entity line (for objects of facts).
///
/// # Errors
/// The JSON error when the line is not an entity.
pub fn parse_names(
    line: &[u8],
    languages: &[String],
) -> Result<(String, Names), serde_json::Error> {
    #[derive(Deserialize)]
    struct NamesOnly<'a> {
        #[serde(borrow)]
        id: Cow<'a, str>,
        #[serde(default, borrow, deserialize_with = "map_or_empty_list")]
        labels: HashMap<Cow<'a, str>, &'a RawValue>,
        #[serde(default, borrow, deserialize_with = "map_or_empty_list")]
        aliases: HashMap<Cow<'a, str>, &'a RawValue>,
    }
    let e: NamesOnly<'_> = serde_json::from_slice(line)?;
    Ok((e.id.into_owned(), names(&e.labels, &e.aliases, languages)?))
}

fn names(
    labels: &HashMap<Cow<'_, str>, &RawValue>,
    aliases: &HashMap<Cow<'_, str>, &RawValue>,
    languages: &[String],
) -> Result<Names, serde_json::Error> {
    let mut out = Names::default();
    let push = |name: Cow<'_, str>, out: &mut Names| {
        if out.label.as_deref() != Some(&*name) && !out.aliases.iter().any(|a| *a == *name) {
            out.aliases.push(name.into_owned());
        }
    };
    for lang in languages {
        if let Some(raw) = labels.get(lang.as_str()) {
            let label: LangValue<'_> = serde_json::from_str(raw.get())?;
            if out.label.is_none() {
                out.label = Some(label.value.into_owned());
            } else {
                push(label.value, &mut out);
            }
        }
    }
    for lang in languages {
        if let Some(raw) = aliases.get(lang.as_str()) {
            let list: Vec<LangValue<'_>> = serde_json::from_str(raw.get())?;
            for alias in list {
                push(alias.value, &mut out);
            }
        }
    }
    Ok(out)
}

/// The statement as we keep it; `None` when it says nothing usable (deprecated, or
/// `somevalue`/`novalue` instead of an entity); `Err` with a reason for bad values.
fn held_statement(relation: &str, claim: &Statement<'_>) -> Result<Option<HeldStatement>, String> {
    if claim.rank == "deprecated" {
        return Ok(None);
    }
    let Some(object) = item_id(&claim.mainsnak).map_err(|e| format!("{relation} value: {e}"))?
    else {
        return Ok(None);
    };
    let start = bound(START, claim.qualifiers.get(START))?;
    let end = bound(END, claim.qualifiers.get(END))?;
    let replaces =
        first_item(claim.qualifiers.get(REPLACES)).map_err(|e| format!("{REPLACES}: {e}"))?;
    let replaced_by =
        first_item(claim.qualifiers.get(REPLACED_BY)).map_err(|e| format!("{REPLACED_BY}: {e}"))?;
    Ok(Some(HeldStatement {
        relation: relation.to_string(),
        object,
        start,
        end,
        replaces,
        replaced_by,
        rank: claim.rank.clone().into_owned(),
    }))
}

/// The entity id of a `value` snak; `None` for `somevalue`/`novalue`.
fn item_id(snak: &Snak<'_>) -> Result<Option<String>, String> {
    if snak.snaktype != "value" {
        return Ok(None);
    }
    let Some(dv) = &snak.datavalue else {
        return Err("a value snak without a datavalue".into());
    };
    let item: ItemValue<'_> =
        serde_json::from_str(dv.value.get()).map_err(|e| format!("not an entity: {e}"))?;
    match (item.id, item.numeric_id) {
        (Some(id), _) => Ok(Some(id.into_owned())),
        (None, Some(n)) => {
            let prefix = match item.entity_type.as_deref() {
                Some("property") => 'P',
                Some("lexeme") => 'L',
                _ => 'Q',
            };
            Ok(Some(format!("{prefix}{n}")))
        }
        (None, None) => Err("an entity value without an id".into()),
    }
}

fn first_item(snaks: Option<&Vec<Snak<'_>>>) -> Result<Option<String>, String> {
    for snak in snaks.into_iter().flatten() {
        if let Some(id) = item_id(snak)? {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// The first start/end qualifier: a value, `somevalue` (unknown) or absent.
fn bound(property: &str, snaks: Option<&Vec<Snak<'_>>>) -> Result<Bound, String> {
    let Some(snak) = snaks.and_then(|s| s.first()) else {
        return Ok(Bound::Absent);
    };
    match snak.snaktype.as_ref() {
        "somevalue" => return Ok(Bound::Unknown),
        "value" => {}
        _ => return Ok(Bound::Absent),
    }
    let dv = snak
        .datavalue
        .as_ref()
        .ok_or_else(|| format!("{property}: a value snak without a datavalue"))?;
    let tv: TimeValue<'_> = serde_json::from_str(dv.value.get())
        .map_err(|e| format!("{property}: not a time value: {e}"))?;
    let calendar = tv
        .calendarmodel
        .as_deref()
        .map_or(Calendar::Gregorian, Calendar::from_model);
    WikiTime::parse(&tv.time, tv.precision, calendar)
        .map(Bound::Known)
        .map_err(|e: TimeError| format!("{property}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn langs(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    const BIDEN: &str = r#"{"type":"item","id":"Q6279","labels":{"en":{"language":"en","value":"Joe Biden"},"de":{"language":"de","value":"Joe Biden"},"fr":{"language":"fr","value":"Joseph Biden"}},"descriptions":{"en":{"language":"en","value":"president of the United States since 2021"}},"aliases":{"en":[{"language":"en","value":"Biden"},{"language":"en","value":"Joseph Robinette Biden Jr."}]},"claims":{"P31":[{"mainsnak":{"snaktype":"value","property":"P31","datavalue":{"value":{"entity-type":"item","numeric-id":5,"id":"Q5"},"type":"wikibase-entityid"},"datatype":"wikibase-item"},"type":"statement","id":"Q6279$1","rank":"normal"}],"P39":[{"mainsnak":{"snaktype":"value","property":"P39","datavalue":{"value":{"entity-type":"item","numeric-id":11699,"id":"Q11699"},"type":"wikibase-entityid"},"datatype":"wikibase-item"},"type":"statement","qualifiers":{"P580":[{"snaktype":"value","property":"P580","datavalue":{"value":{"time":"+2009-01-20T00:00:00Z","timezone":0,"before":0,"after":0,"precision":11,"calendarmodel":"http:\/\/www.wikidata.org\/entity\/Q1985727"},"type":"time"},"datatype":"time"}],"P582":[{"snaktype":"value","property":"P582","datavalue":{"value":{"time":"+2017-01-20T00:00:00Z","timezone":0,"before":0,"after":0,"precision":11,"calendarmodel":"http:\/\/www.wikidata.org\/entity\/Q1985727"},"type":"time"},"datatype":"time"}],"P1366":[{"snaktype":"value","property":"P1366","datavalue":{"value":{"entity-type":"item","numeric-id":24313,"id":"Q24313"},"type":"wikibase-entityid"},"datatype":"wikibase-item"}]},"id":"Q6279$2","rank":"normal"},{"mainsnak":{"snaktype":"value","property":"P39","datavalue":{"value":{"entity-type":"item","numeric-id":11696},"type":"wikibase-entityid"},"datatype":"wikibase-item"},"type":"statement","qualifiers":{"P580":[{"snaktype":"value","property":"P580","datavalue":{"value":{"time":"+2021-01-20T00:00:00Z","timezone":0,"before":0,"after":0,"precision":11,"calendarmodel":"http:\/\/www.wikidata.org\/entity\/Q1985727"},"type":"time"},"datatype":"time"}],"P582":[{"snaktype":"novalue","property":"P582","datatype":"time"}]},"id":"Q6279$3","rank":"preferred"},{"mainsnak":{"snaktype":"somevalue","property":"P39","datatype":"wikibase-item"},"type":"statement","id":"Q6279$4","rank":"normal"},{"mainsnak":{"snaktype":"value","property":"P39","datavalue":{"value":{"entity-type":"item","numeric-id":1,"id":"Q1"},"type":"wikibase-entityid"},"datatype":"wikibase-item"},"type":"statement","id":"Q6279$5","rank":"deprecated"}]},"sitelinks":[]}"#;

    #[test]
    fn reads_statements_qualifiers_and_ranks() {
        let e = parse_entity(BIDEN.as_bytes(), &langs(&["P39"]), &langs(&["en"])).unwrap();
        assert_eq!(e.id, "Q6279");
        assert_eq!(
            e.statements.len(),
            2,
            "somevalue and deprecated statements are left out"
        );
        assert_eq!(e.held, [4], "but they are counted as held");
        let none = parse_entity(BIDEN.as_bytes(), &langs(&["P286", "P39"]), &langs(&["en"]));
        assert_eq!(none.unwrap().held, [0, 4], "in the order asked for");
        let vp = &e.statements[0];
        assert_eq!(vp.object, "Q11699");
        assert!(matches!(vp.start, Bound::Known(t) if t.to_iso() == "2009-01-20"));
        assert!(matches!(vp.end, Bound::Known(t) if t.to_iso() == "2017-01-20"));
        assert_eq!(vp.replaced_by.as_deref(), Some("Q24313"));
        let president = &e.statements[1];
        assert_eq!(president.object, "Q11696", "numeric-id alone is enough");
        assert_eq!(president.end, Bound::Absent, "novalue end: still in office");
        assert_eq!(president.rank, "preferred");
        assert!(e.bad.is_empty());
    }

    #[test]
    fn names_in_configured_languages() {
        let e = parse_entity(BIDEN.as_bytes(), &[], &langs(&["en", "fr"])).unwrap();
        assert_eq!(e.names.label.as_deref(), Some("Joe Biden"));
        assert_eq!(
            e.names.aliases,
            ["Joseph Biden", "Biden", "Joseph Robinette Biden Jr."]
        );
        let e = parse_entity(BIDEN.as_bytes(), &[], &langs(&["es"])).unwrap();
        assert_eq!(e.names, Names::default());
        let (id, names) = parse_names(BIDEN.as_bytes(), &langs(&["de"])).unwrap();
        assert_eq!(
            (id.as_str(), names.label.as_deref()),
            ("Q6279", Some("Joe Biden"))
        );
    }

    #[test]
    fn bad_dates_reject_the_statement_with_a_reason() {
        let line = BIDEN.replace("+2009-01-20T00", "+2009-02-30T00");
        let e = parse_entity(line.as_bytes(), &langs(&["P39"]), &langs(&["en"])).unwrap();
        assert_eq!(e.statements.len(), 1);
        assert_eq!(e.bad.len(), 1);
        assert_eq!(e.bad[0].statement.as_deref(), Some("Q6279$2"));
        assert!(
            e.bad[0].reason.contains("day 30 does not exist"),
            "{}",
            e.bad[0].reason
        );
        let line = BIDEN.replace("+2021-01-20T00:00:00Z", "yesterday");
        let e = parse_entity(line.as_bytes(), &langs(&["P39"]), &langs(&["en"])).unwrap();
        assert!(
            e.bad[0].reason.contains("malformed time `yesterday`"),
            "{}",
            e.bad[0].reason
        );
    }

    #[test]
    fn empty_maps_written_as_lists_are_accepted() {
        let line = r#"{"type":"item","id":"Q1","labels":[],"aliases":[],"claims":[]}"#;
        let e = parse_entity(line.as_bytes(), &langs(&["P39"]), &langs(&["en"])).unwrap();
        assert_eq!((e.id.as_str(), e.statements.len()), ("Q1", 0));
    }

    #[test]
    fn malformed_lines_are_errors() {
        assert!(parse_entity(b"{\"type\":\"item\",\"id\":", &[], &[]).is_err());
        assert!(parse_entity(b"{\"type\":\"item\"}", &[], &[]).is_err());
        assert!(parse_entity(
            br#"{"id":"Q1","claims":{"P39":{"x":1}}}"#,
            &langs(&["P39"]),
            &[]
        )
        .is_err());
    }
}
