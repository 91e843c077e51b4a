//! All-or-nothing publishing of a run's outputs.
//!
//! Sinks do not rename their files into place themselves: each stages them
//! ([`Emitted::stage_file`](crate::Emitted::stage_file), written in full and
//! fsynced under a temporary name, or [`Emitted::stage_kept`](crate::Emitted::stage_kept)
//! for a file that stays as it is), and once the run has completed and every
//! sink has staged without error, the runtime publishes them together. A run
//! that fails, is stopped or cannot write a file publishes nothing: its
//! temporary files are deleted and the outputs stay as the last completed run
//! left them, every file.
//!
//! The folder remembers what its last publication held ([`PUBLISHED`]). A
//! pipeline that makes its outputs anew removes the files the last one held and
//! this one does not (a set the new configuration no longer has, a Parquet file
//! with no rows left): the folder holds what one run of the configuration makes.
//!
//! Renaming several files is not one atomic step, so the publication is
//! journalled, as SQLite journals a transaction: the list of renames and
//! removals is made durable in `<out>/.tempora-publish.json` first, then carried
//! out, then the journal is removed. A run killed in between leaves the journal,
//! and the next run's claim of the folder carries it out to the end
//! ([`recover`]) before anything else: the folder never holds part of two runs.
//!
//! Files made from the other outputs (the dataset card, a manifest's inputs, the
//! commitment to a withheld part: a [`Derive`]) are made before the journal is
//! written, in a preview of the folder as the publication will leave it
//! ([`PREVIEW`]: every file linked, the staged ones in place, `run.json` as the
//! run will record it), and published in the same journal.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::atomic_file::AtomicFile;
use crate::run_options::{Derive, Derived};

/// The journal's name in the output directory.
pub const JOURNAL: &str = ".tempora-publish.json";

/// The name of the list of files the last publication held, in the output directory.
pub const PUBLISHED: &str = ".tempora-published.json";

/// The folder in the output directory where the files a [`Derive`] makes are
/// made, from the folder as the publication will leave it.
pub const PREVIEW: &str = ".tempora-next";

/// What a publication makes from its other outputs: the hook and the run's
/// report as `run.json` will hold it.
pub struct Derivation<'a> {
    /// The hook.
    pub derive: &'a Derive,
    /// `run.json` as the run records it, for the preview.
    pub run_json: Vec<u8>,
}

/// A change a sink stages for publication.
#[derive(Debug)]
pub enum Staged {
    /// A file written in full under a temporary name, to be renamed into place.
    File(AtomicFile),
    /// A file of the outputs that stays as it is (an appended file with nothing new).
    Kept(PathBuf),
}

/// What the sinks of one run have staged, shared by their stage tasks.
pub(crate) type Publication = Arc<Mutex<Vec<Staged>>>;

/// The journal: every rename and removal of one publication.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Journal {
    /// `(temporary file, final path)`.
    renames: Vec<(PathBuf, PathBuf)>,
    /// Files to remove.
    removals: Vec<PathBuf>,
}

