//! The witness search of `optimal` (docs/optimal.md, "Witness search"): a depth-first search
//! over emulator states for a run that respects a node's constraints and ends at its end set.
//! (The pre-pass that collected end sets by running it with values ignored to every end is
//! kept for tests only: stuck.rs finds them directly from the trace's structure.)
//!
//! # Why it is complete
//! An operation may run only when the emulator enables it, it lies in the end set, its
//! saturated predecessors have run, a constrained read would see its required write, and a
//! write would not overwrite a value that a pending constrained read or the required final
//! write still needs. Visited states are matched on what the emulator's key holds without the
//! reads-from region (what a read saw no longer matters once checked), with the last write of
//! locations no constraint still looks at left out; from two states equal on that the same runs
//! succeed. At each state only a *persistent set* is explored (Godefroid, LNCS 1032 ch. 4; the
//! state graph is acyclic, so every terminal state is kept): the closure over threads, grown
//! from an allowed thread, under *conflicts* (LOCKs of one lock, posts to one queue, accesses
//! of one location with a write that some constraint still looks at) and *necessary enablers*
//! (the lock holder, the NOTIFYs of a WAIT, a missing static or saturated predecessor, the
//! write a fixed read waits for, the reads a held-back write waits for, the posters of an idle
//! looper); the smallest over the allowed threads. An unconstrained read conflicts with
//! nothing; writes to a location no constraint looks at commute (nothing reads that last write
//! again). Everything else commutes with all operations of other threads and stays enabled:
//! UNLOCK only enables, a NOTIFY only adds to a count, a WAIT takes from its own thread's count,
//! CALL takes the queue's front while posts append at the back, RET and FORK only enable.
//!
//! # Cost per state, independent of the trace's length
//! Conflicts are asked per thread, not per operation: the search counts, per conflict group
//! (location, lock, queue, NOTIFY target) and thread, the operations of the end set not yet
//! run (all, writes, constrained reads), and a thread conflicts when its count of the kind
//! that matters is not zero. That is a superset of the operation-level relation (it ignores
//! `hb0` between the two operations), so the sets stay persistent. The state's identity is a
//! 128-bit fingerprint kept along the path (Zobrist hashing: one term per executed operation,
//! per queued message at its place in its queue, per last write a constraint looks at),
//! updated by what a step changes: two states with equal emulator keys (as above) have equal
//! fingerprints. Two different keys could share one with probability about s^2 / 2^129 for s
//! states stored (under 10^-20 for a billion); visited states are sets of fingerprints.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::super::Search;
use super::statics::{bit, Statics};
use super::{Constraints, FREE};
use crate::model::em::{EmModel, EmState, NEVER};
use crate::model::{Choice, Model};
use crate::trace::em::OpKind;

/// The witness search, with its buffers.
pub struct Witness<'s, 'm> {
    pub st: &'s Statics<'m>,
    visited: FxHashSet<u128>,
    /// The persistent-set closure's buffers, kept across states (it runs at every state).
    in_set: Vec<bool>,
    work: Vec<Choice>,
    /// Per (group, thread) pair: operations of the end set not run yet; of them, writes, and
    /// constrained reads.
    live: Vec<u32>,
    live_writes: Vec<u32>,
    live_reads: Vec<u32>,
    /// Per location: constrained reads not run yet.
    pending: Vec<u32>,
    /// Per looper: messages posted to it so far; per message: its place in that count.
    posted: Vec<u32>,
    place: Vec<u32>,
}

/// One state on the witness search's path.
struct Frame {
    /// Journal length before the step into this state, the operation that step ran, and the
    /// fingerprints before it.
    mark: usize,
    op: u32,
    key: u128,
    run: u128,
    choices: SmallVec<[Choice; 4]>,
    next: usize,
}

/// A 128-bit Zobrist term for (what, a, b).
fn term(what: u64, a: u32, b: u32) -> u128 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let x = mix(what.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (a as u64) << 32 ^ b as u64);
    let y = mix(x ^ 0x6a09_e667_f3bc_c909 ^ (b as u64) << 17);
    ((x as u128) << 64) | y as u128
}

const EXECUTED: u64 = 1;
const QUEUED: u64 = 2;
const LAST_WRITE: u64 = 3;

impl<'s, 'm> Witness<'s, 'm> {
    pub fn new(st: &'s Statics<'m>) -> Self {
        let pairs = st.pair_group.len();
        Witness {
            st,
            visited: FxHashSet::default(),
            in_set: Vec::new(),
            work: Vec::new(),
            live: vec![0; pairs],
            live_writes: vec![0; pairs],
            live_reads: vec![0; pairs],
            pending: vec![0; st.model.trace.locations.len()],
            posted: vec![0; st.model.threads.len()],
            place: vec![0; st.model.handlers.len()],
        }
    }

