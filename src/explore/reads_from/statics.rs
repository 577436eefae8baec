//! What holds in every run of an EM trace, for `optimal` (docs/optimal.md, "Static
//! happens-before"): the static happens-before `hb0` as clocks per chain, the candidates of
//! each observation, the stuck-end fixpoint, and the conflict groups the witness search counts.
//!
//! # `hb0` without an n x n matrix
//! `hb0` is the closure of program order (threads and handlers), the static enabling edges
//! (`waits_for`: FORK, ATTACH-Q -> post, enable -> trigger, dependence.txt), POST -> CALL,
//! LOOP -> CALL, and the FIFO rule of each looper: when post(m1) comes before post(m2) in `hb0`
//! (both handled by one looper), m1's RET comes before m2's CALL. Every such edge holds in
//! every run that executes its target (a looper calls the front of its queue and runs one
//! handler at a time), so `hb0` does. It is built in one topological pass (Kahn's algorithm; a
//! CALL waits until the RETs its FIFO edges name are placed) with [`ChainClocks`]
//! (src/model/clock.rs): an operation gets a chain and an index on it, and a clock with, per
//! chain, the latest index before or at it. `a` is before `b` iff `clock(b)[chain(a)] >=
//! index(a)`. With the FIFO edges, the handlers a looper receives from one poster form one
//! chain, so the width is about the number of threads plus the handlers that run
//! concurrently, not the number of handlers: the cost is n times that width.
//!
//! FIFO edges need only one RET per chain: on one chain the posts to a queue are ordered, so
//! the RET of the latest one before post(m2) comes after the RETs of the earlier ones (by the
//! FIFO rule among them). Should a CALL wait for ever (inputs whose edges contradict FIFO), it
//! is placed without the missing edges: fewer edges are still edges of every run.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::super::Search;
use crate::model::clock::ChainClocks;
use crate::model::em::{EmModel, NEVER};
use crate::trace::em::OpKind;

/// Bytes per operation the build of [`Statics`] holds at its peak, about (measured with the
/// counting allocator on benches/gen_race3.py traces: 1,000,000 operations, 8 chains).
const BYTES_PER_OP: u64 = 200;

/// Per looper (or lock): per chain, the (index, id) of its entries on that chain, by index.
pub type OnChains = Vec<(u32, Vec<(u32, u32)>)>;

/// What holds in every run: `hb0` and who can conflict with whom.
pub struct Statics<'m> {
    pub model: &'m EmModel,
    pub n: usize,
    /// Number of chains: the width of every clock.
    pub width: usize,
    /// Clocks of `hb0`, `width` per operation, back to back.
    pub clocks: Vec<u32>,
    /// Per operation: its chain and its index on it (from 1).
    pub chain: Vec<u32>,
    pub index_on: Vec<u32>,
    /// Per chain: its operations, by index (index i at position i - 1).
    pub chain_ops: Vec<Vec<u32>>,
    /// Successors in `hb0`'s generating edges (program order, static and FIFO edges), as
    /// ranges of `succ`: the graph a new edge's consequences are pushed along.
    pub succ_start: Vec<u32>,
    pub succ: Vec<u32>,
    /// Per location: its writes and its reads.
    pub writes: Vec<Vec<u32>>,
    /// Per location: its writes by chain, each list by index on the chain.
    pub writes_on: Vec<Vec<(u32, Vec<u32>)>>,
    pub reads: Vec<Vec<u32>>,
    /// Operation position of a trace index (a map: indices are the trace's own numbers).
    pub op_of_index: FxHashMap<u32, u32>,
    /// Outermost critical sections per lock: (thread, LOCK, matching UNLOCK or NEVER).
    pub sections: Vec<Vec<(u32, u32, u32)>>,
    /// Sections by lock and chain of their LOCK (ids index `sections[lock]`).
    pub sections_on: Vec<OnChains>,
    /// Handlers with a post: (looper, post, first, last).
    pub handlers: Vec<(u32, u32, u32, u32)>,
    /// Per looper: its handlers by chain of their CALL, and by chain of their POST.
    pub calls_on: Vec<OnChains>,
    pub posts_on: Vec<OnChains>,
    /// Per thread: the NOTIFYs that target it.
    pub notifies_to: Vec<Vec<u32>>,
    /// Per operation: its conflict group's (group, thread) pair, or NEVER (operations of no
    /// group). Groups: accesses of one location, LOCKs of one lock, posts to one queue,
    /// NOTIFYs of one target. The witness search counts live operations per pair.
    pub pair_of: Vec<u32>,
    /// Per pair: its group.
    pub pair_group: Vec<u32>,
    /// Per group: its (thread, pair) entries.
    pub group_pairs: Vec<SmallVec<[(u32, u32); 4]>>,
    /// Group of the posts to each thread's queue, and of the NOTIFYs aimed at each thread.
    pub queue_group: Vec<u32>,
    pub notify_group: Vec<u32>,
    /// Per location: its group.
    pub loc_group: Vec<u32>,
}