/// Publishes everything staged in `out`, together; how many files changed.
/// `remove_stale`: also remove the files the last publication held that this one
/// does not.
///
/// # Errors
/// When the journal cannot be written (nothing is published then, and the
/// temporary files are deleted), or a rename fails after it was (the next run
/// finishes the publication).
pub(crate) fn publish(
    out: &Path,
    staged: Vec<Staged>,
    remove_stale: bool,
    derivation: Option<Derivation<'_>>,
) -> std::io::Result<usize> {
    let mut journal = Journal::default();
    let mut files = Vec::new();
    let mut held = std::collections::BTreeSet::new();
    for change in staged {
        let path = match change {
            Staged::File(file) => {
                let path = file.path().to_path_buf();
                journal
                    .renames
                    .push((file.temporary_path().to_path_buf(), path.clone()));
                files.push(file);
                path
            }
            Staged::Kept(path) => path,
        };
        held.insert(relative(out, &path));
    }
    let record = out.join(PUBLISHED);
    let last = last_published(&record);
    if remove_stale {
        journal.removals = last
            .iter()
            .filter(|p| !held.contains(*p) && is_plain_relative(p))
            .map(|p| out.join(p))
            .filter(|p| p.is_file())
            .collect();
    }
    let preview = out.join(PREVIEW);
    if let Some(derivation) = derivation {
        add_derived(out, &preview, &mut journal, &mut held, derivation)?;
    }
    if journal.renames.is_empty() && journal.removals.is_empty() && last == held {
        return Ok(0);
    }
    // What this publication holds, published with it.
    let list = serde_json::to_vec_pretty(&held).map_err(std::io::Error::other)?;
    let list = AtomicFile::with_contents(&record, &list)?;
    journal
        .renames
        .push((list.temporary_path().to_path_buf(), record.clone()));
    files.push(list);

    let journal_path = out.join(JOURNAL);
    abort_at("derived");
    crate::atomic_file::write_atomically(&journal_path, |w| {
        serde_json::to_writer(w, &journal).map_err(std::io::Error::other)
    })?;
    abort_at("journal");
    // The journal now names every temporary file: they must outlive this process
    // if it is killed, for the next run to rename them.
    for file in files {
        file.keep()?;
    }
    let changed = carry_out(&journal)?;
    std::fs::remove_file(&journal_path)?;
    let _ = std::fs::remove_dir_all(&preview);
    sync_dir(out);
    // The list itself is no output.
    Ok(changed.saturating_sub(1))
}

/// Makes the files derived from the outputs in `preview` (the folder as the
/// publication will leave it) and adds them to `journal` and `held`: each
/// written file renamed into place, each removed one removed.
///
/// # Errors
/// When the derivation fails, or names a path outside the folder; the preview
/// is removed then, and nothing is published.
fn add_derived(
    out: &Path,
    preview: &Path,
    journal: &mut Journal,
    held: &mut std::collections::BTreeSet<String>,
    derivation: Derivation<'_>,
) -> std::io::Result<()> {
    let derived = derive_in_preview(out, preview, journal, derivation).and_then(|d| {
        d.written
            .iter()
            .chain(&d.removed)
            .try_for_each(|rel| check_derived(rel))?;
        Ok(d)
    });
    let derived = derived.inspect_err(|_| {
        let _ = std::fs::remove_dir_all(preview);
    })?;
    for rel in derived.written {
        journal.renames.push((preview.join(&rel), out.join(&rel)));
        held.insert(rel);
    }
    for rel in derived.removed {
        if out.join(&rel).is_file() {
            journal.removals.push(out.join(&rel));
        }
        held.remove(&rel);
    }
    // A file the last publication held that is made again is no stale one.
    journal
        .removals
        .retain(|p| !held.contains(&relative(out, p)));
    Ok(())
}

/// The folder as the publication `journal` will leave it, in `preview`, and
/// what `derivation` makes there.
fn derive_in_preview(
    out: &Path,
    preview: &Path,
    journal: &Journal,
    derivation: Derivation<'_>,
) -> std::io::Result<Derived> {
    match std::fs::remove_dir_all(preview) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::fs::create_dir_all(preview)?;
    link_tree(out, preview)?;
    for (temporary, path) in &journal.renames {
        let at = preview.join(relative(out, path));
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent)?;
        }
        replace_with_link(temporary, &at)?;
    }
    for path in &journal.removals {
        remove_if_there(&preview.join(relative(out, path)))?;
    }
    // Every file here may be a link to the folder's: replaced, never written into.
    let run_json = preview.join("run.json");
    remove_if_there(&run_json)?;
    std::fs::write(&run_json, &derivation.run_json)?;
    (derivation.derive.0)(preview).map_err(std::io::Error::other)
}

