//! The judge: a summary's claims, each resolved to a person and an office of the
//! facts and given its verdict at the article's date.
//!
//! The person: the name's person; a surname counts only for someone the article
//! (or the summary) names in full; of several people a name may mean, the one the
//! article names in full, then the one who held an office the title fits; else the
//! person is unknown. The office: a title that is an office's own name is that
//! office ("US President", "Health Secretary"); a generic title ("prime minister",
//! "president", a head of the facts' offices) is resolved by the places in its
//! phrase ("UK", "Australia's", "Scottish"), and failing those by the person's own
//! offices, then by the offices of the article's facts, then by the summary's
//! other claims (a bare title takes the one office they resolve it to). A place
//! that fits none of the title's offices, or a title that fits several, leaves the
//! office unknown. A holder named relative to another ("President X's successor
//! Joe Biden") claims the other's office.

use std::collections::BTreeSet;

use chrono::NaiveDate;
use tempora_records::{Claim, ClaimEntity, Fact, Tense, Verdict};

use tempora_relations::Catalogue;

use crate::claims::{self, Found, Named};
use crate::holdings::{Holdings, Judged};
use crate::lexicon::{Lexicon, Title, TitleOffice};
use crate::ScoreError;

/// The facts, indexed for judging summaries.
#[derive(Debug)]
pub struct Judge {
    holdings: Holdings,
    lexicon: Lexicon,
    catalogue: Catalogue,
}

/// What the judge knows of an article besides its summary: the people its document
/// names in full and the offices of its facts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// People the document names by a label or alias.
    named_in_full: BTreeSet<u32>,
    /// People the document names at all (the above, and their surnames).
    named: BTreeSet<u32>,
    /// Offices of the article's facts.
    offices: BTreeSet<u32>,
}

/// The people a summary's article and the summary itself name in full: whose
/// surnames count.
struct Knows<'a> {
    article: &'a Context,
    summary: Vec<u32>,
}

impl Knows<'_> {
    fn in_full(&self, person: u32) -> bool {
        self.article.named_in_full.contains(&person) || self.summary.contains(&person)
    }
}

/// Sizes of a judge, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeStats {
    /// People of the facts.
    pub people: usize,
    /// Offices of the facts.
    pub offices: usize,
    /// Name patterns in the matcher.
    pub patterns: usize,
}