pub fn bit(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 != 0
}

/// Static predecessors of every operation except FIFO edges, as the model's acyclicity check
/// has them.
#[doc(hidden)]
pub fn static_preds(model: &EmModel) -> Vec<SmallVec<[u32; 3]>> {
    let n = model.trace.ops.len();
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
    preds
}

/// Appends entry (`index`, `id`) to chain `chain`'s list in `on`.
fn put_on_chain(on: &mut OnChains, chain: u32, index: u32, id: u32) {
    match on.iter_mut().find(|(c, _)| *c == chain) {
        Some((_, l)) => l.push((index, id)),
        None => on.push((chain, vec![(index, id)])),
    }
}

/// The latest entry of `list` (sorted by index) with index at most `bound`, skipping entry
/// `skip`: its position.
pub fn latest(list: &[(u32, u32)], bound: u32, skip: u32) -> Option<usize> {
    let mut i = list.partition_point(|&(ix, _)| ix <= bound);
    while i > 0 {
        i -= 1;
        if list[i].1 != skip {
            return Some(i);
        }
    }
    None
}

impl<'m> Statics<'m> {
    /// None when a limit stopped the search while building.
    pub fn new(search: &mut Search<'m, EmModel>) -> Option<Self> {
        let model = search.model;
        let n = model.trace.ops.len();
        let nt = model.threads.len();
        // What the build below holds at its peak, per operation (predecessor and successor
        // lists, the topological pass, the chain clocks of a few chains, the index map):
        // refused up front rather than passed in one allocation.
        if search.reserve(BYTES_PER_OP * n as u64) {
            return None;
        }
        let mut preds = static_preds(model);
        let mut succ_of: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];
        for (x, ps) in preds.iter().enumerate() {
            for &p in ps {
                succ_of[p as usize].push(x as u32);
            }
        }
        // Handlers with a post, and the message of each CALL.
        let mut handlers = Vec::new();
        let mut handler_of_call: FxHashMap<u32, u32> = FxHashMap::default();
        let mut handler_of_post: FxHashMap<u32, u32> = FxHashMap::default();
        for h in model.handlers.iter().flatten() {
            if let (Some(&first), Some(&last)) = (h.ops.first(), h.ops.last()) {
                if h.post != NEVER {
                    handler_of_call.insert(first, handlers.len() as u32);
                    handler_of_post.insert(h.post, handlers.len() as u32);
                    handlers.push((h.thread, h.post, first, last));
                }
            }
        }
        // Kahn's algorithm in which a CALL, once its static predecessors are placed, also
        // waits for the RETs of its FIFO edges.
        let mut indeg: Vec<u32> = preds.iter().map(|p| p.len() as u32).collect();
        let mut ready: Vec<u32> = (0..n as u32).filter(|&x| indeg[x as usize] == 0).collect();
        ready.reverse();
        let mut clocks = ChainClocks::default();
        let mut pos_of: Vec<u32> = vec![NEVER; n];
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut posts_on: Vec<OnChains> = vec![Vec::new(); nt];
        let mut waiting: FxHashMap<u32, SmallVec<[u32; 1]>> = FxHashMap::default();
        let mut deferred: Vec<u32> = Vec::new();
        let mut fifo: SmallVec<[u32; 8]> = SmallVec::new();
        let mut pos_preds: SmallVec<[u32; 8]> = SmallVec::new();
        let ends = |x: u32| {
            let t = model.op_task[x as usize] as usize;
            let last = match t.checked_sub(nt) {
                None => model.threads[t].own.last(),
                Some(h) => model.handlers[h].as_ref().and_then(|h| h.ops.last()),
            };
            last == Some(&x)
        };
        loop {
            let Some(x) = ready.pop() else {
                // Nothing ready: a CALL whose FIFO edges cannot be met is placed without them.
                match deferred.pop() {
                    Some(x) if pos_of[x as usize] != NEVER => continue,
                    Some(x) => {
                        if search.poll() {
                            return None;
                        }
                        let x = x as usize;
                        let prev = model.prev_in_task[x];
                        Self::place(&mut clocks, &mut pos_of, &mut order, x as u32, prev, &preds[x], &[], &ends);
                        Self::after_place(x as u32, &handler_of_post, &handlers, &clocks, &pos_of, &mut posts_on);
                        Self::release(x as u32, &succ_of, &mut indeg, &mut ready, &mut waiting);
                        continue;
                    }
                    None => break,
                }
            };
            if search.poll() {
                return None;
            }
            let xu = x as usize;
            if pos_of[xu] != NEVER {
                continue;
            }
            fifo.clear();
            let mut missing = NEVER;
            if let Some(&h2) = handler_of_call.get(&x) {
                let (looper, p2, _, _) = handlers[h2 as usize];
                let pc = clocks.clock(pos_of[p2 as usize] as usize);
                for (c, list) in &posts_on[looper as usize] {
                    let bound = pc.get(*c as usize).copied().unwrap_or(0);
                    if let Some(i) = latest(list, bound, h2) {
                        let ret = handlers[list[i].1 as usize].3;
                        if pos_of[ret as usize] == NEVER {
                            missing = ret;
                            break;
                        }
                        fifo.push(ret);
                    }
                }
            }
            if missing != NEVER {
                waiting.entry(missing).or_default().push(x);
                deferred.push(x);
                continue;
            }
            pos_preds.clear();
            pos_preds.extend(fifo.iter().copied());
            let prev = model.prev_in_task[xu];
            Self::place(&mut clocks, &mut pos_of, &mut order, x, prev, &preds[xu], &pos_preds, &ends);
            for &f in &fifo {
                preds[xu].push(f);
                succ_of[f as usize].push(x);
            }
            Self::after_place(x, &handler_of_post, &handlers, &clocks, &pos_of, &mut posts_on);
            Self::release(x, &succ_of, &mut indeg, &mut ready, &mut waiting);
        }
        let width = clocks.chains().max(1);
        if search.reserve((n * width * 4) as u64) {
            return None;
        }
        // Dense clocks by operation; ops never placed (none in an accepted trace) keep 0s.
        let mut dense = vec![0u32; n * width];
        let mut chain = vec![0u32; n];
        let mut index_on = vec![0u32; n];
        let mut chain_ops: Vec<Vec<u32>> = vec![Vec::new(); width];
        for (p, &x) in order.iter().enumerate() {
            if search.poll() {
                return None;
            }
            let c = clocks.clock(p);
            dense[x as usize * width..x as usize * width + c.len()].copy_from_slice(c);
            let st = clocks.stamp(p);
            chain[x as usize] = st.chain;
            index_on[x as usize] = st.index;
            chain_ops[st.chain as usize].push(x);
        }
        drop(clocks);
        let mut succ_start = vec![0u32; n + 1];
        for x in 0..n {
            succ_start[x + 1] = succ_start[x] + succ_of[x].len() as u32;
        }
        let succ: Vec<u32> = succ_of.iter().flatten().copied().collect();
        drop(succ_of);
        drop(preds);

