//! The model's evolving pairs (a position whose holder changed) and the
//! Wikidata facts the `wikidata` stage would write of them.

/// An evolving pair of the model: a position, its holder until `changed`, and after.
pub(super) struct Pair {
    pub(super) position: (&'static str, &'static str),
    pub(super) before: (&'static str, &'static str),
    pub(super) after: (&'static str, &'static str),
    pub(super) since: &'static str,
    pub(super) changed: &'static str,
}

pub(super) const PAIRS: [Pair; 3] = [
    Pair {
        position: ("Q9100001", "Mayor of Harwick"),
        before: ("Q9100011", "Edwin Tallis"),
        after: ("Q9100012", "Priya Vance"),
        since: "2012-05-03",
        changed: "2020-05-07",
    },
    Pair {
        position: ("Q9100002", "Chief Constable of Dunmere"),
        before: ("Q9100021", "Owen Radley"),
        after: ("Q9100022", "Lena Castell"),
        since: "2011-09-01",
        changed: "2021-02-01",
    },
    Pair {
        position: ("Q9100003", "Harbourmaster of Selby Bay"),
        before: ("Q9100031", "Marta Quill"),
        after: ("Q9100032", "Tobias Wren"),
        since: "2010-01-10",
        changed: "2020-09-14",
    },
];

/// The facts of the model's evolving pairs (`P1308`: position -> holder), as the
/// `wikidata` stage writes them with cutoff 2019-12-31.
pub(super) fn facts_jsonl() -> String {
    let mut out = String::new();
    for pair in &PAIRS {
        for (holder, start, end, valid) in [
            (pair.before, pair.since, Some(pair.changed), true),
            (pair.after, pair.changed, None, false),
        ] {
            let fact = serde_json::json!({
                "subject": { "id": pair.position.0, "label": pair.position.1, "aliases": [] },
                "relation": "P1308",
                "object": { "id": holder.0, "label": holder.1, "aliases": [] },
                "start": start,
                "end": end,
                "rank": "normal",
                "valid_at_cutoff": valid,
                "pair_changed": pair.changed,
            });
            out.push_str(&fact.to_string());
            out.push('\n');
        }
    }
    out
}

/// The model's Wikidata entities, as dump lines would hold them: each position
/// with its `P1308` (officeholder) statements, each holder with its `P39`
/// (position held). The `wikidata` stage reads the facts of
/// [`facts_jsonl`] from them.
pub fn entities() -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for pair in &PAIRS {
        let held = [
            (pair.before, pair.since, Some(pair.changed)),
            (pair.after, pair.changed, None),
        ];
        let holders = held
            .iter()
            .enumerate()
            .map(|(i, (holder, start, end))| {
                statement(pair.position.0, i, "P1308", holder.0, start, *end)
            })
            .collect::<Vec<_>>();
        out.push(entity(pair.position, "P1308", holders));
        for (holder, start, end) in held {
            let position = statement(holder.0, 0, "P39", pair.position.0, start, end);
            out.push(entity(holder, "P39", vec![position]));
        }
    }
    out
}

fn entity(
    (id, label): (&str, &str),
    property: &str,
    statements: Vec<serde_json::Value>,
) -> serde_json::Value {
    serde_json::json!({
        "type": "item",
        "id": id,
        "labels": { "en": { "language": "en", "value": label } },
        "descriptions": {},
        "aliases": {},
        "claims": { property: statements },
        "sitelinks": {},
    })
}

fn statement(
    subject: &str,
    n: usize,
    property: &str,
    object: &str,
    start: &str,
    end: Option<&str>,
) -> serde_json::Value {
    let time = |property: &str, day: &str| {
        serde_json::json!([{
            "snaktype": "value",
            "property": property,
            "datavalue": {
                "value": {
                    "time": format!("+{day}T00:00:00Z"),
                    "timezone": 0, "before": 0, "after": 0, "precision": 11,
                    "calendarmodel": "http://www.wikidata.org/entity/Q1985727",
                },
                "type": "time",
            },
            "datatype": "time",
        }])
    };
    let mut qualifiers = serde_json::Map::new();
    qualifiers.insert("P580".into(), time("P580", start));
    if let Some(end) = end {
        qualifiers.insert("P582".into(), time("P582", end));
    }
    serde_json::json!({
        "mainsnak": {
            "snaktype": "value",
            "property": property,
            "datavalue": {
                "value": { "entity-type": "item", "numeric-id": object[1..].parse::<u64>().unwrap_or(0), "id": object },
                "type": "wikibase-entityid",
            },
            "datatype": "wikibase-item",
        },
        "type": "statement",
        "qualifiers": qualifiers,
        "id": format!("{subject}${n}"),
        "rank": "normal",
    })
}
