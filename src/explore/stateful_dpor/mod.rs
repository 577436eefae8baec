//! `stateful-dpor`: the stateful DPOR of Trimananda et al. (VMCAI 2022) for cyclic state spaces.
//!
//! The paper's Algorithms 1-5, over any [`Model`]:
//! - **Explore-all** (Alg. 1): after the first exploration, every state whose `backtrack` set has
//!   grown beyond its `done` set is explored again, until none is left.
//! - **Explore** (Alg. 2): picks events from `backtrack(s) \ done(s)` (a state entered with none
//!   takes the first unexplored event after the one that led there, round-robin as IoTCheck's
//!   listener does; `lowest_first` takes the lowest-numbered), records each transition in
//!   the **state transition graph** R, and ends an execution at a state of the **history** H
//!   (states of completed executions), at a **full cycle** (Alg. 4: a revisit of a state of the
//!   current execution after every event enabled along the cycle has fired in it), at an error,
//!   or where nothing is enabled. A revisit that is not a full cycle continues, re-firing an
//!   already done event when needed.
//! - **Backtracking from the graph** (Alg. 3) and **backwards DFS** (Alg. 5): backtrack points are
//!   set along every path of R that reaches a transition, not only along the current stack, with
//!   conflicts tracked per location (accesses that conflicted are dropped, the others go on).
//! - **Summaries** (Appendix D): each state keeps the (event, remaining accesses) pairs the
//!   backwards search has carried through it. A pair already in a state's summary stops the
//!   search there, and a new edge into a known state replays that state's summary through the
//!   new edge instead of re-walking everything reachable from it. Summaries are bitsets over
//!   dense pair ids, crossed an edge a word at a time (summary.rs); reads of objects no edge
//!   writes yet are left out of the pairs until one does (they conflict with nothing). The
//!   search is queued and runs only when Explore is about to read a backtrack set it could still
//!   change ([`Run::choice_settled`]), on entering a state or on coming back to one; Explore-all
//!   takes the lowest state first. So no count depends on when the search runs (`eager_search`
//!   runs it after every transition, for the tests that check this), and the searches of many
//!   transitions reach a state together.
//! - **Memos** (exact, for speed): what a word of conflicting pairs gives past an edge label
//!   (summary.rs), and, where summaries are long, what a whole summary gives past a label at a
//!   state match ([`Run::cross_whole`]): states share few distinct summaries.
//!
//! Enable flags: besides the model's accesses, each transition reads its own choice's flag and
//! writes the flag of every choice whose enabledness it changes (the paper's assumption on
//! enabling and disabling, Section 3), so dependence through enabling holds on any model.
//!
//! Ablations, to show what each part is for (each misses errors on some input; see
//! fixtures/events): `no_full_cycle` ends an execution at any revisit (Section 4.1);
//! `no_match_update` sets no backtrack points at a state match (4.2); `no_graph_backtrack`
//! looks back only along the current stack (4.3); `no_per_location` stops at the first
//! conflicting transition as single-access DPOR does (4.4). `no_summaries` runs Algorithms 3 and
//! 5 literally (exponential in the worst case; for cross-checking on small models).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::explore::graph::Target;
use crate::explore::{Search, Strategy};
use crate::model::{Access, Accesses, Choice, Model};

mod backwards;
mod literal;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod stored;
/// Public for the unit tests in tests/it/unit/ only.
#[doc(hidden)]
pub mod summary;

use super::sets::{first_bit, first_bit_from, for_each_bit, SetArena, Slot};
use stored::{Chunks, KEEP_EVERY};
use summary::{MaxQueue, PairId, Pairs, Summaries, WholeCrossings, NONE};

/// The `stateful-dpor` strategy; all switches off is the paper's algorithm with summaries.
#[derive(Clone, Debug, Default)]
pub struct StatefulDpor {
    /// End an execution at any state already on it (no full-cycle proviso).
    pub no_full_cycle: bool,
    /// Backwards search along the current stack only (no other path of the graph).
    pub no_graph_backtrack: bool,
    /// Treat a transition as one access: stop at its first conflicting predecessor.
    pub no_per_location: bool,
    /// Do not update backtrack sets from the graph when an execution reaches a known state.
    pub no_match_update: bool,
    /// Literal Algorithms 3 and 5 (path-set DFS, forward reachability) instead of summaries.
    pub no_summaries: bool,
    /// Run the backwards search at once after every transition, as the paper's Explore calls
    /// it, rather than when a backtrack set it could change is read. Slower; every count must
    /// be the same (tests compare the two).
    pub eager_search: bool,
    /// A new state fires its lowest-numbered unexplored event. By default it fires the first
    /// unexplored event after the one that led there, in the cyclic order of events (see
    /// [`Run::enter`]).
    pub lowest_first: bool,
}

impl StatefulDpor {
    pub fn new() -> Self {
        Self::default()
    }
}

