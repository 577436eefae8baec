//! `optimal`: one execution per outcome on EM traces, by enumerating reads-from maps and
//! deciding each one's consistency with a witness search (issue 14; docs/optimal.md).
//!
//! # Lineage
//! The outcome of an EM trace (em-trace.md) is a reads-from map plus the final write of every
//! location plus the operations a stuck run never ran. Reads-from equivalence has optimal
//! stateless algorithms for threads: RFSC (Abdulla, Atig, Jonsson, Lång, Ngo, Sagonas, "Optimal
//! stateless model checking for reads-from equivalence under sequential consistency", OOPSLA
//! 2019) and data-centric DPOR (Chalupa et al., POPL 2018). Both enumerate reads-from choices
//! and ask whether each is *consistent* (realised by some execution). A trace has fixed control
//! flow (what a read sees never changes which operations follow), which makes the enumeration
//! simple: the operations are known up front, so the search is over maps, not programs.
//!
//! # The search
//! 1. **Static happens-before** `hb0`: program order of each thread and handler, the static
//!    enabling edges (`waits_for`: FORK, ATTACH-Q -> post, enable -> trigger, dependence.txt),
//!    POST -> CALL and LOOP -> CALL, transitively closed (a bit matrix). It holds in every run.
//! 2. **End sets.** A run ends (nothing enabled) with some set `E` of executed operations: all
//!    of them, or a stuck prefix. The complete set is enumerated first. Unless a fixpoint shows
//!    that no run can get stuck ([`Statics::may_get_stuck`]), a pre-pass with values ignored
//!    (below) then finds every reachable end set, and each stuck one gets the same enumeration
//!    with "ends with exactly `E` executed" as its target: that is how stuck outcomes are reached.
//! 3. **Observations** of `E`: its reads, then the final write of each location (the "final
//!    reader" of issue 14). Each has candidates: the writes in `E` it could see by `hb0` (not
//!    after it, not certainly overwritten before it), and the initial value (0). Observations
//!    with one candidate are fixed and skipped.
//! 4. **The tree.** A node fixes the values of the first `k` observations. [`Saturation`]
//!    derives the order they force (a cycle: the node is *blocked*); the witness search then
//!    finds a run ending at `E` that respects them (or proves there is none: blocked too). The
//!    witness's outcome is reported, and for every later observation `j` and candidate `v`
//!    other than what the witness saw there, a child fixes observations `k..j` to
//!    the witness's values and `j` to `v`. The children and the witness's own map partition the
//!    maps that extend the node's prefix, so every consistent map is found exactly once:
//!    executions = outcomes, and the cost is the blocked nodes.
//!
//! # The witness search, and why it is complete
//! A depth-first search over emulator states where an operation may run only when the emulator
//! enables it, it lies in `E`, a constrained read would see its required write, and a write
//! would not overwrite a value that a pending constrained read or the required final write still
//! needs. Visited states are matched on the emulator key without the reads-from region (what a
//! read saw no longer matters once checked) and with the last write of locations no constraint
//! still looks at set to 0; from two states with the same such key the same runs succeed.
//! At each state only a *persistent set* is explored (Godefroid, LNCS 1032 ch. 4; the state
//! graph is acyclic, so every terminal state is kept): the closure over threads, grown from an
//! allowed thread, under *conflicts* (LOCKs of one lock, posts to one queue, accesses of one
//! location with a write that some constraint still looks at, excluding operations `hb0`
//! orders) and *necessary enablers* (the lock holder, the NOTIFYs of a WAIT, a missing static
//! or saturated predecessor, the write a fixed read waits for, the reads a held-back write waits
//! for, the posters of an idle looper); the smallest over the allowed threads. An unconstrained
//! read conflicts with nothing; writes to a location no constraint looks at commute (nothing
//! reads that last write again). Everything else commutes with all operations of other threads
//! and stays enabled: UNLOCK only enables, a NOTIFY only adds to a count, a WAIT takes from its
//! own thread's count, CALL takes the queue's front while posts append at the back, RET and
//! FORK only enable.
//!
//! The pre-pass of step 2 is the same search with no constraints, where all reads and writes
//! conflict with nothing (they never change what is enabled), run to the end instead of to the
//! first success.
//!
//! # Counters
//! `executions`: witnesses found (each a new outcome); `blocked`: nodes with no witness;
//! `redundant`: witnesses whose outcome was already seen (0 by the argument above; counted, not
//! assumed); `consistency_s`: time in witness searches; `states`: states the witness searches
//! stored, summed over searches (each search frees its own).

use std::time::Instant;

use rustc_hash::FxHashSet;
use smallvec::SmallVec;

use super::{Search, Strategy};
use crate::model::em::{EmModel, EmState, NEVER};
use crate::model::{Choice, Model};
use crate::trace::em::OpKind;

/// The `optimal` strategy (see the module header).
#[derive(Default)]
pub struct ReadsFrom;

