//! Facts for the unit tests: made-up people in real offices' shapes.

use tempora_records::{EntityRef, Fact};

/// An entity with a label and aliases.
pub fn entity(id: &str, label: &str, aliases: &[&str]) -> EntityRef {
    EntityRef {
        id: id.into(),
        label: Some(label.into()),
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
    }
}

/// A fact from `start` (none when empty) to `end`.
pub fn fact(s: &EntityRef, rel: &str, o: &EntityRef, start: &str, end: Option<&str>) -> Fact {
    Fact {
        subject: s.clone(),
        relation: rel.into(),
        object: o.clone(),
        start: Some(start.to_string()).filter(|s| !s.is_empty()),
        end: end.map(str::to_string),
        replaces: None,
        replaced_by: None,
        rank: "normal".into(),
        valid_at_cutoff: false,
        pair_changed: None,
    }
}
