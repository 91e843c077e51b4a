//! The model's evolving pairs (a position whose holder changed) and the
//! Wikidata facts the `wikidata` stage would write of them.

use super::story::Desk;

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

/// A made-up club, person or company of a sport or business pair, with the
/// other names news calls it by.
pub(super) struct Named {
    pub(super) id: &'static str,
    pub(super) label: &'static str,
    pub(super) aliases: &'static [&'static str],
}

/// An evolving pair of sport or business: the pair's subject (a club, a player,
/// a company), its value until `changed` and after, under `relation`.
pub(super) struct RolePair {
    /// `P286` (club -> manager), `P54` (player -> club), `P169` (company ->
    /// chief executive).
    pub(super) relation: &'static str,
    /// The person is the pair's subject (a player), not its value (a manager).
    pub(super) person_is_subject: bool,
    /// The word news writes the role with: "manager", "striker".
    pub(super) role: &'static str,
    /// The desk whose stories name the pair.
    pub(super) desk: Desk,
    pub(super) subject: Named,
    pub(super) before: Named,
    pub(super) after: Named,
    pub(super) since: &'static str,
    pub(super) changed: &'static str,
}

impl RolePair {
    /// The value on `day` (an ISO date): `before` until the change, `after` from it.
    pub(super) fn value_on(&self, day: chrono::NaiveDate) -> &Named {
        let changed = chrono::NaiveDate::parse_from_str(self.changed, "%Y-%m-%d");
        if changed.is_ok_and(|c| day >= c) {
            &self.after
        } else {
            &self.before
        }
    }
}

/// The sport and business pairs of [`super::NewsSite::with_sport_and_business`]:
/// a club whose manager changed after the cutoff, a player who moved club, a
/// company whose chief executive changed.
pub(super) const ROLES: [RolePair; 3] = [
    RolePair {
        relation: "P286",
        person_is_subject: false,
        role: "manager",
        desk: Desk::Sport,
        subject: Named {
            id: "Q9100041",
            label: "Harwick Rovers F.C.",
            aliases: &["Harwick Rovers", "Rovers"],
        },
        before: Named {
            id: "Q9100042",
            label: "Alan Pryor",
            aliases: &[],
        },
        after: Named {
            id: "Q9100043",
            label: "Edwin Mallory",
            aliases: &[],
        },
        since: "2015-06-01",
        changed: "2020-10-12",
    },
    RolePair {
        relation: "P54",
        person_is_subject: true,
        role: "striker",
        desk: Desk::Sport,
        subject: Named {
            id: "Q9100051",
            label: "Callum Yeo",
            aliases: &[],
        },
        before: Named {
            id: "Q9100052",
            label: "Marden Wanderers F.C.",
            aliases: &["Marden Wanderers", "Marden"],
        },
        after: Named {
            id: "Q9100053",
            label: "Dunmere Athletic F.C.",
            aliases: &["Dunmere Athletic", "Dunmere"],
        },
        since: "2016-07-01",
        changed: "2020-08-20",
    },
    RolePair {
        relation: "P169",
        person_is_subject: false,
        role: "chief executive",
        desk: Desk::Business,
        subject: Named {
            id: "Q9100061",
            label: "Selby Foods plc",
            aliases: &["Selby Foods"],
        },
        before: Named {
            id: "Q9100062",
            label: "Ruth Calder",
            aliases: &[],
        },
        after: Named {
            id: "Q9100063",
            label: "Zara Whitlock",
            aliases: &[],
        },
        since: "2013-02-01",
        changed: "2021-03-01",
    },
];

/// The facts of the model's evolving pairs (`P1308`: position -> holder), as the
/// `wikidata` stage writes them with cutoff 2019-12-31; with `roles`, those of
/// [`ROLES`] too, each under its relation with the sides Wikidata states it
/// (a club's manager on the club, a player's club on the player).
pub(super) fn facts_jsonl(roles: bool) -> String {
    let mut out = String::new();
    let plain =
        |(id, label): (&str, &str)| serde_json::json!({ "id": id, "label": label, "aliases": [] });
    for pair in &PAIRS {
        let (before, after) = (plain(pair.before), plain(pair.after));
        let values = [before, after];
        let lines = fact_lines(
            plain(pair.position),
            "P1308",
            values,
            pair.since,
            pair.changed,
        );
        out.push_str(&lines);
    }
    let named =
        |n: &Named| serde_json::json!({ "id": n.id, "label": n.label, "aliases": n.aliases });
    for pair in ROLES.iter().filter(|_| roles) {
        let values = [named(&pair.before), named(&pair.after)];
        let subject = named(&pair.subject);
        out.push_str(&fact_lines(
            subject,
            pair.relation,
            values,
            pair.since,
            pair.changed,
        ));
    }
    out
}

/// The two facts of a pair whose value was `values[0]` from `since` and
/// `values[1]` from `changed`, one JSON line each.
fn fact_lines(
    subject: serde_json::Value,
    relation: &str,
    values: [serde_json::Value; 2],
    since: &str,
    changed: &str,
) -> String {
    let [before, after] = values;
    let mut out = String::new();
    for (value, start, end, valid) in [
        (before, since, Some(changed), true),
        (after, changed, None, false),
    ] {
        let fact = serde_json::json!({
            "subject": subject,
            "relation": relation,
            "object": value,
            "start": start,
            "end": end,
            "rank": "normal",
            "valid_at_cutoff": valid,
            "pair_changed": changed,
        });
        out.push_str(&fact.to_string());
        out.push('\n');
    }
    out
}

/// The model's Wikidata entities, as dump lines would hold them: each position
/// with its `P1308` (officeholder) statements, each holder with its `P39`
/// (position held); with `roles`, each subject of [`ROLES`] with its statements
/// and each value with its names. The `wikidata` stage reads the facts of
/// [`facts_jsonl`] from them.
pub fn entities(roles: bool) -> Vec<serde_json::Value> {
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
    for pair in ROLES.iter().filter(|_| roles) {
        let statements = [
            (&pair.before, pair.since, Some(pair.changed)),
            (&pair.after, pair.changed, None),
        ]
        .iter()
        .enumerate()
        .map(|(i, (value, start, end))| {
            statement(pair.subject.id, i, pair.relation, value.id, start, *end)
        })
        .collect::<Vec<_>>();
        out.push(named_entity(&pair.subject, pair.relation, statements));
        for value in [&pair.before, &pair.after] {
            out.push(named_entity(value, pair.relation, Vec::new()));
        }
    }
    out
}

/// An entity with its aliases, and `statements` under `property` (none: its
/// names only, as the dump holds a value's entity).
fn named_entity(
    named: &Named,
    property: &str,
    statements: Vec<serde_json::Value>,
) -> serde_json::Value {
    let mut line = entity((named.id, named.label), property, statements);
    let aliases: Vec<serde_json::Value> = named
        .aliases
        .iter()
        .map(|a| serde_json::json!({ "language": "en", "value": a }))
        .collect();
    if !aliases.is_empty() {
        line["aliases"] = serde_json::json!({ "en": aliases });
    }
    line
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
