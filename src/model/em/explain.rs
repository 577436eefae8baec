//! Explanations of the EM emulator for people (`Model::explain_stuck`, `Model::explain_step`):
//! why each thread of a stuck state cannot step, naming the lock holder, the missing NOTIFY or
//! the static edge it waits for, and what a step changed. Read-only; no search uses it.

use serde::Serialize;

use super::state::{HANDLED, LAST_WRITE, LOCKS, OWN, RUNNING};
use super::{EmModel, EmState, OpRef, NEVER};
use crate::model::{Choice, Model};
use crate::trace::em::OpKind;

/// One thread of a stuck state and what it waits for: a deadlock's `stuck` entries in
/// `check --json` (docs/races.md, "What each report names").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StuckThread {
    /// The raw thread id (the looper, when it is stuck in or before a handler).
    pub thread: u32,
    /// The message whose handler it runs or is about to call; for an empty queue, the message
    /// it handles next.
    pub handler: Option<u64>,
    /// Its next operation, which cannot run (none: a looper whose queue is empty).
    pub op: Option<OpRef>,
    /// `lock` (held by another thread), `notify` (a WAIT with no NOTIFY pending), `operation`
    /// (a static edge whose source has not run), `post` (its next message was never posted).
    pub waits_for: &'static str,
    /// The lock, as the trace names it.
    pub lock: Option<String>,
    /// Who holds that lock.
    pub holder: Option<Holder>,
    /// The operation it waits for: the static edge's source, the next NOTIFY to it in the
    /// trace, the POST of its next message.
    pub operation: Option<OpRef>,
    /// Messages queued behind it on its looper.
    pub queued_behind: Vec<u64>,
    /// The whole as a sentence (the deadlock's message joins them).
    pub text: String,
}

/// The holder of a lock a stuck thread waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Holder {
    pub thread: u32,
    /// The message whose handler holds it, when a handler does.
    pub handler: Option<u64>,
    /// The LOCK by which it took it.
    pub since: Option<OpRef>,
}

