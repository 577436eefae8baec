//! `stateful-dpor`: the stateful DPOR of Trimananda et al. (VMCAI 2022) for cyclic state spaces.
//!
//! The paper's Algorithms 1-5, over any [`Model`]:
//! - **Explore-all** (Alg. 1): after the first exploration, every state whose `backtrack` set has
//!   grown beyond its `done` set is explored again, until none is left.
//! - **Explore** (Alg. 2): picks events from `backtrack(s) \ done(s)`, records each transition in
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
//!   new edge instead of re-walking everything reachable from it.
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

use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::explore::graph::Target;
use crate::explore::{Search, Strategy};
use crate::model::{Access, Accesses, Choice, Model};

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
}

impl StatefulDpor {
    pub fn new() -> Self {
        Self::default()
    }
}

/// Access object of choice `c`'s enable flag, numbered down from the top so as not to meet the
/// model's own (dense, small) object ids.
fn flag_object(c: Choice) -> u32 {
    u32::MAX - c
}

/// A small set of choices.
#[derive(Clone, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn with(n: u32) -> Self {
        Bits(vec![0; (n as usize).div_ceil(64)])
    }
    fn has(&self, c: Choice) -> bool {
        self.0.get(c as usize / 64).is_some_and(|w| w >> (c % 64) & 1 == 1)
    }
    /// Adds `c`; true when it was not there.
    fn add(&mut self, c: Choice) -> bool {
        let i = c as usize / 64;
        if i >= self.0.len() {
            self.0.resize(i + 1, 0);
        }
        let had = self.has(c);
        self.0[i] |= 1 << (c % 64);
        !had
    }
    fn remove(&mut self, c: Choice) {
        if let Some(w) = self.0.get_mut(c as usize / 64) {
            *w &= !(1 << (c % 64));
        }
    }
}

/// Id of an interned access list (see [`AccTable`]); the empty list is [`EMPTY`].
type AccId = u32;
const EMPTY: AccId = 0;

/// A summary entry (event, access list id) with its hash precomputed. The hash is the one
/// `FxHashSet<(Choice, Accesses)>` gave the pair, so the summaries iterate in the same order as
/// when they held the lists themselves, and the backtrack points are set in the same order.
#[derive(Clone, Copy)]
struct SumKey {
    hash: u64,
    e: Choice,
    a: AccId,
}

impl PartialEq for SumKey {
    fn eq(&self, o: &Self) -> bool {
        self.e == o.e && self.a == o.a
    }
}
impl Eq for SumKey {}

impl Hash for SumKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// Passes a precomputed hash through.
#[derive(Default)]
struct PreHashed(u64);

