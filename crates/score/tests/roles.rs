//! Claims of roles on clubs, companies and organizations, judged against made-up
//! facts of the catalogue's sport and business relations: a club's managers
//! (P286), a player's clubs (P54), a company's chief executives (P169), an
//! organization's chair (P488), and a relation declared only here.

use chrono::NaiveDate;
use tempora_records::{Claim, EntityRef, Fact, Verdict};
use tempora_relations::Catalogue;
use tempora_score::Judge;

fn entity(id: &str, label: &str, aliases: &[&str]) -> EntityRef {
    EntityRef {
        id: id.into(),
        label: Some(label.into()),
        aliases: aliases.iter().map(|a| a.to_string()).collect(),
    }
}

fn fact(
    subject: &EntityRef,
    relation: &str,
    object: &EntityRef,
    start: &str,
    end: Option<&str>,
) -> Fact {
    Fact {
        subject: subject.clone(),
        relation: relation.into(),
        object: object.clone(),
        start: Some(start.into()),
        end: end.map(Into::into),
        replaces: None,
        replaced_by: None,
        rank: "normal".into(),
        valid_at_cutoff: false,
        pair_changed: None,
    }
}

fn facts() -> Vec<Fact> {
    let rovers = entity("Q100", "Harwick Rovers F.C.", &["Rovers", "HRFC"]);
    let dunmere = entity("Q101", "Dunmere Athletic F.C.", &["Dunmere"]);
    let selby_utd = entity("Q102", "Selby United F.C.", &["United"]);
    let harwick_utd = entity("Q103", "Harwick United F.C.", &["United"]);
    let foods = entity("Q110", "Selby Foods plc", &[]);
    let trust = entity("Q111", "Harbour Trust", &[]);
    let tallow = entity("Q201", "Edwin Tallow", &[]);
    let quint = entity("Q202", "Mara Quint", &[]);
    let brack = entity("Q203", "Owen Brack", &[]);
    let farr = entity("Q204", "Lena Farr", &[]);
    let wren = entity("Q205", "Tobias Wren", &[]);
    let ward = entity("Q206", "Ann Ward", &[]);
    let pell = entity("Q207", "Raj Pell", &[]);
    let moss = entity("Q208", "Kit Moss", &[]);
    let dale = entity("Q209", "Ivo Dale", &[]);
    vec![
        fact(&rovers, "P286", &tallow, "2014-07-01", Some("2018-05-21")),
        fact(&rovers, "P286", &quint, "2018-05-21", None),
        fact(&dunmere, "P286", &brack, "2012-06-01", Some("2021-03-02")),
        fact(&dunmere, "P286", &farr, "2021-03-02", None),
        fact(&wren, "P54", &rovers, "2010-08-01", Some("2017-07-01")),
        fact(&wren, "P54", &dunmere, "2017-07-01", None),
        fact(&foods, "P169", &ward, "2011", Some("2019-09-01")),
        fact(&foods, "P169", &pell, "2019-09-01", None),
        fact(&trust, "P488", &moss, "2015-01-01", None),
        fact(&selby_utd, "P286", &dale, "2016-01-01", None),
        fact(
            &harwick_utd,
            "P286",
            &farr,
            "2015-01-01",
            Some("2021-03-01"),
        ),
    ]
}

fn judge() -> Judge {
    Judge::new(facts().iter()).unwrap()
}

fn claims(judge: &Judge, summary: &str, on: &str) -> Vec<Claim> {
    let day: NaiveDate = on.parse().unwrap();
    judge.claims(summary, day, &judge.context(None, []))
}

/// (text, person id, other side id, relation, verdict) of the one claim.
fn one(
    summary: &str,
    on: &str,
) -> (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Verdict,
) {
    let all = claims(&judge(), summary, on);
    assert_eq!(all.len(), 1, "{summary}: {all:#?}");
    let c = &all[0];
    (
        c.text.clone(),
        c.person.id.as_deref().map(Into::into),
        c.position.id.as_deref().map(Into::into),
        c.relation.as_deref().map(Into::into),
        c.verdict,
    )
}