/// The environment variable naming the point of a publication where a test
/// build aborts the process, as a kill there would (`derived`: the derived files
/// made, no journal yet; `journal`: the journal written, nothing renamed;
/// `renamed NAME`: just after the file named NAME was renamed into place).
pub const ABORT_AT: &str = "TEMPORA_TEST_ABORT_AT";

/// Aborts the process at `point` when [`ABORT_AT`] names it; nothing in a
/// build without the `testing` feature.
fn abort_at(point: &str) {
    #[cfg(any(test, feature = "testing"))]
    if std::env::var(ABORT_AT).is_ok_and(|at| at == point) {
        std::process::abort();
    }
    #[cfg(not(any(test, feature = "testing")))]
    let _ = point;
}

/// A file a [`Derive`] names: a plain relative path, no hidden name.
fn check_derived(rel: &str) -> std::io::Result<()> {
    if is_plain_relative(rel) && !rel.split('/').any(|c| c.starts_with('.')) {
        return Ok(());
    }
    Err(std::io::Error::other(format!(
        "a file made from the outputs has a path that is not a plain one in the folder: {rel}"
    )))
}

/// Links every file of `from` (hidden names left out: bookkeeping and files of
/// a run in flight) into `to`, copying where the file system cannot link.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&target)?;
            link_tree(&source, &target)?;
        } else {
            replace_with_link(&source, &target)?;
        }
    }
    Ok(())
}

/// `at` becomes a link to (or a copy of) `source`.
fn replace_with_link(source: &Path, at: &Path) -> std::io::Result<()> {
    remove_if_there(at)?;
    if std::fs::hard_link(source, at).is_err() {
        std::fs::copy(source, at)?;
    }
    Ok(())
}

