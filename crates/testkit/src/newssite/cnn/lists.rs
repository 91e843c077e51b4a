//! CNN/DailyMail's URL lists as the model has them: which CNN stories the
//! dataset took, written as its `url_lists` files are.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::{Duration, NaiveDate};

use super::articles::CnnArticle;
use crate::synthetic::timestamp;

/// CNN/DailyMail's `url_lists`: `all_train.txt`, `all_val.txt` and
/// `all_test.txt`, one Wayback URL a line (the capture the dataset downloaded,
/// `http://web.archive.org/web/<ts>id_/<original>`), CNN and Daily Mail stories
/// mixed, about two Daily Mail lines for each CNN one as in the real lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlLists {
    /// `all_train.txt`.
    pub train: String,
    /// `all_val.txt`.
    pub val: String,
    /// `all_test.txt`.
    pub test: String,
    /// The CNN stories the lists name, by path (the article's id).
    pub listed: BTreeSet<String>,
}

/// The last day of CNN/DailyMail's CNN stories (April 2015).
const LAST_DAY: (i32, u32, u32) = (2015, 4, 30);

impl UrlLists {
    /// The lists of the model seeded by `seed`: 60% of the CNN stories published
    /// by April 2015, 92% of them in train, 4% each in validation and test.
    pub(super) fn draw(seed: u64, articles: &[CnnArticle]) -> Self {
        // Its own sequence: the lists change nothing else in the model.
        let mut rng = fastrand::Rng::with_seed(seed ^ 0x636e_6e64_6d00);
        let last = NaiveDate::from_ymd_opt(LAST_DAY.0, LAST_DAY.1, LAST_DAY.2).unwrap_or_default();
        let mut files: [Vec<String>; 3] = Default::default();
        let mut listed = BTreeSet::new();
        for a in articles.iter().filter(|a| a.published.date() <= last) {
            if rng.u32(0..100) >= 60 {
                continue;
            }
            let file = match rng.u32(0..100) {
                0..=91 => 0,
                92..=95 => 1,
                _ => 2,
            };
            let at = timestamp(a.published + Duration::hours(rng.i64(1..24 * 30)));
            let original = match rng.u32(0..4) {
                0 => format!("http://www.cnn.com{}/", a.path),
                1 => format!("http://edition.cnn.com{}/index.html", a.path),
                _ => format!("http://www.cnn.com{}/index.html", a.path),
            };
            files[file].push(format!("http://web.archive.org/web/{at}id_/{original}"));
            for _ in 0..2 {
                let id = 1_000_000 + rng.u32(0..2_000_000);
                let at = timestamp(a.published + Duration::hours(rng.i64(1..24 * 30)));
                files[file].push(format!(
                    "http://web.archive.org/web/{at}id_/http://www.dailymail.co.uk/news/article-{id}/Council-backs-plan.html"
                ));
            }
            listed.insert(a.path.clone());
        }
        let [train, val, test] = files.map(|mut lines| {
            rng.shuffle(&mut lines);
            lines.iter().map(|l| format!("{l}\n")).collect()
        });
        Self {
            train,
            val,
            test,
            listed,
        }
    }

    /// Writes `all_train.txt`, `all_val.txt` and `all_test.txt` into `dir`.
    ///
    /// # Errors
    /// When a file cannot be written.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<()> {
        for (name, text) in [
            ("all_train.txt", &self.train),
            ("all_val.txt", &self.val),
            ("all_test.txt", &self.test),
        ] {
            std::fs::write(dir.join(name), text)?;
        }
        Ok(())
    }
}
