//! Happens-before along the recorded run, in one forward pass over the trace (its order is an
//! execution, so every edge points backwards), as [`ChainClocks`] indexed by operation.
//!
//! Two relations, the same edges but for synchronisation:
//! - `hb0` (`sync` false): program order of threads and handlers, the static edges
//!   (`waits_for`: FORK, ATTACH-Q -> post, enable -> trigger, dependence.txt), POST -> CALL,
//!   LOOP -> CALL and the FIFO rule. These hold in every run (src/explore/reads_from/statics.rs
//!   builds the same closure for `optimal`, by a topological pass; here the recorded order is
//!   one). The FIFO rule closes over the relation being built: when post(m1) is before post(m2)
//!   (same looper), m1's RET is before m2's CALL; only the latest such post on each chain is
//!   needed (statics.rs says why), found by binary search in the looper's posts per chain, so
//!   a CALL costs the number of chains, not of handlers.
//! - the recorded run's happens-before (`sync` true), DroidRacer's for races: the above, plus
//!   UNLOCK -> a later LOCK of the same lock *on another thread* (DroidRacer: tasks of one
//!   looper run one after another, so a lock orders nothing between them), and NOTIFY -> the
//!   WAIT it released (the k-th NOTIFY aimed at a thread releases its k-th WAIT). It is
//!   [`crate::model::em_hb::EmHb`]'s relation on the recorded path with
//!   `same_thread_unlock_edges` off (tests/it/unit/explore/races_hb.rs checks it).

use smallvec::SmallVec;

use crate::explore::reads_from::StaticHb;
use crate::explore::Budget;
use crate::model::clock::{ChainClocks, Stamp};
use crate::model::em::{EmModel, NEVER};
use crate::trace::em::OpKind;

/// A relation as clocks per chain, by operation: `a` is before `b` iff
/// `clock(b)[stamp(a).chain] >= stamp(a).index`. Built here ([`ChainClocks`]) or kept from
/// `optimal`'s search ([`StaticHb`], its `hb0`).
pub trait Order {
    fn clock(&self, op: usize) -> &[u32];
    fn stamp(&self, op: usize) -> Stamp;
}

impl Order for ChainClocks {
    #[inline]
    fn clock(&self, op: usize) -> &[u32] {
        ChainClocks::clock(self, op)
    }

    #[inline]
    fn stamp(&self, op: usize) -> Stamp {
        ChainClocks::stamp(self, op)
    }
}

impl Order for StaticHb {
    #[inline]
    fn clock(&self, op: usize) -> &[u32] {
        StaticHb::clock(self, op)
    }

    #[inline]
    fn stamp(&self, op: usize) -> Stamp {
        StaticHb::stamp(self, op)
    }
}

/// One relation being built: its clocks and what its FIFO, lock and notify edges look up.
struct Relation {
    sync: bool,
    clocks: ChainClocks,
    /// Per looper, per chain: (index, RET) of the handled messages whose POST is on that chain.
    posts_on: Vec<Vec<(u32, Vec<(u32, u32)>)>>,
    /// Its lock and notify edges, when it has them.
    edges: SyncEdges,
}

/// The recorded run's lock and notify edges, found along the recorded order: the edge into
/// each LOCK and WAIT. One definition for the pass ([`both`]) and for [`first_edge_beyond`].
pub struct SyncEdges {
    /// Per lock: the latest UNLOCK (thread, position) and the latest of another thread than it.
    unlocks: Vec<[Option<(u32, u32)>; 2]>,
    notifies: Vec<Vec<u32>>,
    waits: Vec<usize>,
}

impl SyncEdges {
    fn new(model: &EmModel) -> Self {
        let nt = model.threads.len();
        SyncEdges {
            unlocks: vec![[None, None]; model.locks as usize],
            notifies: vec![Vec::new(); nt],
            waits: vec![0usize; nt],
        }
    }

    fn none() -> Self {
        SyncEdges { unlocks: Vec::new(), notifies: Vec::new(), waits: Vec::new() }
    }