/// Pairs there must be before whole-summary crossings are remembered (see [`Run::cross_whole`]).
const WHOLE_MEMO_PAIRS: usize = 8 * 64;

/// Sets per state (see [`Run::sets`]), at these slots of the state's block.
const SETS: usize = 4;
/// enabled(n).
const ENABLED: Slot = Slot(0);
/// backtrack(n).
const BACKTRACK: Slot = Slot(1);
/// done(n).
const DONE: Slot = Slot(2);
/// The events with an edge out of n.
const OUT_EDGES: Slot = Slot(3);

/// Access object of choice `c`'s enable flag, numbered down from the top so as not to meet the
/// model's own (dense, small) object ids.
fn flag_object(c: Choice) -> u32 {
    u32::MAX - c
}

/// A visited state: the model's state and its place in the graph and on the current execution.
/// Its per-state sets (enabled, backtrack, done, summary) are bitsets in the run's arenas, so
/// that a new state costs no allocation beyond the model's own.
struct Node<S> {
    /// The model's state, where kept (see stored.rs): s0, every [`KEEP_EVERY`]-th state by
    /// `depth`, and the states of the current Explore's top [`stored::FRAMES_KEPT`] frames.
    state: Option<S>,
    /// The state's encoding as chunk numbers ([`Chunks`]): what a new state is matched against.
    code: Box<[u32]>,
    /// Depth in the first-discovery tree (`parent`).
    depth: u32,
    /// In the history H (visited by a completed execution).
    in_history: bool,
    /// First position of this state in the current execution S ([`NONE`]: not on it).
    s_pos: u32,
    /// How the state was first reached, (state, event), for schedules; [`NONE`] for s0.
    parent: (u32, Choice),
    /// Edges into and out of this state, in creation order (linked through [`Edge`]); the
    /// first in-edge is in [`Run::first_in`].
    last_in: u32,
    first_out: u32,
    last_out: u32,
    /// Next state whose encoding has the same hash.
    same_hash: u32,
}

/// A transition of R. Erroneous transitions lead nowhere ([`NONE`]) but are kept: their accesses
/// must still set backtrack points, and later paths into their source must see them.
struct Edge {
    src: u32,
    dst: u32,
    /// (event, accesses) as a pair of [`Pairs`]: what the backwards search starts with.
    label: PairId,
    /// The label's row of memoized meets.
    row: u32,
    next_in: u32,
    next_out: u32,
}

/// The search's working data (one run).
struct Run<'a, M: Model> {
    opts: StatefulDpor,
    model: &'a M,
    nodes: Vec<Node<M::State>>,
    /// Per state, its first in-edge, and its slot in the backwards search's deltas ([`NONE`]:
    /// not queued). Apart from [`Node`] (which holds the model's state) because the backwards
    /// search reads nothing else of a state: a flood touches many states, each a cache miss.
    first_in: Vec<u32>,
    queued: Vec<u32>,
    /// Hash of a state's encoding -> the last state created with it (others via `same_hash`).
    index: FxHashMap<u64, u32>,
    edges: Vec<Edge>,
    pairs: Pairs,
    /// Per state, enabled(s), backtrack(s), done(s) and the events with an edge out of s in R
    /// (not done(s): a re-fire takes a done event out of it).
    sets: SetArena<SETS>,
    /// Per state, its Appendix D summary: the pairs the backwards search has carried through it.
    summaries: Summaries,
    /// States whose summary gained pairs not yet carried through their in-edges (a work list
    /// of states rather than of pairs: a state's new pairs cross each edge together). Latest
    /// discovered first: the search runs backwards and states are discovered forwards, so a state
    /// tends to wait until its successors have brought it their pairs, and carries them all at
    /// once (fewer crossings than last in, first out or first in, first out).
    queue: MaxQueue,
    /// Those new pairs, per queued state's slot; slots are reused.
    deltas: Vec<Vec<u64>>,
    free_deltas: Vec<u32>,
    /// Scratch bitset: what is being carried.
    carry: Vec<u64>,
    /// The words of `carry` that are not zero.
    carry_words: Vec<u32>,
    /// Objects first written by an edge created since the last backwards search.
    fresh_writes: Vec<u32>,
    /// The current execution S (edges), reset when an execution ends.
    exec: Vec<u32>,
    /// States whose backtrack set grew: candidates for Explore-all, lowest (earliest
    /// discovered) first. A fixed order (Algorithm 1 leaves it open) that does not depend on
    /// when the backwards searches ran, so neither does anything else Explore does.
    dirty: BinaryHeap<Reverse<u32>>,
    /// A backwards search is queued. It runs only when a backtrack set is about to be read that
    /// it could still change (see [`Run::choice_settled`]), so the searches of many transitions
    /// run as one and a state carries what they bring it at once.
    search_queued: bool,
    /// Edges from the root of the current Explore to the top frame (for `no_graph_backtrack`).
    stack_edges: Vec<u32>,
    scratch_enc: Vec<u32>,
    /// A successor that matched a known state (or failed), kept for its buffers: the next
    /// step is computed into it, so only a new state costs an allocation.
    scratch_state: Option<M::State>,
    /// The last transition's observations ([`Model::step_observing`]), drained at once.
    observed: Vec<crate::model::ModelError>,
    scratch_en: Vec<Choice>,
    scratch_acc: Accesses,
    scratch_bits: Vec<u64>,
    /// In-edges of the state whose new pairs are being carried back: (source, label, row).
    scratch_in: Vec<[u32; 3]>,
    /// What a crossing's conflicting pairs bring: the pairs that go on past the edge, and the
    /// events to backtrack for (`cw` words), gathered so that each lands in the source state
    /// once per crossing rather than once per pair. Kept empty between crossings.
    hit_pairs: Vec<u64>,
    hit_events: Vec<u64>,
    /// The words of `hit_pairs` the crossing made non-zero.
    hit_touched: Vec<u32>,
    /// What crossing a whole summary through an edge label gave (see [`Run::cross_whole`]).
    whole_crossings: WholeCrossings,
    /// Events re-fired past revisits in the current execution (for the cycle proviso fallback).
    refires: usize,
    /// Global position of the current execution's first edge: positions below it belong to
    /// earlier executions, so the two tables below never need clearing.
    exec_base: u64,
    /// Per event, the global position of the last edge of S that fired it (Algorithm 4 and the
    /// re-fire choice in O(events) instead of a walk over S per revisit).
    fired_at: Vec<u64>,
    /// Per event, the global position of the last state of S (position p: after p edges) in
    /// which it is enabled.
    enabled_at: Vec<u64>,
    /// Per state, the pairs of its blocked transitions (see [`Run::look_back_from_blocked`]),
    /// kept only where no summary stands for them (`no_summaries`, `no_graph_backtrack`): a
    /// state match replays them from every state reachable from the matched one.
    blocked_pairs: FxHashMap<u32, Vec<PairId>>,
    /// [`Model::enabling_only_at_root`] (see [`Run::add_own_flag_read`]).
    own_flag_redundant: bool,
    /// The chunks of the stored encodings.
    chunks: Chunks,
    scratch_ids: Vec<u32>,
}