impl Strategy<EmModel> for ReadsFrom {
    fn name(&self) -> &'static str {
        "optimal"
    }

    fn run(&mut self, search: &mut Search<'_, EmModel>) {
        let Some(statics) = Statics::new(search) else { return };
        let mut w = Witness::new(&statics);
        let started = Instant::now();
        let mut all = vec![0u64; statics.words];
        for op in 0..statics.n {
            all[op / 64] |= 1 << (op % 64);
        }
        let all: Box<[u64]> = all.into();
        let mut enumeration = Enumeration { blocked: 0, found: 0 };
        // Complete runs first: their outcomes are reported even if the search for stuck end
        // sets (step 2) does not finish.
        enumeration.tree(search, &mut w, &all);
        if !search.stopped() && statics.may_get_stuck() {
            let mut ends: Vec<Box<[u64]>> = w.end_sets(search).into_iter().filter(|e| *e != all).collect();
            ends.sort();
            for end in &ends {
                if search.stopped() {
                    break;
                }
                enumeration.tree(search, &mut w, end);
            }
        }
        let outcomes = search.found.len() as u64;
        search.stats.redundant = Some(enumeration.found.saturating_sub(outcomes));
        search.stats.blocked = Some(enumeration.blocked);
        search.stats.consistency_s = Some(started.elapsed().as_secs_f64());
    }
}

/// What holds in every run: the static happens-before and who can conflict with whom.
struct Statics<'m> {
    model: &'m EmModel,
    n: usize,
    /// Words per row of `hb`.
    words: usize,
    /// Row `x`: the operations that happen before `x` in every run that executes it.
    hb: Vec<u64>,
    /// Per operation: operations of other tasks of a conflicting kind that `hb0` leaves
    /// unordered with it (accesses of its location with a write, LOCKs of its lock, posts to
    /// its queue).
    conflicts: Vec<Vec<u32>>,
    /// Per location: its writes.
    writes: Vec<Vec<u32>>,
    /// Per location: its reads.
    reads: Vec<Vec<u32>>,
    /// Per thread: the posts to its queue, and the NOTIFYs that target it.
    posts_to: Vec<Vec<u32>>,
    notifies_to: Vec<Vec<u32>>,
    /// Operation position of a trace index (a map: indices are the trace's own numbers, and
    /// may be as large as a u32).
    op_of_index: rustc_hash::FxHashMap<u32, u32>,
    /// Outermost critical sections per lock: (thread, LOCK, matching UNLOCK or NEVER).
    sections: Vec<Vec<(u32, u32, u32)>>,
    /// Per looper: its handlers' (post, first, last) operations, for those with a post.
    handlers: Vec<Vec<(u32, u32, u32)>>,
}

/// What a node of the tree fixes, and the end set it aims at.
struct Constraints {
    /// Per operation: the write (trace index, 0 = initial value) a read must see, or [`FREE`].
    read: Vec<u32>,
    /// Per location: the write that must be last, or [`FREE`].
    fin: Vec<u32>,
    /// Per location: its constrained reads.
    constrained: Vec<SmallVec<[u32; 2]>>,
    /// The operations the run must end with exactly (bit per operation).
    end: Box<[u64]>,
    /// False in the pre-pass: values are ignored, reads and writes are always safe.
    values: bool,
    /// Per operation: what the saturated order (see [`Saturation`]) puts before it beyond `hb0`.
    after: Vec<Vec<u32>>,
}

/// No constraint.
const FREE: u32 = u32::MAX;

fn bit(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 != 0
}

