//! A pipeline's date windows, written once in `[pipeline.sets]` and followed by
//! every stage that needs dates (`split` assigns by them, `prefetch` skips what
//! they cannot hold, the Archive listings cover them): how a set is written
//! ([`SetSpec`], with [`Bound`]s that may name the cutoff), and the checked,
//! resolved windows ([`Windows`]).
//!
//! ```toml
//! [pipeline]
//! cutoff = 2019-12-31
//!
//! [pipeline.sets]
//! in_distribution = { from = 2010-01-01, to = 2017-12-31 }
//! future = { from = "after_cutoff", to = 2022-12-31 }
//! ```
//!
//! A new cutoff is then `--set pipeline.cutoff=2023-12-31`, and a later end of the
//! future set `--set pipeline.sets.future.to=2024-12-31`.

use std::fmt;
use std::str::FromStr;

use chrono::{Days, NaiveDate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One end of a window as written: a date, or a day given relative to the
/// pipeline's cutoff so that `--set pipeline.cutoff=...` moves the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Bound {
    /// A fixed day.
    Date(NaiveDate),
    /// The cutoff day itself (`"cutoff"`): the last day a model knows.
    Cutoff,
    /// The day after the cutoff (`"after_cutoff"`): the first day a model does not know.
    AfterCutoff,
}

impl Bound {
    /// The day this bound stands for under `cutoff`.
    pub fn resolve(self, cutoff: NaiveDate) -> NaiveDate {
        match self {
            Self::Date(d) => d,
            Self::Cutoff => cutoff,
            // Only NaiveDate::MAX has no next day; a cutoff there makes every
            // "future" window empty anyway, so saturating is harmless.
            Self::AfterCutoff => cutoff.checked_add_days(Days::new(1)).unwrap_or(cutoff),
        }
    }
}

impl FromStr for Bound {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cutoff" => Ok(Self::Cutoff),
            "after_cutoff" => Ok(Self::AfterCutoff),
            _ => NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .map(Self::Date)
                .map_err(|_| format!("`{s}` is not a date: write {}", crate::dates::bound_forms())),
        }
    }
}

impl TryFrom<String> for Bound {
    type Error = String;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Date(d) => write!(f, "{d}"),
            Self::Cutoff => f.write_str("cutoff"),
            Self::AfterCutoff => f.write_str("after_cutoff"),
        }
    }
}

impl From<Bound> for String {
    fn from(b: Bound) -> Self {
        b.to_string()
    }
}

/// A named date window as written in the pipeline file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct SetSpec {
    /// Name of the set: the output port (`inputs = ["split.<name>"]`) and the value
    /// written to the article's `split` field. Letters, digits, `_` and `-`.
    pub name: String,
    /// First publication day in the set (inclusive): `YYYY-MM-DD`, `"cutoff"`,
    /// `"after_cutoff"` (the day after `pipeline.cutoff`) or a date relative to
    /// the run (`"run_month - 1 month"`, see [`crate::dates`]). Absent: open start.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub from: Option<Bound>,
    /// Last publication day in the set (inclusive), same forms as `from`. Absent: open end.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub to: Option<Bound>,
}

/// The bounds of one set as written in `[pipeline.sets]`, where the key is its name.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct SetBounds {
    /// First publication day in the set (inclusive): `YYYY-MM-DD`, `"cutoff"`,
    /// `"after_cutoff"` (the day after `pipeline.cutoff`) or a date relative to
    /// the run (`"run_month - 1 month"`, see [`crate::dates`]). Absent: open start.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub from: Option<Bound>,
    /// Last publication day in the set (inclusive), same forms as `from`. Absent: open end.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub to: Option<Bound>,
}

/// The port that receives articles outside every window.
pub const UNASSIGNED: &str = "unassigned";

/// The windows used when a pipeline gives no `sets`: everything up to the cutoff is
/// `in_distribution`, everything after it is `future`, so no article is unassigned.
pub fn default_sets() -> Vec<SetSpec> {
    vec![
        SetSpec {
            name: "in_distribution".into(),
            from: None,
            to: Some(Bound::Cutoff),
        },
        SetSpec {
            name: "future".into(),
            from: Some(Bound::AfterCutoff),
            to: None,
        },
    ]
}

/// A checked window with its ends resolved against the cutoff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Set name.
    pub name: String,
    /// First day (inclusive), `None` = open.
    pub from: Option<NaiveDate>,
    /// Last day (inclusive), `None` = open.
    pub to: Option<NaiveDate>,
}

impl Window {
    /// Whether `day` falls in the window.
    pub fn contains(&self, day: NaiveDate) -> bool {
        self.from.is_none_or(|f| f <= day) && self.to.is_none_or(|t| day <= t)
    }

