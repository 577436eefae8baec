//! The stuck end sets of `optimal` (docs/optimal.md, "End sets"): the sets of operations a run
//! can end with while some thread still has an operation to run, found from the trace's
//! structure instead of from its interleavings.
//!
//! # The terminal states, described by their frontier
//! A run is stuck when nothing is enabled and some operation never ran. Let `E` be what ran and
//! `N` the rest. Each thread that has not finished has a *next operation*, disabled for ever:
//! a LOCK whose lock another thread holds (its section is open in `E`), a WAIT whose thread got
//! no more NOTIFYs in `E` than it has WAITs in `E`, or an operation (a CALL at the front of a
//! queue too) whose static predecessor is in `N`. Call these the *frontier* `F`. A looper that
//! runs a handler (or holds one at the front of its queue) may also hold messages posted after
//! that one: its *queued* handlers `Q`. Then `N` is exactly the `hb0`-upward closure of `F`,
//! the CALLs of `Q`, and the operations that never run in any run (a static predecessor not in
//! the trace, a handler never posted or on a thread that never loops): an operation of `N` is
//! after the first operation of `N` of its task, which is a thread's next operation, or the
//! CALL of a handler that is queued, not posted (its POST is in `N`, before it), or on a looper
//! that has not looped (its LOOP is in `N`, before it); and `N` is `hb0`-upward closed since
//! `hb0` holds in every run. So a stuck end set is fixed by `(F, Q)`.
//!
//! # The search
//! - `F` lies in the greatest fixpoint of "may be disabled for ever" ([`disabled_for_ever`]):
//!   the frontier of a terminal state satisfies every rule of it (the argument at that
//!   function), so it is a post-fixpoint and within the greatest one. The fixpoint keeps the
//!   operations of deadlock patterns (both LOCKs of a lock-order inversion, a WAIT whose
//!   NOTIFYs can all be held back, what waits on those) and drops the rest.
//! - The candidates of each thread are its operations in that set; a depth-first search picks
//!   for each thread "finished" or one candidate, and prunes pairs that contradict `hb0` (what
//!   must have run for one thread to stop at its candidate may not come after another's).
//! - For a looper stopped in (or in front of) handler `h`, `Q` ranges over the sets of its other
//!   handlers not posted before `h` by `hb0`, closed under FIFO (one queued, every later-posted
//!   one queued).
//! - Each `(F, Q)` gives `E` (everything not after a root); it is kept when it is locally a
//!   terminal state: every thread's next operation at `E` is its frontier operation (none for a
//!   finished one; the handler queue's front for an idle looper) and each is disabled at `E`.
//!   Whether a run reaches it is decided by the caller's witness search (a search constrained
//!   to end there, as for any end set), which also finds its outcomes.
//!
//! So the cost grows with the combinations of deadlock patterns (the product of the candidates
//! per thread, pruned), not with the trace's interleavings; each candidate costs a pass over the
//! trace (times the number of roots) to be checked and written out. Every terminal state gives
//! an `(F, Q)` the search enumerates, so no stuck end set is lost.

use rustc_hash::FxHashSet;
use smallvec::SmallVec;

use super::super::Search;
use super::statics::Statics;
use crate::model::em::{EmModel, NEVER};
use crate::trace::em::OpKind;