impl<'m> Statics<'m> {
    fn new(search: &mut Search<'m, EmModel>) -> Option<Self> {
        let model = search.model;
        let n = model.trace.ops.len();
        let words = n.div_ceil(64).max(1);
        // Two n x n bit matrices (static and saturated happens-before): refused up front when
        // they would pass the memory limit (125 MB each at 100,000 operations).
        if search.reserve(2 * (n * words * 8) as u64) {
            return None;
        }
        // Static predecessors (as the model's acyclicity check has them).
        let mut preds: Vec<SmallVec<[u32; 3]>> = vec![SmallVec::new(); n];
        for (x, p) in preds.iter_mut().enumerate() {
            p.extend(model.waits_for[x].iter().copied().filter(|&w| w != NEVER));
            if model.prev_in_task[x] != NEVER {
                p.push(model.prev_in_task[x]);
            }
        }
        for h in model.handlers.iter().flatten() {
            let Some(&first) = h.ops.first() else { continue };
            if h.post != NEVER {
                preds[first as usize].push(h.post);
            }
            let th = &model.threads[h.thread as usize];
            if let Some(l) = th.loop_after.filter(|&l| l > 0) {
                preds[first as usize].push(th.own[l as usize - 1]);
            }
        }
        // Rows in a topological order (Kahn), each the union of its predecessors' rows.
        let mut indeg: Vec<u32> = preds.iter().map(|p| p.len() as u32).collect();
        let mut succ: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];
        for (x, ps) in preds.iter().enumerate() {
            for &p in ps {
                succ[p as usize].push(x as u32);
            }
        }
        let mut hb = vec![0u64; n * words];
        let mut ready: Vec<u32> = (0..n as u32).filter(|&x| indeg[x as usize] == 0).collect();
        while let Some(x) = ready.pop() {
            if search.poll() {
                return None;
            }
            let x = x as usize;
            for &p in &preds[x] {
                let p = p as usize;
                for w in 0..words {
                    hb[x * words + w] |= hb[p * words + w];
                }
                hb[x * words + p / 64] |= 1 << (p % 64);
            }
            for &s in &succ[x] {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    ready.push(s);
                }
            }
        }
        let mut st = Statics {
            model,
            n,
            words,
            hb,
            conflicts: vec![Vec::new(); n],
            writes: vec![Vec::new(); model.trace.locations.len()],
            reads: vec![Vec::new(); model.trace.locations.len()],
            posts_to: vec![Vec::new(); model.threads.len()],
            notifies_to: vec![Vec::new(); model.threads.len()],
            op_of_index: Default::default(),
            sections: vec![Vec::new(); model.locks as usize],
            handlers: vec![Vec::new(); model.threads.len()],
        };
        for h in model.handlers.iter().flatten() {
            if let (Some(&first), Some(&last)) = (h.ops.first(), h.ops.last()) {
                if h.post != NEVER {
                    st.handlers[h.thread as usize].push((h.post, first, last));
                }
            }
        }
        // Per task, walk its operations in program order keeping a depth per lock.
        let mut depth: rustc_hash::FxHashMap<(u32, u32), (u32, u32)> = Default::default();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&x| (model.op_task[x as usize], x));
        for &x in &order {
            let task = model.op_task[x as usize];
            match model.trace.ops[x as usize].kind {
                OpKind::Lock { .. } => {
                    let e = depth.entry((task, model.lock_of(x))).or_insert((0, NEVER));
                    if e.0 == 0 {
                        e.1 = x;
                    }
                    e.0 += 1;
                }
                OpKind::Unlock { .. } => {
                    let l = model.lock_of(x);
                    if let Some(e) = depth.get_mut(&(task, l)).filter(|e| e.0 > 0) {
                        e.0 -= 1;
                        if e.0 == 0 {
                            st.sections[l as usize].push((model.op_thread[x as usize], e.1, x));
                        }
                    }
                }
                _ => {}
            }
        }
        for ((_, l), (d, lock)) in depth {
            if d > 0 {
                st.sections[l as usize].push((model.op_thread[lock as usize], lock, NEVER));
            }
        }
        for (x, o) in model.trace.ops.iter().enumerate() {
            st.op_of_index.insert(o.index, x as u32);
            match o.kind {
                OpKind::Post { dest, .. } => {
                    if let Some(d) = model.thread_of_raw(dest) {
                        st.posts_to[d as usize].push(x as u32);
                    }
                }
                OpKind::Notify { target } => {
                    if let Some(d) = model.thread_of_raw(target) {
                        st.notifies_to[d as usize].push(x as u32);
                    }
                }
                _ => {}
            }
        }
        // Groups of operations that can conflict: per location, per lock, per queue.
        let locs = model.trace.locations.len();
        let mut groups: Vec<Vec<u32>> = vec![Vec::new(); locs + model.locks as usize + model.threads.len()];
        for (x, o) in model.trace.ops.iter().enumerate() {
            let g = match o.kind {
                OpKind::Read { loc } => {
                    st.reads[loc as usize].push(x as u32);
                    loc as usize
                }
                OpKind::Write { loc } => {
                    st.writes[loc as usize].push(x as u32);
                    loc as usize
                }
                OpKind::Lock { .. } => locs + model.lock_of(x as u32) as usize,
                OpKind::Post { dest, .. } => match model.thread_of_raw(dest) {
                    Some(d) => locs + model.locks as usize + d as usize,
                    None => continue,
                },
                _ => continue,
            };
            groups[g].push(x as u32);
        }
        for g in &groups {
            for (i, &x) in g.iter().enumerate() {
                if search.poll() {
                    return None;
                }
                for &y in &g[i + 1..] {
                    let (ox, oy) = (&model.trace.ops[x as usize], &model.trace.ops[y as usize]);
                    let reads_only = matches!(ox.kind, OpKind::Read { .. }) && matches!(oy.kind, OpKind::Read { .. });
                    if reads_only
                        || model.op_task[x as usize] == model.op_task[y as usize]
                        || st.before(x, y)
                        || st.before(y, x)
                    {
                        continue;
                    }
                    st.conflicts[x as usize].push(y);
                    st.conflicts[y as usize].push(x);
                }
            }
        }
        Some(st)
    }

    /// Whether some run can end stuck. No when a greatest fixpoint of "may be disabled for
    /// ever" is empty; the argument (docs/optimal.md): in a stuck end some thread's next
    /// operation is disabled (a LOCK, a WAIT, or one waiting for a static predecessor), and each
    /// such operation is disabled for a reason that is again such an operation — the holder of
    /// the lock stuck inside its section; for a WAIT, so many of its thread's NOTIFYs never
    /// running that fewer run than the WAITs that can precede it need; a predecessor that never
    /// runs because something before it (by `hb0`, or in a handler its looper may run first)
    /// is stuck.
    fn may_get_stuck(&self) -> bool {
        let model = self.model;
        let (n, words) = (self.n, self.words);
        let never_runs = model.waits_for.iter().any(|w| w.contains(&NEVER))
            || model.handlers.iter().flatten().any(|h| h.post == NEVER && !h.ops.is_empty())
            || model.threads.iter().any(|t| t.loop_after.is_some_and(|l| (l as usize) < t.own.len()))
            || self.sections.iter().flatten().any(|s| s.2 == NEVER);
        if never_runs {
            return true;
        }
        let nt = model.threads.len();
        let mut waits: Vec<Vec<u32>> = vec![Vec::new(); nt];
        for (x, o) in model.trace.ops.iter().enumerate() {
            if matches!(o.kind, OpKind::Wait) {
                waits[model.op_thread[x] as usize].push(x as u32);
            }
        }
        if (0..nt).any(|t| self.notifies_to[t].len() < waits[t].len()) {
            return true;
        }
        let mut b: Vec<bool> = (0..n)
            .map(|x| {
                matches!(model.trace.ops[x].kind, OpKind::Lock { .. } | OpKind::Wait) || !model.waits_for[x].is_empty()
            })
            .collect();
        loop {
            // M: the operations in B, and the first operation of every handler that a handler
            // of its looper with an operation in B may run before (FIFO: not one posted after
            // the first one's post or after its start), as the looper would hang there.
            let mut m = vec![0u64; words];
            let mut in_task: Vec<Vec<u32>> = vec![Vec::new(); model.tasks()];
            for x in (0..n).filter(|&x| b[x]) {
                m[x / 64] |= 1 << (x % 64);
                in_task[model.op_task[x] as usize].push(x as u32);
            }
            for hs in &self.handlers {
                for &(p, f, _) in hs {
                    let hang = hs.iter().any(|&(p2, f2, _)| {
                        f2 != f
                            && !self.before(f, p2)
                            && !self.before(p, p2)
                            && !in_task[model.op_task[f2 as usize] as usize].is_empty()
                    });
                    if hang {
                        m[f as usize / 64] |= 1 << (f % 64);
                    }
                }
            }
            let never = |y: u32| {
                bit(&m, y as usize)
                    || self.hb[y as usize * words..(y as usize + 1) * words].iter().zip(&m).any(|(r, k)| r & k != 0)
            };
            let mut next = b.clone();
            for x in (0..n).filter(|&x| b[x]) {
                let t = model.op_thread[x];
                let mut keep = model.waits_for[x].iter().any(|&w| never(w));
                match model.trace.ops[x].kind {
                    OpKind::Lock { .. } => {
                        keep |= self.sections[model.lock_of(x as u32) as usize].iter().any(|&(t1, a1, u1)| {
                            t1 != t
                                && in_task[model.op_task[a1 as usize] as usize]
                                    .iter()
                                    .any(|&z| self.before(a1, z) && self.before(z, u1))
                        });
                    }
                    OpKind::Wait => {
                        // Blocked for ever only if fewer NOTIFYs run than the WAITs of its
                        // thread that can come before it (itself included) need.
                        let can_precede = waits[t as usize].iter().filter(|&&y| !self.before(x as u32, y)).count();
                        let notifies = &self.notifies_to[t as usize];
                        let lost = notifies.iter().filter(|&&y| never(y)).count();
                        keep |= notifies.len() - lost < can_precede;
                    }
                    _ => {}
                }
                next[x] = keep;
            }
            if next == b {
                return b.iter().any(|&x| x);
            }
            b = next;
        }
    }

    /// `a` happens before `b` in every run that executes `b`.
    fn before(&self, a: u32, b: u32) -> bool {
        bit(&self.hb[b as usize * self.words..], a as usize)
    }

    fn index(&self, op: u32) -> u32 {
        self.model.trace.ops[op as usize].index
    }

    /// The writes read `r` could see in a run ending with `end` executed (0: the initial value).
    fn read_candidates(&self, r: u32, loc: u32, end: &[u64]) -> SmallVec<[u32; 4]> {
        let ws = &self.writes[loc as usize];
        let in_end = |w: &&u32| bit(end, **w as usize);
        let mut out = SmallVec::new();
        if !ws.iter().filter(in_end).any(|&w| self.before(w, r)) {
            out.push(0);
        }
        for &w in ws.iter().filter(in_end) {
            let overwritten = ws.iter().filter(in_end).any(|&w2| w2 != w && self.before(w, w2) && self.before(w2, r));
            if !self.before(r, w) && !overwritten {
                out.push(self.index(w));
            }
        }
        out
    }

    /// The writes that can be last to `loc` in a run ending with `end` executed.
    fn final_candidates(&self, loc: u32, end: &[u64]) -> SmallVec<[u32; 4]> {
        let ws: SmallVec<[u32; 8]> =
            self.writes[loc as usize].iter().copied().filter(|&w| bit(end, w as usize)).collect();
        if ws.is_empty() {
            return SmallVec::from_slice(&[0]);
        }
        ws.iter().filter(|&&w| !ws.iter().any(|&w2| w2 != w && self.before(w, w2))).map(|&w| self.index(w)).collect()
    }
}

