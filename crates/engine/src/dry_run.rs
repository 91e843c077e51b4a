//! What a run would ask of the outside world, told before it runs: each stage
//! describes its queries, politeness and cost as data ([`StagePlan`], through
//! [`StageConfig::describe`](crate::StageConfig::describe)), and [`DryRun`] puts
//! them together in stage order for `tempora run --dry-run`.
//!
//! A stage's cost is an [`Estimate`](crate::Estimate): requests by kind and the hours they take at
//! the configured rates, with the basis of the figures in words (the assumptions,
//! or the count requests made with `--estimate`). Records a stage expects to emit
//! flow to the stages it feeds ([`DescribeContext::records_in`]), so a fetcher can
//! count a request per capture listed upstream.

use std::fmt::{self, Write as _};

use crate::context::PipelineContext;
use crate::cost::{thousands, Requests};
use crate::dates::RunDates;
use crate::describe::{DescribeContext, StagePlan};
use crate::error::ConfigError;
use crate::plan::Plan;

/// One stage of a dry run.
#[derive(Debug, Clone)]
pub struct DescribedStage {
    /// Its name in the file.
    pub name: String,
    /// Its kind.
    pub kind: String,
    /// What it reads: `captures`, `split.future`, and side inputs as `facts (side: facts)`.
    pub inputs: Vec<String>,
    /// What it told about itself.
    pub plan: StagePlan,
}

/// The plan of a whole run, in stage order, and the problems that stop it.
#[derive(Debug, Clone)]
pub struct DryRun {
    /// Pipeline name.
    pub name: String,
    /// The pipeline file.
    pub file: String,
    /// `[pipeline]` settings.
    pub context: PipelineContext,
    /// Stages, producers first.
    pub stages: Vec<DescribedStage>,
    /// Problems of the environment found by validation (the run cannot start).
    pub problems: Vec<ConfigError>,
    /// The run day and the dates written relative to it, when resolved.
    pub dates: Option<RunDates>,
}

impl DryRun {
    /// Asks every stage of `plan` to describe itself, producers first, passing each
    /// the records its producers expect to emit. Servers are asked for counts only
    /// when `online`.
    pub async fn describe(plan: &Plan, problems: Vec<ConfigError>, online: bool) -> Self {
        let mut stages: Vec<DescribedStage> = Vec::with_capacity(plan.stages.len());
        let mut records_out: Vec<(String, Option<u64>)> = Vec::new();
        for stage in &plan.stages {
            let records_in = stage
                .inputs
                .iter()
                .map(|input| {
                    records_out
                        .iter()
                        .find(|(name, _)| *name == input.stage)
                        .and_then(|(_, n)| *n)
                })
                .sum::<Option<u64>>()
                .filter(|_| !stage.inputs.is_empty());
            let ctx = DescribeContext {
                pipeline: &plan.context,
                records_in,
                online,
            };
            let described = stage.config.describe(&ctx).await;
            records_out.push((
                stage.name.clone(),
                described.estimate.as_ref().and_then(|e| e.records_out),
            ));
            let mut inputs: Vec<String> = stage.inputs.iter().map(ToString::to_string).collect();
            inputs.extend(
                stage
                    .side_inputs
                    .iter()
                    .map(|(side, from)| format!("{from} (side input `{}`)", side.key)),
            );
            stages.push(DescribedStage {
                name: stage.name.clone(),
                kind: stage.kind.clone(),
                inputs,
                plan: described,
            });
        }
        Self {
            name: plan.context.name.clone(),
            file: plan.file.clone(),
            context: plan.context.clone(),
            stages,
            problems,
            dates: plan.dates.clone(),
        }
    }

    /// Requests of every stage, by kind.
    pub fn requests(&self) -> Requests {
        let mut all = Requests::default();
        for s in &self.stages {
            if let Some(e) = &s.plan.estimate {
                all += &e.requests;
            }
        }
        all
    }

