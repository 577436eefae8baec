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
use crate::trace::em::{EmTrace, EnvKind, OpKind};
use crate::trace::InputError;

mod lanes;

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

/// A configuration of the emulator, in one flat buffer so that copying a state is one
/// allocation and one `memcpy`, and its canonical key (state matching) is a prefix of it.
///
/// Layout: a header of region offsets (the same for every state of a model), then the key
/// regions (own positions, handler positions, queue lengths, queue slots, last writes,
/// reads-from), then regions that follow from the key (running handler, notifies, locks,
/// executed bits).
pub struct EmState {
    buf: Vec<u32>,
    /// When kept (stateless DPOR, see [`EmState::keep_journal`]): (slot, old value) of every
    /// write, so that a step is undone in place instead of a trace-sized state kept per step.
    journal: Option<Vec<(u32, u32)>>,
}

// What a state is: the buffer alone, not its journal.
impl PartialEq for EmState {
    fn eq(&self, other: &Self) -> bool {
        self.buf == other.buf
    }
}
impl Eq for EmState {}
impl std::hash::Hash for EmState {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.buf.hash(h);
    }
}
impl std::fmt::Debug for EmState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmState").field("buf", &self.buf).finish()
    }
}

impl Clone for EmState {
    fn clone(&self) -> Self {
        EmState { buf: self.buf.clone(), journal: None }
    }
    /// Into the buffer already there (a derived `clone_from` would allocate anew; searches
    /// copy a state per step).
    fn clone_from(&mut self, other: &Self) {
        self.buf.clone_from(&other.buf);
    }
}

// Header slots holding region offsets.
const OWN: usize = 0; // per thread: own operations executed
const HANDLED: usize = 1; // per message: handler operations executed
const QLEN: usize = 2; // per thread: queue length
const QBUF: usize = 3; // queue slots, front first, per thread at QOFF + t
const LAST_WRITE: usize = 4; // per location: index of its last write, 0 when none
const RF: usize = 5; // per read slot: index of the write it observed, 0 when none
const RUNNING: usize = 6; // per thread: message running + 1, or 0 (also: end of the key)
const NOTIFIES: usize = 7; // per thread: pending notifies
const LOCKS: usize = 8; // per lock: owner + 1, depth
const EXECUTED: usize = 9; // bit per operation
const QOFF: usize = 10; // per thread: start of its queue slots