impl Judge {
    /// A judge of claims against `facts` (P39 and P1308; others are ignored).
    ///
    /// # Errors
    /// When the names are too many for the matcher.
    pub fn new<'a>(facts: impl IntoIterator<Item = &'a Fact>) -> Result<Self, ScoreError> {
        Self::with_catalogue(facts, Catalogue::shipped())
    }

    /// A judge of claims against `facts` of the catalogue's relations (others
    /// are left out).
    ///
    /// # Errors
    /// When the names are too many for the matcher.
    pub fn with_catalogue<'a>(
        facts: impl IntoIterator<Item = &'a Fact>,
        catalogue: Catalogue,
    ) -> Result<Self, ScoreError> {
        let holdings = Holdings::with_catalogue(facts, &catalogue);
        let lexicon = Lexicon::new(&holdings, &catalogue)?;
        Ok(Self {
            holdings,
            lexicon,
            catalogue,
        })
    }

    /// Sizes, for the log.
    pub fn stats(&self) -> JudgeStats {
        JudgeStats {
            people: self.holdings.people().count(),
            offices: self.holdings.offices().count(),
            patterns: self.lexicon.patterns(),
        }
    }

    /// The context of an article: the people `document` names in full, and the
    /// offices among `facts` (an article's matched facts).
    pub fn context<'a>(
        &self,
        document: Option<&str>,
        facts: impl IntoIterator<Item = &'a Fact>,
    ) -> Context {
        let mut context = Context::default();
        if let Some(document) = document {
            self.add_full_names(document, &mut context);
        }
        for fact in facts {
            if let Some(n) = self.holdings.role_of_fact(fact, &self.catalogue) {
                context.offices.insert(n);
            }
        }
        context
    }

    fn add_full_names(&self, text: &str, context: &mut Context) {
        let lowercased = claims::is_lowercased(text);
        let tokens = claims::tokens(&self.lexicon, text, lowercased);
        for token in &tokens {
            for (person, by_surname) in token.people() {
                if !by_surname {
                    context.named_in_full.insert(person);
                    context.named.insert(person);
                }
            }
        }
        for token in &tokens {
            for (person, by_surname) in token.people() {
                if by_surname && context.named_in_full.contains(&person) {
                    context.named.insert(person);
                }
            }
        }
    }

    /// Every claim of `summary`, judged at `published`, in text order: those the
    /// summary writes (a title next to a person), then those it implies (see
    /// `implied`).
    pub fn claims(&self, summary: &str, published: NaiveDate, context: &Context) -> Vec<Claim> {
        let lowercased = claims::is_lowercased(summary);
        let tokens = claims::tokens(&self.lexicon, summary, lowercased);
        let is_entity = |place: u32| self.lexicon.place_entities.contains_key(&place);
        let found = claims::find(summary, &tokens, lowercased, &is_entity);
        if found.is_empty() && !tokens.iter().any(claims::Token::names_people) {
            return Vec::new();
        }
        // The summary's own full names license its surnames too.
        let knows = Knows {
            article: context,
            summary: tokens
                .iter()
                .flat_map(claims::Token::people)
                .filter(|(_, by_surname)| !by_surname)
                .map(|(p, _)| p)
                .collect(),
        };
        let offsets = CharOffsets::new(summary);
        let people: Vec<Result<u32, String>> = found
            .iter()
            .map(|f| self.person_of(summary, f, &knows))
            .collect();
        let offices = self.summary_offices(summary, &found, &people, context);
        let mut out: Vec<Claim> = found
            .iter()
            .zip(people)
            .zip(offices)
            .map(|((f, person), offices)| {
                self.claim(summary, f, person, offices, (published, context), &offsets)
            })
            .collect();
        for token in &tokens {
            let inside = found
                .iter()
                .any(|f| token.start < f.person_end && f.person_start < token.end);
            if inside || !token.names_people() || context.offices.is_empty() {
                continue;
            }
            // "the Trump administration", "his predecessor Donald Trump": the words
            // around the name put the person's time in office in the past; no
            // present claim.
            if claims::points_past(summary, token.end).is_some()
                || claims::after_relative(summary, token.start)
            {
                continue;
            }
            if let Some(claim) = self.implied(summary, token, published, &knows, &offsets) {
                out.push(claim);
            }
        }
        out.sort_by_key(|c| (c.start, c.end));
        out
    }

    /// The claim a bare name implies: a person of the facts whom the article never
    /// names, written where the article names the holder of one of its facts'
    /// offices, claims that office ("Donald Trump has signed ..." about an article
    /// on President Biden's first day: the old holder in the new one's place, the
    /// outdated hallucination TempoSum counts). The offices are those of the
    /// article's facts whose holder that day the document names; of them, one the
    /// person held, else the only one. A person the article names, or an article
    /// without facts or document, implies nothing.
    fn implied(
        &self,
        summary: &str,
        token: &claims::Token,
        day: NaiveDate,
        knows: &Knows,
        offsets: &CharOffsets,
    ) -> Option<Claim> {
        let article = knows.article;
        let mut people: Vec<u32> = token
            .people()
            .filter(|(p, by_surname)| !by_surname || knows.in_full(*p))
            .map(|(p, _)| p)
            .collect();
        people.sort_unstable();
        people.dedup();
        let [person] = people.as_slice() else {
            return None;
        };
        if article.named.contains(person) {
            return None;
        }
        let person = *person;
        let offices: Vec<u32> = article
            .offices
            .iter()
            .copied()
            .filter(|&o| {
                // A club's player is one of many: naming another implies no
                // claim to the role.
                !self.holdings.is_shared(o)
                    && self
                        .holdings
                        .holder_numbers_on(o, day)
                        .any(|h| article.named.contains(&h))
            })
            .collect();
        let held: Vec<(Judged, u32)> = offices
            .iter()
            .copied()
            .filter(|o| self.holdings.offices_of(person).binary_search(o).is_ok())
            .map(|o| (self.holdings.judge(person, o, Tense::Present, day), o))
            .collect();
        // Of the offices the person held, the one the verdict says most of: a
        // current one (the claim is true) before an outdated one; then by id
        // (numbers are in id order).
        let chosen = held
            .into_iter()
            .min_by_key(|(j, o)| (j.verdict, *o))
            .or_else(|| match offices.as_slice() {
                [only] => Some((
                    self.holdings.judge(person, *only, Tense::Present, day),
                    *only,
                )),
                _ => None,
            });
        let (judged, office) = chosen?;
        Some(Claim {
            text: summary[token.start..token.end].to_string(),
            start: offsets.at(token.start),
            end: offsets.at(token.end),
            person: self.holdings.entity(person),
            position: self.holdings.position(office),
            relation: self.holdings.relation_of(office).cloned(),
            tense: Tense::Present,
            implied: true,
            verdict: judged.verdict,
            reason: format!(
                "the article does not name {} but names the holder of {}: {}",
                self.holdings.label(person),
                self.holdings.label(office),
                judged.reason
            ),
            holders_at_date: self.holdings.holders_on(office, day),
            evidence: judged.evidence,
        })
    }

    /// The person a written claim names, or why there is none.
    fn person_of(&self, summary: &str, found: &Found, knows: &Knows) -> Result<u32, String> {
        match &found.person {
            Named::Known(candidates) => {
                let title_offices = self
                    .lexicon
                    .title(found.title)
                    .map_or(&[][..], |t| t.offices.as_slice());
                self.person(candidates, title_offices, knows)
            }
            Named::Unknown => Err(format!(
                "no one in the facts is named {:?}",
                &summary[found.person_start..found.person_end]
            )),
        }
    }

    fn claim(
        &self,
        summary: &str,
        found: &Found,
        person: Result<u32, String>,
        offices: TitleOffices,
        (day, context): (NaiveDate, &Context),
        offsets: &CharOffsets,
    ) -> Claim {
        let person_words = &summary[found.person_start..found.person_end];
        let title_words = &summary[found.title_start..found.title_end];
        let (office, never_on, mut judged) =
            self.resolve(found, &person, offices.offices, (day, context));
        if let (Ok(p), Some(o)) = (&person, office) {
            self.open_bare_role(found, (*p, o), &mut judged, context);
        }
        if let Some(by) = offices.by {
            judged.reason = format!("{by}: {}", judged.reason);
        }
        let person_entity = match &person {
            Ok(p) => self.holdings.entity(*p),
            Err(_) => ClaimEntity {
                id: None,
                label: person_words.into(),
            },
        };
        let office_entity = match (office, never_on) {
            (Some(o), _) => self.holdings.position(o),
            (None, Some(entity)) => self.holdings.entity(entity),
            (None, None) => ClaimEntity {
                id: None,
                label: title_words.into(),
            },
        };
        let relation = match office {
            Some(o) => self.holdings.relation_of(o).cloned(),
            None => self
                .lexicon
                .title(found.title)
                .and_then(|t| match t.relations.as_slice() {
                    [one] => Some(one.clone()),
                    [] => self.lexicon.office_relation.clone(),
                    _ => None,
                }),
        };
        let holders_at_date = match office {
            Some(o) => self.holdings.holders_on(o, day),
            None => Vec::new(),
        };
        Claim {
            text: summary[found.start..found.end].to_string(),
            start: offsets.at(found.start),
            end: offsets.at(found.end),
            person: person_entity,
            position: office_entity,
            relation,
            tense: found.tense,
            implied: false,
            verdict: judged.verdict,
            reason: judged.reason,
            holders_at_date,
            evidence: judged.evidence,
        }
    }

    /// The role a written claim is of and its verdict: (the role, the entity
    /// a role of the facts' never was on, the verdict).
    fn resolve(
        &self,
        found: &Found,
        person: &Result<u32, String>,
        offices: Result<Vec<u32>, NoOffice>,
        (day, context): (NaiveDate, &Context),
    ) -> (Option<u32>, Option<u32>, Judged) {
        match (person, offices) {
            (Ok(p), Ok(offices)) => {
                let (office, judged) = self.settle(*p, &offices, found.tense, day);
                (office, None, judged)
            }
            (Err(why), Ok(offices)) => match (&found.person, offices.as_slice()) {
                // A name the facts do not hold, in a role on an entity whose
                // every holder they list, where the article names one of those
                // holders (it is about that role, not another team of the same
                // name: "england coach" of cricket beside England's football
                // managers). Offices keep their earlier rule: `unknown`.
                (Named::Unknown, [one])
                    if self.holdings.lists_every_holder(*one)
                        && self.holdings.role_on(*one).is_some()
                        && self
                            .holdings
                            .holders_of(*one)
                            .iter()
                            .any(|h| context.named.contains(h)) =>
                {
                    let reason = format!(
                        "every holder of {} is known, and {why}",
                        self.holdings.label(*one)
                    );
                    (Some(*one), None, never(reason))
                }
                _ => (offices.first().copied(), None, unknown(why.clone())),
            },
            (Ok(p), Err(none)) => match self.never_on_entity(*p, found) {
                Some((entity, judged)) => (None, Some(entity), judged),
                None => (None, None, unknown(none.reason)),
            },
            (Err(_), Err(none)) => (None, None, unknown(none.reason)),
        }
    }

    /// A bare role word ("manager X", no club) that only the person's own role
    /// settled: the facts list some of their roles, not every one (they hold a
    /// club's managers, not a manager's clubs), so "manager X" may be of a club
    /// the facts do not hold. Outdated or not yet by the one held is then open.
    fn open_bare_role(
        &self,
        found: &Found,
        (person, role): (u32, u32),
        judged: &mut Judged,
        context: &Context,
    ) {
        if !found.places.is_empty()
            || !matches!(judged.verdict, Verdict::Outdated | Verdict::NotYet)
            || self
                .lexicon
                .title(found.title)
                .is_none_or(|t| t.relations.is_empty())
            || context.offices.contains(&role)
        {
            return;
        }
        let Some(relation) = self.holdings.relation_of(role) else {
            return;
        };
        if self.holdings.lists_every_role(person, relation) {
            return;
        }
        judged.verdict = Verdict::Unknown;
        judged.reason = format!(
            "the summary does not name whose {} it means, and the facts do not list every {relation} \
             statement of {} (of them: {})",
            found_title(&self.lexicon, found),
            self.holdings.label(person),
            judged.reason
        );
    }

    /// A role on an entity of the facts that has no such role in them ("Harwick
    /// United goalkeeper X" where no player of the club is listed): `never` when
    /// the facts list every role of the word's relation the person held, since
    /// the entity is not among them. (entity, verdict), or `None`.
    fn never_on_entity(&self, person: u32, found: &Found) -> Option<(u32, Judged)> {
        let title = self.lexicon.title(found.title)?;
        let [relation] = title.relations.as_slice() else {
            return None;
        };
        let mut entities = found
            .places
            .iter()
            .filter_map(|p| self.lexicon.place_entities.get(p).copied());
        let entity = entities.next()?;
        if entities.next().is_some() || !self.holdings.lists_every_role(person, relation) {
            return None;
        }
        let (who, what) = (self.holdings.label(person), self.holdings.label(entity));
        Some((
            entity,
            Judged {
                verdict: Verdict::Never,
                reason: format!("every {relation} statement of {who} is known; none is on {what}"),
                evidence: Vec::new(),
            },
        ))
    }

    /// The one person the words name, or why there is none.
    fn person(
        &self,
        candidates: &[(u32, bool)],
        title_offices: &[TitleOffice],
        knows: &Knows,
    ) -> Result<u32, String> {
        let mut people: Vec<u32> = candidates
            .iter()
            .filter(|(p, by_surname)| !by_surname || knows.in_full(*p))
            .map(|(p, _)| *p)
            .collect();
        people.sort_unstable();
        people.dedup();
        if people.len() > 1 {
            let in_full: Vec<u32> = people
                .iter()
                .copied()
                .filter(|p| knows.in_full(*p))
                .collect();
            if !in_full.is_empty() {
                people = in_full;
            }
        }
        if people.len() > 1 {
            let fitting: Vec<u32> = people
                .iter()
                .copied()
                .filter(|&p| {
                    self.holdings
                        .offices_of(p)
                        .iter()
                        .any(|o| title_offices.binary_search_by_key(o, |t| t.office).is_ok())
                })
                .collect();
            if !fitting.is_empty() {
                people = fitting;
            }
        }
        match people.as_slice() {
            [one] => Ok(*one),
            [] => Err("a surname of someone the article does not name in full".into()),
            several => Err(format!(
                "the name fits several people: {}",
                several
                    .iter()
                    .map(|p| self.holdings.id(*p))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The offices of each written claim's title. Each claim's own phrase, person
    /// and article come first. A claim of a holder named relative to another
    /// ("President X's successor Joe Biden") takes the other's offices. A bare
    /// title that these leave open takes the one office that the summary's other
    /// claims resolve it to ("chancellor john swinney ... chancellor george
    /// osborne"); two offices leave it open.
    fn summary_offices(
        &self,
        summary: &str,
        found: &[Found],
        people: &[Result<u32, String>],
        context: &Context,
    ) -> Vec<TitleOffices> {
        let mut out: Vec<TitleOffices> = found
            .iter()
            .zip(people)
            .map(|(f, person)| TitleOffices {
                offices: self.offices(f, person.as_ref().ok().copied(), context),
                by: None,
            })
            .collect();
        for (i, f) in found.iter().enumerate() {
            let Some(of) = f.office_of else { continue };
            if let Some(Ok(offices)) = out.get(of).map(|o| &o.offices) {
                out[i] = TitleOffices {
                    offices: Ok(offices.clone()),
                    by: None,
                };
            }
        }
        if !out
            .iter()
            .any(|o| o.offices.as_ref().is_err_and(|none| none.bare))
        {
            return out;
        }
        // Claims that resolved their title to one office, by their own words.
        let settled: Vec<(usize, u32)> = out
            .iter()
            .enumerate()
            .filter_map(|(i, o)| match o.offices.as_deref() {
                Ok([one]) => Some((i, *one)),
                _ => None,
            })
            .collect();
        for (i, offices) in out.iter_mut().enumerate() {
            if offices.offices.as_ref().is_err_and(|none| none.bare) {
                if let Some(by_summary) = self.settled_by_summary(summary, found, i, &settled) {
                    *offices = by_summary;
                }
            }
        }
        out
    }

    /// The one office among the title's of claim `i` that the summary's other
    /// claims (`settled`: claim index and its one office) resolve to, if one.
    fn settled_by_summary(
        &self,
        summary: &str,
        found: &[Found],
        i: usize,
        settled: &[(usize, u32)],
    ) -> Option<TitleOffices> {
        let title = self.lexicon.title(found[i].title)?;
        let mut fitting = settled.iter().filter(|&&(j, o)| {
            j != i && title.offices.binary_search_by_key(&o, |t| t.office).is_ok()
        });
        let &(by, office) = fitting.next()?;
        if fitting.any(|&(_, other)| other != office) {
            return None;
        }
        let words = &summary[found[by].start..found[by].end];
        Some(TitleOffices {
            offices: Ok(vec![office]),
            by: Some(format!(
                "the summary's {words:?} says which {} it means, {}",
                title.text,
                self.holdings.label(office)
            )),
        })
    }

    /// The offices the title phrase may name (one, or several the context cannot
    /// tell apart), or why there is none. Offices are numbers in id order; a
    /// title's offices are sorted, so each step is a search, not a scan of every
    /// office a generic title may mean.
    fn offices(
        &self,
        found: &Found,
        person: Option<u32>,
        context: &Context,
    ) -> Result<Vec<u32>, NoOffice> {
        let Some(title) = self.lexicon.title(found.title) else {
            return Err(NoOffice::new("no such title".into()));
        };
        let all = title.offices.as_slice();
        if all.is_empty() {
            return Err(NoOffice::new(format!(
                "no office of the facts is a {}",
                title.text
            )));
        }
        let placed = self.placed(found, title)?;
        match placed.as_deref() {
            Some([one]) => Ok(vec![*one]),
            None if all.len() == 1 && !title.generic => Ok(vec![all[0].office]),
            _ => self.offices_by_context(found, title, placed, person, context),
        }
    }

    /// The offices of the title that the places in its phrase allow (sorted), if
    /// the phrase has places; an error naming them if they fit none.
    fn placed(&self, found: &Found, title: &Title) -> Result<Option<Vec<u32>>, NoOffice> {
        if found.places.is_empty() {
            return Ok(None);
        }
        let placed: Vec<u32> = title
            .offices
            .iter()
            .filter(|o| {
                (!title.generic && o.places.is_empty())
                    || o.places.iter().any(|p| found.places.contains(p))
            })
            .map(|o| o.office)
            .collect();
        if !placed.is_empty() {
            return Ok(Some(placed));
        }
        let places: Vec<&str> = found
            .places
            .iter()
            .filter_map(|p| self.lexicon.places.get(*p as usize))
            .map(String::as_str)
            .collect();
        Err(NoOffice::new(format!(
            "no office of the facts is a {} of {}",
            title.text,
            places.join(" or ")
        )))
    }

    /// Of the offices the title (and its places, `placed`) may mean: those the
    /// person held, else those of the article's facts, else the ones its words
    /// name. A bare generic title with none of these is open ([`NoOffice::bare`]).
    fn offices_by_context(
        &self,
        found: &Found,
        title: &Title,
        placed: Option<Vec<u32>>,
        person: Option<u32>,
        context: &Context,
    ) -> Result<Vec<u32>, NoOffice> {
        let fits = |o: &u32| match &placed {
            Some(placed) => placed.binary_search(o).is_ok(),
            None => title.offices.binary_search_by_key(o, |t| t.office).is_ok(),
        };
        // A word before a role word that names nothing the facts know ("Grantham
        // Motors chief executive", "rangers boss") is an entity the facts do not
        // hold.
        if (found.unknown_qualifier || found.word_before)
            && placed.is_none()
            && !title.relations.is_empty()
        {
            return Err(NoOffice::new(format!(
                "the word before {:?} names nothing the facts know",
                title.text
            )));
        }
        if let Some(p) = person {
            let own: Vec<u32> = self
                .holdings
                .offices_of(p)
                .iter()
                .copied()
                .filter(|o| fits(o))
                .collect();
            if !own.is_empty() {
                return Ok(own);
            }
        }
        // A word before the title that is no place of the facts ("Tory leader")
        // may be what tells the office: only the person's own office settles it.
        if found.unknown_qualifier && placed.is_none() {
            return Err(NoOffice::new(format!(
                "the word before {:?} names nothing the facts know, and the person held no such office",
                title.text
            )));
        }
        let in_article: Vec<u32> = context
            .offices
            .iter()
            .copied()
            .filter(|o| fits(o))
            .collect();
        if !in_article.is_empty() {
            return Ok(in_article);
        }
        // A place or the office's own name has named these offices: they stand.
        // A bare generic title ("president") names none of them in particular.
        match placed {
            Some(placed) => Ok(placed),
            None if !title.generic => Ok(title.offices.iter().map(|o| o.office).collect()),
            None => Err(NoOffice {
                reason: format!(
                    "no office the person held or the article's facts name is a {}",
                    title.text
                ),
                bare: true,
            }),
        }
    }

    /// The verdict on `person` holding one of `offices`: of one office, its
    /// verdict; of several, the one the person held on `day` if only one, else the
    /// verdict they all share (the office first by id, the others named in the
    /// reason), else unknown.
    fn settle(
        &self,
        person: u32,
        offices: &[u32],
        tense: Tense,
        day: NaiveDate,
    ) -> (Option<u32>, Judged) {
        let judge = |o: u32| self.holdings.judge(person, o, tense, day);
        // Numbers are in id order.
        let mut sorted = offices.to_vec();
        sorted.sort_unstable();
        if let [one] = sorted.as_slice() {
            return (Some(*one), judge(*one));
        }
        let on_day: Vec<u32> = sorted
            .iter()
            .copied()
            .filter(|&o| self.holdings.may_hold_on(person, o, day))
            .collect();
        if let [one] = on_day.as_slice() {
            return (Some(*one), judge(*one));
        }
        let judged: Vec<Judged> = sorted.iter().map(|o| judge(*o)).collect();
        let labels: Vec<&str> = sorted.iter().map(|&o| self.holdings.label(o)).collect();
        if judged.iter().all(|j| j.verdict == judged[0].verdict) {
            let mut first = judged[0].clone();
            first.reason = format!(
                "the title fits {} offices ({}), with the same verdict for each: {}",
                sorted.len(),
                labels.join("; "),
                first.reason
            );
            return (Some(sorted[0]), first);
        }
        (
            None,
            unknown(format!(
                "the title fits several offices: {}",
                labels.join("; ")
            )),
        )
    }
}

/// The offices a written claim's title may name, and what in the summary settled
/// them when not its own words.
struct TitleOffices {
    offices: Result<Vec<u32>, NoOffice>,
    /// How another claim of the summary settled them, for the reason.
    by: Option<String>,
}

/// Why a title names no office of the facts.
#[derive(Debug)]
struct NoOffice {
    reason: String,
    /// A generic title with no place, whose person's offices and article's facts
    /// say nothing of it: another claim of the summary may.
    bare: bool,
}

impl NoOffice {
    fn new(reason: String) -> Self {
        Self {
            reason,
            bare: false,
        }
    }
}

fn found_title<'a>(lexicon: &'a Lexicon, found: &Found) -> &'a str {
    lexicon.title(found.title).map_or("", |t| t.text.as_str())
}

fn never(reason: String) -> Judged {
    Judged {
        verdict: Verdict::Never,
        reason,
        evidence: Vec::new(),
    }
}

fn unknown(reason: String) -> Judged {
    Judged {
        verdict: Verdict::Unknown,
        reason,
        evidence: Vec::new(),
    }
}

/// Byte offsets to character offsets of one text.
struct CharOffsets {
    /// Byte offset of each character's start, and the text's length last.
    starts: Vec<usize>,
}

impl CharOffsets {
    fn new(text: &str) -> Self {
        if text.is_ascii() {
            return Self { starts: Vec::new() };
        }
        let mut starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        starts.push(text.len());
        Self { starts }
    }

    fn at(&self, byte: usize) -> usize {
        if self.starts.is_empty() {
            return byte;
        }
        self.starts.partition_point(|&s| s < byte)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{entity, fact};
    use std::sync::Arc;
    use tempora_records::Tense;

    /// Made-up people in real offices' shapes (our own names, Wikidata's label forms).
    fn facts() -> Vec<Fact> {
        let pm = entity(
            "Q1",
            "Prime Minister of the United Kingdom",
            &["UK Prime Minister", "British prime minister"],
        );
        let fm = entity(
            "Q2",
            "First Minister of Scotland",
            &["Scottish First Minister"],
        );
        let potus = entity(
            "Q3",
            "President of the United States",
            &["US President", "POTUS"],
        );
        let vp = entity(
            "Q4",
            "Vice President of the United States",
            &["US Vice President"],
        );
        let labour = entity("Q5", "Leader of the Labour Party", &[]);
        let health = entity("Q6", "Secretary of State for Health", &["Health Secretary"]);
        let aus = entity(
            "Q7",
            "Prime Minister of Australia",
            &["Australian Prime Minister"],
        );
        let (hale, orme, reid) = (
            entity("Q10", "Margaret Hale", &[]),
            entity("Q11", "Peter Orme", &["Pete Orme"]),
            entity("Q12", "Alan Reid", &[]),
        );
        let (lowe, marsh, quinn) = (
            entity("Q13", "Daniel Lowe", &["President Lowe"]),
            entity("Q14", "Ruth Marsh", &[]),
            entity("Q15", "Colin Quinn", &[]),
        );
        let (ives, kemp) = (
            entity("Q16", "Nora Ives", &[]),
            entity("Q17", "Tom Kemp", &[]),
        );
        vec![
            fact(&pm, "P1308", &hale, "2010-05-11", Some("2016-07-13")),
            fact(&pm, "P1308", &orme, "2016-07-13", Some("2019-07-24")),
            fact(&pm, "P1308", &ives, "2019-07-24", None),
            fact(&orme, "P39", &health, "2012-09-04", Some("2016-07-13")),
            fact(&orme, "P39", &pm, "2016-07-13", Some("2019-07-24")),
            fact(&fm, "P1308", &reid, "2007-05-16", Some("2014-11-19")),
            fact(&fm, "P1308", &marsh, "2014-11-20", None),
            fact(&potus, "P1308", &lowe, "2009-01-20", Some("2017-01-20")),
            fact(&potus, "P1308", &quinn, "2017-01-20", None),
            fact(&lowe, "P39", &vp, "2001-01-20", Some("2009-01-20")),
            fact(&lowe, "P39", &potus, "2009-01-20", Some("2017-01-20")),
            fact(&labour, "P1308", &kemp, "2015-09-12", Some("2020-04-04")),
            fact(&aus, "P1308", &entity("Q18", "Ann Ward", &[]), "2018", None),
        ]
    }

    fn judge() -> Judge {
        Judge::new(facts().iter()).unwrap()
    }

    /// (claim text, person id, office id, verdict) of a claim.
    type Seen = (String, Option<Arc<str>>, Option<Arc<str>>, Verdict);

    /// (person id, office id, verdict) of a claim.
    type Held = (Option<Arc<str>>, Option<Arc<str>>, Verdict);

    /// (claim text, person id, office id, verdict) of each claim.
    fn judged(summary: &str, on: &str, document: Option<&str>) -> Vec<Seen> {
        let judge = judge();
        let context = judge.context(document, []);
        judge
            .claims(summary, on.parse().unwrap(), &context)
            .into_iter()
            .map(|c| (c.text, c.person.id, c.position.id, c.verdict))
            .collect()
    }

    fn one(summary: &str, on: &str) -> Seen {
        let mut all = judged(summary, on, None);
        assert_eq!(all.len(), 1, "{summary}: {all:?}");
        all.remove(0)
    }

    fn q(id: &str) -> Option<Arc<str>> {
        Some(id.into())
    }

    #[test]
    fn title_before_name_in_each_shape() {
        let c = one(
            "Prime Minister Peter Orme has called an election.",
            "2017-04-18",
        );
        assert_eq!(
            c,
            (
                "Prime Minister Peter Orme".into(),
                q("Q11"),
                q("Q1"),
                Verdict::Current
            )
        );
        let c = one("US President Colin Quinn met the press.", "2018-01-01");
        assert_eq!((c.2, c.3), (q("Q3"), Verdict::Current));
        let c = one("Scotland's first minister Ruth Marsh spoke.", "2016-01-01");
        assert_eq!(
            (c.0.as_str(), c.2, c.3),
            (
                "Scotland's first minister Ruth Marsh",
                q("Q2"),
                Verdict::Current
            )
        );
        let c = one("Labour leader Tom Kemp resigned.", "2021-01-01");
        assert_eq!((c.2, c.3), (q("Q5"), Verdict::Outdated));
        let c = one("The health secretary Peter Orme said so.", "2014-01-01");
        assert_eq!((c.2, c.3), (q("Q6"), Verdict::Current));
    }

    #[test]
    fn name_before_title_with_a_comma() {
        let c = one(
            "Peter Orme, the prime minister, has resigned.",
            "2020-01-01",
        );
        assert_eq!(
            (c.0.as_str(), c.2, c.3),
            ("Peter Orme, the prime minister", q("Q1"), Verdict::Outdated)
        );
        // A surname stands for the person the article names in full.
        let doc = "Peter Orme spoke in the Commons on Tuesday.";
        let all = judged("Mr Orme, the PM, spoke.", "2017-01-01", Some(doc));
        assert_eq!(
            all,
            [(
                "Mr Orme, the PM".into(),
                q("Q11"),
                q("Q1"),
                Verdict::Current
            )]
        );
        // Without the full name anywhere, the surname names no one: unknown.
        let all = judged(
            "Mr Orme, the PM, spoke.",
            "2017-01-01",
            Some("Nothing here."),
        );
        assert_eq!(all[0].1, None);
        assert_eq!(all[0].3, Verdict::Unknown);
    }

    #[test]
    fn lowercased_text_works_as_cased_text() {
        let c = one(
            "vice president daniel lowe said the us would act.",
            "2012-01-01",
        );
        assert_eq!((c.1, c.2, c.3), (q("Q13"), q("Q4"), Verdict::Outdated));
        let c = one(
            "former uk prime minister margaret hale spoke.",
            "2018-01-01",
        );
        assert_eq!((c.2, c.3), (q("Q1"), Verdict::Former));
    }

    #[test]
    fn past_markers_make_a_claim_about_the_past() {
        for text in [
            "Former Prime Minister Margaret Hale spoke.",
            "Ex-prime minister Margaret Hale spoke.",
            "Then-prime minister Margaret Hale spoke.",
            "Margaret Hale, the former prime minister, spoke.",
        ] {
            let c = one(text, "2018-01-01");
            assert_eq!((c.2, c.3), (q("Q1"), Verdict::Former), "{text}");
        }
        // "then" without its hyphen is "and then": a present claim.
        let c = one("Then Prime Minister Margaret Hale spoke.", "2018-01-01");
        assert_eq!(c.3, Verdict::Outdated);
    }

    #[test]
    fn two_claims_in_one_summary() {
        let all = judged(
            "President Daniel Lowe met Prime Minister Margaret Hale in London.",
            "2013-05-01",
            None,
        );
        let verdicts: Vec<(Option<Arc<str>>, Verdict)> =
            all.into_iter().map(|c| (c.1, c.3)).collect();
        assert_eq!(
            verdicts,
            [(q("Q13"), Verdict::Current), (q("Q10"), Verdict::Current)]
        );
    }

    #[test]
    fn generic_titles_resolve_by_place_then_person_then_never() {
        // No place: the person's own office.
        let c = one("President Daniel Lowe spoke.", "2020-01-01");
        assert_eq!((c.2, c.3), (q("Q3"), Verdict::Outdated));
        // A place that fits: Australia's prime minister, held by someone else.
        let c = one("Australia's prime minister Peter Orme spoke.", "2019-01-01");
        assert_eq!((c.2, c.3), (q("Q7"), Verdict::Never));
        // The person holds no office the title fits and the article names none.
        let c = one("Prime Minister Colin Quinn spoke.", "2019-01-01");
        assert_eq!((c.1, c.2, c.3), (q("Q15"), None, Verdict::Unknown));
        // With the office among the article's facts: never.
        let judge = judge();
        let pm = &facts()[0];
        let context = judge.context(None, [pm]);
        let claims = judge.claims(
            "Prime Minister Colin Quinn spoke.",
            "2019-01-01".parse().unwrap(),
            &context,
        );
        assert_eq!(claims[0].verdict, Verdict::Never);
        assert_eq!(claims[0].position.id, q("Q1"));
        // A title with a place the facts hold no office for: unknown, not another PM.
        let c = one("Canada's prime minister Peter Orme spoke.", "2017-01-01");
        assert_eq!((c.2, c.3), (None, Verdict::Unknown));
    }

    #[test]
    fn offices_without_people_and_other_titles_are_no_claims() {
        assert!(judged(
            "The prime minister said the vote would go ahead.",
            "2017-01-01",
            None
        )
        .is_empty());
        assert!(judged("the prime minister may resign.", "2017-01-01", None).is_empty());
        assert!(judged("The club's manager said so.", "2017-01-01", None).is_empty());
    }

    #[test]
    fn a_role_on_an_entity_the_facts_do_not_hold_is_unknown() {
        let judge = judge();
        let claims = judge.claims(
            "Apple chief executive Tim Okafor said so.",
            "2017-01-01".parse().unwrap(),
            &judge.context(None, []),
        );
        assert_eq!(claims.len(), 1, "{claims:?}");
        let c = &claims[0];
        assert_eq!(c.text, "chief executive Tim Okafor");
        assert_eq!(
            (c.verdict, c.relation.as_deref()),
            (Verdict::Unknown, Some("P169"))
        );
    }

    #[test]
    fn unknown_people_are_said_not_guessed() {
        let c = one("Prime Minister Jo Okafor spoke.", "2017-01-01");
        assert_eq!(
            (c.0.as_str(), c.1, c.3),
            ("Prime Minister Jo Okafor", None, Verdict::Unknown)
        );
        // A capitalized word before the title that is no place: only the person's
        // own office settles which office it is.
        let c = one("Tory leader Peter Orme spoke.", "2017-01-01");
        assert_eq!((c.1, c.2, c.3), (q("Q11"), None, Verdict::Unknown));
        let c = one("Independent leader Tom Kemp spoke.", "2017-01-01");
        assert_eq!((c.2, c.3), (q("Q5"), Verdict::Current));
    }

    #[test]
    fn titles_inside_aliases_and_offsets_in_characters() {
        // "President Lowe" is one of Lowe's aliases: the title is the claim's.
        let c = one("President Lowe spoke.", "2010-01-01");
        assert_eq!((c.1, c.2, c.3), (q("Q13"), q("Q3"), Verdict::Current));
        let judge = judge();
        let claims = judge.claims(
            "Café: Prime Minister Peter Orme spoke.",
            "2017-01-01".parse().unwrap(),
            &Context::default(),
        );
        assert_eq!((claims[0].start, claims[0].end), (6, 31));
        assert_eq!(claims[0].tense, Tense::Present);
        assert!(!claims[0].holders_at_date.is_empty());
    }

    /// The document of an article on President Quinn, which names him, with the
    /// US presidency among its facts.
    const QUINN_DOCUMENT: &str = "Colin Quinn signed the order in the Oval Office on Friday.";

    /// The context of the article on President Quinn.
    fn on_president_quinn(judge: &Judge) -> Context {
        let facts = facts();
        let potus = facts.iter().filter(|f| f.subject.id == "Q3");
        judge.context(Some(QUINN_DOCUMENT), potus)
    }

    #[test]
    fn a_bare_name_the_article_never_names_claims_the_articles_office() {
        let judge = judge();
        let context = on_president_quinn(&judge);
        let on = "2018-03-01".parse().unwrap();
        let claims = judge.claims("Daniel Lowe has signed the order.", on, &context);
        assert_eq!(claims.len(), 1, "{claims:?}");
        let c = &claims[0];
        assert!(c.implied);
        assert_eq!(
            (c.text.as_str(), c.verdict),
            ("Daniel Lowe", Verdict::Outdated)
        );
        assert_eq!(c.position.id, q("Q3"));
        // Someone who never held it: never (every holder of the office is known).
        let claims = judge.claims("Ruth Marsh has signed the order.", on, &context);
        assert_eq!(claims[0].verdict, Verdict::Never);
        // The holder the article names, named bare: no claim.
        assert!(judge
            .claims("Colin Quinn has signed the order.", on, &context)
            .is_empty());
        // Without the article's facts there is no office to imply.
        let bare = judge.context(Some(QUINN_DOCUMENT), []);
        assert!(judge
            .claims("Daniel Lowe has signed the order.", on, &bare)
            .is_empty());
        // A name with a title is an explicit claim, not an implied one.
        let claims = judge.claims("Former president Daniel Lowe spoke.", on, &context);
        assert_eq!(
            (claims.len(), claims[0].implied, claims[0].verdict),
            (1, false, Verdict::Former)
        );
    }

    #[test]
    fn system_output_quirks() {
        // An escaped possessive, as XSum's system outputs write it.
        let c = one(
            "australia\\'s prime minister peter orme spoke.",
            "2019-01-01",
        );
        assert_eq!((c.2, c.3), (q("Q7"), Verdict::Never));
        // A gloss in brackets between title and name.
        let c = one(
            "US President (the head of state) Colin Quinn spoke.",
            "2018-01-01",
        );
        assert_eq!((c.2, c.3), (q("Q3"), Verdict::Current));
        // Honorifics in lowercased text, and "ousted" as a past marker.
        let c = one("former prime minister sir peter orme spoke.", "2020-01-01");
        assert_eq!((c.1, c.3), (q("Q11"), Verdict::Former));
        let c = one("Ousted prime minister Peter Orme spoke.", "2020-01-01");
        assert_eq!(c.3, Verdict::Former);
        // A tokenizer's UNK does not make a lowercased text cased.
        let c = one("prime minister peter orme said ' UNK '.", "2017-01-01");
        assert_eq!(c.3, Verdict::Current);
    }

    #[test]
    fn a_title_that_fits_several_offices_gives_their_shared_verdict() {
        let a = entity(
            "Q30",
            "Secretary for Finance and Growth",
            &["Finance Secretary"],
        );
        let b = entity(
            "Q31",
            "Secretary for Finance and Economy",
            &["Finance Secretary"],
        );
        let (swan, dale) = (
            entity("Q32", "Ian Swan", &[]),
            entity("Q33", "Rob Dale", &[]),
        );
        let facts = [
            fact(&a, "P1308", &swan, "2007-05-17", Some("2011-05-20")),
            fact(&b, "P1308", &swan, "2011-05-20", Some("2016-05-18")),
            fact(&a, "P1308", &dale, "2011-05-20", None),
            fact(&b, "P1308", &dale, "2016-05-18", None),
        ];
        let judge = Judge::new(facts.iter()).unwrap();
        let claims =
            |text: &str, on: &str| judge.claims(text, on.parse().unwrap(), &Context::default());
        // Swan held one of them that day: that one.
        let c = &claims("Finance Secretary Ian Swan spoke.", "2013-01-01")[0];
        assert_eq!(
            (c.position.id.clone(), c.verdict),
            (q("Q31"), Verdict::Current)
        );
        // After both, outdated whichever is meant.
        let c = &claims("Finance Secretary Ian Swan spoke.", "2017-01-01")[0];
        assert_eq!(c.verdict, Verdict::Outdated);
        assert!(c.reason.contains("fits 2 offices"), "{}", c.reason);
        // Dale held one and later both: on a day he held only one, current.
        let c = &claims("Finance Secretary Rob Dale spoke.", "2013-01-01")[0];
        assert_eq!(c.verdict, Verdict::Current);
    }

    #[test]
    fn a_possessive_that_points_past_the_person_is_a_claim_about_the_past() {
        // The day after the handover from Lowe to Quinn.
        let all = judged(
            "President Lowe's successor Colin Quinn took the oath at noon.",
            "2017-01-21",
            None,
        );
        assert_eq!(
            all,
            [
                ("President Lowe".into(), q("Q13"), q("Q3"), Verdict::Former),
                (
                    "successor Colin Quinn".into(),
                    q("Q15"),
                    q("Q3"),
                    Verdict::Current
                ),
            ]
        );
        // The successor named with a comma, in a lowercased summary.
        let all = judged(
            "president lowe's successor, colin quinn, took the oath.",
            "2017-01-21",
            None,
        );
        let verdicts: Vec<Verdict> = all.iter().map(|c| c.3).collect();
        assert_eq!(verdicts, [Verdict::Former, Verdict::Current], "{all:?}");
        // A predecessor held the same office before: someone who never did is
        // wrong by the facts.
        let all = judged(
            "Prime Minister Peter Orme's predecessor Margaret Hale spoke first.",
            "2017-03-01",
            None,
        );
        let seen: Vec<Held> = all.into_iter().map(|c| (c.1, c.2, c.3)).collect();
        assert_eq!(
            seen,
            [
                (q("Q11"), q("Q1"), Verdict::Current),
                (q("Q10"), q("Q1"), Verdict::Former)
            ]
        );
        let all = judged(
            "Prime Minister Peter Orme's predecessor Ruth Marsh spoke first.",
            "2017-03-01",
            None,
        );
        assert_eq!((all[1].1.clone(), all[1].3), (q("Q14"), Verdict::Never));
        // "the ... administration" with or without a possessive.
        for text in [
            "Officials of the President Lowe administration wrote the rule.",
            "President Lowe's administration wrote the rule.",
            "US President Daniel Lowe's administrations wrote the rules.",
        ] {
            let c = one(text, "2018-01-01");
            assert_eq!((c.2, c.3), (q("Q3"), Verdict::Former), "{text}");
        }
    }

    #[test]
    fn a_possessive_that_does_not_point_past_stays_a_present_claim() {
        let c = one("President Lowe said the rule would stay.", "2018-01-01");
        assert_eq!((c.2, c.3), (q("Q3"), Verdict::Outdated));
        let c = one(
            "President Lowe's decision to stay was praised.",
            "2018-01-01",
        );
        assert_eq!((c.0.as_str(), c.3), ("President Lowe", Verdict::Outdated));
        let c = one(
            "President Colin Quinn's administration wrote it.",
            "2018-01-01",
        );
        assert_eq!(c.3, Verdict::Current);
        // A title of the successor's own makes their claim a present one.
        let all = judged(
            "President Lowe's successor President Colin Quinn spoke.",
            "2018-01-01",
            None,
        );
        let seen: Vec<(&str, Verdict)> = all.iter().map(|c| (c.0.as_str(), c.3)).collect();
        assert_eq!(
            seen,
            [
                ("President Lowe", Verdict::Former),
                ("President Colin Quinn", Verdict::Current)
            ]
        );
    }

    #[test]
    fn a_bare_name_beside_words_that_point_past_implies_nothing() {
        let judge = judge();
        let context = on_president_quinn(&judge);
        let on = "2018-03-01".parse().unwrap();
        for text in [
            "The order undoes a rule of the Daniel Lowe administration.",
            "The order undoes a rule of Daniel Lowe's administration.",
            "Colin Quinn's predecessor Daniel Lowe wrote the rule.",
            "His predecessor, Daniel Lowe, wrote the rule.",
        ] {
            assert!(judge.claims(text, on, &context).is_empty(), "{text}");
        }
        // Without those words the bare name still implies the office.
        let claims = judge.claims("Daniel Lowe wrote the rule.", on, &context);
        assert_eq!(claims[0].verdict, Verdict::Outdated);
    }

    #[test]
    fn the_issue_s_handover_day_with_real_ids() {
        let potus = entity("Q11696", "President of the United States", &[]);
        let trump = entity("Q22686", "Donald Trump", &[]);
        let biden = entity("Q6279", "Joe Biden", &[]);
        let facts = [
            fact(&potus, "P1308", &trump, "2017-01-20", Some("2021-01-20")),
            fact(&potus, "P1308", &biden, "2021-01-20", Some("2025-01-20")),
        ];
        let judge = Judge::new(facts.iter()).unwrap();
        let document = "Joe Biden took office as Donald Trump flew to Florida.";
        let context = judge.context(Some(document), &facts);
        let claims = judge.claims(
            "President Trump's successor Joe Biden spent his first day signing orders.",
            "2021-01-21".parse().unwrap(),
            &context,
        );
        let seen: Vec<(&str, Tense, Verdict)> = claims
            .iter()
            .map(|c| (c.text.as_str(), c.tense, c.verdict))
            .collect();
        assert_eq!(
            seen,
            [
                ("President Trump", Tense::Past, Verdict::Former),
                ("successor Joe Biden", Tense::Past, Verdict::Current)
            ]
        );
        let claims = judge.claims(
            "President Biden signed orders on his first day.",
            "2021-01-21".parse().unwrap(),
            &context,
        );
        assert_eq!(
            (claims.len(), claims[0].tense, claims[0].verdict),
            (1, Tense::Present, Verdict::Current)
        );
    }

    /// Three chancellors: of the Exchequer and of Germany, and a Scottish finance
    /// secretary, every list whole (made-up people).
    fn chancellors() -> Judge {
        let coe = entity("Q40", "Chancellor of the Exchequer", &[]);
        let germany = entity("Q41", "Chancellor of Germany", &["German Chancellor"]);
        let finance = entity("Q42", "Cabinet Secretary for Finance", &[]);
        let (baird, fenwick, brandt) = (
            entity("Q43", "Ewan Baird", &[]),
            entity("Q44", "Giles Fenwick", &[]),
            entity("Q45", "Ute Brandt", &[]),
        );
        let facts = [
            fact(&coe, "P1308", &fenwick, "2010-05-11", Some("2016-07-13")),
            fact(&germany, "P1308", &brandt, "2005-11-22", Some("2021-12-08")),
            fact(&baird, "P39", &finance, "2007-05-17", Some("2016-05-18")),
            fact(&finance, "P1308", &baird, "2007-05-17", Some("2016-05-18")),
        ];
        Judge::new(facts.iter()).unwrap()
    }

    #[test]
    fn a_bare_title_takes_the_office_the_summary_resolves_it_to() {
        let judge = chancellors();
        let on = "2014-03-01".parse().unwrap();
        let judged = |text: &str| judge.claims(text, on, &Context::default());
        // Alone, "chancellor" names none of the chancellors for Baird: unknown.
        let alone = judged("chancellor ewan baird has said the budget is fair.");
        assert_eq!(alone[0].verdict, Verdict::Unknown);
        assert_eq!(alone[0].position.id, None);
        // The summary's other chancellor is of the Exchequer: so is the first.
        let claims = judged(
            "chancellor ewan baird has said the budget is fair, after chancellor \
             giles fenwick's decision to cut taxes.",
        );
        let seen: Vec<Held> = claims
            .iter()
            .map(|c| (c.person.id.clone(), c.position.id.clone(), c.verdict))
            .collect();
        assert_eq!(
            seen,
            [
                (q("Q43"), q("Q40"), Verdict::Never),
                (q("Q44"), q("Q40"), Verdict::Current)
            ]
        );
        assert!(
            claims[0].reason.contains("chancellor giles fenwick"),
            "{}",
            claims[0].reason
        );
        // Cased, and the resolving claim first.
        let claims = judged("Chancellor Giles Fenwick and Chancellor Ewan Baird met.");
        assert_eq!(claims[1].verdict, Verdict::Never);
    }

    #[test]
    fn a_bare_title_the_summary_resolves_two_ways_stays_open() {
        let judge = chancellors();
        let claims = judge.claims(
            "chancellor ewan baird said so, as chancellor giles fenwick and \
             chancellor ute brandt met.",
            "2014-03-01".parse().unwrap(),
            &Context::default(),
        );
        let seen: Vec<(Option<Arc<str>>, Verdict)> = claims
            .iter()
            .map(|c| (c.position.id.clone(), c.verdict))
            .collect();
        assert_eq!(
            seen,
            [
                (None, Verdict::Unknown),
                (q("Q40"), Verdict::Current),
                (q("Q41"), Verdict::Current)
            ]
        );
    }

    #[test]
    fn the_facts_order_changes_nothing() {
        let summaries = [
            "Prime Minister Peter Orme has called an election.",
            "Mr Orme, the PM, spoke.",
            "Finance Secretary Ian Swan spoke.",
            "president daniel lowe and former uk prime minister margaret hale met.",
            "Daniel Lowe has signed the order.",
        ];
        let mut facts = facts();
        let document = "Colin Quinn and Peter Orme signed the order on Friday.";
        let judged = |facts: &[Fact]| -> Vec<String> {
            let judge = Judge::new(facts).unwrap();
            let context = judge.context(Some(document), facts);
            summaries
                .iter()
                .flat_map(|s| judge.claims(s, "2018-03-01".parse().unwrap(), &context))
                .map(|c| serde_json::to_string(&c).unwrap())
                .collect()
        };
        let first = judged(&facts);
        assert!(first.len() >= 5, "{first:?}");
        facts.reverse();
        assert_eq!(judged(&facts), first);
        facts.rotate_left(5);
        assert_eq!(judged(&facts), first);
    }
}
