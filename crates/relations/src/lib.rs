//! The catalogue of relations: which Wikidata properties join a person to
//! something that changes, which side is the person, what the other side is,
//! and the words a summary uses for the role. Relations are data
//! (`config/relations/<name>.toml`), so a relation is added without Rust code.
//!
//! The shipped entries are compiled in; a directory of `*.toml` files adds
//! relations or replaces a shipped one of the same property. Every stage that
//! needs to know a relation (the facts sources resolving `relations = [...]`,
//! `minimal-pairs`, `tempora score`, the card) reads it from here.

mod entry;

use std::collections::BTreeMap;
use std::path::Path;

use tempora_records::{EntityRef, Fact};

pub use entry::{is_property, Case, Relation, RoleWord, Side};

/// The shipped entries, as `(file name, TOML text)`.
pub const SHIPPED: [(&str, &str); 6] = [
    (
        "position-held.toml",
        include_str!("../../../config/relations/position-held.toml"),
    ),
    (
        "officeholder.toml",
        include_str!("../../../config/relations/officeholder.toml"),
    ),
    (
        "member-of-sports-team.toml",
        include_str!("../../../config/relations/member-of-sports-team.toml"),
    ),
    (
        "head-coach.toml",
        include_str!("../../../config/relations/head-coach.toml"),
    ),
    (
        "chief-executive-officer.toml",
        include_str!("../../../config/relations/chief-executive-officer.toml"),
    ),
    (
        "chairperson.toml",
        include_str!("../../../config/relations/chairperson.toml"),
    ),
];

/// A catalogue that cannot be used, naming the file and the field.
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    /// Not valid TOML, or not an entry.
    #[error("{file}: {message}")]
    Syntax {
        /// The entry's file.
        file: String,
        /// The parser's message (it names line, column and key).
        message: String,
    },
    /// A field is wrong on its own.
    #[error("{file}: `{field}`: {message}")]
    Field {
        /// The entry's file.
        file: String,
        /// The field.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Two entries disagree.
    #[error("{first} and {second}: {message}")]
    Clash {
        /// The one read first, as "file (name, property)".
        first: String,
        /// The other.
        second: String,
        /// What they share that they may not.
        message: String,
    },
    /// The directory or a file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// A name in `relations = [...]` that is neither a property id nor a
/// catalogue name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown relation `{name}`: give a property id (`P54`) or one of the catalogue's names: {known}")]
pub struct UnknownRelation {
    /// The name as given.
    pub name: String,
    /// Where in the list it is.
    pub index: usize,
    /// The catalogue's names, for the message.
    pub known: String,
}

/// Every relation, shipped ones first, then those of a directory.
#[derive(Debug, Clone)]
pub struct Catalogue {
    relations: Vec<Relation>,
}

impl Catalogue {
    /// The shipped entries alone.
    pub fn shipped() -> Self {
        Self::load(None).unwrap_or_else(|e| panic!("the shipped relation catalogue: {e}"))
    }

    /// The shipped entries, then those of `dir` (an entry of a shipped
    /// property replaces it).
    ///
    /// # Errors
    /// A file that cannot be read or is wrong, named with the field at fault;
    /// two entries that clash, both named.
    pub fn load(dir: Option<&Path>) -> Result<Self, CatalogueError> {
        let mut relations = SHIPPED
            .iter()
            .map(|(file, text)| Relation::parse(file, text))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(dir) = dir {
            for relation in read_dir(dir)? {
                relations.retain(|r| r.property != relation.property);
                relations.push(relation);
            }
        }
        let catalogue = Self { relations };
        catalogue.check()?;
        Ok(catalogue)
    }

    /// Every entry, in reading order.
    pub fn relations(&self) -> &[Relation] {
        &self.relations
    }

    /// The entry of a property, if the catalogue has one.
    pub fn get(&self, property: &str) -> Option<&Relation> {
        self.relations.iter().find(|r| r.property == property)
    }

    /// The entry that says what a property's role is: its own, or the one it
    /// is the inverse of (`P1308` -> `P39`).
    pub fn role_of(&self, property: &str) -> Option<&Relation> {
        let relation = self.get(property)?;
        match &relation.inverse_of {
            Some(other) => self.get(other),
            None => Some(relation),
        }
    }

    /// The property ids `names` stand for (ids as given, names looked up), in
    /// order, each once. A property id the catalogue lacks is taken as it is:
    /// the facts' rule reads any property, though only the catalogue's are
    /// claims to the score.
    ///
    /// # Errors
    /// The first name that is neither.
    pub fn resolve(&self, names: &[String]) -> Result<Vec<String>, UnknownRelation> {
        let mut out: Vec<String> = Vec::new();
        for (index, name) in names.iter().enumerate() {
            let property = if is_property(name) {
                name.clone()
            } else if let Some(r) = self.relations.iter().find(|r| r.name == *name) {
                r.property.clone()
            } else {
                return Err(UnknownRelation {
                    name: name.clone(),
                    index,
                    known: self.names(),
                });
            };
            if !out.contains(&property) {
                out.push(property);
            }
        }
        Ok(out)
    }

    /// "position-held (P39), officeholder (P1308), ...".
    pub fn names(&self) -> String {
        self.relations
            .iter()
            .map(Relation::describe)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The person and the other side of a fact, when the catalogue knows its
    /// relation.
    pub fn sides<'a>(&self, fact: &'a Fact) -> Option<(&'a EntityRef, &'a EntityRef)> {
        Some(match self.get(&fact.relation)?.person {
            Side::Subject => (&fact.subject, &fact.object),
            Side::Object => (&fact.object, &fact.subject),
        })
    }

    /// What two entries may not share: a name, a property, an inverse that is
    /// not there or not of the other side, a role word for the same kind of
    /// other side (it could not tell which relation a claim is of).
    fn check(&self) -> Result<(), CatalogueError> {
        let clash = |a: &Relation, b: &Relation, message: String| CatalogueError::Clash {
            first: format!("{} ({})", a.file, a.describe()),
            second: format!("{} ({})", b.file, b.describe()),
            message,
        };
        for (i, a) in self.relations.iter().enumerate() {
            if let Some(b) = self.relations[..i].iter().find(|b| b.name == a.name) {
                return Err(clash(b, a, format!("both are named `{}`", a.name)));
            }
            if let Some(target) = &a.inverse_of {
                let Some(b) = self.get(target).filter(|b| b.inverse_of.is_none()) else {
                    return Err(CatalogueError::Field {
                        file: a.file.clone(),
                        field: "inverse_of".into(),
                        message: format!(
                            "`{target}` is no entry of the catalogue that states a role itself"
                        ),
                    });
                };
                if b.person == a.person {
                    return Err(clash(
                        b,
                        a,
                        "`inverse_of` joins two entries with the person on the same side".into(),
                    ));
                }
            }
        }
        let mut words: BTreeMap<(String, String), &Relation> = BTreeMap::new();
        for r in &self.relations {
            for (key, form) in r.word_keys() {
                if let Some(before) = words.insert((r.other.to_lowercase(), key), r) {
                    if before.property != r.property {
                        return Err(clash(
                            before,
                            r,
                            format!("both use the role word `{form}` for a {}", r.other),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

fn read_dir(dir: &Path) -> Result<Vec<Relation>, CatalogueError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| CatalogueError::Io { path, source }
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io(dir))?;
    files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).map_err(io(path))?;
            Relation::parse(&path.display().to_string(), &text)
        })
        .collect()
}

#[cfg(test)]
mod tests;
