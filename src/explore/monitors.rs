//! `monitors`: SmartApp conflicts observed (`--conflicts`, `--conflict-mode observe`) found
//! without the product of every conflict ghost: the system's state graph is explored once with
//! no ghost stored, and each attribute's conflicts are then found on the product of that graph
//! with the attribute's own one-slot monitor. Exact: the same distinct conflicts (and
//! exceptions) as `full` on the model that stores every ghost.
//!
//! **The argument.** Under `--conflicts` a state is a pair (system state, ghosts), the ghosts
//! being, per attribute X two apps may write, X's last app writer and the value it wrote
//! (src/model/smartapp/delivery.rs). In observe mode the system never reads a ghost: a
//! transition's system successor (or its exception) is a function of the system state and the
//! event alone, the conflict check only records an observation and the write goes on. So the
//! model is the synchronous product of the system S with one deterministic monitor M_X per
//! attribute X (Vardi and Wolper's automata-theoretic view: a safety property checked as a
//! monitor run in lock-step with the system): on a transition, M_X reads the app writes of X the
//! transition makes, in order, and moves to the last one; it observes a conflict where a write
//! conflicts with the write before it (the incoming ghost for the first one, the transition's own
//! earlier write of X for the others), by `set_attr`'s rule (another app, another value, not on
//! the user's command). Because S never reads the monitors, a path of S determines every
//! monitor's run along it, and the monitors never block: the reachable states of S x M_X1 x ...
//! x M_Xn project onto (s, m_X) exactly as the reachable states of S x M_X alone, both being
//! {(last state of p, M_X's state after p) : p a path of S}. A conflict on X is made by a
//! transition and M_X's state before it (and the transition's own writes), so the conflicts
//! observed anywhere in the full product are the union over X of those observed on S x M_X.
//! Each is computed by a breadth-first search over the recorded graph of S ([`fixpoint`]), which
//! costs the states of S x M_X, not of the product of all monitors, where the ghosts multiply
//! jointly (the alarm home's 65,178 system states against more than 560,000 with its two ghosts).
//!
//! **Only in observe mode.** Under `--conflict-mode end` a conflict ends its path: the ghost then
//! decides which transitions exist, S is no longer independent of the monitors, and the
//! projection argument fails. There (and without `--conflicts`, where there is nothing to
//! monitor) this strategy runs `full` instead, which is exact on any model.
//!
//! **What is recorded.** States of S are stored whole (dfs.rs's `StateStore`: equal encodings,
//! equal states; the ghosts, never set, encode as constants), explored breadth-first, each edge
//! kept as its target (u32), its choice and an interned summary: the sequence of its monitored
//! writes (0 for none; most edges write no monitored attribute), 12 bytes an edge. A state keeps
//! its breadth-first parent, so an exception's schedule is a shortest one; a conflict's schedule
//! is a shortest path in S x M_X to the monitor state it needs, then the edge: it replays in the
//! model that keeps every ghost and observes the same conflict there (the report replays it).
//! With `--threads N` each breadth-first level is expanded in parallel (the interpreter's work),
//! and merged in order, so ids, counts and findings do not depend on N.
//!
//! **Limits.** Time, memory and states stop the exploration cleanly; the monitors then run over
//! the graph explored so far (every conflict they report is real: its schedule replays), bounded
//! by the report's deadline (the time limit and a twentieth).

use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::dfs::{fingerprint, StateStore};
use super::{full, Search, Strategy};
use crate::model::smartapp::{GhostWrite, SmartAppModel, SmartState};
use crate::model::{Choice, Model, ModelError};

#[derive(Default)]
pub struct Monitors;

impl Strategy<SmartAppModel> for Monitors {
    fn name(&self) -> &'static str {
        "monitors"
    }

    fn run(&mut self, search: &mut Search<'_, SmartAppModel>) {
        if !search.model.observes_conflicts() {
            // The ghosts decide the paths (`end`), or there are none: see the module header.
            return full::Full.run(search);
        }
        let phases = std::env::var_os("TRACEPOR_PHASES").is_some();
        let t0 = Instant::now();
        let graph = explore(search);
        if phases {
            eprintln!(
                "monitors: system graph {} states ({} expanded), {} edges, {} summaries, {} writes, {:.2} s",
                graph.states(),
                graph.first.len() - 1,
                graph.target.len(),
                graph.summaries.len(),
                graph.writes.len(),
                t0.elapsed().as_secs_f64()
            );
        }
        for slot in search.model.monitored_slots() {
            let t1 = Instant::now();
            let nodes = fixpoint(search, &graph, slot as u32);
            if phases {
                eprintln!("monitors: slot {slot}: {nodes} product states, {:.2} s", t1.elapsed().as_secs_f64());
            }
        }
        // The pair view (pair_monitors.rs): after the direct conflicts, which it leaves out.
        if !search.options.no_pair_conflicts {
            let t1 = Instant::now();
            let view = super::pair_monitors::run(search, &graph);
            search.stats.pair_view = Some(view);
            if phases {
                eprintln!("monitors: pair view: {view:?}, {:.2} s", t1.elapsed().as_secs_f64());
            }
        }
    }
}

