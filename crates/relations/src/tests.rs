use super::*;

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn load_err(files: &[(&str, &str)]) -> String {
    let dir = dir_with(files);
    Catalogue::load(Some(dir.path())).unwrap_err().to_string()
}

const SHIRT_SPONSOR: &str = r#"
name = "shirt-sponsor"
property = "P859"
label = "sponsor"
person = "object"
other = "kit deal"
role = "sponsor of {other}"
words = [{ word = "sponsor", plural = "sponsors" }]
"#;

#[test]
fn the_shipped_catalogue_holds_offices_sport_and_business() {
    let c = Catalogue::shipped();
    let properties: Vec<&str> = c.relations().iter().map(|r| r.property.as_str()).collect();
    assert_eq!(properties, ["P39", "P1308", "P54", "P286", "P169", "P488"]);
    let coach = c.get("P286").unwrap();
    assert_eq!(coach.person, Side::Object);
    assert_eq!(coach.role_text("Chelsea F.C."), "manager of Chelsea F.C.");
    assert!(coach.words.iter().any(|w| w.word == "boss"));
    assert_eq!(c.get("P54").unwrap().person, Side::Subject);
    let ceo = c.get("P169").unwrap();
    let acronym = ceo.words.iter().find(|w| w.word == "CEO").unwrap();
    assert_eq!(acronym.case, Case::Exact);
    assert_eq!(acronym.forms().collect::<Vec<_>>(), ["CEO", "CEOs"]);
    // P1308 states P39's role from the office's side.
    assert_eq!(c.role_of("P1308").unwrap().property, "P39");
    assert_eq!(c.role_of("P286").unwrap().property, "P286");
    assert!(c.role_of("P999").is_none());
}

#[test]
fn names_and_ids_resolve_unknown_names_are_refused() {
    let c = Catalogue::shipped();
    let given: Vec<String> = ["P39", "head-coach", "P286", "P9999", "chairperson"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        c.resolve(&given).unwrap(),
        ["P39", "P286", "P9999", "P488"],
        "names become ids, repeats go, unknown ids pass"
    );
    let err = c
        .resolve(&["P39".to_string(), "football".to_string()])
        .unwrap_err();
    assert_eq!((err.name.as_str(), err.index), ("football", 1));
    assert!(err.to_string().contains("head-coach (P286)"), "{err}");
}

#[test]
fn sides_follow_the_entry() {
    let c = Catalogue::shipped();
    let entity = |id: &str| EntityRef {
        id: id.into(),
        ..EntityRef::default()
    };
    let fact = |relation: &str| Fact {
        subject: entity("Q9616"),
        relation: relation.into(),
        object: entity("Q170576"),
        start: None,
        end: None,
        replaces: None,
        replaced_by: None,
        rank: "normal".into(),
        valid_at_cutoff: false,
        pair_changed: None,
    };
    let coached = fact("P286");
    let (person, club) = c.sides(&coached).unwrap();
    assert_eq!((person.id.as_str(), club.id.as_str()), ("Q170576", "Q9616"));
    let played = fact("P54");
    let (person, _) = c.sides(&played).unwrap();
    assert_eq!(person.id, "Q9616");
    assert!(c.sides(&fact("P9999")).is_none());
}

#[test]
fn a_directory_adds_and_replaces_entries() {
    let replaced = Catalogue::shipped()
        .get("P488")
        .map(|r| std::fs::read_to_string(format!("../../config/relations/{}.toml", r.name)))
        .unwrap()
        .unwrap()
        .replace("\"chair\"", "\"convenor\"")
        .replace("\"chairs\"", "\"convenors\"");
    let dir = dir_with(&[("sponsor.toml", SHIRT_SPONSOR), ("chair.toml", &replaced)]);
    let c = Catalogue::load(Some(dir.path())).unwrap();
    assert_eq!(c.get("P859").unwrap().name, "shirt-sponsor");
    assert_eq!(
        c.resolve(&["shirt-sponsor".into()]).unwrap(),
        ["P859"],
        "a relation declared outside the shipped catalogue resolves by name"
    );
    let chair = c.get("P488").unwrap();
    assert!(chair.words.iter().any(|w| w.word == "convenor"));
    assert!(chair.file.ends_with("chair.toml"), "{}", chair.file);
    assert_eq!(c.relations().len(), 7);
}

#[test]
fn a_role_word_of_another_relation_of_the_same_kind_is_refused_naming_both() {
    let stolen = SHIRT_SPONSOR
        .replace("kit deal", "sports club")
        .replace("\"sponsor\", plural = \"sponsors\"", "\"Manager\"");
    let err = load_err(&[("sponsor.toml", &stolen)]);
    assert!(err.contains("head-coach.toml (head-coach (P286))"), "{err}");
    assert!(err.contains("shirt-sponsor (P859)"), "{err}");
    assert!(err.contains("role word `Manager`"), "{err}");
    // The same word for another kind of other side is told apart by it: the
    // shipped "boss" of clubs and of companies.
    let other_kind = SHIRT_SPONSOR.replace("\"sponsor\", plural = \"sponsors\"", "\"manager\"");
    assert!(Catalogue::load(Some(dir_with(&[("s.toml", &other_kind)]).path())).is_ok());
}

#[test]
fn bad_entries_are_refused_naming_file_and_field() {
    let cases = [
        (SHIRT_SPONSOR.replace("P859", "859"), "`property`"),
        (SHIRT_SPONSOR.replace("\"object\"", "\"both\""), "unknown variant `both`"),
        (SHIRT_SPONSOR.replace("sponsor of {other}", "sponsor"), "`role`"),
        (SHIRT_SPONSOR.replace("other = \"kit deal\"", ""), "`other`"),
        (SHIRT_SPONSOR.replace("name = \"shirt-sponsor\"", "name = \"P5\""), "`name`"),
        (SHIRT_SPONSOR.replace("label =", "lable ="), "unknown field `lable`"),
        (
            SHIRT_SPONSOR.replace("word = \"sponsor\"", "word = \" sponsor\""),
            "`words[0]`",
        ),
        (format!("{SHIRT_SPONSOR}\ninverse_of = \"P39\""), "`other`"),
        (
            "name = \"x\"\nproperty = \"P5\"\nlabel = \"x\"\nperson = \"subject\"\ninverse_of = \"P54\"".into(),
            "`inverse_of`",
        ),
        (SHIRT_SPONSOR.replace("shirt-sponsor", "head-coach"), "both are named `head-coach`"),
    ];
    for (text, expected) in cases {
        let err = load_err(&[("bad.toml", &text)]);
        assert!(err.contains("bad.toml"), "{err}");
        assert!(err.contains(expected), "{expected}: {err}");
    }
}

#[test]
fn an_unreadable_directory_is_named() {
    let err = Catalogue::load(Some(Path::new("/nonexistent/relations")))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("/nonexistent/relations:"), "{err}");
}