/// Operations that never run in any run: a static predecessor missing from the trace, or the
/// CALL of a handler that is never posted or whose thread never loops.
fn never_run(st: &Statics<'_>) -> Vec<u32> {
    let model = st.model;
    let mut out: Vec<u32> = (0..st.n as u32).filter(|&x| model.waits_for[x as usize].contains(&NEVER)).collect();
    for h in model.handlers.iter().flatten() {
        let Some(&first) = h.ops.first() else { continue };
        if h.post == NEVER || model.threads[h.thread as usize].loop_after.is_none() {
            out.push(first);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The greatest fixpoint of "may be disabled for ever", as a flag per operation: it holds every
/// operation that is a thread's next operation in some stuck end. None when stopped.
///
/// In a stuck end some thread's next operation is disabled (a LOCK, a WAIT, or one waiting for
/// a static predecessor), and each such operation is disabled for a reason that is again such
/// an operation: the holder of the lock stuck inside its section (or a section never closed in
/// the trace); for a WAIT, so many of its thread's NOTIFYs never running that fewer run than
/// the WAITs that can precede it need; a predecessor that never runs because something before
/// it (by `hb0`, or in a handler its looper may run first, or a CALL that never runs) is stuck.
/// The frontier of a stuck end satisfies these rules with itself as the set, so it is within
/// the greatest fixpoint. Each round is linear in the operations (times the width).
pub fn disabled_for_ever(st: &Statics<'_>, search: &mut Search<'_, EmModel>) -> Option<Vec<bool>> {
    let model = st.model;
    let n = st.n;
    let nt = model.threads.len();
    let never_run = never_run(st);
    let mut waits: Vec<Vec<u32>> = vec![Vec::new(); nt];
    for (x, o) in model.trace.ops.iter().enumerate() {
        if matches!(o.kind, OpKind::Wait) {
            waits[model.op_thread[x] as usize].push(x as u32);
        }
    }
    // Per WAIT: the WAITs of its thread that can come before it, itself included (all but
    // those `hb0` puts after it). Static, so counted once: per thread and per chain of one of
    // its WAITs, the WAITs' clock components on that chain, sorted; those after `x` are the
    // ones reaching `x`'s index (`x` itself among them).
    let mut can_precede: rustc_hash::FxHashMap<u32, usize> = Default::default();
    for ws in &waits {
        let mut by_chain: rustc_hash::FxHashMap<u32, Vec<u32>> = Default::default();
        for &x in ws {
            if search.poll() {
                return None;
            }
            let c = st.chain[x as usize];
            let comps = by_chain.entry(c).or_insert_with(|| {
                let mut v: Vec<u32> = ws.iter().map(|&y| st.clock(y)[c as usize]).collect();
                v.sort_unstable();
                v
            });
            let after = comps.len() - comps.partition_point(|&k| k < st.index_on[x as usize]);
            debug_assert_eq!(ws.len() - after + 1, ws.iter().filter(|&&y| !st.before(x, y)).count());
            can_precede.insert(x, ws.len() - after + 1);
        }
    }
    let mut b: Vec<bool> = (0..n)
        .map(|x| {
            matches!(model.trace.ops[x].kind, OpKind::Lock { .. } | OpKind::Wait) || !model.waits_for[x].is_empty()
        })
        .collect();
    let w = st.width;
    // Per looper: its handlers (ids into `st.handlers`).
    let mut of_looper: Vec<Vec<u32>> = vec![Vec::new(); nt];
    for (h, &(l, ..)) in st.handlers.iter().enumerate() {
        of_looper[l as usize].push(h as u32);
    }
    loop {
        // M: the operations in B, those that never run, and the first operation of every
        // handler that a handler of its looper with an operation in B may run before (FIFO:
        // one whose post is not after this one's post), as the looper would hang there.
        let mut in_m = b.clone();
        for &x in &never_run {
            in_m[x as usize] = true;
        }
        // Per task: its operations in B, in program order.
        let mut in_task: rustc_hash::FxHashMap<u32, Vec<u32>> = Default::default();
        for x in (0..n).filter(|&x| b[x]) {
            in_task.entry(model.op_task[x]).or_default().push(x as u32);
        }
        let hangs = |h: u32| in_task.contains_key(&model.op_task[st.handlers[h as usize].2 as usize]);
        for hs in &of_looper {
            if search.poll() {
                return None;
            }
            // Per chain, the least clock component over the posts of handlers in B, and
            // the handler giving it; a handler hangs unless its post is before all of
            // those posts (but its own).
            let mut least = vec![(u32::MAX, NEVER, u32::MAX); w];
            for &h in hs.iter().filter(|&&h| hangs(h)) {
                let pc = st.clock(st.handlers[h as usize].1);
                for (c, l) in least.iter_mut().enumerate() {
                    if pc[c] < l.0 {
                        *l = (pc[c], h, l.0);
                    } else if pc[c] < l.2 {
                        l.2 = pc[c];
                    }
                }
            }
            for &h in hs {
                let (_, p, f, _) = st.handlers[h as usize];
                let (c, i) = (st.chain[p as usize] as usize, st.index_on[p as usize]);
                let bound = if least[c].1 == h { least[c].2 } else { least[c].0 };
                // Before all of them iff every such post's component reaches its index
                // (with none, the bound is u32::MAX and nothing makes it hang).
                if bound < i {
                    in_m[f as usize] = true;
                }
            }
        }
        // Per chain: the least index of an operation in M; `y` never runs when M has an
        // operation at or before it.
        let mut first_m = vec![u32::MAX; w];
        for x in (0..n).filter(|&x| in_m[x]) {
            let c = st.chain[x] as usize;
            first_m[c] = first_m[c].min(st.index_on[x]);
        }
        let never = |y: u32| y == NEVER || st.clock(y).iter().zip(&first_m).any(|(&k, &f)| k >= f);
        // Sections with an operation of B inside them (in their task, between LOCK and
        // UNLOCK), or never closed; per lock, how many, and how many on each thread.
        let mut holding: rustc_hash::FxHashMap<u32, (u32, rustc_hash::FxHashMap<u32, u32>)> = Default::default();
        for (l, secs) in st.sections.iter().enumerate() {
            for &(t1, a1, u1) in secs {
                let open = u1 == NEVER
                    || in_task.get(&model.op_task[a1 as usize]).is_some_and(|ops| {
                        let i = ops.partition_point(|&z| z <= a1);
                        ops.get(i).is_some_and(|&z| z < u1)
                    });
                if open {
                    let e = holding.entry(l as u32).or_default();
                    e.0 += 1;
                    *e.1.entry(t1).or_default() += 1;
                }
            }
        }
        let mut lost_notifies = vec![0usize; nt];
        for (t, ns) in st.notifies_to.iter().enumerate() {
            lost_notifies[t] = ns.iter().filter(|&&y| never(y)).count();
        }
        let mut next = b.clone();
        for x in (0..n).filter(|&x| b[x]) {
            if search.poll() {
                return None;
            }
            let t = model.op_thread[x];
            let mut keep = model.waits_for[x].iter().any(|&w| never(w));
            match model.trace.ops[x].kind {
                OpKind::Lock { .. } => {
                    if let Some((all, per)) = holding.get(&model.lock_of(x as u32)) {
                        keep |= *all > per.get(&t).copied().unwrap_or(0);
                    }
                }
                OpKind::Wait => {
                    // Blocked for ever only if fewer NOTIFYs run than the WAITs of its
                    // thread that can come before it (itself included) need.
                    keep |= st.notifies_to[t as usize].len() - lost_notifies[t as usize] < can_precede[&(x as u32)];
                }
                _ => {}
            }
            next[x] = keep;
        }
        if next == b {
            return Some(b);
        }
        b = next;
    }
}

/// The direct search for stuck end sets (module header).
pub struct StuckSearch<'s, 'm> {
    st: &'s Statics<'m>,
    /// Per thread: its candidate frontier operations, in trace order.
    cand: Vec<Vec<u32>>,
    /// Threads with candidates, in the order the search assigns them.
    order: Vec<u32>,
    /// Per thread: its frontier operation, or NEVER (finished).
    frontier: Vec<u32>,
    /// Operations that never run (roots of every end set).
    never: Vec<u32>,
    /// Per thread: its handlers (message ids with a handler that has operations).
    handlers_of: Vec<Vec<u32>>,
    /// Per thread: its WAITs.
    waits: Vec<Vec<u32>>,
    /// End sets found, and the set of them.
    found: Vec<Box<[u64]>>,
    seen: FxHashSet<Box<[u64]>>,
    /// Candidate end sets checked for being locally terminal (figures for the phases' report).
    pub checked: u64,
}

impl<'s, 'm> StuckSearch<'s, 'm> {
    /// `b`: the fixpoint of [`disabled_for_ever`].
    pub fn new(st: &'s Statics<'m>, b: &[bool]) -> Self {
        let model = st.model;
        let nt = model.threads.len();
        let mut cand: Vec<Vec<u32>> = vec![Vec::new(); nt];
        let mut waits: Vec<Vec<u32>> = vec![Vec::new(); nt];
        for x in 0..st.n {
            let t = model.op_thread[x] as usize;
            if b[x] {
                cand[t].push(x as u32);
            }
            if matches!(model.trace.ops[x].kind, OpKind::Wait) {
                waits[t].push(x as u32);
            }
        }
        let mut order: Vec<u32> = (0..nt as u32).filter(|&t| !cand[t as usize].is_empty()).collect();
        // Fewest candidates first: the pairwise pruning bites earlier.
        order.sort_by_key(|&t| cand[t as usize].len());
        let handlers_of = model
            .threads
            .iter()
            .map(|th| {
                th.messages
                    .iter()
                    .copied()
                    .filter(|&m| model.handlers[m as usize].as_ref().is_some_and(|h| !h.ops.is_empty()))
                    .collect()
            })
            .collect();
        StuckSearch {
            st,
            cand,
            order,
            frontier: vec![NEVER; nt],
            never: never_run(st),
            handlers_of,
            waits,
            found: Vec::new(),
            seen: FxHashSet::default(),
            checked: 0,
        }
    }

    /// Every stuck end set that is locally terminal (module header), sorted; a superset of the
    /// stuck end sets runs reach. None when stopped.
    pub fn end_sets(mut self, search: &mut Search<'_, EmModel>) -> Option<Vec<Box<[u64]>>> {
        if self.order.is_empty() {
            return Some(Vec::new());
        }
        if !self.assign(search, 0) {
            return None;
        }
        let mut out = self.found;
        out.sort();
        Some(out)
    }

    /// `a` is `b` or before it in `hb0`.
    fn leq(&self, a: u32, b: u32) -> bool {
        a == b || self.st.before(a, b)
    }

    /// Operations that must have run for thread `t` to stop at `f`: its predecessor in its
    /// task, and for a handler operation the thread's own code (its last operation) and the
    /// handler's POST.
    fn musts(&self, t: u32, f: u32) -> SmallVec<[u32; 3]> {
        let model = self.st.model;
        let mut m = SmallVec::new();
        let prev = model.prev_in_task[f as usize];
        if prev != NEVER {
            m.push(prev);
        }
        let task = model.op_task[f as usize] as usize;
        if let Some(h) = task.checked_sub(model.threads.len()).and_then(|m| model.handlers[m].as_ref()) {
            if let Some(&l) = model.threads[t as usize].own.last() {
                m.push(l);
            }
            if h.post != NEVER {
                m.push(h.post);
            }
        }
        m
    }

    /// Assigns the threads from `order[i]` on; false when stopped.
    fn assign(&mut self, search: &mut Search<'_, EmModel>, i: usize) -> bool {
        if search.poll() {
            return false;
        }
        let Some(&t) = self.order.get(i) else {
            if self.frontier.iter().any(|&f| f != NEVER) {
                return self.queues(search);
            }
            return true;
        };
        // Finished.
        self.frontier[t as usize] = NEVER;
        if !self.assign(search, i + 1) {
            return false;
        }
        for k in 0..self.cand[t as usize].len() {
            let f = self.cand[t as usize][k];
            let mine = self.musts(t, f);
            let clash = self.order[..i].iter().any(|&u| {
                let g = self.frontier[u as usize];
                g != NEVER && (mine.iter().any(|&m| self.leq(g, m)) || self.musts(u, g).iter().any(|&m| self.leq(f, m)))
            });
            if clash {
                continue;
            }
            self.frontier[t as usize] = f;
            if !self.assign(search, i + 1) {
                return false;
            }
        }
        self.frontier[t as usize] = NEVER;
        true
    }

    /// Whether `y` runs in the end set whose roots are `roots`: no root is `y` or before it.
    fn runs(&self, roots: &[u32], y: u32) -> bool {
        y != NEVER && !roots.iter().any(|&r| self.leq(r, y))
    }

    /// With the frontier fixed: the choices of queued handlers, each checked.
    fn queues(&mut self, search: &mut Search<'_, EmModel>) -> bool {
        let st = self.st;
        let model = st.model;
        let mut roots: Vec<u32> = self.never.clone();
        roots.extend(self.frontier.iter().copied().filter(|&f| f != NEVER));
        // Handlers that may be queued behind a stopped looper's handler: posted, not called
        // under the frontier alone, and not posted before it by `hb0`. (looper, message)
        let mut open: Vec<(u32, u32)> = Vec::new();
        for (t, &f) in self.frontier.iter().enumerate() {
            let task = model.op_task.get(f as usize).copied().unwrap_or(0) as usize;
            if f == NEVER || task < model.threads.len() {
                continue;
            }
            let Some(h) = model.handlers[task - model.threads.len()].as_ref() else { continue };
            for &m in &self.handlers_of[t] {
                let Some(h2) = model.handlers[m as usize].as_ref() else { continue };
                if h2.ops[0] == h.ops[0] || h2.post == NEVER || h.post == NEVER {
                    continue;
                }
                if !self.leq(h2.post, h.post) && self.runs(&roots, h2.post) && self.runs(&roots, h2.ops[0]) {
                    open.push((t as u32, m));
                }
            }
        }
        open.sort_by_key(|&(_, m)| model.handlers[m as usize].as_ref().map_or(0, |h| h.post));
        let mut queued: Vec<u32> = Vec::new();
        self.choose(search, &mut roots, &open, 0, &mut queued)
    }

    /// Decides for `open[i..]` queued or not (closed under FIFO), then checks the end set.
    fn choose(
        &mut self,
        search: &mut Search<'_, EmModel>,
        roots: &mut Vec<u32>,
        open: &[(u32, u32)],
        i: usize,
        queued: &mut Vec<u32>,
    ) -> bool {
        if search.poll() {
            return false;
        }
        let model = self.st.model;
        let Some(&(t, m)) = open.get(i) else {
            self.check(search, roots);
            return !search.stopped();
        };
        let post = |m: u32| model.handlers[m as usize].as_ref().map_or(NEVER, |h| h.post);
        // Posted after a queued handler of the same looper: queued too (FIFO), no choice.
        let forced = queued
            .iter()
            .any(|&q| model.handlers[q as usize].as_ref().is_some_and(|h| h.thread == t) && self.leq(post(q), post(m)));
        if !forced && !self.choose(search, roots, open, i + 1, queued) {
            return false;
        }
        let call = model.handlers[m as usize].as_ref().map_or(NEVER, |h| h.ops[0]);
        roots.push(call);
        queued.push(m);
        let ok = self.choose(search, roots, open, i + 1, queued);
        queued.pop();
        roots.pop();
        ok
    }

    /// Whether the end set of `roots` is locally terminal with the chosen frontier; if so it
    /// is recorded.
    fn check(&mut self, search: &mut Search<'_, EmModel>, roots: &[u32]) {
        self.checked += 1;
        let st = self.st;
        let model = st.model;
        let runs = |y: u32| self.runs(roots, y);
        for t in 0..model.threads.len() {
            let th = &model.threads[t];
            let f = self.frontier[t];
            // The thread's next operation at the end set.
            let own_done = th.own.last().is_none_or(|&l| runs(l));
            let next = if !own_done {
                let k = th.own.partition_point(|&y| runs(y));
                Some(th.own[k])
            } else if th.loop_after.is_some() {
                let mut running = None;
                let mut queued: SmallVec<[u32; 4]> = SmallVec::new();
                for &m in &self.handlers_of[t] {
                    let h = model.handlers[m as usize].as_ref().expect("has a handler");
                    let called = runs(h.ops[0]);
                    if called && !runs(*h.ops.last().expect("not empty")) {
                        if running.is_some() {
                            return;
                        }
                        running = Some(m);
                    } else if !called && runs(h.post) {
                        queued.push(m);
                    }
                }
                let post = |m: u32| model.handlers[m as usize].as_ref().map_or(NEVER, |h| h.post);
                match running {
                    Some(m) => {
                        // Handlers queued behind it were posted after it.
                        if queued.iter().any(|&q| self.leq(post(q), post(m))) {
                            return;
                        }
                        let h = model.handlers[m as usize].as_ref().expect("has a handler");
                        let k = h.ops.partition_point(|&y| runs(y));
                        Some(h.ops[k])
                    }
                    None if queued.is_empty() => None,
                    None => {
                        // The front: the frontier's CALL, posted before every other queued.
                        let front = queued
                            .iter()
                            .copied()
                            .find(|&m| model.handlers[m as usize].as_ref().is_some_and(|h| h.ops[0] == f));
                        match front {
                            Some(m) if !queued.iter().any(|&q| q != m && self.leq(post(q), post(m))) => Some(f),
                            _ => return,
                        }
                    }
                }
            } else {
                None
            };
            match next {
                None if f == NEVER => {}
                Some(x) if x == f && self.disabled(roots, t as u32, x) => {}
                _ => return,
            }
        }
        let mut set = vec![0u64; st.n.div_ceil(64).max(1)];
        for y in 0..st.n {
            // Each `runs` reads a clock (a pass over the chains): a poll each, which reads the
            // clock every 256 (gated to every 4,096 more, it read it every million).
            if search.poll() {
                return;
            }
            if runs(y as u32) {
                set[y / 64] |= 1 << (y % 64);
            }
        }
        let set: Box<[u64]> = set.into();
        if self.seen.insert(set.clone()) {
            self.found.push(set);
        }
    }

    /// Whether `x`, thread `t`'s next operation, is disabled for ever at the end set of `roots`.
    fn disabled(&self, roots: &[u32], t: u32, x: u32) -> bool {
        let st = self.st;
        let model = st.model;
        let runs = |y: u32| self.runs(roots, y);
        if model.waits_for[x as usize].iter().any(|&w| !runs(w)) {
            return true;
        }
        match model.trace.ops[x as usize].kind {
            // Another thread holds the lock: one of its sections is open at the end.
            OpKind::Lock { .. } => st.sections[model.lock_of(x) as usize]
                .iter()
                .any(|&(u, a, un)| u != t && runs(a) && (un == NEVER || !runs(un))),
            // No NOTIFY left for it: as many ran as its thread's WAITs that ran.
            OpKind::Wait => {
                let notified = st.notifies_to[t as usize].iter().filter(|&&y| runs(y)).count();
                let waited = self.waits[t as usize].iter().filter(|&&y| runs(y)).count();
                notified <= waited
            }
            _ => false,
        }
    }
}