/// An edge's target when the transition ended in an exception.
const NONE: u32 = u32::MAX;

/// The system's state graph, with what each edge wrote of the monitored attributes.
struct Graph {
    /// Per expanded state, where its edges start; one more entry closes the last.
    first: Vec<u32>,
    target: Vec<u32>,
    choice: Vec<Choice>,
    /// Per edge: its summary (index into `summaries`; 0 writes nothing monitored).
    summary: Vec<u32>,
    /// Breadth-first parent of each state (the initial state's is itself).
    parent: Vec<(u32, Choice)>,
    /// Each distinct write sequence, as write ids.
    summaries: Vec<Box<[u32]>>,
    /// Each distinct write, and the ghost it leaves (ids into `ghosts`, from 1).
    writes: Vec<GhostWrite>,
    ghost_of: Vec<u32>,
    /// Per ghost id: a write leaving it (index 0: no ghost).
    ghosts: Vec<u32>,
}

impl Graph {
    fn states(&self) -> usize {
        self.parent.len()
    }

    /// The edges of state `s` (none when it was not expanded).
    fn edges(&self, s: u32) -> std::ops::Range<usize> {
        match (self.first.get(s as usize), self.first.get(s as usize + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// The breadth-first schedule to state `s`.
    fn path_to(&self, mut s: u32) -> Vec<Choice> {
        let mut path = Vec::new();
        while s != 0 {
            let (p, c) = self.parent[s as usize];
            path.push(c);
            s = p;
        }
        path.reverse();
        path
    }
}

/// What the pair view reads of the graph (pair_monitors.rs).
impl super::pair_monitors::SystemGraph for Graph {
    fn edges(&self, s: u32) -> std::ops::Range<usize> {
        Graph::edges(self, s)
    }
    fn target(&self, e: usize) -> u32 {
        self.target[e]
    }
    fn choice(&self, e: usize) -> Choice {
        self.choice[e]
    }
    fn summary(&self, e: usize) -> u32 {
        self.summary[e]
    }
    fn summary_count(&self) -> usize {
        self.summaries.len()
    }
    fn summary_writes(&self, summary: u32) -> &[u32] {
        &self.summaries[summary as usize]
    }
    fn writes(&self) -> &[GhostWrite] {
        &self.writes
    }
    fn ghost_of(&self, w: u32) -> u32 {
        self.ghost_of[w as usize]
    }
    fn ghost_write(&self, g: u32) -> &GhostWrite {
        &self.writes[self.ghosts[g as usize] as usize]
    }
}

/// Interning of writes, ghosts and write sequences.
#[derive(Default)]
struct Interner {
    write_ids: FxHashMap<Vec<u32>, u32>,
    ghost_ids: FxHashMap<Vec<u32>, u32>,
    summary_ids: FxHashMap<Box<[u32]>, u32>,
    key: Vec<u32>,
}

impl Interner {
    fn write(&mut self, g: &mut Graph, w: GhostWrite) -> u32 {
        self.key.clear();
        w.key(&mut self.key);
        if let Some(&id) = self.write_ids.get(&self.key) {
            return id;
        }
        let id = g.writes.len() as u32;
        self.write_ids.insert(self.key.clone(), id);
        self.key.clear();
        w.ghost_key(&mut self.key);
        let ghost = match self.ghost_ids.get(&self.key) {
            Some(&gh) => gh,
            None => {
                let gh = g.ghosts.len() as u32;
                g.ghosts.push(id);
                self.ghost_ids.insert(self.key.clone(), gh);
                gh
            }
        };
        g.writes.push(w);
        g.ghost_of.push(ghost);
        id
    }

    /// The summary of `writes`, and whether it is new.
    fn summary(&mut self, g: &mut Graph, writes: Vec<GhostWrite>) -> (u32, bool) {
        if writes.is_empty() {
            return (0, false);
        }
        let ids: Box<[u32]> = writes.into_iter().map(|w| self.write(g, w)).collect();
        if let Some(&id) = self.summary_ids.get(&ids) {
            return (id, false);
        }
        let id = g.summaries.len() as u32;
        self.summary_ids.insert(ids.clone(), id);
        g.summaries.push(ids);
        (id, true)
    }
}

/// One transition taken from a frontier state.
struct Step {
    choice: Choice,
    result: Result<Reached, ModelError>,
    writes: Vec<GhostWrite>,
}

/// Where a step went: a state stored before the chunk began, or one that was not (kept whole,
/// with its encoding and hash, until the merge stores it or finds it stored by then).
enum Reached {
    Stored(u32),
    New(SmartState, Vec<u32>, u64),
}

/// The transitions of `state`, each run with no ghost kept (None: nothing is enabled). Most
/// lead to a stored state (98% on the alarm home): those are stepped on one scratch copy and
/// looked up, nothing kept.
fn expand(m: &SmartAppModel, store: &StateStore, state: &SmartState) -> Option<Vec<Step>> {
    let mut enabled = Vec::new();
    m.enabled(state, &mut enabled);
    if enabled.is_empty() {
        return None;
    }
    let mut next = state.clone();
    let mut key = Vec::new();
    let steps = enabled
        .into_iter()
        .map(|c| {
            next.clone_from(state);
            let mut writes = Vec::new();
            let result = m.step_unmonitored(&mut next, c, &mut writes).map(|()| {
                key.clear();
                m.encode(&next, &mut key);
                let hash = fingerprint(&key);
                match store.find(&key, hash) {
                    Some(id) => Reached::Stored(id),
                    None => Reached::New(next.clone(), key.clone(), hash),
                }
            });
            Step { choice: c, result, writes }
        })
        .collect();
    Some(steps)
}

/// Frontier states expanded between two looks at the limits (per thread).
const CHUNK: usize = 64;

/// Explores the system's reachable state graph breadth-first, no ghost kept (see the header).
fn explore(search: &mut Search<'_, SmartAppModel>) -> Graph {
    let m = search.model;
    let threads = search.options.threads.max(1);
    search.stats.unique_transitions = Some(0);
    search.stats.stored_state_bytes = Some(0);
    search.stats.revisits = Some(0);
    let mut g = Graph {
        first: vec![0],
        target: Vec::new(),
        choice: Vec::new(),
        summary: Vec::new(),
        parent: vec![(0, 0)],
        summaries: vec![Box::new([])],
        writes: Vec::new(),
        ghost_of: Vec::new(),
        ghosts: vec![u32::MAX],
    };
    let mut interner = Interner::default();
    let mut store = StateStore::new();
    let initial = m.initial();
    let mut key = Vec::new();
    m.encode(&initial, &mut key);
    store.insert(&key, fingerprint(&key));
    *search.stats.stored_state_bytes.get_or_insert(0) += 4 * key.len() as u64;
    search.new_state();
    let mut level: Vec<(u32, SmartState)> = vec![(0, initial)];
    let mut depth = 0;
    'levels: while !level.is_empty() {
        depth += 1;
        let mut next: Vec<(u32, SmartState)> = Vec::new();
        for chunk in level.chunks(CHUNK * threads) {
            if search.stopped() {
                break 'levels;
            }
            let stored = &store;
            let expanded: Vec<Option<Vec<Step>>> = if threads > 1 {
                chunk.par_iter().with_max_len(1).map(|(_, s)| expand(m, stored, s)).collect()
            } else {
                chunk.iter().map(|(_, s)| expand(m, stored, s)).collect()
            };
            for ((from, state), steps) in chunk.iter().zip(expanded) {
                // States are expanded in id order: their edges are contiguous.
                debug_assert_eq!(*from as usize + 1, g.first.len());
                let Some(steps) = steps else {
                    search.terminal(state, &g.path_to(*from));
                    g.first.push(g.target.len() as u32);
                    continue;
                };
                // An edge is 12 bytes, in three vectors that double.
                if g.target.len() + steps.len() > g.target.capacity() && search.reserve(12 * g.target.capacity() as u64)
                {
                    break 'levels;
                }
                for step in steps {
                    search.transition(depth);
                    *search.stats.unique_transitions.get_or_insert(0) += 1;
                    let (summary, new) = interner.summary(&mut g, step.writes);
                    let target = match step.result {
                        Err(e) => {
                            let mut path = g.path_to(*from);
                            path.push(step.choice);
                            search.error(e, &path);
                            NONE
                        }
                        Ok(Reached::Stored(id)) => {
                            search.state_match();
                            id
                        }
                        Ok(Reached::New(state, key, hash)) => {
                            let growth = store.growth(key.len());
                            if growth > 0 && search.reserve(growth) {
                                break 'levels;
                            }
                            let (fresh, id) = store.insert(&key, hash);
                            if fresh {
                                *search.stats.stored_state_bytes.get_or_insert(0) += 4 * key.len() as u64;
                                search.new_state();
                                g.parent.push((*from, step.choice));
                                next.push((id, state));
                            } else {
                                search.state_match();
                            }
                            id
                        }
                    };
                    if new {
                        intra_conflicts(search, &g, summary, *from, step.choice);
                    }
                    g.target.push(target);
                    g.choice.push(step.choice);
                    g.summary.push(summary);
                    // A limit holds at the step that reached it (`--max-states` exactly).
                    if search.stopped() {
                        g.first.push(g.target.len() as u32);
                        break 'levels;
                    }
                }
                g.first.push(g.target.len() as u32);
            }
        }
        level = next;
    }
    g
}

/// The conflicts a summary's transition observes whatever the ghosts before it: each monitored
/// write against the transition's own write of the same attribute before it.
fn intra_conflicts(search: &mut Search<'_, SmartAppModel>, g: &Graph, summary: u32, from: u32, c: Choice) {
    let ids = &g.summaries[summary as usize];
    let mut seen = Vec::new();
    for (i, &w) in ids.iter().enumerate() {
        let write = &g.writes[w as usize];
        let before = ids[..i].iter().rev().map(|&p| &g.writes[p as usize]).find(|p| p.slot == write.slot);
        if let Some(e) = before.and_then(|b| search.model.monitor_conflict(Some(b), write, c)) {
            seen.push(e);
        }
    }
    if !seen.is_empty() {
        let mut path = g.path_to(from);
        path.push(c);
        search.observed(&mut seen, &path);
    }
}

/// Breadth-first search of the product of the system graph with the monitor of `slot`: reports
/// each conflict of a transition's first write of the slot with the ghost it meets, with a
/// shortest schedule of the product. Returns the product states reached.
fn fixpoint(search: &mut Search<'_, SmartAppModel>, g: &Graph, slot: u32) -> usize {
    let m = search.model;
    // Per summary: its first write of the slot and the ghost it leaves, if it writes the slot.
    let touch: Vec<Option<(u32, u32)>> = g
        .summaries
        .iter()
        .map(|ids| {
            let mut of_slot = ids.iter().filter(|&&w| g.writes[w as usize].slot == slot);
            let first = *of_slot.next()?;
            let last = of_slot.last().copied().unwrap_or(first);
            Some((first, g.ghost_of[last as usize]))
        })
        .collect();
    let deadline = search.report_deadline();
    let max_memory = search.limits.max_memory_bytes;
    // Product states (system state, ghost id), and how each was first reached (its
    // predecessor's index and the edge), in breadth-first order.
    let mut nodes: Vec<(u32, u32)> = vec![(0, 0)];
    let mut pred: Vec<(u32, u32)> = vec![(0, u32::MAX)];
    let mut index: FxHashMap<u64, ()> = FxHashMap::default();
    index.insert(0, ());
    let mut checked: FxHashMap<(u32, u32), ()> = FxHashMap::default();
    let path_of = |pred: &[(u32, u32)], mut n: u32| {
        let mut path = Vec::new();
        while pred[n as usize].1 != u32::MAX {
            let (p, e) = pred[n as usize];
            path.push(g.choice[e as usize]);
            n = p;
        }
        path.reverse();
        path
    };
    let mut i = 0;
    while i < nodes.len() {
        if i % 4096 == 0 {
            let late = deadline.is_some_and(|d| Instant::now() >= d);
            let full = max_memory.is_some_and(|max| crate::alloc::current().is_some_and(|now| now >= max));
            if late || full || search.stopped() && search.stop_reason() == Some(super::StopReason::FirstError) {
                break;
            }
        }
        let (s, ghost) = nodes[i];
        for e in g.edges(s) {
            let mut after = ghost;
            if let Some((first, left)) = touch[g.summary[e] as usize] {
                if checked.insert((ghost, first), ()).is_none() {
                    let last = (ghost != 0).then(|| &g.writes[g.ghosts[ghost as usize] as usize]);
                    if let Some(err) = m.monitor_conflict(last, &g.writes[first as usize], g.choice[e]) {
                        let mut path = path_of(&pred, i as u32);
                        path.push(g.choice[e]);
                        search.observed(&mut vec![err], &path);
                    }
                }
                after = left;
            }
            let t = g.target[e];
            if t != NONE && index.insert(u64::from(t) << 32 | u64::from(after), ()).is_none() {
                nodes.push((t, after));
                pred.push((i as u32, e as u32));
            }
        }
        i += 1;
    }
    nodes.len()
}
