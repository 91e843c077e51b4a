//! A withheld part of each set, committed now and revealed later
//! (`[pipeline.release] withhold = 0.2`, `key = "path/to/key"`).
//!
//! Which articles are held back is decided by a keyed hash of the article id
//! (HMAC-SHA256 with the secret key file): outsiders cannot tell which ids are
//! held back, the choice is the same on every run, and once the key is
//! published anyone can check that the held-back part was chosen by it and not
//! picked by hand. A sink writes a withheld record under [`DIR`] in the output
//! folder, at the path it would have had; the folder's [`Commitment`]
//! (`withheld.json`, and the dataset card) publishes each withheld file's rows
//! and SHA-256 and the key's SHA-256, so the part is fixed before anyone sees it.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit as _, Mac as _};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use tempora_records::Record;

/// The folder of the withheld files, in the output folder.
pub const DIR: &str = "withheld";
/// The commitment's file, in the output folder.
pub const COMMITMENT: &str = "withheld.json";
/// The commitment's schema.
pub const SCHEMA: &str = "tempora-withheld/1";
/// The fewest bytes a key may have (a key is a secret: 32 random bytes, e.g.
/// `head -c 32 /dev/urandom > release.key`).
pub const MIN_KEY_BYTES: usize = 16;

/// `[pipeline.release]` as a sink gets it: the share and the key file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WithholdOption {
    /// The share of articles held back (above 0, at most 1: 1 holds back the
    /// whole release until it is revealed).
    pub share: f64,
    /// The secret key file.
    pub key: PathBuf,
    /// The release the choice is for (a monthly release's name, `2026-11`):
    /// its key is then the HMAC-SHA256 of this name under the key file's bytes,
    /// so revealing one release's key reveals nothing of another's choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// The choice of what is held back.
#[derive(Clone)]
pub struct Withhold {
    share: f64,
    key: Vec<u8>,
    scope: Option<String>,
}

impl std::fmt::Debug for Withhold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Withhold")
            .field("share", &self.share)
            .finish_non_exhaustive()
    }
}

impl Withhold {
    /// Reads the key of `option` (the release's own key when it has a
    /// [`WithholdOption::scope`]).
    ///
    /// # Errors
    /// The share is not above 0 and at most 1; the key file is missing,
    /// unreadable or too short (the message names the file).
    pub fn load(option: &WithholdOption) -> Result<Self, String> {
        if !(option.share > 0.0 && option.share <= 1.0) {
            return Err(format!(
                "`withhold` must be above 0 and at most 1 (a share; 1 holds back the whole release), is {}",
                option.share
            ));
        }
        let key = read_key(&option.key)?;
        let key = match &option.scope {
            Some(scope) => scoped_key(&key, scope),
            None => key,
        };
        Ok(Self {
            share: option.share,
            key,
            scope: option.scope.clone(),
        })
    }

    /// Whether the article `id` is held back.
    pub fn holds(&self, id: &str) -> bool {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.key) else {
            return false;
        };
        mac.update(id.as_bytes());
        let tag = mac.finalize().into_bytes();
        let mut head = [0u8; 8];
        head.copy_from_slice(&tag[..8]);
        #[allow(clippy::cast_precision_loss)]
        let draw = u64::from_be_bytes(head) as f64 / 18_446_744_073_709_551_616.0;
        draw < self.share
    }

    /// Whether `record` is held back: a record whose article is (see
    /// [`Record::article_id`]); records of no article (facts, captures, pages) never.
    pub fn holds_record(&self, record: &Record) -> bool {
        record.article_id().is_some_and(|id| self.holds(id))
    }

    /// The key's SHA-256 (hex): what the commitment publishes of it.
    pub fn key_sha256(&self) -> String {
        sha256_hex(&self.key)
    }

    /// The share held back.
    pub fn share(&self) -> f64 {
        self.share
    }
}