impl EmModel {
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
    /// `Model::stuck_threads`: per thread that cannot step, what its next operation waits for,
    /// each operation named as the trace names it ([`OpRef`]).
    pub(super) fn why_stuck(&self, s: &EmState) -> Vec<StuckThread> {
        let mut out = Vec::new();
        for t in 0..self.threads.len() as u32 {
            let name = self.choice_name(t);
            let raw = self.threads[t as usize].raw;
            let Some(op) = self.next_op(s, t) else {
                // A looper with an empty queue: the next message it handles was never posted.
                let th = &self.threads[t as usize];
                let waiting = th.loop_after.is_some_and(|l| s.get(OWN, t as usize) >= l);
                let next = th.messages.iter().find(|&&m| s.get(HANDLED, m as usize) == 0);
                if let (true, Some(&m)) = (waiting, next) {
                    if let Some(h) = &self.handlers[m as usize] {
                        let msg = self.trace.messages[m as usize];
                        let post = self.op_ref(h.post);
                        let text = format!(
                            "thread {name}: its queue is empty; message {msg} it handles next is posted by operation {} ({}: {}), which never ran",
                            post.index,
                            post.short(),
                            post.what()
                        );
                        out.push(StuckThread {
                            thread: raw,
                            handler: Some(msg),
                            op: None,
                            waits_for: "post",
                            lock: None,
                            holder: None,
                            operation: Some(post),
                            queued_behind: Vec::new(),
                            text,
                        });
                    }
                }
                continue;
            };
            if self.op_enabled(s, op) {
                continue;
            }
            let o = &self.trace.ops[op as usize];
            let (mut lock, mut holder, mut operation) = (None, None, None);
            let (waits_for, why) = if let Some(&w) =
                self.waits_for[op as usize].iter().find(|&&w| w == NEVER || !s.executed(w))
            {
                if w == NEVER {
                    ("operation", "an operation that is not in the trace".to_string())
                } else {
                    let first = self.op_ref(w);
                    let why = format!("operation {} ({}: {}) to run first", first.index, first.short(), first.what());
                    operation = Some(first);
                    ("operation", why)
                }
            } else {
                match o.kind {
                    OpKind::Lock { lock: sym } => {
                        let l = 2 * self.slot[op as usize] as usize;
                        let by = s.get(LOCKS, l);
                        let name = self.trace.symbol(sym).to_string();
                        let text = if by == 0 {
                            format!("lock {name}, held by nobody")
                        } else {
                            // Where the holder took it: its latest LOCK of this lock that ran.
                            let lock_id = self.slot[op as usize];
                            let taken = (0..self.trace.ops.len() as u32).rev().find(|&q| {
                                s.executed(q)
                                    && self.op_thread[q as usize] == by - 1
                                    && matches!(self.trace.ops[q as usize].kind, OpKind::Lock { .. })
                                    && self.slot[q as usize] == lock_id
                            });
                            let since = taken
                                .map(|q| {
                                    let o = self.op_ref(q);
                                    format!(" since operation {} (line {}{})", o.index, o.line, o.in_log())
                                })
                                .unwrap_or_default();
                            let running = s.get(RUNNING, (by - 1) as usize);
                            holder = Some(Holder {
                                thread: self.threads[(by - 1) as usize].raw,
                                handler: (running != 0).then(|| self.trace.messages[(running - 1) as usize]),
                                since: taken.map(|q| self.op_ref(q)),
                            });
                            format!(
                                "lock {name}, held by thread {}{}{since}",
                                self.choice_name(by - 1),
                                self.in_handler(s, by - 1)
                            )
                        };
                        lock = Some(name);
                        ("lock", text)
                    }
                    OpKind::Wait => {
                        // The NOTIFYs aimed at it that the trace has and this run has not run.
                        let pending = (0..self.trace.ops.len() as u32).find(|&q| {
                            !s.executed(q)
                                && matches!(self.trace.ops[q as usize].kind, OpKind::Notify { target } if target == raw)
                        });
                        let text = match pending {
                            Some(q) => {
                                let n = self.op_ref(q);
                                let text = format!(
                                    "a NOTIFY to thread {raw} (none pending; the next in the trace, operation {} at {}, has not run)",
                                    n.index,
                                    n.short()
                                );
                                operation = Some(n);
                                text
                            }
                            None => format!(
                                "a NOTIFY to thread {raw} (none pending, and every NOTIFY to it in the trace has run)"
                            ),
                        };
                        ("notify", text)
                    }
                    _ => ("operation", "something it cannot have".to_string()),
                }
            };
            let text = self.op_text(op);
            let body = text.split_once(": ").map_or(text.as_str(), |x| x.1);
            // A looper stuck in (or about to call) a handler holds up every message behind it.
            let queued: Vec<u64> = if self.threads[t as usize].loop_after.is_some() {
                let q = s.queue(t);
                let behind = if s.get(RUNNING, t as usize) == 0 { q.get(1..).unwrap_or(&[]) } else { q };
                behind.iter().map(|&m| self.trace.messages[m as usize]).collect()
            } else {
                Vec::new()
            };
            let queued_text = match queued.as_slice() {
                [] => String::new(),
                [m] => format!("; message {m} waits behind it in the queue"),
                ms => {
                    let ms: Vec<String> = ms.iter().map(u64::to_string).collect();
                    format!("; messages {} wait behind it in the queue", ms.join(" "))
                }
            };
            let op = self.op_ref(op);
            let text = format!(
                "thread {name}{} at operation {} (line {}: {body}{}) waits for {why}{queued_text}",
                self.in_handler(s, t),
                o.index,
                o.line,
                op.in_log()
            );
            out.push(StuckThread {
                thread: raw,
                handler: op.handler,
                op: Some(op),
                waits_for,
                lock,
                holder,
                operation,
                queued_behind: queued,
                text,
            });
        }
        out
    }

    /// `Model::explain_step`: what step `c` did to the reads, writes and queues.
    pub(super) fn step_effect(&self, before: &EmState, after: &EmState, c: Choice) -> String {
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
}
