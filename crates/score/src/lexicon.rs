//! Every word a claim can be made of, in one matcher: the people of the facts by
//! their names and surnames, the offices by their names and heads, places,
//! generic titles, the catalogue's role words ("manager", "chief executive")
//! with the entities roles are on as their qualifiers ("Chelsea", "Man Utd"),
//! past markers and honorifics.
//!
//! Built once from the facts, then used for every summary: a scan is one walk of
//! the conflicts matcher's word trie (`tempora_filter::conflicts::matcher`) over
//! the summary, so its cost does not grow with how many names the facts hold.
//!
//! Case: people, surnames and places are proper nouns, matched in their own case
//! ("May" is not "may"), unless the summary has no capital letter at all: many
//! published system outputs are lowercased, and there every name matches in any
//! case. Titles and markers match in any case ("Prime Minister", "prime minister").

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use tempora_filter::conflicts::matcher::{Matcher, MatcherBuilder, NameUse};
use tempora_filter::conflicts::positions::unqualified_forms;

use tempora_relations::{Case, Catalogue};

use crate::holdings::Holdings;
use crate::words::{HONORIFICS, PAST, PAST_NEEDS_HYPHEN, PLACES, TITLES};
use crate::ScoreError;

/// What a matched word means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Term {
    /// A full name (label or alias) of a person (by the facts' entity number);
    /// `exact` = in the name's own case.
    Person { person: u32, exact: bool },
    /// The last word of a person's label: a name only where the article names the
    /// person in full.
    Surname { person: u32, exact: bool },
    /// A title: a head ("prime minister"), an office's own name ("US President"),
    /// or a generic title.
    Title(u32),
    /// A title whose case matters ("CEO"), matched in any case: it counts
    /// only in a lowercased summary ("ceo"), where its exact spelling cannot
    /// be.
    LowercasedTitle(u32),
    /// A place ("UK", "Scottish", "Australia"), or an entity a role is on
    /// ("Chelsea", "Tesco"): what qualifies a title.
    Place { place: u32, exact: bool },
    /// "former", "ex", "then", "outgoing", "late".
    Past { needs_hyphen: bool },
    /// "Mr", "Sir", ...
    Honorific,
}

impl Term {
    /// Whether the term counts in a text that is (`lowercased`) or is not all lower
    /// case.
    pub fn counts(self, lowercased: bool) -> bool {
        match self {
            Self::Person { exact, .. }
            | Self::Surname { exact, .. }
            | Self::Place { exact, .. } => lowercased || exact,
            Self::LowercasedTitle(_) => lowercased,
            _ => true,
        }
    }
}

/// An office a title may stand for, with the places that qualify it under that
/// title ("prime minister" of the UK: "United Kingdom", "British", ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleOffice {
    /// The office, by the facts' entity number ([`Holdings::id`]).
    pub office: u32,
    /// Place numbers.
    pub places: Vec<u32>,
}

/// A title and the offices it may stand for.
#[derive(Debug, Clone, Default)]
pub struct Title {
    /// The title in lower case (a head's canonical spelling).
    pub text: String,
    /// The offices, by number.
    pub offices: Vec<TitleOffice>,
    /// A head or a generic title ("president"): which office it means depends on a
    /// place next to it or on the context. Otherwise the full name of its offices.
    pub generic: bool,
    /// The relations of the roles the title names (`P39` for offices, `P286`
    /// for "manager"), sorted: "boss" is a club's and a company's.
    pub relations: Vec<Arc<str>>,
}

/// The matcher and what its terms mean.
#[derive(Debug)]
pub struct Lexicon {
    pub(crate) matcher: Matcher,
    /// Meanings of the matcher's uses (`NameUse::Name(term)`).
    pub(crate) terms: Vec<Term>,
    pub(crate) titles: Vec<Title>,
    pub(crate) places: Vec<String>,
    /// The entity each entity qualifier stands for, by place number.
    pub(crate) place_entities: HashMap<u32, u32>,
    /// The relation of a title with no role word of the catalogue (an office's
    /// head, a generic political title): the catalogue's office relation
    /// (`P39`), the one whose other side names itself.
    pub(crate) office_relation: Option<Arc<str>>,
}

