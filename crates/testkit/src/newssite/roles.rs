//! Sport and business stories: a club's manager, a player's club, a company's
//! chief executive, written the way news writes them ("Harwick Rovers manager
//! Edwin Mallory", "Dunmere Athletic striker Callum Yeo", "Callum Yeo, the
//! Dunmere striker,", "Selby Foods chief executive Zara Whitlock").

use chrono::NaiveDateTime;

use super::facts::{Named, RolePair};
use super::story::{Desk, Story, Topic};

/// How a pair's person and other side are written: the person's name, the
/// other side's full and short names, and the role word.
struct Cast<'a> {
    person: &'a str,
    other: &'a str,
    short: &'a str,
    role: &'static str,
}

impl<'a> Cast<'a> {
    /// The cast of `pair` on the day `value` held: the person is the value
    /// (a manager, a chief executive) or the subject (a player).
    fn of(pair: &'a RolePair, value: &'a Named) -> Self {
        let (person, other) = if pair.person_is_subject {
            (&pair.subject, value)
        } else {
            (value, &pair.subject)
        };
        Self {
            person: person.label,
            other: other.aliases.first().copied().unwrap_or(other.label),
            short: other.aliases.last().copied().unwrap_or(other.label),
            role: pair.role,
        }
    }
}

/// A story of `pair` published at `published`, naming what held that day; half
/// of those that state it write the person first ("Callum Yeo, the Dunmere
/// striker,").
pub(super) fn role_story(
    rng: &mut fastrand::Rng,
    published: NaiveDateTime,
    pair: &RolePair,
    (place, subject): (&'static str, &'static str),
    topic: Topic,
) -> Story {
    let person_first = rng.bool();
    let cast = Cast::of(pair, pair.value_on(published.date()));
    let Cast {
        person,
        other,
        short,
        role,
    } = cast;
    let desk = pair.desk;
    let event = match desk {
        Desk::Business => format!("the future of its site in {place}"),
        _ => format!("Saturday's match in {place}"),
    };
    let (title, summary, mut paragraphs) = match topic {
        Topic::Fact if person_first => (
            format!("{person} speaks on {event}"),
            format!("{person}, the {short} {role}, has spoken about {event}."),
            vec![format!(
                "{person} said {other} had learned a lot from {event}."
            )],
        ),
        Topic::Fact => (
            format!("{other} {role} {person} speaks on {event}"),
            format!("{other} {role} {person} has spoken about {event}."),
            vec![format!(
                "{person} said {other} had learned a lot from {event}."
            )],
        ),
        Topic::FactQuietSummary => (
            format!("{place} waits on {event}"),
            format!("People in {place} are waiting for news about {event}."),
            vec![format!(
                "{person}, the {other} {role}, said more would be known within a week."
            )],
        ),
        _ => (
            format!("{person} visits {place}"),
            format!("{person} has visited {place} to hear views on {subject}."),
            vec![format!(
                "{person} met supporters and local business owners."
            )],
        ),
    };
    for n in 0..3 + rng.usize(0..3) {
        paragraphs.push(format!(
            "People in {place} were asked about {event}, and {} replies were received in the first week.",
            40 + n * 17 + rng.usize(0..9)
        ));
    }
    Story {
        desk,
        place,
        subject,
        topic,
        title,
        summary,
        paragraphs,
    }
}
