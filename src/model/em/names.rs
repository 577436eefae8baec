//! Operations of an EM trace named as the trace names them ([`OpRef`]): its line, thread (the
//! looper, for a handler's operation), handler, operation and location. Every report that
//! points at an operation (races, outcomes explained, deadlocks) names it this way
//! (docs/races.md, "What each report names").

use serde::Serialize;

use super::EmModel;
use crate::trace::em::OpKind;

/// One operation, named as the trace names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpRef {
    /// The operation's number in the trace (its first field; what outcomes print).
    pub index: u32,
    /// Its line in trace.txt.
    pub line: u32,
    /// The raw thread id that runs it (the looper, for a handler's operation).
    pub thread: u32,
    /// The message whose handler runs it (`msg:` of its CALL), none outside handlers.
    pub handler: Option<u64>,
    /// The operation as written: `READ`, `WRITE`, `READ-STATIC`, `WRITE-STATIC`, `LOCK`, ...
    pub kind: String,
    /// For an access: the location as the trace names it: `CLASS.FIELD` for a static,
    /// `CLASS.FIELD of OBJECT` for an object's field (the class of the location's first access).
    pub location: Option<String>,
    /// For a LOCK or UNLOCK: the lock, as the trace names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
    /// When the trace was converted from DroidRacer's `abc_log.txt`: the operation there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<LogRef>,
}

/// An operation as DroidRacer's `abc_log.txt` has it (before the conversion renumbers threads,
/// messages and lines: docs/abc-log.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogRef {
    /// Its line in the log; none for an operation the conversion added.
    pub line: Option<u32>,
    /// The log's `tid` of the thread running it.
    pub thread: u64,
    /// The log's `msg` of the handler running it.
    pub handler: Option<u64>,
}

impl EmModel {
    /// `op` named as the trace names it.
    pub fn op_ref(&self, op: u32) -> OpRef {
        let o = &self.trace.ops[op as usize];
        let nt = self.threads.len() as u32;
        let task = self.op_task[op as usize];
        let handler = task.checked_sub(nt).map(|m| self.trace.messages[m as usize]);
        let (kind, location) = match o.kind {
            OpKind::Read { loc } | OpKind::Write { loc } => {
                let st = if self.trace.locations[loc as usize].is_static { "-STATIC" } else { "" };
                let rw = if matches!(o.kind, OpKind::Read { .. }) { "READ" } else { "WRITE" };
                (format!("{rw}{st}"), Some(self.trace.location_full_name(loc)))
            }
            _ => {
                let text = self.op_text(op);
                let body = text.split_once(": ").map_or(text.as_str(), |x| x.1).to_string();
                (body.split(' ').next().unwrap_or("").to_string(), None)
            }
        };
        let lock = match o.kind {
            OpKind::Lock { lock } | OpKind::Unlock { lock } => Some(self.trace.symbol(lock).to_string()),
            _ => None,
        };
        let log = self.trace.origin.as_ref().map(|g| LogRef {
            line: g.lines.get(o.line as usize).copied().filter(|&l| l != 0),
            thread: g.threads.get(o.tid as usize).copied().unwrap_or(o.tid as u64),
            handler: handler.map(|m| g.messages.get(m as usize).copied().unwrap_or(m)),
        });
        OpRef { index: o.index, line: o.line, thread: o.tid, handler, kind, location, lock, log }
    }
}

impl OpRef {
    /// `READ of C.f of 0x1 at line 97 (thread 3, handler 12)`.
    pub fn describe(&self) -> String {
        format!("{} at line {} ({})", self.what(), self.line, self.place())
    }

    /// The operation and what it touches: `READ of C.f of 0x1`, `LOCK 0xa`, `POST`.
    pub fn what(&self) -> String {
        match (&self.location, &self.lock) {
            (Some(l), _) => format!("{} of {l}", self.kind),
            (None, Some(l)) => format!("{} {l}", self.kind),
            (None, None) => self.kind.clone(),
        }
    }

    /// `thread 3, handler 12` or `thread 3`, and where a log has it (`; log line 1234, tid 1,
    /// msg 77`).
    pub fn place(&self) -> String {
        let log = self.in_log();
        match self.handler {
            Some(h) => format!("thread {}, handler {h}{log}", self.thread),
            None => format!("thread {}{log}", self.thread),
        }
    }

    /// `; log line 1234, tid 1, msg 77` when the trace was converted from a log; empty otherwise.
    pub fn in_log(&self) -> String {
        let Some(g) = &self.log else { return String::new() };
        let line = g.line.map_or_else(|| "added by the conversion".to_string(), |l| format!("log line {l}"));
        match g.handler {
            Some(m) => format!("; {line}, tid {}, msg {m}", g.thread),
            None => format!("; {line}, tid {}", g.thread),
        }
    }

    /// `line 64 (thread 2)`.
    pub fn short(&self) -> String {
        format!("line {} ({})", self.line, self.place())
    }
}
