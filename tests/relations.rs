//! Relations by name: `relations = [...]` of the facts stages and `tempora
//! facts --relations` take property ids and the relation catalogue's names
//! (shipped, or of a `catalogue` folder); an unknown name is refused by
//! `validate` at its key path; a name and its id give the same facts and the
//! same facts file.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

use common::wikidata::entity_line;

fn tempora() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd.env("RUST_LOG", "warn");
    cmd
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn exited(o: &Output, code: i32) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    err
}

/// A plain JSON dump of our own: a club whose manager changed in 2020
/// (`P286`), a company whose chair changed in 2021 (`P488`), and a politician
/// whose party changed in 2020 (`P102`, a relation no shipped entry has).
fn write_dump(dir: &Path) -> PathBuf {
    let lines = [
        entity_line(
            "Q9200001",
            "Harwick Rovers F.C.",
            &[
                ("P286", "Q9200011", "2015-07-01", Some("2020-06-01")),
                ("P286", "Q9200012", "2020-06-01", None),
            ],
        ),
        entity_line("Q9200011", "Ada Brennan", &[]),
        entity_line("Q9200012", "Ivo Marsh", &[]),
        entity_line(
            "Q9200002",
            "Selby Bay Shipping",
            &[
                ("P488", "Q9200021", "2012-01-01", Some("2021-03-01")),
                ("P488", "Q9200022", "2021-03-01", None),
            ],
        ),
        entity_line("Q9200021", "Nora Quist", &[]),
        entity_line("Q9200022", "Colm Reyes", &[]),
        entity_line(
            "Q9200031",
            "Petra Lund",
            &[
                ("P102", "Q9200041", "2008-01-01", Some("2020-09-01")),
                ("P102", "Q9200042", "2020-09-01", None),
            ],
        ),
        entity_line("Q9200041", "Harbour Party", &[]),
        entity_line("Q9200042", "Dunmere League", &[]),
    ];
    let path = dir.join("dump.json");
    std::fs::write(&path, format!("[\n{}\n]\n", lines.join(",\n"))).unwrap();
    path
}

/// A catalogue folder with one entry of our own: party membership (`P102`).
fn write_catalogue(dir: &Path) -> PathBuf {
    let folder = dir.join("relations");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("party-member.toml"),
        "name = \"party-member\"\nproperty = \"P102\"\nlabel = \"member of political party\"\n\
         person = \"subject\"\nother = \"political party\"\nclasses = [\"Q7278\"]\n\
         role = \"member of {other}\"\nwords = [{ word = \"activist\", plural = \"activists\" }]\n",
    )
    .unwrap();
    folder
}