    /// The stage whose requests take longest, and its hours: the stages run at the
    /// same time, so it sets the pace of the run.
    pub fn slowest(&self) -> Option<(&str, f64)> {
        self.stages
            .iter()
            .filter_map(|s| Some((s.name.as_str(), s.plan.estimate.as_ref()?.hours)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

impl fmt::Display for DryRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "plan of `{}` ({}): cutoff {}, output in {}",
            self.name,
            self.file,
            self.context.cutoff,
            self.context.out.display()
        )?;
        if let Some(dates) = &self.dates {
            dates_of_the_run(f, dates)?;
        }
        writeln!(f, "\nsets, by publication date ([pipeline.sets]):")?;
        for w in self.context.windows.windows() {
            writeln!(f, "  {w}")?;
        }
        writeln!(f, "\nstages, in the order they start:")?;
        let width = self.stages.iter().map(|s| s.name.len()).max().unwrap_or(0);
        for (i, s) in self.stages.iter().enumerate() {
            let inputs = if s.inputs.is_empty() {
                String::new()
            } else {
                format!(" <- {}", s.inputs.join(", "))
            };
            writeln!(f, "  {:>2}. {:<width$}  {}{inputs}", i + 1, s.name, s.kind)?;
        }
        for s in &self.stages {
            let p = &s.plan;
            if p.queries.is_empty() && p.politeness.is_empty() && p.estimate.is_none() {
                continue;
            }
            writeln!(f, "\n{} ({})", s.name, s.kind)?;
            for q in &p.queries {
                writeln!(f, "  {}: {}", q.what, settings(&q.settings))?;
            }
            if !p.politeness.is_empty() {
                writeln!(f, "  politeness:")?;
                for (k, v) in &p.politeness {
                    writeln!(f, "    {k}: {v}")?;
                }
            }
            if let Some(e) = &p.estimate {
                let mut line = format!("  estimate: {}", e.requests);
                if let Some(n) = e.records_out {
                    let _ = write!(line, ", {} {}", thousands(n), e.records_name);
                }
                let _ = write!(line, ", {} at the configured rates", hours(e.hours));
                writeln!(f, "{line}")?;
                for b in &e.basis {
                    writeln!(f, "    {b}")?;
                }
            }
        }
        let total = self.requests();
        if let Some((slowest, h)) = self.slowest() {
            writeln!(
                f,
                "\nestimate of the run: {total}; about {} (the stages work at the same time; `{slowest}` sets the pace). Retries, 429 pauses and redirects come on top.",
                hours(h)
            )?;
        }
        if !self.problems.is_empty() {
            writeln!(
                f,
                "\n{} problem{} to fix before the run can start:",
                self.problems.len(),
                if self.problems.len() == 1 { "" } else { "s" }
            )?;
            for p in &self.problems {
                writeln!(f, "  - {p}")?;
            }
        }
        Ok(())
    }
}

/// The run day, and each date written relative to it with what it became.
fn dates_of_the_run(f: &mut fmt::Formatter<'_>, dates: &RunDates) -> fmt::Result {
    if dates.relative.is_empty() {
        return writeln!(
            f,
            "\nrun day {} (UTC); no date is written relative to it",
            dates.run_day
        );
    }
    writeln!(
        f,
        "\ndates relative to the run, resolved on run day {} (UTC):",
        dates.run_day
    )?;
    for d in &dates.relative {
        writeln!(f, "  {} = {:?} -> {}", d.key, d.written, d.value)?;
    }
    Ok(())
}

fn settings(list: &[(String, String)]) -> String {
    list.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `0.4 hours`, `36 hours (1.5 days)`.
fn hours(h: f64) -> String {
    if h >= 48.0 {
        format!("{h:.0} hours ({:.1} days)", h / 24.0)
    } else {
        format!("{h:.1} hours")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::test_kinds;
    use crate::{PipelineFile, Registry};

    #[tokio::test]
    async fn stages_are_listed_in_order_with_inputs_and_problems_after() {
        let text = "[pipeline]\ncutoff = 2019-12-31\n[stages.sink]\nkind = \"test-count\"\ninputs = [\"gen\"]\n[stages.gen]\nkind = \"test-generate\"\ncount = 1\nfrom_file = \"/no/such/file.json\"\n";
        let file = PipelineFile::parse("p.toml", text, &[]).unwrap();
        let (plan, problems) = Plan::draft(file, &Registry::new(test_kinds())).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let dry = DryRun::describe(&plan, problems, false).await;
        let text = dry.to_string();
        let gen = text.find("1. gen").expect(&text);
        let sink = text.find("2. sink  test-count <- gen").expect(&text);
        let problem = text
            .find("line 9: stages.gen.from_file: input file not found")
            .expect(&text);
        assert!(gen < sink && sink < problem, "{text}");
        assert!(dry.slowest().is_none());
    }
}
