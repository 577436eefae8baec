//! What a search found: the outcome set (the soundness yardstick of em-trace.md), deadlocks,
//! and errors, each distinct one kept once with the first schedule that reached it.

use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

use crate::model::{Choice, ModelError, Outcome};

/// An error or deadlock with the schedule that reaches it.
#[derive(Clone, Debug)]
pub struct Found {
    pub error: ModelError,
    pub schedule: Vec<Choice>,
    /// Set when a stateful search replaced the schedule it first found (this many steps) by a
    /// shortest path to the error in the state graph it explored.
    pub graph_shortest_from: Option<usize>,
}

/// A stuck outcome with the schedule that reaches it.
#[derive(Clone, Debug)]
pub struct Deadlock {
    pub outcome: Outcome,
    pub schedule: Vec<Choice>,
    /// As [`Found::graph_shortest_from`]: the steps first found, when a stateful search put a
    /// shortest path of its state graph in their place.
    pub graph_shortest_from: Option<usize>,
}

/// What tells errors apart (kind, source line, message): one [`Found`] is kept per key.
pub type ErrorKey = (&'static str, usize, String);

/// The key of `error` among a search's errors.
pub fn error_key(error: &ModelError) -> ErrorKey {
    (error.kind, error.line, error.message.clone())
}

#[derive(Clone, Debug, Default)]
pub struct Outcomes {
    /// Canonical outcome text (the set's key, so lines come out in byte order) -> whether it is
    /// stuck.
    outcomes: BTreeMap<String, bool>,
    /// Distinct errors by (kind, line), first schedule kept.
    errors: BTreeMap<ErrorKey, Found>,
    /// Stuck outcomes, by canonical text, with the first schedule reaching each.
    deadlocks: BTreeMap<String, Deadlock>,
    /// The first schedule reaching each outcome, when asked for ([`Outcomes::keep_schedules`]):
    /// `compare` shows one for an outcome a reduction missed. Off by default: a large outcome
    /// set would hold a whole path per outcome.
    schedules: Option<BTreeMap<String, Vec<Choice>>>,
    /// When set, the outcome set is kept as 128-bit fingerprints of the canonical texts instead
    /// of the texts ([`Outcomes::fingerprints_only`]).
    fingerprints: Option<FxHashSet<u128>>,
}

/// The fingerprint of an outcome's canonical text (xxh3, 128 bits: with n outcomes, two share
/// one with probability about n^2 / 2^129).
fn fingerprint(text: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

impl Outcomes {
    /// From now on, keeps the first schedule of every outcome.
    pub fn keep_schedules(&mut self) {
        self.schedules.get_or_insert_with(BTreeMap::new);
    }

    /// From now on, keeps each outcome as a 128-bit fingerprint rather than its text: 16 bytes
    /// an outcome instead of a trace-sized line (a reads-from pair per READ), for runs that only
    /// count outcomes (`check` without `--outcomes` or `--expect`). Errors and stuck outcomes
    /// are still kept whole. [`Outcomes::lines`] is then empty.
    pub fn fingerprints_only(&mut self) {
        if self.fingerprints.is_none() {
            let kept = self.outcomes.keys().map(|t| fingerprint(t)).collect();
            self.outcomes.clear();
            self.fingerprints = Some(kept);
        }
    }

    /// Whether the outcome texts are kept (not only fingerprints).
    pub fn has_lines(&self) -> bool {
        self.fingerprints.is_none()
    }

    /// The first schedule kept for the outcome with canonical text `text`, if any.
    pub fn schedule_of(&self, text: &str) -> Option<&[Choice]> {
        let kept = self.schedules.as_ref().and_then(|m| m.get(text));
        kept.or_else(|| self.deadlocks.get(text).map(|d| &d.schedule)).map(Vec::as_slice)
    }

    /// Each outcome with the first schedule kept for it, in byte order of the outcome texts
    /// (none unless schedules are kept, [`Outcomes::keep_schedules`]).
    pub fn witnesses(&self) -> impl Iterator<Item = (&str, &[Choice])> {
        self.schedules.iter().flatten().map(|(t, s)| (t.as_str(), s.as_slice()))
    }

    pub fn add_outcome(&mut self, outcome: Outcome, path: &[Choice]) {
        let text = outcome.to_string();
        let stuck = outcome.stuck();
        if let Some(m) = self.schedules.as_mut() {
            m.entry(text.clone()).or_insert_with(|| path.to_vec());
        }
        if stuck && !self.deadlocks.contains_key(&text) {
            let found = Deadlock { outcome, schedule: path.to_vec(), graph_shortest_from: None };
            self.deadlocks.insert(text.clone(), found);
        }
        match self.fingerprints.as_mut() {
            Some(f) => {
                f.insert(fingerprint(&text));
            }
            None => {
                self.outcomes.entry(text).or_insert(stuck);
            }
        }
    }

    pub fn add_error(&mut self, error: ModelError, path: &[Choice]) {
        self.errors.entry(error_key(&error)).or_insert_with(|| Found {
            error,
            schedule: path.to_vec(),
            graph_shortest_from: None,
        });
    }

    /// Merges another search's findings (parallel workers, sharded runs).
    pub fn merge(&mut self, mut other: Outcomes) {
        if self.fingerprints.is_some() || other.fingerprints.is_some() {
            self.fingerprints_only();
            other.fingerprints_only();
        }
        if let (Some(mine), Some(theirs)) = (self.fingerprints.as_mut(), other.fingerprints.take()) {
            mine.extend(theirs);
        }
        for (k, v) in other.outcomes {
            self.outcomes.entry(k).or_insert(v);
        }
        for (k, v) in other.errors {
            self.errors.entry(k).or_insert(v);
        }
        for (k, v) in other.deadlocks {
            self.deadlocks.entry(k).or_insert(v);
        }
        if let (Some(mine), Some(theirs)) = (self.schedules.as_mut(), other.schedules) {
            for (k, v) in theirs {
                mine.entry(k).or_insert(v);
            }
        }
    }

    /// Canonical outcome lines, sorted in byte order (none when only fingerprints are kept).
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.outcomes.keys().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.fingerprints.as_ref().map_or(self.outcomes.len(), FxHashSet::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Distinct stuck outcomes (EM traces) or distinct nothing-enabled states (event models).
    pub fn deadlocks(&self) -> usize {
        self.deadlocks.len()
    }

    /// Each distinct stuck outcome with the first schedule that reached it.
    pub fn deadlock_schedules(&self) -> impl Iterator<Item = (&Outcome, &[Choice])> {
        self.deadlocks.values().map(|d| (&d.outcome, d.schedule.as_slice()))
    }

    /// Each distinct stuck outcome as found, with how its schedule was obtained.
    pub fn deadlocks_found(&self) -> impl Iterator<Item = &Deadlock> {
        self.deadlocks.values()
    }

    pub fn errors(&self) -> impl Iterator<Item = &Found> {
        self.errors.values()
    }

    /// For a stateful search to replace schedules by shorter ones of its state graph.
    pub fn errors_mut(&mut self) -> impl Iterator<Item = &mut Found> {
        self.errors.values_mut()
    }

    /// The stuck outcomes, likewise.
    pub fn deadlocks_mut(&mut self) -> impl Iterator<Item = &mut Deadlock> {
        self.deadlocks.values_mut()
    }

    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// The same outcome set, errors and deadlocks (what soundness checks compare).
    pub fn same_as(&self, other: &Outcomes) -> bool {
        let set = |o: &Outcomes| -> FxHashSet<u128> {
            o.fingerprints.clone().unwrap_or_else(|| o.outcomes.keys().map(|t| fingerprint(t)).collect())
        };
        let outcomes = match (&self.fingerprints, &other.fingerprints) {
            (None, None) => self.outcomes == other.outcomes,
            _ => set(self) == set(other),
        };
        outcomes && self.errors.keys().eq(other.errors.keys())
    }
}
