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