/// Collects the terms before the matcher is built.
#[derive(Default)]
struct Builder {
    names: Vec<(String, Term, bool)>,
    terms: Vec<Term>,
    term_ids: HashMap<Term, u32>,
    titles: Vec<Title>,
    title_ids: BTreeMap<String, u32>,
    places: Vec<String>,
    place_ids: HashMap<String, u32>,
    /// The qualifier of each entity a role is on, by the entity's number.
    entity_places: HashMap<u32, u32>,
}

impl Builder {
    fn add(&mut self, name: &str, term: Term, exact: bool) {
        let name = name.trim();
        if name.chars().count() < 2 {
            return;
        }
        self.names.push((name.to_string(), term, exact));
    }

    fn place(&mut self, spelling: &str) -> u32 {
        let key = spelling.to_lowercase();
        if let Some(&id) = self.place_ids.get(&key) {
            return id;
        }
        let id = self.places.len() as u32;
        self.places.push(spelling.to_string());
        self.place_ids.insert(key, id);
        for exact in [true, false] {
            self.add(spelling, Term::Place { place: id, exact }, exact);
        }
        id
    }

    fn title(&mut self, text: &str, generic: bool) -> u32 {
        let id = self.title_without_pattern(text, generic);
        let key = self.titles[id as usize].text.clone();
        self.add(&key, Term::Title(id), false);
        id
    }

    /// A title's number, its pattern left to the caller (a word whose case
    /// matters: "CEO").
    fn title_without_pattern(&mut self, text: &str, generic: bool) -> u32 {
        let key = text.trim().to_lowercase();
        if let Some(&id) = self.title_ids.get(&key) {
            self.titles[id as usize].generic |= generic;
            return id;
        }
        let id = self.titles.len() as u32;
        self.titles.push(Title {
            text: key.clone(),
            offices: Vec::new(),
            generic,
            relations: Vec::new(),
        });
        self.title_ids.insert(key, id);
        id
    }

    fn title_office(&mut self, title: u32, office: u32, places: Vec<u32>) {
        let offices = &mut self.titles[title as usize].offices;
        match offices.iter_mut().find(|o| o.office == office) {
            Some(known) => {
                for p in places {
                    if !known.places.contains(&p) {
                        known.places.push(p);
                    }
                }
            }
            None => offices.push(TitleOffice { office, places }),
        }
    }
}

impl Builder {
    /// The catalogue's role words, each a generic title of its relation: a
    /// word stands for a role whether or not the facts know the entity it is
    /// on ("Tesco boss" with no Tesco in the facts is a claim of an unknown
    /// role). Then every role on an entity the facts hold: its words, with the
    /// entity's names as the qualifiers that pick it ("Chelsea manager").
    fn add_roles(&mut self, holdings: &Holdings, catalogue: &Catalogue) {
        let mut words: HashMap<&str, Vec<u32>> = HashMap::new();
        for relation in catalogue.relations() {
            for word in &relation.words {
                let exact = word.case == Case::Exact;
                let id = if exact {
                    self.title_without_pattern(&word.word, true)
                } else {
                    self.title(&word.word, true)
                };
                let relations = &mut self.titles[id as usize].relations;
                if !relations.iter().any(|r| **r == *relation.property) {
                    relations.push(Arc::from(relation.property.as_str()));
                    relations.sort();
                }
                for form in word.forms() {
                    if exact {
                        // As written, and in the lower case of lowercased
                        // system outputs ("ceo"), where every word is so.
                        self.add(form, Term::Title(id), true);
                        self.add(form, Term::LowercasedTitle(id), false);
                    } else if form != self.titles[id as usize].text {
                        self.add(form, Term::Title(id), false);
                    }
                }
                words.entry(&relation.property).or_default().push(id);
            }
        }
        for (role, relation, on) in holdings.roles_on_entities() {
            let place = self.entity_place(on, holdings.names_of_entity(on));
            for &title in words.get(relation).into_iter().flatten() {
                self.title_office(title, role, vec![place]);
            }
        }
    }

