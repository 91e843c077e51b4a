//! The card's "Withheld part" section: what a run held back
//! (`[pipeline.release]`), committed to by each file's rows and SHA-256 and the
//! key's SHA-256; once revealed, when, and the key.

use std::fmt::Write as _;
use std::path::Path;

use tempora_sink::release::Commitment;

use crate::markdown::code;

pub(super) fn render(md: &mut String, dir: &Path) {
    let Ok(Some(c)) = Commitment::read(dir) else {
        return;
    };
    let _ = writeln!(md, "## Withheld part\n");
    match &c.revealed {
        None => {
            let _ = writeln!(
                md,
                "About {:.0}% of the articles of each set (with their manifest rows and \
                 minimal pairs) are held back, chosen by a keyed hash of the article id, so \
                 that models trained on the published part can later be told apart from \
                 models that generalise. They are not in the configs above. The hashes below \
                 fix them now: `tempora reveal` publishes them later only if every file and \
                 the key match.\n",
                c.share * 100.0
            );
        }
        Some(revealed) => {
            let _ = writeln!(
                md,
                "About {:.0}% of the articles of each set were held back and were revealed on \
                 {}: they are the `*_withheld` splits. The key that chose them is {} (HMAC-SHA256 \
                 of the article id; an id is held back when the first 8 bytes of its tag, as \
                 a fraction of 2^64, are below the share).\n",
                c.share * 100.0,
                revealed.at,
                code(&revealed.key)
            );
        }
    }
    let _ = writeln!(md, "Key SHA-256: {}\n", code(&c.key_sha256));
    let _ = writeln!(md, "| File | Records | SHA-256 |\n|---|---:|---|");
    for f in &c.files {
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            code(&f.path),
            f.rows,
            code(&f.sha256)
        );
    }
    let _ = writeln!(md);
}