fn s(v: &str) -> Option<String> {
    Some(v.into())
}

#[test]
fn a_club_s_manager_in_every_shape() {
    let c = one(
        "Harwick Rovers manager Mara Quint praised her side.",
        "2019-03-01",
    );
    assert_eq!(
        c,
        (
            "Harwick Rovers manager Mara Quint".into(),
            s("Q202"),
            s("Q100"),
            s("P286"),
            Verdict::Current
        )
    );
    // The manager before: outdated; by an alias, lowercased, after the name.
    assert_eq!(
        one("Rovers boss Edwin Tallow was sacked.", "2019-03-01").4,
        Verdict::Outdated
    );
    assert_eq!(
        one("rovers boss edwin tallow was sacked.", "2019-03-01").4,
        Verdict::Outdated
    );
    let c = one(
        "Edwin Tallow, the Harwick Rovers manager, said so.",
        "2019-03-01",
    );
    assert_eq!(
        (c.0.as_str(), c.4),
        (
            "Edwin Tallow, the Harwick Rovers manager",
            Verdict::Outdated
        )
    );
    // Before her first day; a past claim that is true; someone the club's whole
    // list of managers does not hold.
    assert_eq!(
        one("Harwick Rovers manager Mara Quint", "2017-01-01").4,
        Verdict::NotYet
    );
    assert_eq!(
        one("former Rovers boss Edwin Tallow", "2019-03-01").4,
        Verdict::Former
    );
    let c = one("Dunmere manager Tobias Wren", "2019-03-01");
    assert_eq!((c.2, c.4), (s("Q101"), Verdict::Never));
    // The label's legal form left out; a possessive between club and word.
    assert_eq!(
        one("Harwick Rovers FC's manager Mara Quint", "2019-03-01").4,
        Verdict::Current
    );
}

#[test]
fn a_bare_role_word_is_settled_by_the_person_only_where_their_list_is_whole() {
    // Edwin Tallow's clubs are not all listed (the facts list Rovers' managers):
    // "manager Edwin Tallow" in 2019 may be of a club the facts do not hold.
    let c = one("says manager Edwin Tallow.", "2019-03-01");
    assert_eq!((c.2.clone(), c.4), (s("Q100"), Verdict::Unknown), "{c:?}");
    // Held on the day: true whatever else he held.
    assert_eq!(
        one("says manager Edwin Tallow.", "2016-03-01").4,
        Verdict::Current
    );
    // The article's facts name Rovers' manager: the claim is of that role.
    let judge = judge();
    let rovers = facts()
        .into_iter()
        .filter(|f| f.relation == "P286")
        .take(2)
        .collect::<Vec<_>>();
    let context = judge.context(None, rovers.iter());
    let all = judge.claims(
        "says manager Edwin Tallow.",
        "2019-03-01".parse().unwrap(),
        &context,
    );
    assert_eq!(all[0].verdict, Verdict::Outdated);
    // Tobias Wren's clubs are all listed: a bare position word settles by them.
    assert_eq!(one("striker Tobias Wren", "2018-02-01").4, Verdict::Current);
}

#[test]
fn a_player_s_position_word_claims_membership_of_the_club() {
    let c = one("Dunmere striker Tobias Wren scored twice.", "2018-02-01");
    assert_eq!(
        (c.2.clone(), c.3.clone(), c.4),
        (s("Q101"), s("P54"), Verdict::Current)
    );
    assert_eq!(
        one("Dunmere striker Tobias Wren", "2016-02-01").4,
        Verdict::NotYet
    );
    assert_eq!(
        one("Harwick Rovers striker Tobias Wren", "2018-02-01").4,
        Verdict::Outdated
    );
    assert_eq!(
        one("former Harwick Rovers midfielder Tobias Wren", "2018-02-01").4,
        Verdict::Former
    );
    // His clubs are all listed: a club he never played for.
    assert_eq!(
        one("Harwick United goalkeeper Tobias Wren", "2018-02-01").4,
        Verdict::Never
    );
}