    /// The qualifier of an entity a role is on: its names, and each without a
    /// suffix of its legal form ("Manchester United F.C." is "Manchester
    /// United", "Apple Inc." is "Apple"), all spellings of one key of its own.
    /// Two clubs that share a name share a spelling, not a key: the claim then
    /// fits both, and the person or the article tells them apart.
    fn entity_place(&mut self, entity: u32, names: &[String]) -> u32 {
        if let Some(&id) = self.entity_places.get(&entity) {
            return id;
        }
        let id = self.places.len() as u32;
        self.places.push(names.first().cloned().unwrap_or_default());
        self.entity_places.insert(entity, id);
        for name in names {
            for spelling in spellings(strip_the(name)) {
                for exact in [true, false] {
                    self.add(&spelling, Term::Place { place: id, exact }, exact);
                }
            }
        }
        id
    }

    /// The places of `words.rs`, each spelling naming its key.
    fn add_places(&mut self) {
        for spellings in PLACES {
            let key = self.place(spellings[0]);
            for spelling in &spellings[1..] {
                self.place_ids.insert(spelling.to_lowercase(), key);
                for exact in [true, false] {
                    self.add(spelling, Term::Place { place: key, exact }, exact);
                }
            }
        }
    }

    /// The offices' titles: the generic ones of `words.rs`, every office's heads
    /// with the places that qualify them ("prime minister" of the "United
    /// Kingdom"), and every office's own names. Returns every head in lower case.
    fn add_titles(&mut self, holdings: &Holdings) -> BTreeSet<String> {
        for (spelling, head) in TITLES {
            let id = self.title(head, true);
            if !spelling.eq_ignore_ascii_case(head) {
                self.add(spelling, Term::Title(id), false);
            }
        }
        let offices: Vec<(u32, &[String])> = holdings.offices().collect();
        // Heads first: a name of one office that is the head of another ("President",
        // an alias of the US presidency) is a head.
        let mut heads: BTreeSet<String> = TITLES.iter().map(|(_, h)| h.to_string()).collect();
        let office_heads: Vec<Vec<(String, Vec<String>)>> = offices
            .iter()
            .map(|(_, names)| self.heads_of(names))
            .collect();
        for forms in &office_heads {
            heads.extend(forms.iter().map(|(head, _)| head.to_lowercase()));
        }
        for ((office, _), forms) in offices.iter().zip(office_heads) {
            for (head, qualifiers) in forms {
                let title = self.title(&head, true);
                let mut places = Vec::new();
                for q in qualifiers {
                    places.push(self.place(&q));
                    // "Labour Party" is also "Labour".
                    if let Some(short) = q.strip_suffix(" Party").or(q.strip_suffix(" party")) {
                        places.push(self.place(short));
                    }
                }
                self.title_office(title, *office, places);
            }
        }
        for (office, names) in &offices {
            for name in names.iter() {
                let name = strip_the(name);
                let lower = name.to_lowercase();
                let title = self.title(name, heads.contains(&lower));
                self.title_office(title, *office, Vec::new());
            }
        }
        for title in &mut self.titles {
            title.offices.sort_by_key(|o| o.office);
        }
        heads
    }

    /// The heads an office's names have, each with its qualifiers: ("prime
    /// minister", ["United Kingdom"]) of "Prime Minister of the United Kingdom".
    fn heads_of(&self, names: &[String]) -> Vec<(String, Vec<String>)> {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut forms: Vec<(String, Vec<String>)> = unqualified_forms(&refs)
            .into_iter()
            .map(|f| (f.head, f.qualifiers))
            .collect();
        // "United States senator", "German Chancellor": a place, then the head.
        for name in &refs {
            if let Some((place, head)) = place_prefix(self, name) {
                match forms.iter_mut().find(|(h, _)| h.eq_ignore_ascii_case(head)) {
                    Some((_, qualifiers)) => qualifiers.push(place.to_string()),
                    None => forms.push((head.to_string(), vec![place.to_string()])),
                }
            }
        }
        forms
    }

