//! The DPOR core's indexes of the path ([`super::engine`]): per shared object, the path
//! positions of the transitions that touched it, so that the race rules find the last
//! conflicting transition of a location, lock or queue without walking the path, and the core
//! adds the conflict edges of each step to the clocks. Kept in step with the path by the core
//! ([`PathIndex::push`] after a step, [`PathIndex::pop`] when it is undone).
//!
//! What counts as an access is DPOR's dependence on EM traces (docs/em-dpor.md §4.1, §4.6):
//! READs and WRITEs of a location, and the two orders that choose which NOTIFY releases a WAIT
//! (see [`PathIndex::access`]); LOCKs of one lock and posts to one queue are indexed apart.

use crate::model::em::EmModel;
use crate::model::Choice;
use crate::trace::em::OpKind;

/// The path's accesses, LOCKs and posts, by object.
pub(crate) struct PathIndex {
    /// Per location: path positions of its accesses, with whether each wrote.
    accesses: Vec<Vec<(u32, bool)>>,
    /// Per lock: path positions of its LOCKs.
    lock_ops: Vec<Vec<u32>>,
    /// Per destination thread: path positions of posts to it.
    posts_to: Vec<Vec<u32>>,
    /// Per thread: whether two or more NOTIFYs of the trace are aimed at it, and whether its
    /// WAITs are in two or more tasks (the orders that choose a WAIT's NOTIFY, [`PathIndex::access`]).
    choice_of_pair: Vec<(bool, bool)>,
    /// The first of the notify-order locations (one per thread), then of the wait-order ones:
    /// the trace's own locations come first.
    notify_base: u32,
    wait_base: u32,
}

impl PathIndex {
    /// Empty indexes for a path of `model`.
    pub fn new(model: &EmModel) -> Self {
        let nt = model.threads.len();
        let mut notifies = vec![0u32; nt];
        let mut wait_task = vec![None; nt];
        let mut pair = vec![(false, false); nt];
        for (i, o) in model.trace.ops.iter().enumerate() {
            match o.kind {
                OpKind::Notify { target } => {
                    if let Some(t) = model.thread_of_raw(target) {
                        notifies[t as usize] += 1;
                        pair[t as usize].0 = notifies[t as usize] >= 2;
                    }
                }
                OpKind::Wait => {
                    let t = model.op_thread[i] as usize;
                    let task = model.op_task[i];
                    pair[t].1 |= *wait_task[t].get_or_insert(task) != task;
                }
                _ => {}
            }
        }
        PathIndex {
            accesses: vec![Vec::new(); model.trace.locations.len() + 2 * nt],
            lock_ops: vec![Vec::new(); model.locks as usize],
            posts_to: vec![Vec::new(); nt],
            choice_of_pair: pair,
            notify_base: model.trace.locations.len() as u32,
            wait_base: (model.trace.locations.len() + nt) as u32,
        }
    }

    /// The access `op` makes under DPOR's dependence, as (location, writes): a READ or WRITE
    /// (heap or static); a NOTIFY *writes* the notify order of the thread it aims at, and a WAIT
    /// the wait order of its own thread, one more location each per thread (docs/em-dpor.md
    /// §4.6). A WAIT can be released by any NOTIFY aimed at its thread, and the clocks pair the
    /// k-th WAIT with the k-th NOTIFY of the path (em_hb.rs), so which NOTIFY released it is fixed
    /// by the order of the NOTIFYs aimed at the thread (and of its WAITs, which handlers of one
    /// looper may run in either order). With those orders as dependences, every run of one
    /// Mazurkiewicz trace pairs the same NOTIFY with each WAIT, and a WAIT is enabled in all of
    /// them (k NOTIFYs before the k-th WAIT); a NOTIFY that is not a WAIT's pair neither enables
    /// nor disables it, so the two are independent, and the pairing edge orders the pair.
    /// Without this, runs where another NOTIFY released the WAIT were lost
    /// (fixtures/em-regress/notify-races-wait). Locations are kept only where there is a choice:
    /// notify order for a thread two or more NOTIFYs of the trace aim at, wait order for a
    /// thread whose WAITs are in two or more tasks.
    #[inline]
    pub fn access(&self, model: &EmModel, op: u32) -> Option<(u32, bool)> {
        match model.trace.ops[op as usize].kind {
            OpKind::Read { loc } => Some((loc, false)),
            OpKind::Write { loc } => Some((loc, true)),
            OpKind::Notify { target } => {
                let t = model.thread_of_raw(target)?;
                self.choice_of_pair[t as usize].0.then_some((self.notify_base + t, true))
            }
            OpKind::Wait => {
                let t = model.op_thread[op as usize];
                self.choice_of_pair[t as usize].1.then_some((self.wait_base + t, true))
            }
            _ => None,
        }
    }

    /// Path positions of the accesses to location `loc`, with whether each wrote.
    #[inline]
    pub fn accesses_of(&self, loc: u32) -> &[(u32, bool)] {
        &self.accesses[loc as usize]
    }

    /// Path positions of the LOCKs of lock `lock`.
    #[inline]
    pub fn locks_of(&self, lock: u32) -> &[u32] {
        &self.lock_ops[lock as usize]
    }

    /// Path positions of the posts to thread `d`'s queue.
    #[inline]
    pub fn posts_to(&self, d: Choice) -> &[u32] {
        &self.posts_to[d as usize]
    }

    /// The step at path position `pos` made `access`, and took lock `lock` / posted to `post`.
    #[inline(always)]
    pub fn push(&mut self, pos: u32, access: Option<(u32, bool)>, lock: Option<u32>, post: Option<Choice>) {
        if let Some((loc, write)) = access {
            self.accesses[loc as usize].push((pos, write));
        }
        if let Some(l) = lock {
            self.lock_ops[l as usize].push(pos);
        }
        if let Some(d) = post {
            self.posts_to[d as usize].push(pos);
        }
    }

    /// The last step, which made `access` and took `lock` / posted to `post`, was undone.
    #[inline(always)]
    pub fn pop(&mut self, access: Option<(u32, bool)>, lock: Option<u32>, post: Option<Choice>) {
        if let Some((loc, _)) = access {
            self.accesses[loc as usize].pop();
        }
        if let Some(l) = lock {
            self.lock_ops[l as usize].pop();
        }
        if let Some(d) = post {
            self.posts_to[d as usize].pop();
        }
    }
}
