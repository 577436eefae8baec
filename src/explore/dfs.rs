//! Depth-first search over every enabled choice: the walk both exhaustive strategies share.
//! With a visited set it is `full` (a state seen before is not expanded again), without one it
//! is `full-stateless` (every interleaving).
//!
//! States are stored whole, or as 64-bit fingerprints with `--hash-compact` (xxh3 of the
//! state's key: with n states stored, the chance that two different states share a
//! fingerprint, so that one is wrongly taken as visited, is about n^2 / 2^65, e.g. 3e-6 for
//! ten million states). Whole keys sit end to end in one arena behind an open-addressing table
//! ([`StateStore`]); fingerprints in an open-addressing set ([`FingerprintSet`]).
//!
//! Models that can undo a step (event models) are walked with one state, stepped and undone in
//! place ([`walk_in_place`]); others keep a copy of the state per depth ([`walk_cloning`]).
//!
//! With `--threads N` the tree is first expanded breadth-first until it has a few hundred frontier
//! nodes per worker (so that work stealing can even out subtrees of very different sizes); rayon's workers then take frontier nodes, each a depth-first search of its
//! own, sharing one visited set. Every reachable state is still expanded exactly once and every
//! interleaving still walked once, so the counts do not depend on the number of threads.

use std::collections::VecDeque;
use std::sync::Mutex;

use rayon::prelude::*;

use super::graph::Target;
use super::Search;
use crate::model::{Choice, Model};