impl EmState {
    /// From now on, records every write so that [`EmState::undo_to`] can take steps back.
    pub fn keep_journal(&mut self) {
        self.journal.get_or_insert_with(Vec::new);
    }
    /// Length of the journal: a mark to undo to.
    pub fn journal_len(&self) -> usize {
        self.journal.as_ref().map_or(0, Vec::len)
    }
    /// Undoes the writes recorded since `mark`, latest first.
    pub fn undo_to(&mut self, mark: usize) {
        let journal = self.journal.as_mut().expect("undo without a journal");
        while journal.len() > mark {
            let (at, old) = journal.pop().expect("longer than mark");
            self.buf[at as usize] = old;
        }
    }
    /// Every write to the buffer goes through here (the journal sees them all).
    #[inline]
    fn write(&mut self, at: usize, v: u32) {
        if let Some(j) = &mut self.journal {
            j.push((at as u32, self.buf[at]));
        }
        self.buf[at] = v;
    }
    #[inline]
    fn at(&self, region: usize, i: usize) -> usize {
        self.buf[region] as usize + i
    }
    #[inline]
    fn get(&self, region: usize, i: usize) -> u32 {
        self.buf[self.at(region, i)]
    }
    #[inline]
    fn set(&mut self, region: usize, i: usize, v: u32) {
        let at = self.at(region, i);
        self.write(at, v);
    }
    #[inline]
    fn add(&mut self, region: usize, i: usize, d: i32) {
        let at = self.at(region, i);
        self.write(at, self.buf[at].wrapping_add_signed(d));
    }
    pub fn executed(&self, op: u32) -> bool {
        self.get(EXECUTED, op as usize / 32) & (1 << (op % 32)) != 0
    }
    fn mark_executed(&mut self, op: u32) {
        let at = self.at(EXECUTED, op as usize / 32);
        self.write(at, self.buf[at] | 1 << (op % 32));
    }
    /// The thread holding lock `lock` (dense id), if any.
    pub fn lock_owner(&self, lock: u32) -> Option<u32> {
        let l = 2 * lock as usize;
        (self.get(LOCKS, l + 1) > 0).then(|| self.get(LOCKS, l) - 1)
    }
    /// The trace index of the last write to `loc` so far, 0 for none.
    pub fn last_write(&self, loc: u32) -> u32 {
        self.get(LAST_WRITE, loc as usize)
    }
    pub fn executed_count(&self) -> usize {
        self.buf[self.buf[EXECUTED] as usize..].iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Messages queued on thread `t`, front first.
    pub fn queue(&self, t: u32) -> &[u32] {
        let from = self.at(QBUF, 0) + self.buf[QOFF + t as usize] as usize;
        &self.buf[from..from + self.get(QLEN, t as usize) as usize]
    }
    fn push_queue(&mut self, t: u32, msg: u32) {
        let len = self.get(QLEN, t as usize);
        let at = self.at(QBUF, 0) + self.buf[QOFF + t as usize] as usize + len as usize;
        self.write(at, msg);
        self.set(QLEN, t as usize, len + 1);
    }
    fn pop_queue(&mut self, t: u32) {
        let len = self.get(QLEN, t as usize) as usize;
        let from = self.at(QBUF, 0) + self.buf[QOFF + t as usize] as usize;
        if self.journal.is_none() {
            self.buf.copy_within(from + 1..from + len, from);
        } else {
            for i in from..from + len - 1 {
                self.write(i, self.buf[i + 1]);
            }
        }
        // Vacated slots stay zero, so equal queues have equal keys.
        self.write(from + len - 1, 0);
        self.set(QLEN, t as usize, len as u32 - 1);
    }
    /// The canonical key: everything that tells two states apart.
    fn key(&self) -> &[u32] {
        &self.buf[self.buf[OWN] as usize..self.buf[RUNNING] as usize]
    }
}

/// Rejects a trace whose happens-before edges that hold whatever the interleaving (program
/// order of each thread and handler, FORK -> child, ATTACH-Q -> post, POST and LOOP -> CALL,
/// enable -> trigger, dependence.txt) form a cycle: no execution could run the operations on it,
/// so exploring would report them as a deadlock of the program when the input is at fault.
/// Reported at a dependence.txt edge on the cycle when there is one, else at a trace line.
fn check_acyclic(
    trace: &EmTrace,
    waits_for: &[SmallVec<[u32; 2]>],
    prev_in_task: &[u32],
    handlers: &[Option<Handler>],
    loop_op: &[u32],
    op_thread: &[u32],
) -> Result<(), InputError> {
    let n = trace.ops.len();
    let preds = |p: usize, out: &mut SmallVec<[u32; 6]>| {
        out.clear();
        out.extend(waits_for[p].iter().copied().filter(|&w| w != NEVER));
        if prev_in_task[p] != NEVER {
            out.push(prev_in_task[p]);
        }
        if let OpKind::Call { msg } = trace.ops[p].kind {
            if let Some(h) = handlers[msg as usize].as_ref().filter(|h| h.post != NEVER) {
                out.push(h.post);
            }
            let l = loop_op[op_thread[p] as usize];
            if l != NEVER {
                out.push(l);
            }
        }
    };
    // Kahn's algorithm over successor lists in one flat array (traces reach millions of ops).
    let mut indeg = vec![0u32; n];
    let mut start = vec![0u32; n + 1];
    let mut buf = SmallVec::new();
    for p in 0..n {
        preds(p, &mut buf);
        indeg[p] = buf.len() as u32;
        for &q in &buf {
            start[q as usize + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut succ = vec![0u32; start[n] as usize];
    for p in 0..n {
        preds(p, &mut buf);
        for &q in &buf {
            succ[fill[q as usize] as usize] = p as u32;
            fill[q as usize] += 1;
        }
    }
    let mut ready: Vec<u32> = (0..n as u32).filter(|&p| indeg[p as usize] == 0).collect();
    let mut done = 0;
    while let Some(q) = ready.pop() {
        done += 1;
        for &p in &succ[start[q as usize] as usize..start[q as usize + 1] as usize] {
            indeg[p as usize] -= 1;
            if indeg[p as usize] == 0 {
                ready.push(p);
            }
        }
    }
    if done == n {
        return Ok(());
    }
    // Every operation left has a predecessor left: walking back from one must come round.
    let mut seen = vec![u32::MAX; n];
    let mut path = Vec::new();
    let mut p = (0..n).find(|&p| indeg[p] > 0).unwrap_or(0);
    while seen[p] == u32::MAX {
        seen[p] = path.len() as u32;
        path.push(p as u32);
        preds(p, &mut buf);
        match buf.iter().find(|&&q| indeg[q as usize] > 0) {
            Some(&q) => p = q as usize,
            None => break,
        }
    }
    // `path` runs backwards along edges; the cycle is its tail from the repeated operation.
    let mut cycle: Vec<u32> = path[seen[p].min(path.len() as u32) as usize..].to_vec();
    cycle.reverse();
    // Shown from its earliest operation, whichever one the walk started at.
    let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
    cycle.rotate_left(first);
    let shown: Vec<String> = cycle.iter().map(|&q| trace.ops[q as usize].index.to_string()).collect();
    let text = format!("{} -> {}", shown.join(" -> "), shown.first().map_or("", String::as_str));
    let on_cycle =
        |src: u32, dest: u32| cycle.iter().zip(cycle.iter().cycle().skip(1)).any(|(&a, &b)| a == src && b == dest);
    if let Some(i) = trace.dependence.iter().position(|&(src, dest)| on_cycle(src, dest)) {
        let (src, dest) = trace.dependence[i];
        return Err(InputError::at(
            &trace.dependence_file,
            trace.dependence_lines.get(i).copied().unwrap_or(0) as usize,
            1,
            &format!("src:{} dest:{}", trace.ops[src as usize].index, trace.ops[dest as usize].index),
            format!("dependence edge closes a happens-before cycle ({text}), contradicting the trace's order"),
        ));
    }
    let o = &trace.ops[cycle[0] as usize];
    Err(InputError::at(
        &trace.file,
        o.line as usize,
        1,
        &o.index.to_string(),
        format!("operations wait for each other in a cycle ({text}): not replayable"),
    ))
}

impl EmModel {
    /// Builds the transition system, rejecting traces whose structure it cannot replay.
    pub fn new(trace: EmTrace) -> Result<Self, InputError> {
        let n = trace.ops.len();
        let mut raws: Vec<u32> = trace.ops.iter().map(|o| o.tid).collect();
        for o in &trace.ops {
            match o.kind {
                OpKind::Fork { child } => raws.push(child),
                OpKind::Post { dest, .. } => raws.push(dest),
                OpKind::Notify { target } => raws.push(target),
                _ => {}
            }
        }
        raws.sort_unstable();
        raws.dedup();
        let raw_thread: FxHashMap<u32, u32> = raws.iter().enumerate().map(|(i, &r)| (r, i as u32)).collect();
        let mut threads: Vec<Thread> = raws.iter().map(|&raw| Thread { raw, ..Default::default() }).collect();
        let mut handlers: Vec<Option<Handler>> = vec![None; trace.messages.len()];
        let mut post_of: Vec<u32> = vec![NEVER; trace.messages.len()];
        let nthreads = threads.len() as u32;
        let mut op_thread = vec![0u32; n];
        let mut op_task = vec![0u32; n];
        let mut prev_in_task = vec![NEVER; n];
        let mut last_of_task: Vec<u32> = vec![NEVER; threads.len() + trace.messages.len()];
        let mut running: Vec<Option<u32>> = vec![None; threads.len()];
        let mut slot = vec![0u32; n];
        let mut lock_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let mut reads = 0u32;
        let mut fork_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut attach_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut lifecycle_enables: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let mut waits_for: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];

        // Whether each thread's THREADINIT has been seen: a thread's operations follow it.
        let mut started = vec![false; threads.len()];
        let mut loop_op: Vec<u32> = vec![NEVER; threads.len()];
        for (p, o) in trace.ops.iter().enumerate() {
            let t = raw_thread[&o.tid];
            op_thread[p] = t;
            let reject = |msg: String| InputError::at(&trace.file, o.line as usize, 1, &o.index.to_string(), msg);
            if o.kind == OpKind::ThreadInit {
                started[t as usize] = true;
            } else if !started[t as usize] {
                return Err(reject(format!("operation of thread {} before its THREADINIT", o.tid)));
            }
            if o.kind == OpKind::Loop {
                loop_op[t as usize] = p as u32;
            }
            let task = match (o.kind, running[t as usize]) {
                (OpKind::Call { msg }, _) => {
                    running[t as usize] = Some(msg);
                    handlers[msg as usize] = Some(Handler { thread: t, post: post_of[msg as usize], ops: Vec::new() });
                    threads[t as usize].messages.push(msg);
                    nthreads + msg
                }
                (OpKind::Ret { msg }, _) => {
                    running[t as usize] = None;
                    nthreads + msg
                }
                (_, Some(msg)) => nthreads + msg,
                (_, None) => {
                    let th = &mut threads[t as usize];
                    if th.loop_after.is_some() {
                        return Err(reject(format!(
                            "operation of thread {} outside a handler after its LOOP: not replayable",
                            th.raw
                        )));
                    }
                    th.own.push(p as u32);
                    if o.kind == OpKind::Loop {
                        th.loop_after = Some(th.own.len() as u32);
                    }
                    t
                }
            };
            if task >= nthreads {
                if let Some(h) = handlers[(task - nthreads) as usize].as_mut() {
                    h.ops.push(p as u32);
                }
            }
            op_task[p] = task;
            prev_in_task[p] = last_of_task[task as usize];
            last_of_task[task as usize] = p as u32;
            match o.kind {
                OpKind::Lock { lock } | OpKind::Unlock { lock } => {
                    let next = lock_ids.len() as u32;
                    slot[p] = *lock_ids.entry(lock).or_insert(next);
                }
                OpKind::Read { .. } => {
                    slot[p] = reads;
                    reads += 1;
                }
                OpKind::Fork { child } => {
                    fork_of.insert(child, p as u32);
                }
                OpKind::AttachQ { .. } => {
                    attach_of.entry(o.tid).or_insert(p as u32);
                }
                OpKind::Post { msg, .. } => post_of[msg as usize] = p as u32,
                OpKind::Enable { env: EnvKind::Lifecycle, key } => {
                    lifecycle_enables.entry(key).or_default().push(p as u32)
                }
                OpKind::Trigger { env: EnvKind::Lifecycle, key } => {
                    // Matched with the latest enable of the same (id, state) not yet triggered.
                    if let Some(e) = lifecycle_enables.get_mut(&key).and_then(Vec::pop) {
                        waits_for[p].push(e);
                    }
                }
                _ => {}
            }
        }
        // A trace that ends inside a handler, or a forked thread that never starts, cannot be
        // replayed as recorded: no shipped trace has either (docs/em-semantics.md).
        if let Some(msg) = running.iter().flatten().next() {
            let call = &trace.ops[handlers[*msg as usize].as_ref().map_or(0, |h| h.ops[0]) as usize];
            return Err(InputError::at(
                &trace.file,
                call.line as usize,
                1,
                &call.index.to_string(),
                format!(
                    "trace ends inside the handler of message {} (CALL without RET)",
                    trace.messages[*msg as usize]
                ),
            ));
        }
        // The earliest such FORK, so that the report does not depend on hash order.
        if let Some((&child, &fork)) =
            fork_of.iter().filter(|(c, _)| !started[raw_thread[c] as usize]).min_by_key(|(_, &f)| f)
        {
            {
                let o = &trace.ops[fork as usize];
                return Err(InputError::at(
                    &trace.file,
                    o.line as usize,
                    1,
                    &o.index.to_string(),
                    format!("thread {child} is forked but never starts (no THREADINIT)"),
                ));
            }
        }
        // Static edges known only once every operation is seen.
        for th in &threads {
            if let (Some(&first), Some(&fork)) = (th.own.first(), fork_of.get(&th.raw)) {
                if fork < first {
                    waits_for[first as usize].push(fork);
                }
            }
        }
        for (p, o) in trace.ops.iter().enumerate() {
            if let OpKind::Post { dest, .. } = o.kind {
                waits_for[p].push(attach_of.get(&dest).copied().unwrap_or(NEVER));
            }
        }
        for &(src, dest) in &trace.dependence {
            waits_for[dest as usize].push(src);
        }
        check_acyclic(&trace, &waits_for, &prev_in_task, &handlers, &loop_op, &op_thread)?;
        Ok(EmModel {
            trace,
            threads,
            handlers,
            raw_thread,
            op_thread,
            op_task,
            prev_in_task,
            waits_for,
            slot,
            locks: lock_ids.len() as u32,
            reads,
            lock_symbols: {
                let mut by_id = vec![0; lock_ids.len()];
                for (&sym, &id) in &lock_ids {
                    by_id[id as usize] = sym;
                }
                by_id
            },
        })
    }

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

    /// Where thread `t` is, for a deadlock report: ` in the handler of message M` while it runs
    /// one, ` calling the handler of message M` when that message is in front of its queue
    /// and its CALL is next; empty on a thread's own code.
    fn in_handler(&self, s: &EmState, t: u32) -> String {
        let running = s.get(RUNNING, t as usize);
        if running != 0 {
            return format!(" in the handler of message {}", self.trace.messages[(running - 1) as usize]);
        }
        let th = &self.threads[t as usize];
        match s.queue(t).first() {
            Some(&m) if th.loop_after.is_some_and(|l| s.get(OWN, t as usize) >= l) => {
                format!(" calling the handler of message {}", self.trace.messages[m as usize])
            }
            _ => String::new(),
        }
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

    fn stuck_length_fixed(&self) -> bool {
        true
    }

    fn choices(&self) -> u32 {
        self.threads.len() as u32
    }

    fn initial(&self) -> EmState {
        let nt = self.threads.len();
        let sizes = [
            (OWN, nt),
            (HANDLED, self.handlers.len()),
            (QLEN, nt),
            (QBUF, self.threads.iter().map(|t| t.messages.len()).sum()),
            (LAST_WRITE, self.trace.locations.len()),
            (RF, self.reads as usize),
            (RUNNING, nt),
            (NOTIFIES, nt),
            (LOCKS, 2 * self.locks as usize),
            (EXECUTED, self.trace.ops.len().div_ceil(32)),
        ];
        let header = QOFF + nt;
        let total = header + sizes.iter().map(|(_, n)| n).sum::<usize>();
        let mut buf = vec![0u32; total];
        let mut at = header;
        for (region, n) in sizes {
            buf[region] = at as u32;
            at += n;
        }
        // Each thread's queue holds at most the messages it handles.
        let mut q = 0;
        for (t, th) in self.threads.iter().enumerate() {
            buf[QOFF + t] = q;
            q += th.messages.len() as u32;
        }
        EmState { buf, journal: None }
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

    fn explain_stuck(&self, s: &EmState) -> Vec<String> {
        let mut out = Vec::new();
        for t in 0..self.threads.len() as u32 {
            let name = self.choice_name(t);
            let Some(op) = self.next_op(s, t) else {
                // A looper with an empty queue: the next message it handles was never posted.
                let th = &self.threads[t as usize];
                let waiting = th.loop_after.is_some_and(|l| s.get(OWN, t as usize) >= l);
                let next = th.messages.iter().find(|&&m| s.get(HANDLED, m as usize) == 0);
                if let (true, Some(&m)) = (waiting, next) {
                    if let Some(h) = &self.handlers[m as usize] {
                        let post = self.trace.ops[h.post as usize].index;
                        out.push(format!(
                            "thread {name}: its queue is empty; message {} it handles next is posted by operation {post}, which never ran",
                            self.trace.messages[m as usize]
                        ));
                    }
                }
                continue;
            };
            if self.op_enabled(s, op) {
                continue;
            }
            let o = &self.trace.ops[op as usize];
            let why = if let Some(&w) = self.waits_for[op as usize].iter().find(|&&w| w == NEVER || !s.executed(w)) {
                if w == NEVER {
                    "an operation that is not in the trace".to_string()
                } else {
                    format!("operation {} to run first", self.trace.ops[w as usize].index)
                }
            } else {
                match o.kind {
                    OpKind::Lock { lock } => {
                        let l = 2 * self.slot[op as usize] as usize;
                        let holder = s.get(LOCKS, l);
                        let by = if holder == 0 {
                            "nobody".into()
                        } else {
                            // Where the holder took it: its latest LOCK of this lock that ran.
                            let lock_id = self.slot[op as usize];
                            let taken = (0..self.trace.ops.len() as u32)
                                .rev()
                                .find(|&q| {
                                    s.executed(q)
                                        && self.op_thread[q as usize] == holder - 1
                                        && matches!(self.trace.ops[q as usize].kind, OpKind::Lock { .. })
                                        && self.slot[q as usize] == lock_id
                                })
                                .map(|q| {
                                    let o = &self.trace.ops[q as usize];
                                    format!(" since operation {} (line {})", o.index, o.line)
                                })
                                .unwrap_or_default();
                            format!("thread {}{}{taken}", self.choice_name(holder - 1), self.in_handler(s, holder - 1))
                        };
                        format!("lock {}, held by {by}", self.trace.symbol(lock))
                    }
                    OpKind::Wait => "a NOTIFY (none pending)".to_string(),
                    _ => "something it cannot have".to_string(),
                }
            };
            let text = self.op_text(op);
            let body = text.split_once(": ").map_or(text.as_str(), |x| x.1);
            // A looper stuck in (or about to call) a handler holds up every message behind it.
            let queued: Vec<String> = if self.threads[t as usize].loop_after.is_some() {
                let q = s.queue(t);
                let behind = if s.get(RUNNING, t as usize) == 0 { q.get(1..).unwrap_or(&[]) } else { q };
                behind.iter().map(|&m| self.trace.messages[m as usize].to_string()).collect()
            } else {
                Vec::new()
            };
            let queued = match queued.as_slice() {
                [] => String::new(),
                [m] => format!("; message {m} waits behind it in the queue"),
                ms => format!("; messages {} wait behind it in the queue", ms.join(" ")),
            };
            out.push(format!(
                "thread {name}{} at operation {} (line {}: {body}) waits for {why}{queued}",
                self.in_handler(s, t),
                o.index,
                o.line
            ));
        }
        out
    }

    fn explain_step(&self, before: &EmState, after: &EmState, c: Choice) -> String {
        let Some(op) = self.next_op(before, c) else { return String::new() };
        match self.trace.ops[op as usize].kind {
            OpKind::Read { .. } => match self.observed(after, op) {
                Some(0) => "   -> reads the initial value".into(),
                Some(w) => format!("   -> reads the value of write {w}"),
                None => String::new(),
            },
            OpKind::Write { loc } => {
                let old = before.get(LAST_WRITE, loc as usize);
                format!(
                    "   -> overwrites {}",
                    if old == 0 { "the initial value".into() } else { format!("write {old}") }
                )
            }
            OpKind::Post { .. } | OpKind::Call { .. } | OpKind::Ret { .. } => {
                let t = match self.trace.ops[op as usize].kind {
                    OpKind::Post { dest, .. } => self.thread_of_raw(dest).unwrap_or(c),
                    _ => c,
                };
                let q: Vec<String> =
                    after.queue(t).iter().map(|&m| self.trace.messages[m as usize].to_string()).collect();
                format!("   -> queue of thread {}: [{}]", self.threads[t as usize].raw, q.join(" "))
            }
            _ => String::new(),
        }
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