impl Hasher for PreHashed {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only SumKey is hashed with PreHashed")
    }
    fn write_u64(&mut self, h: u64) {
        self.0 = h;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Summary = HashSet<SumKey, BuildHasherDefault<PreHashed>>;

/// Interned access lists, so that the backwards search moves ids around instead of cloning and
/// hashing lists, and Algorithm 5's lines 9-16 are computed once per pair of lists.
struct AccTable {
    sets: Vec<Accesses>,
    ids: FxHashMap<Accesses, AccId>,
    /// Per list, (m, p) with Fx's pre-finish hash of (e, list) = e * m + p (Fx adds then
    /// multiplies, so it is affine in its first word); None when that does not hold.
    affine: Vec<Option<(u64, u64)>>,
    /// (edge's list, carried list) -> (conflict, carried list minus the conflicting accesses).
    /// Indexed [edge's list][carried list] for lists below `DENSE` (0: not yet computed, else
    /// rest << 1 | conflict, plus one); the rest in `far`.
    meets: Vec<Vec<u32>>,
    far: FxHashMap<(AccId, AccId), u32>,
}

/// Fx's rotation in `finish` on 64-bit targets; checked at each intern (see `affine`).
const FX_ROTATE: u32 = 26;

/// Lists with ids below this have their meets in a table (at most 4 MiB), not a hash map.
const DENSE: AccId = 1024;

impl AccTable {
    fn new() -> Self {
        let mut t = AccTable {
            sets: Vec::new(),
            ids: FxHashMap::default(),
            affine: Vec::new(),
            meets: Vec::new(),
            far: FxHashMap::default(),
        };
        t.intern(Accesses::new());
        t
    }

    fn intern(&mut self, a: Accesses) -> AccId {
        if let Some(&id) = self.ids.get(&a) {
            return id;
        }
        let id = self.sets.len() as AccId;
        let pre = |e: u32| FxBuildHasher.hash_one((e, &a)).rotate_right(FX_ROTATE);
        let (p, m) = (pre(0), pre(1).wrapping_sub(pre(0)));
        let ok = [2u32, 77, 0xdead_beef].iter().all(|&e| pre(e) == (e as u64).wrapping_mul(m).wrapping_add(p));
        self.affine.push(ok.then_some((m, p)));
        self.ids.insert(a.clone(), id);
        self.sets.push(a);
        id
    }

    /// The memoized meet of lists `mine` (an edge's) and `theirs` (carried), if computed.
    #[inline]
    fn meet_memo(&self, mine: AccId, theirs: AccId) -> Option<(bool, AccId)> {
        let v = if mine < DENSE && theirs < DENSE {
            self.meets.get(mine as usize).and_then(|r| r.get(theirs as usize)).copied().unwrap_or(0)
        } else {
            self.far.get(&(mine, theirs)).copied().unwrap_or(0)
        };
        (v != 0).then(|| ((v - 1) & 1 == 1, (v - 1) >> 1))
    }

    fn set_meet_memo(&mut self, mine: AccId, theirs: AccId, conflict: bool, rest: AccId) {
        let v = (rest << 1 | conflict as u32) + 1;
        if mine < DENSE && theirs < DENSE {
            if self.meets.len() <= mine as usize {
                self.meets.resize(mine as usize + 1, Vec::new());
            }
            let row = &mut self.meets[mine as usize];
            if row.len() <= theirs as usize {
                row.resize(theirs as usize + 1, 0);
            }
            row[theirs as usize] = v;
        } else {
            self.far.insert((mine, theirs), v);
        }
    }

    fn key(&self, e: Choice, a: AccId) -> SumKey {
        let hash = match self.affine[a as usize] {
            Some((m, p)) => (e as u64).wrapping_mul(m).wrapping_add(p).rotate_left(FX_ROTATE),
            None => FxBuildHasher.hash_one((e, &self.sets[a as usize])),
        };
        SumKey { hash, e, a }
    }
}

/// A visited state: the paper's per-state sets, plus its place in the graph.
struct Node<S> {
    state: S,
    /// enabled(s), ascending.
    enabled: Vec<Choice>,
    backtrack: Bits,
    done: Bits,
    /// In the history H (visited by a completed execution).
    in_history: bool,
    /// First position of this state in the current execution S, if on it.
    s_pos: Option<usize>,
    /// How the state was first reached (for schedules).
    parent: Option<(u32, Choice)>,
    in_edges: Vec<u32>,
    out_edges: Vec<u32>,
    /// Appendix D summary: (event to backtrack for, accesses still looking for a conflict).
    summary: Summary,
}

/// A transition of R. Erroneous transitions lead nowhere but are kept: their accesses must still
/// set backtrack points, and later paths into their source must see them.
struct Edge {
    src: u32,
    dst: Option<u32>,
    event: Choice,
    acc: AccId,
}

/// The search's working data (one run).
struct Run<'a, M: Model> {
    opts: StatefulDpor,
    model: &'a M,
    nodes: Vec<Node<M::State>>,
    index: FxHashMap<Vec<u32>, u32>,
    edges: Vec<Edge>,
    edge_of: FxHashMap<(u32, Choice), u32>,
    acc: AccTable,
    /// The backwards search's work list (edge, event, accesses), kept to reuse its buffer.
    work: Vec<(u32, Choice, AccId)>,
    /// The current execution S (edges), reset when an execution ends.
    exec: Vec<u32>,
    /// States whose backtrack set grew: candidates for Explore-all.
    dirty: Vec<u32>,
    /// Edges from the root of the current Explore to the top frame (for `no_graph_backtrack`).
    stack_edges: Vec<u32>,
    scratch_enc: Vec<u32>,
    scratch_en: Vec<Choice>,
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
        let model = search.model;
        let mut run = Run {
            opts: self.clone(),
            model,
            nodes: Vec::new(),
            index: FxHashMap::default(),
            edges: Vec::new(),
            edge_of: FxHashMap::default(),
            acc: AccTable::new(),
            work: Vec::new(),
            exec: Vec::new(),
            dirty: Vec::new(),
            stack_edges: Vec::new(),
            scratch_enc: Vec::new(),
            scratch_en: Vec::new(),
            refires: 0,
            // Position 0 is "never": real positions start at 1.
            exec_base: 1,
            fired_at: vec![0; model.choices() as usize],
            enabled_at: vec![0; model.choices() as usize],
        };
        let (s0, _) = run.intern(model.initial(), None, search);
        // Algorithm 1: explore from s0, then from every state left with unexplored backtrack points.
        run.explore(s0, search);
        while let Some(n) = run.dirty.pop() {
            // Most entries are stale (explored since): poll, as no transition may come for long.
            if search.poll() {
                break;
            }
            if run.pending(n).is_some() {
                run.explore(n, search);
            }
        }
        search.stats.unique_transitions = Some(run.edges.len() as u64);
    }
}