/// The witness search (see the module header), with its buffers.
struct Witness<'s, 'm> {
    st: &'s Statics<'m>,
    visited: FxHashSet<Box<[u32]>>,
    key: Vec<u32>,
    /// The persistent-set closure's buffers, kept across states (it runs at every state).
    in_set: Vec<bool>,
    work: Vec<Choice>,
}

/// One state on the witness search's path.
struct Frame {
    /// Journal length before the step into this state.
    mark: usize,
    choices: SmallVec<[Choice; 4]>,
    next: usize,
}

impl<'s, 'm> Witness<'s, 'm> {
    fn new(st: &'s Statics<'m>) -> Self {
        Witness { st, visited: FxHashSet::default(), key: Vec::new(), in_set: Vec::new(), work: Vec::new() }
    }

    fn loc_of(&self, op: u32) -> Option<(u32, bool)> {
        match self.st.model.trace.ops[op as usize].kind {
            OpKind::Read { loc } => Some((loc, false)),
            OpKind::Write { loc } => Some((loc, true)),
            _ => None,
        }
    }

    /// Some constraint still looks at the last write of `loc`.
    fn relevant(&self, c: &Constraints, s: &EmState, loc: u32) -> bool {
        c.fin[loc as usize] != FREE || c.constrained[loc as usize].iter().any(|&r| !s.executed(r))
    }