fn remove_if_there(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// `path` relative to `out` (`/`-separated), as the list of published files has it.
fn relative(out: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(out).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A path inside the folder: relative, without `..` (the list is ours, but a
/// hand-edited one must not reach outside).
fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != ".." && c != ".")
}

/// The files the last publication held (none when there was none, or the list
/// cannot be read: then nothing is removed).
fn last_published(record: &Path) -> std::collections::BTreeSet<String> {
    std::fs::read(record)
        .ok()
        .and_then(|text| serde_json::from_slice(&text).ok())
        .unwrap_or_default()
}

/// Finishes a publication a killed run left half done in `out`; whether there was one.
///
/// # Errors
/// When the journal cannot be read or a rename fails.
pub fn recover(out: &Path) -> std::io::Result<bool> {
    let journal_path = out.join(JOURNAL);
    let text = match std::fs::read(&journal_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let journal: Journal = serde_json::from_slice(&text)
        .map_err(|e| std::io::Error::other(format!("{}: {e}", journal_path.display())))?;
    let changed = carry_out(&journal)?;
    std::fs::remove_file(&journal_path)?;
    let _ = std::fs::remove_dir_all(out.join(PREVIEW));
    sync_dir(out);
    tracing::warn!(out = %out.display(), files = changed, "finished publishing what a killed run had begun to publish");
    Ok(true)
}

/// Does what `journal` says that is not done yet; how many files changed.
fn carry_out(journal: &Journal) -> std::io::Result<usize> {
    let mut changed = 0;
    for (temporary, path) in &journal.renames {
        // Renamed already by a run killed after it.
        if !temporary.exists() {
            continue;
        }
        std::fs::rename(temporary, path)?;
        changed += 1;
        if let Some(name) = path.file_name() {
            abort_at(&format!("renamed {}", name.to_string_lossy()));
        }
    }
    for path in &journal.removals {
        match std::fs::remove_file(path) {
            Ok(()) => changed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    let dirs: std::collections::BTreeSet<&Path> = journal
        .renames
        .iter()
        .map(|(_, p)| p)
        .chain(&journal.removals)
        .filter_map(|p| p.parent())
        .collect();
    for dir in dirs {
        sync_dir(dir);
    }
    Ok(changed)
}

/// Makes the renames in `dir` durable (best effort: not every file system can).
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn staged_file(path: &Path, text: &str) -> Staged {
        let file = AtomicFile::create(path).unwrap();
        (&mut file.as_file()).write_all(text.as_bytes()).unwrap();
        file.sync().unwrap();
        Staged::File(file)
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn staged_files_replace_and_what_the_last_publication_held_alone_goes() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        std::fs::create_dir(out.join("novelty")).unwrap();
        let first = vec![
            staged_file(&out.join("a.jsonl"), "a\n"),
            staged_file(&out.join("novelty/x.jsonl"), "x\n"),
            staged_file(&out.join("kept.jsonl"), "kept\n"),
        ];
        assert_eq!(publish(out, first, true, None).unwrap(), 3);
        // A file no sink wrote stays whatever happens.
        std::fs::write(out.join("notes.txt"), "mine\n").unwrap();
        let second = vec![
            staged_file(&out.join("a.jsonl"), "new a\n"),
            staged_file(&out.join("b.jsonl"), "b\n"),
            Staged::Kept(out.join("kept.jsonl")),
        ];
        // `a` and `b` written, `novelty/x.jsonl` removed.
        assert_eq!(publish(out, second, true, None).unwrap(), 3);
        assert_eq!(
            names(out),
            [
                PUBLISHED,
                "a.jsonl",
                "b.jsonl",
                "kept.jsonl",
                "notes.txt",
                "novelty"
            ]
        );
        assert!(names(&out.join("novelty")).is_empty());
        assert_eq!(
            std::fs::read_to_string(out.join("a.jsonl")).unwrap(),
            "new a\n"
        );
        // Without `remove_stale` (an incremental pipeline's outputs accumulate).
        let third = vec![staged_file(&out.join("c.jsonl"), "c\n")];
        publish(out, third, false, None).unwrap();
        assert!(out.join("a.jsonl").exists() && out.join("c.jsonl").exists());
    }

    /// A derive that writes `card.md` from the preview's `a.jsonl` and `run.json`,
    /// replacing the file (as every derive must), or fails.
    fn card_of_a(fail: bool) -> Derive {
        Derive(std::sync::Arc::new(move |dir: &Path| {
            let a = std::fs::read_to_string(dir.join("a.jsonl")).unwrap();
            let run = std::fs::read_to_string(dir.join("run.json")).unwrap();
            crate::atomic_file::write_atomically(&dir.join("card.md"), |w| {
                write!(w, "card of {a}and {run}")
            })
            .unwrap();
            if fail {
                return Err("the card cannot be made".into());
            }
            Ok(Derived {
                written: vec!["card.md".into()],
                removed: vec!["old.txt".into()],
            })
        }))
    }

    /// Publishes `a.jsonl` with `a` in it, deriving with `derive` from `run_json`.
    fn publish_a(out: &Path, a: &str, derive: &Derive, run_json: &[u8]) -> std::io::Result<usize> {
        let derivation = Derivation {
            derive,
            run_json: run_json.to_vec(),
        };
        publish(
            out,
            vec![staged_file(&out.join("a.jsonl"), a)],
            true,
            Some(derivation),
        )
    }

    #[test]
    fn files_made_from_the_outputs_see_the_folder_as_it_will_be_and_publish_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        publish(
            out,
            vec![staged_file(&out.join("a.jsonl"), "old a\n")],
            true,
            None,
        )
        .unwrap();
        std::fs::write(out.join("card.md"), "old card").unwrap();
        std::fs::write(out.join("old.txt"), "old").unwrap();
        std::fs::write(out.join("run.json"), "old run").unwrap();

        // A failing derive publishes nothing, and its writes in the preview
        // never reach the folder (its files are links to the folder's).
        let failed = publish_a(out, "new a\n", &card_of_a(true), b"new run");
        assert!(failed.unwrap_err().to_string().contains("cannot be made"));
        assert_eq!(
            std::fs::read_to_string(out.join("a.jsonl")).unwrap(),
            "old a\n"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("card.md")).unwrap(),
            "old card"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("run.json")).unwrap(),
            "old run"
        );
        assert!(!out.join(PREVIEW).exists());

        publish_a(out, "new a\n", &card_of_a(false), b"new run").unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("card.md")).unwrap(),
            "card of new a\nand new run"
        );
        assert!(!out.join("old.txt").exists());
        // run.json is the runtime's to write after the publication.
        assert_eq!(
            std::fs::read_to_string(out.join("run.json")).unwrap(),
            "old run"
        );
        assert!(!out.join(PREVIEW).exists());
        let held = last_published(&out.join(PUBLISHED));
        assert!(
            held.contains("card.md") && !held.contains("old.txt"),
            "{held:?}"
        );
        // Made again by the next publication: replaced, not removed as stale.
        publish_a(out, "newer a\n", &card_of_a(false), b"newer run").unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("card.md")).unwrap(),
            "card of newer a\nand newer run"
        );
    }

    #[test]
    fn a_derived_file_outside_the_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        let escape = Derive(std::sync::Arc::new(|_: &Path| {
            Ok(Derived {
                written: vec!["../elsewhere".into()],
                removed: Vec::new(),
            })
        }));
        let refused = publish_a(out, "a\n", &escape, b"");
        assert!(refused.is_err());
        assert!(!out.join("a.jsonl").exists() && !out.join(PREVIEW).exists());
    }

    #[test]
    fn staged_files_that_are_dropped_leave_the_outputs_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        std::fs::write(out.join("a.jsonl"), "old a\n").unwrap();
        drop(vec![staged_file(&out.join("a.jsonl"), "new a\n")]);
        assert_eq!(names(out), ["a.jsonl"]);
        assert_eq!(
            std::fs::read_to_string(out.join("a.jsonl")).unwrap(),
            "old a\n"
        );
    }

    #[test]
    fn a_list_that_reaches_outside_the_folder_removes_nothing_there() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(dir.path().join("outside.txt"), "keep\n").unwrap();
        std::fs::write(
            out.join(PUBLISHED),
            r#"["../outside.txt", "/etc/hostname"]"#,
        )
        .unwrap();
        publish(
            &out,
            vec![staged_file(&out.join("a.jsonl"), "a\n")],
            true,
            None,
        )
        .unwrap();
        assert!(dir.path().join("outside.txt").exists());
    }

    #[test]
    fn a_publication_cut_short_is_finished_by_the_next_claim() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        std::fs::write(out.join("a.jsonl"), "old a\n").unwrap();
        std::fs::write(out.join("b.jsonl"), "old b\n").unwrap();
        std::fs::write(out.join("stale.jsonl"), "old\n").unwrap();
        // A run killed after its journal and its first rename: `a` is new, `b`
        // still old, the stale file still there.
        let tmp_a = out.join(".tmp-a");
        let tmp_b = out.join(".tmp-b");
        std::fs::write(&tmp_b, "new b\n").unwrap();
        std::fs::write(out.join("a.jsonl"), "new a\n").unwrap();
        let journal = Journal {
            renames: vec![(tmp_a, out.join("a.jsonl")), (tmp_b, out.join("b.jsonl"))],
            removals: vec![out.join("stale.jsonl")],
        };
        std::fs::write(out.join(JOURNAL), serde_json::to_vec(&journal).unwrap()).unwrap();
        assert!(recover(out).unwrap());
        assert_eq!(names(out), ["a.jsonl", "b.jsonl"]);
        assert_eq!(
            std::fs::read_to_string(out.join("b.jsonl")).unwrap(),
            "new b\n"
        );
        assert!(!recover(out).unwrap(), "nothing left to finish");
    }

    #[test]
    fn a_journal_that_is_not_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(JOURNAL), "{ not json").unwrap();
        let err = recover(dir.path()).unwrap_err().to_string();
        assert!(err.contains(JOURNAL), "{err}");
    }
}
