//! Every stage kind the `tempora` binary knows, gathered from the stage crates.

use tempora_engine::Registry;

/// Set to `1` to add the engine's `test-*` kinds in a build for the binary's own
/// tests (none in a release build: see [`tempora_engine::test_kinds`]).
pub const TEST_KINDS_VAR: &str = "TEMPORA_TEST_KINDS";

/// The registry of every kind.
pub fn registry() -> Registry {
    let mut kinds = Vec::new();
    kinds.extend(tempora_wikidata::kinds());
    kinds.extend(tempora_wayback::kinds());
    kinds.extend(tempora_extract::kinds());
    kinds.extend(tempora_filter::kinds());
    kinds.extend(tempora_split::kinds());
    kinds.extend(tempora_novelty::kinds());
    kinds.extend(tempora_sink::kinds());
    kinds.extend(tempora_manifest::kinds());
    if std::env::var(TEST_KINDS_VAR).is_ok_and(|v| v == "1") {
        kinds.extend(tempora_engine::test_kinds());
    }
    Registry::new(kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stages_declare_each_request_kind_once() {
        let kinds = registry().request_kinds();
        let keys: Vec<&str> = kinds.iter().map(|k| k.key).collect();
        assert_eq!(
            keys,
            ["cdx", "feed", "page", "wikidata_query", "wikidata_api"]
        );
        let per_kept: Vec<&str> = kinds
            .iter()
            .filter(|k| k.per_kept_article)
            .map(|k| k.key)
            .collect();
        assert_eq!(
            per_kept,
            ["page"],
            "run.json's page_requests_per_kept_article"
        );
    }
}