    fn allowed(&self, c: &Constraints, s: &EmState, op: u32) -> bool {
        if !bit(&c.end, op as usize) {
            return false;
        }
        if c.after[op as usize].iter().any(|&a| !s.executed(a)) {
            return false;
        }
        if !c.values {
            return true;
        }
        match self.loc_of(op) {
            Some((loc, false)) => c.read[op as usize] == FREE || c.read[op as usize] == s.last_write(loc),
            Some((loc, true)) => {
                let last = s.last_write(loc);
                c.fin[loc as usize] != last
                    && !c.constrained[loc as usize].iter().any(|&r| !s.executed(r) && c.read[r as usize] == last)
            }
            None => true,
        }
    }

    /// The allowed choices at `s` to explore: a persistent set (Godefroid, LNCS 1032, ch. 4:
    /// the closure over threads under conflicts and necessary enabling), the smallest of those
    /// grown from each allowed thread, in recorded order.
    fn choices(&mut self, c: &Constraints, s: &EmState, out: &mut SmallVec<[Choice; 4]>) {
        out.clear();
        let model = self.st.model;
        let nt = model.threads.len();
        let mut next: SmallVec<[Option<u32>; 16]> = SmallVec::new();
        let mut allowed: SmallVec<[bool; 16]> = SmallVec::new();
        for t in 0..nt as u32 {
            let op = model.next_op(s, t);
            next.push(op);
            allowed.push(op.is_some_and(|op| model.op_enabled(s, op) && self.allowed(c, s, op)));
        }
        let mut best: Option<SmallVec<[Choice; 4]>> = None;
        let (mut in_set, mut work) = (std::mem::take(&mut self.in_set), std::mem::take(&mut self.work));
        in_set.resize(nt, false);
        for t0 in (0..nt as u32).filter(|&t| allowed[t as usize]) {
            in_set.iter_mut().for_each(|b| *b = false);
            in_set[t0 as usize] = true;
            work.clear();
            work.push(t0);
            let mut size = 0;
            let mut worse = false;
            while let Some(u) = work.pop() {
                let mut add = |y: u32| {
                    let v = model.op_thread[y as usize] as usize;
                    if !in_set[v] {
                        in_set[v] = true;
                        work.push(v as Choice);
                    }
                };
                if allowed[u as usize] {
                    size += 1;
                    self.conflicts(c, s, next[u as usize].expect("allowed"), &mut add);
                } else {
                    self.enablers(c, s, u, next[u as usize], &mut add);
                }
                if best.as_ref().is_some_and(|b| size >= b.len()) {
                    worse = true;
                    break;
                }
            }
            if worse {
                continue;
            }
            let mut set: SmallVec<[(u32, Choice); 8]> = (0..nt as u32)
                .filter(|&t| in_set[t as usize] && allowed[t as usize])
                .map(|t| (next[t as usize].expect("allowed"), t))
                .collect();
            set.sort_unstable();
            best = Some(set.iter().map(|&(_, t)| t).collect());
            if size == 1 {
                break;
            }
        }
        if let Some(b) = best {
            *out = b;
        }
        (self.in_set, self.work) = (in_set, work);
    }

    /// Calls `add` with every unexecuted operation in the end set that conflicts with `op`
    /// under the constraints (module header: LOCKs of one lock, posts to one queue, accesses
    /// of one location with a write that some constraint still looks at).
    fn conflicts(&self, c: &Constraints, s: &EmState, op: u32, mut add: impl FnMut(u32)) {
        let live = |y: u32| bit(&c.end, y as usize) && !s.executed(y);
        let all = &self.st.conflicts[op as usize];
        let write = |y: u32| self.loc_of(y).is_some_and(|(_, w)| w);
        match self.loc_of(op) {
            Some(_) if !c.values => {}
            Some((_, false)) if c.read[op as usize] == FREE => {}
            Some((_, false)) => all.iter().filter(|&&y| live(y) && write(y)).for_each(|&y| add(y)),
            Some((loc, true)) => {
                if self.relevant(c, s, loc) {
                    all.iter().filter(|&&y| live(y) && (write(y) || c.read[y as usize] != FREE)).for_each(|&y| add(y));
                }
            }
            None => all.iter().filter(|&&y| live(y)).for_each(|&y| add(y)),
        }
    }

