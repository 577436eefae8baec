//! Explanations of the EM emulator for people (`Model::explain_stuck`, `Model::explain_step`):
//! why each thread of a stuck state cannot step, naming the lock holder, the missing NOTIFY or
//! the static edge it waits for, and what a step changed. Read-only; no search uses it.

use super::state::{HANDLED, LAST_WRITE, LOCKS, OWN, RUNNING};
use super::{EmModel, EmState, NEVER};
use crate::model::{Choice, Model};
use crate::trace::em::OpKind;

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
    /// `Model::explain_stuck`: per thread that cannot step, what its next operation waits for.
    pub(super) fn why_stuck(&self, s: &EmState) -> Vec<String> {
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
