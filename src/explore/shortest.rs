//! Shortest counterexamples for `full`: a breadth-first pass after the depth-first search.
//!
//! The depth-first walk of `full` reaches errors along long paths (the first schedule to the
//! thermostat conflict of a SmartApp pair had 163 steps where five suffice). Breadth-first from the
//! initial state over the same model, each state stored once, first meets a state or error at
//! the least number of steps: so the first path to each error (same key as [`Outcomes`]: kind,
//! line, message) and to each reported deadlock (same outcome text) is a shortest one. Paths are
//! rebuilt from one (parent, choice) pair per stored state, 8 bytes beside the visited set.
//!
//! Why a second search rather than parents recorded by the first: the depth-first walk's parent
//! of a state is where it was first met, which is not on a shortest path, and keeping every
//! edge (as stateful-dpor's graph does) costs a word pair per transition during the whole
//! search. The pass runs only when something was found, after `full`'s own visited set is
//! freed, and visits at most the states `full` stored: it is cut off as soon as every finding
//! is reached, and never goes deeper than the schedule already found (which replays, so each
//! finding is reached by then). States are kept as `full` keeps them (whole, or fingerprints
//! with `--hash-compact`); it is one thread, also under `--threads`.
//!
//! On EM traces every schedule to a deadlock has the same length (one operation per step, and
//! the outcome names those never run), so there the schedule found is kept and called shortest.
//!
//! It is skipped when `full` did not finish (a limit, or `--stop-at-first-error`): a search cut
//! short should not start another as large. When a limit of the run (time, memory, Ctrl-C) is
//! reached during the pass, the schedules found so far are kept and the others stay as found;
//! the search still counts as finished, and its counters do not include the pass.

use rustc_hash::FxHashMap;

use super::dfs::{fingerprint, FingerprintSet, StateStore};
use super::outcomes::{error_key, ErrorKey, Outcomes};
use super::Search;
use crate::model::{Choice, Model};

/// The visited set of the pass; ids are its own, in order of storing.
enum Visited {
    Whole(StateStore),
    Fingerprints(FingerprintSet),
}

impl Visited {
    fn insert(&mut self, key: &[u32]) -> bool {
        match self {
            Visited::Whole(store) => store.insert(key, fingerprint(key)).0,
            Visited::Fingerprints(set) => set.insert(fingerprint(key)),
        }
    }
}

/// What is still to reach: each finding with the steps of the schedule found for it.
struct Targets {
    errors: FxHashMap<ErrorKey, usize>,
    deadlocks: FxHashMap<String, usize>,
}

impl Targets {
    fn of(found: &Outcomes, deadlocks: bool) -> Self {
        let errors = found.errors().map(|f| (error_key(&f.error), f.schedule.len())).collect();
        let deadlocks = match deadlocks {
            true => found.deadlocks_found().map(|d| (d.outcome.to_string(), d.schedule.len())).collect(),
            false => FxHashMap::default(),
        };
        Targets { errors, deadlocks }
    }

    fn is_empty(&self) -> bool {
        self.errors.is_empty() && self.deadlocks.is_empty()
    }

    /// Whether a finding may still be met below `depth`: a state at `depth + 1`, or an error
    /// one step further.
    fn below(&self, depth: usize) -> bool {
        self.deadlocks.values().any(|&n| n > depth) || self.errors.values().any(|&n| n > depth + 1)
    }
}

/// Replaces the schedule of each error, and of each deadlock where a stuck end is reported,
/// by a shortest one (see the module header); sets `graph_shortest_from` on each replaced.
pub fn shortest_schedules<M: Model>(search: &mut Search<'_, M>) {
    let model = search.model;
    if search.stopped() {
        return;
    }
    // Where every schedule to a deadlock is as long as any other (EM traces), the one found is
    // a shortest one: no pass needed to say so.
    let fixed = model.deadlock_is_error() && model.stuck_length_fixed();
    if fixed {
        for d in search.found.deadlocks_mut() {
            d.graph_shortest_from = Some(d.schedule.len());
        }
    }
    let mut targets = Targets::of(&search.found, model.deadlock_is_error() && !fixed);
    if targets.is_empty() {
        return;
    }
    let budget = search.wrap_up();
    let mut seen = if search.options.hash_compact {
        Visited::Fingerprints(FingerprintSet::new())
    } else {
        Visited::Whole(StateStore::new())
    };
    let mut key = Vec::new();
    let initial = model.initial();
    model.encode(&initial, &mut key);
    seen.insert(&key);
    // (parent id, choice) of each stored state, by id; the initial state's parent is itself.
    let mut parent: Vec<(u32, Choice)> = vec![(0, 0)];
    let path_to = |parent: &[(u32, Choice)], mut id: u32| {
        let mut path = Vec::new();
        while id != 0 {
            let (p, c) = parent[id as usize];
            path.push(c);
            id = p;
        }
        path.reverse();
        path
    };
    let mut errors: FxHashMap<ErrorKey, Vec<Choice>> = FxHashMap::default();
    let mut deadlocks: FxHashMap<String, Vec<Choice>> = FxHashMap::default();
    let mut level: Vec<(M::State, u32)> = vec![(initial, 0)];
    let mut next = Vec::new();
    let mut enabled = Vec::new();
    let mut depth = 0;
    'levels: while !level.is_empty() && !targets.is_empty() {
        let deeper = targets.below(depth);
        for (state, id) in level.drain(..) {
            if budget.poll() {
                break 'levels;
            }
            enabled.clear();
            model.enabled(&state, &mut enabled);
            if enabled.is_empty() {
                let outcome = model.outcome(&state);
                if outcome.stuck() && !targets.deadlocks.is_empty() {
                    let text = outcome.to_string();
                    if targets.deadlocks.get(&text).is_some_and(|&n| depth <= n) {
                        targets.deadlocks.remove(&text);
                        deadlocks.insert(text, path_to(&parent, id));
                    }
                }
                continue;
            }
            // At the last level worth a look only errors one step on are left to find.
            if !deeper && targets.errors.is_empty() {
                continue;
            }
            for &c in &enabled {
                let mut after = state.clone();
                match model.step(&mut after, c) {
                    Err(e) => {
                        let k = error_key(&e);
                        if targets.errors.get(&k).is_some_and(|&n| depth < n) {
                            targets.errors.remove(&k);
                            let mut path = path_to(&parent, id);
                            path.push(c);
                            errors.insert(k, path);
                        }
                    }
                    Ok(()) if deeper => {
                        key.clear();
                        model.encode(&after, &mut key);
                        if seen.insert(&key) {
                            let new = u32::try_from(parent.len()).expect("fewer than 2^32 states");
                            parent.push((id, c));
                            next.push((after, new));
                        }
                    }
                    Ok(()) => {}
                }
            }
        }
        std::mem::swap(&mut level, &mut next);
        depth += 1;
    }
    for f in search.found.errors_mut() {
        if let Some(path) = errors.remove(&error_key(&f.error)) {
            f.graph_shortest_from = Some(f.schedule.len());
            f.schedule = path;
        }
    }
    for d in search.found.deadlocks_mut() {
        if let Some(path) = deadlocks.remove(&d.outcome.to_string()) {
            d.graph_shortest_from = Some(d.schedule.len());
            d.schedule = path;
        }
    }
}