    /// Calls `add` with operations whose execution may let thread `t` run again at `s` (its
    /// next operation `next` is not allowed, or it has none): the necessary enabling
    /// operations of the persistent-set closure. Nothing when it can never run again.
    fn enablers(&self, c: &Constraints, s: &EmState, t: Choice, next: Option<u32>, mut add: impl FnMut(u32)) {
        let st = self.st;
        let model = st.model;
        let live = |y: u32| bit(&c.end, y as usize) && !s.executed(y);
        let Some(x) = next else {
            // An idle looper runs again when a message is posted to it.
            st.posts_to[t as usize].iter().filter(|&&p| live(p)).for_each(|&p| add(p));
            return;
        };
        if !bit(&c.end, x as usize) {
            return;
        }
        c.after[x as usize].iter().filter(|&&a| !s.executed(a)).for_each(|&a| add(a));
        if !model.op_enabled(s, x) {
            for &w in &model.waits_for[x as usize] {
                if w != NEVER && !s.executed(w) {
                    add(w);
                }
            }
            match model.trace.ops[x as usize].kind {
                OpKind::Lock { .. } => {
                    if let Some(op) = s.lock_owner(model.lock_of(x)).and_then(|owner| model.next_op(s, owner)) {
                        add(op);
                    }
                }
                OpKind::Wait => st.notifies_to[t as usize].iter().filter(|&&y| live(y)).for_each(|&y| add(y)),
                _ => {}
            }
            return;
        }
        // Enabled, but a constraint holds it back until the write it must see runs, or the
        // reads that still need the current value have run.
        match self.loc_of(x) {
            Some((_, false)) => {
                let w = c.read[x as usize];
                if let Some(&w) = (w != 0 && w != FREE).then(|| st.op_of_index.get(&w)).flatten() {
                    if live(w) {
                        add(w);
                    }
                }
            }
            Some((loc, true)) => {
                c.constrained[loc as usize].iter().filter(|&&r| !s.executed(r)).for_each(|&r| add(r));
            }
            None => {}
        }
    }

    /// The key states are matched on: the emulator's, without reads-from, with the last write
    /// of locations no constraint looks at (all of them when values are ignored) set to 0.
    fn fill_key(&mut self, c: &Constraints, s: &EmState) {
        let model = self.st.model;
        self.key.clear();
        model.encode(s, &mut self.key);
        let locs = model.trace.locations.len();
        let lw = self.key.len() - model.reads as usize - locs;
        self.key.truncate(lw + locs);
        for loc in 0..locs {
            if !c.values || !self.relevant(c, s, loc as u32) {
                self.key[lw + loc] = 0;
            }
        }
    }

    /// The operations executed in `s`, as a bit set.
    fn executed(&self, s: &EmState) -> Box<[u64]> {
        let mut set = vec![0u64; self.st.words];
        for op in 0..self.st.n {
            if s.executed(op as u32) {
                set[op / 64] |= 1 << (op % 64);
            }
        }
        set.into()
    }

    /// Searches for a run that respects `c` and ends with exactly `c.end` executed and nothing
    /// enabled. With `ends`, searches on past every end and collects the end sets reached.
    /// None: no such run, or the search was stopped (the caller asks `search.stopped()`).
    fn search(
        &mut self,
        search: &mut Search<'_, EmModel>,
        c: &Constraints,
        mut ends: Option<&mut FxHashSet<Box<[u64]>>>,
    ) -> Option<(EmState, Vec<Choice>)> {
        let model = self.st.model;
        self.visited.clear();
        let mut s = model.initial();
        s.keep_journal();
        let mut path: Vec<Choice> = Vec::new();
        let mut root = Frame { mark: 0, choices: SmallVec::new(), next: 0 };
        self.choices(c, &s, &mut root.choices);
        let mut enabled = Vec::new();
        if root.choices.is_empty() && self.ended(c, &s, &mut enabled, ends.as_deref_mut()) {
            return Some((s, path));
        }
        let mut stack = vec![root];
        loop {
            if search.stopped() {
                return None;
            }
            let top = stack.last_mut()?;
            if top.next == top.choices.len() {
                let mark = top.mark;
                stack.pop();
                if !stack.is_empty() {
                    s.undo_to(mark);
                    path.pop();
                }
                continue;
            }
            let choice = top.choices[top.next];
            top.next += 1;
            let mark = s.journal_len();
            if model.step(&mut s, choice).is_err() {
                s.undo_to(mark);
                continue;
            }
            path.push(choice);
            search.transition(path.len());
            self.fill_key(c, &s);
            if self.visited.contains(self.key.as_slice()) {
                s.undo_to(mark);
                path.pop();
                continue;
            }
            self.visited.insert(self.key.as_slice().into());
            search.new_state();
            let mut frame = Frame { mark, choices: SmallVec::new(), next: 0 };
            self.choices(c, &s, &mut frame.choices);
            if frame.choices.is_empty() {
                if self.ended(c, &s, &mut enabled, ends.as_deref_mut()) {
                    return Some((s, path));
                }
                s.undo_to(mark);
                path.pop();
                continue;
            }
            stack.push(frame);
        }
    }