impl<M: Model> Strategy<M> for StatefulDpor {
    fn name(&self) -> &'static str {
        "stateful-dpor"
    }

    fn run(&mut self, search: &mut Search<'_, M>) {
        let a = search.options.ablation;
        self.no_full_cycle |= a.no_full_cycle;
        self.no_graph_backtrack |= a.no_graph_backtrack;
        self.no_per_location |= a.no_per_location;
        self.no_match_update |= a.no_match_update;
        self.no_summaries |= a.no_summaries;
        self.lowest_first |= a.lowest_first;
        let model = search.model;
        let k = model.choices() as usize;
        let mut run = Run {
            opts: self.clone(),
            model,
            nodes: Vec::new(),
            first_in: Vec::new(),
            queued: Vec::new(),
            index: FxHashMap::default(),
            edges: Vec::new(),
            pairs: Pairs::new(self.no_per_location),
            sets: SetArena::new(k),
            summaries: Summaries::default(),
            queue: MaxQueue::default(),
            deltas: Vec::new(),
            free_deltas: Vec::new(),
            carry: Vec::new(),
            carry_words: Vec::new(),
            fresh_writes: Vec::new(),
            exec: Vec::new(),
            dirty: BinaryHeap::new(),
            search_queued: false,
            stack_edges: Vec::new(),
            scratch_enc: Vec::new(),
            scratch_state: None,
            observed: Vec::new(),
            scratch_en: Vec::new(),
            scratch_acc: Accesses::new(),
            scratch_bits: Vec::new(),
            scratch_in: Vec::new(),
            hit_pairs: Vec::new(),
            hit_events: vec![0; k.div_ceil(64).max(1)],
            hit_touched: Vec::new(),
            whole_crossings: WholeCrossings::default(),
            refires: 0,
            // Position 0 is "never": real positions start at 1.
            exec_base: 1,
            fired_at: vec![0; k],
            enabled_at: vec![0; k],
            blocked_pairs: FxHashMap::default(),
            own_flag_redundant: model.enabling_only_at_root(),
            chunks: Chunks::default(),
            scratch_ids: Vec::new(),
        };
        let (s0, _) = run.intern(model.initial(), (NONE, 0), search);
        // Algorithm 1: explore from s0, then from every state left with unexplored backtrack points.
        run.explore(s0, search);
        run.finish_search(search);
        while let Some(Reverse(n)) = run.dirty.pop() {
            // Most entries are stale (explored since): poll, as no transition may come for long.
            if search.poll() {
                break;
            }
            if run.pending(n).is_some() {
                run.explore(n, search);
                run.finish_search(search);
            }
        }
        search.stats.unique_transitions = Some(run.edges.len() as u64);
        if std::env::var_os("TRACEPOR_PHASES").is_some() {
            run.print_sizes();
        }
        run.shortest_schedules(search);
    }
}