    /// The source of the lock or notify edge into operation `p` (run by `thread`), if any;
    /// called once per operation in the recorded order, before [`SyncEdges::after`].
    fn edge_into(&mut self, model: &EmModel, p: u32, kind: OpKind, thread: u32) -> Option<u32> {
        match kind {
            OpKind::Lock { .. } => {
                let [last, other] = self.unlocks[model.lock_of(p) as usize];
                let from_other = match last {
                    Some((t, _)) if t != thread => last,
                    _ => other,
                };
                from_other.map(|(_, u)| u)
            }
            OpKind::Wait => {
                let n = self.notifies[thread as usize].get(self.waits[thread as usize]).copied();
                self.waits[thread as usize] += 1;
                n
            }
            _ => None,
        }
    }

    /// What operation `p` leaves for later edges (an UNLOCK, a NOTIFY).
    fn after(&mut self, model: &EmModel, p: u32, kind: OpKind, thread: u32) {
        match kind {
            OpKind::Unlock { .. } => {
                let u = &mut self.unlocks[model.lock_of(p) as usize];
                match u[0] {
                    Some((t, _)) if t == thread => u[0] = Some((thread, p)),
                    _ => *u = [Some((thread, p)), u[0]],
                }
            }
            OpKind::Notify { target } => {
                if let Some(d) = model.thread_of_raw(target) {
                    self.notifies[d as usize].push(p);
                }
            }
            _ => {}
        }
    }
}

/// The first operation, among the first `upto`, whose lock or notify edge `hb0` does not already
/// order (`upto` when none). Up to it the recorded run's happens-before *is* `hb0`: the pass
/// builds the closure of the same edges, every edge points backwards, and an edge the closure
/// already holds adds nothing (the FIFO rule then finds the same posts ordered too, by
/// induction along the recorded order). So pairs whose second access comes before it race in
/// one relation iff they race in the other.
/// Polls `budget` every [`POLL_EVERY`] operations: once it is spent, answers 0 (nothing
/// known to be the same; the caller's next pass stops at its first poll).
pub fn first_edge_beyond(model: &EmModel, hb0: &dyn Order, upto: usize, budget: &Budget) -> usize {
    let n = upto.min(model.trace.ops.len());
    let mut edges = SyncEdges::new(model);
    let before = |a: u32, b: u32| {
        let st = hb0.stamp(a as usize);
        hb0.clock(b as usize).get(st.chain as usize).is_some_and(|&k| k >= st.index)
    };
    for p in 0..n as u32 {
        if p % POLL_EVERY == 0 && budget.poll() {
            return 0;
        }
        let kind = model.trace.ops[p as usize].kind;
        if !matches!(kind, OpKind::Lock { .. } | OpKind::Unlock { .. } | OpKind::Wait | OpKind::Notify { .. }) {
            continue;
        }
        let thread = model.op_thread[p as usize];
        if edges.edge_into(model, p, kind, thread).is_some_and(|u| !before(u, p)) {
            return p as usize;
        }
        edges.after(model, p, kind, thread);
    }
    n
}

