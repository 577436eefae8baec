//! Depth-first search over every enabled choice: the walk both exhaustive strategies share.
//! With a visited set it is `full` (a state seen before is not expanded again), without one it
//! is `full-stateless` (every interleaving).
//!
//! States are stored whole, or as 64-bit fingerprints with `--hash-compact` (xxh3 of the
//! state's key: with n states stored, the chance that two different states share a
//! fingerprint, so that one is wrongly taken as visited, is about n^2 / 2^65, e.g. 3e-6 for
//! ten million states).
//!
//! With `--threads N` the tree is first expanded breadth-first until it has a few hundred frontier
//! nodes per worker (so that work stealing can even out subtrees of very different sizes); rayon's workers then take frontier nodes, each a depth-first search of its
//! own, sharing one visited set. Every reachable state is still expanded exactly once and every
//! interleaving still walked once, so the counts do not depend on the number of threads.

use std::collections::VecDeque;
use std::sync::Mutex;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::graph::Target;
use super::Search;
use crate::model::{Choice, Model};

/// Approximate bytes a hash table spends per entry beyond the key (slot and control byte).
const ENTRY_OVERHEAD: u64 = 17;

fn fingerprint(key: &[u32]) -> u64 {
    // SAFETY: any initialised u32 slice is a valid byte slice of four times its length (u8 has
    // alignment 1); fingerprints only meet fingerprints of the same process, so byte order does
    // not matter. This avoids copying the key on every stored state.
    let bytes = unsafe { std::slice::from_raw_parts(key.as_ptr().cast::<u8>(), std::mem::size_of_val(key)) };
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The visited set shared by parallel workers: shards, each behind its own lock.
struct Shared {
    whole: Vec<Mutex<FxHashSet<Box<[u32]>>>>,
    compact: Vec<Mutex<FxHashSet<u64>>>,
}

impl Shared {
    fn new(compact: bool) -> Self {
        let n = if compact { 0 } else { 64 };
        Shared {
            whole: (0..n).map(|_| Mutex::new(FxHashSet::default())).collect(),
            compact: (0..64 - n).map(|_| Mutex::new(FxHashSet::default())).collect(),
        }
    }

    /// Inserts; true when the state is new. Second value: bytes stored.
    fn insert(&self, key: &[u32]) -> (bool, u64) {
        let h = fingerprint(key);
        let shard = (h >> 58) as usize;
        if self.compact.is_empty() {
            let mut set = self.whole[shard].lock().unwrap_or_else(|e| e.into_inner());
            (set.insert(key.into()), 4 * key.len() as u64 + 16 + ENTRY_OVERHEAD)
        } else {
            let mut set = self.compact[shard].lock().unwrap_or_else(|e| e.into_inner());
            (set.insert(h), 8 + ENTRY_OVERHEAD)
        }
    }
}

/// How a walk remembers states.
enum Seen<'a> {
    /// `full-stateless`: nothing; node numbers only name nodes of the state graph.
    Nothing {
        nodes: u32,
    },
    /// Whole states with their ids (ids name nodes of the state graph).
    Whole(FxHashMap<Box<[u32]>, u32>),
    Fingerprints(FxHashSet<u64>),
    Shared(&'a Shared),
}

impl Seen<'_> {
    /// Records a state; `Some(id)` when it is new (or when nothing is stored), `None` when
    /// it was seen before. Also returns the id it has in the graph and the bytes stored.
    fn visit(&mut self, key: &[u32]) -> (bool, u32, u64) {
        match self {
            Seen::Nothing { nodes } => {
                // Node numbers only matter for small graphs (--dot); let them wrap.
                *nodes = nodes.wrapping_add(1);
                (true, nodes.wrapping_sub(1), 0)
            }
            Seen::Whole(map) => {
                let next = map.len() as u32;
                let id = *map.entry(key.into()).or_insert(next);
                (id == next, id, 4 * key.len() as u64 + 16 + 4 + ENTRY_OVERHEAD)
            }
            Seen::Fingerprints(set) => (set.insert(fingerprint(key)), 0, 8 + ENTRY_OVERHEAD),
            Seen::Shared(shared) => {
                let (new, bytes) = shared.insert(key);
                (new, 0, bytes)
            }
        }
    }

    fn stateful(&self) -> bool {
        !matches!(self, Seen::Nothing { .. })
    }
}

struct Frame<S> {
    state: S,
    /// Stored state id (stateful) or node number (stateless), for the state graph.
    id: u32,
    enabled: Vec<Choice>,
    next: usize,
}