        let locs = model.trace.locations.len();
        let mut st = Statics {
            model,
            n,
            width,
            clocks: dense,
            chain,
            index_on,
            chain_ops,
            succ_start,
            succ,
            writes: vec![Vec::new(); locs],
            writes_on: vec![Vec::new(); locs],
            reads: vec![Vec::new(); locs],
            op_of_index: FxHashMap::default(),
            sections: vec![Vec::new(); model.locks as usize],
            sections_on: vec![Vec::new(); model.locks as usize],
            handlers,
            calls_on: vec![Vec::new(); nt],
            posts_on: vec![Vec::new(); nt],
            notifies_to: vec![Vec::new(); nt],
            pair_of: vec![NEVER; n],
            pair_group: Vec::new(),
            group_pairs: Vec::new(),
            queue_group: Vec::new(),
            notify_group: Vec::new(),
            loc_group: Vec::new(),
        };
        for (h, &(looper, p, f, _)) in st.handlers.iter().enumerate() {
            for (op, on) in [(f, &mut st.calls_on[looper as usize]), (p, &mut st.posts_on[looper as usize])] {
                put_on_chain(on, st.chain[op as usize], st.index_on[op as usize], h as u32);
            }
        }
        for on in st.calls_on.iter_mut().chain(st.posts_on.iter_mut()) {
            for (_, l) in on.iter_mut() {
                l.sort_unstable();
            }
        }
        // Outermost sections: per task, in program order, a depth per lock.
        let mut depth: FxHashMap<(u32, u32), (u32, u32)> = FxHashMap::default();
        for x in 0..n as u32 {
            if search.poll() {
                return None;
            }
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
        let mut open: Vec<_> = depth.into_iter().filter(|(_, (d, _))| *d > 0).collect();
        open.sort_unstable();
        for ((_, l), (_, lock)) in open {
            st.sections[l as usize].push((model.op_thread[lock as usize], lock, NEVER));
        }
        for (l, secs) in st.sections.iter().enumerate() {
            let on = &mut st.sections_on[l];
            for (i, &(_, a, _)) in secs.iter().enumerate() {
                put_on_chain(on, st.chain[a as usize], st.index_on[a as usize], i as u32);
            }
            for (_, list) in on.iter_mut() {
                list.sort_unstable();
            }
        }
        // Conflict groups: per location, per lock, per queue, per NOTIFY target.
        let locks = model.locks as usize;
        st.loc_group = (0..locs as u32).collect();
        st.queue_group = (0..nt as u32).map(|t| (locs + locks) as u32 + t).collect();
        st.notify_group = (0..nt as u32).map(|t| (locs + locks + nt) as u32 + t).collect();
        st.group_pairs = vec![SmallVec::new(); locs + locks + 2 * nt];
        let mut pairs: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut npairs = 0u32;
        for (x, o) in model.trace.ops.iter().enumerate() {
            if search.poll() {
                return None;
            }
            st.op_of_index.insert(o.index, x as u32);
            let g = match o.kind {
                OpKind::Read { loc } => {
                    st.reads[loc as usize].push(x as u32);
                    loc
                }
                OpKind::Write { loc } => {
                    st.writes[loc as usize].push(x as u32);
                    loc
                }
                OpKind::Lock { .. } => (locs as u32) + model.lock_of(x as u32),
                OpKind::Post { msg, .. } => match &model.handlers[msg as usize] {
                    // The emulator queues a message on the thread that handles it.
                    Some(h) => st.queue_group[h.thread as usize],
                    None => continue,
                },
                OpKind::Notify { target } => match model.thread_of_raw(target) {
                    Some(d) => {
                        st.notifies_to[d as usize].push(x as u32);
                        st.notify_group[d as usize]
                    }
                    None => continue,
                },
                _ => continue,
            };
            let t = model.op_thread[x];
            let p = *pairs.entry((g, t)).or_insert_with(|| {
                st.group_pairs[g as usize].push((t, npairs));
                st.pair_group.push(g);
                npairs += 1;
                npairs - 1
            });
            st.pair_of[x] = p;
        }
        for (loc, ws) in st.writes.iter().enumerate() {
            let on = &mut st.writes_on[loc];
            for &w in ws {
                // A pass over the location's chains per write.
                if search.poll() {
                    return None;
                }
                let c = st.chain[w as usize];
                match on.iter_mut().find(|(c2, _)| *c2 == c) {
                    Some((_, l)) => l.push(w),
                    None => on.push((c, vec![w])),
                }
            }
            for (_, l) in on.iter_mut() {
                l.sort_unstable_by_key(|&w| st.index_on[w as usize]);
            }
        }
        Some(st)
    }