/// The key of the release `scope` under the key file's bytes `key`: the
/// HMAC-SHA256 of the release's name.
pub fn scoped_key(key: &[u8], scope: &str) -> Vec<u8> {
    // HMAC takes a key of any length: this cannot fail.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        return key.to_vec();
    };
    mac.update(scope.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Reads a key file.
///
/// # Errors
/// Missing, unreadable or too short, naming the file.
pub fn read_key(path: &Path) -> Result<Vec<u8>, String> {
    let key = std::fs::read(path).map_err(|e| {
        format!(
            "cannot read the release key {}: {} (make one with `head -c 32 /dev/urandom > {}` and keep it secret)",
            path.display(),
            io_text(&e),
            path.display()
        )
    })?;
    if key.len() < MIN_KEY_BYTES {
        return Err(format!(
            "the release key {} has {} bytes; a key needs at least {MIN_KEY_BYTES} random bytes (`head -c 32 /dev/urandom > {}`)",
            path.display(),
            key.len(),
            path.display()
        ));
    }
    Ok(key)
}

/// The OS's message without its `(os error N)` tail.
fn io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    text.split(" (os error").next().unwrap_or(&text).to_string()
}

/// One withheld file as the commitment states it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommittedFile {
    /// Path under the output folder (`withheld/future.parquet`).
    pub path: String,
    /// Records (lines of a JSONL file, rows of a Parquet file).
    pub rows: u64,
    /// SHA-256 of its bytes (hex).
    pub sha256: String,
}

/// When and with what key the withheld part was revealed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Revealed {
    /// When (UTC, RFC 3339).
    pub at: String,
    /// The key (hex): with it anyone can check the choice.
    pub key: String,
}

/// `withheld.json`: what is held back, fixed in advance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Commitment {
    /// [`SCHEMA`].
    pub schema: String,
    /// The share held back.
    pub share: f64,
    /// SHA-256 of the key (hex).
    pub key_sha256: String,
    /// The release whose own key chose the part (see [`WithholdOption::scope`]):
    /// the key committed to is that release's, made from the key file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Every withheld file.
    pub files: Vec<CommittedFile>,
    /// Set once `tempora reveal` published the part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed: Option<Revealed>,
}

impl Commitment {
    /// The commitment of the withheld files now in `out`.
    ///
    /// # Errors
    /// A file cannot be read.
    pub fn of_folder(out: &Path, withhold: &Withhold) -> std::io::Result<Self> {
        let mut files = Vec::new();
        for relative in withheld_files(out)? {
            let path = out.join(&relative);
            files.push(CommittedFile {
                rows: rows(&path)?,
                sha256: sha256_file(&path)?,
                path: relative,
            });
        }
        Ok(Self {
            schema: SCHEMA.to_string(),
            share: withhold.share,
            key_sha256: withhold.key_sha256(),
            scope: withhold.scope.clone(),
            files,
            revealed: None,
        })
    }

    /// Reads `out/withheld.json`; `None` when there is none.
    ///
    /// # Errors
    /// It cannot be read or is not a commitment of [`SCHEMA`], naming the file.
    pub fn read(out: &Path) -> Result<Option<Self>, String> {
        let path = out.join(COMMITMENT);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {}", path.display(), io_text(&e))),
        };
        let commitment: Self = serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "{}: not a commitment of withheld files: {e}",
                path.display()
            )
        })?;
        if commitment.schema != SCHEMA {
            return Err(format!(
                "{}: schema `{}`, this Tempora reads `{SCHEMA}`",
                path.display(),
                commitment.schema
            ));
        }
        Ok(Some(commitment))
    }

    /// Writes `out/withheld.json`.
    ///
    /// # Errors
    /// It cannot be written.
    pub fn write(&self, out: &Path) -> std::io::Result<()> {
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        tempora_engine::atomic_file::write_atomically(&out.join(COMMITMENT), |w| {
            std::io::Write::write_all(w, text.as_bytes())
        })
    }
}

/// Every file under `out/withheld/`, relative to `out` (`/`-separated), sorted.
///
/// # Errors
/// The folder cannot be read.
pub fn withheld_files(out: &Path) -> std::io::Result<Vec<String>> {
    relative_files(out, Path::new(DIR))
}