    fn overlaps(&self, other: &Window) -> bool {
        // Two closed intervals meet unless one ends before the other starts.
        let ends_before =
            |a: &Window, b: &Window| matches!((a.to, b.from), (Some(t), Some(f)) if t < f);
        !ends_before(self, other) && !ends_before(other, self)
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |d: Option<NaiveDate>| d.map_or_else(|| "open".to_string(), |d| d.to_string());
        write!(
            f,
            "`{}` ({} to {})",
            self.name,
            show(self.from),
            show(self.to)
        )
    }
}

/// A problem with the sets: the key (`sets.future.from`) and what is wrong.
pub type SetError = (String, String);

/// The sets of a pipeline, in the order the pipeline file lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Windows {
    windows: Vec<Window>,
    /// Written in the pipeline file, not the default sets.
    written: bool,
}

impl Windows {
    /// The default sets ([`default_sets`]) under `cutoff`: they always resolve.
    pub fn default_for(cutoff: NaiveDate) -> Self {
        Self {
            windows: default_sets()
                .into_iter()
                .map(|s| Window {
                    from: s.from.map(|b| b.resolve(cutoff)),
                    to: s.to.map(|b| b.resolve(cutoff)),
                    name: s.name,
                })
                .collect(),
            written: false,
        }
    }

    /// Whether the sets were written in the pipeline file (`[pipeline.sets]`), not
    /// the default ones.
    pub fn is_written(&self) -> bool {
        self.written
    }