    /// Places `x` (its static predecessors `preds` and FIFO predecessors `extra` placed).
    #[allow(clippy::too_many_arguments)]
    fn place(
        clocks: &mut ChainClocks,
        pos_of: &mut [u32],
        order: &mut Vec<u32>,
        x: u32,
        prev_in_task: u32,
        preds: &[u32],
        extra: &[u32],
        ends: &impl Fn(u32) -> bool,
    ) {
        let mut ps: SmallVec<[u32; 8]> =
            preds.iter().chain(extra).map(|&p| pos_of[p as usize]).filter(|&p| p != NEVER).collect();
        ps.sort_unstable();
        ps.dedup();
        let prev = Some(prev_in_task).filter(|&p| p != NEVER).map(|p| pos_of[p as usize]).filter(|&p| p != NEVER);
        let order_ref: &[u32] = order;
        clocks.push(&ps, prev, |p| ends(order_ref[p as usize]));
        pos_of[x as usize] = order.len() as u32;
        order.push(x);
    }

    fn after_place(
        x: u32,
        handler_of_post: &FxHashMap<u32, u32>,
        handlers: &[(u32, u32, u32, u32)],
        clocks: &ChainClocks,
        pos_of: &[u32],
        posts_on: &mut [OnChains],
    ) {
        let Some(&h) = handler_of_post.get(&x) else { return };
        let looper = handlers[h as usize].0 as usize;
        let st = clocks.stamp(pos_of[x as usize] as usize);
        put_on_chain(&mut posts_on[looper], st.chain, st.index, h);
    }