#[test]
fn a_company_s_chief_and_an_organization_s_chair() {
    let c = one("Selby Foods chief executive Raj Pell", "2020-01-10");
    assert_eq!((c.2, c.3, c.4), (s("Q110"), s("P169"), Verdict::Current));
    // "boss" is a club's and a company's word: the company says which.
    let c = one("Selby Foods boss Ann Ward", "2020-01-10");
    assert_eq!((c.3, c.4), (s("P169"), Verdict::Outdated));
    assert_eq!(
        one("Selby Foods CEO Raj Pell", "2020-01-10").4,
        Verdict::Current
    );
    // "CEO" matches as written, and lowercased in a lowercased summary; not
    // as "Ceo" in cased text.
    assert_eq!(
        one("selby foods ceo raj pell", "2020-01-10").4,
        Verdict::Current
    );
    let mixed = claims(&judge(), "Selby Foods Ceo Raj Pell", "2020-01-10");
    assert!(mixed.is_empty(), "{mixed:#?}");
    let c = one("Harbour Trust's chairman Kit Moss", "2020-01-10");
    assert_eq!((c.2, c.3, c.4), (s("Q111"), s("P488"), Verdict::Current));
}

#[test]
fn no_name_no_claim_and_an_entity_not_in_the_facts_is_unknown() {
    let judge = judge();
    assert!(claims(&judge, "The ex-Rovers boss said little.", "2019-03-01").is_empty());
    assert!(claims(&judge, "The manager was sacked on Monday.", "2019-03-01").is_empty());
    let c = one("Grantham Motors chief executive Raj Pell", "2020-01-10");
    assert_eq!(c.4, Verdict::Unknown, "{c:?}");
    // Lowercased, a word before the role word may be the entity's name: not
    // settled by the person's own role at Selby Foods.
    let c = one("grantham boss raj pell spoke.", "2020-01-10");
    assert_eq!(c.4, Verdict::Unknown, "{c:?}");
    assert_eq!(
        one("the boss raj pell spoke.", "2020-01-10").4,
        Verdict::Current
    );
}

#[test]
fn someone_the_facts_never_name_never_held_a_role_whose_every_holder_is_listed() {
    // Where the article names one of the role's holders (it is about Rovers'
    // managers), a name the facts do not hold never held it.
    let judge = judge();
    let about_rovers = judge.context(
        Some("Mara Quint said her Harwick Rovers side played well."),
        [],
    );
    let on = |summary: &str, context: &tempora_score::Context| {
        let all = judge.claims(summary, "2019-03-01".parse().unwrap(), context);
        assert_eq!(all.len(), 1, "{summary}: {all:#?}");
        (
            all[0].person.id.clone(),
            all[0].position.id.clone(),
            all[0].verdict,
        )
    };
    let c = on("Harwick Rovers manager Jo Okafor", &about_rovers);
    assert_eq!(c, (None, Some("Q100".into()), Verdict::Never));
    // Lowercased, two words after a role on an entity the facts hold.
    let c = on("harwick rovers manager jo okafor has left.", &about_rovers);
    assert_eq!(c.2, Verdict::Never);
    assert!(claims(&judge, "harwick rovers manager has left.", "2019-03-01").is_empty());
    // The second word a surname of someone the facts hold (Ann Ward).
    let c = on("harwick rovers manager jo ward has left.", &about_rovers);
    assert_eq!((c.0, c.2), (None, Verdict::Never));
    // An article that names none of them may be about another team of the
    // name (a cricket side, a youth team): unknown.
    let elsewhere = judge.context(Some("The Harwick Rovers cricket side lost."), []);
    assert_eq!(
        on("Harwick Rovers manager Jo Okafor", &elsewhere).2,
        Verdict::Unknown
    );
    assert_eq!(
        one("Harwick Rovers manager Jo Okafor", "2019-03-01").4,
        Verdict::Unknown
    );
    // An office keeps its rule: a name the facts do not hold is unknown there.
    let mayor = entity("Q400", "Mayor of Harwick", &[]);
    let mut with_office = facts();
    with_office.push(fact(
        &mayor,
        "P1308",
        &entity("Q401", "Ada Vell", &[]),
        "2015-05-01",
        None,
    ));
    let judge = Judge::new(with_office.iter()).unwrap();
    let all = claims(&judge, "Mayor of Harwick Jo Okafor spoke.", "2019-03-01");
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0].verdict, Verdict::Unknown, "{all:#?}");
    // A player's club lists no player in full: unknown.
    assert_eq!(
        one("Dunmere striker Jo Okafor", "2019-03-01").4,
        Verdict::Unknown
    );
}

