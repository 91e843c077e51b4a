//! The walks of a scan: from each candidate word start, through the automaton
//! along goto transitions only, several walks in lock step.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::Anchored;

use super::{Found, Matcher};
use crate::conflicts::words::on_word_boundaries;

/// Walks in flight at once (see [`Matcher::walk_all`]).
const LANES: usize = 8;

impl Matcher {
    /// Walks the automaton from every start, [`LANES`] walks at a time in
    /// lock step: each step of a walk into a 10^5-name automaton is a likely
    /// cache miss, and independent walks let the processor wait for several
    /// misses at once instead of one after the other.
    pub(super) fn walk_all<const FOLD: bool>(
        &self,
        text: &str,
        starts: &[usize],
        found: &mut Vec<Found>,
    ) {
        // (start, next byte, state) of each lane's walk.
        let mut lanes = [(0usize, 0usize, self.start); LANES];
        let mut next = starts.iter();
        let mut active = 0;
        for lane in &mut lanes {
            match next.next() {
                Some(&at) => *lane = (at, at, self.start),
                None => break,
            }
            active += 1;
        }
        while active > 0 {
            let mut i = 0;
            while i < active {
                let (at, pos, sid) = lanes[i];
                match self.step::<FOLD>(text, at, pos, sid, found) {
                    Some(sid) => {
                        lanes[i] = (at, pos + 1, sid);
                        i += 1;
                    }
                    None => match next.next() {
                        Some(&start) => {
                            lanes[i] = (start, start, self.start);
                            i += 1;
                        }
                        None => {
                            active -= 1;
                            lanes[i] = lanes[active];
                        }
                    },
                }
            }
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
