//! lm-evaluation-harness, in and out: the tasks that hand a set to the harness
//! ([`task`]), and the samples files it logs, read as predictions ([`samples`]).

pub mod samples;
pub mod task;