    fn release(
        x: u32,
        succ_of: &[SmallVec<[u32; 2]>],
        indeg: &mut [u32],
        ready: &mut Vec<u32>,
        waiting: &mut FxHashMap<u32, SmallVec<[u32; 1]>>,
    ) {
        for &s in &succ_of[x as usize] {
            indeg[s as usize] -= 1;
            if indeg[s as usize] == 0 {
                ready.push(s);
            }
        }
        if let Some(w) = waiting.remove(&x) {
            ready.extend(w);
        }
    }
}

/// `hb0` as the search built it, kept past the search for the race analysis
/// ([`crate::explore::races`], which would otherwise build the same relation again):
/// [`Statics`]' clocks, chains and indices, by operation.
pub struct StaticHb {
    pub width: usize,
    pub clocks: Vec<u32>,
    pub chain: Vec<u32>,
    pub index_on: Vec<u32>,
}

impl StaticHb {
    /// The clock of `x`: per chain, the latest index before or at it.
    #[inline]
    pub fn clock(&self, x: usize) -> &[u32] {
        &self.clocks[x * self.width..(x + 1) * self.width]
    }

    /// The chain of `x` and its index on it.
    #[inline]
    pub fn stamp(&self, x: usize) -> crate::model::clock::Stamp {
        crate::model::clock::Stamp { chain: self.chain[x], index: self.index_on[x] }
    }
}

impl Statics<'_> {
    /// Its `hb0`, for the race analysis, once the search is done with it.
    pub fn into_hb(self) -> StaticHb {
        StaticHb { width: self.width, clocks: self.clocks, chain: self.chain, index_on: self.index_on }
    }
}

