//! `tempora reveal OUT`: publishes the part of the sets a run held back
//! (`[pipeline.release]`), once every withheld file and the key are those the
//! folder committed to.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use tempora_records::{Record, RecordKind};
use tempora_sink::release::{
    hex, read_key, relative_files, rows, scoped_key, sha256_file, sha256_hex, withheld_files,
    Commitment, Revealed, Withhold, WithholdOption, COMMITMENT, DIR,
};

use crate::exit::Outcome;

/// Publish the withheld part of an output folder: check each withheld file and
/// the key against the folder's commitment (`withheld.json`, also in its card),
/// check that the key chose what was held back, then add the files to the
/// card's configs and record the reveal (with the key, so anyone can check).
#[derive(Debug, clap::Args)]
pub struct RevealArgs {
    /// The output folder of `tempora run`.
    pub out: PathBuf,
    /// The key file (default: the `key` of the run's `[pipeline.release]`).
    #[arg(long)]
    pub key: Option<PathBuf>,
}

/// Runs `tempora reveal`.
///
/// # Errors
/// No such folder (bad usage); no commitment; a withheld file missing, changed
/// or not committed to; the key not the one committed to, or one that did not
/// choose the withheld part. Nothing is changed then.
pub fn run(args: &RevealArgs) -> Outcome {
    super::output_folder(&args.out)?;
    Ok(reveal(args)?)
}

/// Checks the folder's withheld part and the key, then reveals it: in the
/// folder's own commitment and card, or, for a release of a monthly
/// collection, whose files never change, in the collection's record.
fn reveal(args: &RevealArgs) -> anyhow::Result<()> {
    let out = &args.out;
    if crate::monthly::is_release(out) {
        return crate::monthly::reveal_release(out, args.key.as_deref());
    }
    if tempora_report::card::releases::is_collection(out) {
        bail!(
            "{} is a collection of releases: reveal one of them, `tempora reveal {}/<release>`",
            out.display(),
            out.display()
        );
    }
    let mut commitment = committed(out)?;
    if let Some(revealed) = &commitment.revealed {
        println!("already revealed at {}: nothing to do", revealed.at);
        return Ok(());
    }
    let key_path = match &args.key {
        Some(path) => path.clone(),
        None => run_key(out)?,
    };
    let key = verify(out, &commitment, &key_path)?;
    commitment.revealed = Some(Revealed {
        at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        key: hex(&key),
    });
    commitment
        .write(out)
        .with_context(|| format!("cannot write {}", out.join(COMMITMENT).display()))?;
    let card = tempora_report::card::write_card(out)
        .with_context(|| format!("dataset card of {}", out.display()))?;
    super::card::print_card(&card);
    println!(
        "revealed {} withheld file{} of {}; the card lists them and the key",
        commitment.files.len(),
        if commitment.files.len() == 1 { "" } else { "s" },
        out.display()
    );
    Ok(())
}

/// The folder's commitment (`withheld.json`).
///
/// # Errors
/// It has none, or it cannot be read.
pub fn committed(out: &Path) -> anyhow::Result<Commitment> {
    match Commitment::read(out).map_err(anyhow::Error::msg)? {
        Some(commitment) => Ok(commitment),
        None => bail!(
            "{} holds back nothing: it has no {COMMITMENT} (a run with `[pipeline.release] withhold` writes one)",
            out.display()
        ),
    }
}

/// Checks the withheld files of `out` against `commitment`, and that the key
/// file at `key_path` is the one committed to (the release's own, made from
/// it, when the commitment names its release) and chose exactly the withheld
/// part. Returns the key committed to, which the reveal publishes.
///
/// # Errors
/// A file missing, changed or not committed to; another key; a key that did
/// not choose the withheld part.
pub fn verify(out: &Path, commitment: &Commitment, key_path: &Path) -> anyhow::Result<Vec<u8>> {
    check_files(out, commitment)?;
    let key = read_key(key_path).map_err(anyhow::Error::msg)?;
    let key = match &commitment.scope {
        Some(scope) => scoped_key(&key, scope),
        None => key,
    };
    if sha256_hex(&key) != commitment.key_sha256 {
        bail!(
            "the key {} is not the one {} committed to (its SHA-256 differs)",
            key_path.display(),
            out.join(COMMITMENT).display()
        );
    }
    let withhold = Withhold::load(&WithholdOption {
        share: commitment.share,
        key: key_path.to_path_buf(),
        scope: commitment.scope.clone(),
    })
    .map_err(anyhow::Error::msg)?;
    check_choice(out, &withhold)?;
    Ok(key)
}

