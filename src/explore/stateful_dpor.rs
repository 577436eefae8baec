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

use rustc_hash::{FxHashMap, FxHashSet};

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
    summary: FxHashSet<(Choice, Accesses)>,
}

/// A transition of R. Erroneous transitions lead nowhere but are kept: their accesses must still
/// set backtrack points, and later paths into their source must see them.
struct Edge {
    src: u32,
    dst: Option<u32>,
    event: Choice,
    acc: Accesses,
}

/// The search's working data (one run).
struct Run<'a, M: Model> {
    opts: StatefulDpor,
    model: &'a M,
    nodes: Vec<Node<M::State>>,
    index: FxHashMap<Vec<u32>, u32>,
    edges: Vec<Edge>,
    edge_of: FxHashMap<(u32, Choice), u32>,
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
            exec: Vec::new(),
            dirty: Vec::new(),
            stack_edges: Vec::new(),
            scratch_enc: Vec::new(),
            scratch_en: Vec::new(),
            refires: 0,
        };
        let (s0, _) = run.intern(model.initial(), None, search);
        // Algorithm 1: explore from s0, then from every state left with unexplored backtrack points.
        run.explore(s0, search);
        while let Some(n) = run.dirty.pop() {
            if search.stopped() {
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
            summary: FxHashSet::default(),
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
        self.exec.clear();
        self.refires = 0;
    }

    /// Appends edge `t` to the current execution S.
    fn push_exec(&mut self, t: u32) {
        let (src, dst) = (self.edges[t as usize].src, self.edges[t as usize].dst);
        if self.exec.is_empty() {
            self.nodes[src as usize].s_pos.get_or_insert(0);
        }
        self.exec.push(t);
        if let Some(d) = dst {
            let len = self.exec.len();
            self.nodes[d as usize].s_pos.get_or_insert(len);
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
        let k = self.model.choices();
        let mut fired = Bits::with(k);
        let mut enabled = Bits::with(k);
        for &c in self.exec[first.min(self.exec.len())..].iter().chain(std::iter::once(&t)) {
            let e = &self.edges[c as usize];
            fired.add(e.event);
            if let Some(d) = e.dst {
                for &x in &self.nodes[d as usize].enabled {
                    enabled.add(x);
                }
            }
        }
        enabled.0.iter().zip(&fired.0).all(|(en, fi)| en & !fi == 0)
    }

    /// Lines 9-16 of Algorithm 5 for predecessor `tb`: sets the backtrack point if `tb` conflicts
    /// with the accesses `a` carried for event `e`, and returns what goes on past `tb`.
    fn meet(&mut self, tb: u32, e: Choice, a: &Accesses) -> (Choice, Accesses) {
        let edge = &self.edges[tb as usize];
        let (src, tb_event) = (edge.src, edge.event);
        let clash = |x: &Access| edge.acc.iter().any(|y| y.object == x.object && (x.write || y.write));
        let conflict = a.iter().any(clash);
        let rest: Accesses = if conflict && self.opts.no_per_location {
            Accesses::new()
        } else {
            a.iter().copied().filter(|x| !clash(x)).collect()
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
    fn update_backtrack_set(&mut self, t: u32) {
        let (src, e, a) = {
            let edge = &self.edges[t as usize];
            (edge.src, edge.event, edge.acc.clone())
        };
        if self.opts.no_graph_backtrack {
            self.stack_walk(None, e, a);
        } else if self.opts.no_summaries {
            self.literal_dfs(t, e, a);
        } else {
            let mut work = Vec::new();
            self.arrive(src, e, a, &mut work);
            self.drain(work);
        }
    }

    /// Summary search: the pair (e, a) has reached state `n` going backwards.
    fn arrive(&mut self, n: u32, e: Choice, a: Accesses, work: &mut Vec<(u32, Choice, Accesses)>) {
        if a.is_empty() {
            return;
        }
        let node = &mut self.nodes[n as usize];
        if node.summary.contains(&(e, a.clone())) {
            return;
        }
        for &p in &node.in_edges {
            work.push((p, e, a.clone()));
        }
        node.summary.insert((e, a));
    }

    fn drain(&mut self, mut work: Vec<(u32, Choice, Accesses)>) {
        while let Some((tb, e, a)) = work.pop() {
            let (e2, a2) = self.meet(tb, e, &a);
            let src = self.edges[tb as usize].src;
            self.arrive(src, e2, a2, &mut work);
        }
    }

    /// Literal UpdateBacktrackSetDFS from `t`: every path of predecessors that does not repeat a
    /// transition (the paper's T_exp), iteratively.
    fn literal_dfs(&mut self, t: u32, e: Choice, a: Accesses) {
        struct Frame {
            curr: u32,
            e: Choice,
            a: Accesses,
            next: usize,
        }
        let mut on_path: FxHashSet<u32> = FxHashSet::default();
        on_path.insert(t);
        let mut stack = vec![Frame { curr: t, e, a, next: 0 }];
        while let Some(top) = stack.last_mut() {
            let src = self.edges[top.curr as usize].src;
            let preds = &self.nodes[src as usize].in_edges;
            if top.next >= preds.len() || top.a.is_empty() {
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
            let (e, a) = (top.e, top.a.clone());
            let (e2, a2) = self.meet(tb, e, &a);
            on_path.insert(tb);
            stack.push(Frame { curr: tb, e: e2, a: a2, next: 0 });
        }
    }

    /// `no_graph_backtrack`: walk back along the current stack only (first `first`, when given,
    /// then the stack edges from the top down).
    fn stack_walk(&mut self, first: Option<u32>, mut e: Choice, mut a: Accesses) {
        let stack: Vec<u32> = first.into_iter().chain(self.stack_edges.iter().rev().copied()).collect();
        for tb in stack {
            if a.is_empty() {
                return;
            }
            (e, a) = self.meet(tb, e, &a);
        }
    }

    /// Algorithm 3: after edge `t` reached a known state, set the backtrack points that the
    /// transitions reachable from it would have set had they been explored again.
    fn update_from_graph(&mut self, t: u32) {
        if self.opts.no_match_update {
            return;
        }
        let Some(dst) = self.edges[t as usize].dst else {
            return;
        };
        if !self.opts.no_graph_backtrack && !self.opts.no_summaries {
            // Appendix D: the summary of dst stands for everything reachable from it.
            let work: Vec<(u32, Choice, Accesses)> =
                self.nodes[dst as usize].summary.iter().map(|(e, a)| (t, *e, a.clone())).collect();
            self.drain(work);
            return;
        }
        // Forward reachability over R from dst.
        let mut seen = FxHashSet::default();
        let mut todo = vec![dst];
        let mut reach = Vec::new();
        seen.insert(dst);
        while let Some(n) = todo.pop() {
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
            let (e, a) = (self.edges[r as usize].event, self.edges[r as usize].acc.clone());
            if self.opts.no_graph_backtrack {
                // Yang et al.: the reachable transition against the current stack, through t.
                self.stack_walk(Some(t), e, a);
            } else {
                self.literal_dfs(r, e, a);
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
            let last = self.exec.iter().rposition(|&t| self.edges[t as usize].event == e).map_or(-1, |i| i as i64);
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
        self.exec.clear();
        self.stack_edges.clear();
        let mut frames: Vec<u32> = Vec::new();
        if self.enter(root, &path, search) {
            frames.push(root);
        }
        while let Some(&s) = frames.last() {
            if search.stopped() {
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
                self.update_backtrack_set(t);
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
            self.update_backtrack_set(t);
            let in_history = self.nodes[dst as usize].in_history;
            let revisit = !fresh && !in_history && self.nodes[dst as usize].s_pos.is_some();
            if in_history || (revisit && self.is_full_cycle(t)) {
                self.update_from_graph(t);
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
                self.update_from_graph(t);
                search.end_execution();
                self.end_execution(s);
                path.pop();
                continue;
            }
            if revisit {
                self.update_from_graph(t);
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