impl Statics<'_> {
    /// The `hb0` clock of `x`.
    #[inline]
    pub fn clock(&self, x: u32) -> &[u32] {
        &self.clocks[x as usize * self.width..(x as usize + 1) * self.width]
    }

    /// `a` happens before `b` (a != b) in every run that executes `b`.
    #[inline]
    pub fn before(&self, a: u32, b: u32) -> bool {
        a != b && self.clocks[b as usize * self.width + self.chain[a as usize] as usize] >= self.index_on[a as usize]
    }

    fn index(&self, op: u32) -> u32 {
        self.model.trace.ops[op as usize].index
    }

    /// Of `ws`, those no other one of `ws` comes after (`hb0`): only the latest of each chain
    /// can be, so at most `width` are compared pairwise.
    fn maximal(&self, ws: &[u32]) -> SmallVec<[u32; 4]> {
        let mut top: SmallVec<[u32; 4]> = SmallVec::new();
        for &w in ws {
            let c = self.chain[w as usize];
            match top.iter_mut().find(|t| self.chain[**t as usize] == c) {
                Some(t) => {
                    if self.index_on[w as usize] > self.index_on[*t as usize] {
                        *t = w;
                    }
                }
                None => top.push(w),
            }
        }
        let keep: SmallVec<[u32; 4]> =
            top.iter().copied().filter(|&w| !top.iter().any(|&w2| self.before(w, w2))).collect();
        keep
    }

    /// The writes read `r` could see in a run ending with `end` executed (0: the initial
    /// value): those `hb0` does not put after `r` nor certainly overwrite before it. Per chain
    /// of the location's writes: the latest one before `r` (the index `r`'s clock reaches on
    /// that chain), and those after it up to the first one `r` is before (along a chain the
    /// writes' clock components on `r`'s chain grow, so both ends are binary searches): the
    /// cost is the number of chains times a logarithm, plus the candidates themselves, not the
    /// location's writes (quadratic over a location every handler writes, as a scan was).
    pub fn read_candidates(&self, r: u32, loc: u32, end: &[u64]) -> SmallVec<[u32; 4]> {
        let rc = self.clock(r);
        let (r_chain, r_index) = (self.chain[r as usize] as usize, self.index_on[r as usize]);
        let mut below: SmallVec<[u32; 8]> = SmallVec::new();
        let mut seen: SmallVec<[u32; 8]> = SmallVec::new();
        for (c, ws) in &self.writes_on[loc as usize] {
            let k = rc[*c as usize];
            let split = ws.partition_point(|&w| self.index_on[w as usize] <= k);
            // Writes before `r` are in the end set (end sets are downward closed); the latest
            // of them in it, to be safe.
            if let Some(&w) = ws[..split].iter().rev().find(|&&w| bit(end, w as usize)) {
                below.push(w);
            }
            let after = split + ws[split..].partition_point(|&w| self.clock(w)[r_chain] < r_index);
            seen.extend(ws[split..after].iter().copied().filter(|&w| bit(end, w as usize)));
        }
        // A write before `r` is overwritten unless it is maximal among those before `r`.
        let last = self.maximal(&below);
        let mut out: SmallVec<[u32; 4]> = SmallVec::new();
        if below.is_empty() {
            out.push(0);
        }
        seen.extend(last);
        seen.sort_unstable();
        out.extend(seen.iter().map(|&w| self.index(w)));
        out
    }

    /// [`Statics::read_candidates`] by a scan of the location's writes (as it was
    /// before the per-chain search): the reference its test
    /// (tests/it/unit/explore/reads_from_statics.rs) compares with.
    #[doc(hidden)]
    pub fn read_candidates_by_scan(&self, r: u32, loc: u32, end: &[u64]) -> SmallVec<[u32; 4]> {
        let ws = &self.writes[loc as usize];
        let mut below: SmallVec<[u32; 8]> = SmallVec::new();
        for &w in ws.iter().filter(|&&w| bit(end, w as usize)) {
            if self.before(w, r) {
                below.push(w);
            }
        }
        // A write before `r` is overwritten unless it is maximal among those before `r`.
        let last = self.maximal(&below);
        let mut out = SmallVec::new();
        if below.is_empty() {
            out.push(0);
        }
        for &w in ws.iter().filter(|&&w| bit(end, w as usize)) {
            let seen = if self.before(w, r) { last.contains(&w) } else { !self.before(r, w) };
            if seen {
                out.push(self.index(w));
            }
        }
        out
    }

    /// The writes that can be last to `loc` in a run ending with `end` executed.
    pub fn final_candidates(&self, loc: u32, end: &[u64]) -> SmallVec<[u32; 4]> {
        let ws: Vec<u32> = self.writes[loc as usize].iter().copied().filter(|&w| bit(end, w as usize)).collect();
        if ws.is_empty() {
            return SmallVec::from_slice(&[0]);
        }
        let last = self.maximal(&ws);
        ws.iter().filter(|w| last.contains(w)).map(|&w| self.index(w)).collect()
    }
}