pub fn fingerprint(key: &[u32]) -> u64 {
    // SAFETY: any initialised u32 slice is a valid byte slice of four times its length (u8 has
    // alignment 1); fingerprints only meet fingerprints of the same process, so byte order does
    // not matter. This avoids copying the key on every stored state.
    let bytes = unsafe { std::slice::from_raw_parts(key.as_ptr().cast::<u8>(), std::mem::size_of_val(key)) };
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A table of `n` zero words. Large tables are probed at random, one probe per transition, so
/// on Linux they ask for transparent huge pages: with 4 KiB pages nearly every probe also misses
/// the TLB (and in a VM walks two page tables), which costs more than the probe itself.
fn zeroed_table(n: usize) -> Vec<u64> {
    let table = vec![0u64; n];
    #[cfg(target_os = "linux")]
    if n >= 1 << 18 {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const PAGE: usize = 4096;
        let start = table.as_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let end = start + 8 * n;
        if end > aligned {
            // SAFETY: advice only (no memory is changed or freed), on whole pages of an
            // allocation this function owns; failure just leaves small pages.
            unsafe {
                madvise(aligned as *mut std::ffi::c_void, (end - aligned) / PAGE * PAGE, MADV_HUGEPAGE);
            }
        }
    }
    table
}

/// Entries of the small direct-mapped cache of recently stored or found states that both stores
/// check before their table. Nearly all revisits of `full` go back a few steps (on the 78-event
/// generated model 95% of them reach one of the last 64 states stored: ancestors on the current
/// path), so the cache, small enough to stay in L1/L2, answers them without the table's cache
/// miss. It only holds stored states, so it never changes an answer.
const RECENT: usize = 2048;

/// Whole states, each stored once: keys end to end in one arena (no allocation per state), found
/// through an open-addressing table of `tag << 32 | id + 1` words (0: empty), where the tag is the
/// upper half of the key's hash and the slot comes from the tag ([`slot`]). A probe compares keys
/// only when tags agree, so a lookup costs one table line and, on a hit, one arena line.
pub struct StateStore {
    arena: Vec<u32>,
    /// Length of every key while all have had the same (ids then find keys by multiplying).
    width: Option<usize>,
    /// Start of each key in `arena` and the end of the last, once lengths have differed.
    starts: Vec<usize>,
    #[doc(hidden)]
    pub table: Vec<u64>,
    len: usize,
    /// Table entries of recent states, by the hash's bits above the table's (see [`RECENT`]).
    recent: Box<[u64]>,
}

impl StateStore {
    pub fn new() -> Self {
        StateStore {
            arena: Vec::new(),
            width: None,
            starts: Vec::new(),
            table: vec![0; 1024],
            len: 0,
            recent: vec![0; RECENT].into_boxed_slice(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The key of state `id`.
    pub fn key(&self, id: u32) -> &[u32] {
        let i = id as usize;
        match self.width {
            Some(w) => &self.arena[i * w..(i + 1) * w],
            None => &self.arena[self.starts[i]..self.starts[i + 1]],
        }
    }

    /// The id of `key` (whose [`fingerprint`] is `hash`) when it is stored; reads only, so
    /// parallel workers may look up while nothing is stored (`monitors.rs`).
    pub(crate) fn find(&self, key: &[u32], hash: u64) -> Option<u32> {
        let tag = hash >> 32;
        let mask = self.table.len() - 1;
        let mut i = slot(tag, mask);
        loop {
            let e = self.table[i];
            if e == 0 {
                return None;
            }
            if e >> 32 == tag && self.key((e as u32) - 1) == key {
                return Some((e as u32) - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `key` (whose [`fingerprint`] is `hash`) unless stored already; returns whether it
    /// is new and its id (ids count up from 0 in insertion order).
    pub fn insert(&mut self, key: &[u32], hash: u64) -> (bool, u32) {
        // Keep the load at most 5/8 so that linear probes stay short.
        if 8 * (self.len + 1) > 5 * self.table.len() {
            self.grow();
        }
        let tag = hash >> 32;
        let r = (hash >> 32) as usize % RECENT;
        let e = self.recent[r];
        if e >> 32 == tag && e != 0 && self.key((e as u32) - 1) == key {
            return (false, (e as u32) - 1);
        }
        let mask = self.table.len() - 1;
        let mut i = slot(tag, mask);
        loop {
            let e = self.table[i];
            if e == 0 {
                break;
            }
            if e >> 32 == tag && self.key((e as u32) - 1) == key {
                self.recent[r] = e;
                return (false, (e as u32) - 1);
            }
            i = (i + 1) & mask;
        }
        let id = u32::try_from(self.len).ok().filter(|&id| id < u32::MAX).expect("more than 2^32 - 1 states stored");
        self.table[i] = tag << 32 | (id as u64 + 1);
        self.recent[r] = self.table[i];
        self.push_key(key);
        (true, id)
    }

    /// The bytes storing one more key of `len` words may allocate: the table doubled (the old
    /// one is freed only after the re-hash), the arena or the start list grown (a `Vec` doubles).
    pub(crate) fn growth(&self, len: usize) -> u64 {
        let mut bytes = 0;
        if 8 * (self.len + 1) > 5 * self.table.len() {
            bytes += 16 * self.table.len() as u64;
        }
        if self.arena.len() + len > self.arena.capacity() {
            bytes += 4 * self.arena.capacity().max(len) as u64;
        }
        if self.width.is_none() && self.starts.len() == self.starts.capacity() {
            bytes += 8 * self.starts.capacity().max(4) as u64;
        }
        bytes
    }

    fn push_key(&mut self, key: &[u32]) {
        match self.width {
            None if self.len == 0 && self.starts.is_empty() => self.width = Some(key.len()),
            Some(w) if w != key.len() => {
                // First key of another length: from now on keep where each key starts.
                self.starts = (0..=self.len).map(|i| i * w).collect();
                self.width = None;
            }
            _ => {}
        }
        self.arena.extend_from_slice(key);
        if self.width.is_none() {
            self.starts.push(self.arena.len());
        }
        self.len += 1;
    }

    /// Doubles the table, each entry placed again by its tag alone ([`slot`]): no key is read.
    /// (Re-hashing every key from the arena read all stored states, 400 MB on mytracks after
    /// 160,000 states, between two limit checks: a time limit overshot by that long.)
    fn grow(&mut self) {
        let mut table = zeroed_table(2 * self.table.len());
        let mask = table.len() - 1;
        for &e in self.table.iter().filter(|&&e| e != 0) {
            let mut i = slot(e >> 32, mask);
            while table[i] != 0 {
                i = (i + 1) & mask;
            }
            table[i] = e;
        }
        self.table = table;
    }
}

/// The table slot of a key whose tag (the upper half of its hash) is `tag`, in a table of
/// `mask + 1` entries: from the tag alone, mixed (Fibonacci hashing) so that any table size takes
/// bits of all of it, so that the table doubles without reading keys. Entries in one probe run
/// mostly have different tags, so the tag still spares most key comparisons.
#[inline]
fn slot(tag: u64, mask: usize) -> usize {
    (tag.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}

/// A set of 64-bit fingerprints: open addressing over the fingerprints themselves (0 marks an
/// empty slot, so fingerprint 0 is kept apart).
pub struct FingerprintSet {
    table: Vec<u64>,
    len: usize,
    zero: bool,
    /// Recently stored or found fingerprints (see [`RECENT`]).
    recent: Box<[u64]>,
}

impl FingerprintSet {
    pub fn new() -> Self {
        FingerprintSet { table: vec![0; 1024], len: 0, zero: false, recent: vec![0; RECENT].into_boxed_slice() }
    }

    /// How many fingerprints it holds.
    #[doc(hidden)]
    pub fn len(&self) -> usize {
        self.len + usize::from(self.zero)
    }

    /// Adds `fp`; true when it was not there.
    pub fn insert(&mut self, fp: u64) -> bool {
        if fp == 0 {
            return !std::mem::replace(&mut self.zero, true);
        }
        let r = (fp >> 32) as usize % RECENT;
        if self.recent[r] == fp {
            return false;
        }
        self.recent[r] = fp;
        if 8 * (self.len + 1) > 5 * self.table.len() {
            let bigger = zeroed_table(2 * self.table.len());
            let old = std::mem::replace(&mut self.table, bigger);
            for f in old.into_iter().filter(|&f| f != 0) {
                let i = self.slot(f);
                self.table[i] = f;
            }
        }
        let i = self.slot(fp);
        if self.table[i] == fp {
            return false;
        }
        self.table[i] = fp;
        self.len += 1;
        true
    }

    /// The bytes storing one more fingerprint may allocate (the table doubled).
    fn growth(&self) -> u64 {
        if 8 * (self.len + 1) > 5 * self.table.len() {
            16 * self.table.len() as u64
        } else {
            0
        }
    }

    /// Where `fp` is, or the empty slot where it would go.
    fn slot(&self, fp: u64) -> usize {
        let mask = self.table.len() - 1;
        let mut i = fp as usize & mask;
        while self.table[i] != 0 && self.table[i] != fp {
            i = (i + 1) & mask;
        }
        i
    }
}

/// Approximate bytes per stored state beyond its key: a table word at about 2/3 load.
const ENTRY_OVERHEAD: u64 = 12;

/// The visited set shared by parallel workers: shards, each behind its own lock.
struct Shared {
    whole: Vec<Mutex<StateStore>>,
    compact: Vec<Mutex<FingerprintSet>>,
}

impl Shared {
    fn new(compact: bool) -> Self {
        let n = if compact { 0 } else { 64 };
        Shared {
            whole: (0..n).map(|_| Mutex::new(StateStore::new())).collect(),
            compact: (0..64 - n).map(|_| Mutex::new(FingerprintSet::new())).collect(),
        }
    }

    /// Inserts; true when the state is new. Second value: bytes stored.
    fn insert(&self, key: &[u32]) -> (bool, u64) {
        let h = fingerprint(key);
        // The shard takes the top bits; the table slot mixes all of the upper half (`slot`), or
        // takes the bottom bits (fingerprints): either way it varies within a shard.
        let shard = (h >> 58) as usize;
        if self.compact.is_empty() {
            let mut set = self.whole[shard].lock().unwrap_or_else(|e| e.into_inner());
            (set.insert(key, h).0, 4 * key.len() as u64 + ENTRY_OVERHEAD)
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
    Whole(StateStore),
    Fingerprints(FingerprintSet),
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
            Seen::Whole(store) => {
                let (new, id) = store.insert(key, fingerprint(key));
                (new, id, 4 * key.len() as u64 + ENTRY_OVERHEAD)
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

    /// The bytes recording one more state of `len` words may allocate at once (a table or an
    /// arena doubling): `--max-memory` is checked against them before they are allocated, not
    /// after (a doubling arena passed a limit of 50 MiB by 15%). The shared set of a parallel
    /// search grows by shards, each a small part of it.
    fn growth(&self, len: usize) -> u64 {
        match self {
            Seen::Nothing { .. } | Seen::Shared(_) => 0,
            Seen::Whole(store) => store.growth(len),
            Seen::Fingerprints(set) => set.growth(),
        }
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
        (true, false) => Seen::Whole(StateStore::new()),
        (true, true) => Seen::Fingerprints(FingerprintSet::new()),
    };
    if stateful {
        model.encode(&initial, &mut key);
        let (_, _, bytes) = seen.visit(&key);
        *search.stats.stored_state_bytes.get_or_insert(0) += bytes;
        search.new_state();
    }
    walk(search, &mut seen, initial, 0, Vec::new());
    if let Seen::Whole(store) = &seen {
        debug_assert_eq!(store.len() as u64, search.stats.states.unwrap_or(0));
    }
}

/// Depth-first from `state` (already counted), reached by `path`.
fn walk<M: Model>(search: &mut Search<'_, M>, seen: &mut Seen<'_>, state: M::State, id: u32, path: Vec<Choice>) {
    if search.model.undoable() {
        walk_in_place(search, seen, state, id, path);
    } else {
        walk_cloning(search, seen, state, id, path);
    }
}

/// A depth of [`walk_in_place`]: no state of its own, only where to resume.
struct Mark {
    /// Stored state id (stateful) or node number (stateless), for the state graph.
    id: u32,
    /// Choices below this one have been taken from this depth.
    next: Choice,
    /// Length of the undo log before the step that led here.
    undo_from: usize,
}

/// [`walk_cloning`] for models that can undo a step: one state, stepped forward and undone on
/// the way back, so the stack holds a few words per depth and no step copies or allocates.
/// Choices are taken in the same order (ascending, from the same states), so every count and
/// every schedule found is the same.
fn walk_in_place<M: Model>(
    search: &mut Search<'_, M>,
    seen: &mut Seen<'_>,
    mut state: M::State,
    id: u32,
    mut path: Vec<Choice>,
) {
    let model = search.model;
    let base = path.len();
    let mut key = Vec::new();
    let mut log: Vec<u64> = Vec::new();
    if model.next_enabled(&state, 0).is_none() {
        search.terminal(&state, &path);
        return;
    }
    let mut stack = vec![Mark { id, next: 0, undo_from: 0 }];
    while let Some(top) = stack.last_mut() {
        if search.stopped() {
            break;
        }
        let Some(c) = model.next_enabled(&state, top.next) else {
            let done = stack.pop().expect("not empty");
            if path.len() > base {
                path.pop();
                model.undo(&mut state, &log[done.undo_from..]);
                log.truncate(done.undo_from);
            }
            continue;
        };
        top.next = c + 1;
        let from = top.id;
        let label = search.graph.as_ref().filter(|g| !g.overflowed).map(|_| model.describe(&state, c));
        let undo_from = log.len();
        path.push(c);
        search.transition(path.len());
        if let Some(u) = search.stats.unique_transitions.as_mut() {
            // Each stored state is expanded once, so every edge walked is a new one.
            *u += 1;
        }
        // Every way out below except going deeper takes the step back.
        let back = |state: &mut M::State, log: &mut Vec<u64>, path: &mut Vec<Choice>| {
            model.undo(state, &log[undo_from..]);
            log.truncate(undo_from);
            path.pop();
        };
        if let Err(e) = model.step_logged(&mut state, c, &mut log) {
            if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                g.add_edge(from, Target::Error, label);
            }
            search.error(e, &path);
            back(&mut state, &mut log, &mut path);
            continue;
        }
        let Some(id) = arrive(search, seen, &mut key, &state, from, label) else {
            back(&mut state, &mut log, &mut path);
            continue;
        };
        if model.next_enabled(&state, 0).is_none() {
            end_at(search, &state, id, &path);
            back(&mut state, &mut log, &mut path);
            continue;
        }
        stack.push(Mark { id, next: 0, undo_from });
    }
}

/// A step from state `from` reached `state`: looks it up in the visited set (stateful search)
/// and records the edge for `--dot`. Its id when the search goes on from it (a new state, or
/// any state of a stateless search), None at a state match.
fn arrive<M: Model>(
    search: &mut Search<'_, M>,
    seen: &mut Seen<'_>,
    key: &mut Vec<u32>,
    state: &M::State,
    from: u32,
    label: Option<String>,
) -> Option<u32> {
    if seen.stateful() {
        key.clear();
        search.model.encode(state, key);
        // Stops the search, as the memory limit would, before a doubling passes the limit.
        let growth = seen.growth(key.len());
        if growth > 0 && search.reserve(growth) {
            return None;
        }
    }
    let (new, id, bytes) = seen.visit(key);
    if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
        g.add_edge(from, Target::State(id), label);
    }
    if !new {
        search.state_match();
        return None;
    }
    if seen.stateful() {
        *search.stats.stored_state_bytes.get_or_insert(0) += bytes;
        search.new_state();
    }
    Some(id)
}

/// An execution ends at `state` (nothing enabled): its outcome is recorded.
fn end_at<M: Model>(search: &mut Search<'_, M>, state: &M::State, id: u32, path: &[Choice]) {
    if let Some(g) = search.graph.as_mut() {
        if search.model.outcome(state).stuck() {
            g.stuck.push(id);
        }
    }
    search.terminal(state, path);
}

/// Depth-first from `state` (already counted), reached by `path`, keeping a copy of the state
/// of every depth.
fn walk_cloning<M: Model>(
    search: &mut Search<'_, M>,
    seen: &mut Seen<'_>,
    state: M::State,
    id: u32,
    mut path: Vec<Choice>,
) {
    let model = search.model;
    let base = path.len();
    let mut key = Vec::new();
    let mut observed = Vec::new();
    let mut enabled = Vec::new();
    model.enabled(&state, &mut enabled);
    if enabled.is_empty() {
        search.terminal(&state, &path);
        return;
    }
    let mut stack = vec![Frame { state, id, enabled, next: 0 }];
    let mut spare: Vec<Frame<M::State>> = Vec::new();
    while let Some(top) = stack.last_mut() {
        if search.stopped() {
            break;
        }
        if top.next == top.enabled.len() {
            spare.extend(stack.pop());
            if path.len() > base {
                path.pop();
            }
            continue;
        }
        let c = top.enabled[top.next];
        top.next += 1;
        let from = top.id;
        let label = search.graph.as_ref().filter(|g| !g.overflowed).map(|_| model.describe(&top.state, c));
        // Frames of popped or never-pushed states are reused: no allocation per transition.
        let mut next = match spare.pop() {
            Some(mut f) => {
                f.state.clone_from(&top.state);
                f
            }
            None => Frame { state: top.state.clone(), id, enabled: Vec::new(), next: 0 },
        };
        path.push(c);
        search.transition(path.len());
        if let Some(u) = search.stats.unique_transitions.as_mut() {
            // Each stored state is expanded once, so every edge walked is a new one.
            *u += 1;
        }
        let result = model.step_observing(&mut next.state, c, None, &mut observed);
        search.observed(&mut observed, &path);
        if let Err(e) = result {
            if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                g.add_edge(from, Target::Error, label);
            }
            search.error(e, &path);
            path.pop();
            spare.push(next);
            continue;
        }
        let Some(id) = arrive(search, seen, &mut key, &next.state, from, label) else {
            path.pop();
            spare.push(next);
            continue;
        };
        next.enabled.clear();
        model.enabled(&next.state, &mut next.enabled);
        if next.enabled.is_empty() {
            end_at(search, &next.state, id, &path);
            path.pop();
            spare.push(next);
            continue;
        }
        next.id = id;
        next.next = 0;
        stack.push(next);
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
    let mut observed = Vec::new();
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
            let result = model.step_observing(&mut next, c, None, &mut observed);
            search.observed(&mut observed, &p);
            if let Err(e) = result {
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
            if w.stopped() {
                return w;
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
