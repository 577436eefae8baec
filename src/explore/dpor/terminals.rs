//! End states already reported, for the DPOR core ([`super::engine`]): a run's outcome follows
//! from its end state's key, and building the outcome text costs more than the rest of a short
//! run, so an end state seen before is only counted. Nothing here changes what is explored or
//! counted: [`crate::explore::Search::terminal`] would add the same outcome again to no effect.

use rustc_hash::FxHashSet;

use crate::model::em::{EmModel, EmState};
use crate::model::Model;

/// At most this many key words are kept to recognise end states already reported (16 MB).
const TERMINAL_WORDS: usize = 4 << 20;

/// The keys of the end states reported so far (bounded, so that memory stays flat).
#[derive(Default)]
pub(crate) struct Terminals {
    seen: FxHashSet<Box<[u32]>>,
    /// Words held by `seen`.
    words: usize,
    key: Vec<u32>,
}

impl Terminals {
    /// Whether end state `state` was reported before; if not, it is remembered (while the
    /// bound allows) and the caller reports it.
    pub fn seen(&mut self, model: &EmModel, state: &EmState) -> bool {
        self.key.clear();
        model.encode(state, &mut self.key);
        if self.seen.contains(&self.key[..]) {
            return true;
        }
        if self.words + self.key.len() <= TERMINAL_WORDS {
            self.words += self.key.len();
            self.seen.insert(self.key.as_slice().into());
        }
        false
    }
}
