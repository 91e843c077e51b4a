//! lm-evaluation-harness, in and out: the samples files it logs, read as
//! predictions ([`samples`]).

pub mod samples;