/// Walks `search.model` depth-first; `stateful` turns state matching on.
pub fn depth_first<M: Model>(search: &mut Search<'_, M>, stateful: bool) {
    let model = search.model;
    let compact = search.options.hash_compact;
    let threads = search.options.threads.max(1);
    let mut key = Vec::new();
    let initial = model.initial();
    if stateful {
        search.stats.unique_transitions = Some(0);
        search.stats.stored_state_bytes = Some(0);
        search.stats.revisits = Some(0);
    }
    if threads > 1 && search.graph.is_none() {
        parallel(search, initial, stateful, threads);
        return;
    }
    let mut seen = match (stateful, compact) {
        (false, _) => Seen::Nothing { nodes: 1 },
        (true, false) => Seen::Whole(FxHashMap::default()),
        (true, true) => Seen::Fingerprints(FxHashSet::default()),
    };
    if stateful {
        model.encode(&initial, &mut key);
        let (_, _, bytes) = seen.visit(&key);
        *search.stats.stored_state_bytes.get_or_insert(0) += bytes;
        search.new_state();
    }
    walk(search, &mut seen, initial, 0, Vec::new());
}

/// Depth-first from `state` (already counted), reached by `path`.
fn walk<M: Model>(search: &mut Search<'_, M>, seen: &mut Seen<'_>, state: M::State, id: u32, mut path: Vec<Choice>) {
    let model = search.model;
    let base = path.len();
    let mut key = Vec::new();
    let mut enabled = Vec::new();
    model.enabled(&state, &mut enabled);
    if enabled.is_empty() {
        search.terminal(&state, &path);
        return;
    }
    let mut stack = vec![Frame { state, id, enabled, next: 0 }];
    while let Some(top) = stack.last_mut() {
        if search.stopped() {
            break;
        }
        if top.next == top.enabled.len() {
            stack.pop();
            if path.len() > base {
                path.pop();
            }
            continue;
        }
        let c = top.enabled[top.next];
        top.next += 1;
        let from = top.id;
        let label = search.graph.as_ref().filter(|g| !g.overflowed).map(|_| model.describe(&top.state, c));
        let mut state = top.state.clone();
        path.push(c);
        search.transition(path.len());
        if let Some(u) = search.stats.unique_transitions.as_mut() {
            // Each stored state is expanded once, so every edge walked is a new one.
            *u += 1;
        }
        if let Err(e) = model.step(&mut state, c) {
            if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                g.add_edge(from, Target::Error, label);
            }
            search.error(e, &path);
            path.pop();
            continue;
        }
        if seen.stateful() {
            key.clear();
            model.encode(&state, &mut key);
        }
        let (new, id, bytes) = seen.visit(&key);
        if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
            g.add_edge(from, Target::State(id), label);
        }
        if !new {
            search.state_match();
            path.pop();
            continue;
        }
        if seen.stateful() {
            *search.stats.stored_state_bytes.get_or_insert(0) += bytes;
            search.new_state();
        }
        let mut enabled = Vec::new();
        model.enabled(&state, &mut enabled);
        if enabled.is_empty() {
            if let Some(g) = search.graph.as_mut() {
                if model.outcome(&state).stuck {
                    g.stuck.push(id);
                }
            }
            search.terminal(&state, &path);
            path.pop();
            continue;
        }
        stack.push(Frame { state, id, enabled, next: 0 });
    }
}

/// Expands breadth-first to a frontier, then walks the frontier's subtrees in parallel.
fn parallel<M: Model>(search: &mut Search<'_, M>, initial: M::State, stateful: bool, threads: usize) {
    let model = search.model;
    let shared = Shared::new(search.options.hash_compact);
    let mut key = Vec::new();
    if stateful {
        model.encode(&initial, &mut key);
        let (_, bytes) = shared.insert(&key);
        *search.stats.stored_state_bytes.get_or_insert(0) += bytes;
        search.new_state();
    }
    let mut frontier: VecDeque<(M::State, Vec<Choice>)> = VecDeque::from([(initial, Vec::new())]);
    let mut enabled = Vec::new();
    while frontier.len() < 256 * threads && !search.stopped() {
        let Some((state, path)) = frontier.pop_front() else { break };
        enabled.clear();
        model.enabled(&state, &mut enabled);
        if enabled.is_empty() {
            search.terminal(&state, &path);
            continue;
        }
        for &c in &enabled {
            let mut next = state.clone();
            let mut p = path.clone();
            p.push(c);
            search.transition(p.len());
            if let Some(u) = search.stats.unique_transitions.as_mut() {
                *u += 1;
            }
            if let Err(e) = model.step(&mut next, c) {
                search.error(e, &p);
                continue;
            }
            if stateful {
                key.clear();
                model.encode(&next, &mut key);
                let (new, bytes) = shared.insert(&key);
                if !new {
                    search.state_match();
                    continue;
                }
                *search.stats.stored_state_bytes.get_or_insert(0) += bytes;
                search.new_state();
            }
            frontier.push_back((next, p));
        }
    }
    let seed = search.seed();
    let workers: Vec<Search<'_, M>> = frontier
        .into_par_iter()
        .with_max_len(1)
        .map(|(state, path)| {
            let mut w = seed.worker();
            if stateful {
                w.stats.unique_transitions = Some(0);
                w.stats.stored_state_bytes = Some(0);
                w.stats.revisits = Some(0);
            }
            let mut seen = if stateful { Seen::Shared(&shared) } else { Seen::Nothing { nodes: 0 } };
            walk(&mut w, &mut seen, state, 0, path);
            w
        })
        .collect();
    for w in workers {
        search.absorb(w);
    }
}