    fn loc_of(&self, op: u32) -> Option<(u32, bool)> {
        match self.st.model.trace.ops[op as usize].kind {
            OpKind::Read { loc } => Some((loc, false)),
            OpKind::Write { loc } => Some((loc, true)),
            _ => None,
        }
    }

    /// Some constraint still looks at the last write of `loc`.
    fn relevant(&self, c: &Constraints, loc: u32) -> bool {
        c.values && (c.fin[loc as usize] != FREE || self.pending[loc as usize] > 0)
    }

    /// The term of `loc`'s last write `w` in the fingerprint (0 for the initial value).
    fn last_write_term(loc: u32, w: u32) -> u128 {
        if w == 0 {
            0
        } else {
            term(LAST_WRITE, loc, w)
        }
    }

    /// Counters for a new search: everything in the end set is still to run.
    fn reset(&mut self, c: &Constraints) {
        let st = self.st;
        self.live.iter_mut().for_each(|x| *x = 0);
        self.live_writes.iter_mut().for_each(|x| *x = 0);
        self.live_reads.iter_mut().for_each(|x| *x = 0);
        self.posted.iter_mut().for_each(|x| *x = 0);
        for x in 0..st.n as u32 {
            let p = st.pair_of[x as usize];
            if p == NEVER || !bit(&c.end, x as usize) {
                continue;
            }
            self.live[p as usize] += 1;
            match self.loc_of(x) {
                Some((_, true)) => self.live_writes[p as usize] += 1,
                Some((_, false)) if c.values && c.read[x as usize] != FREE => self.live_reads[p as usize] += 1,
                _ => {}
            }
        }
        for (loc, p) in self.pending.iter_mut().enumerate() {
            *p = if c.values { c.constrained[loc].len() as u32 } else { 0 };
        }
    }

    /// Accounts for running `x` from `s` (before the emulator's step): counters, and the
    /// fingerprints `key` (the state) and `run` (the executed set alone).
    fn enter(&mut self, c: &Constraints, s: &EmState, x: u32, key: &mut u128, run: &mut u128) {
        let st = self.st;
        let model = st.model;
        let t = term(EXECUTED, x, 0);
        *key ^= t;
        *run ^= t;
        let p = st.pair_of[x as usize];
        if p != NEVER {
            self.live[p as usize] -= 1;
        }
        match model.trace.ops[x as usize].kind {
            OpKind::Write { loc } => {
                self.live_writes[p as usize] -= 1;
                if self.relevant(c, loc) {
                    let old = s.last_write(loc);
                    *key ^=
                        Self::last_write_term(loc, old) ^ Self::last_write_term(loc, model.trace.ops[x as usize].index);
                }
            }
            OpKind::Read { loc } if c.values && c.read[x as usize] != FREE => {
                self.live_reads[p as usize] -= 1;
                self.pending[loc as usize] -= 1;
                if !self.relevant(c, loc) {
                    *key ^= Self::last_write_term(loc, s.last_write(loc));
                }
            }
            OpKind::Post { msg, .. } => {
                if let Some(h) = &model.handlers[msg as usize] {
                    let d = h.thread as usize;
                    self.place[msg as usize] = self.posted[d];
                    self.posted[d] += 1;
                    *key ^= term(QUEUED, msg, self.place[msg as usize]);
                }
            }
            OpKind::Call { msg } => *key ^= term(QUEUED, msg, self.place[msg as usize]),
            _ => {}
        }
    }

    /// Undoes [`Witness::enter`]'s counters (the fingerprints are restored from the frame).
    fn leave(&mut self, c: &Constraints, x: u32) {
        let st = self.st;
        let model = st.model;
        let p = st.pair_of[x as usize];
        if p != NEVER {
            self.live[p as usize] += 1;
        }
        match model.trace.ops[x as usize].kind {
            OpKind::Write { .. } => self.live_writes[p as usize] += 1,
            OpKind::Read { loc } if c.values && c.read[x as usize] != FREE => {
                self.live_reads[p as usize] += 1;
                self.pending[loc as usize] += 1;
            }
            OpKind::Post { msg, .. } => {
                if let Some(h) = &model.handlers[msg as usize] {
                    self.posted[h.thread as usize] -= 1;
                }
            }
            _ => {}
        }
    }