impl<'a, M: Model> Run<'a, M> {
    /// With `TRACEPOR_PHASES` set: what the search holds, on stderr (docs/reductions-homes.md).
    fn print_sizes(&mut self) {
        let (pairs, lists, rows) = self.pairs.sizes();
        let (stride, distinct, bits, nonzero) = self.summaries.sizes();
        eprintln!(
            "stateful-dpor sizes: states {} edges {} pairs {} access lists {} rows {} summary words/state {} \
             distinct summaries {} pairs set {} non-zero words {} chunks {} states kept {} summary MiB {:.0} edge MiB {:.0} node MiB {:.0} (without the model's heap)",
            self.nodes.len(),
            self.edges.len(),
            pairs,
            lists,
            rows,
            stride,
            distinct,
            bits,
            nonzero,
            self.chunks.len(),
            self.nodes.iter().filter(|n| n.state.is_some()).count(),
            (self.nodes.len() * stride * 8) as f64 / 1048576.0,
            (self.edges.len() * std::mem::size_of::<Edge>()) as f64 / 1048576.0,
            (self.nodes.len() * std::mem::size_of::<Node<M::State>>()) as f64 / 1048576.0,
        );
    }

    /// The node of `state`, created if new (counted as a state).
    fn intern(&mut self, state: M::State, parent: (u32, Choice), search: &mut Search<'_, M>) -> (u32, bool) {
        // The index keeps hashes of encodings; a hit is confirmed by the chunk numbers.
        self.scratch_enc.clear();
        self.model.encode(&state, &mut self.scratch_enc);
        let h = crate::model::hash_words(&self.scratch_enc);
        let head = self.index.get(&h).copied().unwrap_or(NONE);
        if let Some(cand) = self.find(head) {
            self.scratch_state = Some(state);
            return (cand, false);
        }
        let code = self.chunks.store(&self.scratch_enc);
        let depth = if parent.0 == NONE { 0 } else { self.nodes[parent.0 as usize].depth + 1 };
        let n = self.nodes.len() as u32;
        self.index.insert(h, n);
        self.scratch_en.clear();
        self.model.enabled(&state, &mut self.scratch_en);
        self.sets.push_state();
        for &c in &self.scratch_en {
            self.sets.insert(n, ENABLED, c);
        }
        self.summaries.push_state();
        *search.stats.stored_state_bytes.get_or_insert(0) += 4 * code.len() as u64;
        if let Some(g) = search.graph.as_mut() {
            g.note_state(n);
        }
        self.nodes.push(Node {
            state: Some(state),
            code,
            depth,
            in_history: false,
            s_pos: NONE,
            parent,
            last_in: NONE,
            first_out: NONE,
            last_out: NONE,
            same_hash: head,
        });
        self.first_in.push(NONE);
        self.queued.push(NONE);
        self.queue.reserve(self.nodes.len());
        search.new_state();
        (n, true)
    }

    /// The stored state whose encoding is `scratch_enc`, among those of hash chain `cand`.
    fn find(&mut self, mut cand: u32) -> Option<u32> {
        if cand == NONE || !self.chunks.lookup(&self.scratch_enc, &mut self.scratch_ids) {
            return None;
        }
        while cand != NONE {
            if *self.nodes[cand as usize].code == *self.scratch_ids {
                return Some(cand);
            }
            cand = self.nodes[cand as usize].same_hash;
        }
        None
    }

    /// Makes sure state `n`'s full state is there: `reached`, the state the last step
    /// computed (equal to `n`'s), else rebuilt from its nearest kept ancestor.
    fn ensure(&mut self, n: u32, reached: Option<M::State>) {
        if self.nodes[n as usize].state.is_none() {
            let state = match reached {
                Some(s) => s,
                None => self.rebuild(n),
            };
            self.nodes[n as usize].state = Some(state);
        } else if reached.is_some() {
            self.scratch_state = reached;
        }
    }

    /// Lets state `n`'s full state go, unless it is one to keep (see stored.rs): only a cost,
    /// as [`Run::ensure`] rebuilds it where needed.
    fn let_go(&mut self, n: u32) {
        let node = &mut self.nodes[n as usize];
        if node.depth % KEEP_EVERY != 0 && node.state.is_some() {
            self.scratch_state = node.state.take();
        }
    }

