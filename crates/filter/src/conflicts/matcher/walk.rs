//! The walks of a scan: from each candidate word start, through the automaton
//! along goto transitions only, until the walk dies.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::Anchored;

use super::{Found, Matcher};
use crate::conflicts::words::on_word_boundaries;

impl Matcher {
    /// Follows the automaton from the word start `at` and records every name
    /// that starts there and ends on a word boundary. (Running several walks in
    /// lock step, so that their cache misses overlap, measured no faster.)
    pub(super) fn walk<const FOLD: bool>(&self, text: &str, at: usize, found: &mut Vec<Found>) {
        let (mut pos, mut sid) = (at, self.start);
        while let Some(next) = self.step::<FOLD>(text, at, pos, sid, found) {
            (pos, sid) = (pos + 1, next);
        }
    }

    /// One step of the walk from the word start `at`: reads the byte at `pos`,
    /// records every name that starts at `at` and ends there on a word boundary,
    /// and returns the next state (`None` when the walk is over).
    #[inline]
    fn step<const FOLD: bool>(
        &self,
        text: &str,
        at: usize,
        pos: usize,
        sid: StateID,
        found: &mut Vec<Found>,
    ) -> Option<StateID> {
        let byte = *text.as_bytes().get(pos)?;
        let byte = if FOLD {
            byte.to_ascii_lowercase()
        } else {
            byte
        };
        let sid = self.nfa.next_state(Anchored::Yes, sid, byte);
        if !self.nfa.is_special(sid) {
            return Some(sid);
        }
        if self.nfa.is_dead(sid) {
            return None;
        }
        let end = pos + 1;
        if self.nfa.is_match(sid) && on_word_boundaries(text, at, end) {
            self.record(text, sid, at, end, found);
        }
        Some(sid)
    }

    #[cold]
    fn record(&self, text: &str, sid: StateID, at: usize, end: usize, found: &mut Vec<Found>) {
        for i in 0..self.nfa.match_len(sid) {
            let pattern = self.nfa.match_pattern(sid, i);
            // A state also lists the names that end here but start later
            // ("Biden" in "Joe Biden"); their own walk reports them.
            if self.nfa.pattern_len(pattern) != end - at {
                continue;
            }
            let Some(variants) = self.pattern_variants.get(pattern.as_usize()) else {
                continue;
            };
            for &variant in variants.as_slice() {
                let exact_ok = match &self.variants[variant as usize].exact {
                    Some(spelling) => text.get(at..end) == Some(&**spelling),
                    None => true,
                };
                if exact_ok {
                    found.push(Found {
                        start: at,
                        end,
                        variant,
                    });
                }
            }
        }
    }
}
