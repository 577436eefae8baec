//! Memoised firings for `monitors` (src/explore/monitors.rs): a transition's outcome looked up
//! by the parts of its source state the firing may read, instead of running the interpreter.
//!
//! **The idea.** A SmartApp transition (one environment event and every handler it causes) is a
//! deterministic function of the event and of the state's parts its firing may touch. The static
//! footprint of the event (src/model/smartapp/footprint.rs, which `dpor` under `--bound` already
//! relies on for its soundness) over-approximates, from any state, every object a firing can
//! read or write: attribute slots, the location mode, each app's `state`. A state is kept packed
//! (src/model/smartapp/packed.rs), one interned number per part, and the part numbers are the
//! object numbers, so the memo's key is the event and the numbers of the parts in its footprint,
//! plus the three parts no footprint names but a firing may still depend on: the ghosts (never
//! read by an unmonitored run, kept in the key anyway), the fire counts (`--bound`: the event's
//! own count moves) and the root flag. Nothing else enters a firing: `now()`, `Random` and the
//! timers are fixed (the model's header), the settings and subscriptions are the model's.
//!
//! **Exact.** Let two states s and t agree on the key of event e. The interpreter run of e reads
//! only parts in the key, so it takes the same branches on both, makes the same writes with the
//! same values, hands out the same ghost writes (the monitors' input) and ends with the same
//! error or none. Parts in the key it writes end equal on both; parts outside the key it does
//! not write (the footprint covers writes too), so they keep their values. So e(t) is t with the
//! key's parts replaced as they were in e(s): the memo records, per key, the summary of the ghost
//! writes, and either the error or the parts that changed (number by number), and a hit applies
//! that to t's packed words. Part numbers are interned by encoding, so equal numbers mean equal
//! encodings, the identity the search matches states by (packed.rs). The argument rests on the
//! footprint; two guards watch it: an entry is recorded only when the successor differs from its
//! source in no part outside the key (else the event is not memoised again, [`Memo::refuse`]),
//! and debug builds (the tests') run the firing on every hit too and compare (a missed read
//! shows only there). The memo is a cache: it records nothing that would pass `--max-memory`.
//!
//! The table is read by the workers of a level (`--threads N`) and filled between chunks, in
//! the chunks' order: whether a step hits depends on N, what it yields does not.

use super::dfs::{fingerprint, StateStore};
use crate::model::{Choice, ModelError};

/// What a firing did, for every state with its key: the interned summary of its monitored
/// writes (monitors.rs), and where its result is: `changes[start..start + len]`, the parts it
/// changed as (part, new number), or with `len` = [`ERROR`], `errors[start]`.
#[derive(Clone, Copy)]
struct Outcome {
    summary: u32,
    start: u32,
    len: u32,
}

const ERROR: u32 = u32::MAX;

/// A memo hit: the summary, and the error or the changes.
pub(crate) struct Hit<'a> {
    pub summary: u32,
    pub result: Result<&'a [(u32, u32)], &'a ModelError>,
}

pub(crate) struct Memo {
    /// Per choice: the parts in its key, in order; None: not memoised.
    parts: Vec<Option<Box<[u32]>>>,
    /// The keys, end to end (no allocation per entry); a key's id is its outcome's index.
    keys: StateStore,
    outcomes: Vec<Outcome>,
    changes: Vec<(u32, u32)>,
    errors: Vec<ModelError>,
    pub hits: u64,
}

impl Memo {
    /// `footprints[c]`: the objects choice c may touch (part numbers below `always.start`);
    /// `always`: the parts every key holds.
    pub fn new(footprints: Vec<Vec<u32>>, always: std::ops::Range<usize>) -> Memo {
        let parts = footprints
            .into_iter()
            .map(|f| {
                // An object outside the packed parts: the key is then the whole state.
                if f.iter().any(|&o| o as usize >= always.start) {
                    Some((0..always.end as u32).collect())
                } else {
                    Some(f.into_iter().chain(always.clone().map(|p| p as u32)).collect())
                }
            })
            .collect();
        Memo { parts, keys: StateStore::new(), outcomes: Vec::new(), changes: Vec::new(), errors: Vec::new(), hits: 0 }
    }

    pub fn entries(&self) -> usize {
        self.outcomes.len()
    }

    /// The key of choice `c` from the state packed as `words` (false: `c` is not memoised).
    pub fn key(&self, c: Choice, words: &[u32], out: &mut Vec<u32>) -> bool {
        let Some(parts) = self.parts.get(c as usize).and_then(|p| p.as_deref()) else { return false };
        out.clear();
        out.push(c);
        out.extend(parts.iter().map(|&p| words[p as usize]));
        true
    }

    pub fn get(&self, key: &[u32]) -> Option<Hit<'_>> {
        let o = self.outcomes[self.keys.find(key, fingerprint(key))? as usize];
        let result = match o.len {
            ERROR => Err(&self.errors[o.start as usize]),
            len => Ok(&self.changes[o.start as usize..(o.start + len) as usize]),
        };
        Some(Hit { summary: o.summary, result })
    }

    /// At most the bytes recording one more entry may allocate (every vector doubling).
    pub fn growth(&self, key_len: usize) -> u64 {
        let doubles = |len: usize, cap: usize, size: usize| if len == cap { (size * cap.max(4)) as u64 } else { 0 };
        self.keys.growth(key_len)
            + doubles(self.outcomes.len(), self.outcomes.capacity(), 12)
            + if self.changes.len() + key_len > self.changes.capacity() {
                (8 * self.changes.capacity().max(key_len)) as u64
            } else {
                0
            }
    }

    /// Records what choice `c` did from `from` (packed), ending in `to` (packed; None: in an
    /// error, given in `error`). Refuses `c` from now on when `to` changed a part outside the key.
    pub fn record(&mut self, c: Choice, from: &[u32], to: Option<&[u32]>, error: Option<&ModelError>, summary: u32) {
        let mut key = Vec::new();
        if !self.key(c, from, &mut key) {
            return;
        }
        let hash = fingerprint(&key);
        if self.keys.find(&key, hash).is_some() {
            return;
        }
        let outcome = match (to, error) {
            (_, Some(e)) => {
                self.errors.push(e.clone());
                Outcome { summary, start: self.errors.len() as u32 - 1, len: ERROR }
            }
            (Some(to), None) => {
                let parts = self.parts[c as usize].as_deref().unwrap_or_default();
                let outside = (0..to.len()).any(|p| to[p] != from[p] && !parts.contains(&(p as u32)));
                if outside {
                    return self.refuse(c);
                }
                let start = self.changes.len() as u32;
                let changed = parts.iter().filter(|&&p| to[p as usize] != from[p as usize]);
                self.changes.extend(changed.map(|&p| (p, to[p as usize])));
                Outcome { summary, start, len: self.changes.len() as u32 - start }
            }
            (None, None) => return,
        };
        self.keys.insert(&key, hash);
        self.outcomes.push(outcome);
    }

    /// Stops memoising choice `c` (its footprint missed a write).
    pub fn refuse(&mut self, c: Choice) {
        self.parts[c as usize] = None;
    }
}

/// `from` with the changes of a memoised outcome applied.
pub(crate) fn apply(from: &[u32], changes: &[(u32, u32)], out: &mut Vec<u32>) {
    out.clear();
    out.extend_from_slice(from);
    for &(p, n) in changes {
        out[p as usize] = n;
    }
}