    /// Every person's names and surname.
    fn add_people(&mut self, holdings: &Holdings, heads: &BTreeSet<String>) {
        for (person, names) in holdings.people() {
            for name in names {
                // "President Biden", "Chancellor Merkel": Wikidata's aliases with a
                // title; the title is the claim's, the rest the name.
                let name = title_prefix(self, heads, name).unwrap_or(name);
                for exact in [true, false] {
                    self.add(name, Term::Person { person, exact }, exact);
                }
            }
            if let Some(surname) = names.first().and_then(|label| surname(label)) {
                for exact in [true, false] {
                    self.add(surname, Term::Surname { person, exact }, exact);
                }
            }
        }
    }

    /// The matcher of every name added, each use a term number.
    fn build(mut self) -> Result<Lexicon, ScoreError> {
        let mut matcher = MatcherBuilder::new(true);
        for (name, term, exact) in std::mem::take(&mut self.names) {
            let next = self.terms.len() as u32;
            let id = *self.term_ids.entry(term).or_insert(next);
            if id == next {
                self.terms.push(term);
            }
            matcher.add(&name, NameUse::Name(id), exact);
        }
        Ok(Lexicon {
            matcher: matcher.build()?,
            terms: self.terms,
            titles: self.titles,
            places: self.places,
            place_entities: self
                .entity_places
                .iter()
                .map(|(&entity, &place)| (place, entity))
                .collect(),
            office_relation: None,
        })
    }
}

impl Lexicon {
    /// The lexicon of `holdings`' people, offices and roles, with the built-in
    /// places, titles, past markers and honorifics and the catalogue's role
    /// words.
    ///
    /// # Errors
    /// When the names are too many for the matcher.
    pub fn new(holdings: &Holdings, catalogue: &Catalogue) -> Result<Self, ScoreError> {
        let mut b = Builder::default();
        b.add_places();
        b.add_roles(holdings, catalogue);
        let heads = b.add_titles(holdings);
        b.add_people(holdings, &heads);
        for marker in PAST {
            let needs_hyphen = PAST_NEEDS_HYPHEN.contains(marker);
            b.add(marker, Term::Past { needs_hyphen }, false);
        }
        for honorific in HONORIFICS {
            b.add(honorific, Term::Honorific, false);
        }
        let mut lexicon = b.build()?;
        lexicon.office_relation = catalogue
            .relations()
            .iter()
            .find(|r| r.words.is_empty() && r.inverse_of.is_none())
            .map(|r| Arc::from(r.property.as_str()));
        Ok(lexicon)
    }

    /// Title number `n`.
    pub fn title(&self, n: u32) -> Option<&Title> {
        self.titles.get(n as usize)
    }

    /// The terms of a matched variant.
    pub(crate) fn terms_of(&self, variant: u32) -> impl Iterator<Item = Term> + '_ {
        self.matcher.uses(variant).iter().filter_map(|u| match u {
            NameUse::Name(t) => self.terms.get(*t as usize).copied(),
            _ => None,
        })
    }

    /// Patterns in the matcher (for the log).
    pub fn patterns(&self) -> usize {
        self.matcher.patterns()
    }
}

/// Suffixes of legal forms an entity's label ends with and news leaves out or
/// spells another way, by the ways of writing each ("F.C.", "FC").
const LEGAL_FORMS: &[&[&str]] = &[
    &[" F.C.", " FC"],
    &[" A.F.C.", " AFC"],
    &[" plc", " PLC"],
    &[" Inc.", " Inc"],
    &[" Ltd", " Ltd.", " Limited"],
    &[" Group"],
    &[" Corporation", " Corp."],
    &[" Company", " Co."],
    &[" S.A.", " SA"],
    &[" AG"],
    &[" SE"],
    &[" N.V.", " NV"],
    &[" LLC"],
];