    /// The sets of `[pipeline.sets]` (a table: set name = `{ from, to }`), resolved
    /// against `cutoff` and checked as [`Windows::resolve`] does; one set at least
    /// must hold days after the cutoff, or the pipeline would build no future set.
    ///
    /// # Errors
    /// Every problem found, each with its key path under `[pipeline]`.
    pub fn from_table(table: &toml::Table, cutoff: NaiveDate) -> Result<Self, Vec<SetError>> {
        let mut errors = Vec::new();
        let mut specs = Vec::with_capacity(table.len());
        for (name, value) in table {
            match SetBounds::deserialize(value.clone()) {
                Ok(b) => specs.push(SetSpec {
                    name: name.clone(),
                    from: b.from,
                    to: b.to,
                }),
                Err(e) => errors.push((format!("sets.{name}"), e.message().to_string())),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // Checked on the bounds as written, so it is reported beside any other problem.
        let past_every_set = specs
            .iter()
            .all(|s| s.to.is_some_and(|to| to.resolve(cutoff) <= cutoff));
        if past_every_set {
            errors.push((
                "cutoff".into(),
                format!(
                    "the cutoff {cutoff} is past the end of every set: no set can hold future \
                     articles; move the end of the future set too (`--set pipeline.sets.NAME.to=YYYY-MM-DD`)"
                ),
            ));
        }
        match Self::resolve(&specs, cutoff) {
            Ok(windows) if errors.is_empty() => Ok(windows),
            Ok(_) => Err(errors),
            Err(mut more) => {
                more.extend(errors);
                Err(more)
            }
        }
    }

    /// Resolves `specs` against `cutoff` and checks them: at least one set, names
    /// unique and usable as port names, `from <= to`, no two windows overlapping
    /// (an article must land in exactly one set).
    ///
    /// # Errors
    /// Every problem found, each with the key it is about (`sets.NAME.from`).
    pub fn resolve(specs: &[SetSpec], cutoff: NaiveDate) -> Result<Self, Vec<SetError>> {
        let mut errors = Vec::new();
        if specs.is_empty() {
            errors.push(("sets".into(), "at least one set is needed".into()));
        }
        let mut windows: Vec<Window> = Vec::with_capacity(specs.len());
        for spec in specs {
            let key = format!("sets.{}", spec.name);
            if let Some(problem) = name_problem(&spec.name) {
                errors.push((key.clone(), problem));
            } else if windows.iter().any(|w| w.name == spec.name) {
                errors.push((key.clone(), format!("set `{}` is listed twice", spec.name)));
            }
            let window = Window {
                name: spec.name.clone(),
                from: spec.from.map(|b| b.resolve(cutoff)),
                to: spec.to.map(|b| b.resolve(cutoff)),
            };
            if let (Some(from), Some(to)) = (window.from, window.to) {
                if from > to {
                    errors.push((
                        format!("{key}.to"),
                        format!(
                            "set `{}` ends on {to}, before its start {from} (cutoff {cutoff})",
                            spec.name
                        ),
                    ));
                }
            }
            for earlier in &windows {
                if earlier.overlaps(&window) {
                    errors.push((
                        key.clone(),
                        format!(
                            "{window} overlaps {earlier}: an article may belong to one set only"
                        ),
                    ));
                }
            }
            windows.push(window);
        }
        if errors.is_empty() {
            Ok(Self {
                windows,
                written: true,
            })
        } else {
            Err(errors)
        }
    }

    /// The windows, in file order.
    pub fn windows(&self) -> &[Window] {
        &self.windows
    }

    /// Whether some window holds a day between `from` and `to` (inclusive; `None`
    /// is open): an article known to be published in that span may belong to a set.
    pub fn could_hold(&self, from: Option<NaiveDate>, to: Option<NaiveDate>) -> bool {
        let span = Window {
            name: String::new(),
            from,
            to,
        };
        self.windows.iter().any(|w| w.overlaps(&span))
    }

    /// The days the windows cover, as the fewest spans in date order: windows
    /// that touch or overlap are one span, and the days between windows are in
    /// none. `None` ends are open. What a listing of captures must cover.
    pub fn spans(&self) -> Vec<(Option<NaiveDate>, Option<NaiveDate>)> {
        let mut sorted: Vec<(Option<NaiveDate>, Option<NaiveDate>)> =
            self.windows.iter().map(|w| (w.from, w.to)).collect();
        // An open start sorts first (None < Some).
        sorted.sort();
        let mut spans: Vec<(Option<NaiveDate>, Option<NaiveDate>)> = Vec::new();
        for (from, to) in sorted {
            if let Some(last) = spans.last_mut() {
                let meets = match (last.1, from) {
                    (None, _) | (_, None) => true,
                    (Some(end), Some(start)) => end
                        .checked_add_days(Days::new(1))
                        .is_none_or(|next| start <= next),
                };
                if meets {
                    last.1 = match (last.1, to) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                    continue;
                }
            }
            spans.push((from, to));
        }
        spans
    }

    /// Index of the window holding `day`, or `None` when it is in no window.
    pub fn assign(&self, day: NaiveDate) -> Option<usize> {
        self.windows.iter().position(|w| w.contains(day))
    }
}

fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a set needs a name".into());
    }
    if name == UNASSIGNED {
        return Some(format!(
            "`{UNASSIGNED}` is the port for articles outside every set; pick another name"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Some(format!(
            "set name `{name}` may hold only letters, digits, `_` and `-` (it is a port name and a file name)"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_of_possible_days_meets_a_window_or_not() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d);
        let cutoff = day(2019, 12, 31).unwrap();
        let specs: Vec<SetSpec> = toml::from_str::<toml::Table>(
            "sets = [{ name = \"a\", from = 2010-01-01, to = 2017-12-31 }, { name = \"b\", from = \"after_cutoff\" }]",
        )
        .unwrap()["sets"]
            .clone()
            .try_into()
            .unwrap();
        let w = Windows::resolve(&specs, cutoff).unwrap();
        assert!(!w.could_hold(day(2018, 1, 1), day(2019, 12, 31)));
        assert!(w.could_hold(day(2017, 12, 31), day(2019, 1, 1)));
        assert!(w.could_hold(day(2018, 1, 1), None));
        assert!(!w.could_hold(None, day(2009, 12, 31)));
        assert!(w.could_hold(None, None));
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn spec(name: &str, from: Option<&str>, to: Option<&str>) -> SetSpec {
        SetSpec {
            name: name.into(),
            from: from.map(|s| s.parse().unwrap()),
            to: to.map(|s| s.parse().unwrap()),
        }
    }

    #[test]
    fn bounds_parse_dates_and_cutoff_words() {
        let cutoff = day("2019-12-31");
        assert_eq!(
            "2020-02-29".parse::<Bound>().unwrap().resolve(cutoff),
            day("2020-02-29")
        );
        assert_eq!("cutoff".parse::<Bound>().unwrap().resolve(cutoff), cutoff);
        assert_eq!(
            "after_cutoff".parse::<Bound>().unwrap().resolve(cutoff),
            day("2020-01-01")
        );
        let err = "2019-13-01".parse::<Bound>().unwrap_err();
        assert!(err.contains("2019-13-01"), "{err}");
        assert!("yesterday".parse::<Bound>().is_err());
    }

    #[test]
    fn default_sets_split_at_the_cutoff_and_cover_every_day() {
        let w = Windows::resolve(&default_sets(), day("2019-12-31")).unwrap();
        assert_eq!(w.assign(day("1999-01-01")), Some(0));
        assert_eq!(w.assign(day("2019-12-31")), Some(0));
        assert_eq!(w.assign(day("2020-01-01")), Some(1));
        let later = Windows::resolve(&default_sets(), day("2023-06-30")).unwrap();
        assert_eq!(later.assign(day("2021-05-01")), Some(0));
        assert_eq!(later.assign(day("2023-07-01")), Some(1));
    }

    #[test]
    fn days_between_windows_are_unassigned() {
        let sets = [
            spec("in_distribution", Some("2010-01-01"), Some("2017-12-31")),
            spec("future", Some("after_cutoff"), Some("2022-12-31")),
        ];
        let w = Windows::resolve(&sets, day("2019-12-31")).unwrap();
        assert_eq!(w.assign(day("2009-12-31")), None);
        assert_eq!(w.assign(day("2010-01-01")), Some(0));
        assert_eq!(w.assign(day("2018-06-01")), None);
        assert_eq!(w.assign(day("2022-12-31")), Some(1));
        assert_eq!(w.assign(day("2023-01-01")), None);
    }

    #[test]
    fn every_problem_is_reported_with_its_key() {
        let sets = [
            spec("a", Some("2020-01-01"), Some("2019-01-01")),
            spec("a", None, None),
            spec("bad name", None, Some("2000-01-01")),
            spec(UNASSIGNED, Some("2030-01-01"), None),
        ];
        let errors = Windows::resolve(&sets, day("2019-12-31")).unwrap_err();
        let has =
            |key: &str, words: &str| errors.iter().any(|(k, m)| k == key && m.contains(words));
        assert!(has("sets.a.to", "before its start"), "{errors:?}");
        assert!(has("sets.a", "listed twice"), "{errors:?}");
        assert!(has("sets.bad name", "only letters"), "{errors:?}");
        assert!(has("sets.unassigned", "pick another name"), "{errors:?}");
        // The open set `a` (the second) overlaps everything after it.
        assert!(has("sets.bad name", "overlaps"), "{errors:?}");
        assert!(Windows::resolve(&[], day("2019-12-31")).is_err());
    }

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn sets_written_as_a_table_keep_the_file_order_and_name_their_keys() {
        let t = table(
            "in_distribution = { from = 2010-01-01, to = 2017-12-31 }\n\
             future = { from = \"after_cutoff\", to = 2022-12-31 }",
        );
        let w = Windows::from_table(&t, day("2019-12-31")).unwrap();
        let names: Vec<&str> = w.windows().iter().map(|w| w.name.as_str()).collect();
        assert_eq!(names, ["in_distribution", "future"]);
        assert_eq!(w.windows()[1].from, Some(day("2020-01-01")));

        let errors =
            Windows::from_table(&table("future = { start = 2020-01-01 }"), day("2019-12-31"))
                .unwrap_err();
        assert_eq!(errors[0].0, "sets.future", "{errors:?}");
        assert!(errors[0].1.contains("start"), "{errors:?}");
    }

    #[test]
    fn a_cutoff_past_every_set_is_refused_with_the_way_out() {
        let t = table("in_distribution = { from = 2010-01-01, to = 2017-12-31 }");
        let errors = Windows::from_table(&t, day("2019-12-31")).unwrap_err();
        assert_eq!(errors[0].0, "cutoff");
        assert!(errors[0].1.contains("pipeline.sets"), "{errors:?}");
    }

    #[test]
    fn spans_join_touching_windows_and_leave_the_gaps_out() {
        let sets = [
            spec("a", Some("2010-01-01"), Some("2017-12-31")),
            spec("c", Some("2021-01-01"), Some("2022-12-31")),
            spec("b", Some("2020-01-01"), Some("2020-12-31")),
        ];
        let w = Windows::resolve(&sets, day("2019-12-31")).unwrap();
        assert_eq!(
            w.spans(),
            [
                (Some(day("2010-01-01")), Some(day("2017-12-31"))),
                (Some(day("2020-01-01")), Some(day("2022-12-31"))),
            ]
        );
        let open = Windows::resolve(&default_sets(), day("2019-12-31")).unwrap();
        assert_eq!(open.spans(), [(None, None)]);
    }

    #[test]
    fn a_cutoff_after_a_fixed_end_empties_the_window_with_a_clear_error() {
        let sets = [spec("future", Some("after_cutoff"), Some("2022-12-31"))];
        let errors = Windows::resolve(&sets, day("2023-06-30")).unwrap_err();
        assert_eq!(errors[0].0, "sets.future.to");
        assert!(
            errors[0].1.contains("2023-07-01") && errors[0].1.contains("cutoff 2023-06-30"),
            "{errors:?}"
        );
    }

    #[test]
    fn touching_windows_do_not_overlap_but_shared_days_do() {
        let ok = [
            spec("a", None, Some("2019-12-31")),
            spec("b", Some("2020-01-01"), None),
        ];
        assert!(Windows::resolve(&ok, day("2019-12-31")).is_ok());
        let bad = [
            spec("a", None, Some("2020-01-01")),
            spec("b", Some("2020-01-01"), None),
        ];
        assert!(Windows::resolve(&bad, day("2019-12-31")).is_err());
    }
}
