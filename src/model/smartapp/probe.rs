//! What varies in a system's states (where a home's state space comes from): a
//! breadth-first walk of the states, up to a number of them, that counts per component of a
//! [`SmartState`] (each attribute slot, the location mode, each key of each app's `state`, each
//! conflict ghost, the fire counts under a bound) how many distinct values it takes, and how
//! many states would be left if that component alone were not stored (the walk's states
//! projected without it): a component whose projection leaves the count unchanged is
//! determined by the others, one that divides it multiplies the space.
//!
//! A diagnostic, not a search: it steps with [`Model::step`] (a conflict under
//! `--conflict-mode end` or an exception ends its path, as in the searches) and matches states
//! by their encoding. Printed on stderr by `check` when `TRACEPOR_PROBE=N` is set (N states).

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use super::*;

/// One component of the state and what the walk saw of it.
#[derive(Debug)]
pub struct Varying {
    pub component: String,
    /// Distinct values (`absent` for a `state` key not set).
    pub values: usize,
    /// The walk's states with this component left out (equal to the states: determined by the
    /// others).
    pub states_without: usize,
    /// A few of the values, in the order first seen.
    pub examples: Vec<String>,
}

/// What [`SmartAppModel::probe`] found.
#[derive(Debug)]
pub struct Probe {
    pub states: usize,
    pub transitions: u64,
    /// Whether the walk saw every reachable state (it stopped for want of new ones).
    pub finished: bool,
    /// New states per breadth-first level (depth 0: the initial state).
    pub levels: Vec<usize>,
    pub components: Vec<Varying>,
}

impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = if self.finished { "all reachable" } else { "not finished" };
        writeln!(f, "probe: {} states, {} transitions ({how})", self.states, self.transitions)?;
        writeln!(f, "states per depth: {:?}", self.levels)?;
        writeln!(f, "{:<56} {:>7} {:>12}  values", "component", "values", "states w/o")?;
        for c in &self.components {
            writeln!(f, "{:<56} {:>7} {:>12}  {}", c.component, c.values, c.states_without, c.examples.join(" | "))?;
        }
        Ok(())
    }
}

impl SmartAppModel {
    /// Walks the states breadth-first, at most `max_states` of them, and tells per component
    /// what varies (see the module header); only components with more than one value are listed,
    /// those that multiply most first.
    pub fn probe(&self, max_states: usize) -> Probe {
        let mut seen: FxHashSet<Vec<u32>> = FxHashSet::default();
        let mut queue = VecDeque::new();
        let mut table = Table::default();
        let (mut enc, mut choices, mut transitions) = (Vec::new(), Vec::new(), 0u64);
        let s0 = self.initial();
        self.encode(&s0, &mut enc);
        seen.insert(enc.clone());
        queue.push_back((s0, 0usize));
        let (mut finished, mut levels) = (true, Vec::new());
        while let Some((s, depth)) = queue.pop_front() {
            if levels.len() <= depth {
                levels.push(0);
            }
            levels[depth] += 1;
            table.add(self.components_of(&s));
            choices.clear();
            self.enabled(&s, &mut choices);
            for &c in &choices {
                let mut t = s.clone();
                transitions += 1;
                if self.step(&mut t, c).is_err() {
                    continue;
                }
                enc.clear();
                self.encode(&t, &mut enc);
                if seen.contains(&enc) {
                    continue;
                }
                if seen.len() >= max_states {
                    finished = false;
                    continue;
                }
                seen.insert(enc.clone());
                queue.push_back((t, depth + 1));
            }
        }
        Probe { states: table.rows.len(), transitions, finished, levels, components: table.tally() }
    }

    /// The state cut into named components, each value as text.
    fn components_of(&self, s: &SmartState) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (i, v) in s.attrs.iter().enumerate() {
            out.push((self.object_name(i as u32), v.text()));
        }
        out.push(("location.mode".into(), s.mode.to_string()));
        for (a, st) in s.states.iter().enumerate() {
            for (k, v) in st {
                out.push((format!("state {}.{k}", self.apps[a].name), v.text()));
            }
        }
        for (i, (w, v)) in s.writers.iter().enumerate() {
            let who = if *w == 0 { "none".to_string() } else { self.apps[*w as usize - 1].name.clone() };
            out.push((format!("ghost {}", self.object_name(i as u32)), format!("{who}={}", v.text())));
        }
        for (e, n) in s.fired.iter().enumerate() {
            out.push((format!("fired {}", self.events[e].name), n.to_string()));
        }
        out.push(("root".into(), s.root.to_string()));
        out
    }
}

/// The walk's states as numbers: per component its values interned, per state a row.
#[derive(Default)]
struct Table {
    names: Vec<String>,
    index: FxHashMap<String, usize>,
    values: Vec<FxHashMap<String, u32>>,
    examples: Vec<Vec<String>>,
    /// Per state, per component its value's number (a component named after the row was
    /// added reads as `absent`, number u32::MAX).
    rows: Vec<Vec<u32>>,
}

impl Table {
    fn add(&mut self, row: Vec<(String, String)>) {
        let mut ids = vec![u32::MAX; self.names.len()];
        for (k, v) in row {
            let c = match self.index.get(&k) {
                Some(&c) => c,
                None => {
                    self.index.insert(k.clone(), self.names.len());
                    self.names.push(k);
                    self.values.push(FxHashMap::default());
                    self.examples.push(Vec::new());
                    ids.push(u32::MAX);
                    self.names.len() - 1
                }
            };
            let n = self.values[c].len() as u32;
            let examples = &mut self.examples[c];
            ids[c] = *self.values[c].entry(v.clone()).or_insert_with(|| {
                if examples.len() < 8 {
                    examples.push(v);
                }
                n
            });
        }
        self.rows.push(ids);
    }

    /// Per component with more than one value (`absent` counts as one): its distinct values and
    /// the states without it, those that multiply most first.
    fn tally(&self) -> Vec<Varying> {
        let cell = |r: &Vec<u32>, c: usize| r.get(c).copied().unwrap_or(u32::MAX);
        let mut out: Vec<Varying> = (0..self.names.len())
            .filter_map(|c| {
                let absent = self.rows.iter().any(|r| cell(r, c) == u32::MAX) as usize;
                let values = self.values[c].len() + absent;
                if values < 2 {
                    return None;
                }
                let without: FxHashSet<u64> = self
                    .rows
                    .iter()
                    .map(|r| {
                        let mut h = FxHasher::default();
                        (0..self.names.len()).filter(|&i| i != c).for_each(|i| cell(r, i).hash(&mut h));
                        h.finish()
                    })
                    .collect();
                let mut examples = self.examples[c].clone();
                if absent == 1 {
                    examples.insert(0, "absent".into());
                }
                Some(Varying { component: self.names[c].clone(), values, states_without: without.len(), examples })
            })
            .collect();
        out.sort_by_key(|v| v.states_without);
        out
    }
}