/// Each committed file as committed; no other file under `withheld/`.
fn check_files(out: &Path, commitment: &Commitment) -> anyhow::Result<()> {
    let committed: BTreeSet<&str> = commitment.files.iter().map(|f| f.path.as_str()).collect();
    for file in &commitment.files {
        let path = out.join(&file.path);
        let sha256 = sha256_file(&path).with_context(|| {
            format!(
                "withheld file {} (committed to in {COMMITMENT})",
                path.display()
            )
        })?;
        if sha256 != file.sha256 {
            bail!(
                "{} changed since it was committed to: SHA-256 {sha256}, {COMMITMENT} says {}",
                path.display(),
                file.sha256
            );
        }
        let n = rows(&path).with_context(|| format!("cannot read {}", path.display()))?;
        if n != file.rows {
            bail!(
                "{} holds {n} records, {COMMITMENT} says {}",
                path.display(),
                file.rows
            );
        }
    }
    let present =
        withheld_files(out).with_context(|| format!("cannot read {}", out.join(DIR).display()))?;
    if let Some(extra) = present.iter().find(|p| !committed.contains(p.as_str())) {
        bail!(
            "{} is not committed to in {COMMITMENT}",
            out.join(extra).display()
        );
    }
    Ok(())
}

/// The `key` of the run's `[pipeline.release]`, from `run.json`.
///
/// # Errors
/// `run.json` cannot be read or names no key.
pub fn run_key(out: &Path) -> anyhow::Result<PathBuf> {
    let path = out.join("run.json");
    let run: serde_json::Value = serde_json::from_slice(
        &std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?,
    )
    .with_context(|| format!("{} is not JSON", path.display()))?;
    run.pointer("/config/pipeline/release/key")
        .and_then(serde_json::Value::as_str)
        .map(PathBuf::from)
        .with_context(|| {
            format!(
                "{} names no release key: give it with --key",
                path.display()
            )
        })
}

/// The key chose the withheld part: every record of a withheld JSONL file is
/// held back by it, and no record of a published JSONL file is. (Parquet files
/// hold the same records as their JSONL twins where a pipeline writes both.)
fn check_choice(out: &Path, withhold: &Withhold) -> anyhow::Result<()> {
    for file in jsonl_files(out)? {
        let held_back = file.starts_with(&format!("{DIR}/"));
        let path = out.join(&file);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut kind = None;
        for (i, line) in text.lines().enumerate() {
            let Some(record) = record_of(line, &mut kind) else {
                continue;
            };
            let Some(id) = record.article_id() else {
                continue;
            };
            if withhold.holds(id) != held_back {
                bail!(
                    "{}:{}: article {id} is {} but the key {}: the withheld part was not chosen by this key",
                    path.display(),
                    i + 1,
                    if held_back { "withheld" } else { "published" },
                    if held_back { "does not hold it back" } else { "holds it back" }
                );
            }
        }
    }
    Ok(())
}

/// The record a line of a JSONL file holds: read as `kind`, the kind of the
/// file's records (its first record's), or, for the first line or one of another
/// kind, as the first kind whose schema reads it (which then becomes `kind`; a
/// page's line reads as its capture, and neither belongs to an article). `None`
/// for a line that is no record.
fn record_of(line: &str, kind: &mut Option<RecordKind>) -> Option<Record> {
    if let Some(record) = kind.and_then(|k| Record::from_json(k, line).ok()) {
        return Some(record);
    }
    let (found, record) = RecordKind::ALL
        .into_iter()
        .find_map(|k| Some((k, Record::from_json(k, line).ok()?)))?;
    *kind = Some(found);
    Some(record)
}

/// Every `*.jsonl` under `out` but the rejected records, relative.
fn jsonl_files(out: &Path) -> anyhow::Result<Vec<String>> {
    let mut found = relative_files(out, Path::new(""))
        .with_context(|| format!("cannot read {}", out.display()))?;
    found.retain(|f| {
        let name = f.rsplit('/').next().unwrap_or(f);
        name.ends_with(".jsonl") && name != "rejected.jsonl"
    });
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/demo-golden")
            .join(name);
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn each_line_is_read_as_a_record_of_the_files_kind_with_its_article() {
        for (file, kind, field) in [
            ("future.jsonl", RecordKind::Article, "id"),
            ("pairs.jsonl", RecordKind::Pair, "article_id"),
        ] {
            let text = golden(file);
            let mut read = None;
            for line in text.lines() {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                let record = record_of(line, &mut read).unwrap();
                assert_eq!(record.kind(), kind, "{file}");
                assert_eq!(record.article_id(), value[field].as_str(), "{file}");
            }
            assert_eq!(read, Some(kind), "{file}");
        }
        let facts = golden("facts.jsonl");
        let mut read = None;
        let fact = record_of(facts.lines().next().unwrap(), &mut read).unwrap();
        assert_eq!((fact.kind(), fact.article_id()), (RecordKind::Fact, None));
        assert!(record_of("{\"id\": \"1\"}", &mut read).is_none());
        assert!(record_of("not JSON", &mut read).is_none());
    }
}
