//! A full disk: `pipelines/nightly-bbc.toml` whose output folder sits on a
//! filesystem with no room for the night's files fails with an error naming the
//! file, leaves the previous night's outputs as they were, and once there is
//! room again a rerun ends with the outputs of a night that never failed.
//!
//! The small filesystem is a tmpfs mounted in a private mount namespace (`unshare
//! -rm`, no privileges needed where user namespaces are allowed); where they are
//! not, the run gets a file-size limit (`ulimit -f`) instead, which fails its
//! writes the same way (EFBIG instead of ENOSPC).

mod common;

use common::said::said;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use tempora_testkit::newssite::{NewsSite, NewsSiteSpec};
use tempora_testkit::{Corpus, MockCapture, MockWayback};

/// The captures up to mid-2020 (the first night) and after (the second).
fn nights(site: &NewsSite) -> (Vec<MockCapture>, Vec<MockCapture>) {
    site.corpus
        .rows()
        .iter()
        .map(|(_, c)| c.clone())
        .partition(|c| c.timestamp.as_str() < "20200701")
}

/// The arguments of a run of the nightly pipeline with its outputs in `out` and
/// its state and WARC files in `dir`.
fn args(server: &MockWayback, dir: &Path, out: &Path) -> Vec<String> {
    common::nightly::args(&server.endpoint(), dir, out)
}

fn tempora(args: &[String]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tempora"));
    cmd.args(args);
    cmd
}

fn output(mut cmd: Command) -> Output {
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_LOG", "warn")
        .env("TEMPORA_CONTACT", "tests@example.org")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// Runs a night with `out` (holding the last night's files) on a filesystem
/// `room` bytes larger than them; leaves what the run left there in `out`.
fn night_on_a_full_disk(server: &MockWayback, dir: &Path, out: &Path) -> Output {
    // tmpfs counts whole pages per file and per folder.
    let page = |n: u64| n.div_ceil(4096).max(1) * 4096;
    let used: u64 = walk(out)
        .iter()
        .map(|p| page(p.metadata().unwrap().len()) + 4096)
        .sum();
    let room = 16 * 1024;
    // A tmpfs can be mounted in a private mount namespace here (tried on a
    // folder of the test's own).
    let probe = dir.join("probe");
    std::fs::create_dir_all(&probe).unwrap();
    let namespaces = Command::new("unshare")
        .args(["-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&probe)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if namespaces {
        let small = dir.join("small");
        std::fs::create_dir_all(&small).unwrap();
        let script = format!(
            "mount -t tmpfs -o size={} tmpfs {small:?} && cp -a {out:?}/. {small:?}/ || exit 99
             \"$0\" \"$@\"; rc=$?
             rm -rf {out:?}/* {out:?}/.[!.]*; cp -a {small:?}/. {out:?}/; exit $rc",
            used + room,
            small = small,
            out = out
        );
        let mut cmd = Command::new("unshare");
        cmd.args(["-rm", "sh", "-c", &script])
            .arg(env!("CARGO_BIN_EXE_tempora"))
            .args(args(server, dir, &small));
        output(cmd)
    } else {
        // A file may grow to the size of the last night's articles and a little.
        let largest = walk(out)
            .iter()
            .map(|p| p.metadata().unwrap().len())
            .max()
            .unwrap_or(0);
        let blocks = (largest + room) / 512;
        let script = format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\"");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &script])
            .arg(env!("CARGO_BIN_EXE_tempora"))
            .args(args(server, dir, out));
        output(cmd)
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_names_the_file_keeps_the_last_night_and_a_rerun_catches_up() {
    let site = NewsSite::build(&NewsSiteSpec {
        seed: 5,
        first_year: 2020,
        last_year: 2020,
        articles_per_month: 6,
    });
    let (first, second) = nights(&site);
    assert!(!first.is_empty() && !second.is_empty());

    // Two nights that never failed.
    let whole = tempfile::tempdir().unwrap();
    let server = MockWayback::start(Corpus::new(first.clone()))
        .await
        .unwrap();
    let out = whole.path().join("out");
    let run = |server: &MockWayback, dir: &Path, out: &Path| {
        let o = output(tempora(&args(server, dir, out)));
        assert!(o.status.success(), "{}", said(&o));
    };
    run(&server, whole.path(), &out);
    for c in &second {
        server.add_capture(c.clone());
    }
    run(&server, whole.path(), &out);
    let expected = std::fs::read(out.join("articles.jsonl")).unwrap();

    // The same two nights, the second on a full disk.
    let dir = tempfile::tempdir().unwrap();
    let server = MockWayback::start(Corpus::new(first)).await.unwrap();
    let out = dir.path().join("out");
    run(&server, dir.path(), &out);
    let night1 = std::fs::read(out.join("articles.jsonl")).unwrap();
    for c in &second {
        server.add_capture(c.clone());
    }
    let failed = night_on_a_full_disk(&server, dir.path(), &out);
    let told = said(&failed);
    assert!(!failed.status.success(), "{told}");
    assert_ne!(
        failed.status.code(),
        Some(99),
        "the small filesystem was not made: {told}"
    );
    assert!(
        [
            "No space left on device",
            "File too large",
            "disk I/O error"
        ]
        .iter()
        .any(|e| told.contains(e)),
        "{told}"
    );
    let named = told
        .lines()
        .filter(|l| l.contains("error"))
        .any(|l| l.contains(&format!("{}", dir.path().display())));
    assert!(named, "no file named: {told}");
    assert_eq!(std::fs::read(out.join("articles.jsonl")).unwrap(), night1);

    // Room again: the rerun ends as the night that never failed.
    run(&server, dir.path(), &out);
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(out.join("articles.jsonl")).unwrap()),
        String::from_utf8_lossy(&expected)
    );
}
