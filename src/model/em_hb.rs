//! Happens-before along one execution of an EM trace (em-trace.md): program order inside a
//! thread and inside a handler; FORK -> the child's first operation; POST -> the CALL of that
//! message; ATTACH-Q -> posts to that queue; LOOP -> CALLs; UNLOCK -> a later LOCK of the same
//! lock; NOTIFY -> the WAIT it releases; the FIFO rule (if post(m1) happens before post(m2) on
//! the same queue, RET of m1 happens before CALL of m2); lifecycle ENABLE -> TRIGGER; every
//! dependence.txt edge.
//!
//! The tracker follows a path: [`EmHb::push`] an executed operation, [`EmHb::pop`] it when
//! backtracking. Everything it keeps is indexed by operation or path position, so undoing a
//! step is truncating. Strategies that need more edges (conflicting accesses for DPOR) pass
//! them to [`EmHb::push_with`].
//!
//! The clocks are [`ChainClocks`]: one component per chain of events ordered by happens-before,
//! not one per task (thread or handler), so that a path step costs memory independent of the
//! number of handlers of the trace; src/model/clock.rs says why they answer the same queries.

use smallvec::SmallVec;

use super::clock::ChainClocks;
use super::em::{EmModel, NEVER};
use crate::trace::em::OpKind;

pub struct EmHb<'m> {
    model: &'m EmModel,
    /// Per path position: the operation; and the clocks.
    ops: Vec<u32>,
    clocks: ChainClocks,
    /// Per operation: its path position, NEVER when not on the path.
    pos_of_op: Vec<u32>,
    /// Per lock: path positions of its UNLOCKs, in order.
    unlocks: Vec<SmallVec<[u32; 4]>>,
    /// Per thread: path positions of the NOTIFYs aimed at it, and WAITs it executed.
    notifies: Vec<SmallVec<[u32; 2]>>,
    waits: Vec<u32>,
    /// Whether a LOCK is ordered after an UNLOCK of the same thread (true by default). EM-DPOR
    /// turns it off: handlers of one looper never contend for a lock, and EM-Explorer orders a
    /// LOCK only after other threads' UNLOCKs.
    pub same_thread_unlock_edges: bool,
}

