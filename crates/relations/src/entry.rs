//! One relation of the catalogue as its TOML file declares it, and the checks
//! one entry can make on its own.

use serde::Deserialize;

use crate::CatalogueError;

/// Which side of a statement is the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The entity the statement is on (P39: the person holds the position).
    Subject,
    /// The statement's value (P286: the club's head coach is the person).
    Object,
}

/// Whether a role word matches in any case or only as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Case {
    /// "manager", "Manager", "MANAGER".
    #[default]
    Any,
    /// Only as written: "CEO" (an acronym in lower case is another word),
    /// except in a summary without capitals, where every word is lower case.
    Exact,
}

/// A word a summary uses for the role, with its plural.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleWord {
    /// The singular, as news writes it: "manager", "chief executive", "CEO".
    pub word: String,
    /// The plural: "managers", "chief executives".
    #[serde(default)]
    pub plural: Option<String>,
    /// Whether case matters.
    #[serde(default)]
    pub case: Case,
}

impl RoleWord {
    /// The singular, then the plural.
    pub fn forms(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.word.as_str()).chain(self.plural.as_deref())
    }

    /// The form as two entries compare it: lowercased unless case matters.
    fn key(&self, form: &str) -> String {
        match self.case {
            Case::Any => form.to_lowercase(),
            Case::Exact => form.to_string(),
        }
    }
}

/// A relation of the catalogue: a Wikidata property whose statements join a
/// person to something that changes (an office, a club, a company).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relation {
    /// The catalogue's name for it, usable in `relations = [...]`:
    /// `head-coach`.
    pub name: String,
    /// The Wikidata property: `P286`.
    pub property: String,
    /// Wikidata's label of the property: "head coach".
    pub label: String,
    /// Which side of a statement is the person.
    pub person: Side,
    /// What the other side is, in words ("office", "sports club", "company"):
    /// role words are told apart by it, so two relations may share a word
    /// ("boss") only when their other sides differ.
    #[serde(default)]
    pub other: String,
    /// Wikidata classes (P31) of the other side, for the reader of the card.
    #[serde(default)]
    pub classes: Vec<String>,
    /// How a role is named in text and in the card, `{other}` standing for the
    /// other side's label: "manager of {other}".
    #[serde(default)]
    pub role: String,
    /// The words a summary uses for the role; none where the other side names
    /// itself (an office: "President of the United States").
    #[serde(default)]
    pub words: Vec<RoleWord>,
    /// Whether many people hold the role on one other side at once (a club's
    /// players): a name the article leaves out then implies no claim to it.
    #[serde(default)]
    pub shared: bool,
    /// The relation this one states from the other side (`P1308` is `P39` seen
    /// from the office): it shares that entry's other side, role and words.
    #[serde(default)]
    pub inverse_of: Option<String>,
    /// The file the entry came from (set on reading).
    #[serde(skip)]
    pub file: String,
}

impl Relation {
    /// How the role on `other` is named: "manager of Chelsea F.C.".
    pub fn role_text(&self, other: &str) -> String {
        self.role.replace("{other}", other)
    }

    /// "head-coach (P286)".
    pub fn describe(&self) -> String {
        format!("{} ({})", self.name, self.property)
    }

    /// Every form of every role word with its comparison key.
    pub(crate) fn word_keys(&self) -> impl Iterator<Item = (String, &str)> {
        self.words
            .iter()
            .flat_map(|w| w.forms().map(move |form| (w.key(form), form)))
    }

    /// Reads one entry.
    pub(crate) fn parse(file: &str, text: &str) -> Result<Self, CatalogueError> {
        let mut relation: Relation = toml::from_str(text).map_err(|e| CatalogueError::Syntax {
            file: file.to_string(),
            message: e.to_string(),
        })?;
        relation.file = file.to_string();
        relation.check()?;
        Ok(relation)
    }

    fn field(&self, field: &str, message: String) -> CatalogueError {
        CatalogueError::Field {
            file: self.file.clone(),
            field: field.to_string(),
            message,
        }
    }

    /// What one entry can be wrong about on its own.
    fn check(&self) -> Result<(), CatalogueError> {
        if !is_property(&self.property) {
            return Err(self.field(
                "property",
                format!("`{}` is not a property id (P and digits)", self.property),
            ));
        }
        if self.name.is_empty() || is_property(&self.name) {
            return Err(self.field(
                "name",
                format!(
                    "`{}`: a name is words, not empty nor a property id",
                    self.name
                ),
            ));
        }
        if self.inverse_of.is_some() {
            for (field, given) in [
                ("other", !self.other.is_empty()),
                ("classes", !self.classes.is_empty()),
                ("role", !self.role.is_empty()),
                ("words", !self.words.is_empty()),
                ("shared", self.shared),
            ] {
                if given {
                    return Err(self.field(
                        field,
                        "an entry with `inverse_of` takes it from that entry; leave it out".into(),
                    ));
                }
            }
            return Ok(());
        }
        if self.other.is_empty() {
            return Err(self.field(
                "other",
                "missing: what the other side is (\"office\", \"sports club\", ...)".into(),
            ));
        }
        if !self.role.contains("{other}") {
            return Err(self.field("role", format!("`{}` names no `{{other}}`", self.role)));
        }
        for (i, w) in self.words.iter().enumerate() {
            if w.forms().any(|f| f.trim().is_empty() || f.trim() != f) {
                return Err(self.field(
                    &format!("words[{i}]"),
                    "a form is empty or has spaces around it".into(),
                ));
            }
        }
        Ok(())
    }
}

/// `P` followed by digits.
pub fn is_property(s: &str) -> bool {
    s.strip_prefix('P')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
