//! The dump reader, fuzzed: our demo dump plain, gzip (in members), bzip2 and
//! zstd, broken the ways real bytes break (cut short, flipped, bytes inserted or
//! dropped, spans repeated) and arbitrary bytes, through the whole read (format
//! sniffing, decompression, both passes). No panic; a bad line is a rejection
//! naming its line, a bad file an error naming the dump.
//! `PROPTEST_CASES=10000 cargo test -p tempora-wikidata --test fuzz` runs longer.

mod common;

use common::{bzip2, demo_text, gzip_members, read, split_lines, write, zstd};
use proptest::prelude::*;
use tempora_engine::OnError;
use tempora_testkit::fuzz::{broken, config};

fn samples() -> Vec<Vec<u8>> {
    let text = demo_text();
    let parts = split_lines(&text, 3);
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    vec![
        text.clone().into_bytes(),
        gzip_members(&parts),
        bzip2(&text),
        zstd(&text),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn broken_dumps_never_panic_and_say_where(bytes in broken(samples()), fail in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let dump = write(dir.path(), "dump.json", &bytes);
        let on_error = if fail { OnError::Fail } else { OnError::Skip };
        let (result, rejected) = read(&dump, on_error);
        for r in &rejected {
            prop_assert!(r.location.starts_with("line "), "{r:?}");
            prop_assert!(!r.reason.is_empty());
        }
        if let Err(e) = result {
            let message = e.to_string();
            prop_assert!(message.contains("dump.json"), "{message}");
        }
    }
}