    /// At a state with no allowed choice: whether it is the end sought (nothing enabled, exactly
    /// the end set executed); with `ends`, records the end set instead and says no.
    fn ended(
        &self,
        c: &Constraints,
        s: &EmState,
        enabled: &mut Vec<Choice>,
        ends: Option<&mut FxHashSet<Box<[u64]>>>,
    ) -> bool {
        enabled.clear();
        self.st.model.enabled(s, enabled);
        if !enabled.is_empty() {
            return false;
        }
        let done = self.executed(s);
        match ends {
            Some(ends) => {
                ends.insert(done);
                false
            }
            None => done == c.end,
        }
    }

    /// Every end set a run can reach (the pre-pass, values ignored).
    fn end_sets(&mut self, search: &mut Search<'_, EmModel>) -> FxHashSet<Box<[u64]>> {
        let st = self.st;
        let locs = st.model.trace.locations.len();
        let mut all = vec![0u64; st.words];
        for op in 0..st.n {
            all[op / 64] |= 1 << (op % 64);
        }
        let c = Constraints {
            read: Vec::new(),
            fin: vec![FREE; locs],
            constrained: vec![SmallVec::new(); locs],
            end: all.into(),
            values: false,
            after: vec![Vec::new(); st.n],
        };
        let mut ends = FxHashSet::default();
        self.search(search, &c, Some(&mut ends));
        ends
    }
}

/// An observation of a run: what a read saw, or the last write of a location.
#[derive(Clone, Copy)]
enum Obs {
    Read(u32, u32),
    Final(u32),
}

struct Enumeration {
    blocked: u64,
    found: u64,
}

impl Enumeration {
    /// Enumerates the outcomes of the runs ending with `end` executed (module header, step 4).
    fn tree(&mut self, search: &mut Search<'_, EmModel>, w: &mut Witness<'_, '_>, end: &[u64]) {
        let st = w.st;
        let locs = st.model.trace.locations.len();
        let mut obs: Vec<(Obs, SmallVec<[u32; 4]>)> = Vec::new();
        for (loc, reads) in st.reads.iter().enumerate() {
            for &r in reads.iter().filter(|&&r| bit(end, r as usize)) {
                let cand = st.read_candidates(r, loc as u32, end);
                if cand.len() > 1 {
                    obs.push((Obs::Read(r, loc as u32), cand));
                }
            }
        }
        // Reads in recorded order, then final writes.
        obs.sort_by_key(|(o, _)| match *o {
            Obs::Read(r, _) => r,
            Obs::Final(_) => u32::MAX,
        });
        for loc in 0..locs as u32 {
            let cand = st.final_candidates(loc, end);
            if cand.len() > 1 {
                obs.push((Obs::Final(loc), cand));
            }
        }
        let mut c = Constraints {
            read: vec![FREE; st.n],
            fin: vec![FREE; locs],
            constrained: vec![SmallVec::new(); locs],
            end: end.into(),
            values: true,
            after: vec![Vec::new(); st.n],
        };
        let mut sat = Saturation::new(st);
        let mut nodes: Vec<Vec<u32>> = vec![Vec::new()];
        while let Some(prefix) = nodes.pop() {
            if search.stopped() {
                return;
            }
            // Fix the prefix.
            c.read.iter_mut().for_each(|v| *v = FREE);
            c.fin.iter_mut().for_each(|v| *v = FREE);
            c.constrained.iter_mut().for_each(SmallVec::clear);
            for (&(o, _), &v) in obs.iter().zip(&prefix) {
                match o {
                    Obs::Read(r, loc) => {
                        c.read[r as usize] = v;
                        c.constrained[loc as usize].push(r);
                    }
                    Obs::Final(loc) => c.fin[loc as usize] = v,
                }
            }
            let consistent = sat.run(&mut c, search);
            let found = if consistent { w.search(search, &c, None) } else { None };
            let Some((state, path)) = found else {
                if !search.stopped() {
                    self.blocked += 1;
                }
                continue;
            };
            self.found += 1;
            search.terminal(&state, &path);
            let seen: Vec<u32> = obs
                .iter()
                .map(|&(o, _)| match o {
                    Obs::Read(r, _) => st.model.observed(&state, r).unwrap_or(0),
                    Obs::Final(loc) => state.last_write(loc),
                })
                .collect();
            for j in (prefix.len()..obs.len()).rev() {
                for &v in obs[j].1.iter().filter(|&&v| v != seen[j]) {
                    let mut child = seen[..j].to_vec();
                    child.push(v);
                    nodes.push(child);
                }
            }
        }
    }
}

/// Saturation of the happens-before a node's constraints force (as RFSC and data-centric DPOR
/// saturate before searching): starting from `hb0`, edges that every run respecting the
/// constraints must have are added until none is new; a cycle proves the node blocked without
/// a search, and the edges prune the witness search (an operation waits for its new
/// predecessors). Each rule, for operations in the end set:
/// - a read `r` fixed to write `w`: `w < r`; to the initial value: `r` before every write;
///   every other write `w'` of the location: `w' < r` gives `w' < w`, `w < w'` gives `r < w'`;
/// - the final write fixed to `w`: every other write before `w`;
/// - critical sections of one lock on two threads: the one whose LOCK comes first is left
///   (its UNLOCK, or never when it has none) before the other's LOCK;
/// - two handlers of one looper: the one posted first is called first and returns before the
///   other is called (FIFO, one handler at a time); called first means posted first.
struct Saturation<'s, 'm> {
    st: &'s Statics<'m>,
    /// Row `x`: what comes before `x`.
    rows: Vec<u64>,
    /// The row being added to others (a buffer kept across edges).
    from: Vec<u64>,
}