/// The recorded run's happens-before (`sync`) and `hb0` (`plain`), those asked for, in one
/// forward pass: the edges both share (program order, static edges, LOOP -> CALL) are found
/// once per operation (the race analysis needs both when the trace synchronises). The clocks
/// of the first `upto` operations (edges point backwards, so they do not depend on the rest).
/// Polls `budget` every [`POLL_EVERY`] operations: None once it is spent (a pass over a large
/// trace takes seconds).
pub fn both_within(
    model: &EmModel,
    sync: bool,
    plain: bool,
    upto: usize,
    budget: &Budget,
) -> Option<(Option<ChainClocks>, Option<ChainClocks>)> {
    let n = upto.min(model.trace.ops.len());
    let nt = model.threads.len();
    let mut rels: SmallVec<[Relation; 2]> = [true, false]
        .into_iter()
        .filter(|&s| if s { sync } else { plain })
        .map(|sync| Relation {
            sync,
            // Clocks are rarely wider than the threads (chains: docs of ChainClocks).
            clocks: ChainClocks::with_capacity(n, nt.min(8)),
            posts_on: vec![Vec::new(); nt],
            edges: if sync { SyncEdges::new(model) } else { SyncEdges::none() },
        })
        .collect();
    let ends = |p: u32| {
        let t = model.op_task[p as usize] as usize;
        let last = match t.checked_sub(nt) {
            None => model.threads[t].own.last(),
            Some(h) => model.handlers[h].as_ref().and_then(|h| h.ops.last()),
        };
        last == Some(&p)
    };
    // Plain vectors, reused: SmallVec's inline-or-heap checks cost more here than they save.
    let mut common: Vec<u32> = Vec::with_capacity(16);
    let mut preds: Vec<u32> = Vec::with_capacity(16);
    for p in 0..n as u32 {
        if p % POLL_EVERY == 0 && budget.poll() {
            return None;
        }
        let pu = p as usize;
        common.clear();
        let prev = Some(model.prev_in_task[pu]).filter(|&q| q != NEVER && q < p);
        common.extend(prev);
        common.extend(model.waits_for[pu].iter().copied().filter(|&w| w != NEVER && w < p));
        let thread = model.op_thread[pu];
        let kind = model.trace.ops[pu].kind;
        // A CALL's handler, when its POST ran before it (the FIFO rule's edges then).
        let mut posted = None;
        if let OpKind::Call { msg } = kind {
            if let Some(h) = &model.handlers[msg as usize] {
                let th = &model.threads[h.thread as usize];
                if let Some(l) = th.loop_after.filter(|&l| l > 0) {
                    common.push(th.own[l as usize - 1]);
                }
                if h.post != NEVER && h.post < p {
                    common.push(h.post);
                    posted = Some(h);
                }
            }
        }
        for r in rels.iter_mut() {
            preds.clear();
            preds.extend_from_slice(&common);
            if let Some(h) = posted {
                let pc = r.clocks.clock(h.post as usize);
                for (c, list) in &r.posts_on[h.thread as usize] {
                    let bound = pc.get(*c as usize).copied().unwrap_or(0);
                    let i = list.partition_point(|&(ix, _)| ix <= bound);
                    // The post itself is not on the list yet (added at its RET).
                    if let Some(&(_, ret)) = i.checked_sub(1).map(|i| &list[i]) {
                        if ret < p {
                            preds.push(ret);
                        }
                    }
                }
            }
            if r.sync {
                preds.extend(r.edges.edge_into(model, p, kind, thread));
            }
            preds.sort_unstable();
            preds.dedup();
            if !budget.room_for(r.clocks.growth_bytes()) {
                return None;
            }
            r.clocks.push(&preds, prev, ends);
            if r.sync {
                r.edges.after(model, p, kind, thread);
            }
            if let OpKind::Ret { msg } = kind {
                // A handled message enters its looper's FIFO lists once it returned, under its
                // POST's place (the lists stay sorted: on one chain, posts to a looper are
                // handled, so return, in their order).
                if let Some(h) = model.handlers[msg as usize].as_ref().filter(|h| h.post != NEVER && h.post < p) {
                    let st = r.clocks.stamp(h.post as usize);
                    let on = &mut r.posts_on[h.thread as usize];
                    match on.iter_mut().find(|(c, _)| *c == st.chain) {
                        Some((_, l)) => l.push((st.index, p)),
                        None => on.push((st.chain, vec![(st.index, p)])),
                    }
                }
            }
        }
    }
    let mut out = rels.into_iter().map(|r| (r.sync, r.clocks));
    let (mut with_sync, mut without) = (None, None);
    for (s, c) in &mut out {
        if s {
            with_sync = Some(c);
        } else {
            without = Some(c);
        }
    }
    Some((with_sync, without))
}

/// Operations between two polls of the run's budget in a pass (some microseconds of work).
pub const POLL_EVERY: u32 = 1024;