    /// State `n` rebuilt by replaying its discovery steps from its nearest kept ancestor.
    fn rebuild(&self, n: u32) -> M::State {
        let mut steps = Vec::new();
        let mut m = n;
        while self.nodes[m as usize].state.is_none() {
            let (p, c) = self.nodes[m as usize].parent;
            steps.push(c);
            m = p;
        }
        let mut s = self.nodes[m as usize].state.clone().expect("s0 keeps its state");
        for &c in steps.iter().rev() {
            // A discovery step led to a state, so it replays without an error.
            let ok = self.model.step(&mut s, c);
            debug_assert!(ok.is_ok(), "a discovery step replays");
        }
        #[cfg(debug_assertions)]
        {
            let mut enc = Vec::new();
            self.model.encode(&s, &mut enc);
            let mut ids = Vec::new();
            assert!(
                self.chunks.lookup(&enc, &mut ids) && *ids == *self.nodes[n as usize].code,
                "rebuilt state differs"
            );
        }
        s
    }

    /// The state of a frame (held, so kept).
    fn state_of(&self, n: u32) -> &M::State {
        self.nodes[n as usize].state.as_ref().expect("a held state is kept")
    }

    /// An event in backtrack(n) \ done(n), lowest first (only enabled events are ever added).
    #[inline]
    fn pending(&self, n: u32) -> Option<Choice> {
        let (en, bt, done) = (self.sets.get(n, ENABLED), self.sets.get(n, BACKTRACK), self.sets.get(n, DONE));
        first_bit((0..en.len()).map(|i| en[i] & bt[i] & !done[i]))
    }

    fn add_backtrack(&mut self, n: u32, e: Choice) {
        if self.sets.insert(n, BACKTRACK, e) && !self.sets.contains(n, DONE, e) {
            self.dirty.push(Reverse(n));
        }
    }

    /// Adds everything enabled at `n` to backtrack(n), lowest first.
    fn add_all_enabled(&mut self, n: u32) {
        for i in 0..self.sets.width() {
            let mut x = self.sets.get(n, ENABLED)[i];
            while x != 0 {
                let b = x.trailing_zeros();
                x &= x - 1;
                self.add_backtrack(n, i as Choice * 64 + b);
            }
        }
    }

    /// The schedule from s0 to `n`, along first-discovery parents.
    fn schedule_to(&self, mut n: u32) -> Vec<Choice> {
        let mut path = Vec::new();
        loop {
            let (p, c) = self.nodes[n as usize].parent;
            if p == NONE {
                break;
            }
            path.push(c);
            n = p;
        }
        path.reverse();
        path
    }