/// A name's spellings: itself, and where it ends with a legal form, the name
/// without it and with each other way of writing it.
fn spellings(name: &str) -> Vec<String> {
    let mut out = vec![name.to_string()];
    for forms in LEGAL_FORMS {
        let Some(short) = forms.iter().find_map(|f| name.strip_suffix(f)) else {
            continue;
        };
        let short = short.trim_end();
        if short.chars().count() < 2 {
            continue;
        }
        out.push(short.to_string());
        out.extend(forms.iter().map(|f| format!("{short}{f}")));
    }
    out.sort();
    out.dedup();
    out
}

fn strip_the(name: &str) -> &str {
    let name = name.trim();
    match name.get(..4) {
        Some(the) if the.eq_ignore_ascii_case("the ") => name[4..].trim_start(),
        _ => name,
    }
}

/// A name that starts with a known place and goes on with a capitalized or
/// lower-case head: ("United States", "senator") of "United States senator".
fn place_prefix<'a>(b: &Builder, name: &'a str) -> Option<(&'a str, &'a str)> {
    let mut best = None;
    for (at, _) in name.match_indices(' ') {
        let (place, rest) = (&name[..at], name[at + 1..].trim());
        if b.place_ids.contains_key(&place.to_lowercase()) && !rest.is_empty() {
            best = Some((place, rest));
        }
    }
    best.filter(|(_, rest)| !rest.contains(" of "))
}

/// The rest of a person's alias that starts with a title or an honorific
/// ("President Biden" -> "Biden"), when the rest starts with a capital.
fn title_prefix<'a>(b: &Builder, heads: &BTreeSet<String>, name: &'a str) -> Option<&'a str> {
    for (at, _) in name.match_indices(' ') {
        let (prefix, rest) = (&name[..at], name[at + 1..].trim());
        let lower = prefix.to_lowercase();
        let is_title = heads.contains(&lower)
            || b.title_ids.contains_key(&lower)
            || HONORIFICS.iter().any(|h| h.eq_ignore_ascii_case(prefix));
        if is_title && rest.chars().next().is_some_and(char::is_uppercase) {
            return Some(rest);
        }
    }
    None
}

/// The surname of a label of two words or more: its last word, unless that is a
/// generational suffix ("Jr.") or not capitalized.
fn surname(label: &str) -> Option<&str> {
    let words: Vec<&str> = label.split_whitespace().collect();
    let mut words = words.as_slice();
    while let Some((last, rest)) = words.split_last() {
        let bare = last.trim_end_matches(['.', ',']);
        if ["Jr", "Sr", "II", "III", "IV"].contains(&bare) {
            words = rest;
        } else {
            break;
        }
    }
    let (last, rest) = words.split_last()?;
    (!rest.is_empty() && last.chars().next().is_some_and(char::is_uppercase) && last.len() >= 2)
        .then_some(*last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_forms_are_left_out_or_spelled_another_way() {
        assert_eq!(
            spellings("Harwick Rovers F.C."),
            ["Harwick Rovers", "Harwick Rovers F.C.", "Harwick Rovers FC"]
        );
        assert_eq!(
            spellings("Apple Inc."),
            ["Apple", "Apple Inc", "Apple Inc."]
        );
        assert_eq!(spellings("Tesco"), ["Tesco"]);
        assert_eq!(spellings("X FC"), ["X FC"], "too short without it");
    }

    #[test]
    fn surnames_skip_suffixes_and_single_names() {
        assert_eq!(surname("Joe Biden"), Some("Biden"));
        assert_eq!(surname("Martin Luther King Jr."), Some("King"));
        assert_eq!(surname("Madonna"), None);
    }
}
