//! The XSum-style split file: which articles XSum lists, and in which split.

use chrono::Datelike;

use super::articles::ModelArticle;

/// XSum lists most articles of 2010-2017 (ids chosen by the id's last digits,
/// so the choice is seeded by the model); 90/5/5 over train, validation, test.
pub(super) fn xsum_split(articles: &[ModelArticle]) -> String {
    let (mut train, mut validation, mut test) = (Vec::new(), Vec::new(), Vec::new());
    for a in articles {
        if !a.listed_in_xsum() {
            continue;
        }
        let id = a.id.to_string();
        match a.id % 100 {
            0..=4 => validation.push(id),
            5..=9 => test.push(id),
            _ => train.push(id),
        }
    }
    serde_json::json!({ "train": train, "validation": validation, "test": test }).to_string()
}

impl ModelArticle {
    /// Whether the XSum split file of the model lists it.
    pub fn listed_in_xsum(&self) -> bool {
        let year = self.published.year();
        (2010..=2017).contains(&year) && self.id % 10 < 7
    }
}
