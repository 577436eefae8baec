//! Happens-before along one execution of an EM trace, with one vector clock per task
//! (em-trace.md): program order inside a thread and inside a handler; FORK -> the child's first
//! operation; POST -> the CALL of that message; ATTACH-Q -> posts to that queue; LOOP -> CALLs;
//! UNLOCK -> a later LOCK of the same lock; NOTIFY -> the WAIT it releases; the FIFO rule (if
//! post(m1) happens before post(m2) on the same queue, RET of m1 happens before CALL of m2);
//! lifecycle ENABLE -> TRIGGER; every dependence.txt edge.
//!
//! The tracker follows a path: [`EmHb::push`] an executed operation, [`EmHb::pop`] it when
//! backtracking. Everything it keeps is indexed by operation or path position, so undoing a
//! step is truncating. Strategies that need more edges (conflicting accesses for DPOR) pass
//! them to [`EmHb::push_with`].

use smallvec::SmallVec;

use super::clock::{happens_before, VectorClock};
use super::em::{EmModel, NEVER};
use crate::trace::em::OpKind;

pub struct EmHb<'m> {
    model: &'m EmModel,
    /// Per path position: the operation and its clock.
    ops: Vec<u32>,
    clocks: Vec<VectorClock>,
    /// Clocks of popped events, kept so that a push allocates nothing once warmed up.
    spare: Vec<VectorClock>,
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
            clocks: Vec::new(),
            spare: Vec::new(),
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

    pub fn clock(&self, i: usize) -> &VectorClock {
        &self.clocks[i]
    }

    /// Path position of `op`, if it ran.
    pub fn position(&self, op: u32) -> Option<usize> {
        let p = self.pos_of_op[op as usize];
        (p != NEVER).then_some(p as usize)
    }

    /// Whether the event at path position `a` happens before the one at `b`.
    pub fn happens_before(&self, a: usize, b: usize) -> bool {
        let task = self.model.op_task[self.ops[a] as usize] as usize;
        happens_before(&self.clocks[a], task, &self.clocks[b])
    }

    /// Appends executed operation `op` (the next of its task) to the path.
    pub fn push(&mut self, op: u32) {
        self.push_with(op, std::iter::empty());
    }

    /// Appends `op`, also ordering after it the events at the path positions in `extra`.
    pub fn push_with(&mut self, op: u32, extra: impl IntoIterator<Item = usize>) {
        let m = self.model;
        let o = m.trace.ops[op as usize];
        let task = m.op_task[op as usize] as usize;
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

        let mut clock = self.spare.pop().unwrap_or_default();
        clock.reset(m.tasks());
        for &p in &preds {
            clock.join(&self.clocks[p as usize]);
        }
        let own = clock.get(task) + 1;
        clock.set(task, own);

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
        self.clocks.push(clock);
    }

    /// Removes the last event of the path.
    pub fn pop(&mut self) {
        let Some(op) = self.ops.pop() else { return };
        if let Some(c) = self.clocks.pop() {
            self.spare.push(c);
        }
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