    /// Replaces each error's and deadlock's schedule by a shortest path to it in R (breadth
    /// first from s0), as SPIN's `-i` and JPF's breadth-first search give short trails: the
    /// depth-first Explore reaches errors along long paths. R holds every state and transition
    /// the search stored, so the shortest path exists and replays.
    fn shortest_schedules(&self, search: &mut Search<'_, M>) {
        if self.nodes.is_empty() || (search.found.error_count() == 0 && search.found.deadlocks() == 0) {
            return;
        }
        // Parent edge of each state on a shortest path from s0.
        let mut parent = vec![NONE; self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        let mut queue = std::collections::VecDeque::from([0u32]);
        seen[0] = true;
        while let Some(n) = queue.pop_front() {
            let mut t = self.nodes[n as usize].first_out;
            while t != NONE {
                let d = self.edges[t as usize].dst;
                if d != NONE && !seen[d as usize] {
                    seen[d as usize] = true;
                    parent[d as usize] = t;
                    queue.push_back(d);
                }
                t = self.edges[t as usize].next_out;
            }
        }
        let path_to = |mut n: u32| {
            let mut path = Vec::new();
            while parent[n as usize] != NONE {
                let t = parent[n as usize];
                path.push(self.pairs.event(self.edges[t as usize].label));
                n = self.edges[t as usize].src;
            }
            path.reverse();
            path
        };
        // Each replay costs a schedule's length in steps: each step polls the run's budget after
        // the search (explore/budget.rs), and a schedule whose replay it cuts stays as found.
        let budget = search.wrap_up();
        let late = || budget.poll();
        // The state a schedule reaches, found in R by its encoding.
        let node_of = |schedule: &[Choice]| {
            let mut s = self.model.initial();
            for &c in schedule {
                if budget.poll() {
                    return None;
                }
                self.model.step(&mut s, c).ok()?;
            }
            let mut enc = Vec::new();
            self.model.encode(&s, &mut enc);
            let mut ids = Vec::new();
            if !self.chunks.lookup(&enc, &mut ids) {
                return None;
            }
            let mut cand = self.index.get(&crate::model::hash_words(&enc)).copied().unwrap_or(NONE);
            while cand != NONE {
                if *self.nodes[cand as usize].code == *ids {
                    return Some(cand);
                }
                cand = self.nodes[cand as usize].same_hash;
            }
            None
        };
        for f in search.found.errors_mut() {
            if late() {
                return;
            }
            let Some((&last, before)) = f.schedule.split_last() else { continue };
            if let Some(n) = node_of(before) {
                let mut short = path_to(n);
                if short.len() < before.len() {
                    short.push(last);
                    f.graph_shortest_from = Some(f.schedule.len());
                    f.schedule = short;
                }
            }
        }
        for d in search.found.deadlocks_mut() {
            if late() {
                return;
            }
            if let Some(n) = node_of(&d.schedule) {
                let short = path_to(n);
                if short.len() < d.schedule.len() {
                    d.graph_shortest_from = Some(d.schedule.len());
                    d.schedule = short;
                }
            }
        }
    }

    /// Ends the current execution: its states join the history H.
    fn end_execution(&mut self, current: u32) {
        for i in 0..self.exec.len() {
            let e = &self.edges[self.exec[i] as usize];
            let (src, dst) = (e.src, e.dst);
            for n in [src, dst] {
                if n != NONE {
                    let node = &mut self.nodes[n as usize];
                    node.in_history = true;
                    node.s_pos = NONE;
                }
            }
        }
        let node = &mut self.nodes[current as usize];
        node.in_history = true;
        // An execution of no edge has `current` as its only state (marked for a self-loop).
        node.s_pos = NONE;
        // One past every position the ended execution used (its states go up to len).
        self.exec_base += self.exec.len() as u64 + 1;
        self.exec.clear();
        self.refires = 0;
    }

    /// Records that the state at position `pos` of S (global) is `n`.
    fn note_state_at(&mut self, n: u32, pos: u64) {
        for_each_bit(self.sets.get(n, ENABLED), |c| self.enabled_at[c as usize] = pos);
    }

    /// Appends edge `t` to the current execution S.
    fn push_exec(&mut self, t: u32) {
        let (src, dst) = (self.edges[t as usize].src, self.edges[t as usize].dst);
        if self.exec.is_empty() {
            if self.nodes[src as usize].s_pos == NONE {
                self.nodes[src as usize].s_pos = 0;
            }
            self.note_state_at(src, self.exec_base);
        }
        let ev = self.pairs.event(self.edges[t as usize].label);
        self.fired_at[ev as usize] = self.exec_base + self.exec.len() as u64;
        self.exec.push(t);
        if dst != NONE {
            let len = self.exec.len();
            if self.nodes[dst as usize].s_pos == NONE {
                self.nodes[dst as usize].s_pos = u32::try_from(len).expect("execution shorter than 2^32");
            }
            self.note_state_at(dst, self.exec_base + len as u64);
        }
    }

    /// Whether the current execution has re-fired events past revisits for too long to expect a
    /// full cycle (a bound of our own: the paper's Explore assumes one is always reached).
    fn over_budget(&self) -> bool {
        self.refires > 4 * self.exec.len().min(self.nodes.len()) + 16
    }

    /// Algorithm 4: `t` closes a cycle of the current execution in which every event enabled
    /// along the cycle has fired.
    fn is_full_cycle(&self, t: u32) -> bool {
        let dst = self.edges[t as usize].dst;
        if dst == NONE {
            return false;
        }
        let first = self.nodes[dst as usize].s_pos;
        if first == NONE {
            return false;
        }
        if self.opts.no_full_cycle {
            return true;
        }
        // The cycle is edges first.. of S plus t, through the states at positions first..=len
        // (the last being dst again). An event enabled in one of them was enabled there after
        // position first; it must have fired on an edge at or after first, or be t's.
        let from = self.exec_base + (first as usize).min(self.exec.len()) as u64;
        let t_event = self.pairs.event(self.edges[t as usize].label);
        (0..self.enabled_at.len())
            .all(|x| self.enabled_at[x] < from || self.fired_at[x] >= from || x as Choice == t_event)
    }

    /// The paper's enable flags (Section 3: each event has a location that enabling or
    /// disabling it writes), derived from the enabled sets so that any [`Model`] gets them: the
    /// transition reads its own flag and writes the flag of every choice it enables or disables.
    fn add_flag_accesses(&self, src: u32, dst: u32, c: Choice, acc: &mut Accesses) {
        self.add_own_flag_read(c, acc);
        let (before, after) = (self.sets.get(src, ENABLED), self.sets.get(dst, ENABLED));
        for i in 0..before.len() {
            let mut changed = before[i] ^ after[i];
            while changed != 0 {
                let b = changed.trailing_zeros();
                changed &= changed - 1;
                acc.push(Access { object: flag_object(i as Choice * 64 + b), write: true });
            }
        }
    }

    /// The transition's read of its own enable flag, unless it is redundant: when the model
    /// promises [`Model::enabling_only_at_root`], only transitions out of s0 write a flag, and
    /// each of them writes every object, so a pair with another access conflicts with them
    /// whether it reads the flag or not (the same event, so the same backtrack point), and
    /// nothing goes on past them (no edge enters s0). Anywhere else the flag conflicts with
    /// nothing. A pair whose only access is the flag keeps it (it sets the point at s0).
    /// Carrying the flag made every continuation of a pair past a conflict a new pair
    /// (its event's flag with another event): half the pairs of the thermostat home.
    fn add_own_flag_read(&self, c: Choice, acc: &mut Accesses) {
        if !(self.own_flag_redundant && !acc.is_empty()) {
            acc.push(Access { object: flag_object(c), write: false });
        }
    }

    /// The edge out of `src` for `c`, if taken before.
    fn find_edge(&self, src: u32, c: Choice) -> Option<u32> {
        if !self.sets.contains(src, OUT_EDGES, c) {
            return None;
        }
        let mut t = self.nodes[src as usize].first_out;
        while t != NONE {
            if self.pairs.event(self.edges[t as usize].label) == c {
                return Some(t);
            }
            t = self.edges[t as usize].next_out;
        }
        None
    }

    /// The edge (src, c), created if new.
    fn edge(&mut self, src: u32, c: Choice, dst: u32, acc: &mut Accesses) -> u32 {
        if let Some(t) = self.find_edge(src, c) {
            return t;
        }
        self.sets.insert(src, OUT_EDGES, c);
        acc.sort();
        self.pairs.note_writes(acc, &mut self.fresh_writes);
        let label = self.pairs.intern(c, acc).expect("a transition reads its own flag");
        let row = self.pairs.row(label);
        let t = self.edges.len() as u32;
        self.edges.push(Edge { src, dst, label, row, next_in: NONE, next_out: NONE });
        let s = &mut self.nodes[src as usize];
        if s.last_out == NONE {
            s.first_out = t;
        } else {
            let last = s.last_out;
            self.edges[last as usize].next_out = t;
        }
        self.nodes[src as usize].last_out = t;
        if dst != NONE {
            let last = self.nodes[dst as usize].last_in;
            if last == NONE {
                self.first_in[dst as usize] = t;
            } else {
                self.edges[last as usize].next_in = t;
            }
            self.nodes[dst as usize].last_in = t;
        }
        t
    }

    /// Lines 2-16 of Algorithm 2 on entering `n`. False when the execution ends here (nothing
    /// enabled).
    fn enter(&mut self, n: u32, path: &[Choice], search: &mut Search<'_, M>) -> bool {
        if !self.choice_settled(n) {
            self.finish_search(search);
        }
        if self.pending(n).is_some() {
            return true;
        }
        if self.sets.get(n, ENABLED).iter().all(|&w| w == 0) {
            let state = self.state_of(n);
            if let Some(g) = search.graph.as_mut() {
                if self.model.outcome(state).stuck() {
                    g.stuck.push(n);
                }
            }
            search.terminal(state, path);
            self.end_execution(n);
            return false;
        }
        let (en, done) = (self.sets.get(n, ENABLED), self.sets.get(n, DONE));
        // Algorithm 2 lets Explore take any unexplored event. Taking the one after the event
        // that led here (round-robin, as IoTCheck's listener schedules events fairly) makes an
        // execution cycle through the events and come back to states it has seen: with k
        // independent two-valued events it sees k + 1 states where lowest-first counts through
        // all 2^k (docs/corpus.md measures what this does on the corpus).
        let start = if self.opts.lowest_first { 0 } else { path.last().map_or(0, |&e| e + 1) };
        if let Some(e) = first_bit_from(en.len(), start, |i| en[i] & !done[i]) {
            self.sets.insert(n, BACKTRACK, e);
            return true;
        }
        // Everything here is done, but the execution must go on past this revisit: re-fire the
        // enabled event that fired least recently on this execution, so that every event of a
        // state the execution keeps returning to gets its turn and a full cycle can close.
        let mut best: (i64, Choice) = (i64::MAX, NONE);
        for_each_bit(self.sets.get(n, ENABLED), |e| {
            let at = self.fired_at[e as usize];
            let last = if at >= self.exec_base { (at - self.exec_base) as i64 } else { -1 };
            if best.1 == NONE || last < best.0 {
                best = (last, e);
            }
        });
        self.refires += 1;
        let e = best.1;
        self.sets.remove(n, DONE, e);
        true
    }

    /// Algorithm 2, Explore(root), with an explicit stack of frames.
    fn explore(&mut self, root: u32, search: &mut Search<'_, M>) {
        let mut path = self.schedule_to(root);
        self.exec_base += self.exec.len() as u64 + 1;
        self.exec.clear();
        self.stack_edges.clear();
        let mut frames: Vec<u32> = Vec::new();
        // The top frame was just entered: `enter` made sure its choice is what the finished
        // search would give.
        let mut entered = false;
        self.ensure(root, None);
        if self.enter(root, &path, search) {
            frames.push(root);
            entered = true;
        } else {
            self.let_go(root);
        }
        while let Some(&s) = frames.last() {
            // Polled, not just read: long runs of frames can pop without a transition.
            if search.poll() {
                return;
            }
            if !std::mem::take(&mut entered) && !self.choice_settled(s) {
                // Back at a state after a transition that ended the execution, or a pop.
                self.finish_search(search);
            }
            let Some(b) = self.pending(s) else {
                frames.pop();
                self.let_go(s);
                if !frames.is_empty() {
                    path.pop();
                    self.stack_edges.pop();
                }
                continue;
            };
            self.sets.insert(s, DONE, b);
            self.ensure(s, None);
            // Kept for its buffer: with ghost objects a transition's accesses outgrow the inline ones.
            let mut acc = std::mem::take(&mut self.scratch_acc);
            acc.clear();
            let label =
                search.graph.as_ref().filter(|g| !g.overflowed).map(|_| self.model.describe(self.state_of(s), b));
            let mut next = match self.scratch_state.take() {
                Some(mut x) => {
                    x.clone_from(self.state_of(s));
                    x
                }
                None => self.state_of(s).clone(),
            };
            let result = self.model.step_observing(&mut next, b, Some(&mut acc), &mut self.observed);
            path.push(b);
            search.transition(path.len());
            // Observations (conflicts under `--conflict-mode observe`) are findings of this
            // transition; the path goes on. None is lost by state matching: what a transition
            // observes is a function of its source state, conflict ghost included.
            search.observed(&mut self.observed, &path);
            if let Err(err) = result {
                self.add_own_flag_read(b, &mut acc);
                if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                    g.add_edge(s, Target::Error, label);
                }
                search.error(err, &path);
                path.pop();
                self.scratch_state = Some(next);
                let t = self.edge(s, b, NONE, &mut acc);
                self.scratch_acc = acc;
                self.update_backtrack_set(t, search);
                // Nothing runs after an error, so the conflicts its continuation would reveal
                // never show up: explore everything enabled here instead (as for a blocked step).
                self.add_all_enabled(s);
                self.end_execution(s);
                continue;
            }
            let (dst, fresh) = self.intern(next, (s, b), search);
            self.add_flag_accesses(s, dst, b, &mut acc);
            if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                g.add_edge(s, Target::State(dst), label);
            }
            let t = self.edge(s, b, dst, &mut acc);
            self.scratch_acc = acc;
            // Line 22: events this transition disables are explored here as well.
            for i in 0..self.sets.width() {
                let mut off = self.sets.get(s, ENABLED)[i] & !self.sets.get(dst, ENABLED)[i];
                while off != 0 {
                    let e = i as Choice * 64 + off.trailing_zeros();
                    off &= off - 1;
                    self.add_backtrack(s, e);
                }
            }
            self.update_backtrack_set(t, search);
            if fresh {
                self.look_back_from_blocked(dst, t, search);
            }
            let in_history = self.nodes[dst as usize].in_history;
            if self.exec.is_empty() && dst == s && !in_history {
                // The execution so far is the state `s` alone, which `push_exec` marks only with
                // its first edge: a transition back into `s` is already a revisit of S (a
                // one-state system closes its full cycle with its first transition, as `full`).
                self.nodes[s as usize].s_pos = 0;
                self.note_state_at(s, self.exec_base);
            }
            let revisit = !fresh && !in_history && self.nodes[dst as usize].s_pos != NONE;
            if in_history || (revisit && self.is_full_cycle(t)) {
                self.update_from_graph(t, search);
                if in_history {
                    search.state_match();
                } else {
                    search.end_execution();
                }
                self.end_execution(s);
                path.pop();
                continue;
            }
            if revisit && self.over_budget() {
                // The execution keeps cycling without closing a full cycle (some event is owed by
                // a state it left behind). End it under the classic cycle proviso instead: every
                // state of the execution is expanded fully, which keeps the reduction sound.
                for i in 0..=self.exec.len() {
                    let src = if i < self.exec.len() { self.edges[self.exec[i] as usize].src } else { s };
                    self.add_all_enabled(src);
                }
                self.update_from_graph(t, search);
                search.end_execution();
                self.end_execution(s);
                path.pop();
                continue;
            }
            if revisit {
                self.update_from_graph(t, search);
            }
            self.push_exec(t);
            let reached = self.scratch_state.take();
            self.ensure(dst, reached);
            if self.enter(dst, &path, search) {
                frames.push(dst);
                if let Some(&old) = frames.len().checked_sub(stored::FRAMES_KEPT + 1).map(|i| &frames[i]) {
                    self.let_go(old);
                }
                self.stack_edges.push(t);
                entered = true;
            } else {
                if dst != s {
                    self.let_go(dst);
                }
                path.pop();
            }
        }
    }
}
