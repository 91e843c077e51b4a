//! The stage tables of `pipelines/nightly-bbc.toml` parse and check with this
//! crate's kinds; every kind documents every option.

use std::path::Path;

use tempora_engine::testing::context;
use tempora_engine::PipelineFile;

#[test]
fn the_nightly_pipeline_configures_and_checks_cleanly() {
    std::env::set_var("TEMPORA_CONTACT", "ops@example.org");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pipelines/nightly-bbc.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let file = PipelineFile::parse("nightly-bbc.toml", &text, &[]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let kinds = tempora_wayback::kinds();
    let stages = file.table["stages"].as_table().unwrap();
    let mut configured = 0;
    for (name, stage) in stages {
        let mut table = stage.as_table().unwrap().clone();
        let kind = table.remove("kind").unwrap();
        table.remove("inputs");
        let Some(kind) = kinds.iter().find(|k| k.name == kind.as_str().unwrap()) else {
            continue; // another crate's kind
        };
        let cfg = (kind.configure)(table, &ctx).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(cfg.check(&ctx).is_empty(), "{name}: {:?}", cfg.check(&ctx));
        configured += 1;
    }
    assert_eq!(configured, 2);
}

#[test]
fn every_option_of_every_kind_is_documented() {
    for kind in tempora_wayback::kinds() {
        let schema = (kind.options)();
        let docs = tempora_engine::options::option_docs(&schema);
        assert!(!docs.is_empty(), "{}", kind.name);
        for o in docs {
            assert!(
                !o.doc.trim().is_empty(),
                "{}.{} has no doc",
                kind.name,
                o.name
            );
        }
    }
}