impl<'a, M: Model> Run<'a, M> {
    /// The node of `state`, created if new (counted as a state).
    fn intern(&mut self, state: M::State, parent: Option<(u32, Choice)>, search: &mut Search<'_, M>) -> (u32, bool) {
        self.scratch_enc.clear();
        self.model.encode(&state, &mut self.scratch_enc);
        if let Some(&n) = self.index.get(&self.scratch_enc) {
            return (n, false);
        }
        let n = self.nodes.len() as u32;
        self.index.insert(self.scratch_enc.clone(), n);
        let mut enabled = Vec::new();
        self.model.enabled(&state, &mut enabled);
        let k = self.model.choices();
        *search.stats.stored_state_bytes.get_or_insert(0) += 4 * self.scratch_enc.len() as u64;
        if let Some(g) = search.graph.as_mut() {
            g.note_state(n);
        }
        self.nodes.push(Node {
            state,
            enabled,
            backtrack: Bits::with(k),
            done: Bits::with(k),
            in_history: false,
            s_pos: None,
            parent,
            in_edges: Vec::new(),
            out_edges: Vec::new(),
            summary: Summary::default(),
        });
        search.new_state();
        (n, true)
    }

    /// An event in backtrack(n) \ done(n), lowest first.
    fn pending(&self, n: u32) -> Option<Choice> {
        let node = &self.nodes[n as usize];
        node.enabled.iter().copied().find(|&e| node.backtrack.has(e) && !node.done.has(e))
    }

    fn add_backtrack(&mut self, n: u32, e: Choice) {
        let node = &mut self.nodes[n as usize];
        if node.backtrack.add(e) && !node.done.has(e) {
            self.dirty.push(n);
        }
    }

    /// The schedule from s0 to `n`, along first-discovery parents.
    fn schedule_to(&self, mut n: u32) -> Vec<Choice> {
        let mut path = Vec::new();
        while let Some((p, c)) = self.nodes[n as usize].parent {
            path.push(c);
            n = p;
        }
        path.reverse();
        path
    }