    fn allowed(&self, c: &Constraints, s: &EmState, op: u32) -> bool {
        if !bit(&c.end, op as usize) {
            return false;
        }
        if c.after.get(&op).is_some_and(|a| a.iter().any(|&a| !s.executed(a))) {
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
    /// grown from each allowed thread, in recorded order. Returns the work it took, in passes
    /// over one thread ([`Search::poll_work`]'s units): one per thread per set grown, and one
    /// to start.
    fn choices(&mut self, c: &Constraints, s: &EmState, out: &mut SmallVec<[Choice; 4]>) -> u64 {
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
        let mut grown = 1u64;
        for t0 in (0..nt as u32).filter(|&t| allowed[t as usize]) {
            grown += 1;
            in_set.iter_mut().for_each(|b| *b = false);
            in_set[t0 as usize] = true;
            work.clear();
            work.push(t0);
            let mut size = 0;
            let mut worse = false;
            while let Some(u) = work.pop() {
                let mut add = |v: u32| {
                    if !in_set[v as usize] {
                        in_set[v as usize] = true;
                        work.push(v as Choice);
                    }
                };
                if allowed[u as usize] {
                    size += 1;
                    self.conflicts(c, next[u as usize].expect("allowed"), &mut add);
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
        grown * nt as u64
    }

    /// Calls `add` with every thread that has an operation of the end set not run yet that
    /// conflicts with `op` under the constraints (module header).
    fn conflicts(&self, c: &Constraints, op: u32, mut add: impl FnMut(u32)) {
        let st = self.st;
        let p = st.pair_of[op as usize];
        if p == NEVER {
            return;
        }
        let pairs = &st.group_pairs[st.pair_group[p as usize] as usize];
        let mut each = |count: &dyn Fn(usize) -> bool| {
            for &(t, q) in pairs {
                if count(q as usize) {
                    add(t);
                }
            }
        };
        match st.model.trace.ops[op as usize].kind {
            OpKind::Read { .. } if !c.values || c.read[op as usize] == FREE => {}
            OpKind::Read { .. } => each(&|q| self.live_writes[q] > 0),
            OpKind::Write { loc } if self.relevant(c, loc) => {
                each(&|q| self.live_writes[q] > 0 || self.live_reads[q] > 0)
            }
            OpKind::Lock { .. } | OpKind::Post { .. } => each(&|q| self.live[q] > 0),
            _ => {}
        }
    }

    /// Calls `add` with threads whose operations may let thread `t` run again at `s` (its
    /// next operation `next` is not allowed, or it has none): the necessary enabling
    /// operations of the persistent-set closure. Nothing when it can never run again.
    fn enablers(&self, c: &Constraints, s: &EmState, t: Choice, next: Option<u32>, mut add: impl FnMut(u32)) {
        let st = self.st;
        let model = st.model;
        let thread_of = |y: u32| model.op_thread[y as usize];
        let live = |y: u32| bit(&c.end, y as usize) && !s.executed(y);
        let group = |g: u32, add: &mut dyn FnMut(u32)| {
            for &(v, q) in &st.group_pairs[g as usize] {
                if self.live[q as usize] > 0 {
                    add(v);
                }
            }
        };
        let Some(x) = next else {
            // An idle looper runs again when a message is posted to it.
            group(st.queue_group[t as usize], &mut add);
            return;
        };
        if !bit(&c.end, x as usize) {
            return;
        }
        if let Some(a) = c.after.get(&x) {
            a.iter().filter(|&&a| !s.executed(a)).for_each(|&a| add(thread_of(a)));
        }
        if !model.op_enabled(s, x) {
            for &w in &model.waits_for[x as usize] {
                if w != NEVER && !s.executed(w) {
                    add(thread_of(w));
                }
            }
            match model.trace.ops[x as usize].kind {
                OpKind::Lock { .. } => {
                    if let Some(owner) = s.lock_owner(model.lock_of(x)) {
                        add(owner);
                    }
                }
                OpKind::Wait => group(st.notify_group[t as usize], &mut add),
                _ => {}
            }
            return;
        }
        // Enabled, but a constraint holds it back until the write it must see runs, or the
        // reads that still need the current value have run.
        if !c.values {
            return;
        }
        match self.loc_of(x) {
            Some((_, false)) => {
                let w = c.read[x as usize];
                if let Some(&w) = (w != 0 && w != FREE).then(|| st.op_of_index.get(&w)).flatten() {
                    if live(w) {
                        add(thread_of(w));
                    }
                }
            }
            Some((loc, true)) => {
                c.constrained[loc as usize].iter().filter(|&&r| !s.executed(r)).for_each(|&r| add(thread_of(r)));
            }
            None => {}
        }
    }

    /// Searches for a run that respects `c` and ends with exactly `c.end` executed and nothing
    /// enabled. With `ends`, searches on past every end and collects the end sets reached
    /// (keyed by the fingerprint of the executed set). None: no such run, or the search was
    /// stopped (the caller asks `search.stopped()`).
    pub fn search(
        &mut self,
        search: &mut Search<'_, EmModel>,
        c: &Constraints,
        mut ends: Option<&mut FxHashMap<u128, Box<[u64]>>>,
    ) -> Option<(EmState, Vec<Choice>)> {
        let model = self.st.model;
        self.visited.clear();
        self.reset(c);
        let end_size = c.end.iter().map(|w| w.count_ones() as usize).sum::<usize>();
        let mut s = model.initial();
        s.keep_journal();
        let mut path: Vec<Choice> = Vec::new();
        let mut root = Frame { mark: 0, op: NEVER, key: 0, run: 0, choices: SmallVec::new(), next: 0 };
        let units = self.choices(c, &s, &mut root.choices);
        if search.poll_work(units) {
            return None;
        }
        let mut enabled = Vec::new();
        if root.choices.is_empty() && self.ended(&s, 0, end_size, 0, &mut enabled, ends.as_deref_mut()) {
            return Some((s, path));
        }
        let mut stack = vec![root];
        loop {
            if search.stopped() {
                return None;
            }
            let top = stack.last_mut()?;
            if top.next == top.choices.len() {
                let (mark, op) = (top.mark, top.op);
                stack.pop();
                if !stack.is_empty() {
                    s.undo_to(mark);
                    self.leave(c, op);
                    path.pop();
                }
                continue;
            }
            let choice = top.choices[top.next];
            top.next += 1;
            let (mut key, mut run) = (top.key, top.run);
            let Some(op) = model.next_op(&s, choice) else { continue };
            let mark = s.journal_len();
            self.enter(c, &s, op, &mut key, &mut run);
            if model.step(&mut s, choice).is_err() {
                s.undo_to(mark);
                self.leave(c, op);
                continue;
            }
            path.push(choice);
            search.transition(path.len());
            // The visited set doubles when full: the new table is counted before it exists.
            let cap = self.visited.capacity();
            if self.visited.len() == cap && search.reserve(2 * cap as u64 * 17) {
                return None;
            }
            if !self.visited.insert(key) {
                s.undo_to(mark);
                self.leave(c, op);
                path.pop();
                continue;
            }
            search.new_state();
            let mut frame = Frame { mark, op, key, run, choices: SmallVec::new(), next: 0 };
            // A step's persistent set can take milliseconds (thousands of threads): the clock
            // is read by the work done, not only every 256 transitions.
            let units = self.choices(c, &s, &mut frame.choices);
            if search.poll_work(units) {
                return None;
            }
            if frame.choices.is_empty() {
                if self.ended(&s, path.len(), end_size, run, &mut enabled, ends.as_deref_mut()) {
                    return Some((s, path));
                }
                s.undo_to(mark);
                self.leave(c, op);
                path.pop();
                continue;
            }
            stack.push(frame);
        }
    }

    /// At a state with no allowed choice: whether it is the end sought (nothing enabled, the
    /// whole end set executed: only its operations are ever allowed); with `ends`, records the
    /// end set instead and says no.
    fn ended(
        &self,
        s: &EmState,
        executed: usize,
        end_size: usize,
        run: u128,
        enabled: &mut Vec<Choice>,
        ends: Option<&mut FxHashMap<u128, Box<[u64]>>>,
    ) -> bool {
        enabled.clear();
        self.st.model.enabled(s, enabled);
        if !enabled.is_empty() {
            return false;
        }
        match ends {
            Some(ends) => {
                ends.entry(run).or_insert_with(|| {
                    let mut set = vec![0u64; self.st.n.div_ceil(64).max(1)];
                    for op in 0..self.st.n {
                        if s.executed(op as u32) {
                            set[op / 64] |= 1 << (op % 64);
                        }
                    }
                    set.into()
                });
                false
            }
            None => executed == end_size,
        }
    }

    /// Every end set a run can reach, by running the search with values ignored to every end:
    /// the former pre-pass, exponential in the posts' and locks' orders; kept as the
    /// reference the direct search (stuck.rs) is checked against.
    #[doc(hidden)]
    pub fn end_sets(&mut self, search: &mut Search<'_, EmModel>, all: &[u64]) -> Vec<Box<[u64]>> {
        let c = Constraints::none(self.st, all, false);
        let mut ends = FxHashMap::default();
        self.search(search, &c, Some(&mut ends));
        ends.into_values().collect()
    }
}
