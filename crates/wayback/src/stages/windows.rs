//! Which capture days a listing covers: the pipeline's sets (`[pipeline.sets]`)
//! unless a stage sets `from`/`to` by hand, and then that window must cover them.

use chrono::NaiveDate;
use tempora_engine::{OptionError, PipelineContext};

/// A span of capture days, ends inclusive, `None` open.
pub type Span = (Option<NaiveDate>, Option<NaiveDate>);

/// The spans a listing asks for: `from..=to` when either is given, else each span
/// of days the pipeline's sets cover (the gaps between sets are not listed).
pub fn listing_windows(
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    ctx: &PipelineContext,
) -> Vec<Span> {
    if from.is_none() && to.is_none() {
        ctx.windows.spans()
    } else {
        vec![(from, to)]
    }
}

/// `(key, message)` for each set written in `[pipeline.sets]` that a window set
/// by hand does not cover: captures of its articles would never be listed.
pub fn uncovered_sets(
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    ctx: &PipelineContext,
) -> Vec<OptionError> {
    if (from.is_none() && to.is_none()) || !ctx.windows.is_written() {
        return Vec::new();
    }
    let show = |d: Option<NaiveDate>| d.map_or_else(|| "open".to_string(), |d| d.to_string());
    ctx.windows
        .windows()
        .iter()
        .filter_map(|w| {
            let starts_in = from.is_none_or(|f| w.from.is_some_and(|wf| wf >= f));
            let ends_in = to.is_none_or(|t| w.to.is_some_and(|wt| wt <= t));
            let key = if starts_in { "to" } else { "from" };
            (!(starts_in && ends_in)).then(|| {
                OptionError::at(
                    key,
                    format!(
                        "the listing window {} to {} does not cover set {w} of [pipeline.sets]: \
                         its articles would not be listed; leave `from` and `to` out to list \
                         what the sets need",
                        show(from),
                        show(to)
                    ),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempora_engine::Windows;

    fn ctx(sets: &str) -> PipelineContext {
        let cutoff: NaiveDate = "2019-12-31".parse().unwrap();
        let mut ctx = PipelineContext::new("p", cutoff, "out".into());
        ctx.windows = Windows::from_table(&toml::from_str(sets).unwrap(), cutoff).unwrap();
        ctx
    }

    fn day(s: &str) -> Option<NaiveDate> {
        s.parse().ok()
    }

    #[test]
    fn without_a_window_the_sets_are_listed_and_the_gap_is_not() {
        let ctx = ctx("a = { from = 2010-01-01, to = 2017-12-31 }\n\
                       b = { from = \"after_cutoff\", to = 2022-12-31 }");
        assert_eq!(
            listing_windows(None, None, &ctx),
            [
                (day("2010-01-01"), day("2017-12-31")),
                (day("2020-01-01"), day("2022-12-31"))
            ]
        );
        assert!(uncovered_sets(None, None, &ctx).is_empty());
        let by_hand = (day("2010-01-01"), day("2022-12-31"));
        assert_eq!(listing_windows(by_hand.0, by_hand.1, &ctx), [by_hand]);
        assert!(uncovered_sets(by_hand.0, by_hand.1, &ctx).is_empty());
    }

    #[test]
    fn a_window_by_hand_that_misses_a_set_is_named() {
        let ctx = ctx("a = { from = 2010-01-01, to = 2017-12-31 }\n\
                       b = { from = \"after_cutoff\" }");
        let problems = uncovered_sets(day("2012-01-01"), day("2022-12-31"), &ctx);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].key.as_deref(), Some("from"));
        assert!(problems[0].message.contains("`a`"), "{problems:?}");
        assert_eq!(problems[1].key.as_deref(), Some("to"));
        assert!(
            problems[1].message.contains("`b` (2020-01-01 to open)"),
            "{problems:?}"
        );
    }
}