impl<'m> EmHb<'m> {
    pub fn new(model: &'m EmModel) -> Self {
        let nt = model.threads.len();
        EmHb {
            model,
            ops: Vec::new(),
            clocks: ChainClocks::default(),
            pos_of_op: vec![NEVER; model.trace.ops.len()],
            unlocks: vec![SmallVec::new(); model.locks as usize],
            notifies: vec![SmallVec::new(); nt],
            waits: vec![0; nt],
            same_thread_unlock_edges: true,
        }
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The operation at path position `i`.
    pub fn op(&self, i: usize) -> u32 {
        self.ops[i]
    }

    /// The clock of path position `i`, one component per chain ([`ChainClocks`]).
    pub fn clock(&self, i: usize) -> &[u32] {
        self.clocks.clock(i)
    }

    /// Number of chains the clocks use (their width).
    pub fn chains(&self) -> usize {
        self.clocks.chains()
    }

    /// Path position of `op`, if it ran.
    pub fn position(&self, op: u32) -> Option<usize> {
        let p = self.pos_of_op[op as usize];
        (p != NEVER).then_some(p as usize)
    }

    /// Whether the event at path position `a` happens before the one at `b`.
    #[inline]
    pub fn happens_before(&self, a: usize, b: usize) -> bool {
        self.clocks.happens_before(a, b)
    }

    /// Appends executed operation `op` (the next of its task) to the path.
    pub fn push(&mut self, op: u32) {
        self.push_with(op, std::iter::empty());
    }

    /// Appends `op`, also ordering after it the events at the path positions in `extra`.
    pub fn push_with(&mut self, op: u32, extra: impl IntoIterator<Item = usize>) {
        let m = self.model;
        let o = m.trace.ops[op as usize];
        let thread = m.op_thread[op as usize] as usize;
        let mut preds: SmallVec<[u32; 8]> = SmallVec::new();
        let pred_op = |op: u32, preds: &mut SmallVec<[u32; 8]>| {
            if op != NEVER && self.pos_of_op[op as usize] != NEVER {
                preds.push(self.pos_of_op[op as usize]);
            }
        };
        pred_op(m.prev_in_task[op as usize], &mut preds);
        for &w in &m.waits_for[op as usize] {
            pred_op(w, &mut preds);
        }
        match o.kind {
            OpKind::Call { msg } => {
                if let Some(h) = &m.handlers[msg as usize] {
                    pred_op(h.post, &mut preds);
                    let th = &m.threads[thread];
                    if let Some(l) = th.loop_after {
                        pred_op(th.own[l as usize - 1], &mut preds);
                    }
                    // FIFO rule, against every earlier handler of this looper that returned.
                    if let Some(post2) = self.position(h.post) {
                        for &m1 in &th.messages {
                            let Some(h1) = &m.handlers[m1 as usize] else {
                                continue;
                            };
                            let (Some(&ret1), Some(post1)) = (h1.ops.last(), self.position(h1.post)) else {
                                continue;
                            };
                            if m1 != msg && self.position(ret1).is_some() && self.happens_before(post1, post2) {
                                pred_op(ret1, &mut preds);
                            }
                        }
                    }
                }
            }
            OpKind::Lock { .. } => {
                let unlocks = &self.unlocks[m.lock_of(op) as usize];
                let other = |&&u: &&u32| m.op_thread[self.ops[u as usize] as usize] as usize != thread;
                let last =
                    if self.same_thread_unlock_edges { unlocks.last() } else { unlocks.iter().rev().find(other) };
                if let Some(&u) = last {
                    preds.push(u);
                }
            }
            OpKind::Wait => {
                if let Some(&n) = self.notifies[thread].get(self.waits[thread] as usize) {
                    preds.push(n);
                }
            }
            _ => {}
        }
        preds.extend(extra.into_iter().map(|p| p as u32));

        let prev = Some(m.prev_in_task[op as usize]).filter(|&p| p != NEVER).and_then(|p| self.position(p));
        let prev = prev.map(|p| p as u32);
        let ops = &self.ops;
        let ends = |p: u32| {
            let o = ops[p as usize];
            let t = m.op_task[o as usize] as usize;
            let last = match t.checked_sub(m.threads.len()) {
                None => m.threads[t].own.last(),
                Some(h) => m.handlers[h].as_ref().and_then(|h| h.ops.last()),
            };
            last == Some(&o)
        };
        self.clocks.push(&preds, prev, ends);

        let pos = self.ops.len() as u32;
        match o.kind {
            OpKind::Unlock { .. } => self.unlocks[m.lock_of(op) as usize].push(pos),
            OpKind::Notify { target } => {
                if let Some(d) = m.thread_of_raw(target) {
                    self.notifies[d as usize].push(pos);
                }
            }
            OpKind::Wait => self.waits[thread] += 1,
            _ => {}
        }
        self.pos_of_op[op as usize] = pos;
        self.ops.push(op);
    }

    /// Removes the last event of the path.
    pub fn pop(&mut self) {
        let Some(op) = self.ops.pop() else { return };
        self.clocks.pop();
        let m = self.model;
        let o = m.trace.ops[op as usize];
        let thread = m.op_thread[op as usize] as usize;
        match o.kind {
            OpKind::Unlock { .. } => {
                self.unlocks[m.lock_of(op) as usize].pop();
            }
            OpKind::Notify { target } => {
                if let Some(d) = m.thread_of_raw(target) {
                    self.notifies[d as usize].pop();
                }
            }
            OpKind::Wait => self.waits[thread] -= 1,
            _ => {}
        }
        self.pos_of_op[op as usize] = NEVER;
    }
}
