//! What a finished command said: its stdout, then its stderr.

#![allow(dead_code)]

use std::process::Output;

/// Stdout then stderr of `out`, as one text for assertions' messages.
pub fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