#[test]
fn a_name_two_clubs_share_is_settled_by_the_person_or_left_open() {
    // "United" is Selby's and Harwick's: Lena Farr managed only Harwick United.
    let c = one("United manager Lena Farr", "2019-03-01");
    assert_eq!((c.2, c.4), (s("Q103"), Verdict::Current));
    let c = one("United manager Lena Farr", "2022-03-01");
    assert_eq!((c.2, c.4), (s("Q103"), Verdict::Outdated));
    // Someone who managed neither: both clubs' lists are whole, so never either way.
    assert_eq!(
        one("United manager Edwin Tallow", "2019-03-01").4,
        Verdict::Never
    );
}

#[test]
fn a_relation_declared_only_here_is_judged() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sponsor.toml"),
        r#"
name = "kit-sponsor"
property = "P859"
label = "sponsor"
person = "object"
other = "kit deal"
role = "sponsor of {other}"
words = [{ word = "backer", plural = "backers" }]
"#,
    )
    .unwrap();
    let catalogue = Catalogue::load(Some(dir.path())).unwrap();
    let deal = entity("Q300", "Harwick Regatta", &[]);
    let backer = entity("Q301", "Ada Vell", &[]);
    let facts = [fact(
        &deal,
        "P859",
        &backer,
        "2015-01-01",
        Some("2018-01-01"),
    )];
    let judge = Judge::with_catalogue(facts.iter(), catalogue).unwrap();
    let all = claims(&judge, "Harwick Regatta backer Ada Vell", "2019-01-01");
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(
        (all[0].relation.as_deref(), all[0].verdict),
        (Some("P859"), Verdict::Outdated)
    );
    // The shipped catalogue does not know the relation: no claim.
    let shipped = Judge::new(facts.iter()).unwrap();
    assert!(claims(&shipped, "Harwick Regatta backer Ada Vell", "2019-01-01").is_empty());
}

#[test]
fn the_facts_order_changes_nothing() {
    let summaries = [
        ("United manager Lena Farr", "2019-03-01"),
        ("harwick rovers manager jo ward has left.", "2019-03-01"),
        ("Dunmere striker Tobias Wren scored twice.", "2018-02-01"),
        ("Selby Foods boss Ann Ward", "2020-01-10"),
        ("says manager Edwin Tallow.", "2019-03-01"),
    ];
    let judged = |facts: &[Fact]| {
        let judge = Judge::new(facts.iter()).unwrap();
        summaries
            .iter()
            .flat_map(|(text, on)| claims(&judge, text, on))
            .collect::<Vec<_>>()
    };
    let mut facts = facts();
    let forward = judged(&facts);
    facts.reverse();
    assert_eq!(forward, judged(&facts));
    facts.rotate_left(4);
    assert_eq!(forward, judged(&facts));
}