    /// Ends the current execution: its states join the history H.
    fn end_execution(&mut self, current: u32) {
        for i in 0..self.exec.len() {
            let e = &self.edges[self.exec[i] as usize];
            let (src, dst) = (e.src, e.dst);
            for n in std::iter::once(src).chain(dst) {
                let node = &mut self.nodes[n as usize];
                node.in_history = true;
                node.s_pos = None;
            }
        }
        self.nodes[current as usize].in_history = true;
        // One past every position the ended execution used (its states go up to len).
        self.exec_base += self.exec.len() as u64 + 1;
        self.exec.clear();
        self.refires = 0;
    }

    /// Records that the state at position `pos` of S (global) is `n`.
    fn note_state_at(&mut self, n: u32, pos: u64) {
        for &x in &self.nodes[n as usize].enabled {
            self.enabled_at[x as usize] = pos;
        }
    }

    /// Appends edge `t` to the current execution S.
    fn push_exec(&mut self, t: u32) {
        let (src, dst) = (self.edges[t as usize].src, self.edges[t as usize].dst);
        if self.exec.is_empty() {
            self.nodes[src as usize].s_pos.get_or_insert(0);
            self.note_state_at(src, self.exec_base);
        }
        let ev = self.edges[t as usize].event;
        self.fired_at[ev as usize] = self.exec_base + self.exec.len() as u64;
        self.exec.push(t);
        if let Some(d) = dst {
            let len = self.exec.len();
            self.nodes[d as usize].s_pos.get_or_insert(len);
            self.note_state_at(d, self.exec_base + len as u64);
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
        let Some(dst) = self.edges[t as usize].dst else {
            return false;
        };
        let Some(first) = self.nodes[dst as usize].s_pos else {
            return false;
        };
        if self.opts.no_full_cycle {
            return true;
        }
        // The cycle is edges first.. of S plus t, through the states at positions first..=len
        // (the last being dst again). An event enabled in one of them was enabled there after
        // position first; it must have fired on an edge at or after first, or be t's.
        let from = self.exec_base + first.min(self.exec.len()) as u64;
        let t_event = self.edges[t as usize].event;
        (0..self.enabled_at.len())
            .all(|x| self.enabled_at[x] < from || self.fired_at[x] >= from || x as Choice == t_event)
    }

    /// Lines 9-16 of Algorithm 5 for predecessor `tb`: sets the backtrack point if `tb` conflicts
    /// with the accesses `a` carried for event `e`, and returns what goes on past `tb`.
    fn meet(&mut self, tb: u32, e: Choice, a: AccId) -> (Choice, AccId) {
        let (src, tb_event, tb_acc) = {
            let edge = &self.edges[tb as usize];
            (edge.src, edge.event, edge.acc)
        };
        let (conflict, rest) = match self.acc.meet_memo(tb_acc, a) {
            Some(r) => r,
            None => {
                let (mine, theirs) = (&self.acc.sets[tb_acc as usize], &self.acc.sets[a as usize]);
                let clash = |x: &Access| mine.iter().any(|y| y.object == x.object && (x.write || y.write));
                let conflict = theirs.iter().any(clash);
                let rest: Accesses = if conflict && self.opts.no_per_location {
                    Accesses::new()
                } else {
                    theirs.iter().copied().filter(|x| !clash(x)).collect()
                };
                let rest = self.acc.intern(rest);
                self.acc.set_meet_memo(tb_acc, a, conflict, rest);
                (conflict, rest)
            }
        };
        if !conflict {
            return (e, rest);
        }
        if self.nodes[src as usize].enabled.binary_search(&e).is_ok() {
            self.add_backtrack(src, e);
        } else {
            // The event was not enabled there: the paper adds everything enabled.
            for i in 0..self.nodes[src as usize].enabled.len() {
                let x = self.nodes[src as usize].enabled[i];
                self.add_backtrack(src, x);
            }
        }
        (tb_event, rest)
    }

    /// Algorithm 5, UpdateBacktrackSet(t).
    fn update_backtrack_set(&mut self, t: u32, search: &mut Search<'_, M>) {
        let (src, e, a) = {
            let edge = &self.edges[t as usize];
            (edge.src, edge.event, edge.acc)
        };
        if self.opts.no_graph_backtrack {
            self.stack_walk(None, e, a);
        } else if self.opts.no_summaries {
            self.literal_dfs(t, e, a, search);
        } else {
            let mut work = std::mem::take(&mut self.work);
            self.arrive(src, e, a, &mut work);
            self.drain(work, search);
        }
    }

    /// Summary search: the pair (e, a) has reached state `n` going backwards.
    fn arrive(&mut self, n: u32, e: Choice, a: AccId, work: &mut Vec<(u32, Choice, AccId)>) {
        if a == EMPTY {
            return;
        }
        let key = self.acc.key(e, a);
        let node = &mut self.nodes[n as usize];
        if !node.summary.insert(key) {
            return;
        }
        for &p in &node.in_edges {
            work.push((p, e, a));
        }
    }

    /// Runs the backwards search to its end (or until a limit stops the whole search), then keeps
    /// the work list's buffer for the next one.
    fn drain(&mut self, mut work: Vec<(u32, Choice, AccId)>, search: &mut Search<'_, M>) {
        while let Some((tb, e, a)) = work.pop() {
            if search.poll() {
                work.clear();
                break;
            }
            let (e2, a2) = self.meet(tb, e, a);
            let src = self.edges[tb as usize].src;
            self.arrive(src, e2, a2, &mut work);
        }
        self.work = work;
    }

    /// Literal UpdateBacktrackSetDFS from `t`: every path of predecessors that does not repeat a
    /// transition (the paper's T_exp), iteratively.
    fn literal_dfs(&mut self, t: u32, e: Choice, a: AccId, search: &mut Search<'_, M>) {
        struct Frame {
            curr: u32,
            e: Choice,
            a: AccId,
            next: usize,
        }
        let mut on_path: FxHashSet<u32> = FxHashSet::default();
        on_path.insert(t);
        let mut stack = vec![Frame { curr: t, e, a, next: 0 }];
        while let Some(top) = stack.last_mut() {
            if search.poll() {
                return;
            }
            let src = self.edges[top.curr as usize].src;
            let preds = &self.nodes[src as usize].in_edges;
            if top.next >= preds.len() || top.a == EMPTY {
                let f = stack.pop().expect("non-empty");
                if stack.is_empty() {
                    break;
                }
                on_path.remove(&f.curr);
                continue;
            }
            let tb = preds[top.next];
            top.next += 1;
            if on_path.contains(&tb) {
                continue;
            }
            let (e, a) = (top.e, top.a);
            let (e2, a2) = self.meet(tb, e, a);
            on_path.insert(tb);
            stack.push(Frame { curr: tb, e: e2, a: a2, next: 0 });
        }
    }

    /// `no_graph_backtrack`: walk back along the current stack only (first `first`, when given,
    /// then the stack edges from the top down).
    fn stack_walk(&mut self, first: Option<u32>, mut e: Choice, mut a: AccId) {
        let stack: Vec<u32> = first.into_iter().chain(self.stack_edges.iter().rev().copied()).collect();
        for tb in stack {
            if a == EMPTY {
                return;
            }
            (e, a) = self.meet(tb, e, a);
        }
    }

    /// Algorithm 3: after edge `t` reached a known state, set the backtrack points that the
    /// transitions reachable from it would have set had they been explored again.
    fn update_from_graph(&mut self, t: u32, search: &mut Search<'_, M>) {
        if self.opts.no_match_update {
            return;
        }
        let Some(dst) = self.edges[t as usize].dst else {
            return;
        };
        if !self.opts.no_graph_backtrack && !self.opts.no_summaries {
            // Appendix D: the summary of dst stands for everything reachable from it.
            let mut work = std::mem::take(&mut self.work);
            work.extend(self.nodes[dst as usize].summary.iter().map(|k| (t, k.e, k.a)));
            self.drain(work, search);
            return;
        }
        // Forward reachability over R from dst.
        let mut seen = FxHashSet::default();
        let mut todo = vec![dst];
        let mut reach = Vec::new();
        seen.insert(dst);
        while let Some(n) = todo.pop() {
            if search.poll() {
                return;
            }
            for &r in &self.nodes[n as usize].out_edges {
                reach.push(r);
                if let Some(d) = self.edges[r as usize].dst {
                    if seen.insert(d) {
                        todo.push(d);
                    }
                }
            }
        }
        for r in reach {
            if search.poll() {
                return;
            }
            let (e, a) = (self.edges[r as usize].event, self.edges[r as usize].acc);
            if self.opts.no_graph_backtrack {
                // Yang et al.: the reachable transition against the current stack, through t.
                self.stack_walk(Some(t), e, a);
            } else {
                self.literal_dfs(r, e, a, search);
            }
        }
    }

    /// The paper's enable flags (Section 3: each event has a location that enabling or
    /// disabling it writes), derived from the enabled sets so that any [`Model`] gets them: the
    /// transition reads its own flag and writes the flag of every choice it enables or disables.
    fn add_flag_accesses(&self, src: u32, dst: u32, c: Choice, acc: &mut Accesses) {
        acc.push(Access { object: flag_object(c), write: false });
        let (before, after) = (&self.nodes[src as usize].enabled, &self.nodes[dst as usize].enabled);
        let (mut i, mut j) = (0, 0);
        // Both lists ascend: walk them together for the symmetric difference.
        while i < before.len() || j < after.len() {
            let changed = match (before.get(i), after.get(j)) {
                (Some(&x), Some(&y)) if x == y => {
                    i += 1;
                    j += 1;
                    continue;
                }
                (Some(&x), Some(&y)) if x < y => {
                    i += 1;
                    x
                }
                (Some(&x), None) => {
                    i += 1;
                    x
                }
                (_, Some(&y)) => {
                    j += 1;
                    y
                }
                (None, None) => break,
            };
            acc.push(Access { object: flag_object(changed), write: true });
        }
    }

    /// The edge (src, c), created if new.
    fn edge(&mut self, src: u32, c: Choice, dst: Option<u32>, mut acc: Accesses) -> u32 {
        if let Some(&t) = self.edge_of.get(&(src, c)) {
            return t;
        }
        acc.sort();
        let acc = self.acc.intern(acc);
        let t = self.edges.len() as u32;
        self.edges.push(Edge { src, dst, event: c, acc });
        self.edge_of.insert((src, c), t);
        self.nodes[src as usize].out_edges.push(t);
        if let Some(d) = dst {
            self.nodes[d as usize].in_edges.push(t);
        }
        t
    }

    /// Lines 2-16 of Algorithm 2 on entering `n`. False when the execution ends here (nothing
    /// enabled).
    fn enter(&mut self, n: u32, path: &[Choice], search: &mut Search<'_, M>) -> bool {
        if self.pending(n).is_some() {
            return true;
        }
        let node = &self.nodes[n as usize];
        if node.enabled.is_empty() {
            if let Some(g) = search.graph.as_mut() {
                if self.model.outcome(&node.state).stuck {
                    g.stuck.push(n);
                }
            }
            search.terminal(&node.state, path);
            self.end_execution(n);
            return false;
        }
        if let Some(&e) = node.enabled.iter().find(|&&e| !node.done.has(e)) {
            self.nodes[n as usize].backtrack.add(e);
            return true;
        }
        // Everything here is done, but the execution must go on past this revisit: re-fire the
        // enabled event that fired least recently on this execution, so that every event of a
        // state the execution keeps returning to gets its turn and a full cycle can close.
        let mut best = (i64::MAX, node.enabled[0]);
        for &e in &node.enabled {
            let at = self.fired_at[e as usize];
            let last = if at >= self.exec_base { (at - self.exec_base) as i64 } else { -1 };
            if last < best.0 {
                best = (last, e);
            }
        }
        self.refires += 1;
        self.nodes[n as usize].done.remove(best.1);
        true
    }

    /// Algorithm 2, Explore(root), with an explicit stack of frames.
    fn explore(&mut self, root: u32, search: &mut Search<'_, M>) {
        let mut path = self.schedule_to(root);
        self.exec_base += self.exec.len() as u64 + 1;
        self.exec.clear();
        self.stack_edges.clear();
        let mut frames: Vec<u32> = Vec::new();
        if self.enter(root, &path, search) {
            frames.push(root);
        }
        while let Some(&s) = frames.last() {
            // Polled, not just read: long runs of frames can pop without a transition.
            if search.poll() {
                return;
            }
            let Some(b) = self.pending(s) else {
                frames.pop();
                if !frames.is_empty() {
                    path.pop();
                    self.stack_edges.pop();
                }
                continue;
            };
            self.nodes[s as usize].done.add(b);
            let mut acc = Accesses::new();
            self.model.accesses(&self.nodes[s as usize].state, b, &mut acc);
            let label = search
                .graph
                .as_ref()
                .filter(|g| !g.overflowed)
                .map(|_| self.model.describe(&self.nodes[s as usize].state, b));
            let mut next = self.nodes[s as usize].state.clone();
            let result = self.model.step(&mut next, b);
            path.push(b);
            search.transition(path.len());
            if let Err(err) = result {
                acc.push(Access { object: flag_object(b), write: false });
                if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                    g.add_edge(s, Target::Error, label);
                }
                search.error(err, &path);
                path.pop();
                let t = self.edge(s, b, None, acc);
                self.update_backtrack_set(t, search);
                // Nothing runs after an error, so the conflicts its continuation would reveal
                // never show up: explore everything enabled here instead (as for a blocked step).
                for i in 0..self.nodes[s as usize].enabled.len() {
                    let e = self.nodes[s as usize].enabled[i];
                    self.add_backtrack(s, e);
                }
                self.end_execution(s);
                continue;
            }
            let (dst, fresh) = self.intern(next, Some((s, b)), search);
            self.add_flag_accesses(s, dst, b, &mut acc);
            if let (Some(g), Some(label)) = (search.graph.as_mut(), label) {
                g.add_edge(s, Target::State(dst), label);
            }
            let t = self.edge(s, b, Some(dst), acc);
            // Line 22: events this transition disables are explored here as well.
            self.scratch_en.clear();
            self.scratch_en.extend(self.nodes[s as usize].enabled.iter().copied());
            for i in 0..self.scratch_en.len() {
                let e = self.scratch_en[i];
                if self.nodes[dst as usize].enabled.binary_search(&e).is_err() {
                    self.add_backtrack(s, e);
                }
            }
            self.update_backtrack_set(t, search);
            let in_history = self.nodes[dst as usize].in_history;
            let revisit = !fresh && !in_history && self.nodes[dst as usize].s_pos.is_some();
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
                let states: Vec<u32> = self.exec.iter().map(|&e| self.edges[e as usize].src).chain([s]).collect();
                for src in states {
                    for j in 0..self.nodes[src as usize].enabled.len() {
                        let e = self.nodes[src as usize].enabled[j];
                        self.add_backtrack(src, e);
                    }
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
            if self.enter(dst, &path, search) {
                frames.push(dst);
                self.stack_edges.push(t);
            } else {
                path.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_add_remove() {
        let mut b = Bits::with(70);
        assert!(b.add(3));
        assert!(!b.add(3));
        assert!(b.add(69));
        assert!(b.has(69) && b.has(3) && !b.has(4));
        b.remove(3);
        assert!(!b.has(3));
    }
}
