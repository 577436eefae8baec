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
//!   `same_thread_unlock_edges` off (the unit test below checks it).

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

/// Clocks of every operation of the trace in the relation asked for; position = operation.
#[cfg(test)]
pub fn recorded(model: &EmModel, sync: bool) -> ChainClocks {
    let (with_sync, without) = both(model, sync, !sync, model.trace.ops.len());
    with_sync.or(without).expect("one relation asked for")
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

/// [`both_within`] without a budget.
#[cfg(test)]
pub fn both(model: &EmModel, sync: bool, plain: bool, upto: usize) -> (Option<ChainClocks>, Option<ChainClocks>) {
    both_within(model, sync, plain, upto, &Budget::unlimited()).expect("an unlimited budget")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::em_hb::EmHb;
    use crate::model::{load, LoadOptions, Loaded};

    /// Both relations equal EmHb's along the recorded path (with and without its lock and
    /// notify edges) on every shipped EM trace and fixture.
    #[test]
    fn forward_pass_is_emhb_on_the_recorded_run() {
        let dirs = crate::explore::reads_from::trace_dirs(&["../shared/traces/em-explorer", "fixtures/em"]);
        assert!(dirs.len() >= 30, "traces not found");
        let mut checked = 0;
        for d in &dirs {
            let Ok(Loaded::Em(model)) = load(d, LoadOptions::default()) else { continue };
            if model.replay_recorded().is_err() {
                continue;
            }
            let n = model.trace.ops.len();
            for sync in [false, true] {
                let fast = recorded(&model, sync);
                let mut hb = EmHb::new(&model);
                hb.same_thread_unlock_edges = false;
                for p in 0..n as u32 {
                    hb.push(p);
                }
                // EmHb always has lock and notify edges: without them, compare with a pass
                // over a model that has none only where the trace has none.
                let has_sync = model
                    .trace
                    .ops
                    .iter()
                    .any(|o| matches!(o.kind, OpKind::Lock { .. } | OpKind::Wait | OpKind::Notify { .. }));
                if !sync && has_sync {
                    continue;
                }
                for b in 0..n {
                    for a in 0..b {
                        assert_eq!(
                            fast.happens_before(a, b),
                            hb.happens_before(a, b),
                            "{} sync {sync}: {a} before {b}",
                            d.display()
                        );
                    }
                }
                checked += 1;
            }
        }
        assert!(checked >= 30, "only {checked} relations checked");
    }

    /// Up to [`first_edge_beyond`] the recorded run's happens-before is `hb0`: the pairs whose
    /// second access comes before it are the same in both (as sets), and `hb0`'s pairs include
    /// all of the other's; on every shipped EM trace and fixture with locks or notifies. The
    /// race analysis skips its pass on that ground (races.rs), on some of them (counted).
    #[test]
    fn before_the_first_new_edge_the_relations_are_one() {
        use crate::explore::races::{race_pairs, racing_locations};
        use crate::explore::{reads_from::ReadsFrom, Limits, Search, Strategy};
        let dirs = crate::explore::reads_from::trace_dirs(&["../shared/traces/em-explorer", "fixtures/em"]);
        let (mut checked, mut cut, mut whole) = (0, 0, 0);
        for d in &dirs {
            let Ok(Loaded::Em(model)) = load(d, LoadOptions::default()) else { continue };
            let has_sync = model
                .trace
                .ops
                .iter()
                .any(|o| matches!(o.kind, OpKind::Lock { .. } | OpKind::Wait | OpKind::Notify { .. }));
            if !has_sync || model.replay_recorded().is_err() {
                continue;
            }
            let mut search = Search::new(&model, Limits::default());
            search.keep_static_hb = true;
            ReadsFrom.run(&mut search);
            let kept = search.static_hb.take().expect("kept");
            let n = model.trace.ops.len();
            let all = vec![true; model.trace.locations.len()];
            let (can_race, upto) = racing_locations(&model);
            for (can, upto) in [(&all, n), (&can_race, upto)] {
                let first = first_edge_beyond(&model, &kept, upto, &Budget::unlimited());
                let full = recorded(&model, true);
                let (_, with_sync) = race_pairs(&model, &full, can, u64::MAX, n, &Budget::unlimited()).unwrap();
                let (_, plain) = race_pairs(&model, &kept, can, u64::MAX, n, &Budget::unlimited()).unwrap();
                let sorted = |v: &[(u32, u32)], upto: usize| {
                    let mut v: Vec<(u32, u32)> = v.iter().copied().filter(|&(_, b)| (b as usize) < upto).collect();
                    v.sort_unstable();
                    v
                };
                let name = d.display();
                assert_eq!(sorted(&with_sync, first), sorted(&plain, first), "{name}: pairs before {first}");
                let plain_all = sorted(&plain, n);
                assert!(sorted(&with_sync, n).iter().all(|p| plain_all.binary_search(p).is_ok()), "{name}");
                // So a pass up to the last of `hb0`'s pairs, at their locations only, lists the
                // same pairs in the same order.
                let last = plain.last().map_or(0, |&(_, b)| b as usize + 1);
                let mut on = vec![false; model.trace.locations.len()];
                for &(a, _) in &plain {
                    if let OpKind::Read { loc } | OpKind::Write { loc } = model.trace.ops[a as usize].kind {
                        on[loc as usize] = true;
                    }
                }
                let part = both(&model, true, false, last).0.expect("asked for");
                assert_eq!(
                    race_pairs(&model, &part, &on, u64::MAX, last, &Budget::unlimited()).unwrap().1,
                    with_sync,
                    "{name}: bounded pass"
                );
                if first < upto {
                    cut += 1;
                } else {
                    whole += 1;
                }
                checked += 1;
            }
        }
        // Both cases occur: a new edge somewhere, and none at all.
        assert!(checked >= 10 && cut >= 3 && whole >= 3, "{checked} checked, {cut} cut, {whole} whole");
    }

    /// The `hb0` `optimal` keeps for the analysis ([`StaticHb`]) is the relation the forward
    /// pass builds, on every shipped EM trace and fixture that replays as recorded.
    #[test]
    fn kept_hb0_is_the_forward_pass() {
        use crate::explore::{reads_from::ReadsFrom, Limits, Search, Strategy};
        let dirs = crate::explore::reads_from::trace_dirs(&["../shared/traces/em-explorer", "fixtures/em"]);
        let mut checked = 0;
        for d in &dirs {
            let Ok(Loaded::Em(model)) = load(d, LoadOptions::default()) else { continue };
            if model.replay_recorded().is_err() {
                continue;
            }
            let mut search = Search::new(&model, Limits::default());
            search.keep_static_hb = true;
            ReadsFrom.run(&mut search);
            let kept = search.static_hb.take().expect("kept");
            let built = recorded(&model, false);
            let before = |o: &dyn Order, a: usize, b: usize| {
                let st = o.stamp(a);
                o.clock(b).get(st.chain as usize).is_some_and(|&k| k >= st.index)
            };
            let n = model.trace.ops.len();
            for b in 0..n {
                for a in 0..n {
                    assert_eq!(before(&kept, a, b), before(&built, a, b), "{}: {a} before {b}", d.display());
                }
            }
            checked += 1;
        }
        assert!(checked >= 30, "only {checked} traces checked");
    }
}