/// A pipeline of one facts stage (`facts_options` its options) written to `facts.jsonl`.
fn facts_pipeline(dir: &Path, kind: &str, facts_options: &str) -> String {
    let path = dir.join("p.toml");
    let text = format!(
        "[pipeline]\nname = \"t\"\ncutoff = 2019-12-31\nout = \"{}\"\n\n\
         [stages.facts]\nkind = \"{kind}\"\n{facts_options}\n\n\
         [stages.write]\nkind = \"jsonl\"\ninputs = [\"facts\"]\npath = \"facts.jsonl\"\n",
        dir.join("out").display()
    );
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// `tempora facts DUMP --relations RELATIONS -o OUT` and its extra `args`.
fn facts(dump: &Path, relations: &str, out: &Path, args: &[&str]) -> Output {
    tempora()
        .arg("facts")
        .arg(dump)
        .args(["--cutoff", "2019-12-31", "-q", "--relations", relations])
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

fn meta_relations(facts_file: &Path) -> Value {
    let meta = std::fs::read_to_string(facts_file.with_extension("jsonl.meta.json")).unwrap();
    serde_json::from_str::<Value>(&meta).unwrap()["relations"].clone()
}

fn relations_of(facts_jsonl: &str) -> Vec<String> {
    let mut relations: Vec<String> = facts_jsonl
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["relation"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    relations.dedup();
    relations
}

#[test]
fn an_unknown_relation_is_refused_by_validate_at_its_key_path() {
    let dir = tempfile::tempdir().unwrap();
    let dump = write_dump(dir.path());
    let path = facts_pipeline(
        dir.path(),
        "wikidata",
        &format!(
            "dump = \"{}\"\nrelations = [\"head-coach\", \"football\", \"P488\"]",
            dump.display()
        ),
    );
    let err = exited(&tempora().args(["validate", &path]).output().unwrap(), 2);
    assert!(
        err.contains(
            "stages.facts.relations[1]: unknown relation `football`: give a property id (`P54`) \
             or one of the catalogue's names: position-held (P39)"
        ),
        "{err}"
    );
    // Said once: not also as a property id it is not.
    assert!(!err.contains("is not a property id"), "{err}");
    assert!(err.contains("1 error"), "{err}");

    // The live source alike.
    let path = facts_pipeline(
        dir.path(),
        "wikidata-live",
        "reading = \"state/wd.json.gz\"\ncontact = \"tests@example.org\"\n\
         relations = [\"chairperson\", \"P39\", \"rugby\"]",
    );
    let err = exited(&tempora().args(["validate", &path]).output().unwrap(), 2);
    assert!(
        err.contains("stages.facts.relations[2]: unknown relation `rugby`"),
        "{err}"
    );

    // And the command line, before the dump is read.
    let err = exited(
        &facts(
            Path::new("no-such-dump.json"),
            "P39,football",
            &dir.path().join("f.jsonl"),
            &[],
        ),
        2,
    );
    assert!(
        err.contains("--relations: unknown relation `football`"),
        "{err}"
    );
    assert!(!err.contains("no-such-dump"), "{err}");
}

#[test]
fn names_and_ids_give_the_same_facts_and_the_same_facts_file() {
    let dir = tempfile::tempdir().unwrap();
    let dump = write_dump(dir.path());
    let (by_name, by_id) = (dir.path().join("name.jsonl"), dir.path().join("id.jsonl"));
    let o = facts(&dump, "head-coach,chairperson", &by_name, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = facts(&dump, "P286,P488", &by_id, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let named = std::fs::read_to_string(&by_name).unwrap();
    assert_eq!(named, std::fs::read_to_string(&by_id).unwrap());
    assert_eq!(relations_of(&named), ["P286", "P488"]);
    // The sidecar records the ids the names stand for.
    assert_eq!(meta_relations(&by_name), json!(["P286", "P488"]));
    assert_eq!(meta_relations(&by_name), meta_relations(&by_id));

    // A stage naming the relations otherwise (a name, an id, a name given
    // twice) takes the facts file made with the ids as its own: no dump needed.
    let path = facts_pipeline(
        dir.path(),
        "wikidata",
        &format!(
            "facts_file = \"{}\"\nrelations = [\"head-coach\", \"P488\", \"P286\"]",
            by_id.display()
        ),
    );
    let o = tempora().args(["run", &path]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let written = std::fs::read_to_string(dir.path().join("out/facts.jsonl")).unwrap();
    assert_eq!(written, named);
}

#[test]
fn a_relation_of_a_catalogue_folder_is_read_by_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let dump = write_dump(dir.path());
    let catalogue = write_catalogue(dir.path());
    let options = |with_catalogue: bool| {
        let mut options = format!(
            "dump = \"{}\"\nrelations = [\"party-member\", \"head-coach\"]",
            dump.display()
        );
        if with_catalogue {
            options.push_str(&format!("\ncatalogue = \"{}\"", catalogue.display()));
        }
        options
    };
    // Without the folder, the name is unknown.
    let path = facts_pipeline(dir.path(), "wikidata", &options(false));
    let err = exited(&tempora().args(["validate", &path]).output().unwrap(), 2);
    assert!(
        err.contains("stages.facts.relations[0]: unknown relation `party-member`"),
        "{err}"
    );

    let path = facts_pipeline(dir.path(), "wikidata", &options(true));
    let o = tempora().args(["run", &path]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let written = std::fs::read_to_string(dir.path().join("out/facts.jsonl")).unwrap();
    let mut relations = relations_of(&written);
    relations.sort();
    assert_eq!(relations, ["P102", "P286"]);

    // `tempora facts --catalogue` alike; a folder that is not there is named.
    let out = dir.path().join("party.jsonl");
    let catalogue_arg = catalogue.display().to_string();
    let o = facts(
        &dump,
        "party-member",
        &out,
        &["--catalogue", &catalogue_arg],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(meta_relations(&out), json!(["P102"]));
    let o = facts(
        &dump,
        "party-member",
        &out,
        &["--catalogue", "no-such-folder"],
    );
    let err = exited(&o, 2);
    assert!(err.contains("--catalogue: no-such-folder"), "{err}");
}

/// The demo's card says which relations its facts are of and counts the
/// articles of each set and the facts per relation, each named by its label.
#[test]
fn the_card_names_and_counts_the_relations() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::demo::demo_with(dir.path(), "");
    let o = tempora()
        .args(["run", &path, "--progress", "off"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let card = std::fs::read_to_string(dir.path().join("out/README.md")).unwrap();
    for line in [
        "relations position held (P39), officeholder (P1308).",
        "| future | officeholder (P1308) | 2 |",
        "| future | position held (P39) | 2 |",
        "| in_distribution | officeholder (P1308) | 1 |",
        "set(a[\"relations\"])",
    ] {
        assert!(card.contains(line), "{line:?} is not in the card:\n{card}");
    }
    // The facts of the facts config, per relation, add up to its rows.
    let facts: u64 = card
        .lines()
        .filter(|l| l.starts_with("| `facts.parquet` | "))
        .map(|l| {
            l.trim_end_matches(" |")
                .rsplit(' ')
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(facts, 14, "{card}");
}
