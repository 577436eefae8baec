//! The EM trace emulator: the transition system a recorded Android trace permits
//! (em-trace.md, "Replay semantics").
//!
//! A *task* is a thread's own code or one handler; each keeps its recorded order. A choice is
//! a thread: its next operation is the next one of the handler it runs, else of its own code,
//! else (once it loops) the CALL of the message at its queue's front. What can block an
//! operation: a LOCK held by another thread, a WAIT with no pending NOTIFY, and the static
//! edges every execution must respect (FORK -> child's first operation, ATTACH-Q -> posts to
//! that queue, lifecycle ENABLE -> TRIGGER, dependence.txt). Happens-before is tracked apart,
//! along a path, by [`super::em_hb`].

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{Access, Accesses, Choice, Model, ModelError, ModelKind, Outcome};
use crate::trace::em::{EmTrace, OpKind};

mod build;
mod explain;
mod lanes;
mod names;
mod state;

pub use explain::{Holder, StuckThread};
pub use names::{LogRef, OpRef};
pub use state::EmState;
use state::{HANDLED, LAST_WRITE, LOCKS, NOTIFIES, OWN, RF, RUNNING};

/// Marks a static edge whose source is not in the trace: the operation can never run.
pub const NEVER: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub struct Thread {
    /// Raw thread id (what schedules print).
    pub raw: u32,
    /// Positions of the thread's own operations (outside handlers).
    pub own: Vec<u32>,
    /// Number of own operations up to and including LOOP (the thread loops once past it).
    pub loop_after: Option<u32>,
    /// Messages handled by this thread, in recorded order.
    pub messages: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
pub struct Handler {
    pub thread: u32,
    /// Position of the POST.
    pub post: u32,
    /// Positions from CALL to RET (RET missing when the trace ended inside the handler).
    pub ops: Vec<u32>,
}

/// The transition system of one EM trace.
pub struct EmModel {
    pub trace: EmTrace,
    pub threads: Vec<Thread>,
    /// Per message; `None` when the trace never handles it.
    pub handlers: Vec<Option<Handler>>,
    raw_thread: FxHashMap<u32, u32>,
    /// Per operation: dense thread.
    pub op_thread: Vec<u32>,
    /// Per operation: task (thread `t` is task `t`, message `m` is task `threads + m`).
    pub op_task: Vec<u32>,
    /// Per operation: the previous operation of its task, or NEVER.
    pub prev_in_task: Vec<u32>,
    /// Per operation: operations that must have run before it (static edges).
    pub waits_for: Vec<SmallVec<[u32; 2]>>,
    /// Per operation: dense lock id for LOCK/UNLOCK, dense read slot for reads.
    slot: Vec<u32>,
    pub locks: u32,
    pub reads: u32,
    /// Per dense lock id: its symbol in the trace, so that reports name it as the trace does.
    lock_symbols: Vec<u32>,
}

impl EmModel {
    /// Number of tasks (threads' own code plus one per message): the clocks' width.
    pub fn tasks(&self) -> usize {
        self.threads.len() + self.handlers.len()
    }

    /// Dense thread of a raw thread id.
    pub fn thread_of_raw(&self, raw: u32) -> Option<u32> {
        self.raw_thread.get(&raw).copied()
    }

    /// Dense lock id of a LOCK/UNLOCK operation.
    pub fn lock_of(&self, op: u32) -> u32 {
        self.slot[op as usize]
    }

    /// The operation thread `t` would execute next in `s`, whether or not it is enabled.
    pub fn next_op(&self, s: &EmState, t: u32) -> Option<u32> {
        let ti = t as usize;
        let th = &self.threads[ti];
        let running = s.get(RUNNING, ti);
        if running != 0 {
            let m = (running - 1) as usize;
            let h = self.handlers[m].as_ref()?;
            return h.ops.get(s.get(HANDLED, m) as usize).copied();
        }
        let own = s.get(OWN, ti);
        if th.loop_after.is_some_and(|l| own >= l) {
            let &front = s.queue(t).first()?;
            return self.handlers[front as usize].as_ref().map(|h| h.ops[0]);
        }
        th.own.get(own as usize).copied()
    }

    /// Whether operation `op` (some thread's next) can run in `s`.
    pub fn op_enabled(&self, s: &EmState, op: u32) -> bool {
        let o = &self.trace.ops[op as usize];
        if !self.waits_for[op as usize].iter().all(|&w| w != NEVER && s.executed(w)) {
            return false;
        }
        let t = self.op_thread[op as usize];
        match o.kind {
            OpKind::Lock { .. } => {
                let l = 2 * self.slot[op as usize] as usize;
                s.get(LOCKS, l + 1) == 0 || s.get(LOCKS, l) == t + 1
            }
            OpKind::Wait => s.get(NOTIFIES, t as usize) > 0,
            _ => true,
        }
    }

    /// The operation an enabled choice executes (None when `c` is not enabled).
    pub fn enabled_op(&self, s: &EmState, c: Choice) -> Option<u32> {
        self.next_op(s, c).filter(|&op| self.op_enabled(s, op))
    }

    /// The write (trace index, 0 for none) that read `op` observed in `s`, once it ran.
    pub fn observed(&self, s: &EmState, op: u32) -> Option<u32> {
        match self.trace.ops[op as usize].kind {
            OpKind::Read { .. } if s.executed(op) => Some(s.get(RF, self.slot[op as usize] as usize)),
            _ => None,
        }
    }

    /// Object ids used by [`Model::accesses`]: locations, then locks, then queues (per thread).
    pub fn lock_object(&self, lock: u32) -> u32 {
        self.trace.locations.len() as u32 + lock
    }
    pub fn queue_object(&self, thread: u32) -> u32 {
        self.trace.locations.len() as u32 + self.locks + thread
    }

    /// Text of an operation as in the trace, with names resolved.
    pub fn op_text(&self, op: u32) -> String {
        let o = &self.trace.ops[op as usize];
        let tr = &self.trace;
        let body = match o.kind {
            OpKind::ThreadInit => "THREADINIT".into(),
            OpKind::ThreadExit => "THREADEXIT".into(),
            OpKind::Fork { child } => format!("FORK child {child}"),
            OpKind::Nop => "NOP".into(),
            OpKind::Wait => "WAIT".into(),
            OpKind::Notify { target } => format!("NOTIFY thread {target}"),
            OpKind::Lock { lock } => format!("LOCK {}", tr.symbol(lock)),
            OpKind::Unlock { lock } => format!("UNLOCK {}", tr.symbol(lock)),
            OpKind::AttachQ { queue } => format!("ATTACH-Q {}", tr.symbol(queue)),
            OpKind::Loop => "LOOP".into(),
            OpKind::Post { kind, msg, dest } => {
                let name = match kind {
                    crate::trace::em::PostKind::Post => "POST",
                    crate::trace::em::PostKind::Native => "NATIVE-POST",
                    crate::trace::em::PostKind::Ui => "UI-POST",
                    crate::trace::em::PostKind::Delay => "DELAY-POST",
                };
                format!("{name} msg {} to thread {dest}", tr.messages[msg as usize])
            }
            OpKind::Call { msg } => format!("CALL msg {}", tr.messages[msg as usize]),
            OpKind::Ret { msg } => format!("RET msg {}", tr.messages[msg as usize]),
            OpKind::Read { loc } => format!("READ {}", tr.location_name(loc)),
            OpKind::Write { loc } => format!("WRITE {}", tr.location_name(loc)),
            OpKind::Enable { env, key } => format!("ENABLE-{env:?} {}", tr.symbol(key)),
            OpKind::Trigger { env, key } => format!("TRIGGER-{env:?} {}", tr.symbol(key)),
        };
        format!("{} thread {}: {}", o.index, o.tid, body)
    }
}

impl Model for EmModel {
    type State = EmState;

    fn kind(&self) -> ModelKind {
        ModelKind::EmTrace
    }

    fn as_em(&self) -> Option<&EmModel> {
        Some(self)
    }

    fn warnings(&self) -> Vec<String> {
        self.trace.origin.as_ref().and_then(|o| o.cut.clone()).into_iter().collect()
    }

    fn stuck_length_fixed(&self) -> bool {
        true
    }

    fn choices(&self) -> u32 {
        self.threads.len() as u32
    }

    fn initial(&self) -> EmState {
        EmState::initial(self)
    }

    fn enabled(&self, s: &EmState, out: &mut Vec<Choice>) {
        for t in 0..self.threads.len() as u32 {
            if self.enabled_op(s, t).is_some() {
                out.push(t);
            }
        }
    }

    fn accesses(&self, s: &EmState, c: Choice, out: &mut Accesses) {
        let Some(op) = self.next_op(s, c) else { return };
        match self.trace.ops[op as usize].kind {
            OpKind::Read { loc } => out.push(Access { object: loc, write: false }),
            OpKind::Write { loc } => out.push(Access { object: loc, write: true }),
            // Only an acquire (the lock free before it) touches the lock as others see it: a
            // re-entrant LOCK or UNLOCK, and the release, run while no other thread's LOCK can
            // (never co-enabled with one, so never a race). A release that unblocks a waiting
            // LOCK is dependent with it through the enabling, which the stepper sees.
            OpKind::Lock { .. } => {
                let l = self.slot[op as usize];
                let (owner, depth) = (s.get(LOCKS, 2 * l as usize), s.get(LOCKS, 2 * l as usize + 1));
                if depth == 0 || owner != c + 1 {
                    out.push(Access { object: self.lock_object(l), write: true })
                }
            }
            OpKind::Post { dest, .. } => {
                if let Some(d) = self.thread_of_raw(dest) {
                    out.push(Access { object: self.queue_object(d), write: true })
                }
            }
            _ => {}
        }
    }

    fn blocked(&self, s: &EmState, c: Choice, out: &mut Accesses) -> bool {
        match self.next_op(s, c) {
            Some(op) if !self.op_enabled(s, op) => {
                self.accesses(s, c, out);
                true
            }
            _ => false,
        }
    }

    fn step(&self, s: &mut EmState, c: Choice) -> Result<(), ModelError> {
        let t = c as usize;
        let op = self.next_op(s, c).expect("step on a thread with no next operation");
        let o = self.trace.ops[op as usize];
        s.mark_executed(op);
        let running = s.get(RUNNING, t);
        if running != 0 {
            s.add(HANDLED, (running - 1) as usize, 1);
        } else if !matches!(o.kind, OpKind::Call { .. }) {
            s.add(OWN, t, 1);
        }
        match o.kind {
            OpKind::Lock { .. } => {
                let l = 2 * self.slot[op as usize] as usize;
                s.set(LOCKS, l, c + 1);
                s.add(LOCKS, l + 1, 1);
            }
            OpKind::Unlock { .. } => {
                let l = 2 * self.slot[op as usize] as usize;
                if s.get(LOCKS, l) == c + 1 && s.get(LOCKS, l + 1) > 0 {
                    s.add(LOCKS, l + 1, -1);
                }
            }
            OpKind::Wait => s.add(NOTIFIES, t, -1),
            OpKind::Notify { target } => {
                if let Some(d) = self.thread_of_raw(target) {
                    s.add(NOTIFIES, d as usize, 1);
                }
            }
            OpKind::Post { msg, .. } => {
                // A message the trace never handles has nothing to run: it is not queued,
                // so that it cannot hold back the messages behind it.
                if let Some(h) = &self.handlers[msg as usize] {
                    s.push_queue(h.thread, msg);
                }
            }
            OpKind::Call { msg } => {
                s.pop_queue(c);
                s.set(RUNNING, t, msg + 1);
                s.set(HANDLED, msg as usize, 1);
            }
            OpKind::Ret { .. } => s.set(RUNNING, t, 0),
            OpKind::Read { loc } => {
                let w = s.get(LAST_WRITE, loc as usize);
                s.set(RF, self.slot[op as usize] as usize, w);
            }
            OpKind::Write { loc } => s.set(LAST_WRITE, loc as usize, o.index),
            _ => {}
        }
        Ok(())
    }

    fn encode(&self, s: &EmState, out: &mut Vec<u32>) {
        // Locks, notifies, running handlers and executed operations follow from the key.
        out.extend_from_slice(s.key());
    }

    fn outcome(&self, s: &EmState) -> Outcome {
        let mut reads_from = Vec::new();
        let mut stuck = Vec::new();
        for (p, o) in self.trace.ops.iter().enumerate() {
            if !s.executed(p as u32) {
                stuck.push(o.index);
            } else if let OpKind::Read { .. } = o.kind {
                reads_from.push((o.index, s.get(RF, self.slot[p] as usize)));
            }
        }
        let writes = &s.buf[s.buf[LAST_WRITE] as usize..s.buf[RF] as usize];
        let mut final_writes: Vec<u32> = writes.iter().copied().filter(|&w| w != 0).collect();
        final_writes.sort_unstable();
        Outcome::EmTrace { reads_from, final_writes, stuck }
    }

    fn choice_name(&self, c: Choice) -> String {
        self.threads[c as usize].raw.to_string()
    }

    fn parse_choice(&self, name: &str) -> Option<Choice> {
        self.thread_of_raw(name.parse().ok()?)
    }

    fn describe(&self, s: &EmState, c: Choice) -> String {
        match self.next_op(s, c) {
            Some(op) => self.op_text(op),
            None => format!("thread {} has nothing to run", self.choice_name(c)),
        }
    }

    fn object_name(&self, object: u32) -> String {
        let locs = self.trace.locations.len() as u32;
        if object < locs {
            self.trace.location_name(object)
        } else if object < locs + self.locks {
            format!("lock {}", self.trace.symbol(self.lock_symbols[(object - locs) as usize]))
        } else {
            format!("queue of thread {}", self.threads[(object - locs - self.locks) as usize].raw)
        }
    }

    fn stuck_threads(&self, s: &EmState) -> Vec<StuckThread> {
        self.why_stuck(s)
    }

    fn explain_step(&self, before: &EmState, after: &EmState, c: Choice) -> String {
        self.step_effect(before, after, c)
    }

    fn lanes(&self) -> Vec<super::lane::Lane> {
        self.thread_lanes()
    }

    fn lane_marks(&self, s: &EmState, c: Choice, out: &mut Vec<super::lane::LaneMark>) {
        self.op_marks(s, c, out)
    }

    fn summary(&self) -> String {
        format!(
            "{} operations, {} threads, {} handlers, {} locations, {} dependence edges",
            self.trace.ops.len(),
            self.threads.len(),
            self.handlers.iter().filter(|h| h.is_some()).count(),
            self.trace.locations.len(),
            self.trace.dependence.len()
        )
    }

    fn stats(&self) -> std::collections::BTreeMap<String, u64> {
        let mut s = std::collections::BTreeMap::new();
        for o in &self.trace.ops {
            let name = match o.kind {
                OpKind::Read { loc } | OpKind::Write { loc } => {
                    let st = if self.trace.locations[loc as usize].is_static { "-STATIC" } else { "" };
                    let rw = if matches!(o.kind, OpKind::Read { .. }) { "READ" } else { "WRITE" };
                    format!("ops {rw}{st}")
                }
                k => format!("ops {}", format!("{k:?}").split([' ', '{']).next().unwrap_or("?").to_uppercase()),
            };
            *s.entry(name).or_insert(0) += 1;
        }
        s.insert("operations".into(), self.trace.ops.len() as u64);
        s.insert("threads".into(), self.threads.len() as u64);
        s.insert("queues".into(), self.threads.iter().filter(|t| t.loop_after.is_some()).count() as u64);
        s.insert("handlers".into(), self.handlers.iter().filter(|h| h.is_some()).count() as u64);
        s.insert("messages posted".into(), self.handlers.len() as u64);
        s.insert("locations".into(), self.trace.locations.len() as u64);
        s.insert("locks".into(), self.locks as u64);
        s.insert("dependence edges".into(), self.trace.dependence.len() as u64);
        s
    }
}

impl EmModel {
    /// Replays the recorded order, checking that each step executes exactly the recorded
    /// operation. Returns the first operation that is not enabled where it was recorded.
    pub fn replay_recorded(&self) -> Result<EmState, String> {
        let mut s = self.initial();
        for (p, &t) in self.op_thread.iter().enumerate() {
            match self.enabled_op(&s, t) {
                Some(op) if op as usize == p => {
                    let _ = self.step(&mut s, t);
                }
                _ => {
                    let o = &self.trace.ops[p];
                    let next = self.next_op(&s, t).map(|n| self.trace.ops[n as usize].index);
                    return Err(format!(
                        "operation {} (line {}) cannot run where it was recorded (thread's next operation: {:?}, enabled: {})",
                        o.index,
                        o.line,
                        next,
                        next.is_some_and(|n| self.trace.position(n).is_some_and(|q| self.op_enabled(&s, q as u32)))
                    ));
                }
            }
        }
        Ok(s)
    }
}