/// Every file under `root/under` (none when it does not exist), relative to
/// `root` and `/`-separated, sorted; hidden names (temporary files of a run in
/// flight) and what is under them are left out.
///
/// # Errors
/// A folder cannot be read.
pub fn relative_files(root: &Path, under: &Path) -> std::io::Result<Vec<String>> {
    let mut found = Vec::new();
    let mut pending = vec![under.to_path_buf()];
    while let Some(relative) = pending.pop() {
        let dir = root.join(&relative);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let file_type = entry.file_type()?;
            if file_type.is_dir() {
                pending.push(relative.join(&name));
            } else if file_type.is_file() {
                let path = relative.join(&name);
                let parts: Vec<String> = path
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                found.push(parts.join("/"));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The records of a withheld file: a Parquet file's rows, a JSONL file's lines.
///
/// # Errors
/// It cannot be read, or is not Parquet though named so.
pub fn rows(path: &Path) -> std::io::Result<u64> {
    if path.extension().is_some_and(|e| e == "parquet") {
        let file = std::fs::File::open(path)?;
        let reader = ::parquet::file::reader::SerializedFileReader::new(file)
            .map_err(std::io::Error::other)?;
        let rows = ::parquet::file::reader::FileReader::metadata(&reader)
            .file_metadata()
            .num_rows();
        return Ok(u64::try_from(rows).unwrap_or(0));
    }
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 16];
    let mut lines = 0;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
    }
    Ok(lines)
}

/// SHA-256 of a file (hex).
///
/// # Errors
/// It cannot be read.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// SHA-256 of `bytes` (hex).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn withhold(share: f64, key: &[u8]) -> Withhold {
        Withhold {
            share,
            key: key.to_vec(),
            scope: None,
        }
    }

    #[test]
    fn a_releases_own_key_chooses_apart_from_another_releases_and_a_whole_share_holds_all() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("release.key");
        std::fs::write(&file, b"a key of sixteen bytes or more").unwrap();
        let load = |share: f64, scope: Option<&str>| {
            Withhold::load(&WithholdOption {
                share,
                key: file.clone(),
                scope: scope.map(str::to_string),
            })
            .unwrap()
        };
        let (plain, nov, dec) = (
            load(0.5, None),
            load(0.5, Some("2026-11")),
            load(0.5, Some("2026-12")),
        );
        assert_eq!(
            nov.key,
            scoped_key(b"a key of sixteen bytes or more", "2026-11")
        );
        assert_ne!(nov.key_sha256(), dec.key_sha256());
        assert_ne!(nov.key_sha256(), plain.key_sha256());
        let ids: Vec<String> = (0..400).map(|i| format!("{}", 60_000_000 + i)).collect();
        let differ = ids
            .iter()
            .filter(|id| nov.holds(id) != dec.holds(id))
            .count();
        // Independent halves disagree on about half the ids.
        assert!((120..280).contains(&differ), "{differ}");
        let whole = load(1.0, Some("2026-11"));
        assert!(ids.iter().all(|id| whole.holds(id)));
        let over = WithholdOption {
            share: 1.01,
            key: file.clone(),
            scope: None,
        };
        assert!(Withhold::load(&over).unwrap_err().contains("at most 1"));
    }

    #[test]
    fn the_choice_is_stable_near_its_share_and_depends_on_the_key() {
        let a = withhold(0.2, b"a key of sixteen bytes or more");
        let ids: Vec<String> = (0..20_000)
            .map(|i| format!("{}", 50_000_000 + i * 7))
            .collect();
        let held: Vec<&String> = ids.iter().filter(|id| a.holds(id)).collect();
        // Binomial(20000, 0.2): sd 57 ids; 4 sd either side.
        assert!((4000_i64 - held.len() as i64).abs() < 230, "{}", held.len());
        assert!(held.iter().all(|id| a.holds(id)), "the same ids again");
        let b = withhold(0.2, b"another key of sixteen bytes");
        let both = held.iter().filter(|id| b.holds(id)).count();
        assert!(
            both < 1000,
            "another key holds back other ids: {both} in common"
        );
    }

    #[test]
    fn a_missing_or_short_key_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("release.key");
        let err = read_key(&path).unwrap_err();
        assert!(
            err.contains("release.key") && err.contains("No such file"),
            "{err}"
        );
        assert!(!err.contains("os error"), "{err}");
        std::fs::write(&path, b"short").unwrap();
        let err = read_key(&path).unwrap_err();
        assert!(err.contains("5 bytes"), "{err}");
    }
}