impl<'s, 'm> Saturation<'s, 'm> {
    fn new(st: &'s Statics<'m>) -> Self {
        Saturation { st, rows: Vec::new(), from: Vec::new() }
    }

    fn before(&self, a: u32, b: u32) -> bool {
        bit(&self.rows[b as usize * self.st.words..], a as usize)
    }

    /// Adds `a < b` and what follows by transitivity; false on a cycle.
    fn add(&mut self, a: u32, b: u32, changed: &mut bool) -> bool {
        if a == b || self.before(b, a) {
            return false;
        }
        if self.before(a, b) {
            return true;
        }
        *changed = true;
        let w = self.st.words;
        self.from.clear();
        self.from.extend_from_slice(&self.rows[a as usize * w..(a as usize + 1) * w]);
        self.from[a as usize / 64] |= 1 << (a % 64);
        for x in 0..self.st.n {
            if x == b as usize || self.before(b, x as u32) {
                for (i, f) in self.from.iter().enumerate() {
                    self.rows[x * w + i] |= f;
                }
            }
        }
        true
    }

    /// Saturates the order for `c` and stores each operation's new predecessors in `c.after`;
    /// false when the constraints are contradictory.
    fn run(&mut self, c: &mut Constraints, search: &mut Search<'_, EmModel>) -> bool {
        let st = self.st;
        self.rows.clone_from(&st.hb);
        let in_end = |x: u32| x != NEVER && bit(&c.end, x as usize);
        let op = |index: u32| st.op_of_index[&index];
        loop {
            let mut changed = false;
            if search.poll() {
                return true;
            }
            for (loc, reads) in st.reads.iter().enumerate() {
                let writes: SmallVec<[u32; 8]> = st.writes[loc].iter().copied().filter(|&w| in_end(w)).collect();
                for &r in reads.iter().filter(|&&r| in_end(r) && c.read[r as usize] != FREE) {
                    let v = c.read[r as usize];
                    if v == 0 {
                        for &w2 in &writes {
                            if !self.add(r, w2, &mut changed) {
                                return false;
                            }
                        }
                        continue;
                    }
                    let w = op(v);
                    if !self.add(w, r, &mut changed) {
                        return false;
                    }
                    for &w2 in writes.iter().filter(|&&w2| w2 != w) {
                        if self.before(w2, r) && !self.add(w2, w, &mut changed) {
                            return false;
                        }
                        if self.before(w, w2) && !self.add(r, w2, &mut changed) {
                            return false;
                        }
                    }
                }
                let f = c.fin[loc];
                if f != FREE {
                    if f == 0 {
                        if !writes.is_empty() {
                            return false;
                        }
                    } else {
                        for &w2 in writes.iter().filter(|&&w2| w2 != op(f)) {
                            if !self.add(w2, op(f), &mut changed) {
                                return false;
                            }
                        }
                    }
                }
            }
            for sections in &st.sections {
                // A section its task never closes is left out: another task of its thread
                // may release the lock (the emulator's owner is the thread).
                for &(t1, a1, u1) in sections.iter().filter(|s| in_end(s.1) && s.2 != NEVER) {
                    for &(t2, a2, u2) in sections.iter().filter(|s| in_end(s.1)) {
                        if t1 == t2 {
                            continue;
                        }
                        // Sections of one lock on two threads never overlap: once this one
                        // starts before the other starts or ends, it ends before the other starts.
                        if self.before(a1, a2) || (u2 != NEVER && self.before(a1, u2)) {
                            // Left open (its task stuck inside, so its thread too): never free.
                            if !in_end(u1) {
                                return false;
                            }
                            if !self.add(u1, a2, &mut changed) {
                                return false;
                            }
                        }
                    }
                }
            }
            for handlers in &st.handlers {
                for &(p1, f1, l1) in handlers.iter().filter(|h| in_end(h.1)) {
                    for &(p2, f2, l2) in handlers.iter().filter(|h| in_end(h.1) && h.1 != f1) {
                        // h1 runs whole first when posted first, or when some operation of h1
                        // comes before some operation of h2 (then h1's start is before h2's
                        // end: handlers of one looper never overlap).
                        if self.before(p1, p2) || self.before(f1, l2) {
                            let ok = self.add(p1, p2, &mut changed) && self.add(l1, f2, &mut changed);
                            if !ok {
                                return false;
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let w = st.words;
        for x in 0..st.n {
            c.after[x].clear();
            for i in 0..w {
                let mut extra = self.rows[x * w + i] & !st.hb[x * w + i];
                while extra != 0 {
                    let b = extra.trailing_zeros() as usize;
                    extra &= extra - 1;
                    c.after[x].push((i * 64 + b) as u32);
                }
            }
        }
        true
    }
}
