//! The `relations` and `catalogue` options of the facts sources (`wikidata`,
//! `wikidata-live`) and of `tempora facts`: the relations as the user names
//! them (property ids, or the relation catalogue's names: `head-coach`), and
//! the query of the property ids they stand for. A facts file and a reading
//! record those ids, so one made with `head-coach` is one made with `P286`.

use std::path::Path;

use chrono::NaiveDate;
use tempora_engine::{OnError, OptionError};
use tempora_relations::Catalogue;

use crate::dump::FactsQuery;

/// What the facts sources read, as the options give it.
#[derive(Debug, Clone, Copy)]
pub struct AskedFacts<'a> {
    /// Property ids and catalogue names, in order.
    pub relations: &'a [String],
    /// A folder of more catalogue entries (`*.toml`), beside the shipped ones.
    pub catalogue: Option<&'a Path>,
    /// Languages of labels and aliases.
    pub languages: &'a [String],
    /// The knowledge cutoff.
    pub cutoff: NaiveDate,
    /// What a malformed entity line does.
    pub on_error: OnError,
}

impl AskedFacts<'_> {
    /// The query of the property ids the relations stand for (each once, in the
    /// order given), and every problem with the options, each naming its key:
    /// `catalogue` (a folder that cannot be read, an entry that is wrong),
    /// `relations[1]` (a name that is neither a property id nor the
    /// catalogue's), and the query's own ([`FactsQuery::problems`]).
    pub fn query(&self) -> (FactsQuery, Vec<OptionError>) {
        let (relations, mut problems) = match resolve(self.relations, self.catalogue) {
            Ok(ids) => (ids, Vec::new()),
            Err(problems) => (self.relations.to_vec(), problems),
        };
        let named = problems.is_empty();
        let query = FactsQuery {
            relations,
            languages: self.languages.to_vec(),
            cutoff: self.cutoff,
            on_error: self.on_error,
        };
        problems.extend(
            query
                .problems()
                .into_iter()
                // A name the catalogue lacks is said once, with its index.
                .filter(|(key, _)| named || *key != "relations")
                .map(|(key, message)| OptionError::at(key, message)),
        );
        (query, problems)
    }
}

/// The property ids `names` stand for in the catalogue (the shipped entries,
/// then those of `catalogue`), each once, in order.
///
/// # Errors
/// The catalogue's folder that cannot be used (`catalogue`), or every name
/// that is neither a property id nor a catalogue name (`relations[i]`).
pub fn resolve(
    names: &[String],
    catalogue: Option<&Path>,
) -> Result<Vec<String>, Vec<OptionError>> {
    let catalogue = Catalogue::load(catalogue)
        .map_err(|e| vec![OptionError::at("catalogue", e.to_string())])?;
    let unknown = |index: usize, e: tempora_relations::UnknownRelation| {
        OptionError::at(&format!("relations[{index}]"), e.to_string())
    };
    // Every unknown name is said, at its index (the catalogue's `resolve` stops
    // at the first); the ids, in order and each once, are the catalogue's.
    let problems: Vec<OptionError> = names
        .iter()
        .enumerate()
        .filter_map(|(index, name)| {
            let e = catalogue.resolve(std::slice::from_ref(name)).err()?;
            Some(unknown(index, e))
        })
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    catalogue
        .resolve(names)
        .map_err(|e| vec![unknown(e.index, e)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn names_become_their_properties_and_ids_stay() {
        let ids = resolve(&names(&["P39", "head-coach", "P286", "chairperson"]), None).unwrap();
        assert_eq!(ids, names(&["P39", "P286", "P488"]));
    }

    #[test]
    fn every_unknown_name_is_refused_at_its_index() {
        let problems =
            resolve(&names(&["P39", "football", "head-coach", "Cricket"]), None).unwrap_err();
        let keys: Vec<_> = problems.iter().map(|p| p.key.as_deref().unwrap()).collect();
        assert_eq!(keys, ["relations[1]", "relations[3]"]);
        assert!(
            problems[0]
                .message
                .starts_with("unknown relation `football`: ")
                && problems[0].message.contains("head-coach (P286)"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn a_relation_of_a_catalogue_folder_resolves_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("party.toml"),
            "name = \"party-member\"\nproperty = \"P102\"\nlabel = \"member of political party\"\n\
             person = \"subject\"\nother = \"political party\"\nclasses = [\"Q7278\"]\n\
             role = \"member of {other}\"\nwords = [{ word = \"activist\", plural = \"activists\" }]\n",
        )
        .unwrap();
        let ids = resolve(&names(&["party-member", "P39"]), Some(dir.path())).unwrap();
        assert_eq!(ids, names(&["P102", "P39"]));
        // Without the folder the name is unknown.
        assert!(resolve(&names(&["party-member"]), None).is_err());
        // A folder that is not there is the catalogue's problem, not the names'.
        let problems = resolve(&names(&["P39"]), Some(&dir.path().join("gone"))).unwrap_err();
        assert_eq!(problems[0].key.as_deref(), Some("catalogue"));
    }

    #[test]
    fn an_unknown_name_is_not_also_said_to_be_no_property_id() {
        let asked = AskedFacts {
            relations: &names(&["football"]),
            catalogue: None,
            languages: &[],
            cutoff: NaiveDate::from_ymd_opt(2019, 12, 31).unwrap(),
            on_error: OnError::Skip,
        };
        let (_, problems) = asked.query();
        let keys: Vec<_> = problems.iter().map(|p| p.key.as_deref().unwrap()).collect();
        assert_eq!(keys, ["relations[0]", "languages"]);
    }
}
